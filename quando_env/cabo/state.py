"""Cabo's perfect-information state vector (`Game.state()`, for centralised critics and debugging): its parts
by name (state_layout, STATE_PARTS) and the kernel that writes it from the records (state_kernel)."""
from numba import njit

from ..vector_parts import Parts
from .cards import NUM_CARDS
from .engine import C_N, C_TARGET, LOC_STOCK, NUM_PHASES, PH_OVER


def state_layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of the perfect-information state (state_kernel), in order. Seats
    are absolute (seat 0 is player_0)."""
    n = num_players
    return [
        ("cards", NUM_CARDS * (n + 4),
         f"per card id c (rank c // 4 + 1, suit c % 4), {n + 4} numbers: one-hot place (seat 0..n-1, stock, "
         "discard pile, drawn and not yet placed), then in a hand (slot + 1) / 8, in a pile (position from the "
         "top + 1) / 52"),
        ("phase", NUM_PHASES, "one-hot decision kind: draw, place, queen, jack, snap, knock, over"),
        ("active", n, "one-hot seat whose turn it is (the dealer during R7's upcard window; none once over)"),
        ("decider", n, "one-hot seat that decides now (none once over)"),
        ("discarder", n, "one-hot seat of the latest snap window's discarder (R13; none once over)"),
        ("knocker", n, "one-hot seat of the knocker (none before a knock, R18)"),
        ("out_turn", n, "one-hot seat in whose turn the first player went out (R20; none before)"),
        ("dealer", n, "one-hot seat of the dealer"),
        ("out", n, "1 per seat that went out this round (R20)"),
        ("totals", n, "game totals per seat, / target"),
        ("round_points", n, "points of the last finished round per seat, / target"),
        ("hand_sizes", n, "cards held per seat, / 8"),
        ("turns", 1, "completed turns this round, / 100 (D13)"),
        ("in_turn", 1, "1 if the snap window is a turn's, 0 if it is R7's upcard window"),
        ("final_turn", 1, "1 during the knocker's last turn (R19)"),
        ("from_stock", 1, "1 if this turn's card was drawn from the stock (0: from the discard pile)"),
        ("snap_position", 1, "the snap window's position (0..n-2 the others, n-1 the discarder), / 5"),
        ("round", 1, "rounds finished in this episode, / 10"),
        ("stock_size", 1, "cards in the stock, / 52"),
    ]


STATE_PARTS = Parts("cabo", "state", state_layout)
state_dim = STATE_PARTS.size     # length of the perfect-information state vector for n players


@njit(cache=True)
def state_kernel(states, cfg, out):
    """Perfect-information state (absolute seats): per card id its place (a seat, stock, discard, drawn) and
    its slot or pile position; then phase, seats, knock and out state, totals, points and counters."""
    n = cfg[C_N]
    w = n + 4
    for g in range(states.shape[0]):
        s = states[g]
        o = out[g]
        o[:] = 0.0
        for c in range(NUM_CARDS):
            lc = s.loc[c]
            o[c * w + (lc if lc < n else n + lc - LOC_STOCK)] = 1.0
            if lc < n:
                o[c * w + n + 3] = (s.pos[c] + 1) / 8.0
        for j in range(s.nstock):
            o[s.stock[j] * w + n + 3] = (s.nstock - j) / 52.0
        for j in range(s.ndisc):
            o[s.disc[j] * w + n + 3] = (s.ndisc - j) / 52.0
        k = NUM_CARDS * w
        o[k + s.phase] = 1.0
        k += NUM_PHASES
        if s.phase != PH_OVER:
            o[k + s.active] = 1.0
            o[k + n + s.cur] = 1.0
            o[k + 2 * n + s.discarder] = 1.0
        if s.knocker >= 0:
            o[k + 3 * n + s.knocker] = 1.0
        if s.out_turn >= 0:
            o[k + 4 * n + s.out_turn] = 1.0
        o[k + 5 * n + s.dealer] = 1.0
        for p in range(n):
            o[k + 6 * n + p] = s.out[p]
            o[k + 7 * n + p] = s.total[p] / cfg[C_TARGET]
            o[k + 8 * n + p] = s.points[p] / cfg[C_TARGET]
            o[k + 9 * n + p] = s.nhand[p] / 8.0
        k += 10 * n
        o[k] = s.turns / 100.0
        o[k + 1] = s.in_turn
        o[k + 2] = s.final
        o[k + 3] = s.from_stock
        o[k + 4] = s.snap_k / 5.0
        o[k + 5] = s.round / 10.0
        o[k + 6] = s.nstock / 52.0
