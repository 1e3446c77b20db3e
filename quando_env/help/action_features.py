"""Legal-move features of Help!: per legal action of the seat that decides, what the move does to the row, to its
hand and to the next player, from its own view (VectorGame.action_features).

A failed help scores for everybody but the asker and the helper (R20a), so what a move is worth lies mostly in
the row it leaves: whether the next player can play on it, and if not whether it asks me and I can give.
Only what the mover knows enters (K1, K2): its own hand, the row, the discard pile, the No!s in front, hand
sizes, the direction and the help under way. Cards it cannot see (other hands, the draw pile, its refill) are
counted by their expectation over the cards it has not seen: 105 less its hand, the row, the discard pile and
the No!s in front, each hand a uniform draw from them. Every value is scaled into [0, 1] (capped).
"""
import numpy as np
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import (ASK, GIVE, GIVE_BACK, K_NO, K_SWITCH, K_WILD, K_ZAP, KIND_COUNTS, NO, NUM_ACTIONS, NUM_KINDS,
                    ROW_CAP, SWITCH, WILD, ZAP)

KINDS = ("number", "wild", "switch", "zap", "no", "ask", "give", "give_back")
M_NUMBER, M_WILD, M_SWITCH, M_ZAP, M_NO, M_ASK, M_GIVE, M_BACK = range(8)


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of one move's feature row, in order (the same for every player count).
    "The next player": the seat that moves after this turn (after the asker's play for a gift; fresh No!s are
    skipped, R8), its hand a uniform draw from the cards I have not seen."""
    return [
        ("kind", 8, "one-hot kind of move: play a number, a Wild, a Switch, a Zap, a No!, ask for help (R16), give "
                    "(the helper, R17), give back (R18)"),
        ("card", 5, "the cards that leave my hand: the number's value / 11 (played, put in by a Switch, given or "
                    "given back), then 1 for a Wild, a Switch, a Zap, a No!"),
        ("placed", 3, "a card going into the row (my play, or a gift as the asker plays it: a number at the end, a "
                      "Wild at the end when it fits there): the value it takes / 11, how far above the card on its "
                      "left (value - left - 1) / 10 (0: it fills the next value), 1 if it is my lowest number that "
                      "fits there"),
        ("taken", 2, "a Switch: the row card it takes into my hand, its value / 11 and 1 if a Wild"),
        ("row_after", 2, "the row after the move (a gift: after the asker plays it): its last value / 11 and its "
                         "cards / 6 (both 0 when the move completes the row, R7)"),
        ("kept", 4, "my hand after the move, before my refill (give back: without the gift I must play): its "
                    "numbers' sum / (11 hand_size), highest number / 11, special cards / hand_size, cards playable "
                    "on the row after / hand_size"),
        ("next", 4, "play or give: the probability the next player holds no play on the row after and asks for "
                    "help (R9); that probability when it would ask me; when it would find no helper (R20b: it "
                    "scores alone); and the probability it asks me and I hold nothing givable even after my refill "
                    "(R20a: the others score)"),
        ("ask", 2, "ask for help: 1 if no seat can help (R20b: I score alone), else the probability the helper holds "
                   "nothing givable (R20a: the others score)"),
    ]


PARTS = Parts("help", "action features", layout)
FEATURE_DIM = PARTS.size(3)
A_KIND, A_CARD, A_PLACED, A_TAKEN, A_ROW, A_KEPT, A_NEXT, A_ASK = map(int, PARTS.starts(3))


# ---------------------------------------------------------------- a row as values (vals[:nr]) left to right
@njit(cache=True)
def _wild_fits(vals, nr):
    """R11: a Wild has some slot on this row (a gap of two values, or room above the last)."""
    prev = 0
    for j in range(nr):
        if vals[j] - prev >= 2:
            return True
        prev = vals[j]
    return prev <= 10


@njit(cache=True)
def _append(vals, nr, v, row_max):
    """The row's length after putting the value v at the end (0 once it is complete, R7)."""
    vals[nr] = v
    return 0 if nr + 1 == row_max else nr + 1


