"""What one player observes: a flat float32 vector of exactly what the spec's K1-K3 let that player know
(K4). Seats are relative: 0 is the observer, r is r seats further in increasing seat order (the round's
direction is given separately).

Read: the observer's own hand by kind (K1); the public table (K2): the row with values, the discard pile
by kind, No!s in front (spent or not), pile and hand sizes, calls, totals, direction, the decision's kind
and who takes it, who asked whom; and the cards of the latest help the observer gave or received (K3).
Never read: other hands, the draw pile's order or kinds.
"""
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import K_WILD, NUM_KINDS, ROW_CAP


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each section of the observation, in order."""
    n = num_players
    return [
        ("phase", E.NUM_PHASES, "one-hot decision kind: open (R6), play or ask (R9), give (R17), give back (R18), "
                                "play the received card (R19), over"),
        ("to_move", 1, "1 if the observer decides now"),
        ("decider", n, "one-hot relative seat that decides now (the helper while giving)"),
        ("active", n, "one-hot relative seat whose turn it is (the asker during a help)"),
        ("direction", 2, "one-hot round direction: +1 (increasing seats), -1 (R4)"),
        ("own_hand", NUM_KINDS, "own cards by kind (1..11, Wild, Switch, Zap, No!), / hand_size (K1)"),
        ("hand_sizes", n, "cards held per relative seat, / hand_size"),
        ("row", ROW_CAP * 12, "per row slot left to right: one-hot value 1..11, then 1 if the card is a Wild (R7)"),
        ("row_length", 1, "cards in the row / row_max"),
        ("draw_size", 1, "cards in the draw pile / 105"),
        ("discard", NUM_KINDS, "discard pile cards by kind / 8"),
        ("discard_size", 1, "cards in the discard pile / 105"),
        ("no_fresh", n, "per relative seat: 1 if a No! not yet spent is in front of it (R8, R14)"),
        ("no_spent", n, "per relative seat: 1 if a spent No! is in front of it (R8)"),
        ("asker", n, "one-hot relative seat of the round's latest ask (R16)"),
        ("helper", n, "one-hot relative seat that was asked (none: nobody could help)"),
        ("given", NUM_KINDS, "one-hot kind the helper gave: seen by asker and helper (K3), by all once played (R19)"),
        ("given_back", NUM_KINDS, "one-hot kind the asker gave back: seen by asker and helper only (K3)"),
        ("calls", 11 * n, "per relative seat: one-hot public call 1..11 (R5, D14)"),
        ("callers", n, "per relative seat: 1 if it is a caller this round (R5)"),
        ("starter", n, "one-hot relative seat that started the round"),
        ("totals", n, "game totals per relative seat, / target"),
    ]


# offsets(n): section -> (start, stop); obs_dim(n): the vector's length; offset_vector(n): section starts.
PARTS = Parts("help", "observation", layout)
offsets, obs_dim, offset_vector = PARTS.offsets, PARTS.size, PARTS.starts


# Section index constants into offset_vector, found by part name in the layout.
(O_PHASE, O_TOMOVE, O_DECIDER, O_ACTIVE, O_DIR, O_OWN, O_HANDS, O_ROW, O_ROWLEN, O_DSIZE, O_DISC, O_XSIZE, O_FRESH,
 O_SPENT, O_ASKER, O_HELPER, O_GIVEN, O_BACK, O_CALLS, O_CALLERS, O_STARTER, O_TOTALS) = \
    PARTS.indices(
        "phase", "to_move", "decider", "active", "direction", "own_hand", "hand_sizes", "row", "row_length",
        "draw_size", "discard", "discard_size", "no_fresh", "no_spent", "asker", "helper", "given", "given_back",
        "calls", "callers", "starter", "totals")


@njit(cache=True)
def observe_one(s, p, cfg, o):
    """Write seat p's observation of game record s into o."""
    n = cfg[E.C_N]
    h = cfg[E.C_HAND]
    off = cfg[E.CFG_SIZE:]
    o[:] = 0.0
    o[off[O_PHASE] + s.phase] = 1.0
    if s.phase != E.PH_OVER:
        if s.cur == p:
            o[off[O_TOMOVE]] = 1.0
        o[off[O_DECIDER] + (s.cur - p) % n] = 1.0
        o[off[O_ACTIVE] + (s.active - p) % n] = 1.0
    o[off[O_DIR] + (0 if s.dir == 1 else 1)] = 1.0
    for k in range(NUM_KINDS):
        o[off[O_OWN] + k] = s.hand[p, k] / h
    for q in range(n):
        r = (q - p) % n
        o[off[O_HANDS] + r] = E.hand_size(s, q) / h
        if s.no[q] == E.NO_FRESH:
            o[off[O_FRESH] + r] = 1.0
        elif s.no[q] == E.NO_SPENT:
            o[off[O_SPENT] + r] = 1.0
        if s.calls[q] > 0:
            o[off[O_CALLS] + 11 * r + s.calls[q] - 1] = 1.0
        o[off[O_CALLERS] + r] = s.caller[q]
        o[off[O_TOTALS] + r] = s.total[q] / cfg[E.C_TARGET]
    for j in range(s.nrow):
        o[off[O_ROW] + 12 * j + s.row_val[j] - 1] = 1.0
        if s.row_kind[j] == K_WILD:
            o[off[O_ROW] + 12 * j + 11] = 1.0
    o[off[O_ROWLEN]] = s.nrow / cfg[E.C_ROWMAX]
    o[off[O_DSIZE]] = (s.dend - s.dpos) / 105.0
    for j in range(s.ndisc):
        o[off[O_DISC] + s.disc[j]] += 1.0 / 8.0
    o[off[O_XSIZE]] = s.ndisc / 105.0
    if s.starter >= 0:
        o[off[O_STARTER] + (s.starter - p) % n] = 1.0
    if s.asker >= 0:
        o[off[O_ASKER] + (s.asker - p) % n] = 1.0
        if s.helper >= 0:
            o[off[O_HELPER] + (s.helper - p) % n] = 1.0
        involved = p == s.asker or p == s.helper
        played = s.phase == E.PH_OPEN or s.phase == E.PH_PLAY     # the help ended with R19's play
        if s.given >= 0 and (involved or played):
            o[off[O_GIVEN] + s.given] = 1.0
        if s.back >= 0 and involved:
            o[off[O_BACK] + s.back] = 1.0


@njit(cache=True)
def observe_kernel(states, players, cfg, out):
    """Observation of players[i] in game i (players[i] < 0: the seat that decides; over: seat 0)."""
    for g in range(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])


@njit(cache=True, parallel=True)
def observe_kernel_parallel(states, players, cfg, out):
    for g in prange(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])
