"""Cabo's baseline players, computed from their own observation only (numba, batched).

HeuristicAgent plays like a careful human: it remembers every card it has seen (the observation keeps
them), values each card it has not seen at the mean of the cards it has never seen, takes a low discard,
swaps a drawn card in for its worst card when that lowers its hand, snaps only cards it knows to match,
peeks at unknown cards with the Queen, gives its worst card for an opponent's better one with the Jack,
and knocks when its estimated total is low and below every opponent's estimate by a margin.
GreedyAgent is the simple baseline: it always draws from the stock, keeps a drawn card below 5 in its
worst known (or first unknown) slot, never snaps, and knocks once it knows all its cards and they sum to
at most 5.
"""
import numpy as np
from numba import njit

from quando_env.cabo.cards import (CARD_RANKS, CARD_VALUES, DISCARD_DRAWN, DRAW_STOCK, JACK_SWAP, KNOCK, NO_KNOCK,
                                   NUM_ACTIONS, NUM_CARDS, NUM_SLOTS, PASS, PLACE, QUEEN_LOOK, SNAP, TAKE_DISCARD)
from quando_env.cabo.engine import PH_DRAW, PH_JACK, PH_KNOCK, PH_PLACE, PH_QUEEN, PH_SNAP
from quando_env.cabo.observation import (O_DRAWN, O_OCC, O_PHASE, O_SEEN, O_SLOTS, O_TOP, obs_dim,
                                         offset_vector)

from ..base import KernelAgent, player_counter

_VAL = CARD_VALUES.astype(np.float64)
_RANK = CARD_RANKS.astype(np.int64)

# Parameters (index: meaning, default).
P_TAKE, P_GAIN, P_KNOCK_ABS, P_KNOCK_MARGIN, P_GREEDY = range(5)
DEFAULTS = {
    "take_below": 4.0,      # take the discard top when its value is at most this, or 3 below my worst card
    "gain": 1.0,            # swap a card in (or with the Jack) only when it lowers my estimate by more than this
    "knock_total": 4.0,     # knock when my estimated total is at most this ...
    "knock_margin": 4.0,    # ... or at least this below every opponent's estimate, all my cards known
}


players_from_obs_dim = player_counter(obs_dim, range(2, 7))


@njit(cache=True)
def _one_hot(o, start, size):
    """The index set in o[start:start + size], or -1."""
    for i in range(size):
        if o[start + i] > 0.5:
            return i
    return -1


@njit(cache=True)
def _unknown_mean(o, off):
    """Mean value of the cards the observer has never seen (what an unknown card is worth on average)."""
    total = 0.0
    count = 0
    for c in range(NUM_CARDS):
        if o[off[O_SEEN] + c] < 0.5:
            total += _VAL[c]
            count += 1
    return total / count if count else 6.5


@njit(cache=True)
def _estimates(o, off, r, unknown, est, known):
    """est[i]: the value of relative seat r's slot i (known, else `unknown`; -1 if empty); known[i]: its
    card id or -1. Returns (estimated total, unknown cards)."""
    total = 0.0
    n_unknown = 0
    for i in range(NUM_SLOTS):
        est[i] = -1.0
        known[i] = -1
        if o[off[O_OCC] + r * NUM_SLOTS + i] < 0.5:
            continue
        c = _one_hot(o, off[O_SLOTS] + (r * NUM_SLOTS + i) * NUM_CARDS, NUM_CARDS)
        known[i] = c
        est[i] = _VAL[c] if c >= 0 else unknown
        if c < 0:
            n_unknown += 1
        total += est[i]
    return total, n_unknown


@njit(cache=True)
def _worst(est):
    """My slot with the highest estimated value (-1 if I hold nothing)."""
    best = -1
    for i in range(NUM_SLOTS):
        if est[i] >= 0 and (best < 0 or est[i] > est[best]):
            best = i
    return best


