"""The games in JAX on Pgx's API: `make(game, **config)` returns a `pgx.Env` of the game, jitted and vmapped as
any Pgx environment is, with the AEC env's config keywords; `env.init(key, options=...)` takes the AEC env's
reset options (a given deal), so one deal can be played in both engines. Needs the `jax` extra (jax, pgx).
"""
import importlib

from ..registry import game_names

# game name -> the module of its JAX engine
MODULES = {"quando": "quando_env.jax.quando", "cabo": "quando_env.jax.cabo",
           "help": "quando_env.jax.help"}


def make(game: str, **config):
    """The `pgx.Env` of `game` (a name of quando_env.game_names()) with the AEC env's options."""
    if not isinstance(game, str) or game not in game_names():
        raise ValueError(f"unknown game {game!r}: choose one of {game_names()}")
    return importlib.import_module(MODULES[game]).make(**config)


__all__ = ["make"]
