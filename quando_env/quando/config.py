"""Quando's options (R3, R6, R15, R18, R19, D6), validated in one place."""
from dataclasses import asdict, dataclass

import numpy as np

from ..checks import is_int, need
from ..core import check_episode_options
from . import engine as E
from .observation import offset_vector

EDITIONS = ("kendi", "oya")


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
        need(is_int(self.num_players) and 2 <= self.num_players <= 6,
             f"num_players={self.num_players!r}", "Quando is played by 2 to 6 players (R3)")
        n = int(self.num_players)
        need(self.edition in EDITIONS, f"edition={self.edition!r}", f"choose one of {EDITIONS}")
        check_episode_options(self)
        if self.hand_size is not None:
            need(is_int(self.hand_size) and 1 <= self.hand_size and n * self.hand_size <= 55,
                 f"hand_size={self.hand_size!r}", f"an integer >= 1 with {n} * hand_size <= 55 cards")
        need(is_int(self.target_score) and self.target_score >= 1, f"target_score={self.target_score!r}",
             "a positive integer")
        need(is_int(self.knock_penalty) and self.knock_penalty >= 0, f"knock_penalty={self.knock_penalty!r}",
             "an integer >= 0")
        need(is_int(self.knock_min_turns) and self.knock_min_turns >= 0,
             f"knock_min_turns={self.knock_min_turns!r}", "an integer >= 0")
        if self.first_dealer is not None:
            need(is_int(self.first_dealer) and 0 <= self.first_dealer < n, f"first_dealer={self.first_dealer!r}",
                 f"a seat 0..{n - 1}")

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