@njit(cache=True)
def _jack_values(o, m, off, n, unknown, est, vals):
    """vals[b] for each legal Jack exchange b: the estimate of the card I would get minus that of the card
    I would give (lower is better for me)."""
    theirs = np.empty(NUM_SLOTS)
    their_known = np.empty(NUM_SLOTS, np.int64)
    for r in range(1, n):
        _estimates(o, off, r, unknown, theirs, their_known)
        for p in range(NUM_SLOTS):
            for q in range(NUM_SLOTS):
                b = JACK_SWAP + 64 * (r - 1) + 8 * p + q
                if m[b]:
                    vals[b] = theirs[q] - est[p]


@njit(cache=True)
def decide(o, m, off, n, prm):
    """The heuristic's action for one observation o with mask m."""
    ph = _one_hot(o, off[O_PHASE], 7)
    unknown = _unknown_mean(o, off)
    est = np.empty(NUM_SLOTS)
    known = np.empty(NUM_SLOTS, np.int64)
    mine, my_unknown = _estimates(o, off, 0, unknown, est, known)
    worst = _worst(est)
    top = _one_hot(o, off[O_TOP], NUM_CARDS)
    if ph == PH_DRAW:
        if m[TAKE_DISCARD] and top >= 0 and worst >= 0 and (
                _VAL[top] <= prm[P_TAKE] or _VAL[top] < est[worst] - 3.0):
            return TAKE_DISCARD
        return DRAW_STOCK if m[DRAW_STOCK] else TAKE_DISCARD
    if ph == PH_PLACE:
        c = _one_hot(o, off[O_DRAWN], NUM_CARDS)
        v = _VAL[c] if c >= 0 else unknown
        if worst >= 0 and m[PLACE + worst] and (v < est[worst] - prm[P_GAIN] or not m[DISCARD_DRAWN]):
            return PLACE + worst
        if m[DISCARD_DRAWN]:
            return DISCARD_DRAWN
    elif ph == PH_QUEEN:
        for i in range(NUM_SLOTS):
            if est[i] >= 0 and known[i] < 0 and m[QUEEN_LOOK + i]:
                return QUEEN_LOOK + i
    elif ph == PH_JACK:        # the exchange that lowers my estimate most (the first such, in action order)
        jack = np.full(NUM_ACTIONS, np.inf)
        _jack_values(o, m, off, n, unknown, est, jack)
        best = np.argmin(jack)
        if jack[best] < np.inf:
            return best
    elif ph == PH_SNAP:
        if top >= 0:
            for i in range(NUM_SLOTS):
                if known[i] >= 0 and _RANK[known[i]] == _RANK[top] and m[SNAP + i]:
                    return SNAP + i
        if m[PASS]:
            return PASS
    elif ph == PH_KNOCK:
        lowest = 1e9
        theirs = np.empty(NUM_SLOTS)
        their_known = np.empty(NUM_SLOTS, np.int64)
        for r in range(1, n):
            total, _ = _estimates(o, off, r, unknown, theirs, their_known)
            lowest = min(lowest, total)
        if m[KNOCK] and (mine <= prm[P_KNOCK_ABS] or (my_unknown == 0 and mine <= lowest - prm[P_KNOCK_MARGIN])):
            return KNOCK
        return NO_KNOCK
    for a in range(NUM_ACTIONS):   # whatever else: the first legal action
        if m[a]:
            return a
    return -1


@njit(cache=True)
def greedy_decide(o, m, off, n, prm):
    """GreedyAgent's action (see the module docstring)."""
    ph = _one_hot(o, off[O_PHASE], 7)
    est = np.empty(NUM_SLOTS)
    known = np.empty(NUM_SLOTS, np.int64)
    mine, my_unknown = _estimates(o, off, 0, 13.0, est, known)   # unknown counts as the worst, so it goes
    if ph == PH_DRAW and m[DRAW_STOCK]:
        return DRAW_STOCK
    if ph == PH_PLACE:
        c = _one_hot(o, off[O_DRAWN], NUM_CARDS)
        worst = _worst(est)
        if (c >= 0 and _VAL[c] < 5 or not m[DISCARD_DRAWN]) and worst >= 0 and m[PLACE + worst]:
            return PLACE + worst
        if m[DISCARD_DRAWN]:
            return DISCARD_DRAWN
    if ph == PH_SNAP and m[PASS]:
        return PASS
    if ph == PH_KNOCK:
        return KNOCK if m[KNOCK] and my_unknown == 0 and mine <= 5 else NO_KNOCK
    for a in range(NUM_ACTIONS):
        if m[a]:
            return a
    return -1


