"""What one player observes in Cabo: a flat float32 vector built only from the cards that player has
seen this round (K1-K9), where they are now (every move is public), and public facts (K10). Seats are
relative: 0 is the observer, r is r seats clockwise.

Known cards are encoded by card id as 52-way one-hots (id c = rank (c // 4 + 1) and suit (c % 4), R1);
a card the observer has not seen contributes nothing but "this slot is occupied", so two unseen cards
can be exchanged without changing the observation.
"""
from numba import njit, prange

from ..vector_parts import Parts
from . import engine as E
from .cards import NUM_CARDS, NUM_SLOTS

C = NUM_CARDS


def layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each section of the observation, in order."""
    n = num_players
    return [
        ("phase", E.NUM_PHASES, "one-hot decision kind: draw, place, queen, jack, snap, knock, over"),
        ("to_move", 1, "1 if the observer decides now"),
        ("active", n, "one-hot relative seat whose turn it is (the dealer during R7's upcard window)"),
        ("decider", n, "one-hot relative seat that decides now"),
        ("discarder", n, "one-hot relative seat of the snap window's discarder (R13), during a window"),
        ("upcard_window", 1, "1 during R7's window (not a turn)"),
        ("drawn_from", 2, "this turn's drawn card, not yet placed, came from [the stock, the discard pile]"),
        ("drawn_card", C, "one-hot id of the drawn card if the observer has seen it (K3, K4, K5)"),
        ("knocked", 1, "1 once somebody knocked this round (R18)"),
        ("knocker", n, "one-hot relative seat of the knocker"),
        ("final_turn", 1, "1 during the knocker's last turn (R19)"),
        ("out", n, "1 per relative seat that went out this round (R20)"),
        ("gone_out", 1, "1 once somebody went out this round"),
        ("out_turn", n, "one-hot relative seat T in whose turn the first player went out (R20)"),
        ("dealer", n, "one-hot relative seat of the dealer"),
        ("turns", 2, "completed turns this round / 100 (D13); turns left before turn_limit / 100 (0 if none)"),
        ("totals", n, "game totals per relative seat / target"),
        ("round_points", n, "points of the last finished round per relative seat / target"),
        ("round", 1, "rounds finished in this episode / 10"),
        ("hand_sizes", n, "cards held per relative seat / 8"),
        ("occupied", n * NUM_SLOTS, "per relative seat and slot 0..7: 1 if it holds a card"),
        ("slots", n * NUM_SLOTS * C, "per relative seat and slot: one-hot id of its card if the observer has "
                                     "seen it (K1-K9, knowledge follows the card, K6)"),
        ("stock_size", 1, "cards in the stock / 52"),
        ("discard_size", 1, "cards in the discard pile / 52"),
        ("discard_top", C, "one-hot id of the discard pile's top card (public, K2, K4)"),
        ("discard_pile", C, "per card id: (position from the top + 1) / 52 if it is in the discard pile"),
        ("stock_known", C, "per card id seen by the observer and now in the stock (after R17): "
                           "(position from the top + 1) / 52"),
        ("seen", C, "per card id: 1 if the observer has seen it this round"),
    ]


# offsets(n): section -> (start, stop); obs_dim(n): the vector's length; offset_vector(n): section starts.
PARTS = Parts("cabo", "observation", layout)
offsets, obs_dim, offset_vector = PARTS.offsets, PARTS.size, PARTS.starts


# Section index constants into offset_vector, found by part name in the layout.
(O_PHASE, O_TOMOVE, O_ACTIVE, O_DECIDER, O_DISCARDER, O_UPWIN, O_DRAWNFROM, O_DRAWN, O_KNOCKED, O_KNOCKER, O_FINAL,
 O_OUT, O_GONE, O_OUTTURN, O_DEALER, O_TURNS, O_TOTALS, O_POINTS, O_ROUND, O_HANDS, O_OCC, O_SLOTS, O_SSIZE, O_DSIZE,
 O_TOP, O_DPILE, O_SKNOWN, O_SEEN) = \
    PARTS.indices(
        "phase", "to_move", "active", "decider", "discarder", "upcard_window", "drawn_from", "drawn_card", "knocked",
        "knocker", "final_turn", "out", "gone_out", "out_turn", "dealer", "turns", "totals", "round_points", "round",
        "hand_sizes", "occupied", "slots", "stock_size", "discard_size", "discard_top", "discard_pile", "stock_known",
        "seen")


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
        if s.phase == E.PH_SNAP:
            o[off[O_DISCARDER] + (s.discarder - p) % n] = 1.0
            if s.in_turn == 0:
                o[off[O_UPWIN]] = 1.0
        if s.drawn >= 0:
            o[off[O_DRAWNFROM] + (0 if s.from_stock == 1 else 1)] = 1.0
            if s.seen[p, s.drawn]:
                o[off[O_DRAWN] + s.drawn] = 1.0
        o[off[O_FINAL]] = s.final
    if s.knocker >= 0:
        o[off[O_KNOCKED]] = 1.0
        o[off[O_KNOCKER] + (s.knocker - p) % n] = 1.0
    if s.out_turn >= 0:
        o[off[O_GONE]] = 1.0
        o[off[O_OUTTURN] + (s.out_turn - p) % n] = 1.0
    o[off[O_DEALER] + (s.dealer - p) % n] = 1.0
    o[off[O_TURNS]] = s.turns / 100.0
    if cfg[E.C_TLIMIT] > 0:
        o[off[O_TURNS] + 1] = (cfg[E.C_TLIMIT] - s.turns) / 100.0
    o[off[O_ROUND]] = s.round / 10.0
    for q in range(n):
        r = (q - p) % n
        o[off[O_OUT] + r] = s.out[q]
        o[off[O_TOTALS] + r] = s.total[q] / cfg[E.C_TARGET]
        o[off[O_POINTS] + r] = s.points[q] / cfg[E.C_TARGET]
        o[off[O_HANDS] + r] = s.nhand[q] / 8.0
        for i in range(NUM_SLOTS):
            c = s.slot[q, i]
            if c >= 0:
                o[off[O_OCC] + r * NUM_SLOTS + i] = 1.0
                if s.seen[p, c]:
                    o[off[O_SLOTS] + (r * NUM_SLOTS + i) * NUM_CARDS + c] = 1.0
    o[off[O_SSIZE]] = s.nstock / 52.0
    o[off[O_DSIZE]] = s.ndisc / 52.0
    if s.ndisc > 0:
        o[off[O_TOP] + s.disc[s.ndisc - 1]] = 1.0
    for j in range(s.ndisc):
        o[off[O_DPILE] + s.disc[j]] = (s.ndisc - j) / 52.0
    for j in range(s.nstock):
        c = s.stock[j]
        if s.seen[p, c]:
            o[off[O_SKNOWN] + c] = (s.nstock - j) / 52.0
    for c in range(NUM_CARDS):
        o[off[O_SEEN] + c] = s.seen[p, c]


@njit(cache=True)
def observe_kernel(states, players, cfg, out):
    """Observation of players[i] in game i (players[i] < 0: the player to move; over: seat 0)."""
    for g in range(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])


@njit(cache=True, parallel=True)
def observe_kernel_parallel(states, players, cfg, out):
    """observe_kernel spread over numba's threads (large batches)."""
    for g in prange(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])
