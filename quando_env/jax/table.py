"""Pictures of JAX states: `state.save_svg(path)`, `state.to_svg()` and a notebook's `_repr_html_` draw the table
with the project's own SVG drawing (quando_env.svg) of the game's table view, where Pgx's visualiser knows only
Pgx's games. A state holds every card, so its picture is omniscient (every face shown): what the state is, not
what one seat sees (a seat's view is its observation)."""
from dataclasses import asdict, fields

import jax
import numpy as np

from ..files import output_target, write_text
from ..registry import game_class
from ..svg import H, W, svg


class Drawn:
    """Pictures for a game's JAX State (listed before pgx.State among its bases). The State holds the env's
    config (`_config`); the numba engine's state fields of the same name (without the underscore) are copied as
    they are, and `record_fields()` gives those it stores otherwise."""

    def to_svg(self) -> str:
        """The table as SVG text; a batch of states (vmapped) as their tables one below the other."""
        batch = self.rewards.shape[:-1]
        flat = jax.tree_util.tree_map(lambda x: np.asarray(x).reshape((-1,) + x.shape[len(batch):]), self)
        num = flat.rewards.shape[0]
        game = game_class(self.env_id)(num_games=num, autoreset=False, **asdict(self._config))
        tables = []
        for g in range(num):
            fill(game.states, g, jax.tree_util.tree_map(lambda x: x[g], flat))
            tables.append(svg(game.table_view(g)))
        if num == 1:
            return tables[0]
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H * num}" width="{W}" '
                f'height="{H * num}">' + "".join(t.replace("<svg ", f'<svg y="{g * H}" ', 1)
                                                 for g, t in enumerate(tables)) + "</svg>")

    def save_svg(self, filename) -> None:
        """The table (`to_svg`) written to `filename`, whole or not at all."""
        write_text(output_target(filename), self.to_svg())

    def _repr_html_(self) -> str:
        return self.to_svg()

    def record_fields(self) -> dict:
        """The numba record's fields this State stores otherwise (none by default)."""
        return {}


def fill(states, g, state) -> None:
    """Game g of the numba engine's state records `states` set to one game's JAX `state` (seat axes padded)."""
    over = state.terminated | state.truncated
    values = {f.name[1:]: getattr(state, f.name) for f in fields(state) if f.name[1:] in states.dtype.names}
    values.update(state.record_fields(), cur=-1 if over else state.current_player)
    for name, value in values.items():
        value = np.asarray(value)
        states[name][(g,) + tuple(slice(0, d) for d in value.shape)] = value
