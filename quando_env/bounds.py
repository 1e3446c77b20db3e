"""Upper bounds of every entry of a game's observation and state vectors (all are >= 0), for finite observation
and state spaces: each game declares the parts that can pass 1 as functions of its config
(`quando_env.<game>.bounds.HIGHS`); every other part of its layouts stays within [0, 1]. Any other game (your own)
gets inf."""
import importlib

import numpy as np

from .registry import GAMES, game_class

KINDS = ("observation", "state")


def part_highs(game, kind: str) -> dict | None:
    """{part name: upper bound} of the parts of `game`'s (a VectorGame's) `kind` vector that can pass 1, or None
    when the game declares no bounds."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is not allowed: one of {KINDS}")
    if getattr(game, "name", None) not in GAMES or type(game) is not game_class(game.name):
        return None
    package = f"quando_env.{game.name}"
    try:
        module = importlib.import_module(f"{package}.bounds")
    except ModuleNotFoundError as e:     # a game registered from elsewhere (a test's, your own)
        if e.name not in (package, f"{package}.bounds"):
            raise
        return None
    return module.HIGHS[kind](game.config)


def high(game, kind: str) -> np.ndarray:
    """(size,) float32 upper bound of every entry of `game`'s `kind` vector ("observation" or "state")."""
    layout = game.observation_layout if kind == "observation" else game.state_layout
    declared = part_highs(game, kind)
    if declared is None:
        return np.full(layout.size, np.inf, np.float32)
    out = np.ones(layout.size, np.float64)
    for name, value in declared.items():
        a, b = layout[name]
        out[a:b] = value
    return out.astype(np.float32)
