"""Cabo's options (spec "Options", R3, R5, R6, R19, R21, R23, R24, R26), validated in one place."""
from dataclasses import asdict, dataclass

import numpy as np

from ..checks import is_int, need
from ..core import check_episode_options
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
        need(is_int(self.num_players) and 2 <= self.num_players <= 6,
             f"num_players={self.num_players!r}", "Cabo is played by 2 to 6 players (R3, D1)")
        n = int(self.num_players)
        check_episode_options(self)
        need(is_int(self.hand_size) and 1 <= self.hand_size <= 8, f"hand_size={self.hand_size!r}",
             "an integer 1..8 (8 slots, R3)")
        need(is_int(self.peek) and 0 <= self.peek <= self.hand_size, f"peek={self.peek!r}",
             f"an integer 0..hand_size ({self.hand_size})")
        need(isinstance(self.knocker_final_turn, (bool, np.bool_)), f"knocker_final_turn={self.knocker_final_turn!r}",
             "True or False")
        need(isinstance(self.tie_doubles, (bool, np.bool_)), f"tie_doubles={self.tie_doubles!r}", "True or False")
        need(is_int(self.turn_limit) and self.turn_limit >= 0, f"turn_limit={self.turn_limit!r}",
             "an integer >= 0 (0 = no limit)")
        need(is_int(self.target) and self.target >= 1, f"target={self.target!r}", "a positive integer")
        if self.dealer is not None:
            need(is_int(self.dealer) and 0 <= self.dealer < n, f"dealer={self.dealer!r}", f"a seat 0..{n - 1}")

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
        v[E.C_FINAL] = bool(self.knocker_final_turn)
        v[E.C_TIE] = bool(self.tie_doubles)
        v[E.C_TLIMIT] = self.turn_limit
        v[E.C_TARGET] = self.target
        v[E.C_ROUND_EPISODE] = self.episode == "round"
        v[E.C_MAX_STEPS] = self.max_steps
        v[E.C_WIN_REWARD] = self.reward == "win"
        v[E.C_AUTORESET] = autoreset
        v[E.C_DEALER] = self.first_dealer
        return np.concatenate([v, offset_vector(self.num_players)])
