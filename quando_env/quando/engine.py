"""The one rules engine: numba kernels over a numpy array of per-game records.

Every game of a batch is one record of STATE_DTYPE, stepped by the spec's state machine; nothing here
allocates per step, so thousands of games step in one call.
Rule ids (R*, D*, K*) refer to RULES.md beside this file.

Card sides are indexed 0 (the low number) and 1 (the high number). `face[c]` is the side of card c that
faces its holder (in a hand) or faces up (on a pile); `seen[p, c]` has bit 1<<side set once player p has
seen that side (K1-K4). Everything a player observes is derived from `seen` and public positions.

A turn is split into the game's events, each one function: `straight` / `play_set` (R10) and `turn_played`
(R11, R15), `knock` (R15), `draw` (R9), `flip_zero` (R12, D5); `apply_action` hands a decision to its event.
`advance` then runs what needs no decision, an event at a time: `turn_draw` (R9, D2), `after_turn_draw` (R13,
R14, R15o), `penalty_next` (R12), `end_turn` (R16), and `_end_round` (R17-R19).

This module is the rules, one game at a time; beside it, batch.py runs them over a batch, state.py writes the
perfect-information state vector, state_checks.py checks records from outside, info.py reads the step infos.
"""
import numpy as np
from numba import njit

from .. import rng
from ..core import (F_ERROR, F_ROUND_OVER, F_TERMINATED, F_TRUNCATED, episode_ends, step_ends, step_starts)
from .cards import (CARD_VALUES, FLIP_UNKNOWN, KNOCK, MAX_PLAYERS, MAX_SET, NUM_CARDS, NUM_VALUES, PAIR_TO_CARD, PASS,
                    SET, STRAIGHT, TAKE_DOWN, TAKE_UP, flip_action, flip_back, is_set, is_straight, set_action,
                    set_count, set_value, straight_low)

# Card locations: a seat number 0..5, or one of the piles.
LOC_DRAW = 6
LOC_DISCARD = 7

# Decision phases: who decides what (spec "Actions": "who decides").
PH_ACT = 0      # the active player: straight, set, knock, pass
PH_DRAW = 1     # a drawer: take up / take down (R9); the turn's draw or a penalty draw
PH_FLIP = 2     # a penalised player holding a front 0: which 0 to flip (R12, D5)
PH_KNOCK = 3    # edition oya, after the active player's draw: knock or not (R15o)
PH_OVER = 4     # the episode ended; no decision

# Work left to do after an action, run by advance until a decision is reached (T_DECIDE).
T_DECIDE = -1
T_TURN_DRAW = 0
T_AFTER_TURN_DRAW = 1
T_PENALTY_START = 2
T_PENALTY_NEXT = 3
T_END_TURN = 4

# Indices into the int64 config vector the kernels take.
C_N, C_OYA, C_HAND, C_PENALTY, C_KMIN, C_TARGET, C_ROUND_EPISODE, C_MAX_STEPS, C_WIN_REWARD, C_AUTORESET, \
    C_DEALER, CFG_SIZE = range(12)   # CFG_SIZE: the options' count (the observation's starts follow)

MAX_TURNS = 2**15 - 1     # a seat's A/B turns in a round, as the int16 `turns` holds them (the count stops there)

