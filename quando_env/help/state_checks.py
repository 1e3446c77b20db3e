"""Checks of Help! state records from outside (`Game.load_states`, `check_states`): check_kernel finds the first
record the kernels cannot run on and names the problem (STATE_PROBLEMS[code], codes BAD_*)."""
import numpy as np
from numba import njit

from ..core import COUNT_MAX, Problems, SHARED_PROBLEM, shared_fields_ok
from .cards import KIND_COUNTS, K_NO, K_WILD, NUM_CARDS, NUM_KINDS
from .engine import (C_N, C_ROWMAX, END_NONE, END_NO_HELPER, NO_NONE, NO_SPENT, PH_BACK, PH_GIVE, PH_OPEN, PH_OVER,
                     PH_RECV, givable)


_P = Problems(PH_OVER)
BAD_SEATS = _P("active is not a seat of the game, or starter, asker or helper neither a seat nor -1")
BAD_FLAGS = _P("forced, forced_start or a caller flag is not 0 or 1 (or nobody calls), dir not +1 or -1, "
               "end_reason not 0..2, opening not 0..11, a No! not 0..2, a call not 0..11, or given or back not a "
               "kind 0..14 or -1")
BAD_COUNTS = _P(f"steps or flips is not 0..{COUNT_MAX}")
BAD_CARDS = _P("the hands, piles, row and No!s in front do not hold exactly the deck's cards (R1)")
BAD_PILES = _P("dpos, dend, ndisc or nshuf is out of range, or a pile, the deck or shuffle holds no kind 0..14 "
               "(shuffle: or -1)")
BAD_ROW = _P("nrow is not 0..row_max-1, or the row holds something other than numbers and Wilds of values 1..11 "
             "in ascending order")
BAD_DECIDER = _P("the seat to decide does not fit the phase (a turn not the active player's, a help not between "
                 "its asker and helper, a card to play or give back that the seat does not hold, a gift that does "
                 "not fit the row, an opening onto a row, a turn or help of a seat with a No! in front)")
STATE_PROBLEMS = tuple(_P.texts)


@njit(cache=True)
def check_one(s, cfg):
    """-1 if the kernels can run on Help! record s (its shared fields, the 105 cards of R1 across hands, piles, row
    and No!s, an ascending row (R7), the phase's decider: R8, R16-R19), else its first BAD_* code."""
    n = cfg[C_N]
    if not shared_fields_ok(s, n, PH_OVER):
        return SHARED_PROBLEM
    live = s.phase != PH_OVER
    if not (0 <= s.active < n and -1 <= s.starter < n and -1 <= s.asker < n and -1 <= s.helper < n):
        return BAD_SEATS
    callers = 0
    for p in range(n):
        if not (0 <= s.caller[p] <= 1 and 0 <= s.no[p] <= NO_SPENT and 0 <= s.calls[p] <= 11):
            return BAD_FLAGS
        callers += s.caller[p]
    if not (0 <= s.forced <= 1 and 0 <= s.forced_start <= 1 and (s.dir == 1 or s.dir == -1) and callers > 0
            and END_NONE <= s.end_reason <= END_NO_HELPER and 0 <= s.opening <= 11
            and -1 <= s.given < NUM_KINDS and -1 <= s.back < NUM_KINDS):
        return BAD_FLAGS
    if not (0 <= s.steps <= COUNT_MAX and 0 <= s.flips <= COUNT_MAX):
        return BAD_COUNTS
    if not (0 <= s.dpos <= s.dend <= NUM_CARDS and 0 <= s.ndisc <= NUM_CARDS and 0 <= s.nshuf <= NUM_CARDS):
        return BAD_PILES
    cnt = np.zeros(NUM_KINDS, np.int64)
    for j in range(NUM_CARDS):
        if not (0 <= s.deck[j] < NUM_KINDS and -1 <= s.shuffle[j] < NUM_KINDS):
            return BAD_PILES
        if s.dpos <= j < s.dend:
            if not 0 <= s.draw[j] < NUM_KINDS:
                return BAD_PILES
            cnt[s.draw[j]] += 1
        if j < s.ndisc:
            if not 0 <= s.disc[j] < NUM_KINDS:
                return BAD_PILES
            cnt[s.disc[j]] += 1
    if not 0 <= s.nrow < cfg[C_ROWMAX]:
        return BAD_ROW
    for j in range(s.nrow):
        k = s.row_kind[j]
        v = s.row_val[j]
        if not ((0 <= k <= 10 and v == k + 1) or (k == K_WILD and 1 <= v <= 11)) or (j > 0 and v <= s.row_val[j - 1]):
            return BAD_ROW
        cnt[k] += 1
    for p in range(n):
        for k in range(NUM_KINDS):
            if s.hand[p, k] < 0:
                return BAD_CARDS
            cnt[k] += s.hand[p, k]
        if s.no[p] != NO_NONE:
            cnt[K_NO] += 1
    for k in range(NUM_KINDS):
        if cnt[k] != KIND_COUNTS[k]:
            return BAD_CARDS
    if live:
        p = s.cur
        ph = s.phase
        helping = ph == PH_GIVE or ph == PH_BACK or ph == PH_RECV
        if (ph == PH_GIVE) != (p != s.active) or (helping and not (
                s.asker == s.active and 0 <= s.helper and s.helper != s.asker and (ph != PH_GIVE or p == s.helper))):
            return BAD_DECIDER
        if ph == PH_OPEN and (s.opening == 0 or s.hand[p, s.opening - 1] == 0 or s.nrow > 0):     # R6
            return BAD_DECIDER
        if (ph == PH_BACK or ph == PH_RECV) and (s.given < 0 or s.hand[p, s.given] == 0 or not givable(s, s.given)):
            return BAD_DECIDER     # R17: the gift fits the row, which stays as it is until the asker plays it
        if s.no[s.active] != NO_NONE or (ph == PH_GIVE and s.no[p] != NO_NONE):
            return BAD_DECIDER     # R8, R16: a seat with a No! in front takes no turn and is not asked
    return -1


@njit(cache=True)
def check_kernel(states, cfg):
    """(the first record check_one refuses, its BAD_* code), or (-1, -1)."""
    for g in range(states.shape[0]):
        bad = check_one(states[g], cfg)
        if bad >= 0:
            return g, bad
    return -1, -1
