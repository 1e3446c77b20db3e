"""RandomAgent: a uniformly random legal action."""
import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Picks uniformly among the legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs, masks):
        # A random key per action, -1 where illegal: the argmax is a uniform legal choice.
        keys = np.where(masks, self.rng.random(masks.shape), -1.0)
        return keys.argmax(axis=1)
