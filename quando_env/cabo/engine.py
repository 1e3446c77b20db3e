"""Cabo's rules engine: numba kernels over a numpy array of per-game records.

Every game of a batch is one record of STATE_DTYPE, stepped by the spec's state machine; nothing allocates
per step. Rule ids (R*, D*, K*) refer to RULES.md beside this file (the contract is cabo-spec.md).

Cards are ids 0..51 (R1). Each seat has 8 stable slots (D6): `slot[p, i]` is a card id or -1. `loc[c]` is
where card c is (a seat, the stock, the discard pile, or "drawn": in the active player's hand between the
draw and its placing), `pos[c]` its slot when held. `seen[p, c]` is 1 once player p has seen card c's face
this round (K1-K9); every move is public, so that and the locations are all a player knows.

A turn is split into the game's events, each one function: `draw_stock` / `take_discard` (R9), `jack_swap`
(R10), `queen_peek` (R11), `place` (R12), `snap` (R13, R14) and `penalty` (R16), `knock` (R18),
`end_round` (R22-R26); `apply_action` hands a decision to its event. `advance` runs what needs no decision:
the snap window's order (R13, R15), the end of a turn (R19-R21, D10) and the next turn's seat (R8).

This module is the rules, one game at a time; beside it, batch.py runs them over a batch, state.py writes the
perfect-information state vector, state_checks.py checks records from outside, info.py reads the step infos.
"""
import numpy as np
from numba import njit

from .. import rng
from ..core import (F_ROUND_OVER, F_TERMINATED, episode_ends, step_ends, step_starts)
from .cards import (CARD_RANKS, CARD_VALUES, DISCARD_DRAWN, DRAW_STOCK, JACK, JACK_SWAP, KNOCK, MAX_PLAYERS, NO_KNOCK,
                    NUM_CARDS, NUM_SLOTS, PASS, PLACE, QUEEN, QUEEN_LOOK, SNAP, TAKE_DISCARD)

# Card locations: a seat 0..5, or one of these.
LOC_STOCK = 6
LOC_DISC = 7
LOC_DRAWN = 8          # drawn this turn, not yet placed (R9-R12)

# Decision phases (spec "Actions").
PH_DRAW = 0            # R9: the active player draws
PH_PLACE = 1           # R12: the active player places or discards the drawn card
PH_QUEEN = 2           # R11: the active player looks at an own slot
PH_JACK = 3            # R10: the active player exchanges two cards
PH_SNAP = 4            # R13: one player's decision in a snap window
PH_KNOCK = 5           # R18: knock or not
PH_OVER = 6            # the episode ended; no decision
NUM_PHASES = 7

# Automatic work left after an action, run by advance.
T_WINDOW = 0           # ask the next player of the snap window (R13, R15)
T_AFTER_WINDOW = 1     # the window closed: end of R7's window or of a turn (R18-R21)
T_NEXT_TURN = 2        # the next turn starts (R8, R19, R20)

# Indices into the int64 config vector the kernels take (then the observation's section starts).
C_N, C_HAND, C_PEEK, C_FINAL, C_TIE, C_TLIMIT, C_TARGET, C_ROUND_EPISODE, C_MAX_STEPS, C_WIN_REWARD, \
    C_AUTORESET, C_DEALER, CFG_SIZE = range(13)   # CFG_SIZE: the options' count (the observation's starts follow)

LANDING_TOTALS = (25, 50, 75, 100)   # R25

