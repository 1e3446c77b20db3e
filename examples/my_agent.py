"""Two agents of your own, to play with any agent name of this project (docs/agents.md):

    python evaluate.py --game cabo --agents examples/my_agent.py:LowestLegal heuristic random --games 20

LowestLegal plays any game: one decision at a time (act). KnockEarly plays Quando only (it says so with `game`),
a batch of decisions at a time (act_batch), and knocks whenever it may.
"""
import numpy as np

from quando_env.quando.cards import KNOCK


class LowestLegal:
    """The legal action with the lowest index, or, with probability `explore`, a random legal one."""

    def __init__(self, seed=None, explore=0.1):
        self.rng = np.random.default_rng(seed)     # seed: given by evaluate.py (--seed) and terminal play
        self.explore = explore

    def act(self, obs, mask):
        """obs: the seat's observation (float32 vector); mask: which actions are legal (bool vector)."""
        legal = np.flatnonzero(mask)
        if self.rng.random() < self.explore:
            return int(self.rng.choice(legal))
        return int(legal[0])


class KnockEarly:
    """Quando: knocks whenever it may, else the legal action with the highest index."""

    game = "quando"     # the game it plays: it is refused for any other

    def __init__(self, num_players):
        self.num_players = num_players      # given by the caller, as are game, seed and the game's options

    def act_batch(self, obs, masks):
        """obs (B, d) float32 and masks (B, num_actions) bool: one action per row."""
        best = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)      # highest legal index per row
        return np.where(masks[:, KNOCK], KNOCK, best)