STATE_DTYPE = np.dtype([
    ("loc", np.int8, (NUM_CARDS,)),
    ("face", np.int8, (NUM_CARDS,)),
    ("acq", np.int32, (NUM_CARDS,)),          # acquisition stamp of hand cards (D4, D5)
    ("seen", np.uint8, (MAX_PLAYERS, NUM_CARDS)),
    ("draw", np.int8, (NUM_CARDS,)),          # draw pile, bottom first; top is draw[ndraw - 1]
    ("disc", np.int8, (NUM_CARDS,)),          # discard pile, bottom first
    ("ndraw", np.int16),
    ("ndisc", np.int16),
    ("nhand", np.int16, (MAX_PLAYERS,)),
    ("turns", np.int16, (MAX_PLAYERS,)),      # A/B turns completed this round (R15)
    ("total", np.int32, (MAX_PLAYERS,)),      # game totals (R19)
    ("points", np.int32, (MAX_PLAYERS,)),     # points of the last finished round (R17, R18)
    ("deck", np.int8, (NUM_CARDS,)),          # this round's deck as dealt: card ids top first ...
    ("deck_up", np.int8, (NUM_CARDS,)),       # ... and the side of each facing up (for game records)
    ("shuffle", np.int8, (NUM_CARDS,)),       # last oya reshuffle, top first (or one to force, see forced)
    ("shuffle_up", np.int8, (NUM_CARDS,)),
    ("nshuf", np.int16),                      # its length (the round may have ended and redealt since)
    ("forced", np.int8),                      # 1: the next oya reshuffle uses `shuffle` (replaying a record)
    ("shuffles", np.int32),                   # oya reshuffles so far in this episode
    ("dealer", np.int8),
    ("active", np.int8),                      # whose turn it is
    ("cur", np.int8),                         # who decides now
    ("phase", np.int8),
    ("knocker", np.int8),                     # -1 while nobody knocked
    ("triplet", np.int8),                     # the turn's action was a set of exactly 3 (R12)
    ("drawctx", np.int8),                     # 0: the turn's own draw, 1: a penalty draw
    ("pen_cur", np.int8),                     # next seat to penalise
    ("pen_left", np.int8),                    # seats still to penalise
    ("acq_next", np.int32),
    ("steps", np.int32),                      # decisions taken this episode (D6)
    ("round", np.int32),                      # rounds finished this episode
    ("rng", np.uint64, (1,)),                 # the game's random stream (quando_env.rng)
])

_VAL = CARD_VALUES
_PAIR = PAIR_TO_CARD


# ---------------------------------------------------------------- random numbers
@njit(cache=True)
def _shuffle(s, cards, ups, m):
    """Shuffle cards[:m] in place and give each a random side up (R4; oya's R11), from the game's stream."""
    rng.shuffle(s.rng, 0, cards, m)
    for j in range(m):
        ups[j] = np.int8(rng.rand_below(s.rng, 0, 2))


# ---------------------------------------------------------------- cards moving (with the K rules)
@njit(cache=True)
def _front(s, c):
    return _VAL[c, s.face[c]]


@njit(cache=True)
def _reveal_top(s, n):
    """K2: the top of the draw pile shows its up side to everyone."""
    if s.ndraw > 0:
        c = s.draw[s.ndraw - 1]
        bit = np.uint8(1 << s.face[c])
        for q in range(n):
            s.seen[q, c] |= bit


@njit(cache=True)
def _into_hand(s, c, p, n):
    """Card c joins p's hand with side face[c] as front. K1: p sees the front, everyone else the back."""
    s.loc[c] = p
    s.acq[c] = s.acq_next
    s.acq_next += 1
    s.nhand[p] += 1
    f = s.face[c]
    for q in range(n):
        if q == p:
            s.seen[q, c] |= np.uint8(1 << f)
        else:
            s.seen[q, c] |= np.uint8(1 << (1 - f))


@njit(cache=True)
def _discard(s, c, p, n):
    """R10: c goes front up onto the discard pile; K3: everyone sees that side."""
    s.loc[c] = LOC_DISCARD
    s.nhand[p] -= 1
    s.disc[s.ndisc] = c
    s.ndisc += 1
    bit = np.uint8(1 << s.face[c])
    for q in range(n):
        s.seen[q, c] |= bit


