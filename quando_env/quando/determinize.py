"""Determinization: full game states consistent with one player's observation.

Works from the observation vector alone, so an agent that uses it sees nothing it should not. Each
physical card (a hand slot or a pile position) keeps the sides the observer has seen; the rest of the
55 pairs is dealt at random over the unseen sides. The observer becomes seat 0 of the sampled games
(seats stay in relative order), and encoding a sample for seat 0 gives back the observation exactly.

What the observation does not hold is filled in plainly: other players are assumed to have seen only
what is certain for them (their fronts, others' backs, discards, draw tops), and cards held by one seat
are ordered arbitrarily (D4 ties among cards the observer cannot tell apart).
"""
import numpy as np
from numba import njit

from .. import rng
from ..checks import rule
from ..obs_reader import ObsReader
from . import engine as E
from .cards import CARD_VALUES, NUM_CARDS, PAIR_TO_CARD
from .observation import offsets

_VAL = CARD_VALUES
_PAIR = PAIR_TO_CARD


def _decode(obs: np.ndarray, n: int, target: int, seed):
    """The observation's slots and scalars, as plain arrays the sampler kernel reads. A slot is
    (location, position, value of the facing side or -1, value of the other side or -1, seen bits)."""
    off = offsets(n)

    def sec(name):
        a, b = off[name]
        return obs[a:b]

    def idx(name):
        x = sec(name)
        return int(np.argmax(x)) if x.max() > 0 else -1

    phase = idx("phase")
    if phase in (-1, E.PH_OVER):
        raise ValueError("cannot sample states for an observation of a finished episode")
    count = ObsReader.count
    scal = np.zeros(16, np.int64)
    scal[:10] = [phase, idx("active"), idx("decider"), idx("knocker"), idx("dealer"), count(sec("round")[0], 10),
                 int(sec("triplet")[0] > 0.5), count(sec("draw_size")[0], 55, NUM_CARDS),
                 count(sec("discard_size")[0], 55, NUM_CARDS), 0]
    turns = count(sec("turns"), 10, E.MAX_TURNS)
    totals = count(sec("totals"), target)
    # Slots: (location, position, known value of the facing side or -1, known value of the other side or -1).
    slots = []
    own = count(sec("own_hand"), 1, NUM_CARDS).reshape(11, 12)
    for f in range(11):
        for col in range(12):
            slots += [(0, 0, f, col if col < 11 else -1)] * own[f, col]
    opp = count(sec("opponents"), 1, NUM_CARDS).reshape(n - 1, 11, 12)
    for r in range(n - 1):
        for b in range(11):
            for col in range(12):
                slots += [(r + 1, 0, col if col < 11 else -1, b)] * opp[r, b, col]
    for name, loc, size in (("draw_pile", E.LOC_DRAW, scal[7]), ("discard_pile", E.LOC_DISCARD, scal[8])):
        pile = count(sec(name), 11, 11).reshape(55, 2) - 1
        for j in range(size):
            slots.append((loc, j, pile[j, 0], pile[j, 1]))
    slots = np.array(slots, np.int64).reshape(-1, 4)
    if slots.shape[0] != NUM_CARDS or ((slots[:, 2] >= 0) & (slots[:, 2] == slots[:, 3])).any():
        raise ValueError(f"the observation accounts for {slots.shape[0]} cards, not {NUM_CARDS} with two different "
                         f"sides each: is it an observation of a {n}-player game?")
    seen = (slots[:, 2] >= 0).astype(np.int64) | ((slots[:, 3] >= 0).astype(np.int64) << 1)
    # Public inference: a seat asked to flip (R12) holds a front 0. Constrain one of its unknown fronts.
    who = scal[2]
    if phase == E.PH_FLIP and who > 0:
        mine = np.flatnonzero(slots[:, 0] == who)
        if not (slots[mine, 2] == 0).any():
            fixed = {frozenset((a, b)) for a, b in slots[:, 2:4] if a >= 0 and b >= 0}
            free = [i for i in mine if slots[i, 2] < 0 and slots[i, 3] != 0 and {0, slots[i, 3]} not in fixed]
            if not free:
                raise ValueError("the observation asks a seat to flip a front 0 that it cannot hold (a set of "
                                 f"three makes the others flip a 0, {rule('quando', 'R12')})")
            slots[np.random.default_rng(seed).choice(free), 2] = 0
    return scal, turns, totals, np.column_stack([slots, seen])


# The ten pairs (card ids) that show each number.
_WITH = np.array([[c for c in range(NUM_CARDS) if v in CARD_VALUES[c]] for v in range(11)], np.int64)


@njit(cache=True)
def _augment(i, known, owner, pair_of, rng_state):
    """Find a pair for slot i among the pairs showing its seen number, moving other slots along an
    augmenting path if needed (bipartite matching by breadth-first search). owner[c] = -2 for pairs fixed
    by fully seen cards, -1 for free pairs."""
    m = known.shape[0]
    parent = np.full(NUM_CARDS, -1, np.int64)
    queue = np.empty(m + 1, np.int64)
    queue[0] = i
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        start = rng.rand_below(rng_state, 0, 10)
        for t in range(10):
            c = _WITH[known[u], (start + t) % 10]
            if owner[c] == -2 or parent[c] >= 0:
                continue
            parent[c] = u
            if owner[c] == -1:
                while True:          # flip the path back to slot i
                    w = parent[c]
                    prev = pair_of[w]
                    pair_of[w] = c
                    owner[c] = w
                    if w == i:
                        return True
                    c = prev
            queue[tail] = owner[c]
            tail += 1
    return False


