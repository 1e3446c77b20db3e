"""HeuristicAgent: a careful human-like player, computed from its own observation only (numba, batched).

What it does, by decision:
- discard (A/B): tries every legal straight and set; for each, the hand left, then the better of taking the
  visible top side or the hidden one (expected over the sides it has never seen), valued by the hand sum minus
  a share of the best discard that hand allows next turn; a set of exactly three is worth a bonus per opponent
  (each must flip a 0 or draw); a hand of only zeros ends the round at once and is worth most.
- knock: samples the opponents' hands from what it has seen (their fronts it knows; the others drawn from the
  sides it has never seen that could lie behind each back it sees, weighted towards low numbers since players
  keep low cards), plays each opponent's last turn (best discard, a draw, a triplet's penalty on itself), and
  knocks when the chance of ending lowest alone is high enough.
- last round after a knock: minimises its final sum (no look-ahead), passes when no discard pays.
- draw: the side with the lower value for the hand (above); flip: the 0 with the lowest (known or expected) back.
"""
import numpy as np
from numba import njit

from quando_env import rng
from quando_env.quando.action_features import best_removal
from quando_env.quando.cards import (FLIP_UNKNOWN, KNOCK, NUM_ACTIONS, PASS, TAKE_DOWN, TAKE_UP, flip_back, is_set,
                                     is_straight, set_count, set_value, straight_low)

from ..base import ParamAgent
from .features import (PH_DRAW, PH_FLIP, PH_KNOCK, S_KNOCKED, S_OPP, hand_sum, hidden_dist, mean_var, own_counts,
                       own_zero_backs, phase_of, players_from_obs_dim, starts_vector, top_card)

# Parameters (index: meaning, default).
P_ALPHA, P_TRIP_FUTURE, P_TRIP_NOW, P_ZERO_END, P_ZERO_KEEP, P_TAU, P_TILT, P_SAMPLES = range(8)
DEFAULTS = {
    "alpha": 0.9,          # share of next turn's best discard credited to a hand
    "trip_future": 3.0,    # extra worth of a triplet available next turn (in the look-ahead)
    "trip_now": 2.0,       # worth of playing a triplet now, per opponent
    "zero_end": 12.0,      # worth of ending the round with only zeros
    "zero_keep": 1.0,      # worth of each front 0 held (protection against triplet penalties)
    "knock_tau": 0.65,     # knock when P(lowest alone) is at least this
    "knock_tilt": 0.2,     # opponents keep low cards: weight exp(-tilt * v) on their unknown fronts
    "knock_samples": 64,   # samples of the opponents' hands behind a knock decision
}


@njit(cache=True)
def _hval(cnt, prm, last):
    """Worth of holding `cnt` (lower is better) right after my draw."""
    size = 0
    s = 0
    for v in range(11):
        size += cnt[v]
        s += v * cnt[v]
    if size > 0 and cnt[0] == size:
        return -prm[P_ZERO_END]
    val = s - prm[P_ZERO_KEEP] * cnt[0]
    if last:
        return val
    best = 0.0
    for v in range(1, 11):
        c = cnt[v]
        if c > 0:
            r = float(v * c)
            if c >= 3:
                r = max(r, 3.0 * v + prm[P_TRIP_FUTURE])
            best = max(best, r)
    for x in range(9):
        if cnt[x] > 0 and cnt[x + 1] > 0 and cnt[x + 2] > 0:
            best = max(best, 3.0 * x + 3.0)
    return val - prm[P_ALPHA] * best


@njit(cache=True)
def _draw_values(cnt, up, down, pdown, prm, last):
    """(worth if I take the visible side, worth if I take the hidden one)."""
    cnt[up] += 1
    vu = _hval(cnt, prm, last)
    cnt[up] -= 1
    if down >= 0:
        cnt[down] += 1
        vd = _hval(cnt, prm, last)
        cnt[down] -= 1
    else:
        vd = 0.0
        for v in range(11):
            if pdown[v] > 0:
                cnt[v] += 1
                vd += pdown[v] * _hval(cnt, prm, last)
                cnt[v] -= 1
    return vu, vd