@njit(cache=True)
def _refill(s, n, oya):
    """R11: an empty draw pile is replaced by the discard pile at once (kendi: turned over; oya: shuffled)."""
    if s.ndraw > 0 or s.ndisc == 0:
        return False
    m = s.ndisc
    if oya:
        if s.forced == 1:
            # Replaying a record: the arrangement must hold exactly the discard pile's cards.
            s.forced = 0
            if m < NUM_CARDS and s.shuffle[m] != -1:
                return True  # more cards than the discard pile holds
            taken = np.zeros(NUM_CARDS, np.bool_)
            for j in range(m):
                c = s.shuffle[j]
                if c < 0 or s.loc[c] != LOC_DISCARD or taken[c]:
                    return True  # the caller reports the error
                taken[c] = True
        else:
            for j in range(m):
                s.shuffle[j] = s.disc[j]
            _shuffle(s, s.shuffle, s.shuffle_up, m)
        for j in range(m):
            c = s.shuffle[j]
            s.draw[m - 1 - j] = c
            s.face[c] = s.shuffle_up[j]
            s.loc[c] = LOC_DRAW
        s.nshuf = m
        s.shuffles += 1
    else:
        for j in range(m):
            c = s.disc[m - 1 - j]
            s.draw[j] = c
            s.face[c] = 1 - s.face[c]
            s.loc[c] = LOC_DRAW
    s.ndraw = m
    s.ndisc = 0
    _reveal_top(s, n)
    return False


@njit(cache=True)
def _pick(s, p, v):
    """D4: among p's cards showing v, the one to discard first: highest back known to p (unseen = 5.5),
    then earliest acquired. Decided only by what p has seen, never by card id."""
    best = -1
    best_key = -1.0
    best_acq = 0
    for c in range(NUM_CARDS):
        if s.loc[c] != p or _VAL[c, s.face[c]] != v:
            continue
        back = 1 - s.face[c]
        key = np.float64(_VAL[c, back]) if (s.seen[p, c] >> back) & 1 else 5.5
        if best < 0 or key > best_key or (key == best_key and s.acq[c] < best_acq):
            best = c
            best_key = key
            best_acq = s.acq[c]
    return best


@njit(cache=True)
def _only_zeros(s, p):
    """R14 (an empty hand counts as holding only zeros)."""
    for c in range(NUM_CARDS):
        if s.loc[c] == p and _VAL[c, s.face[c]] != 0:
            return False
    return True


@njit(cache=True)
def _has_front_zero(s, p):
    for c in range(NUM_CARDS):
        if s.loc[c] == p and _VAL[c, s.face[c]] == 0:
            return True
    return False


@njit(cache=True)
def knock_open(s, cfg):
    """R15 (kendi): nobody knocked yet and every player completed `knock_min_turns` A/B turns this round."""
    if s.knocker >= 0 or cfg[C_OYA] == 1:
        return False
    for q in range(cfg[C_N]):
        if s.turns[q] < cfg[C_KMIN]:
            return False
    return True


@njit(cache=True)
def _penalty_start(s, n):
    """R12: a triplet penalises every other player once, clockwise from the active player's left."""
    s.pen_left = n - 1
    s.pen_cur = (s.active + 1) % n


@njit(cache=True)
def _penalty_next(s, n):
    """R12: the next seat to penalise (one fewer left)."""
    p = s.pen_cur
    s.pen_cur = (p + 1) % n
    s.pen_left -= 1
    return p


# ---------------------------------------------------------------- rounds and games
@njit(cache=True)
def deal(s, cfg, deck, deck_up, use_deck):
    """R4-R6: a (given or shuffled) deck dealt one card at a time clockwise from the dealer's left."""
    n = cfg[C_N]
    if use_deck:
        for i in range(NUM_CARDS):
            s.deck[i] = deck[i]
            s.deck_up[i] = deck_up[i]
    else:
        for i in range(NUM_CARDS):
            s.deck[i] = i
        _shuffle(s, s.deck, s.deck_up, NUM_CARDS)
    s.seen[:, :] = 0
    s.nhand[:] = 0
    s.turns[:] = 0
    for i in range(NUM_CARDS):
        c = s.deck[i]
        s.draw[NUM_CARDS - 1 - i] = c
        s.face[c] = s.deck_up[i]
        s.loc[c] = LOC_DRAW
        s.acq[c] = 0
    s.ndraw = NUM_CARDS
    s.ndisc = 0
    s.acq_next = 0
    for _ in range(cfg[C_HAND]):
        for j in range(n):
            p = (s.dealer + 1 + j) % n
            s.ndraw -= 1
            c = s.draw[s.ndraw]
            s.face[c] = 1 - s.face[c]  # the up side becomes the back (R5); D1, K4: nothing else is seen
            _into_hand(s, c, p, n)
    _reveal_top(s, n)
    s.knocker = -1
    s.triplet = 0
    s.pen_left = 0
    s.active = (s.dealer + 1) % n
    s.cur = s.active
    s.phase = PH_ACT


