"""Help!'s options (spec "Options", R3, R15, R21, R22), each declared once: its default, its check, and what the
kernels (quando_env.help.engine's C_* indices) and the JAX engine's rules read of it."""
from dataclasses import dataclass

from ..checks import as_bool, as_choice, as_int, rule
from ..options import MAX_TARGET, Options, episode_setting, max_steps_setting, reward_setting, setting
from . import engine as E
from .observation import offset_vector

RESHUFFLES = ("shuffle", "flip")


@dataclass(frozen=True)
class Config(Options):
    """Rules and episode options. Defaults follow RULES.md."""

    kernel_size, autoreset_slot, observation_starts = E.CFG_SIZE, E.C_AUTORESET, staticmethod(offset_vector)

    num_players: int = setting(4, as_int, 3, 5, f"an integer 3..5: Help! is played by 3 to 5 players "
                               f"({rule('help', 'R3')})", kernel=(E.C_N, "n"))
    hand_size: int = setting(4, as_int, 3, 6, kernel=(E.C_HAND, "hand"))                     # R3, R15
    row_max: int = setting(6, as_int, 2, 6, kernel=(E.C_ROWMAX, "row_max"))   # R7: a row this long is cleared
    target: int = setting(3, as_int, 1, MAX_TARGET, kernel=(E.C_TARGET, "target"))          # R21
    open_lowest: bool = setting(True, as_bool, kernel=(E.C_OPEN_LOWEST, "open_lowest"))     # R6, D3
    reshuffle: str = setting(           # R15: "shuffle" (from the game's stream) or "flip" (turned over)
        "shuffle", as_choice, RESHUFFLES, kernel=(E.C_SHUFFLE, "shuffled", lambda c: c.reshuffle == "shuffle"))
    episode: str = episode_setting(E.C_ROUND_EPISODE)
    reward: str = reward_setting(E.C_WIN_REWARD)    # "points": +1 per point scored; "win": +1 winners, -1 the others
    max_steps: int = max_steps_setting(1000, E.C_MAX_STEPS)   # R22: decisions per round before the round is truncated