@njit(cache=True)
def _insert(vals, nr, slot, w, row_max):
    """The row's length after inserting the value w before slot (R11)."""
    for j in range(nr, slot, -1):
        vals[j] = vals[j - 1]
    vals[slot] = w
    return 0 if nr + 1 == row_max else nr + 1


@njit(cache=True)
def _stuck_kinds(unseen, vals, nr):
    """How many of the cards I have not seen would be no play on this row (R10-R14 judged on the row: numbers up
    to the last value, a Wild without a slot, a Switch or Zap on an empty row)."""
    last = vals[nr - 1] if nr > 0 else 0
    c = 0
    for k in range(last):
        c += unseen[k]
    if not _wild_fits(vals, nr):
        c += unseen[K_WILD]
    if nr == 0:
        c += unseen[K_SWITCH] + unseen[K_ZAP]
    return c


@njit(cache=True)
def _all_among(a, u, k):
    """The probability that k cards drawn from u unseen cards all come from a given a of them."""
    r = 1.0
    for i in range(k):
        if u - i <= 0:
            break
        r *= max(a - i, 0) / (u - i)
    return r


@njit(cache=True)
def _write_kept(cnt, vals, nr, hs, row):
    """The kept part for my hand cnt (by kind) on the row vals[:nr]; returns how many of its cards are playable."""
    last = vals[nr - 1] if nr > 0 else 0
    total = 0
    top = 0
    playable = 0
    for k in range(11):
        if cnt[k] > 0:
            total += cnt[k] * (k + 1)
            top = k + 1
            if k + 1 > last:
                playable += cnt[k]
    specials = cnt[K_WILD] + cnt[K_SWITCH] + cnt[K_ZAP] + cnt[K_NO]
    playable += cnt[K_NO]
    if _wild_fits(vals, nr):
        playable += cnt[K_WILD]
    if nr > 0:
        playable += cnt[K_SWITCH] + cnt[K_ZAP]
    row[A_KEPT] = min(total / (11.0 * hs), 1.0)
    row[A_KEPT + 1] = top / 11.0
    row[A_KEPT + 2] = min(specials / hs, 1.0)
    row[A_KEPT + 3] = min(playable / hs, 1.0)
    return playable


@njit(cache=True)
def _lowest_fit(cnt, left, v):
    """1.0 if I hold no number above `left` below v (v is my lowest number that fits after `left`)."""
    for u in range(left + 1, v):
        if cnt[u - 1] > 0:
            return 0.0
    return 1.0


@njit(cache=True)
def _write_next(s, cfg, p, actor, no, unseen, u, vals, nr, playable, kept, row):
    """The next part: the turn of `actor` ends on the row vals[:nr] with the No!s `no` in front; p is the mover."""
    n = cfg[E.C_N]
    d = s.dir
    q = (actor + d) % n
    for i in range(1, n + 1):
        c = (actor + i * d) % n
        if no[c] != E.NO_FRESH:
            q = c
            break
    a = _stuck_kinds(unseen, vals, nr)
    draws = max(cfg[E.C_HAND] - kept, 0) if actor == p else 0
    if q == p:                      # every other seat skips: my own hand comes back to me
        row[A_NEXT] = 0.0 if playable > 0 else _all_among(a, u, draws)
        return
    hq = cfg[E.C_HAND] if q == actor else E.hand_size(s, q)
    stuck = _all_among(a, u, hq)
    helper = -1
    for i in range(1, n):
        c = (q - i * d) % n
        if no[c] == E.NO_NONE:
            helper = c
            break
    row[A_NEXT] = stuck
    if helper == p:
        row[A_NEXT + 1] = stuck
        if playable == 0:
            row[A_NEXT + 3] = _all_among(a, u, hq + draws)
    elif helper < 0:
        row[A_NEXT + 2] = stuck