@njit(cache=True)
def start_game(s, cfg, deck, deck_up, use_deck, dealer):
    s.total[:] = 0
    s.points[:] = 0
    s.round = 0
    s.steps = 0
    s.shuffles = 0
    s.forced = 0
    s.dealer = dealer
    deal(s, cfg, deck, deck_up, use_deck)


@njit(cache=True)
def hand_sums(s, n, out):
    """out[p] = sum of seat p's fronts (R17)."""
    out[:n] = 0
    for c in range(NUM_CARDS):
        if s.loc[c] < n:
            out[s.loc[c]] += _VAL[c, s.face[c]]


@njit(cache=True)
def _end_round(s, cfg, rew, flags):
    """R17, R18 (with D3), R19. Returns True when the episode ends here."""
    n = cfg[C_N]
    sums = np.zeros(MAX_PLAYERS, np.int32)
    hand_sums(s, n, sums)
    low = sums[0]
    for p in range(1, n):
        low = min(low, sums[p])
    n_low = 0
    for p in range(n):
        if sums[p] == low:
            n_low += 1
    for p in range(n):
        s.points[p] = 0 if sums[p] == low else sums[p]
    k = s.knocker
    if k >= 0 and not (sums[k] == low and n_low == 1):   # R18, D3: the knocker was not lowest alone
        s.points[k] = sums[k] + cfg[C_PENALTY]
    for p in range(n):
        s.total[p] += s.points[p]
        if cfg[C_WIN_REWARD] == 0:
            rew[p] -= s.points[p]
    s.round += 1
    flags[F_ROUND_OVER] = 1
    over = cfg[C_ROUND_EPISODE] == 1
    for p in range(n):
        if s.total[p] > cfg[C_TARGET] or (s.total[p] == cfg[C_TARGET] and cfg[C_OYA] == 0):
            over = True
    if over:
        episode_ends(s, flags, rew, n, cfg[C_WIN_REWARD] == 1, s.total[:n].min(), PH_OVER)
    else:
        s.dealer = (s.dealer + 1) % n
        deal(s, cfg, s.deck, s.deck_up, False)
    return over


# ---------------------------------------------------------------- the game's events
# apply_action hands each decision to the event it is; advance then runs the automatic part of the turn,
# each piece of it (the `T_*` codes) an event that returns the next piece, or T_DECIDE when a seat must decide.
# The events are inlined into the step (inline="always"): as calls they cost about 5% of random play's speed.
@njit(cache=True, inline="always")
def straight(s, p, x, n):
    """A (R10): a straight, placed x, x+1, x+2."""
    for v in range(x, x + 3):
        _discard(s, _pick(s, p, v), p, n)
    s.triplet = 0


@njit(cache=True, inline="always")
def play_set(s, p, v, k, n):
    """B (R10): k cards showing v, placed in D4 order; exactly three make a triplet (R12)."""
    for _ in range(k):
        _discard(s, _pick(s, p, v), p, n)
    s.triplet = 1 if k == 3 else 0


@njit(cache=True, inline="always")
def turn_played(s, p, n, oya):
    """After A or B: the seat's A/B turn counts (R15), and a discard onto an empty table becomes the draw pile at
    once (R11). True when a forced reshuffle does not fit (F_ERROR)."""
    if s.turns[p] < MAX_TURNS:     # saturates: int16, and knock_min_turns <= MAX_TURNS
        s.turns[p] += 1
    return _refill(s, n, oya)


@njit(cache=True, inline="always")
def knock(s, p):
    """K (R15, R15o): p knocks."""
    s.knocker = p


