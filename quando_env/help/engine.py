"""Help!'s rules engine: numba kernels over a numpy array of per-game records.

Every game of a batch is one record of STATE_DTYPE, stepped by the spec's state machine; nothing allocates
per step. Rule ids (R*, D*, K*) refer to RULES.md beside this file (the contract is help-spec.md).

Cards of one kind are interchangeable (R2), so hands are counts by kind and the piles, the row and the
deck hold kind indices. A step is split into the game's events, one function each: `play_number` (R10),
`play_wild` (R11), `switch` (R12), `zap` (R13), `no` (R14), `ask` (R16), `give` (R17), `give_back` (R18),
the received card's play (R19), `refill` / `reshuffle` (R15, D11), `pass_turn` (R8) and `end_round`
(R20, R21); `apply_action` hands a decision to its event. Every decision is asked, even with one legal action
(D10).

This module is the rules, one game at a time; beside it, batch.py runs them over a batch, state.py writes the
perfect-information state vector, state_checks.py checks records from outside, info.py reads the step infos.
"""
import numpy as np
from numba import njit

from .. import rng
from ..core import (F_ERROR, F_ROUND_OVER, episode_ends, step_ends, step_starts)
from .cards import (ASK, FULL_DECK, GIVE, GIVE_BACK, K_NO, K_SWITCH, K_WILD, K_ZAP, MAX_PLAYERS, NO,
                    NUM_CARDS, NUM_KINDS, PLAY, ROW_CAP, SWITCH, WILD, ZAP)

# Decision phases: what is decided, and by whom (spec "Actions").
PH_OPEN = 0       # R6: the starter plays its called card
PH_PLAY = 1       # R9: a normal turn: play a card, or ask when no play is legal
PH_GIVE = 2       # R17: the helper gives a givable card
PH_BACK = 3       # R18: the asker gives a card back
PH_RECV = 4       # R19: the asker plays the received card
PH_OVER = 5       # the episode ended; no decision
NUM_PHASES = 6

# No! in front of a seat (R8, R14).
NO_NONE, NO_FRESH, NO_SPENT = 0, 1, 2

# Why the round ended (R20).
END_NONE, END_NO_GIFT, END_NO_HELPER = 0, 1, 2     # END_NO_GIFT: R20a (no givable card or R19 failure)

# Indices into the int64 config vector the kernels take.
C_N, C_HAND, C_ROWMAX, C_TARGET, C_OPEN_LOWEST, C_SHUFFLE, C_ROUND_EPISODE, C_MAX_STEPS, C_WIN_REWARD, \
    C_AUTORESET, CFG_SIZE = range(11)   # CFG_SIZE: the options' count (the observation's starts follow)

STATE_DTYPE = np.dtype([
    ("hand", np.int8, (MAX_PLAYERS, NUM_KINDS)),   # cards per seat and kind
    ("draw", np.int8, (NUM_CARDS,)),               # draw pile kinds: draw[dpos] is the top, draw[dend-1] the bottom
    ("dpos", np.int16),
    ("dend", np.int16),
    ("disc", np.int8, (NUM_CARDS,)),               # discard pile: disc[0] discarded first (D13)
    ("ndisc", np.int16),
    ("row_kind", np.int8, (ROW_CAP,)),             # the row, left to right (R7)
    ("row_val", np.int8, (ROW_CAP,)),              # each card's value (a Wild's fixed when placed, D4)
    ("nrow", np.int8),
    ("no", np.int8, (MAX_PLAYERS,)),               # NO_NONE / NO_FRESH / NO_SPENT (R8)
    ("deck", np.int8, (NUM_CARDS,)),               # this round's deck as dealt, top first (records)
    ("shuffle", np.int8, (NUM_CARDS,)),            # last reshuffle, top first (or one to force, see forced)
    ("nshuf", np.int16),                           # its length
    ("forced", np.int8),                           # 1: the next reshuffle uses `shuffle` (replaying a record)
    ("shuffles", np.int32),                        # reshuffles (option "shuffle") so far in this episode
    ("flips", np.int32),                           # turn-overs (option "flip") so far in this episode
    ("caller", np.int8, (MAX_PLAYERS,)),           # R5: the seats that call this round
    ("calls", np.int8, (MAX_PLAYERS,)),            # R5, D14: public calls (0: none)
    ("starter", np.int8),
    ("forced_start", np.int8),                     # 1: this round's starter was given (option `starter`)
    ("opening", np.int8),                          # R6: the card the starter must open with (0: none)
    ("dir", np.int8),                              # R4: +1 or -1
    ("active", np.int8),                           # whose turn it is (the asker during a help)
    ("cur", np.int8),                              # who decides now (-1 once the episode is over)
    ("phase", np.int8),
    ("asker", np.int8),                            # the round's latest ask: who asked (-1: nobody yet) ...
    ("helper", np.int8),                           # ... whom (-1: nobody could help) ...
    ("given", np.int8),                            # ... the kind given (-1 until given) ...
    ("back", np.int8),                             # ... and the kind given back (-1 until given back)
    ("end_reason", np.int8),                       # END_* of the last finished round
    ("total", np.int32, (MAX_PLAYERS,)),           # game totals (R21)
    ("points", np.int32, (MAX_PLAYERS,)),          # points of the last finished round (R20)
    ("round", np.int32),                           # rounds finished this episode
    ("steps", np.int32),                           # decisions taken this round (R22)
    ("rng", np.uint64, (1,)),                      # the game's random stream (quando_env.rng)
])