@njit(cache=True)
def _obs_hash(o):
    """A seed made from the observation: the heuristic stays a pure function of what it observes."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(o.shape[0]):
        if o[i] != 0.0:
            h = (h ^ np.uint64(i * 1000003 + int(o[i] * 1000.0))) * np.uint64(0xBF58476D1CE4E5B9)
    return h


@njit(cache=True)
def _uniform(state):
    """A uniform float in [0, 1) from stream state[0] (quando_env.rng)."""
    state[0] += rng.GOLDEN
    return (rng.mix64(state[0]) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _sample(cdf, state):
    u = _uniform(state)
    for v in range(11):
        if u < cdf[v]:
            return v
    return 10


@njit(cache=True)
def p_lowest_alone(o, st, n, my_cnt, prm, tau=-1.0):
    """Chance that I end the round lowest alone if I knock now, by sampling the opponents' hidden fronts. Given
    tau >= 0, the sampling stops once the chance is known to be at least tau (1.0 returned) or below it (0.0):
    the same knock decisions for less work.

    Each opponent's unknown front is drawn from the sides I have never seen (tilted towards low numbers, since
    players keep their low cards); in its last turn it discards its best straight or set and draws about
    min(visible side, 5); a triplet it can play costs me a flip or a draw."""
    cdfs = np.zeros((11, 11))
    tmp = np.zeros(11)
    for back in range(11):
        hidden_dist(o, st, n, back, tmp)
        tot = 0.0
        for v in range(11):
            tmp[v] *= np.exp(-prm[P_TILT] * v)
            tot += tmp[v]
        acc = 0.0
        for v in range(11):
            acc += tmp[v] / tot
            cdfs[back, v] = acc
    hidden_dist(o, st, n, -1, tmp)
    any_cdf = np.cumsum(tmp)
    my = hand_sum(my_cnt)
    # What a triplet penalty costs me: flipping my best-known 0, else a draw.
    zb = np.zeros(12, np.int64)
    own_zero_backs(o, st, zb)
    pen = 3.5
    for b in range(1, 11):
        if zb[b] > 0:
            pen = float(b)
            break
    if zb[11] > 0:
        hidden_dist(o, st, n, 0, tmp)
        m0, _ = mean_var(tmp)
        pen = min(pen, m0)
    cnt = np.zeros(11, np.int64)
    state = np.zeros(1, np.uint64)
    state[0] = _obs_hash(o)
    ns = int(prm[P_SAMPLES])
    # Each opponent's cards as (back, front or 11 = unknown), read once, in the order the samples draw them.
    cards = np.zeros((n, 64, 2), np.int64)
    ncards = np.zeros(n, np.int64)
    for r in range(1, n):
        base = st[S_OPP] + (r - 1) * 132
        for back in range(11):
            for col in range(12):
                for _j in range(int(round(o[base + back * 12 + col]))):
                    cards[r, ncards[r], 0] = back
                    cards[r, ncards[r], 1] = col
                    ncards[r] += 1
    wins = 0
    for k in range(ns):
        mine = float(my)
        low = 1e9
        for r in range(1, n):
            cnt[:] = 0
            for j in range(ncards[r]):
                col = cards[r, j, 1]
                v = col if col < 11 else _sample(cdfs[cards[r, j, 0]], state)
                cnt[v] += 1
            s = hand_sum(cnt)
            rem, trip = best_removal(cnt, 1)
            draw = min(_sample(any_cdf, state), 5)
            low = min(low, min(s, s - rem + draw))
            if trip:
                mine += pen
        if mine < low:
            wins += 1
        if tau >= 0.0:
            if wins / ns >= tau:
                return 1.0
            if (wins + ns - 1 - k) / ns < tau:
                return 0.0
    return wins / ns


@njit(cache=True)
def decide(o, m, st, n, prm, vals):
    """The heuristic's action; vals[a] gets its worth of each discard, pass and draw it weighed (lower is
    better; the rest stay as they were)."""
    cnt = np.zeros(11, np.int64)
    pdown = np.zeros(11)
    tmp = np.zeros(11)
    ph = phase_of(o, st)
    own_counts(o, st, cnt)
    last = o[st[S_KNOCKED]] > 0.5
    up, down = top_card(o, st)
    if up >= 0 and down < 0:
        hidden_dist(o, st, n, up, pdown)
    if ph == PH_FLIP:
        backs = np.zeros(12, np.int64)
        own_zero_backs(o, st, backs)
        hidden_dist(o, st, n, 0, tmp)
        unknown, _ = mean_var(tmp)
        best_a = -1
        best_v = 1e9
        for a in range(FLIP_UNKNOWN, NUM_ACTIONS):
            if m[a]:
                v = unknown if a == FLIP_UNKNOWN else float(flip_back(a))
                if v < best_v:
                    best_v = v
                    best_a = a
        return best_a
    if ph == PH_DRAW:
        if up < 0:
            return TAKE_UP
        vu, vd = _draw_values(cnt, up, down, pdown, prm, last)
        vals[TAKE_UP] = vu
        vals[TAKE_DOWN] = vd
        return TAKE_UP if vu <= vd else TAKE_DOWN
    if ph == PH_KNOCK:  # oya: knock or not, after my draw
        if m[KNOCK] and p_lowest_alone(o, st, n, cnt, prm, prm[P_TAU]) >= prm[P_TAU]:
            return KNOCK
        return PASS
    # PH_ACT
    knock = m[KNOCK] and p_lowest_alone(o, st, n, cnt, prm, prm[P_TAU]) >= prm[P_TAU]
    best_a = -1
    best_v = 1e18
    if m[PASS]:
        best_a = PASS
        best_v = _hval(cnt, prm, True)
        vals[PASS] = best_v
    for a in range(KNOCK):
        if not m[a]:
            continue
        k = 3
        if is_straight(a):
            x = straight_low(a)
            for v in range(x, x + 3):
                cnt[v] -= 1
        else:
            v0 = set_value(a)
            k = set_count(a)
            cnt[v0] -= k
        if up >= 0:
            vu, vd = _draw_values(cnt, up, down, pdown, prm, last)
            val = min(vu, vd)
        else:
            val = _hval(cnt, prm, last)
        if is_set(a) and k == 3:
            val -= prm[P_TRIP_NOW] * (n - 1)
        if is_straight(a):
            for v in range(x, x + 3):
                cnt[v] += 1
        else:
            cnt[v0] += k
        vals[a] = val
        if val < best_v - 1e-9:
            best_v = val
            best_a = a
    if knock:
        return KNOCK
    if best_a < 0:  # nothing else legal
        for a in range(NUM_ACTIONS):
            if m[a]:
                return a
    return best_a


@njit(cache=True)
def heuristic_kernel(obs, masks, st, n, prm, out, vals):
    for i in range(obs.shape[0]):
        out[i] = decide(obs[i], masks[i], st, n, prm, vals[i])


class HeuristicAgent(ParamAgent):
    """The heuristic player above; `params` override entries of DEFAULTS. Deterministic: the same
    observation always gets the same action (its knock estimate is seeded by the observation)."""

    name = "heuristic"
    game = "quando"
    num_actions = NUM_ACTIONS
    defaults = DEFAULTS

    def __init__(self, num_players: int | None = None, **params):
        super().__init__(num_players, **params)
        self._st = {}

    def act_batch(self, obs, masks):
        return self._run(obs, masks, np.empty((obs.shape[0], 0)))

    def action_values(self, obs, masks) -> tuple[np.ndarray, np.ndarray]:
        """(actions, (B, NUM_ACTIONS) worth of each discard, pass and draw the heuristic weighed: lower is better,
        inf for the others)."""
        vals = np.full((obs.shape[0], NUM_ACTIONS), np.inf)
        return self._run(np.asarray(obs, np.float32), np.asarray(masks, bool), vals), vals

    def _run(self, obs, masks, vals):
        n = self.num_players or players_from_obs_dim(obs.shape[1])
        if n not in self._st:
            self._st[n] = starts_vector(n)
        out = np.empty(obs.shape[0], np.int64)
        if vals.shape[1] == 0:
            vals = np.empty((obs.shape[0], NUM_ACTIONS))     # scratch, thrown away
        heuristic_kernel(np.ascontiguousarray(obs, np.float32), np.ascontiguousarray(masks, np.bool_),
                         self._st[n], n, self.prm, out, vals)
        return out

