"""Opponents of the training environments: who plays the seats the learner does not.

An opponent is "random" (VectorGame.sample_actions: per-game random streams), any object with the batched
agent interface `act(obs (B, d) float32, masks (B, num_actions) bool) -> (B,) int`, or an object with an SB3-style
`predict` (a trained model or policy), played deterministically with the action masks when it takes them.
A list of these is a pool: each opponent seat draws one per episode.
"""
import inspect

import numpy as np

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


def resolve(spec) -> list:
    """The opponent pool described by `spec`: a list of "random" or objects with `act`."""
    items = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    if not items:
        raise ValueError("opponents=[] is not allowed: give at least one opponent")
    return [_one(x) for x in items]


def _one(x):
    if isinstance(x, str):
        if x != RANDOM:
            raise ValueError(f"opponent {x!r} is not known: the built-in opponent is {RANDOM!r}")
        return RANDOM
    if callable(getattr(x, "act", None)):
        return x
    if callable(getattr(x, "predict", None)):
        return PredictOpponent(x)
    raise ValueError(f"opponent {x!r} is not allowed: use {RANDOM!r}, an object with act(obs, masks) "
                     "(the batched agent interface), an object with an SB3-style predict, or a list of these")


def checked_actions(opponent, actions, n: int) -> np.ndarray:
    """The opponent's answer as n int64 actions, or a clear error."""
    a = np.asarray(actions)
    if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"opponent {opponent!r}: act(obs, masks) on a batch of {n} must return {n} integer "
                         f"actions, got shape {a.shape} dtype {a.dtype}")
    return a.astype(np.int64)
