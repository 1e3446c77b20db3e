"""The games in JAX on Pgx's API: `make(game, **config)` returns a `pgx.Env` of the game, jitted and vmapped as
any Pgx environment is, with the AEC env's config keywords; `env.init(key, options=...)` takes the AEC env's
reset options (a given deal), so one deal can be played in both engines. Beside them: `search` (what mctx's search
needs over `env.step`) and `single_seat` (one seat as a gymnax-style environment). Needs the `jax` extra (jax,
pgx, mctx).
"""
import importlib

from ..extras import needs

with needs("jax", "quando_env.jax"):
    import jax  # noqa: F401
    import pgx  # noqa: F401

# game name -> the module of its JAX engine and its pgx.Env class there
MODULES = {"quando": ("quando_env.jax.quando", "Quando"), "cabo": ("quando_env.jax.cabo", "Cabo"),
           "help": ("quando_env.jax.help", "Help")}


def make(game: str, **config):
    """The `pgx.Env` of `game` (a name of quando_env.game_names()) with the AEC env's options."""
    if not isinstance(game, str) or game not in MODULES:
        raise ValueError(f"unknown game {game!r}: choose one of {list(MODULES)}")
    module, name = MODULES[game]
    return getattr(importlib.import_module(module), name)(**config)


__all__ = ["make"]
