"""Legal-move features of Cabo: per legal action of the player to move, what the move does to its hand, from its
own view (VectorGame.action_features).

Only what the mover has seen this round enters (seen[p], the cards' public places, the discard top): a card it
has seen counts at its value (R2), one it has not at the mean value of the cards it has not seen this round.
Every value is scaled into [0, 1].
"""
import numpy as np
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import (CARD_RANKS, CARD_VALUES, DISCARD_DRAWN, DRAW_STOCK, JACK_SWAP, KNOCK, NUM_ACTIONS,
                    NUM_CARDS, NUM_SLOTS, PASS, PLACE, QUEEN_LOOK, SNAP, TAKE_DISCARD)

KINDS = ("draw_stock", "take_discard", "place", "discard_drawn", "queen_look", "jack_swap", "snap", "pass", "knock",
         "no_knock")
TOTAL_SCALE = 8 * 13.0      # a hand's total: 8 slots of at most 13


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of one move's feature row, in order (the same for every player count).
    "Value": R2's points of a card, / 13, expected (the mean of the cards I have not seen) where I have not seen
    it."""
    return [
        ("kind", 10, "one-hot kind of move: draw from the stock, take the discard, swap the drawn card into a slot, "
                     "discard the drawn card, Queen look, Jack exchange, snap, pass, knock, do not knock"),
        ("my_slot", 3, "the own slot the move uses (place, Queen, Jack, snap): (slot + 1) / 8, its value, 1 if I "
                       "know that card"),
        ("other_card", 3, "the card it brings (the drawn card for place and discard, the discard top for take, the "
                          "other slot's card for a Jack): its value, 1 if I know it, a Jack's (slot + 1) / 8"),
        ("jack_seat", 2, "a Jack: the other player's relative seat / 5, cards it holds / 8"),
        ("snap_match", 1, "a snap: the chance the card has the discard top's rank (R13; 1 or 0 when I know it)"),
        ("change", 1, "the expected change of my hand's points by the move, (change + 13) / 26"),
        ("hand_after", 2, f"my hand after the move: expected points / {TOTAL_SCALE:g}, cards I do not know / 8"),
    ]


PARTS = Parts("cabo", "action features", layout)
FEATURE_DIM = PARTS.size(2)
A_KIND, A_MINE, A_OTHER, A_SEAT, A_MATCH, A_CHANGE, A_AFTER = map(int, PARTS.starts(2))
_VAL = CARD_VALUES
_RANK = CARD_RANKS


@njit(cache=True)
def _value(s, p, c, mean):
    """(value / 13 as p knows it, 1 if p has seen card c)."""
    if s.seen[p, c]:
        return _VAL[c] / 13.0, 1.0
    return mean / 13.0, 0.0


@njit(cache=True)
def action_features_one(s, cfg, out):
    """out (NUM_ACTIONS, FEATURE_DIM): the features of each legal move of the player to move in record s (zero
    rows for the others; all zero once the game is over)."""
    out[:, :] = 0.0
    write_features(s, cfg, out)


@njit(cache=True)
def write_features(s, cfg, out):
    """action_features_one into an `out` that is already zero."""
    if s.phase == E.PH_OVER:
        return
    n = cfg[E.C_N]
    p = s.cur
    m = np.zeros(NUM_ACTIONS, np.uint8)
    E.mask_one(s, cfg, m)
    unseen = 0
    unseen_sum = 0.0
    for c in range(NUM_CARDS):
        if not s.seen[p, c]:
            unseen += 1
            unseen_sum += _VAL[c]
    mean = unseen_sum / unseen if unseen > 0 else 6.5
    total = 0.0          # my hand's points as I know them, / 13
    unknown = 0
    for i in range(NUM_SLOTS):
        c = s.slot[p, i]
        if c >= 0:
            v, known = _value(s, p, c, mean)
            total += v
            unknown += 1 - int(known)
    top = s.disc[s.ndisc - 1] if s.ndisc > 0 else -1
    for a in range(NUM_ACTIONS):
        if not m[a]:
            continue
        row = out[a]
        after = total
        unknown_after = float(unknown)
        if a == DRAW_STOCK or a == TAKE_DISCARD:
            row[A_KIND + a] = 1.0
            if a == TAKE_DISCARD:
                row[A_OTHER], row[A_OTHER + 1] = _value(s, p, top, mean)
        elif a <= DISCARD_DRAWN:
            row[A_KIND + (2 if a < DISCARD_DRAWN else 3)] = 1.0
            row[A_OTHER], row[A_OTHER + 1] = _value(s, p, s.drawn, mean)
            if a < DISCARD_DRAWN:
                i = a - PLACE
                v, known = _value(s, p, s.slot[p, i], mean)
                row[A_MINE], row[A_MINE + 1], row[A_MINE + 2] = (i + 1) / 8.0, v, known
                after = total - v + row[A_OTHER]
                unknown_after += known - row[A_OTHER + 1]
        elif a < JACK_SWAP:
            i = a - QUEEN_LOOK
            v, known = _value(s, p, s.slot[p, i], mean)
            row[A_KIND + 4] = 1.0
            row[A_MINE], row[A_MINE + 1], row[A_MINE + 2] = (i + 1) / 8.0, v, known
            unknown_after -= 1.0 - known
        elif a < SNAP:
            k = a - JACK_SWAP
            r = k // 64 + 1
            i = (k % 64) // 8
            j = k % 8
            q = (p + r) % n
            v, known = _value(s, p, s.slot[p, i], mean)
            w, wknown = _value(s, p, s.slot[q, j], mean)
            row[A_KIND + 5] = 1.0
            row[A_MINE], row[A_MINE + 1], row[A_MINE + 2] = (i + 1) / 8.0, v, known
            row[A_OTHER], row[A_OTHER + 1], row[A_OTHER + 2] = w, wknown, (j + 1) / 8.0
            row[A_SEAT], row[A_SEAT + 1] = r / 5.0, s.nhand[q] / 8.0
            after = total - v + w
            unknown_after += known - wknown
        elif a < PASS:
            i = a - SNAP
            c = s.slot[p, i]
            v, known = _value(s, p, c, mean)
            row[A_KIND + 6] = 1.0
            row[A_MINE], row[A_MINE + 1], row[A_MINE + 2] = (i + 1) / 8.0, v, known
            match = 0.0
            if known:
                match = 1.0 if _RANK[c] == _RANK[top] else 0.0
            elif unseen > 0:
                for d in range(NUM_CARDS):
                    if not s.seen[p, d] and _RANK[d] == _RANK[top]:
                        match += 1.0
                match /= unseen
            row[A_MATCH] = match
            # a match leaves the hand; a miss shows the card to everyone and adds an unseen penalty card (R16)
            after = total - match * v + (1.0 - match) * mean / 13.0
            unknown_after += (1.0 - match) - (1.0 - known)
        else:
            row[A_KIND + (7 if a == PASS else 8 if a == KNOCK else 9)] = 1.0
        row[A_CHANGE] = min(max(((after - total) * 13.0 + 13.0) / 26.0, 0.0), 1.0)
        row[A_AFTER] = min(after * 13.0 / TOTAL_SCALE, 1.0)
        row[A_AFTER + 1] = min(max(unknown_after, 0.0) / 8.0, 1.0)


@njit(cache=True)
def action_features_kernel(states, games, cfg, out):
    """out[i]: action_features_one of game games[i] (out all zero on entry)."""
    for i in range(games.shape[0]):
        write_features(states[games[i]], cfg, out[i])


@njit(cache=True, parallel=True)
def action_features_kernel_parallel(states, games, cfg, out):
    for i in prange(games.shape[0]):
        write_features(states[games[i]], cfg, out[i])