@njit(cache=True)
def draw(s, p, take_down, n, oya):
    """R9: p takes the top card, choosing which side becomes the front."""
    s.ndraw -= 1
    c = s.draw[s.ndraw]
    if take_down:
        s.face[c] = 1 - s.face[c]
    _into_hand(s, c, p, n)
    err = _refill(s, n, oya)
    _reveal_top(s, n)
    return err


@njit(cache=True, inline="always")
def flip_zero(s, p, a, n):
    """R12, D5: the penalised p flips a front 0 (the earliest acquired of those with an unknown back, or the one
    whose known back the action names); everyone sees both sides."""
    pick = -1
    if a == FLIP_UNKNOWN:
        for c in range(NUM_CARDS):
            if s.loc[c] == p and _VAL[c, s.face[c]] == 0 and not (s.seen[p, c] >> (1 - s.face[c])) & 1:
                if pick < 0 or s.acq[c] < s.acq[pick]:
                    pick = c
    else:
        pick = _PAIR[0, flip_back(a)]
    s.face[pick] = 1 - s.face[pick]
    for q in range(n):
        s.seen[q, pick] = 3


@njit(cache=True, inline="always")
def turn_draw(s):
    """The active player draws (R9); D2: with nothing to draw, go on as if drawn."""
    if s.ndraw == 0:
        return T_AFTER_TURN_DRAW
    s.phase = PH_DRAW
    s.cur = s.active
    s.drawctx = 0
    return T_DECIDE


@njit(cache=True, inline="always")
def after_turn_draw(s, cfg, rew, flags, oya):
    """R14, R13: only zeros ends the round (and cancels a pending penalty); oya: the knock decision (R15o);
    kendi: a triplet's penalties (R12)."""
    if _only_zeros(s, s.active):
        _end_round(s, cfg, rew, flags)
        return T_DECIDE
    if oya:
        if s.knocker < 0:
            s.phase = PH_KNOCK
            s.cur = s.active
            return T_DECIDE
        return T_END_TURN
    return T_PENALTY_START if s.triplet == 1 else T_END_TURN


@njit(cache=True, inline="always")
def penalty_next(s, n, oya):
    """R12: the next penalised seat flips a front 0 or draws (D2: nothing to draw, none); after the last, the
    turn ends (kendi) or the active player draws (R12o)."""
    while s.pen_left > 0:
        p = _penalty_next(s, n)
        if _has_front_zero(s, p):
            s.phase = PH_FLIP
            s.cur = p
            return T_DECIDE
        if s.ndraw > 0:
            s.phase = PH_DRAW
            s.cur = p
            s.drawctx = 1
            return T_DECIDE
    return T_TURN_DRAW if oya else T_END_TURN


@njit(cache=True, inline="always")
def end_turn(s, cfg, rew, flags):
    """R16: the turn passes clockwise; back at the knocker the round ends."""
    nxt = (s.active + 1) % cfg[C_N]
    if s.knocker >= 0 and nxt == s.knocker:
        _end_round(s, cfg, rew, flags)
        return T_DECIDE
    s.active = nxt
    s.cur = nxt
    s.phase = PH_ACT
    s.triplet = 0
    return T_DECIDE


@njit(cache=True, inline="always")
def advance(s, todo, cfg, rew, flags):
    """Run the automatic part of the state machine until someone must decide or the round ends."""
    n = cfg[C_N]
    oya = cfg[C_OYA] == 1
    while todo != T_DECIDE:
        if todo == T_TURN_DRAW:
            todo = turn_draw(s)
        elif todo == T_AFTER_TURN_DRAW:
            todo = after_turn_draw(s, cfg, rew, flags, oya)
        elif todo == T_PENALTY_START:
            _penalty_start(s, n)
            todo = T_PENALTY_NEXT
        elif todo == T_PENALTY_NEXT:
            todo = penalty_next(s, n, oya)
        else:
            todo = end_turn(s, cfg, rew, flags)