STATE_DTYPE = np.dtype([
    ("slot", np.int8, (MAX_PLAYERS, NUM_SLOTS)),   # card id per seat and slot, -1 empty (D6)
    ("loc", np.int8, (NUM_CARDS,)),
    ("pos", np.int8, (NUM_CARDS,)),                # the slot of a held card
    ("seen", np.uint8, (MAX_PLAYERS, NUM_CARDS)),  # K1-K9: seen[p, c] = 1 once p saw c this round
    ("stock", np.int8, (NUM_CARDS,)),              # bottom first: the top is stock[nstock - 1]
    ("disc", np.int8, (NUM_CARDS,)),               # discard pile, bottom first
    ("nstock", np.int16),
    ("ndisc", np.int16),
    ("nhand", np.int8, (MAX_PLAYERS,)),
    ("out", np.uint8, (MAX_PLAYERS,)),             # R20: went out this round
    ("total", np.int32, (MAX_PLAYERS,)),           # game totals (R24, R25)
    ("points", np.int32, (MAX_PLAYERS,)),          # points of the last finished round (R23)
    ("deck", np.int8, (NUM_CARDS,)),               # this round's deck as dealt, top first (R4)
    ("shuffles", np.int32),                        # in-round reshuffles: always 0 (D14)
    ("dealer", np.int8),
    ("active", np.int8),                           # whose turn it is (the dealer during R7's window)
    ("cur", np.int8),                              # who decides now
    ("phase", np.int8),
    ("knocker", np.int8),                          # -1 while nobody knocked (R18)
    ("out_turn", np.int8),                         # R20: T, the seat in whose turn someone first went out
    ("drawn", np.int8),                            # the card drawn this turn and not yet placed, or -1
    ("from_stock", np.int8),                       # 1: this turn's card came from the stock
    ("final", np.int8),                            # 1: this turn is the knocker's last (R19, D11)
    ("discarder", np.int8),                        # the snap window's discarder (R13)
    ("in_turn", np.int8),                          # 0: R7's window (not a turn, D13); 1: a turn's window
    ("snap_k", np.int8),                           # the window's position: 0..n-2 the others, n-1 the discarder
    ("turns", np.int32),                           # completed turns this round (D13)
    ("steps", np.int32),                           # decisions taken this episode (max_steps)
    ("round", np.int32),                           # rounds finished this episode
    ("rng", np.uint64, (1,)),                      # the game's random stream (quando_env.rng)
])

_VAL = CARD_VALUES
_RANK = CARD_RANKS


# ---------------------------------------------------------------- cards moving, and who sees them (K rules)
@njit(cache=True)
def _show_all(s, c, n):
    """K2, K4, K5, K8: every player sees card c."""
    for q in range(n):
        s.seen[q, c] = 1


@njit(cache=True)
def _to_discard(s, c, n):
    """R12, R14: c goes face up onto the discard pile (K4: everyone sees it)."""
    s.loc[c] = LOC_DISC
    s.disc[s.ndisc] = c
    s.ndisc += 1
    _show_all(s, c, n)


@njit(cache=True)
def _hold(s, c, p, i):
    s.slot[p, i] = c
    s.loc[c] = p
    s.pos[c] = i


@njit(cache=True)
def restock_R17(s):
    """R17, D14: the discard pile except its top, turned over as one block (the oldest discard on top,
    no shuffle), becomes the stock."""
    m = s.ndisc
    if m < 2:
        return
    for j in range(m - 1):
        c = s.disc[m - 2 - j]
        s.stock[j] = c
        s.loc[c] = LOC_STOCK
    s.nstock = m - 1
    s.disc[0] = s.disc[m - 1]
    s.ndisc = 1


@njit(cache=True)
def _take_stock(s):
    """The stock's top card, restocking first if the stock is empty (R17); -1 if there is none."""
    if s.nstock == 0:
        restock_R17(s)
    if s.nstock == 0:
        return -1
    s.nstock -= 1
    return s.stock[s.nstock]


@njit(cache=True)
def stock_drawable_R17(s):
    """R9, R17: a stock draw is legal when the stock, or a restock from the discard pile, gives a card."""
    return s.nstock > 0 or s.ndisc >= 2


@njit(cache=True)
def snap_asked_R15(s, q):
    """R15, D6, D12: only players holding 1..7 cards are asked in a snap window."""
    return 1 <= s.nhand[q] <= NUM_SLOTS - 1


@njit(cache=True)
def jack_applies_R10(s, p, n):
    """R10, D12: the Jack acts only when another player holds a card."""
    for q in range(n):
        if q != p and s.nhand[q] > 0:
            return True
    return False


@njit(cache=True)
def window_seat_R13(s, n, k):
    """R13: the k-th player of a snap window: the others clockwise from the discarder's left, then the
    discarder."""
    if k == n - 1:
        return s.discarder
    return (s.discarder + 1 + k) % n


@njit(cache=True)
def next_turn_seat_R8(s, cfg):
    """The seat of the next turn after the active player's, or -1 when the round ends: R8 (empty hands
    are skipped), R19 (after a knock, the knocker's last turn ends the lap), R20 and D12 (after a going
    out in T's turn, the round ends when the turn would come back to T; the earlier end applies)."""
    n = cfg[C_N]
    for k in range(1, n + 1):
        q = (s.active + k) % n
        if s.out_turn >= 0 and q == s.out_turn:
            return -1
        if s.knocker >= 0 and q == s.knocker:
            if cfg[C_FINAL] == 1 and s.nhand[q] > 0:
                return q
            return -1
        if s.nhand[q] > 0:
            return q
    return -1


@njit(cache=True)
def knock_allowed_R18(s):
    """R18, D10: a knock decision follows a turn only while nobody has knocked or gone out."""
    return s.knocker < 0 and s.out_turn < 0


