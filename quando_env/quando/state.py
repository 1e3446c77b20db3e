"""Quando's perfect-information state vector (`Game.state()`, for centralised critics and debugging): its parts
by name (state_layout, STATE_PARTS) and the kernel that writes it from the records (state_kernel)."""
from numba import njit

from ..vector_parts import Parts
from .cards import NUM_CARDS
from .engine import C_N, C_TARGET, LOC_DRAW, PH_OVER


def state_layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of the perfect-information state (state_kernel), in order. Seats
    are absolute (seat 0 is player_0)."""
    n = num_players
    return [
        ("cards", NUM_CARDS * (n + 4),
         f"per card id (number pairs a<b in order 0-1, 0-2, ..., 9-10), {n + 4} numbers: one-hot place (seat "
         "0..n-1, draw pile, discard pile), the side facing its holder or up (0: the lower number a, 1: the higher "
         "b), (position from its pile's top + 1) / 55 (0 in a hand)"),
        ("phase", 5, "one-hot decision kind: act (A/B/K/P), draw (R9), flip (R12), knock-or-not (oya R15o), over"),
        ("active", n, "one-hot seat whose turn it is (none once over)"),
        ("decider", n, "one-hot seat that decides now (none once over)"),
        ("knocker", n, "one-hot seat of the knocker (none before a knock)"),
        ("turns", n, "A/B turns completed this round per seat, / 10 (R15)"),
        ("totals", n, "game totals per seat, / target score"),
        ("dealer", 1, "the dealer's seat / 5"),
        ("penalty_left", 1, "seats still to be penalised in a triplet penalty (R12), / 5"),
        ("triplet", 1, "1 if this turn's action was a set of exactly 3"),
        ("round", 1, "rounds finished in this episode, / 10"),
    ]


STATE_PARTS = Parts("quando", "state", state_layout)
state_dim = STATE_PARTS.size     # length of the perfect-information state vector for n players


@njit(cache=True)
def state_kernel(states, cfg, out):
    """Perfect-information state (absolute seats): per card id its place, the side facing its holder or
    up, its pile position; then phase, seats, knock, turns, totals, penalty. For critics and debugging."""
    n = cfg[C_N]
    w = n + 4
    for g in range(states.shape[0]):
        s = states[g]
        o = out[g]
        o[:] = 0.0
        for c in range(NUM_CARDS):
            o[c * w + s.loc[c] if s.loc[c] < n else c * w + n + (s.loc[c] - LOC_DRAW)] = 1.0
            o[c * w + n + 2] = s.face[c]
        for j in range(s.ndraw):
            o[s.draw[j] * w + n + 3] = (s.ndraw - j) / 55.0
        for j in range(s.ndisc):
            o[s.disc[j] * w + n + 3] = (s.ndisc - j) / 55.0
        k = NUM_CARDS * w
        o[k + s.phase] = 1.0
        k += 5
        if s.phase != PH_OVER:
            o[k + s.active] = 1.0
            o[k + n + s.cur] = 1.0
        if s.knocker >= 0:
            o[k + 2 * n + s.knocker] = 1.0
        for p in range(n):
            o[k + 3 * n + p] = s.turns[p] / 10.0
            o[k + 4 * n + p] = s.total[p] / cfg[C_TARGET]
        k += 5 * n
        o[k] = s.dealer / 5.0
        o[k + 1] = s.pen_left / 5.0
        o[k + 2] = s.triplet
        o[k + 3] = s.round / 10.0