@njit(cache=True)
def apply_action(s, a, cfg, rew, flags):
    """Carry out legal action `a` of the player to move, then advance to the next decision."""
    n = cfg[C_N]
    oya = cfg[C_OYA] == 1
    ph = s.phase
    p = s.cur
    err = False
    if ph == PH_ACT:
        if is_straight(a) or is_set(a):
            if is_straight(a):
                straight(s, p, straight_low(a), n)
            else:
                play_set(s, p, set_value(a), set_count(a), n)
            err = turn_played(s, p, n, oya)
            todo = T_PENALTY_START if (oya and s.triplet == 1) else T_TURN_DRAW
        else:                   # K (R15) or P (R16)
            if a == KNOCK:
                knock(s, p)
            todo = T_END_TURN
    elif ph == PH_DRAW:
        err = draw(s, p, a == TAKE_DOWN, n, oya)
        todo = T_AFTER_TURN_DRAW if s.drawctx == 0 else T_PENALTY_NEXT
    elif ph == PH_FLIP:
        flip_zero(s, p, a, n)
        todo = T_PENALTY_NEXT
    else:                       # PH_KNOCK (R15o)
        if a == KNOCK:
            knock(s, p)
        todo = T_END_TURN
    if err:
        flags[F_ERROR] = 1
    advance(s, todo, cfg, rew, flags)


@njit(cache=True)
def mask_one(s, cfg, m):
    """The legal actions of the player to move in one game (the action table)."""
    m[:] = 0
    ph = s.phase
    p = s.cur
    if ph == PH_ACT:
        cnt = np.zeros(NUM_VALUES, np.int64)
        for c in range(NUM_CARDS):
            if s.loc[c] == p:
                cnt[_VAL[c, s.face[c]]] += 1
        for a in range(STRAIGHT, SET):
            x = straight_low(a)
            if cnt[x] > 0 and cnt[x + 1] > 0 and cnt[x + 2] > 0:
                m[a] = 1
        for v in range(NUM_VALUES):
            for k in range(1, min(cnt[v], MAX_SET) + 1):
                m[set_action(v, k)] = 1
        if s.knocker >= 0:
            m[PASS] = 1
        elif knock_open(s, cfg):
            m[KNOCK] = 1
    elif ph == PH_DRAW:
        m[TAKE_UP] = 1
        m[TAKE_DOWN] = 1
    elif ph == PH_FLIP:
        for c in range(NUM_CARDS):
            if s.loc[c] == p and _VAL[c, s.face[c]] == 0:
                back = 1 - s.face[c]
                if (s.seen[p, c] >> back) & 1:
                    m[flip_action(_VAL[c, back])] = 1
                else:
                    m[FLIP_UNKNOWN] = 1
    elif ph == PH_KNOCK:
        m[KNOCK] = 1
        m[PASS] = 1


# ---------------------------------------------------------------- one game's step (batch.py loops over games)
@njit(cache=True)
def step_one(s, a, cfg, rew, flg, mask):
    """One decision in one game: apply legal action a, truncate at max_steps (D6), autoreset, new mask."""
    if step_starts(s, rew, flg):
        apply_action(s, a, cfg, rew, flg)
        if step_ends(s, flg, flg[F_TERMINATED] == 0 and s.steps >= cfg[C_MAX_STEPS], PH_OVER, cfg[C_AUTORESET]):
            start_game(s, cfg, s.deck, s.deck_up, False, cfg[C_DEALER])
        mask_one(s, cfg, mask)


@njit(cache=True)
def play_random_one(s, g, auto, cfg, rewards, flags, mask, action_streams):
    """Game g (record s): random legal actions (rng.sample_legal on its action stream) while the player to
    move is marked in auto[g] and the episode goes on; rewards[g] sums their rewards, flags[g] ORs flags."""
    rew = np.zeros(rewards.shape[1], np.float32)
    flg = np.zeros(flags.shape[1], np.uint8)
    rewards[g, :] = 0.0
    flags[g, :] = 0
    while s.phase != PH_OVER and auto[g, s.cur]:
        step_one(s, rng.sample_legal(mask, action_streams, g), cfg, rew, flg, mask)
        rewards[g, :] += rew
        flags[g, :] |= flg
        if flg[F_TERMINATED] or flg[F_TRUNCATED]:
            break