@njit(cache=True)
def _assign(slots, rng_state, ids, faces):
    """Give every slot a distinct pair with its seen values in place. False if none exists."""
    m = slots.shape[0]
    owner = np.full(NUM_CARDS, -1, np.int64)
    known = np.full(m, -1, np.int64)
    for i in range(m):
        ids[i] = -1
        a, b = slots[i, 2], slots[i, 3]
        if a >= 0 and b >= 0:
            c = _PAIR[a, b]
            if owner[c] != -1:
                return False
            owner[c] = -2
            ids[i] = c
        elif a >= 0 or b >= 0:
            known[i] = a if a >= 0 else b
    half = np.empty(m, np.int64)
    nh = 0
    for i in range(m):
        if known[i] >= 0:
            half[nh] = i
            nh += 1
    rng.shuffle(rng_state, 0, half, nh)
    for t in range(nh):
        if not _augment(half[t], known, owner, ids, rng_state):
            return False
    # Mix: move a random half-seen slot to a random free pair that shows its number.
    for _ in range(8 * nh):
        i = half[rng.rand_below(rng_state, 0, nh)]
        c = _WITH[known[i], rng.rand_below(rng_state, 0, 10)]
        if owner[c] == -1:
            owner[ids[i]] = -1
            owner[c] = i
            ids[i] = c
    free = np.empty(NUM_CARDS, np.int64)
    nf = 0
    for c in range(NUM_CARDS):
        if owner[c] == -1:
            free[nf] = c
            nf += 1
    for i in range(m):
        if ids[i] < 0:              # never seen on either side: any remaining pair, either way up
            k = rng.rand_below(rng_state, 0, nf)
            ids[i] = free[k]
            nf -= 1
            free[k] = free[nf]
            faces[i] = rng.rand_below(rng_state, 0, 2)
        else:
            c = ids[i]
            a, b = slots[i, 2], slots[i, 3]
            faces[i] = (0 if _VAL[c, 0] == a else 1) if a >= 0 else (1 if _VAL[c, 0] == b else 0)
    return True


@njit(cache=True)
def _build(s, slots, ids, faces, scal, turns, totals, n):
    """Write one sampled world into state record s (observer = seat 0)."""
    s.seen[:, :] = 0
    s.nhand[:] = 0
    s.ndraw = scal[7]
    s.ndisc = scal[8]
    acq = 0
    for i in range(slots.shape[0]):
        c = ids[i]
        loc, j = slots[i, 0], slots[i, 1]
        f = faces[i]
        s.face[c] = f
        s.loc[c] = loc
        if slots[i, 4] & 1:
            s.seen[0, c] |= np.uint8(1 << f)
        if slots[i, 4] & 2:
            s.seen[0, c] |= np.uint8(1 << (1 - f))
        if loc < n:
            s.nhand[loc] += 1
            s.acq[c] = acq
            acq += 1
            for q in range(1, n):        # certain for everyone: own fronts, the others' backs (K1)
                s.seen[q, c] |= np.uint8(1 << (f if q == loc else 1 - f))
        else:
            if loc == E.LOC_DRAW:
                s.draw[s.ndraw - 1 - j] = c
            else:
                s.disc[s.ndisc - 1 - j] = c
            if loc == E.LOC_DISCARD or j == 0:  # discards and the draw top: their up side (K2, K3)
                for q in range(1, n):
                    s.seen[q, c] |= np.uint8(1 << f)
    s.acq_next = acq
    s.phase = scal[0]
    s.active = scal[1]
    s.cur = scal[2]
    s.knocker = scal[3]
    s.dealer = scal[4]
    s.round = scal[5]
    s.triplet = scal[6]
    s.drawctx = 1 if (s.phase == E.PH_DRAW and s.cur != s.active) else 0
    s.pen_left = 0
    if s.phase == E.PH_FLIP or s.drawctx == 1:
        s.pen_cur = (s.cur + 1) % n
        s.pen_left = (s.active - s.cur - 1) % n
    for p in range(n):
        s.turns[p] = turns[p]
        s.total[p] = totals[p]
    s.steps = 0
    s.shuffles = 0
    s.forced = 0


@njit(cache=True)
def _sample_kernel(slots, scal, turns, totals, n, states, seeds):
    m = slots.shape[0]
    ids = np.empty(m, np.int64)
    faces = np.empty(m, np.int64)
    rng_state = np.zeros(1, np.uint64)
    for g in range(states.shape[0]):
        rng_state[0] = seeds[g]
        if not _assign(slots, rng_state, ids, faces):
            return False
        _build(states[g], slots, ids, faces, scal, turns, totals, n)
        states[g].rng[0] = seeds[g] ^ np.uint64(0xD1B54A32D192ED03)
    return True


def draw_states(obs, num_samples: int, config, seed: int | None) -> np.ndarray:
    """`num_samples` state records consistent with `obs`, an observation of a game with `config`
    (a quando_env.Config); the observer is seat 0 in every sample. The game's `determinizer`:
    VectorGame.sample_states checks the arguments before and the records after."""
    n = config.num_players
    scal, turns, totals, slots = _decode(obs, n, config.target_score, seed)
    states = np.zeros(num_samples, E.STATE_DTYPE)
    seeds = np.random.SeedSequence(seed).generate_state(num_samples, np.uint64)
    if not _sample_kernel(slots, scal, turns, totals, n, states, seeds):
        raise ValueError("no consistent deal found for this observation")
    return states

