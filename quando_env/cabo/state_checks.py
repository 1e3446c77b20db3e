"""Checks of Cabo state records from outside (`Game.load_states`, `check_states`): check_kernel finds the first
record the kernels cannot run on and names the problem (STATE_PROBLEMS[code], codes BAD_*)."""
import numpy as np
from numba import njit

from ..core import COUNT_MAX, Problems, SHARED_PROBLEM, shared_fields_ok
from .cards import MAX_PLAYERS, NUM_CARDS, NUM_SLOTS
from .engine import (C_N, LOC_DISC, LOC_DRAWN, LOC_STOCK, PH_DRAW, PH_JACK, PH_OVER, PH_PLACE, PH_QUEEN, PH_SNAP,
                     snap_asked_R15, window_seat_R13)


_P = Problems(PH_OVER)
BAD_SEATS = _P("active, dealer or discarder is not a seat of the game, or knocker or out_turn neither a seat nor -1")
BAD_FLAGS = _P("from_stock, final, in_turn or a seat's out is not 0 or 1, or snap_k not 0..n")
BAD_COUNTS = _P(f"steps or turns is not 0..{COUNT_MAX}")
BAD_CARDS = _P("a card's loc is no seat of the game, stock, discard pile or drawn, its pos not -1..7, its seen "
               "not 0 or 1, or a deck entry no card id")
BAD_PILES = _P("nstock or ndisc is not 0..52, or a pile does not list exactly the cards located in it, each once")
BAD_SLOTS = _P("a slot holds no card id or -1, or not the card whose loc and pos name it (each held card in "
               "exactly one slot; seats outside the game hold nothing), or nhand does not count them")
BAD_DRAWN = _P("drawn is not the one card located 'drawn' (or -1 when none is), or does not fit the phase")
BAD_DECIDER = _P("the seat to decide does not fit the phase (a turn not the active player's, a snap window's seat "
                 "not asked by R13 and R15, a turn of an empty hand)")
STATE_PROBLEMS = tuple(_P.texts)


@njit(cache=True)
def check_one(s, cfg):
    """-1 if the kernels can run on Cabo record s (its shared fields, each of the 52 cards once in a slot, a pile or
    drawn (R1), slots and positions agreeing, the phase's decider: R13, R15), else its first BAD_* code."""
    n = cfg[C_N]
    if not shared_fields_ok(s, n, PH_OVER):
        return SHARED_PROBLEM
    live = s.phase != PH_OVER
    if not (0 <= s.active < n and 0 <= s.dealer < n and 0 <= s.discarder < n and -1 <= s.knocker < n
            and -1 <= s.out_turn < n):
        return BAD_SEATS
    if not (0 <= s.from_stock <= 1 and 0 <= s.final <= 1 and 0 <= s.in_turn <= 1 and 0 <= s.snap_k <= n):
        return BAD_FLAGS
    if not (0 <= s.steps <= COUNT_MAX and 0 <= s.turns <= COUNT_MAX):
        return BAD_COUNTS
    for p in range(n):
        if s.out[p] > 1:
            return BAD_FLAGS
    where = np.zeros(LOC_DRAWN + 1, np.int64)
    for c in range(NUM_CARDS):
        q = s.loc[c]
        if not ((0 <= q < n or LOC_STOCK <= q <= LOC_DRAWN) and -1 <= s.pos[c] < NUM_SLOTS
                and 0 <= s.deck[c] < NUM_CARDS):
            return BAD_CARDS
        for p in range(n):
            if s.seen[p, c] > 1:
                return BAD_CARDS
        where[q] += 1
    if s.nstock != where[LOC_STOCK] or s.ndisc != where[LOC_DISC]:
        return BAD_PILES
    listed = np.zeros(NUM_CARDS, np.bool_)
    for j in range(s.nstock + s.ndisc):
        c = s.stock[j] if j < s.nstock else s.disc[j - s.nstock]
        if not 0 <= c < NUM_CARDS or listed[c] or s.loc[c] != (LOC_STOCK if j < s.nstock else LOC_DISC):
            return BAD_PILES
        listed[c] = True
    for p in range(MAX_PLAYERS):
        k = 0
        for i in range(NUM_SLOTS):
            c = s.slot[p, i]
            if c == -1:
                continue
            if p >= n or not 0 <= c < NUM_CARDS or s.loc[c] != p or s.pos[c] != i:
                return BAD_SLOTS
            k += 1
        if s.nhand[p] != k or (p < n and where[p] != k):
            return BAD_SLOTS
    holding = s.phase == PH_PLACE or s.phase == PH_QUEEN or s.phase == PH_JACK
    if s.drawn < -1 or where[LOC_DRAWN] != (1 if s.drawn >= 0 else 0) or (live and holding != (s.drawn >= 0)) or (
            s.drawn >= 0 and (s.drawn >= NUM_CARDS or s.loc[s.drawn] != LOC_DRAWN)):
        return BAD_DRAWN
    if live:
        if s.phase == PH_SNAP:
            if s.snap_k == n or s.cur != window_seat_R13(s, n, s.snap_k) or not snap_asked_R15(s, s.cur) \
                    or s.ndisc == 0:
                return BAD_DECIDER
        elif s.cur != s.active or (s.phase == PH_DRAW and s.nhand[s.active] == 0):
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
