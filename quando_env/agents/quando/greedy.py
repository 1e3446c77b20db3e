"""GreedyAgent: lowers its own hand sum as fast as it can and knocks by a fixed threshold."""
import numpy as np
from numba import njit

from quando_env.quando.cards import (FLIP_KNOWN, FLIP_UNKNOWN, KNOCK, NUM_ACTIONS, PASS, TAKE_DOWN, TAKE_UP,
                                     is_straight, set_count, set_value, straight_low)

from ..base import Agent
from .features import (PH_DRAW, PH_FLIP, PH_KNOCK, hand_sum, own_counts, phase_of, players_from_obs_dim,
                       starts_vector, top_card)


@njit(cache=True)
def greedy_kernel(obs, masks, st, threshold, take_below, out):
    cnt = np.zeros(11, np.int64)
    for i in range(obs.shape[0]):
        o = obs[i]
        m = masks[i]
        ph = phase_of(o, st)
        own_counts(o, st, cnt)
        out[i] = -1
        if ph == PH_DRAW:          # the visible side if it is low enough, else the hidden one
            up, _ = top_card(o, st)
            out[i] = TAKE_UP if 0 <= up <= take_below else TAKE_DOWN
        elif ph == PH_FLIP:        # the 0 with the lowest known back, else one with an unknown back
            for a in range(FLIP_KNOWN, NUM_ACTIONS):
                if m[a]:
                    out[i] = a
                    break
            if out[i] < 0:
                out[i] = FLIP_UNKNOWN
        elif ph == PH_KNOCK:
            out[i] = KNOCK if hand_sum(cnt) <= threshold else PASS
        else:
            if m[KNOCK] and hand_sum(cnt) <= threshold:
                out[i] = KNOCK
                continue
            best = -1.0
            for a in range(KNOCK):   # straights and sets: the discard that removes the most points (more cards on ties)
                if not m[a]:
                    continue
                if is_straight(a):
                    r = 3.0 * straight_low(a) + 3.0 + 0.03
                else:
                    v = set_value(a)
                    k = set_count(a)
                    r = float(v * k) + 0.01 * k
                if r > best:
                    best = r
                    out[i] = a
            if out[i] < 0:
                for a in range(NUM_ACTIONS):
                    if m[a]:
                        out[i] = a
                        break


class GreedyAgent(Agent):
    """Discards the straight or set worth the most points; takes the visible side of a draw when it is at
    most `take_below`, else the hidden side; knocks as soon as its sum is at most `threshold`."""

    name = "greedy"
    game = "quando"
    num_actions = NUM_ACTIONS

    def __init__(self, threshold: int = 6, take_below: int = 4):
        self.threshold = threshold
        self.take_below = take_below
        self._st = {}

    def act_batch(self, obs, masks):
        n = players_from_obs_dim(obs.shape[1])
        if n not in self._st:
            self._st[n] = starts_vector(n)
        out = np.empty(obs.shape[0], np.int64)
        greedy_kernel(np.ascontiguousarray(obs, np.float32), np.ascontiguousarray(masks, np.bool_), self._st[n],
                      self.threshold, self.take_below, out)
        return out

    def __repr__(self):
        return f"GreedyAgent(threshold={self.threshold}, take_below={self.take_below})"
