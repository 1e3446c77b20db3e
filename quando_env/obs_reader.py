"""ObsReader: one observation vector read back by part name (what a determinization decodes).

The games' observations are flat float32 vectors laid out by a public `quando_env.vector_parts.Layout`; reading one
back (a part, a one-hot index, a count scaled back from its fraction) with the same checks is written once here.
"""
import numpy as np

from .state_checks import COUNT_MAX


class ObsReader:
    """The parts of `obs`, one observation of the game and player count of `layout` (a quando_env.vector_parts.Layout).
    ValueError if obs is no vector of that layout's length."""

    def __init__(self, layout, obs):
        obs = np.asarray(obs if obs is not None else (), np.float32)
        if obs.ndim != 1:
            raise ValueError(f"the observation has shape {obs.shape}: a {layout.title} is a vector of {layout.size}")
        self.parts = layout.decode(obs)
        self.game = layout.game

    def sec(self, name: str) -> np.ndarray:
        """The part `name`."""
        return self.parts[name]

    def one(self, name: str, what: str) -> int:
        """The index set in the one-hot section `name` (-1 if none); ValueError naming `what` if several."""
        hot = np.flatnonzero(self.sec(name) > 0.5)
        if hot.size > 1:
            raise ValueError(f"the observation's {what} is not one-hot")
        return int(hot[0]) if hot.size else -1

    def phase(self, over: int) -> int:
        """The one-hot `phase` section; ValueError if there is none or the episode is over (phase `over`)."""
        phase = self.one("phase", "phase")
        if phase < 0:
            raise ValueError(f"the observation has no phase: is it a {self.game} observation?")
        if phase == over:
            raise ValueError("cannot sample states for an observation of a finished episode")
        return phase

    @staticmethod
    def count(x, scale, hi: int = COUNT_MAX) -> np.ndarray:
        """Counts stored as fractions (x = count / scale), back as integers; ValueError for a count outside
        0..hi (no observation of the game holds one: the record built from it could not hold it)."""
        c = np.rint(np.asarray(x, np.float64) * scale)
        if not ((c >= 0) & (c <= hi)).all():
            raise ValueError(f"the observation holds a count outside 0..{hi}: is it an observation of this game?")
        return c.astype(np.int64)
