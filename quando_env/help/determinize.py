"""Determinization: full Help! states consistent with one player's observation (for search agents).

Works from the observation vector alone, so an agent that uses it sees nothing it should not. The observer
becomes seat 0 of every sample and the seats keep their relative order (seat r of a sample is r seats after
the observer in increasing seat order; the round's direction is kept), so encoding a sample for seat 0 gives
back the observation exactly, and the legal mask of the observer when it is to move is the original one
(it depends only on its own hand, the row and the phase, K4).

Kept as the observation shows it: the observer's hand, the row with its values and Wilds, the discard pile's
kinds, the No!s in front (fresh or spent), hand and pile sizes, the phase, whose turn and whose decision,
the latest ask (asker, helper, and the kinds given and given back as far as the observer saw them), calls,
callers, starter, direction and totals. The cards the observer has not seen (other hands, the draw pile)
are dealt uniformly at random over those places, each sample from its own quando_env.rng stream, among the
deals that agree with what the observation makes certain:

  - during a help (give, give back, play the received card), the asker could play nothing on the row when
    it asked (R9): its hand then held only numbers up to the row's last value or only Switches (on an empty
    row: only Switches and Zaps), so the asker's hand at the ask is dealt from one of those groups, weighted
    by how many such hands exist; the helper held a givable card (R17);
  - before anyone has finished a turn in the round (the draw pile still as dealt), every hand is as dealt,
    so each public call is that seat's lowest number card and a call of nothing means no number card (R5,
    D14). When every call is nothing (a given starter, or nobody holds a number) the calls tell nothing.

Assumptions where the observation cannot tell:
  - the draw pile holds only unseen cards in random order (after a reshuffle its order is not followed);
  - the discard pile's order is random (the observation has its kinds only; it matters for "flip");
  - a player that neither gave nor received in the help under way does not see its cards: for such an
    onlooker the helper's gift is one of its givable cards at random and the card given back one of the
    asker's cards at random (any but the gift's copy); cards moved by earlier helps are not tracked;
  - calls are not used once a turn has ended or in a help during the round's first turn;
  - fields outside the observation: `steps` (decisions this round) is 0, so max_steps counts from the
    sample on; the finished-rounds count is the fewest the callers and the direction allow (0, 1 or 2);
    last round's points follow from the callers (a caller scored nothing, R5); `deck` is the unshuffled
    deck (only records read it); no reshuffle is forced or counted.
"""
import math

import numpy as np
from numba import njit

from .. import rng
from ..obs_reader import ObsReader
from . import engine as E
from .cards import FULL_DECK, K_NO, K_SWITCH, K_WILD, K_ZAP, KIND_COUNTS, MAX_VALUE, NUM_CARDS, NUM_KINDS, ROW_CAP
from .observation import PARTS


_NO_GEN, _GEN_BACK, _GEN_RECV = 0, 1, 2      # onlooker of a help under way: replay the gift (and the give-back)
_MAX_TRIES = 200_000


