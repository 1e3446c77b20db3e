"""Help!'s options (spec "Options", R3, R15, R21, R22), validated in one place."""
from dataclasses import asdict, dataclass

import numpy as np

from ..checks import as_bool, as_choice, as_int, rule
from ..options import MAX_TARGET, check_episode_options, option
from . import engine as E
from .observation import offset_vector

RESHUFFLES = ("shuffle", "flip")


@dataclass(frozen=True)
class Config:
    """Rules and episode options. Defaults follow RULES.md."""

    num_players: int = 4
    hand_size: int = 4                  # R3, R15
    row_max: int = 6                    # R7: a row this long is cleared
    target: int = 3                     # R21
    open_lowest: bool = True            # R6, D3
    reshuffle: str = "shuffle"          # R15: "shuffle" (from the game's stream) or "flip" (turned over)
    episode: str = "game"
    reward: str = "points"              # "points": +1 per point scored; "win": +1 winners, -1 the others
    max_steps: int = 1000               # R22: decisions per round before the round and the game are truncated

    def __post_init__(self):
        option(self, "num_players", as_int, 3, 5,
               f"an integer 3..5: Help! is played by 3 to 5 players ({rule('help', 'R3')})")
        option(self, "hand_size", as_int, 3, 6)
        option(self, "row_max", as_int, 2, 6)
        option(self, "target", as_int, 1, MAX_TARGET)
        option(self, "open_lowest", as_bool)
        option(self, "reshuffle", as_choice, RESHUFFLES)
        check_episode_options(self)

    def to_dict(self) -> dict:
        """The options as keyword arguments (what a game record stores)."""
        return asdict(self)

    def kernel_vector(self, autoreset: bool) -> np.ndarray:
        """The int64 vector the numba kernels read: options at E.C_*, then the observation's section starts."""
        v = np.zeros(E.CFG_SIZE, np.int64)
        v[E.C_N] = self.num_players
        v[E.C_HAND] = self.hand_size
        v[E.C_ROWMAX] = self.row_max
        v[E.C_TARGET] = self.target
        v[E.C_OPEN_LOWEST] = self.open_lowest
        v[E.C_SHUFFLE] = self.reshuffle == "shuffle"
        v[E.C_ROUND_EPISODE] = self.episode == "round"
        v[E.C_MAX_STEPS] = self.max_steps
        v[E.C_WIN_REWARD] = self.reward == "win"
        v[E.C_AUTORESET] = autoreset
        return np.concatenate([v, offset_vector(self.num_players)])
