"""Help!'s perfect-information state vector (`Game.state()`, for centralised critics and debugging): its parts
by name (state_layout, STATE_PARTS) and the kernel that writes it from the records (state_kernel)."""
from numba import njit

from ..vector_parts import Parts
from .cards import K_WILD, NUM_CARDS, NUM_KINDS, ROW_CAP
from .engine import C_MAX_STEPS, C_N, C_TARGET, NO_NONE, NUM_PHASES, PH_OVER


def state_layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each part of the perfect-information state (state_kernel), in order. Seats
    are absolute (seat 0 is player_0); kinds are 1..11, Wild, Switch, Zap, No! (indices 0..14)."""
    n = num_players
    return [
        ("hands", n * NUM_KINDS, "per seat and kind: cards held / 4"),
        ("draw_pile", NUM_CARDS, "per draw-pile position from the top: (kind index + 1) / 15, 0 past the bottom"),
        ("draw_kinds", NUM_KINDS, "draw pile cards by kind / 8"),
        ("discard", NUM_KINDS, "discard pile cards by kind / 8"),
        ("pile_sizes", 2, "cards in the draw pile / 105, cards in the discard pile / 105"),
        ("row", ROW_CAP * 12, "per row slot left to right: one-hot value 1..11, then 1 if the card is a Wild (R7)"),
        ("no", 2 * n, "per seat: [1 if a No! not yet spent is in front of it, 1 if a spent one is] (R8, R14)"),
        ("phase", NUM_PHASES, "one-hot decision kind: open (R6), play or ask (R9), give (R17), give back (R18), "
                              "play the received card (R19), over"),
        ("decider", n, "one-hot seat that decides now (the helper while giving; none once over)"),
        ("active", n, "one-hot seat whose turn it is (the asker during a help; none once over)"),
        ("asker", n, "one-hot seat of the round's latest ask (R16)"),
        ("helper", n, "one-hot seat that was asked (none: nobody could help)"),
        ("given", NUM_KINDS, "one-hot kind the helper gave (R17)"),
        ("given_back", NUM_KINDS, "one-hot kind the asker gave back (R18)"),
        ("calls", 11 * n, "per seat: one-hot public call 1..11 (R5, D14)"),
        ("totals", n, "game totals per seat, / target"),
        ("direction", 2, "one-hot round direction: +1 (increasing seats), -1 (R4)"),
        ("round", 1, "rounds finished in this episode, / 10"),
        ("steps", 1, "decisions taken this round, / max_steps (R22)"),
    ]


STATE_PARTS = Parts("help", "state", state_layout)
state_dim = STATE_PARTS.size     # length of the perfect-information state vector for n players


@njit(cache=True)
def state_kernel(states, cfg, out):
    """Perfect-information state (absolute seats): hands by kind, the draw pile in order, both piles by
    kind, the row, No!s, phase, seats, the help under way, calls, totals, direction. For critics and
    debugging."""
    n = cfg[C_N]
    for g in range(states.shape[0]):
        s = states[g]
        o = out[g]
        o[:] = 0.0
        i = 0
        for q in range(n):
            for k in range(NUM_KINDS):
                o[i + q * NUM_KINDS + k] = s.hand[q, k] / 4.0
        i += n * NUM_KINDS
        for j in range(s.dpos, s.dend):
            o[i + j - s.dpos] = (s.draw[j] + 1) / 15.0
        i += NUM_CARDS
        for j in range(s.dpos, s.dend):
            o[i + s.draw[j]] += 1.0 / 8.0
        for j in range(s.ndisc):
            o[i + NUM_KINDS + s.disc[j]] += 1.0 / 8.0
        i += 2 * NUM_KINDS
        o[i] = (s.dend - s.dpos) / 105.0
        o[i + 1] = s.ndisc / 105.0
        i += 2
        for j in range(s.nrow):
            o[i + 12 * j + s.row_val[j] - 1] = 1.0
            o[i + 12 * j + 11] = 1.0 if s.row_kind[j] == K_WILD else 0.0
        i += ROW_CAP * 12
        for q in range(n):
            if s.no[q] != NO_NONE:
                o[i + 2 * q + s.no[q] - 1] = 1.0
        i += 2 * n
        o[i + s.phase] = 1.0
        i += NUM_PHASES
        if s.phase != PH_OVER:
            o[i + s.cur] = 1.0
            o[i + n + s.active] = 1.0
        if s.asker >= 0:
            o[i + 2 * n + s.asker] = 1.0
        if s.helper >= 0:
            o[i + 3 * n + s.helper] = 1.0
        i += 4 * n
        if s.given >= 0:
            o[i + s.given] = 1.0
        if s.back >= 0:
            o[i + NUM_KINDS + s.back] = 1.0
        i += 2 * NUM_KINDS
        for q in range(n):
            if s.calls[q] > 0:
                o[i + 11 * q + s.calls[q] - 1] = 1.0
        i += 11 * n
        for q in range(n):
            o[i + q] = s.total[q] / cfg[C_TARGET]
        i += n
        o[i] = 1.0 if s.dir == 1 else 0.0
        o[i + 1] = 1.0 if s.dir == -1 else 0.0
        o[i + 2] = s.round / 10.0
        o[i + 3] = s.steps / cfg[C_MAX_STEPS]
