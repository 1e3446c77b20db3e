"""Upper bounds of every entry of a game's observation and state vectors (all are >= 0), for finite observation
and state spaces: each registered game's spec names the parts that can pass 1 as functions of its config (its
`bounds` part, e.g. `quando_env.quando.bounds:HIGHS`); every other part of its layouts stays within [0, 1]. An engine
no spec names (a subclass, a game not registered) gets inf."""
import numpy as np

from .registry import GAMES

KINDS = ("observation", "state")


def part_highs(game, kind: str) -> dict | None:
    """{part name: upper bound} of the parts of `game`'s (a VectorGame's) `kind` vector that can pass 1, or None
    when the game declares no bounds."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is not allowed: one of {KINDS}")
    spec = GAMES.get(getattr(game, "name", None))
    if spec is None or type(game) is not spec.part("engine"):
        return None
    return spec.part("bounds")[kind](game.config)


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
