"""The per-seat numbers of Quando's step infos (`Game.info_arrays`, the game's info_keys), read from the records."""
from numba import njit

from .engine import C_N, hand_sums


@njit(cache=True)
def hand_sums_kernel(states, cfg, out):
    """out[g, p] = seat p's hand sum in game g (R17)."""
    for g in range(states.shape[0]):
        hand_sums(states[g], cfg[C_N], out[g])


@njit(cache=True)
def info_kernel(states, cfg, out):
    """out[g, :, p]: seat p's game total, last round's points, hand sum (R17), rounds finished (info_keys)."""
    n = cfg[C_N]
    for g in range(states.shape[0]):
        s = states[g]
        hand_sums(s, n, out[g, 2])
        for p in range(n):
            out[g, 0, p] = s.total[p]
            out[g, 1, p] = s.points[p]
            out[g, 3, p] = s.round