def _decode(obs, config):
    """The template record with everything the observation shows, and what the sampler needs: the unseen
    cards (kinds), per relative seat the hidden cards and the cards known to be there, the call constraints,
    the stuck asker and the helper that must have had a givable card."""
    n = config.num_players
    h = config.hand_size
    rd = ObsReader(PARTS.layout(n), obs)
    sec, one, count = rd.sec, rd.one, rd.count
    phase = rd.phase(E.PH_OVER)
    t = np.zeros(1, E.STATE_DTYPE)
    s = t[0]
    s["deck"][:] = FULL_DECK
    s["shuffle"][:] = -1
    s["phase"] = phase
    s["cur"] = one("decider", "deciding seat")
    s["active"] = one("active", "active seat")
    if s["cur"] < 0 or s["active"] < 0:
        raise ValueError("the observation names no active or deciding seat")
    s["dir"] = 1 if sec("direction")[0] > 0.5 else -1
    own = count(sec("own_hand"), h, NUM_CARDS)
    s["hand"][0, :] = own
    sizes = count(sec("hand_sizes"), h, NUM_CARDS)
    row = sec("row").reshape(ROW_CAP, 12)
    nrow = 0
    while nrow < ROW_CAP and row[nrow, :MAX_VALUE].max() > 0.5:
        v = int(np.argmax(row[nrow, :MAX_VALUE])) + 1
        s["row_val"][nrow] = v
        s["row_kind"][nrow] = K_WILD if row[nrow, 11] > 0.5 else v - 1
        nrow += 1
    s["nrow"] = nrow
    if nrow and (np.diff(s["row_val"][:nrow].astype(np.int64)) <= 0).any():
        raise ValueError("the observation's row is not ascending")
    last = int(s["row_val"][nrow - 1]) if nrow else 0
    ndraw = int(count(sec("draw_size")[0], 105, NUM_CARDS))
    disc = count(sec("discard"), 8, NUM_CARDS)
    s["ndisc"] = nd = int(count(sec("discard_size")[0], 105, NUM_CARDS))
    if disc.sum() != nd:
        raise ValueError("the observation's discard pile kinds and size disagree")
    s["disc"][:nd] = np.repeat(np.arange(NUM_KINDS), disc)
    fresh, spent = sec("no_fresh") > 0.5, sec("no_spent") > 0.5
    s["no"][:n] = np.where(fresh, E.NO_FRESH, np.where(spent, E.NO_SPENT, E.NO_NONE))
    calls = np.zeros(n, np.int64)
    for r in range(n):
        hot = np.flatnonzero(sec("calls")[11 * r: 11 * r + 11] > 0.5)
        calls[r] = hot[0] + 1 if hot.size else 0
    s["calls"][:n] = calls
    callers = sec("callers") > 0.5
    s["caller"][:n] = callers
    s["starter"] = one("starter", "starter")
    s["opening"] = calls[s["starter"]] if config.open_lowest and s["starter"] >= 0 else 0
    s["total"][:n] = count(sec("totals"), config.target)
    if not callers.all():                          # R5: the callers are the seats that scored nothing
        s["points"][:n] = ~callers
        s["round"] = 1 if s["dir"] == -1 else 2
    asker, helper = one("asker", "asker"), one("helper", "helper")
    given, back = one("given", "given kind"), one("given_back", "given-back kind")
    s["asker"], s["helper"], s["given"], s["back"] = asker, helper, given, back

    known = np.zeros((n, NUM_KINDS), np.int64)     # cards the observer knows in another hand
    known[0] = own
    helping = phase in (E.PH_GIVE, E.PH_BACK, E.PH_RECV)
    if helping and (asker < 0 or helper < 0):
        raise ValueError("the observation shows a help under way without its asker and helper")
    involved = helping and 0 in (asker, helper)
    if involved and phase != E.PH_GIVE and given < 0:
        raise ValueError("the observation hides the gift from the asker or the helper")
    if involved and phase == E.PH_RECV and back < 0:
        raise ValueError("the observation hides the card given back from the asker or the helper")
    if involved and asker != 0 and phase in (E.PH_BACK, E.PH_RECV):
        known[asker, given] += 1                   # the observer helped: the gift is in the asker's hand
    if involved and asker == 0 and phase == E.PH_RECV:
        known[helper, back] += 1                   # the observer asked: its give-back is in the helper's hand

    # Unseen cards: the deck less the observer's hand, the row, the discard pile, No!s in front, known cards.
    left = KIND_COUNTS.astype(np.int64) - known.sum(axis=0) - disc
    for j in range(nrow):
        left[s["row_kind"][j]] -= 1
    left[K_NO] -= int((fresh | spent).sum())
    hid = sizes - known.sum(axis=1)
    if (left < 0).any() or (hid < 0).any() or hid[0] != 0 or left.sum() != hid.sum() + ndraw:
        raise ValueError(f"the observation's cards do not add up to the {NUM_CARDS} of the deck: is it a "
                         f"{n}-player observation with hand_size={h}?")
    pool = np.repeat(np.arange(NUM_KINDS), left).astype(np.int64)

    # Certain facts about hidden hands (module docstring).
    givable = np.array([k < MAX_VALUE and k + 1 > last for k in range(NUM_KINDS)])
    givable[K_WILD] = givable[K_NO] = True
    givable[K_SWITCH] = givable[K_ZAP] = nrow > 0
    cls = np.zeros((2, NUM_KINDS), bool)           # the asker's hand at the ask: all of cls[0] or all of cls[1]
    if nrow:
        cls[0, :last] = True
        cls[1, K_SWITCH] = True
    else:
        cls[0, K_SWITCH] = cls[0, K_ZAP] = True
    stuck, need_gift, gen = -1, -1, _NO_GEN
    if helping and asker != 0:
        stuck = asker
        if helper == 0 and phase == E.PH_RECV:     # the card given back was in that hand: it names the group
            cls[:] = cls[:, back][:, None] & cls
        elif helper != 0:
            need_gift = helper
            if phase != E.PH_GIVE:                 # an onlooker: replay the gift (and the give-back)
                gen = _GEN_BACK if phase == E.PH_BACK else _GEN_RECV
                hid[asker] -= 1 if phase == E.PH_BACK else 0
                hid[helper] += 1 if phase == E.PH_BACK else 0
    elif helping and phase == E.PH_GIVE:
        need_gift = helper                         # the observer asked: the helper holds a givable card
    if (hid < 0).any():
        raise ValueError("the observation shows a help with a gift from an empty hand: is it a real observation?")

    limit = np.full(n, -1, np.int64)               # per seat: -1 free, 0 no number card, c: lowest number c
    if phase in (E.PH_OPEN, E.PH_PLAY) and ndraw == NUM_CARDS - n * h and calls.any():
        limit[:] = np.where(callers, calls, -1) if (calls[callers] > 0).any() else calls
        limit[0] = -1
    order = np.flatnonzero(limit >= 0)
    order = order[np.argsort(-np.where(limit[order] == 0, 99, limit[order]), kind="stable")]   # nested groups
    spec = np.array([ndraw, stuck, need_gift, gen], np.int64)
    return t, pool, hid, known, limit, order.astype(np.int64), cls, givable, spec


