"""Quando's options (R3, R6, R15, R18, R19, D6), each declared once: its default, its check, and what the kernels
(quando_env.quando.engine's C_* indices) and the JAX engine's rules read of it."""
from dataclasses import dataclass

from ..checks import as_choice, as_int, rule
from ..options import MAX_TARGET, Options, episode_setting, max_steps_setting, reward_setting, setting
from . import engine as E
from .cards import NUM_CARDS
from .observation import offset_vector

EDITIONS = ("kendi", "oya")
MAX_PENALTY = 10**6       # a knock penalty; round points stay far inside the int32 totals
MAX_TURNS = E.MAX_TURNS


@dataclass(frozen=True)
class Config(Options):
    """Rules and episode options. Defaults follow RULES.md; None means "the rule's default"."""

    kernel_size, autoreset_slot, observation_starts = E.CFG_SIZE, E.C_AUTORESET, staticmethod(offset_vector)

    num_players: int = setting(4, as_int, 2, 6, f"an integer 2..6: Quando is played by 2 to 6 players "
                               f"({rule('quando', 'R3')})", kernel=(E.C_N, "n"))
    edition: str = setting("kendi", as_choice, EDITIONS, kernel=(E.C_OYA, "oya", lambda c: c.edition == "oya"))
    episode: str = episode_setting(E.C_ROUND_EPISODE)
    hand_size: int | None = setting(          # R3: 8 with 2-3 players, 7 with 4-6
        None, as_int, 1, lambda c: NUM_CARDS // c.num_players,
        lambda c: f"an integer 1..{NUM_CARDS // c.num_players}: {c.num_players} players * hand_size <= {NUM_CARDS} "
                  f"cards ({rule('quando', 'R3')})", kernel=(E.C_HAND, "hand", lambda c: c.hand))
    target_score: int = setting(50, as_int, 1, MAX_TARGET, kernel=(E.C_TARGET, "target"))   # R19: kendi >=, oya >
    knock_penalty: int = setting(5, as_int, 0, MAX_PENALTY, kernel=(E.C_PENALTY, "penalty"))        # R18
    knock_min_turns: int = setting(2, as_int, 0, MAX_TURNS, f"an integer 0..{MAX_TURNS} (turn counts are int16)",
                                   kernel=(E.C_KMIN, "kmin"))                                          # R15 (kendi)
    first_dealer: int | None = setting(       # R6: default seat n-1, so seat 0 starts
        None, as_int, 0, lambda c: c.num_players - 1, lambda c: f"a seat 0..{c.num_players - 1}",
        kernel=(E.C_DEALER, "dealer", lambda c: c.dealer))
    max_steps: int = max_steps_setting(10_000, E.C_MAX_STEPS)      # D6: decisions per episode before truncation
    reward: str = reward_setting(E.C_WIN_REWARD)

    @property
    def hand(self) -> int:
        """Cards dealt to each player (R3)."""
        return self.hand_size if self.hand_size is not None else (8 if self.num_players <= 3 else 7)

    @property
    def dealer(self) -> int:
        """The first round's dealer (R6)."""
        return self.first_dealer if self.first_dealer is not None else self.num_players - 1
