"""RandomAgent: a uniformly random legal action."""
import numpy as np

from quando_env import rng

from .base import Agent


class RandomAgent(Agent):
    """Picks uniformly among the legal actions: from the given per-row streams, else its own generator."""

    name = "random"
    uses_streams = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs, masks, streams=None):
        if streams is not None:
            out = np.empty(masks.shape[0], np.int64)
            rng.sample_kernel(np.ascontiguousarray(masks), streams, out)
            return out
        # A random key per action, -1 where illegal: the argmax is a uniform legal choice.
        keys = np.where(masks, self.rng.random(masks.shape), -1.0)
        return keys.argmax(axis=1)