@njit(cache=True)
def hand_total_R22(s, p):
    """R22: the sum of the values p holds (0 for an empty hand)."""
    t = 0
    for i in range(NUM_SLOTS):
        c = s.slot[p, i]
        if c >= 0:
            t += _VAL[c]
    return t


@njit(cache=True)
def knocker_doubled_R23(tot, k, n, tie_doubles):
    """R23, D15: the knocker's total doubles when another player's total is strictly lower (with
    tie_doubles: lower or equal)."""
    for q in range(n):
        if q != k and (tot[q] < tot[k] or (tie_doubles and tot[q] == tot[k])):
            return True
    return False


@njit(cache=True)
def landing_total_R25(total, pts):
    """R25, D16: a game total that lands on exactly 25, 50, 75 or 100 after adding points > 0 loses 25
    (once)."""
    t = total + pts
    if pts > 0 and (t == 25 or t == 50 or t == 75 or t == 100):
        t -= 25
    return t


# ---------------------------------------------------------------- rounds and games
@njit(cache=True)
def _open_window(s, discarder, in_turn):
    """R7, R12: a discard opens a snap window."""
    s.discarder = discarder
    s.in_turn = in_turn
    s.snap_k = 0


@njit(cache=True)
def deal(s, cfg, deck, use_deck):
    """R5, R6, R7: deal a (given or shuffled) deck; the upcard opens R7's window (the caller advances)."""
    n = cfg[C_N]
    if use_deck:
        for i in range(NUM_CARDS):
            s.deck[i] = deck[i]
    else:
        for i in range(NUM_CARDS):
            s.deck[i] = i
        rng.shuffle(s.rng, 0, s.deck, NUM_CARDS)
    s.slot[:, :] = -1
    s.seen[:, :] = 0
    s.nhand[:] = 0
    s.out[:] = 0
    s.pos[:] = -1
    k = 0
    for i in range(cfg[C_HAND]):          # R5: one card each round, from the dealer's left; card i to slot i
        for j in range(1, n + 1):
            p = (s.dealer + j) % n
            _hold(s, s.deck[k], p, i)
            s.nhand[p] += 1
            k += 1
    up = s.deck[k]                        # R6: the upcard, then the stock in order
    s.disc[0] = up
    s.loc[up] = LOC_DISC
    s.ndisc = 1
    m = NUM_CARDS - k - 1
    for j in range(m):
        c = s.deck[NUM_CARDS - 1 - j]
        s.stock[j] = c
        s.loc[c] = LOC_STOCK
    s.nstock = m
    for p in range(n):                    # K1, D2: everyone looks at slots 0 .. peek-1
        for i in range(min(cfg[C_PEEK], cfg[C_HAND])):
            s.seen[p, s.slot[p, i]] = 1
    _show_all(s, up, n)                   # K2
    s.knocker = -1
    s.out_turn = -1
    s.drawn = -1
    s.from_stock = 0
    s.final = 0
    s.turns = 0
    s.active = s.dealer                   # R7: the dealer is the upcard's discarder
    s.cur = s.dealer
    _open_window(s, s.dealer, 0)


@njit(cache=True)
def start_game(s, cfg, deck, use_deck, dealer):
    """A new game: totals 0, the first round dealt, run up to the first decision."""
    n = cfg[C_N]
    s.total[:] = 0
    s.points[:] = 0
    s.round = 0
    s.steps = 0
    s.shuffles = 0
    s.dealer = dealer
    deal(s, cfg, deck, use_deck)
    advance(s, T_WINDOW, cfg, np.zeros(n, np.float32), np.zeros(4, np.uint8))


@njit(cache=True)
def end_round(s, cfg, rew, flags):
    """R22-R26: reveal, score, add to the game totals; deal the next round or end the episode.
    Returns True when the episode ends here."""
    n = cfg[C_N]
    tot = np.zeros(MAX_PLAYERS, np.int64)
    for p in range(n):
        tot[p] = hand_total_R22(s, p)
        s.points[p] = tot[p]
        for c in range(NUM_CARDS):        # R22: all cards are revealed
            s.seen[p, c] = 1
    k = s.knocker
    if k >= 0 and knocker_doubled_R23(tot, k, n, cfg[C_TIE] == 1):
        s.points[k] = 2 * tot[k]
    for p in range(n):
        new = landing_total_R25(s.total[p], s.points[p])
        if cfg[C_WIN_REWARD] == 0:
            rew[p] -= new - s.total[p]
        s.total[p] = new
    s.round += 1
    flags[F_ROUND_OVER] = 1
    over = cfg[C_ROUND_EPISODE] == 1
    for p in range(n):
        if s.total[p] > cfg[C_TARGET]:   # R26
            over = True
    if over:
        episode_ends(s, flags, rew, n, cfg[C_WIN_REWARD] == 1, s.total[:n].min(), PH_OVER)
    else:
        s.dealer = (s.dealer + 1) % n    # R24
        deal(s, cfg, s.deck, False)
    return over


