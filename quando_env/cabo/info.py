"""The per-seat numbers of Cabo's step infos (`Game.info_arrays`, the game's info_keys), read from the records."""
from numba import njit

from .engine import C_N, hand_total_R22


@njit(cache=True)
def info_kernel(states, cfg, out):
    """out[g, :, p]: seat p's game total, last round's points, hand total (R22), rounds finished."""
    n = cfg[C_N]
    for g in range(states.shape[0]):
        s = states[g]
        for p in range(n):
            out[g, 0, p] = s.total[p]
            out[g, 1, p] = s.points[p]
            out[g, 2, p] = hand_total_R22(s, p)
            out[g, 3, p] = s.round