_FULL_DECK = FULL_DECK


# ---------------------------------------------------------------- rule helpers (pure, on the row)
@njit(cache=True)
def hand_size(s, p):
    t = 0
    for k in range(NUM_KINDS):
        t += s.hand[p, k]
    return t


@njit(cache=True)
def number_fits(s, v):
    """R10: the number v goes at the end of the row iff the row is empty or v exceeds the last value."""
    return s.nrow == 0 or v > s.row_val[s.nrow - 1]


@njit(cache=True)
def wild_value(s, slot):
    """R11: the value a Wild takes at `slot`: 1 at the start, else the value on its left plus one."""
    return 1 if slot == 0 else s.row_val[slot - 1] + 1


@njit(cache=True)
def wild_fits(s, slot):
    """R11: a Wild at `slot` (0..row length) takes a value <= 11 below the card that follows."""
    w = wild_value(s, slot)
    return w <= 11 and (slot == s.nrow or w < s.row_val[slot])


@njit(cache=True)
def switch_fits(s, slot, v):
    """R12, D4: the number v in place of the card at `slot` keeps the row strictly ascending."""
    if slot > 0 and s.row_val[slot - 1] >= v:
        return False
    return not (slot < s.nrow - 1 and s.row_val[slot + 1] <= v)


@njit(cache=True)
def givable(s, k):
    """R17, D8: a card of kind k is playable on the row, judged on the row alone."""
    if k <= 10:
        return number_fits(s, k + 1)
    if k == K_WILD:
        for slot in range(s.nrow + 1):
            if wild_fits(s, slot):
                return True
        return False
    if k == K_SWITCH or k == K_ZAP:
        return s.nrow > 0
    return True


@njit(cache=True)
def card_plays(s, p, k, m):
    """R10-R14: mark in m the legal plays of one card of kind k held by p; return how many. A Switch's
    replacement is any number card p holds (D5)."""
    c = 0
    if k <= 10:
        if number_fits(s, k + 1):
            m[PLAY + k] = 1
            c += 1
    elif k == K_WILD:
        for slot in range(s.nrow + 1):
            if wild_fits(s, slot):
                m[WILD + slot] = 1
                c += 1
    elif k == K_SWITCH:
        for slot in range(s.nrow):
            for v in range(1, 12):
                if s.hand[p, v - 1] > 0 and switch_fits(s, slot, v):
                    m[SWITCH + 11 * slot + v - 1] = 1
                    c += 1
    elif k == K_ZAP:
        if s.nrow > 0:
            m[ZAP] = 1
            c += 1
    else:
        m[NO] = 1
        c += 1
    return c


@njit(cache=True)
def has_received_play(s, p, k):
    """R19: p has a legal play of the received kind k (only a Switch without number cards has none)."""
    if k != K_SWITCH:
        return True
    for slot in range(s.nrow):
        for v in range(1, 12):
            if s.hand[p, v - 1] > 0 and switch_fits(s, slot, v):
                return True
    return False


@njit(cache=True)
def lowest_number(s, p):
    """R5, D2: p's lowest number card (0 if p holds none; a Wild is no number)."""
    for k in range(11):
        if s.hand[p, k] > 0:
            return k + 1
    return 0


@njit(cache=True)
def find_helper(s, p, n):
    """R16, D6, D7: the first seat going backwards from p without a No! in front, or -1."""
    for i in range(1, n):
        q = (p - i * s.dir) % n
        if s.no[q] == NO_NONE:
            return q
    return -1