@njit(cache=True)
def values(o, m, off, n, a, vals):
    """vals[b]: how the heuristic rates legal action b after choosing a (lower is better), in points of my
    estimated hand total where it has an estimate: a swap or place into slot i, the drawn card's value minus
    slot i's estimate (discarding the drawn card 0); a Jack exchange, their card's estimate minus mine; a
    snap, minus the card's value when it is known to match, the penalty card's mean when it is known not to,
    the expected change for an unknown card; a pass 0; the Queen, 0 on an unknown card and 1 on a known one.
    Draws and knocks: 0 for a, 1 for the other. Illegal actions stay as they are (inf)."""
    ph = _one_hot(o, off[O_PHASE], 7)
    unknown = _unknown_mean(o, off)
    est = np.empty(NUM_SLOTS)
    known = np.empty(NUM_SLOTS, np.int64)
    _estimates(o, off, 0, unknown, est, known)
    top = _one_hot(o, off[O_TOP], NUM_CARDS)
    if ph == PH_PLACE:
        c = _one_hot(o, off[O_DRAWN], NUM_CARDS)
        v = _VAL[c] if c >= 0 else unknown
        for i in range(NUM_SLOTS):
            if m[PLACE + i]:
                vals[PLACE + i] = v - est[i]
        if m[DISCARD_DRAWN]:
            vals[DISCARD_DRAWN] = 0.0
    elif ph == PH_QUEEN:
        for i in range(NUM_SLOTS):
            if m[QUEEN_LOOK + i]:
                vals[QUEEN_LOOK + i] = 1.0 if known[i] >= 0 else 0.0
    elif ph == PH_JACK:
        _jack_values(o, m, off, n, unknown, est, vals)
    elif ph == PH_SNAP:
        hits = 0
        count = 0
        for c in range(NUM_CARDS):
            if o[off[O_SEEN] + c] < 0.5:
                count += 1
                if top >= 0 and _RANK[c] == _RANK[top]:
                    hits += 1
        p_hit = hits / count if count else 0.0
        for i in range(NUM_SLOTS):
            if m[SNAP + i]:
                if known[i] < 0:
                    vals[SNAP + i] = p_hit * -unknown + (1.0 - p_hit) * unknown
                elif top >= 0 and _RANK[known[i]] == _RANK[top]:
                    vals[SNAP + i] = -_VAL[known[i]] - 0.5
                else:
                    vals[SNAP + i] = unknown
        if m[PASS]:
            vals[PASS] = 0.0
    else:
        for b in range(NUM_ACTIONS):
            if m[b]:
                vals[b] = 1.0
    if vals[a] > 0.0 or ph == PH_DRAW or ph == PH_KNOCK:
        vals[a] = 0.0      # the choice itself: never rated worse than doing nothing


@njit(cache=True)
def values_kernel(obs, masks, off, n, prm, out, vals):
    for i in range(obs.shape[0]):
        out[i] = decide(obs[i], masks[i], off, n, prm)
        values(obs[i], masks[i], off, n, out[i], vals[i])


@njit(cache=True)
def heuristic_kernel(obs, masks, off, n, prm, greedy, out):
    for i in range(obs.shape[0]):
        out[i] = greedy_decide(obs[i], masks[i], off, n, prm) if greedy else decide(obs[i], masks[i], off, n, prm)


class HeuristicAgent(KernelAgent):
    """The careful human-like Cabo player above; `params` override entries of DEFAULTS. Deterministic."""

    name = "heuristic"
    game = "cabo"
    num_actions = NUM_ACTIONS
    defaults = DEFAULTS
    kernel = staticmethod(heuristic_kernel)
    values_kernel = staticmethod(values_kernel)   # action_values: what the rollout search ranks by (`values`)
    players_of = staticmethod(players_from_obs_dim)
    starts_of = staticmethod(offset_vector)


class GreedyAgent(HeuristicAgent):
    """The simple Cabo baseline above (stock draws, keeps cards below 5, never snaps)."""

    name = "greedy"
    greedy = True
