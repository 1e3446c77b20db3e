"""ObsReader: one observation vector read back by section name (what a determinization decodes).

The games' observations are flat float32 vectors laid out by a `core.Layout`; reading one back (a section,
a one-hot index, a count scaled back from its fraction) with the same checks is written once here.
"""
import numpy as np

from .core import COUNT_MAX


class ObsReader:
    """The sections of `obs`, an observation of a `num_players`-player `game` laid out by `layout` (a
    core.Layout). ValueError if obs is no vector of that layout's length."""

    def __init__(self, layout, obs, num_players: int, game: str):
        obs = np.asarray(obs if obs is not None else (), np.float32)
        size = layout.size(num_players)
        if obs.ndim != 1 or obs.shape[0] != size:
            raise ValueError(f"the observation has shape {obs.shape}: a {num_players}-player {game} observation is "
                             f"a vector of {size}")
        self.obs = obs
        self.game = game
        self.off = layout.offsets(num_players)

    def sec(self, name: str) -> np.ndarray:
        """The section `name`."""
        a, b = self.off[name]
        return self.obs[a:b]

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
