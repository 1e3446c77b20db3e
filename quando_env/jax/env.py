"""What every game's JAX engine shares: a `pgx.Env` built from the game's validated config, whose `init` also takes
the AEC env's reset options (a given deal), and whose `step` asks for a key where the game draws inside a step."""
from dataclasses import fields, make_dataclass

import jax
import jax.numpy as jnp
import pgx.core

import numpy as np

from ..checks import as_int
from ..options import make_config
from ..registry import game_class

# AEC env keywords that are about the adapter, not the game: refused by name.
ADAPTER_ONLY = {"render_mode": "draw with the numba engine's env (quando_env.make) instead",
                "action_features": "the JAX engines have no move features"}


class PgxGameEnv(pgx.core.Env):
    """A game as a `pgx.Env` (the base of the JAX engines; the Gymnasium env is quando_env.adapters.gym_env.GameEnv).
    Subclasses set `game`, `config_class`, `setup_keys`, `over_phase`, `rules_class` (the
    config as the static values the game's functions read, with `of(config)` and `draws_in_step`: whether a step may
    draw at random) and implement `_checked_setup(options)` and `_init_setup(key, setup)` (setup: the checked options),
    and `rules_step(rules, state, action, key)` and `rules_observe(rules, state, player)`: the game's pure functions
    (static methods)."""

    game = None
    config_class = None
    rules_class = None
    setup_keys = ()
    over_phase = None       # the game's phase once the episode is over

    def __init__(self, **config):
        super().__init__()
        for name, why in ADAPTER_ONLY.items():
            if name in config:
                raise ValueError(f"{name} is not supported by quando_env.jax: {why}")
        self.config = make_config(self.config_class, **{k: concrete(v) for k, v in config.items()})
        self.rules = self.rules_class.of(self.config)
        self._needs_key = self.rules.draws_in_step

    def init(self, key, options: dict | None = None):
        """The first state (a new deal from `key`, or the one `options` gives: the AEC env's reset options)."""
        setup = self.checked_options(options)
        state = self._init_setup(key, setup).replace(_config=self.config)
        return state.replace(observation=self.observe(state))

    def checked_options(self, options) -> dict:
        """The reset options, checked (ValueError naming what is wrong) before anything is computed."""
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict with keys among {list(self.setup_keys)}, got "
                             f"{type(options).__name__}")
        unknown = sorted(set(options) - set(self.setup_keys))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for {self.game}: it takes {list(self.setup_keys)}")
        return self._checked_setup({k: concrete(v) for k, v in options.items() if v is not None})

    def checked_seat(self, setup: dict, name: str, default):
        """Option `name`'s seat (`default` if not given), checked unless traced."""
        seat, n = setup.get(name, default), self.rules.n
        return seat if is_traced(seat) else as_int(seat, name, 0, n - 1, f"a seat 0..{n - 1}")

    def _init(self, key):
        return self._init_setup(key, {})

    def _step(self, state, action, key):
        """The game's step. Once the episode is over, `current_player` stays the seat that made the last decision
        (Pgx's api_test wants a seat there, as its own games keep one). An illegal action is not played: the table
        stays as it was, and Pgx's step then ends the episode (`_step_with_illegal_action`)."""
        s = self.rules_step(self.rules, state, action, key)
        s = s.replace(current_player=jnp.where(s.terminated | s.truncated, state.current_player, s.current_player))
        legal = state.legal_action_mask[action]
        return jax.tree_util.tree_map(lambda new, old: jnp.where(legal, new, old), s, state)

    def _step_with_illegal_action(self, state, loser):
        """Pgx's penalty (-1 to the mover, n-1 to each other seat) and the episode over, as the end of a game
        looks: the mover stays `current_player` and sees the table it left."""
        return super()._step_with_illegal_action(state, loser).replace(current_player=loser,
                                                                        _phase=self.over_phase)

    def _observe(self, state, player_id):
        return self.observe_seat(state, player_id)

    def observe_seat(self, state, seat):
        """Seat `seat`'s observation (only what that seat has seen; seat 0's once over), jittable and vmappable:
        Pgx's `observe(state, player_id)` is deprecated, and a learner or a test needs other seats' views."""
        return self.rules_observe(self.rules, state, seat)

    def observe_seats(self, state):
        """(num_players, obs_dim): every seat's observation, row p seat p's."""
        return jax.vmap(self.observe_seat, (None, 0))(state, jnp.arange(self.num_players))

    def step(self, state, action, key=None):
        if key is None and self._needs_key:
            raise ValueError(f"{self.game} with these options draws cards at random inside a step (a reshuffle or "
                             "a new round's deal): pass a key, env.step(state, action, key)")
        return super().step(state, action, key)

    @property
    def id(self) -> str:
        return self.game

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return self.config.num_players

    # Pgx's own num_actions and observation_shape run a whole init (unjitted: many seconds) to read a shape.
    @property
    def num_actions(self) -> int:
        return game_class(self.game).num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (game_class(self.game).obs_dim_of(self.num_players),)


GameEnv = PgxGameEnv        # its former name, kept for code that imports it


def rules_class(config_class, draws_in_step):
    """The static values a game's JAX functions branch on at trace time: what the numba kernels read of the config's
    options, by the kernel names its settings declare (quando_env.options.setting), as a frozen dataclass with
    `of(config)`; `draws_in_step(rules)`: whether a step may draw at random."""
    names = [f.metadata["kernel"][1] for f in fields(config_class) if f.metadata.get("kernel")]
    return make_dataclass("Rules", names, frozen=True, namespace={
        "of": classmethod(lambda cls, config: cls(**config.kernel_reads())), "draws_in_step": property(draws_in_step),
        "__doc__": f"The options of {config_class.__module__}.Config the rules read, as static values."})


def pgx_fields(num_players: int, obs_dim: int, num_actions: int) -> dict:
    """Pgx's State fields of a game before its first observation and mask."""
    return dict(current_player=jnp.int32(0), observation=jnp.zeros(obs_dim, jnp.float32),
                rewards=jnp.zeros(num_players, jnp.float32), terminated=jnp.bool_(False), truncated=jnp.bool_(False),
                legal_action_mask=jnp.zeros(num_actions, jnp.bool_), _step_count=jnp.int32(0))


def decide(s, go, phase, seat):
    """Where `go`: seat `seat` decides next, a decision of kind `phase` (`_phase` is a State field private by Pgx's
    convention, which Pgx's own Env.step reads and replaces the same way for `_step_count`)."""
    return s.replace(_phase=jnp.where(go, phase, s._phase), current_player=jnp.where(go, seat, s.current_player))


def truncated_at(s, cut, over_phase):
    """Where `cut`: the episode is truncated (max_steps) and over."""
    return s.replace(truncated=cut, _phase=jnp.where(cut, over_phase, s._phase))


def is_traced(x) -> bool:
    """True for a value inside jit or vmap, which cannot be checked in Python (taken as given)."""
    return isinstance(x, jax.core.Tracer)


def concrete(x):
    """A concrete 0-d JAX array (`jnp.int32(2)`) as the Python number it holds, so the numba engines' checks read
    it; anything else (a traced value, a deck) as given."""
    return x.item() if isinstance(x, jax.Array) and not is_traced(x) and x.ndim == 0 else x


def as_list(x):
    """An option given as an array, as the nested list the numba engines' checks read (anything else as given)."""
    return np.asarray(x).tolist() if isinstance(x, np.ndarray | jax.Array) else x