# ---------------------------------------------------------------- cards moving
@njit(cache=True)
def _discard(s, k):
    s.disc[s.ndisc] = k
    s.ndisc += 1


@njit(cache=True)
def _take(s, p, k):
    s.hand[p, k] -= 1


@njit(cache=True)
def _clear_full_row(s, row_max):
    """R7: a row reaching row_max cards goes to the discard pile, leftmost first (D13)."""
    if s.nrow == row_max:
        for j in range(s.nrow):
            _discard(s, s.row_kind[j])
        s.nrow = 0


@njit(cache=True)
def play_number(s, p, v, row_max):
    """R10."""
    _take(s, p, v - 1)
    s.row_kind[s.nrow] = v - 1
    s.row_val[s.nrow] = v
    s.nrow += 1
    _clear_full_row(s, row_max)


@njit(cache=True)
def play_wild(s, p, slot, row_max):
    """R11: the Wild is inserted at `slot` with its value fixed now (D4)."""
    _take(s, p, K_WILD)
    w = wild_value(s, slot)
    for j in range(s.nrow, slot, -1):
        s.row_kind[j] = s.row_kind[j - 1]
        s.row_val[j] = s.row_val[j - 1]
    s.row_kind[slot] = K_WILD
    s.row_val[slot] = w
    s.nrow += 1
    _clear_full_row(s, row_max)


@njit(cache=True)
def switch(s, p, slot, v):
    """R12, D5, D13: the Switch is discarded, the number v leaves the hand, the card at `slot` joins it (a
    taken Wild is a plain Wild again)."""
    _take(s, p, K_SWITCH)
    _discard(s, K_SWITCH)
    _take(s, p, v - 1)
    s.hand[p, s.row_kind[slot]] += 1
    s.row_kind[slot] = v - 1
    s.row_val[slot] = v


@njit(cache=True)
def zap(s, p):
    """R13, D13: the Zap, then the last row card, go to the discard pile."""
    _take(s, p, K_ZAP)
    _discard(s, K_ZAP)
    s.nrow -= 1
    _discard(s, s.row_kind[s.nrow])


@njit(cache=True)
def no(s, p):
    """R14: the No! goes in front of p, not yet spent."""
    _take(s, p, K_NO)
    s.no[p] = NO_FRESH


@njit(cache=True)
def play(s, p, a, row_max):
    """Carry out the legal play a of seat p (R10-R14)."""
    if a < WILD:
        play_number(s, p, a - PLAY + 1, row_max)
    elif a < SWITCH:
        play_wild(s, p, a - WILD, row_max)
    elif a < ZAP:
        slot = (a - SWITCH) // 11
        switch(s, p, slot, (a - SWITCH) % 11 + 1)
    elif a == ZAP:
        zap(s, p)
    else:
        no(s, p)


@njit(cache=True)
def reshuffle(s, shuffled):
    """R15, D11: the discard pile (only) becomes the draw pile: shuffled from the game's stream (or as
    forced by a replayed record), or turned over so the first-discarded card is drawn first. Returns True
    if a forced arrangement does not hold exactly the discard pile's cards."""
    m = s.ndisc
    if shuffled:
        if s.forced == 1:
            s.forced = 0
            if m < NUM_CARDS and s.shuffle[m] != -1:
                return True          # more cards than the discard pile holds
            cnt = np.zeros(NUM_KINDS, np.int64)
            for j in range(m):
                cnt[s.disc[j]] += 1
            for j in range(m):
                k = s.shuffle[j]
                if k < 0 or k >= NUM_KINDS or cnt[k] == 0:
                    return True
                cnt[k] -= 1
        else:
            for j in range(m):
                s.shuffle[j] = s.disc[j]
            rng.shuffle(s.rng, 0, s.shuffle, m)
        for j in range(m):
            s.draw[j] = s.shuffle[j]
        s.nshuf = m
        s.shuffles += 1
    else:
        for j in range(m):
            s.draw[j] = s.disc[j]
        s.flips += 1
    s.dpos = 0
    s.dend = m
    s.ndisc = 0
    return False


@njit(cache=True)
def refill(s, p, cfg):
    """R15: p draws until holding hand_size cards, reshuffling lazily when a card is needed (D11).
    Returns True on a forced reshuffle that does not fit."""
    while hand_size(s, p) < cfg[C_HAND]:
        if s.dpos == s.dend:
            if s.ndisc == 0:          # D11: cannot happen (at most 30 cards are outside the piles)
                return False
            if reshuffle(s, cfg[C_SHUFFLE] == 1):
                return True
        s.hand[p, s.draw[s.dpos]] += 1
        s.dpos += 1
    return False


