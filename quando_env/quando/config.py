"""Quando's options (R3, R6, R15, R18, R19, D6), validated in one place."""
from dataclasses import asdict, dataclass

import numpy as np

from ..checks import as_choice, as_int, rule
from ..options import MAX_TARGET, check_episode_options, option
from . import engine as E
from .cards import NUM_CARDS
from .observation import offset_vector

EDITIONS = ("kendi", "oya")
MAX_PENALTY = 10**6       # a knock penalty; round points stay far inside the int32 totals
MAX_TURNS = E.MAX_TURNS


@dataclass(frozen=True)
class Config:
    """Rules and episode options. Defaults follow RULES.md; None means "the rule's default"."""

    num_players: int = 4
    edition: str = "kendi"
    episode: str = "game"
    hand_size: int | None = None        # R3: 8 with 2-3 players, 7 with 4-6
    target_score: int = 50              # R19: kendi ends at >= target, oya at > target
    knock_penalty: int = 5              # R18
    knock_min_turns: int = 2            # R15 (kendi)
    first_dealer: int | None = None     # R6: default seat n-1, so seat 0 starts
    max_steps: int = 10_000             # D6: decisions per episode before truncation
    reward: str = "points"

    def __post_init__(self):
        n = option(self, "num_players", as_int, 2, 6,
                   f"an integer 2..6: Quando is played by 2 to 6 players ({rule('quando', 'R3')})")
        option(self, "edition", as_choice, EDITIONS)
        check_episode_options(self)
        if self.hand_size is not None:
            option(self, "hand_size", as_int, 1, NUM_CARDS // n,
                   f"an integer 1..{NUM_CARDS // n}: {n} players * hand_size <= {NUM_CARDS} cards "
                   f"({rule('quando', 'R3')})")
        option(self, "target_score", as_int, 1, MAX_TARGET)
        option(self, "knock_penalty", as_int, 0, MAX_PENALTY)
        option(self, "knock_min_turns", as_int, 0, MAX_TURNS, f"an integer 0..{MAX_TURNS} (turn counts are int16)")
        if self.first_dealer is not None:
            option(self, "first_dealer", as_int, 0, n - 1, f"a seat 0..{n - 1}")

    @property
    def hand(self) -> int:
        """Cards dealt to each player (R3)."""
        return self.hand_size if self.hand_size is not None else (8 if self.num_players <= 3 else 7)

    @property
    def dealer(self) -> int:
        """The first round's dealer (R6)."""
        return self.first_dealer if self.first_dealer is not None else self.num_players - 1

    def to_dict(self) -> dict:
        """The options as keyword arguments (what a game record stores)."""
        return asdict(self)

    def kernel_vector(self, autoreset: bool) -> np.ndarray:
        """The int64 vector the numba kernels read: options at E.C_*, then the observation's section starts."""
        v = np.zeros(E.CFG_SIZE, np.int64)
        v[E.C_N] = self.num_players
        v[E.C_OYA] = self.edition == "oya"
        v[E.C_HAND] = self.hand
        v[E.C_PENALTY] = self.knock_penalty
        v[E.C_KMIN] = self.knock_min_turns
        v[E.C_TARGET] = self.target_score
        v[E.C_ROUND_EPISODE] = self.episode == "round"
        v[E.C_MAX_STEPS] = self.max_steps
        v[E.C_WIN_REWARD] = self.reward == "win"
        v[E.C_AUTORESET] = autoreset
        v[E.C_DEALER] = self.dealer
        return np.concatenate([v, offset_vector(self.num_players)])
