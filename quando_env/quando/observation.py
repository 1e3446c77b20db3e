"""What one player observes: a flat float32 vector built only from the sides that player has seen
(K1-K4, perfect recall) and public facts. Seats are relative: 0 is the observer, r is r seats clockwise.

Nothing is indexed or ordered by card id: hands are counted by seen values, piles are listed by position,
and only cards whose both sides the observer has seen appear under their number pair.
"""
import numpy as np
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import CARD_VALUES, NUM_CARDS

_VAL = CARD_VALUES


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each section of the observation, in order."""
    n = num_players
    return [
        ("phase", 5, "one-hot decision kind: act (A/B/K/P), draw (R9), flip (R12), knock-or-not (oya R15o), over"),
        ("to_move", 1, "1 if the observer decides now"),
        ("active", n, "one-hot relative seat whose turn it is"),
        ("decider", n, "one-hot relative seat that decides now (a penalised player during a triplet penalty)"),
        ("penalty", 1, "1 while a triplet penalty (R12) is carried out"),
        ("triplet", 1, "1 if this turn's action was a set of exactly 3 (a penalty follows or is under way)"),
        ("knock_allowed", 1, "1 if knocking is open: kendi R15 condition met and nobody knocked / oya knock decision"),
        ("knocked", 1, "1 in the last round after a knock (R16)"),
        ("knocker", n, "one-hot relative seat of the knocker"),
        ("dealer", n, "one-hot relative seat of the dealer"),
        ("turns", n, "A/B turns completed this round per relative seat, / 10 (R15)"),
        ("totals", n, "game totals per relative seat, / target score"),
        ("round", 1, "rounds finished in this episode, / 10"),
        ("hand_sizes", n, "cards held per relative seat, / 10"),
        ("own_hand", 132, "counts of own cards by front v (11 rows) x back known to me (0..10, column 11 = not seen)"),
        ("opponents", (n - 1) * 132,
         "per opponent clockwise from my left: counts by back v (11 rows) x front known to me (0..10, 11 = not seen)"),
        ("draw_size", 1, "cards in the draw pile / 55"),
        ("discard_size", 1, "cards in the discard pile / 55"),
        ("draw_top", 22, "one-hot up side of the draw pile's top (K2); one-hot down side if I have seen it"),
        ("draw_pile", 110, "per draw-pile position from the top: (up+1)/11 and (down+1)/11 where seen by me, else 0"),
        ("discard_pile", 110, "per discard-pile position from the top: (up+1)/11 (public) and (down+1)/11 if seen"),
        ("unseen", 11, "per number v: sides showing v that I have never seen, / 10"),
        ("known_cards", 55 * (n + 2),
         "per number pair (a<b, in order 0-1, 0-2, ..., 9-10), if I have seen both sides of that card: one-hot where "
         "it is (me, opponent 1..n-1, draw pile, discard pile)"),
    ]


# offsets(n): section -> (start, stop); obs_dim(n): the vector's length; offset_vector(n): section starts.
PARTS = Parts("quando", "observation", layout)
offsets, obs_dim, offset_vector = PARTS.offsets, PARTS.size, PARTS.starts


# Section index constants into offset_vector, found by part name in the layout.
(O_PHASE, O_TOMOVE, O_ACTIVE, O_DECIDER, O_PENALTY, O_TRIPLET, O_KALLOWED, O_KNOCKED, O_KNOCKER, O_DEALER, O_TURNS,
 O_TOTALS, O_ROUND, O_HANDS, O_OWN, O_OPP, O_DSIZE, O_XSIZE, O_TOP, O_DRAWPILE, O_DISCPILE, O_UNSEEN, O_KNOWN) = \
    PARTS.indices(
        "phase", "to_move", "active", "decider", "penalty", "triplet", "knock_allowed", "knocked", "knocker", "dealer",
        "turns", "totals", "round", "hand_sizes", "own_hand", "opponents", "draw_size", "discard_size", "draw_top",
        "draw_pile", "discard_pile", "unseen", "known_cards")


@njit(cache=True)
def observe_one(s, p, cfg, o):
    """Write seat p's observation of game record s into o."""
    n = cfg[E.C_N]
    off = cfg[E.CFG_SIZE:]
    o[:] = 0.0
    o[off[O_PHASE] + s.phase] = 1.0
    if s.cur == p:
        o[off[O_TOMOVE]] = 1.0
    if s.phase != E.PH_OVER:
        o[off[O_ACTIVE] + (s.active - p) % n] = 1.0
        o[off[O_DECIDER] + (s.cur - p) % n] = 1.0
        if s.pen_left > 0 or (s.phase == E.PH_FLIP) or (s.phase == E.PH_DRAW and s.drawctx == 1):
            o[off[O_PENALTY]] = 1.0
        o[off[O_TRIPLET]] = s.triplet
        if s.phase == E.PH_KNOCK or E.knock_open(s, cfg):
            o[off[O_KALLOWED]] = 1.0
    if s.knocker >= 0:
        o[off[O_KNOCKED]] = 1.0
        o[off[O_KNOCKER] + (s.knocker - p) % n] = 1.0
    o[off[O_DEALER] + (s.dealer - p) % n] = 1.0
    for q in range(n):
        r = (q - p) % n
        o[off[O_TURNS] + r] = s.turns[q] / 10.0
        o[off[O_TOTALS] + r] = s.total[q] / cfg[E.C_TARGET]
        o[off[O_HANDS] + r] = s.nhand[q] / 10.0
    o[off[O_ROUND]] = s.round / 10.0
    # Hands: my fronts with the backs I know; opponents' backs with the fronts I know (K1).
    for c in range(NUM_CARDS):
        q = s.loc[c]
        if q >= n:
            continue
        f = s.face[c]
        if q == p:
            back = 1 - f
            col = _VAL[c, back] if (s.seen[p, c] >> back) & 1 else 11
            o[off[O_OWN] + _VAL[c, f] * 12 + col] += 1.0
        else:
            r = (q - p) % n
            col = _VAL[c, f] if (s.seen[p, c] >> f) & 1 else 11
            o[off[O_OPP] + (r - 1) * 132 + _VAL[c, 1 - f] * 12 + col] += 1.0
    o[off[O_DSIZE]] = s.ndraw / 55.0
    o[off[O_XSIZE]] = s.ndisc / 55.0
    # Piles by position from the top: the sides I have seen (K2, K3, perfect recall).
    for j in range(s.ndraw):
        c = s.draw[s.ndraw - 1 - j]
        up = s.face[c]
        sn = s.seen[p, c]
        if (sn >> up) & 1:
            o[off[O_DRAWPILE] + 2 * j] = (_VAL[c, up] + 1) / 11.0
            if j == 0:
                o[off[O_TOP] + _VAL[c, up]] = 1.0
        if (sn >> (1 - up)) & 1:
            o[off[O_DRAWPILE] + 2 * j + 1] = (_VAL[c, 1 - up] + 1) / 11.0
            if j == 0:
                o[off[O_TOP] + 11 + _VAL[c, 1 - up]] = 1.0
    for j in range(s.ndisc):
        c = s.disc[s.ndisc - 1 - j]
        up = s.face[c]
        o[off[O_DISCPILE] + 2 * j] = (_VAL[c, up] + 1) / 11.0
        if (s.seen[p, c] >> (1 - up)) & 1:
            o[off[O_DISCPILE] + 2 * j + 1] = (_VAL[c, 1 - up] + 1) / 11.0
    # Unseen sides per number, and the cards I know completely with where they are.
    unseen = np.full(11, 10, np.int64)
    for c in range(NUM_CARDS):
        sn = s.seen[p, c]
        for side in range(2):
            if (sn >> side) & 1:
                unseen[_VAL[c, side]] -= 1
        if sn == 3:
            q = s.loc[c]
            where = (q - p) % n if q < n else (n if q == E.LOC_DRAW else n + 1)
            o[off[O_KNOWN] + c * (n + 2) + where] = 1.0
    for v in range(11):
        o[off[O_UNSEEN] + v] = unseen[v] / 10.0


@njit(cache=True)
def observe_kernel(states, players, cfg, out):
    """Observation of players[i] in game i (players[i] < 0: the player to move; over: seat 0)."""
    for g in range(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])


@njit(cache=True, parallel=True)
def observe_kernel_parallel(states, players, cfg, out):
    for g in prange(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])