@njit(cache=True)
def pass_turn(s, p, n):
    """R8: the turn goes to the next seat; a fresh No! skips its owner (now spent), a spent one is
    discarded and its owner takes a normal turn (D6, D13)."""
    q = (p + s.dir) % n
    while s.no[q] == NO_FRESH:
        s.no[q] = NO_SPENT
        q = (q + s.dir) % n
    if s.no[q] == NO_SPENT:
        _discard(s, K_NO)
        s.no[q] = NO_NONE
    s.active = q
    s.cur = q
    s.phase = PH_PLAY


@njit(cache=True)
def end_turn(s, p, cfg):
    """R15 then R8. Returns True on a forced reshuffle that does not fit."""
    err = refill(s, p, cfg)
    pass_turn(s, p, cfg[C_N])
    return err


# ---------------------------------------------------------------- rounds and games
@njit(cache=True)
def choose_starter(s, n, open_lowest):
    """R5, R6, D2, D14: the callers call their lowest number card; the lowest call starts (ties: lowest
    seat). If no caller calls, every seat holding a number card calls; if none does, the lowest caller
    starts, calling nothing. A starter who called opens with that card (option open_lowest)."""
    best = -1
    best_v = 99
    for q in range(n):
        s.calls[q] = 0
        if s.caller[q] == 1:
            v = lowest_number(s, q)
            s.calls[q] = v
            if v > 0 and v < best_v:
                best, best_v = q, v
    if best < 0:
        for q in range(n):
            v = lowest_number(s, q)
            s.calls[q] = v
            if v > 0 and v < best_v:
                best, best_v = q, v
    if best < 0:
        for q in range(n - 1, -1, -1):
            if s.caller[q] == 1:
                best = q
        s.opening = 0
    else:
        s.opening = best_v if open_lowest else 0
    s.starter = best
    s.active = best
    s.cur = best
    s.phase = PH_OPEN if s.opening > 0 else PH_PLAY


@njit(cache=True)
def deal(s, cfg, deck, use_deck, starter):
    """R3, D1: seat i receives deck[h*i .. h*i+h-1], the rest is the draw pile in order; then R5, R6 (or the
    given starter, who takes a normal turn). The direction and the callers are set by the caller."""
    n = cfg[C_N]
    h = cfg[C_HAND]
    if use_deck:
        for i in range(NUM_CARDS):
            s.deck[i] = deck[i]
    else:
        for i in range(NUM_CARDS):
            s.deck[i] = _FULL_DECK[i]
        rng.shuffle(s.rng, 0, s.deck, NUM_CARDS)
    s.hand[:, :] = 0
    for q in range(n):
        for j in range(h):
            s.hand[q, s.deck[h * q + j]] += 1
    for i in range(NUM_CARDS):
        s.draw[i] = s.deck[i]
    s.dpos = h * n
    s.dend = NUM_CARDS
    s.ndisc = 0
    s.nrow = 0
    s.no[:] = NO_NONE
    s.asker = -1
    s.helper = -1
    s.given = -1
    s.back = -1
    s.steps = 0
    if starter >= 0:
        s.forced_start = 1
        s.calls[:] = 0
        s.opening = 0
        s.starter = starter
        s.active = starter
        s.cur = starter
        s.phase = PH_PLAY
    else:
        s.forced_start = 0
        choose_starter(s, n, cfg[C_OPEN_LOWEST] == 1)


@njit(cache=True)
def start_game(s, cfg, deck, use_deck, starter):
    """A new episode: round 0 with d = +1 (R4) and every seat calling (R5)."""
    s.total[:] = 0
    s.points[:] = 0
    s.round = 0
    s.shuffles = 0
    s.flips = 0
    s.forced = 0
    s.end_reason = END_NONE
    s.dir = 1
    s.caller[:] = 0
    for q in range(cfg[C_N]):
        s.caller[q] = 1
    deal(s, cfg, deck, use_deck, starter)