# write_features' scratch: the mask, the unseen cards, my hand, the row and the No!s as they are, then after a move
_SIZES = (NUM_ACTIONS, NUM_KINDS, NUM_KINDS, ROW_CAP + 1, 5, NUM_KINDS, ROW_CAP + 1, 5)
_M, _UNSEEN, _HAND, _ROW, _NOS, _CNT, _VALS, _NO, WORK_SIZE = np.concatenate(([0], np.cumsum(_SIZES))).tolist()


@njit(cache=True)
def action_features_one(s, cfg, out):
    """out (NUM_ACTIONS, FEATURE_DIM): the features of each legal move of the seat that decides in record s (zero
    rows for the others; all zero once the game is over)."""
    out[:, :] = 0.0
    write_features(s, cfg, out, np.empty(WORK_SIZE, np.int64))


@njit(cache=True)
def write_features(s, cfg, out, work):
    """action_features_one into an `out` that is already zero (work: WORK_SIZE int64 of scratch)."""
    if s.phase == E.PH_OVER:
        return
    n = cfg[E.C_N]
    hs = cfg[E.C_HAND]
    row_max = cfg[E.C_ROWMAX]
    p = s.cur
    m = work[_M:_UNSEEN]
    E.mask_one(s, cfg, m)
    unseen = work[_UNSEEN:_HAND]          # the cards I have not seen, by kind
    hand = work[_HAND:_ROW]
    row_vals = work[_ROW:_NOS]
    nos = work[_NOS:_CNT]
    for k in range(NUM_KINDS):
        hand[k] = s.hand[p, k]
        unseen[k] = KIND_COUNTS[k] - hand[k]
    for j in range(s.nrow):
        row_vals[j] = s.row_val[j]
        unseen[s.row_kind[j]] -= 1
    for j in range(s.ndisc):
        unseen[s.disc[j]] -= 1
    for q in range(n):
        nos[q] = s.no[q]
        if nos[q] != E.NO_NONE:
            unseen[K_NO] -= 1
    u = 0
    for k in range(NUM_KINDS):
        u += unseen[k]
    cnt = work[_CNT:_VALS]
    vals = work[_VALS:_NO]
    no = work[_NO:_NO + n]
    last = row_vals[s.nrow - 1] if s.nrow > 0 else 0
    for a in range(NUM_ACTIONS):
        if not m[a]:
            continue
        row = out[a]
        for k in range(NUM_KINDS):
            cnt[k] = hand[k]
        for j in range(s.nrow):
            vals[j] = row_vals[j]
        nr = s.nrow
        for q in range(n):
            no[q] = nos[q]
        actor = p                    # whose turn ends with this move (-1: the move ends no turn yet)
        if a < WILD:                                           # a number at the end (R10)
            v = a + 1
            row[A_KIND + M_NUMBER] = 1.0
            row[A_CARD] = v / 11.0
            row[A_PLACED], row[A_PLACED + 1] = v / 11.0, (v - last - 1) / 10.0
            row[A_PLACED + 2] = _lowest_fit(cnt, last, v)
            cnt[v - 1] -= 1
            nr = _append(vals, nr, v, row_max)
        elif a < SWITCH:                                       # a Wild at a slot (R11)
            slot = a - WILD
            w = 1 if slot == 0 else vals[slot - 1] + 1
            row[A_KIND + M_WILD] = 1.0
            row[A_CARD + 1] = 1.0
            row[A_PLACED] = w / 11.0
            cnt[K_WILD] -= 1
            nr = _insert(vals, nr, slot, w, row_max)
        elif a < ZAP:                                          # a Switch: take a slot, put v (R12)
            slot = (a - SWITCH) // 11
            v = (a - SWITCH) % 11 + 1
            left = vals[slot - 1] if slot > 0 else 0
            taken = s.row_kind[slot]
            row[A_KIND + M_SWITCH] = 1.0
            row[A_CARD], row[A_CARD + 2] = v / 11.0, 1.0
            row[A_PLACED], row[A_PLACED + 1] = v / 11.0, (v - left - 1) / 10.0
            row[A_PLACED + 2] = _lowest_fit(cnt, left, v)
            row[A_TAKEN], row[A_TAKEN + 1] = vals[slot] / 11.0, 1.0 if taken == K_WILD else 0.0
            cnt[K_SWITCH] -= 1
            cnt[v - 1] -= 1
            cnt[taken] += 1
            vals[slot] = v
        elif a == ZAP:                                         # R13
            row[A_KIND + M_ZAP] = 1.0
            row[A_CARD + 3] = 1.0
            cnt[K_ZAP] -= 1
            nr -= 1
        elif a == NO:                                          # R14
            row[A_KIND + M_NO] = 1.0
            row[A_CARD + 4] = 1.0
            cnt[K_NO] -= 1
            no[p] = E.NO_FRESH
        elif a == ASK:                                         # R16
            actor = -1
            row[A_KIND + M_ASK] = 1.0
            h = E.find_helper(s, p, n)
            if h < 0:
                row[A_ASK] = 1.0
            else:
                row[A_ASK + 1] = _all_among(_stuck_kinds(unseen, vals, nr), u, E.hand_size(s, h))
        elif a < GIVE_BACK:                                    # the helper gives kind k; the asker plays it (R17, R19)
            k = a - GIVE
            actor = s.active
            row[A_KIND + M_GIVE] = 1.0
            if k < K_WILD:
                row[A_CARD] = (k + 1) / 11.0
                row[A_PLACED], row[A_PLACED + 1] = (k + 1) / 11.0, (k - last) / 10.0
                nr = _append(vals, nr, k + 1, row_max)
            else:
                row[A_CARD + k - K_WILD + 1] = 1.0
                if k == K_WILD:
                    slot = nr
                    if last == 11:                             # no room at the end: the first gap
                        slot = 0
                        while not (vals[slot] - (vals[slot - 1] if slot > 0 else 0) >= 2):
                            slot += 1
                    w = 1 if slot == 0 else vals[slot - 1] + 1
                    row[A_PLACED] = w / 11.0
                    nr = _insert(vals, nr, slot, w, row_max)
                elif k == K_ZAP:
                    nr -= 1
                elif k == K_NO:
                    no[actor] = E.NO_FRESH
            cnt[k] -= 1
        else:                                                  # the asker gives back kind k, then plays the gift
            k = a - GIVE_BACK
            actor = -1
            row[A_KIND + M_BACK] = 1.0
            if k < K_WILD:
                row[A_CARD] = (k + 1) / 11.0
            else:
                row[A_CARD + k - K_WILD + 1] = 1.0
            cnt[k] -= 1
            cnt[s.given] -= 1
        kept = 0
        for k in range(NUM_KINDS):
            kept += cnt[k]
        playable = _write_kept(cnt, vals, nr, hs, row)
        if actor >= 0:
            row[A_ROW] = vals[nr - 1] / 11.0 if nr > 0 else 0.0
            row[A_ROW + 1] = nr / 6.0
            _write_next(s, cfg, p, actor, no, unseen, u, vals, nr, playable, kept, row)


@njit(cache=True)
def action_features_kernel(states, games, cfg, out):
    """out[i]: action_features_one of game games[i] (out all zero on entry)."""
    work = np.empty(WORK_SIZE, np.int64)
    for i in range(games.shape[0]):
        write_features(states[games[i]], cfg, out[i], work)


@njit(cache=True, parallel=True)
def action_features_kernel_parallel(states, games, cfg, out):
    for i in prange(games.shape[0]):
        write_features(states[games[i]], cfg, out[i], np.empty(WORK_SIZE, np.int64))
