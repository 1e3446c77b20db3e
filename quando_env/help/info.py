"""The per-seat numbers of Help!'s step infos (`Game.info_arrays`, the game's info_keys), read from the records."""
from numba import njit

from .engine import C_N


@njit(cache=True)
def info_kernel(states, cfg, out):
    """out[g, :, p]: seat p's game total, last round's points, rounds finished (info_keys)."""
    n = cfg[C_N]
    for g in range(states.shape[0]):
        s = states[g]
        for p in range(n):
            out[g, 0, p] = s.total[p]
            out[g, 1, p] = s.points[p]
            out[g, 2, p] = s.round
