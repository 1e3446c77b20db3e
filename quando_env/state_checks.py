"""What a state record from outside (load_states, a sampled world) must hold before the kernels run on it: the fields
every game's record shares in range (`shared_fields_ok`, which each game's `check` kernel calls first), the texts of
a game's own problem codes (`Problems`), and a legal action exactly while a game is live (`first_without_legal`).
"""
import numpy as np
from numba import njit

from .checks import need

COUNT_MAX = 2**30         # what a loaded record's counters and totals may hold (MAX_STEPS more still fit int32)
SHARED_PROBLEM = 0     # the code every game's check gives a record whose shared fields fail shared_fields_ok


@njit(cache=True)
def shared_fields_ok(s, n, over_phase):
    """The fields every game's record has, in range: phase 0..over_phase (the phase of a finished episode), cur
    a seat of the n, or -1 exactly when over; round, shuffles, totals and points 0..COUNT_MAX."""
    if not (0 <= s.phase <= over_phase and -1 <= s.cur < n and (s.cur == -1) == (s.phase == over_phase)
            and 0 <= s.round <= COUNT_MAX and 0 <= s.shuffles <= COUNT_MAX):
        return False
    for p in range(n):
        if not (0 <= s.total[p] <= COUNT_MAX and 0 <= s.points[p] <= COUNT_MAX):
            return False
    return True


@njit(cache=True)
def first_without_legal(states, masks):
    """The first record live (cur >= 0) without a legal action in masks, or over with one; -1 if none is."""
    for g in range(states.shape[0]):
        legal = False
        for a in range(masks.shape[1]):
            legal = legal or masks[g, a] == 1
        if legal != (states[g].cur >= 0):
            return g
    return -1


class Problems:
    """The problems a game's `check` kernel can find in a state record, by code: `BAD_X = problems("text")`
    gives the code (an int the kernel returns), `texts` the texts in code order (the game's state_problems).
    Code SHARED_PROBLEM is the shared fields' (shared_fields_ok)."""

    def __init__(self, over_phase: int):
        self.texts = [f"phase is not 0..{over_phase}, cur not a seat of the game (-1 exactly when the phase is "
                      f"{over_phase}, over), or round, shuffles, a total or points not 0..{COUNT_MAX}"]

    def __call__(self, text: str) -> int:
        self.texts.append(text)
        return len(self.texts) - 1


def check_records(game, states: np.ndarray, cfg: np.ndarray) -> np.ndarray:
    """The legal-action masks of state records of the game class `game` under the kernel vector `cfg`, after its
    `check` kernel and first_without_legal found nothing wrong; ValueError naming the first bad record and what."""
    states = np.ascontiguousarray(states, game.state_dtype)
    masks = np.zeros((states.shape[0], game.num_actions), np.uint8)
    check = game.kernels.check
    g, problem = check(states, cfg) if check is not None else (-1, -1)
    if g >= 0:
        raise ValueError(f"state record {g} is no state of this {game.name} game: {game.state_problems[problem]}")
    game.kernels.masks(states, cfg, masks)
    g = first_without_legal(states, masks) if check is not None else -1
    if g >= 0:
        raise ValueError(f"state record {g} is no state of this {game.name} game: the seat to decide has no legal "
                         f"action")
    return masks


def checked_observation(game, obs, config) -> np.ndarray:
    """One observation of the game class `game` under `config` (a config of that game) as float32: a vector of
    obs_dim_of(config.num_players) finite numbers, its type and length checked before it is converted."""
    if not isinstance(config, game.config_class):
        need(False, f"config of type {type(config).__name__}",
             f"a config of {game.name} ({game.config_class.__module__}.{game.config_class.__name__})")
    size = game.obs_dim_of(config.num_players)

    def refused(what: str) -> ValueError:     # the message, built only when refusing
        return ValueError(f"the observation {what}: a vector of {size} finite numbers (an observation of a "
                          f"{config.num_players}-player {game.name})")
    if not isinstance(obs, np.ndarray):
        if not (isinstance(obs, (list, tuple)) and len(obs) == size):     # refused before it is converted
            what = f" of length {len(obs)}" if isinstance(obs, (list, tuple)) else ""
            raise refused(f"is a {type(obs).__name__}{what}")
        obs = np.array(obs)
    if obs.shape != (size,):
        raise refused(f"has shape {obs.shape}")
    if obs.dtype.kind not in "fiu" or not np.isfinite(obs).all():
        raise refused(f"of dtype {obs.dtype} holds other than finite numbers")
    return obs.astype(np.float32)
