"""Checks of Quando state records from outside (`Game.load_states`, `check_states`): check_kernel finds the first
record the kernels cannot run on and names the problem (STATE_PROBLEMS[code], codes BAD_*)."""
import numpy as np
from numba import njit

from ..core import COUNT_MAX, Problems, SHARED_PROBLEM, shared_fields_ok
from .cards import MAX_PLAYERS, NUM_CARDS
from .engine import C_N, C_OYA, LOC_DISCARD, LOC_DRAW, MAX_TURNS, PH_ACT, PH_DRAW, PH_FLIP, PH_KNOCK, PH_OVER


_P = Problems(PH_OVER)
BAD_SEATS = _P("active, dealer or pen_cur is not a seat of the game, or knocker neither a seat nor -1")
BAD_FLAGS = _P("triplet, drawctx or forced is not 0 or 1, or pen_left not 0..n-1")
BAD_COUNTS = _P(f"steps or acq_next is not 0..{COUNT_MAX}, or turns not 0..{MAX_TURNS}")
BAD_CARDS = _P("a card's loc is no seat of the game nor a pile, its face not 0 or 1, or seen has other bits than 1 "
               "and 2")
BAD_DECK = _P("deck, deck_up, shuffle or shuffle_up holds something other than a card id (shuffle: or -1) or a "
              "side 0 or 1, or nshuf is not 0..55")
BAD_PILES = _P("ndraw or ndisc is not 0..55, or a pile does not list exactly the cards located in it, each once")
BAD_HANDS = _P("nhand does not count each seat's cards (0 for seats outside the game)")
BAD_EMPTY = _P("a hand is empty where the rules never leave one empty (R8), or the draw pile is empty while the "
               "discard pile has cards (R11)")
BAD_DECIDER = _P("the seat to decide does not fit the phase (a draw from an empty pile, a knock decision in kendi, "
                 "a turn not the active player's, a triplet penalty whose pen_cur and pen_left do not follow R12)")
STATE_PROBLEMS = tuple(_P.texts)


@njit(cache=True)
def check_one(s, cfg):
    """-1 if the kernels can run on Quando record s (its shared fields, each of the 55 cards once in a hand or
    pile (R1), sides and seen bits in range, R8 and R11 kept, the phase's decider), else its first BAD_* code."""
    n = cfg[C_N]
    if not shared_fields_ok(s, n, PH_OVER):
        return SHARED_PROBLEM
    live = s.phase != PH_OVER
    if not (0 <= s.active < n and 0 <= s.dealer < n and 0 <= s.pen_cur < n and -1 <= s.knocker < n):
        return BAD_SEATS
    if not (0 <= s.triplet <= 1 and 0 <= s.drawctx <= 1 and 0 <= s.forced <= 1 and 0 <= s.pen_left < n):
        return BAD_FLAGS
    if not (0 <= s.steps <= COUNT_MAX and 0 <= s.acq_next <= COUNT_MAX):
        return BAD_COUNTS
    for p in range(n):
        if not 0 <= s.turns[p] <= MAX_TURNS:
            return BAD_COUNTS
    held = np.zeros(MAX_PLAYERS, np.int64)
    in_draw = 0
    in_disc = 0
    for c in range(NUM_CARDS):
        q = s.loc[c]
        if not ((0 <= q < n or q == LOC_DRAW or q == LOC_DISCARD) and 0 <= s.face[c] <= 1):
            return BAD_CARDS
        for p in range(n):
            if s.seen[p, c] > 3:
                return BAD_CARDS
        if q < n:
            held[q] += 1
        elif q == LOC_DRAW:
            in_draw += 1
        else:
            in_disc += 1
        if not (0 <= s.deck[c] < NUM_CARDS and 0 <= s.deck_up[c] <= 1 and -1 <= s.shuffle[c] < NUM_CARDS
                and 0 <= s.shuffle_up[c] <= 1):
            return BAD_DECK
    if not 0 <= s.nshuf <= NUM_CARDS:
        return BAD_DECK
    if s.ndraw != in_draw or s.ndisc != in_disc:
        return BAD_PILES
    listed = np.zeros(NUM_CARDS, np.bool_)
    for j in range(s.ndraw + s.ndisc):
        c = s.draw[j] if j < s.ndraw else s.disc[j - s.ndraw]
        if not 0 <= c < NUM_CARDS or listed[c] or s.loc[c] != (LOC_DRAW if j < s.ndraw else LOC_DISCARD):
            return BAD_PILES
        listed[c] = True
    for p in range(MAX_PLAYERS):
        if s.nhand[p] != held[p]:
            return BAD_HANDS
    if live:
        for p in range(n):
            if s.nhand[p] == 0 and (p != s.active or s.phase == PH_ACT or s.phase == PH_KNOCK):
                return BAD_EMPTY
        if s.ndraw == 0 and s.ndisc > 0:
            return BAD_EMPTY
    # R12: a triplet penalty goes clockwise over the others: the next is pen_cur, pen_left of them to go
    penalty = s.phase == PH_FLIP or (s.phase == PH_DRAW and s.drawctx == 1)
    if live and ((s.cur != s.active) != penalty or (s.phase == PH_DRAW and s.ndraw == 0)
                 or (s.phase == PH_KNOCK and cfg[C_OYA] == 0)
                 or s.pen_left != ((s.active - s.cur - 1) % n if penalty else 0)
                 or (penalty and s.pen_cur != (s.cur + 1) % n)):
        return BAD_DECIDER
    return -1


@njit(cache=True)
def check_kernel(states, cfg):
    """(the first record check_one refuses, its BAD_* code), or (-1, -1)."""
    for g in range(states.shape[0]):
        bad = check_one(states[g], cfg)
        if bad >= 0:
            return g, bad
    return -1, -1
