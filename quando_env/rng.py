"""The one random-number scheme of every game: per-game splitmix64 streams, stored as uint64 states.

A stream is one uint64; each draw adds GOLDEN and mixes. `streams(seeds, salt)` is the one rule that
turns user seeds into streams: stream = (seed + salt) * GOLDEN + START, the stream splitmix64 gives the
seed (the game streams of quando_v0 have always been these, with salt 4). Each purpose (dealing, random
actions, seat draws, agents) has its own salt, 2**40 apart, so the streams of different purposes never
meet for seeds below 2**40. Everything here also runs inside numba kernels.
"""
import numpy as np
from numba import njit, prange

GOLDEN = np.uint64(0x9E3779B97F4A7C15)   # splitmix64's increment

START = np.uint64(0x632BE59BD9B4E019)

# One salt per purpose.
SALT_GAME = 4                # the engine's stream: deals and reshuffles
SALT_ACTIONS = 1 << 40       # sample_actions: uniformly random legal moves
SALT_SEATS = 2 << 40         # training envs: the learner's seat and opponents drawn per episode
SALT_AGENT = 3 << 40         # agents that draw random numbers per game


@njit(cache=True)
def mix64(z):
    """splitmix64's output function (a bijection of uint64 with good avalanche)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def mix_below(x, n):
    """The draw of stream state x (already advanced by GOLDEN), scaled to 0..n-1."""
    return np.int64(((mix64(x) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def rand_below(state, i, n):
    """Advance stream state[i] and draw 0..n-1 from it."""
    state[i] += GOLDEN
    return mix_below(state[i], n)


@njit(cache=True)
def shuffle(state, i, items, m):
    """Fisher-Yates shuffle of items[:m] in place, drawing from stream state[i]."""
    for j in range(m - 1, 0, -1):
        k = rand_below(state, i, j + 1)
        t = items[j]
        items[j] = items[k]
        items[k] = t


@njit(cache=True)
def sample_legal(mask, state, i):
    """A uniformly random legal action of `mask` from stream state[i] (-1 if none is legal)."""
    n_legal = 0
    for a in range(mask.shape[0]):
        n_legal += mask[a]
    k = rand_below(state, i, max(n_legal, 1))
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def sample_kernel(masks, state, out):
    """out[g] = a uniformly random legal action of masks[g] from stream state[g]."""
    for g in range(masks.shape[0]):
        out[g] = sample_legal(masks[g], state, g)


@njit(cache=True, parallel=True)
def sample_kernel_parallel(masks, state, out):
    for g in prange(masks.shape[0]):
        out[g] = sample_legal(masks[g], state, g)


def streams(seeds, salt: int) -> np.ndarray:
    """The stream states for integer seeds and a purpose (SALT_*): the one seed-expansion rule."""
    s = np.asarray(seeds, np.int64).reshape(-1).astype(np.uint64)
    with np.errstate(over="ignore"):
        return (s + np.uint64(salt)) * GOLDEN + START


def draw_below(state: np.ndarray, n) -> np.ndarray:
    """Vectorized rand_below: advance every stream of `state` (in place) and draw 0..n-1 from each."""
    with np.errstate(over="ignore"):
        state += GOLDEN
    return ((mix64(state) >> np.uint64(32)) * np.asarray(n, np.uint64) >> np.uint64(32)).astype(np.int64)


def new_seed() -> int:
    """A fresh seed from the operating system's entropy."""
    return int(np.random.SeedSequence().entropy % (2**63))
