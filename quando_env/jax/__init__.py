"""The games in JAX on Pgx's API: `make(game, **config)` returns a `pgx.Env` of the game, jitted and vmapped as
any Pgx environment is, with the AEC env's config keywords; `env.init(key, options=...)` takes the AEC env's
reset options (a given deal), so one deal can be played in both engines. Beside them: `search` (what mctx's search
needs over `env.step`) and `single_seat` (one seat as a gymnax-style environment). Needs the `jax` extra (jax,
pgx, mctx).
"""
from ..extras import needs
from ..registry import GAMES, game_spec

with needs("jax", "quando_env.jax"):
    import jax  # noqa: F401
    import pgx  # noqa: F401


def games() -> list[str]:
    """The games with a JAX engine (their spec's `jax` part)."""
    return [name for name, spec in GAMES.items() if spec.jax is not None]


def make(game: str, **config):
    """The `pgx.Env` of `game` (one of games()) with the AEC env's options."""
    if not isinstance(game, str) or game not in games():
        raise ValueError(f"unknown game {game!r}: choose one of {games()}")
    return game_spec(game).part("jax")(**config)


# game name -> (module, class) of its JAX engine, read from the specs at import (games() also sees games registered
# later); kept for code written against it
MODULES = {name: tuple(GAMES[name].jax.split(":")) for name in games()}

__all__ = ["games", "make"]
