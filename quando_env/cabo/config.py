"""Cabo's options (spec "Options", R3, R5, R6, R19, R21, R23, R24, R26), each declared once: its default, its check,
and what the kernels (quando_env.cabo.engine's C_* indices) and the JAX engine's rules read of it."""
from dataclasses import dataclass

from ..checks import as_bool, as_int, rule
from ..options import MAX_STEPS, MAX_TARGET, Options, episode_setting, max_steps_setting, reward_setting, setting
from . import engine as E
from .observation import offset_vector


@dataclass(frozen=True)
class Config(Options):
    """Rules and episode options. Defaults follow RULES.md; dealer None means seat n-1 (R24)."""

    kernel_size, autoreset_slot, observation_starts = E.CFG_SIZE, E.C_AUTORESET, staticmethod(offset_vector)

    num_players: int = setting(4, as_int, 2, 6, f"an integer 2..6: Cabo is played by 2 to 6 players "
                               f"({rule('cabo', 'R3', 'D1')})", kernel=(E.C_N, "n"))
    hand_size: int = setting(4, as_int, 1, 8, f"an integer 1..8: a hand has 8 slots ({rule('cabo', 'R3')})",
                             kernel=(E.C_HAND, "hand"))                                                # R5
    peek: int = setting(2, as_int, 0, lambda c: c.hand_size, lambda c: f"an integer 0..hand_size ({c.hand_size})",
                        kernel=(E.C_PEEK, "peek"))              # R6, D2: slots 0 .. peek-1 are looked at
    knocker_final_turn: bool = setting(True, as_bool, kernel=(E.C_FINAL, "final"))          # R19, D11
    tie_doubles: bool = setting(False, as_bool, kernel=(E.C_TIE, "tie"))                     # R23, D15
    turn_limit: int = setting(200, as_int, 0, MAX_STEPS, f"an integer 0..{MAX_STEPS} (0 = no limit)",
                              kernel=(E.C_TLIMIT, "tlimit"))   # R21, D13 (0 = none: max_steps truncates)
    target: int = setting(100, as_int, 1, MAX_TARGET, kernel=(E.C_TARGET, "target"))        # R26
    dealer: int | None = setting(None, as_int, 0, lambda c: c.num_players - 1,
                                 lambda c: f"a seat 0..{c.num_players - 1}",
                                 kernel=(E.C_DEALER, "dealer", lambda c: c.first_dealer))   # R24: the first dealer
    episode: str = episode_setting(E.C_ROUND_EPISODE)
    reward: str = reward_setting(E.C_WIN_REWARD)
    max_steps: int = max_steps_setting(10_000, E.C_MAX_STEPS)      # decisions per episode before truncation

    @property
    def first_dealer(self) -> int:
        """The first round's dealer (R24): seat n-1 by default, so seat 0 takes the first turn."""
        return self.dealer if self.dealer is not None else self.num_players - 1
