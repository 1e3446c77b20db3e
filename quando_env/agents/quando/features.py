"""Numba helpers that read what a Quando agent needs out of its observation vector
(quando_env.quando.observation).

Everything here is computed from the observation alone: the counts of the agent's own fronts, the top of the
draw pile, the sides it has never seen and the cards it knows completely.
"""
import numpy as np
from numba import njit

from quando_env.quando.cards import PAIR_TO_CARD
from quando_env.quando.engine import PH_ACT, PH_DRAW, PH_FLIP, PH_KNOCK, PH_OVER  # noqa: F401 (the agents' phases)
from quando_env.quando.observation import obs_dim, offsets

from ..base import player_counter

players_from_obs_dim = player_counter(obs_dim, range(2, 7))


def section_starts(num_players: int) -> dict[str, int]:
    """Observation section name -> start index."""
    return {k: a for k, (a, _) in offsets(num_players).items()}

# Index of each section's start in the vector built by `starts_vector`.
(S_PHASE, S_KALLOWED, S_KNOCKED, S_KNOCKER, S_TOTALS, S_HANDS, S_OWN, S_OPP, S_DSIZE, S_TOP, S_UNSEEN, S_KNOWN,
 S_PENALTY, S_ACTIVE, S_TURNS, S_XSIZE) = range(16)
_NAMES = ("phase", "knock_allowed", "knocked", "knocker", "totals", "hand_sizes", "own_hand", "opponents",
          "draw_size", "draw_top", "unseen", "known_cards", "penalty", "active", "turns", "discard_size")

NUM_PHASES = PH_OVER + 1     # the observation's phase section: one column per engine phase
_PAIR = PAIR_TO_CARD.astype(np.int64)


def starts_vector(num_players: int) -> np.ndarray:
    st = section_starts(num_players)
    return np.array([st[k] for k in _NAMES], np.int64)


@njit(cache=True)
def phase_of(o, st):
    """The engine's phase code of the decision (PH_OVER when none)."""
    for i in range(NUM_PHASES):
        if o[st[S_PHASE] + i] > 0.5:
            return i
    return PH_OVER


@njit(cache=True)
def own_counts(o, st, cnt):
    """cnt[v] = how many of my cards show front v."""
    b = st[S_OWN]
    for v in range(11):
        x = 0.0
        for col in range(12):
            x += o[b + v * 12 + col]
        cnt[v] = np.int64(round(x))


@njit(cache=True)
def own_zero_backs(o, st, backs):
    """backs[b] = my front-0 cards whose back I know is b (b = 1..10); backs[11] = those with unseen back."""
    b = st[S_OWN]
    for col in range(12):
        backs[col] = np.int64(round(o[b + col]))


@njit(cache=True)
def hand_sum(cnt):
    s = 0
    for v in range(11):
        s += v * cnt[v]
    return s


@njit(cache=True)
def top_card(o, st):
    """(up, down) of the draw pile's top; down = -1 if I have not seen it; up = -1 if the pile is empty."""
    b = st[S_TOP]
    up = -1
    down = -1
    for v in range(11):
        if o[b + v] > 0.5:
            up = v
        if o[b + 11 + v] > 0.5:
            down = v
    return up, down


@njit(cache=True)
def card_known(o, st, n, a, b):
    """True if I have seen both sides of the card {a, b}."""
    c = _PAIR[a, b]
    base = st[S_KNOWN] + c * (n + 2)
    for j in range(n + 2):
        if o[base + j] > 0.5:
            return True
    return False


@njit(cache=True)
def hidden_dist(o, st, n, w, out):
    """Probability of each number on the unseen side of a card whose seen side is w (w < 0: seen side unknown).

    Weighted by how many sides showing v I have never seen, leaving out v = w and cards {w, v} I know."""
    tot = 0.0
    for v in range(11):
        x = round(o[st[S_UNSEEN] + v] * 10.0)
        if v == w:
            x = 0.0
        elif w >= 0 and x > 0 and card_known(o, st, n, w, v):
            x = 0.0
        out[v] = x
        tot += x
    if tot <= 0:
        tot = 0.0
        for v in range(11):
            out[v] = 0.0 if v == w else 1.0
            tot += out[v]
    for v in range(11):
        out[v] /= tot


@njit(cache=True)
def mean_var(p):
    m1 = 0.0
    m2 = 0.0
    for v in range(11):
        m1 += p[v] * v
        m2 += p[v] * v * v
    return m1, m2 - m1 * m1