@njit(cache=True)
def advance(s, todo, cfg, rew, flags):
    """Run the automatic part of the state machine until someone must decide or the episode ends."""
    n = cfg[C_N]
    while True:
        if todo == T_WINDOW:
            while s.snap_k < n:
                q = window_seat_R13(s, n, s.snap_k)
                if snap_asked_R15(s, q):
                    s.phase = PH_SNAP
                    s.cur = q
                    return
                s.snap_k += 1
            todo = T_AFTER_WINDOW
        elif todo == T_AFTER_WINDOW:
            if s.in_turn == 0:            # R7's window is no turn (D13) and has no knock decision (D10)
                todo = T_NEXT_TURN
                continue
            s.turns += 1                  # D13: a turn is complete once its window closed
            if (cfg[C_TLIMIT] > 0 and s.turns >= cfg[C_TLIMIT]) or s.final == 1:   # R21, R19
                if end_round(s, cfg, rew, flags):
                    return
                todo = T_WINDOW
                continue
            if knock_allowed_R18(s):
                s.phase = PH_KNOCK
                s.cur = s.active
                return
            todo = T_NEXT_TURN
        else:  # T_NEXT_TURN
            q = next_turn_seat_R8(s, cfg)
            if q < 0:
                if end_round(s, cfg, rew, flags):
                    return
                todo = T_WINDOW
                continue
            s.final = 1 if (s.knocker >= 0 and q == s.knocker) else 0
            s.active = q
            s.cur = q
            s.phase = PH_DRAW
            s.from_stock = 0
            return


@njit(cache=True)
def redeal(s, cfg, deck):
    """Replace the current round's deal by the given deck (replaying a record); R7's upcard window follows as
    after any deal."""
    deal(s, cfg, deck, True)
    advance(s, T_WINDOW, cfg, np.zeros(cfg[C_N], np.float32), np.zeros(4, np.uint8))


# ---------------------------------------------------------------- the game's events
@njit(cache=True)
def draw_stock(s, n):
    """R9 from the stock (K3: the drawer sees it), then R10's Jack or R11's Queen if it is one (D8, K5)."""
    p = s.active
    c = _take_stock(s)
    s.drawn = c
    s.loc[c] = LOC_DRAWN
    s.seen[p, c] = 1
    s.from_stock = 1
    s.phase = PH_PLACE
    if _RANK[c] == JACK and jack_applies_R10(s, p, n):
        _show_all(s, c, n)
        s.phase = PH_JACK
    elif _RANK[c] == QUEEN:
        _show_all(s, c, n)
        s.phase = PH_QUEEN


@njit(cache=True)
def take_discard(s):
    """R9: the discard pile's top card (public, K4); D8: no Jack or Queen rule; D9: it must be placed."""
    s.ndisc -= 1
    c = s.disc[s.ndisc]
    s.drawn = c
    s.loc[c] = LOC_DRAWN
    s.from_stock = 0
    s.phase = PH_PLACE


@njit(cache=True)
def jack_swap(s, a, n):
    """R10, K6: exchange own slot p with slot q of the player r seats clockwise; nobody looks."""
    k = a - JACK_SWAP
    r = k // 64 + 1
    p = (k % 64) // 8
    q = k % 8
    t = (s.active + r) % n
    mine = s.slot[s.active, p]
    theirs = s.slot[t, q]
    _hold(s, theirs, s.active, p)
    _hold(s, mine, t, q)
    s.phase = PH_PLACE


@njit(cache=True)
def queen_peek(s, a):
    """R11, K7: the drawer looks at own slot a - QUEEN_LOOK (the others learn only which slot)."""
    s.seen[s.active, s.slot[s.active, a - QUEEN_LOOK]] = 1
    s.phase = PH_PLACE


@njit(cache=True)
def place(s, a, n):
    """R12: the drawn card replaces an own card, which is discarded, or (stock draws) is discarded itself;
    the discard opens the turn's snap window."""
    p = s.active
    c = s.drawn
    if a == DISCARD_DRAWN:
        _to_discard(s, c, n)
    else:
        i = a - PLACE
        old = s.slot[p, i]
        _hold(s, c, p, i)
        _to_discard(s, old, n)
    s.drawn = -1
    _open_window(s, p, 1)