@njit(cache=True)
def _log_choose(a, m):
    if a < m:
        return -np.inf
    return math.lgamma(a + 1.0) - math.lgamma(m + 1.0) - math.lgamma(a - m + 1.0)


@njit(cache=True)
def _pick(st, pool, used, ok_kind, m, take, q):
    """Choose m unused cards of the allowed kinds uniformly, mark them used, count them in take[q]. False if
    fewer than m are left."""
    idx = np.empty(pool.shape[0], np.int64)
    c = 0
    for i in range(pool.shape[0]):
        if not used[i] and ok_kind[pool[i]]:
            idx[c] = i
            c += 1
    if c < m:
        return False
    for j in range(m):
        r = j + rng.rand_below(st, 0, c - j)
        t = idx[j]
        idx[j] = idx[r]
        idx[r] = t
        used[idx[j]] = True
        take[q, pool[idx[j]]] += 1
    return True


@njit(cache=True)
def _card_at(st, counts, skip_kind):
    """A uniformly random card of a hand given by kind counts (one copy of skip_kind excluded): its kind, or
    -1 if there is none."""
    tot = 0
    for k in range(NUM_KINDS):
        tot += counts[k] - (1 if k == skip_kind else 0)
    if tot <= 0:
        return -1
    r = rng.rand_below(st, 0, tot)
    for k in range(NUM_KINDS):
        c = counts[k] - (1 if k == skip_kind else 0)
        if r < c:
            return k
        r -= c
    return -1


