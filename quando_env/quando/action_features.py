"""Legal-move features of Quando: per legal action of the player to move, what that move does to its hand, from
its own view (VectorGame.action_features; a network that scores each legal move reads them).

Only what the mover has seen enters: its own fronts and the backs it knows, the draw pile's visible side (and
the hidden one if it has seen it), and how many sides showing each number it has never seen (the observation's
`unseen` and `known_cards`). A side the mover has not seen is counted by its expectation over those sides,
weighted as the observation allows (every unseen side showing v alike, except on a card it knows completely).
Every value is scaled into [0, 1] (a count beyond its scale is capped).
"""
import numpy as np
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import (CARD_VALUES, FLIP_UNKNOWN, KNOCK, NUM_ACTIONS, NUM_CARDS, PAIR_TO_CARD, PASS, TAKE_DOWN, TAKE_UP,
                    flip_back, is_straight, set_count, set_value, straight_low)

_VAL = CARD_VALUES
_PAIR = PAIR_TO_CARD

# Scales: a value x is written as min(x / scale, 1).
CARDS_SCALE = 20.0      # cards in a hand
SUM_SCALE = 60.0        # a hand's front sum
COUNT_SCALE = 5.0       # cards showing one number
REMOVE_SCALE = 30.0     # points one straight or set removes