@njit(cache=True)
def penalty(s, q):
    """R16, D7, K9: one stock card (R17 restocks) into q's lowest empty slot; nobody sees it."""
    c = _take_stock(s)
    if c < 0:
        return
    for i in range(NUM_SLOTS):
        if s.slot[q, i] < 0:
            _hold(s, c, q, i)
            s.nhand[q] += 1
            return


@njit(cache=True)
def snap(s, a, n):
    """R13-R16, K8: the deciding player snaps own slot a - SNAP or passes. A correct snap (same rank as the
    discard top, D3) discards the card and the player decides again; the last card snapped puts the
    player out (R20). A wrong snap shows the card, which stays, and costs a penalty card."""
    q = s.cur
    if a == PASS:
        s.snap_k += 1
        return
    i = a - SNAP
    c = s.slot[q, i]
    _show_all(s, c, n)
    if _RANK[c] == _RANK[s.disc[s.ndisc - 1]]:
        s.slot[q, i] = -1
        s.pos[c] = -1
        s.nhand[q] -= 1
        _to_discard(s, c, n)
        if s.nhand[q] == 0:
            s.out[q] = 1
            if s.out_turn < 0:
                s.out_turn = s.active     # T: the dealer for R7's window
    else:
        penalty(s, q)
        s.snap_k += 1


@njit(cache=True)
def knock(s, a):
    """R18: the active player knocks (or not)."""
    if a == KNOCK:
        s.knocker = s.active


@njit(cache=True)
def apply_action(s, a, cfg, rew, flags):
    """Carry out legal action `a` of the player to move, then advance to the next decision."""
    n = cfg[C_N]
    ph = s.phase
    todo = -1
    if ph == PH_DRAW:
        if a == DRAW_STOCK:
            draw_stock(s, n)
        else:
            take_discard(s)
    elif ph == PH_JACK:
        jack_swap(s, a, n)
    elif ph == PH_QUEEN:
        queen_peek(s, a)
    elif ph == PH_PLACE:
        place(s, a, n)
        todo = T_WINDOW
    elif ph == PH_SNAP:
        snap(s, a, n)
        todo = T_WINDOW
    else:  # PH_KNOCK
        knock(s, a)
        todo = T_NEXT_TURN
    if todo >= 0:
        advance(s, todo, cfg, rew, flags)


@njit(cache=True)
def mask_one(s, cfg, m):
    """The legal actions of the player to move in one game (the action table; only occupied slots)."""
    m[:] = 0
    ph = s.phase
    p = s.cur
    if ph == PH_OVER:
        return
    n = cfg[C_N]
    if ph == PH_DRAW:
        if stock_drawable_R17(s):
            m[DRAW_STOCK] = 1
        if s.ndisc > 0:
            m[TAKE_DISCARD] = 1
    elif ph == PH_PLACE:
        for i in range(NUM_SLOTS):
            if s.slot[p, i] >= 0:
                m[PLACE + i] = 1
        if s.from_stock == 1:
            m[DISCARD_DRAWN] = 1
    elif ph == PH_QUEEN:
        for i in range(NUM_SLOTS):
            if s.slot[p, i] >= 0:
                m[QUEEN_LOOK + i] = 1
    elif ph == PH_JACK:
        for r in range(1, n):
            t = (p + r) % n
            if s.nhand[t] == 0:
                continue
            for i in range(NUM_SLOTS):
                if s.slot[p, i] < 0:
                    continue
                for j in range(NUM_SLOTS):
                    if s.slot[t, j] >= 0:
                        m[JACK_SWAP + 64 * (r - 1) + 8 * i + j] = 1
    elif ph == PH_SNAP:
        for i in range(NUM_SLOTS):
            if s.slot[p, i] >= 0:
                m[SNAP + i] = 1
        m[PASS] = 1
    else:
        m[KNOCK] = 1
        m[NO_KNOCK] = 1


# ---------------------------------------------------------------- one game's step (batch.py loops over games)
@njit(cache=True)
def step_one(s, a, cfg, rew, flg, mask):
    """One decision in one game: apply legal action a, truncate at max_steps, autoreset, new mask."""
    if step_starts(s, rew, flg):
        apply_action(s, a, cfg, rew, flg)
        if step_ends(s, flg, flg[F_TERMINATED] == 0 and s.steps >= cfg[C_MAX_STEPS], PH_OVER, cfg[C_AUTORESET]):
            start_game(s, cfg, s.deck, False, cfg[C_DEALER])
        mask_one(s, cfg, mask)