@njit(cache=True)
def _deal(st, pool, hid, limit, order, cls, givable, spec, take, draw):
    """One deal of the unseen cards: constrained seats first (nested call groups; the stuck asker), the rest
    uniformly; True if it agrees with every certain fact. take[q] gets seat q's hidden cards by kind."""
    n = hid.shape[0]
    u = pool.shape[0]
    used = np.zeros(u, np.bool_)
    take[:, :] = 0
    allowed = np.zeros(NUM_KINDS, np.bool_)
    for q in order:                          # R5: cards of the allowed kinds only; the called card checked below
        for k in range(NUM_KINDS):
            allowed[k] = k >= K_WILD or (limit[q] > 0 and k >= limit[q] - 1)
        if not _pick(st, pool, used, allowed, hid[q], take, q):
            return False
    a = spec[1]
    if a >= 0:                               # the asker's hand at the ask, from one stuck group
        c0 = 0
        c1 = 0
        for i in range(u):
            if not used[i]:
                c0 += cls[0, pool[i]]
                c1 += cls[1, pool[i]]
        w0 = math.exp(_log_choose(c0, hid[a]))
        w1 = math.exp(_log_choose(c1, hid[a]))
        if w0 + w1 == 0.0:
            return False
        g = 1 if rng.rand_below(st, 0, 1 << 30) < (1 << 30) * w1 / (w0 + w1) else 0
        if not _pick(st, pool, used, cls[g], hid[a], take, a):
            return False
    rest = np.empty(u, np.int64)
    m = 0
    for i in range(u):
        if not used[i]:
            rest[m] = pool[i]
            m += 1
    rng.shuffle(st, 0, rest, m)
    j = 0
    for q in range(n):
        need = hid[q]
        for k in range(NUM_KINDS):
            need -= take[q, k]
        if j + need > m:
            return False
        for _ in range(need):
            take[q, rest[j]] += 1
            j += 1
    for i in range(m - j):
        draw[i] = rest[j + i]
    for q in order:                          # R5: each constrained seat holds its call
        if limit[q] > 0 and take[q, limit[q] - 1] == 0:
            return False
    h = spec[2]
    if h >= 0:                               # R17: the helper had a givable card
        ok = False
        for k in range(NUM_KINDS):
            ok = ok or (givable[k] and take[h, k] > 0)
        if not ok:
            return False
    if spec[3] != _NO_GEN:                   # an onlooker: the gift, then the give-back, at random
        gk = np.zeros(NUM_KINDS, np.int64)
        for k in range(NUM_KINDS):
            gk[k] = take[h, k] if givable[k] else 0
        gift = _card_at(st, gk, -1)
        if gift < 0:
            return False
        take[h, gift] -= 1
        take[a, gift] += 1
        spec[4] = gift
        if spec[3] == _GEN_RECV:
            b = _card_at(st, take[a], gift)
            if b < 0:
                return False
            take[a, b] -= 1
            take[h, b] += 1
            spec[5] = b
            if gift == K_SWITCH:             # R19: the received Switch needs a number card in the asker's hand
                nums = 0
                for k in range(MAX_VALUE):
                    nums += take[a, k]
                if nums == 0:
                    return False
    return True


@njit(cache=True)
def _fill(states, seeds, pool, hid, known, limit, order, cls, givable, spec0):
    """Deal every record's unseen cards from its own stream (rejecting deals that contradict a certain fact).
    Returns the first record that found no consistent deal, or -1."""
    n = hid.shape[0]
    take = np.zeros((n, NUM_KINDS), np.int64)
    draw = np.empty(NUM_CARDS, np.int64)
    spec = np.zeros(6, np.int64)
    st = np.zeros(1, np.uint64)
    for g in range(states.shape[0]):
        s = states[g]
        st[0] = seeds[g]
        spec[:4] = spec0
        tries = 0
        while not _deal(st, pool, hid, limit, order, cls, givable, spec, take, draw):
            tries += 1
            if tries == _MAX_TRIES:
                return g
        for q in range(n):
            for k in range(NUM_KINDS):
                s.hand[q, k] = known[q, k] + take[q, k]
        s.dpos = 0
        s.dend = spec0[0]
        for i in range(spec0[0]):
            s.draw[i] = draw[i]
        rng.shuffle(st, 0, s.disc, s.ndisc)
        if spec0[3] != _NO_GEN:
            s.given = spec[4]
            if spec0[3] == _GEN_RECV:
                s.back = spec[5]
        s.rng[0] = seeds[g] ^ np.uint64(0xD1B54A32D192ED03)
    return -1


def draw_states(obs, num_samples: int, config, seed: int | None) -> np.ndarray:
    """`num_samples` Help! state records consistent with `obs`, an observation of a game with `config` (a
    quando_env.help.Config), the observer as seat 0 (see the module docstring). ValueError for an observation
    of a finished episode or one that is no observation of this player count and hand size. The game's `determinizer`:
    VectorGame.sample_states checks the arguments before and the records after."""
    template, pool, hid, known, limit, order, cls, givable, spec = _decode(obs, config)
    states = np.repeat(template, num_samples)
    seeds = np.random.SeedSequence(seed).generate_state(num_samples, np.uint64)
    bad = _fill(states, seeds, pool, hid, known, limit, order, cls, givable, spec)
    if bad >= 0:
        raise ValueError("no deal of the unseen cards agrees with the observation: is it a real observation?")
    return states