KINDS = ("straight", "set", "knock", "pass", "take_up", "take_down", "flip_unseen", "flip_known")
K_STRAIGHT, K_SET, K_KNOCK, K_PASS, K_UP, K_DOWN, K_FLIP_UNSEEN, K_FLIP_KNOWN = range(8)


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of one move's feature row, in order (the same for every player
    count). "The hand it leaves": after a discard, the hand without the cards; after a draw or flip, with the
    new front (expected when it is a side the mover has not seen); for knock and pass, the hand as it is."""
    return [
        ("kind", 8, "one-hot kind of move: straight, set, knock, pass (or do not knock), take the visible side, "
                    "take the hidden side, flip a 0 whose back I have not seen, flip a 0 whose back I know"),
        ("removed", 3, f"a discard: cards removed / 10, points removed / {REMOVE_SCALE:g}, 1 if a set of exactly 3 "
                       "(R12: every other player is penalised)"),
        ("gain", 2, "a draw or flip: the new front / 10 (the hidden side or an unseen back: its expectation), "
                    "1 if I know that value"),
        ("hand_size", 1, f"cards in the hand it leaves / {CARDS_SCALE:g}"),
        ("hand_sum", 1, f"front sum of the hand it leaves / {SUM_SCALE:g} (expected)"),
        ("zeros_held", 1, f"front zeros in the hand it leaves / {COUNT_SCALE:g} (expected; each can be flipped in "
                          "a triplet penalty instead of drawing, R12)"),
        ("next_removal", 2, f"the hand it leaves: most points one straight or set removes / {REMOVE_SCALE:g}, and "
                            "1 if it holds a set of 3 (expected)"),
        ("only_zeros", 1, "1 if the hand it leaves shows only zeros (R14; a probability when expected)"),
        ("after_draw", 6, f"a discard, then this turn's draw (R9): taking the visible side, then the hidden side "
                          f"(expected): hand sum / {SUM_SCALE:g}, most points one straight or set then removes / "
                          f"{REMOVE_SCALE:g}, probability of showing only zeros (R14)"),
        ("opponents", 2, "knock or pass: fewest cards an opponent holds / 10, mean cards the opponents hold / 10"),
    ]


PARTS = Parts("quando", "action features", layout)
FEATURE_DIM = PARTS.size(2)
(A_KIND, A_REMOVED, A_GAIN, A_SIZE, A_SUM, A_ZHELD, A_NEXT, A_ZEROS, A_AFTER, A_OPP) = map(int, PARTS.starts(2))


@njit(cache=True)
def _cap(x, scale):
    return min(x / scale, 1.0)


@njit(cache=True)
def best_removal(cnt, lowest=0):
    """(most points one straight or set removes from a hand of these front counts, 1 if it holds a set of 3);
    sets of fronts below `lowest` are not counted (the Quando heuristic counts no set of 0s)."""
    best = 0
    trip = 0
    for v in range(lowest, 11):
        if cnt[v] > 0:
            best = max(best, v * cnt[v])
            if cnt[v] >= 3:
                trip = 1
    for x in range(9):
        if cnt[x] > 0 and cnt[x + 1] > 0 and cnt[x + 2] > 0:
            best = max(best, 3 * x + 3)
    return best, trip


@njit(cache=True)
def best_plus(cnt, v, best, trip):
    """best_removal of `cnt` with one more front v, given (best, trip) = best_removal(cnt): only the set of v and
    the straights through v can change."""
    k = cnt[v] + 1
    b = max(best, v * k)
    t = 1 if trip == 1 or k >= 3 else 0
    for x in range(max(v - 2, 0), min(v, 8) + 1):
        if (cnt[x] > 0 or x == v) and (cnt[x + 1] > 0 or x + 1 == v) and (cnt[x + 2] > 0 or x + 2 == v):
            b = max(b, 3 * x + 3)
    return b, t


@njit(cache=True)
def unseen_side(s, p, w, out):
    """out[v]: the chance that the side of a card whose seen side is w that p has not seen shows v: every side
    showing v that p has never seen alike, none on a card {w, v} p knows completely (uniform if none is left)."""
    unseen = np.full(11, 10.0)
    for c in range(NUM_CARDS):
        for side in range(2):
            if (s.seen[p, c] >> side) & 1:
                unseen[_VAL[c, side]] -= 1.0
    tot = 0.0
    for v in range(11):
        out[v] = 0.0 if v == w or s.seen[p, _PAIR[w, v]] == 3 else unseen[v]
        tot += out[v]
    for v in range(11):
        out[v] = (0.0 if v == w else 1.0 / 10.0) if tot <= 0.0 else out[v] / tot


@njit(cache=True)
def _hand(cnt, prob, row, size):
    """The expected (new front, best removal, set-of-3 chance, only-zeros chance) of `cnt` (`size` cards) plus one
    front drawn from `prob`."""
    ev = 0.0
    rem = 0.0
    trip = 0.0
    zeros = 0.0
    b0, t0 = best_removal(cnt)
    for v in range(11):
        if prob[v] > 0.0:
            ev += prob[v] * v
            b, t = best_plus(cnt, v, b0, t0)
            rem += prob[v] * b
            trip += prob[v] * t
            if v == 0 and cnt[0] == size:
                zeros += prob[v]
    return ev, rem, trip, zeros


@njit(cache=True)
def _size_total(cnt):
    """(cards, front sum) of a hand of these front counts."""
    size = 0
    total = 0
    for v in range(11):
        size += cnt[v]
        total += v * cnt[v]
    return size, total


@njit(cache=True)
def _write_hand(cnt, prob, new, row):
    """The hand it leaves: `cnt` (front counts) plus, if `new`, one front drawn from prob."""
    size, total = _size_total(cnt)
    if new:
        ev, rem, trip, zeros = _hand(cnt, prob, row, size)
        size += 1
        hsum = total + ev
    else:
        b, t = best_removal(cnt)
        rem, trip, hsum = float(b), float(t), float(total)
        zeros = 1.0 if cnt[0] == size else 0.0
    row[A_ZHELD] = _cap(cnt[0] + (prob[0] if new else 0.0), COUNT_SCALE)
    row[A_SIZE] = _cap(size, CARDS_SCALE)
    row[A_SUM] = _cap(hsum, SUM_SCALE)
    row[A_NEXT] = _cap(rem, REMOVE_SCALE)
    row[A_NEXT + 1] = trip
    row[A_ZEROS] = zeros


@njit(cache=True)
def _after_draw(cnt, up, pdown, row):
    """A discard's row: the hand left, then the turn's draw of the visible side `up` or the hidden one."""
    size, total = _size_total(cnt)
    b0, t0 = best_removal(cnt)
    for k in range(2):
        hsum = 0.0
        rem = 0.0
        zeros = 0.0
        for v in range(11):
            pr = (1.0 if v == up else 0.0) if k == 0 else pdown[v]
            if pr > 0.0:
                b, _ = best_plus(cnt, v, b0, t0)
                hsum += pr * (total + v)
                rem += pr * b
                if cnt[0] == size and v == 0:
                    zeros += pr
        row[A_AFTER + 3 * k] = _cap(hsum, SUM_SCALE)
        row[A_AFTER + 3 * k + 1] = _cap(rem, REMOVE_SCALE)
        row[A_AFTER + 3 * k + 2] = zeros


@njit(cache=True)
def action_features_one(s, cfg, out):
    """out (NUM_ACTIONS, FEATURE_DIM): the features of each legal move of the player to move in record s (zero
    rows for the others; all zero once the game is over)."""
    out[:, :] = 0.0
    write_features(s, cfg, out)


@njit(cache=True)
def write_features(s, cfg, out):
    """action_features_one into an `out` that is already zero (the batch kernels' np.zeros: pages of rows that
    stay zero are never written)."""
    if s.phase == E.PH_OVER:
        return
    n = cfg[E.C_N]
    p = s.cur
    m = np.zeros(NUM_ACTIONS, np.uint8)
    E.mask_one(s, cfg, m)
    cnt = np.zeros(11, np.int64)
    for c in range(NUM_CARDS):
        if s.loc[c] == p:
            cnt[_VAL[c, s.face[c]]] += 1
    # The draw pile's top: its visible side, and the hidden one (known, or its chances).
    up = -1
    pdown = np.zeros(11)
    down_known = False
    if s.ndraw > 0:
        top = s.draw[s.ndraw - 1]
        up = _VAL[top, s.face[top]]
        if (s.seen[p, top] >> (1 - s.face[top])) & 1:
            down_known = True
            pdown[_VAL[top, 1 - s.face[top]]] = 1.0
        else:
            unseen_side(s, p, up, pdown)
    point = np.zeros(11)
    if s.phase == E.PH_ACT:
        for a in range(KNOCK):
            if not m[a]:
                continue
            row = out[a]
            x = straight_low(a)         # (a straight's; for a set, unused)
            if is_straight(a):
                row[A_KIND + K_STRAIGHT] = 1.0
                for v in range(x, x + 3):
                    cnt[v] -= 1
                k = 3
                pts = 3 * x + 3
            else:
                row[A_KIND + K_SET] = 1.0
                v0 = set_value(a)
                k = set_count(a)
                cnt[v0] -= k
                pts = v0 * k
                row[A_REMOVED + 2] = 1.0 if k == 3 else 0.0
            row[A_REMOVED] = k / 10.0
            row[A_REMOVED + 1] = _cap(pts, REMOVE_SCALE)
            _write_hand(cnt, point, False, row)
            if up >= 0:
                _after_draw(cnt, up, pdown, row)
            if is_straight(a):
                for v in range(x, x + 3):
                    cnt[v] += 1
            else:
                cnt[v0] += k
    if m[KNOCK] or m[PASS]:
        fewest = 1e9
        held = 0.0
        for q in range(n):
            if q != p:
                fewest = min(fewest, s.nhand[q])
                held += s.nhand[q]
        for a in (KNOCK, PASS):
            if m[a]:
                row = out[a]
                row[A_KIND + (K_KNOCK if a == KNOCK else K_PASS)] = 1.0
                _write_hand(cnt, point, False, row)
                row[A_OPP] = _cap(fewest, 10.0)
                row[A_OPP + 1] = _cap(held / (n - 1), 10.0)
    if s.phase == E.PH_DRAW:
        for a in (TAKE_UP, TAKE_DOWN):
            row = out[a]
            if a == TAKE_UP:
                point[:] = 0.0
                point[up] = 1.0
                row[A_KIND + K_UP] = 1.0
                row[A_GAIN] = up / 10.0
                row[A_GAIN + 1] = 1.0
                _write_hand(cnt, point, True, row)
            else:
                row[A_KIND + K_DOWN] = 1.0
                ev = 0.0
                for v in range(11):
                    ev += pdown[v] * v
                row[A_GAIN] = ev / 10.0
                row[A_GAIN + 1] = 1.0 if down_known else 0.0
                _write_hand(cnt, pdown, True, row)
    if s.phase == E.PH_FLIP:
        cnt[0] -= 1      # the flipped 0 becomes its back
        for a in range(FLIP_UNKNOWN, NUM_ACTIONS):
            if not m[a]:
                continue
            row = out[a]
            point[:] = 0.0
            if a == FLIP_UNKNOWN:
                unseen_side(s, p, 0, point)
                row[A_KIND + K_FLIP_UNSEEN] = 1.0
            else:
                point[flip_back(a)] = 1.0
                row[A_KIND + K_FLIP_KNOWN] = 1.0
                row[A_GAIN + 1] = 1.0
            ev = 0.0
            for v in range(11):
                ev += point[v] * v
            row[A_GAIN] = ev / 10.0
            _write_hand(cnt, point, True, row)
        cnt[0] += 1


@njit(cache=True)
def action_features_kernel(states, games, cfg, out):
    """out[i]: action_features_one of game games[i] (out all zero on entry)."""
    for i in range(games.shape[0]):
        write_features(states[games[i]], cfg, out[i])


@njit(cache=True, parallel=True)
def action_features_kernel_parallel(states, games, cfg, out):
    for i in prange(games.shape[0]):
        write_features(states[games[i]], cfg, out[i])
