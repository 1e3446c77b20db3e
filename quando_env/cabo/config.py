"""Cabo's options (spec "Options", R3, R5, R6, R19, R21, R23, R24, R26), validated in one place."""
from dataclasses import asdict, dataclass

import numpy as np

from ..checks import as_bool, as_int, rule
from ..options import MAX_STEPS, MAX_TARGET, check_episode_options, option
from . import engine as E
from .observation import offset_vector


@dataclass(frozen=True)
class Config:
    """Rules and episode options. Defaults follow RULES.md; dealer None means seat n-1 (R24)."""

    num_players: int = 4
    hand_size: int = 4                  # R5
    peek: int = 2                       # R6, D2: slots 0 .. peek-1 are looked at
    knocker_final_turn: bool = True     # R19, D11
    tie_doubles: bool = False           # R23, D15
    turn_limit: int = 200               # R21, D13 (0 = none: max_steps truncates)
    target: int = 100                   # R26
    dealer: int | None = None           # R24: the first round's dealer
    episode: str = "game"
    reward: str = "points"
    max_steps: int = 10_000             # decisions per episode before truncation

    def __post_init__(self):
        n = option(self, "num_players", as_int, 2, 6,
                   f"an integer 2..6: Cabo is played by 2 to 6 players ({rule('cabo', 'R3', 'D1')})")
        check_episode_options(self)
        hand = option(self, "hand_size", as_int, 1, 8, f"an integer 1..8: a hand has 8 slots ({rule('cabo', 'R3')})")
        option(self, "peek", as_int, 0, hand, f"an integer 0..hand_size ({hand})")
        option(self, "knocker_final_turn", as_bool)
        option(self, "tie_doubles", as_bool)
        option(self, "turn_limit", as_int, 0, MAX_STEPS, f"an integer 0..{MAX_STEPS} (0 = no limit)")
        option(self, "target", as_int, 1, MAX_TARGET)
        if self.dealer is not None:
            option(self, "dealer", as_int, 0, n - 1, f"a seat 0..{n - 1}")

    @property
    def first_dealer(self) -> int:
        """The first round's dealer (R24): seat n-1 by default, so seat 0 takes the first turn."""
        return self.dealer if self.dealer is not None else self.num_players - 1

    def to_dict(self) -> dict:
        """The options as keyword arguments (what a game record stores)."""
        return asdict(self)

    def kernel_vector(self, autoreset: bool) -> np.ndarray:
        """The int64 vector the numba kernels read: options at E.C_*, then the observation's section starts."""
        v = np.zeros(E.CFG_SIZE, np.int64)
        v[E.C_N] = self.num_players
        v[E.C_HAND] = self.hand_size
        v[E.C_PEEK] = self.peek
        v[E.C_FINAL] = self.knocker_final_turn
        v[E.C_TIE] = self.tie_doubles
        v[E.C_TLIMIT] = self.turn_limit
        v[E.C_TARGET] = self.target
        v[E.C_ROUND_EPISODE] = self.episode == "round"
        v[E.C_MAX_STEPS] = self.max_steps
        v[E.C_WIN_REWARD] = self.reward == "win"
        v[E.C_AUTORESET] = autoreset
        v[E.C_DEALER] = self.first_dealer
        return np.concatenate([v, offset_vector(self.num_players)])
