"""Opponents of the training environments: who plays the seats the learner does not.

An opponent is "random" (VectorGame.sample_actions: per-game random streams, played inside the engine: not an
agent, so the envs need no agents package for it), another agent name of the command lines ("heuristic",
"ppo:PATH", "my_agents.py:MyAgent", ...: what quando_env.agents makes of it, through quando_env.named_agents),
any object with the batched agent interface `act(obs (B, d) float32, masks (B, num_actions) bool) -> (B,) int`,
or an object with an SB3-style `predict` (a trained model or policy), played deterministically with the action
masks when it takes them. A list of these is a pool: each opponent seat draws one per episode. An object that
declares another game (its `game` attribute) is refused.
"""
import inspect

import numpy as np

from .. import named_agents
from ..checks import as_actions, check_plays

RANDOM = "random"


class PredictOpponent:
    """The batched agent interface over an SB3-style `predict(obs, deterministic=..., action_masks=...)`."""

    def __init__(self, model, deterministic: bool = True):
        self.model = model
        self.deterministic = deterministic
        try:
            self._takes_masks = "action_masks" in inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            self._takes_masks = False

    def act(self, obs, masks):
        kwargs = {"action_masks": masks} if self._takes_masks else {}
        actions, _ = self.model.predict(obs, deterministic=self.deterministic, **kwargs)
        return actions

    def __repr__(self):
        return f"PredictOpponent({self.model!r})"


def resolve(spec, game, options: dict) -> list:
    """The opponent pool described by `spec` for `game` (a VectorGame played with `options`): a list of "random"
    or objects with `act`. Names are built once per call."""
    items = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    if not items:
        raise ValueError("opponents=[] is not allowed: give at least one opponent")
    return [_one(x, game, options) for x in items]


def _one(x, game, options: dict):
    if isinstance(x, str):
        if x == RANDOM:
            return RANDOM
        try:
            return named_agents.make(x, game.name, game.num_players, options=options)
        except (ValueError, OSError) as e:
            raise ValueError(f"opponents: {e}") from None
    check_plays(x, game.name, f"opponent {x!r}")
    if callable(getattr(x, "act", None)):
        return x
    if callable(getattr(x, "predict", None)):
        return PredictOpponent(x)
    raise ValueError(f"opponent {x!r} is not allowed: use an agent name ({named_agents.names_help()}), "
                     "an object with act(obs, masks) (the batched agent interface), an object with an SB3-style "
                     "predict, or a list of these")


def checked_actions(opponent, actions, n: int) -> np.ndarray:
    """The opponent's answer as n int64 actions, or a clear error."""
    a = as_actions(actions, n)
    if a is None or a.dtype == object:
        got = np.asarray(actions)
        raise ValueError(f"opponent {opponent!r}: act(obs, masks) on a batch of {n} must return {n} integer "
                         f"actions, got shape {got.shape} dtype {got.dtype}")
    return a.astype(np.int64)