@njit(cache=True)
def end_round(s, cfg, rew, flags, reason, p, h):
    """R20: a) every seat other than p and h scores 1; b) p alone scores 1. R21: totals, the end of the
    game at the target, else the next round (R4 flips d, R5 picks the callers)."""
    n = cfg[C_N]
    for q in range(n):
        if reason == END_NO_GIFT:
            s.points[q] = 0 if (q == p or q == h) else 1
        else:
            s.points[q] = 1 if q == p else 0
        s.total[q] += s.points[q]
        if cfg[C_WIN_REWARD] == 0:
            rew[q] += s.points[q]
    s.end_reason = reason
    s.round += 1
    flags[F_ROUND_OVER] = 1
    over = cfg[C_ROUND_EPISODE] == 1
    best = 0
    for q in range(n):
        best = max(best, s.total[q])
    if best >= cfg[C_TARGET]:
        over = True
    if over:
        episode_ends(s, flags, rew, n, cfg[C_WIN_REWARD] == 1, best, PH_OVER)
    else:
        s.dir = -s.dir
        for q in range(n):
            s.caller[q] = 1 if s.points[q] == 0 else 0
        deal(s, cfg, s.deck, False, -1)


@njit(cache=True)
def ask(s, p, cfg, rew, flags):
    """R16: p asks the first seat backwards without a No!; R20b if there is none, R20a if it holds no
    givable card, else the helper decides what to give."""
    s.asker = p
    s.given = -1
    s.back = -1
    h = find_helper(s, p, cfg[C_N])
    s.helper = h
    if h < 0:
        end_round(s, cfg, rew, flags, END_NO_HELPER, p, -1)
        return
    for k in range(NUM_KINDS):
        if s.hand[h, k] > 0 and givable(s, k):
            s.phase = PH_GIVE
            s.cur = h
            return
    end_round(s, cfg, rew, flags, END_NO_GIFT, p, h)


@njit(cache=True)
def give(s, k):
    """R17: the helper gives a card of kind k to the asker, who then gives one back (D9)."""
    _take(s, s.helper, k)
    s.hand[s.asker, k] += 1
    s.given = k
    s.phase = PH_BACK
    s.cur = s.asker


@njit(cache=True)
def give_back(s, k, cfg, rew, flags):
    """R18: the asker gives the helper a card of kind k; then R19: play the received card, or the help
    failed (R20a)."""
    p = s.asker
    _take(s, p, k)
    s.hand[s.helper, k] += 1
    s.back = k
    if has_received_play(s, p, s.given):
        s.phase = PH_RECV
        s.cur = p
    else:
        end_round(s, cfg, rew, flags, END_NO_GIFT, p, s.helper)


@njit(cache=True)
def apply_action(s, a, cfg, rew, flags):
    """Carry out the legal action a of the seat that decides, then go on to the next decision."""
    ph = s.phase
    p = s.cur
    err = False
    if ph == PH_GIVE:
        give(s, a - GIVE)
    elif ph == PH_BACK:
        give_back(s, a - GIVE_BACK, cfg, rew, flags)
    elif a == ASK:
        ask(s, p, cfg, rew, flags)
    else:                     # PH_OPEN, PH_PLAY, PH_RECV: one card played, then the turn ends (R15, R19)
        play(s, p, a, cfg[C_ROWMAX])
        err = end_turn(s, p, cfg)
    if err:
        flags[F_ERROR] = 1


@njit(cache=True)
def mask_one(s, cfg, m):
    """The legal actions of the seat that decides (from its hand, the row and the phase only, K4)."""
    m[:] = 0
    ph = s.phase
    p = s.cur
    if ph == PH_OPEN:                                      # R6
        m[PLAY + s.opening - 1] = 1
    elif ph == PH_PLAY:                                    # R9
        c = 0
        for k in range(NUM_KINDS):
            if s.hand[p, k] > 0:
                c += card_plays(s, p, k, m)
        if c == 0:
            m[ASK] = 1
    elif ph == PH_GIVE:                                    # R17
        for k in range(NUM_KINDS):
            if s.hand[p, k] > 0 and givable(s, k):
                m[GIVE + k] = 1
    elif ph == PH_BACK:                                    # R18
        for k in range(NUM_KINDS):
            if s.hand[p, k] - (1 if k == s.given else 0) > 0:
                m[GIVE_BACK + k] = 1
    elif ph == PH_RECV:                                    # R19
        card_plays(s, p, s.given, m)


# ---------------------------------------------------------------- one game's step (batch.py loops over games)
@njit(cache=True)
def step_one(s, a, cfg, rew, flg, mask):
    """One decision in one game: apply legal action a, truncate at max_steps decisions of a round (R22),
    autoreset, new mask."""
    if step_starts(s, rew, flg):
        apply_action(s, a, cfg, rew, flg)
        if step_ends(s, flg, flg[F_ROUND_OVER] == 0 and s.steps >= cfg[C_MAX_STEPS], PH_OVER, cfg[C_AUTORESET]):
            start_game(s, cfg, s.deck, False, -1)
        mask_one(s, cfg, mask)
