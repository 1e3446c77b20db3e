"""Help!'s baseline players, computed from their own observation only (numba, batched).

A failed help ends a Help! round with a point for everyone except the asker and the helper (R20a), so a
player wants to be neither: to hold cards it can always play or give (specials, high numbers), and to
leave the next player (who asks it first, R16) a row it can play on.

HeuristicAgent (deterministic) plays like a careful human:

- Play (a normal turn, and the received card of R19): it rates every legal play by what its hand is
  then worth to keep (a number its value 1..11, a Wild 21, a Zap 22, a No! 23.5, a Switch 26: with any
  number beside it a Switch always has a play on a non-empty row, and keeping it longest measured best), less the
  risk of the row it leaves: the next player holds no play on it with probability about
  p_no_special * (share of number cards at most the row's last value) ** 4, and then asks it, which costs
  `exchange` (a good card out, a poor one back) plus `fail` times the chance it holds nothing givable
  even after its refill. A play that completes the row (R7) or a No! (nobody asks it while the No! lies,
  D6) carries no such risk. When the next player to move was the round's latest asker, it kept three
  cards of a hand that could not play, so its chance of being stuck counts `weak` (2) times. In effect:
  the smallest number that fits (the smallest gap above the row's last value), keeping high numbers and
  specials; a special only when no number fits, or when the only fitting numbers would leave a high row
  it could not help on; a Switch takes the row card worth most to it (a Wild, else the last card, which
  also lowers the row) for its lowest number that fits; a Wild goes inside the row when a gap allows, so
  the last value stays; the Switch and the No! are kept longest. It asks for help only when it must (R9).
- A No! is not played, unless nothing else is legal, when all other seats but one already have a No! in
  front: that one seat, once stuck, would find no helper and score alone (R20b), while the No! kept in
  hand is always givable.
- Helping: the asker must play the gift at once (R19) and its hand was all low (it was stuck), so the
  player after it, if stuck on the gift, asks the asker, who likely cannot help, and that failure scores
  for me. So it gives its highest givable number; without one, the special it values least for its own
  future: a Wild (the asker may still leave the row high), then Switch, Zap, and a No! last (a No! would
  let the asker skip, so the next stuck player asks me).
- Giving back: the kind it values least (its lowest number; a No! is never returned, R18).

GreedyAgent is the simple baseline ("smallest card that fits"): the first legal action in action order,
that is its smallest number that fits the row (R10), else the first legal Wild slot, Switch, Zap, No!;
it asks only when it must (asking is legal only then), and gives and gives back its lowest legal kind.
"""
import numpy as np
from numba import njit

from quando_env.help.cards import (ASK, GIVE, GIVE_BACK, K_NO, K_SWITCH, K_WILD, K_ZAP, KIND_COUNTS, MAX_VALUE,
                                   NUM_ACTIONS, NUM_KINDS, PLAY, ROW_CAP, SWITCH, WILD, ZAP)
from quando_env.help.engine import NUM_PHASES, PH_BACK, PH_GIVE
from quando_env.help.observation import (O_ASKER, O_DIR, O_FRESH, O_OWN, O_PHASE, O_ROW, O_ROWLEN, O_SPENT, obs_dim,
                                         offset_vector)

from ..base import KernelAgent, player_counter


# Parameters, in the order of the kernels' parameter vector.
DEFAULTS = {
    # What a special card is worth to keep when playing (numbers are worth their value 1..11).
    "switch": 26.0,
    "wild": 21.0,
    "zap": 22.0,
    "no": 23.5,
    # The risk of the row I leave: how likely the next player holds no special card, what being asked
    # costs me, and what a failed help costs me on top (no point this round).
    "p_no_special": 0.45,
    "exchange": 15.0,
    "fail": 40.0,
    "hand_size": 4.0,     # the game's hand size (the observation gives my cards per kind / hand size)
    # What a special card is worth to keep when helping (numbers go first, the highest; then the least worth).
    "give_switch": 20.0,
    "give_wild": 12.0,
    "give_zap": 22.0,
    "give_no": 23.0,
    # Cost of a No! that would leave a single seat without a No! in front (R20b: it could score alone).
    "no_crowd": 30.0,
    # How much likelier to be stuck the next player is when it asked for help last (its hand was all low).
    "weak": 2.0,
}
(P_SWITCH, P_WILD, P_ZAP, P_NO, P_NOSPEC, P_EXCHANGE, P_FAIL, P_HAND, P_GIVE_SWITCH, P_GIVE_WILD, P_GIVE_ZAP,
 P_GIVE_NO, P_NO_CROWD, P_WEAK) = range(len(DEFAULTS))
P_GIVE = P_GIVE_SWITCH       # the helper's worths: prm[P_GIVE + P_WILD] is the helper's Wild, and so on


players_from_obs_dim = player_counter(obs_dim, range(3, 6))


@njit(cache=True)
def _one_hot(o, start, size):
    """The index set in o[start:start + size], or -1."""
    for i in range(size):
        if o[start + i] > 0.5:
            return i
    return -1


@njit(cache=True)
def _read_row(o, off, vals, wild):
    """The row's values (vals[j]) and Wild flags (wild[j]) left to right; returns its length."""
    nrow = 0
    for j in range(ROW_CAP):
        v = _one_hot(o, off[O_ROW] + 12 * j, MAX_VALUE)
        if v < 0:
            break
        vals[j] = v + 1
        wild[j] = o[off[O_ROW] + 12 * j + 11] > 0.5
        nrow += 1
    return nrow


@njit(cache=True)
def _kind_worth(k, prm, base=0):
    """What a card of kind k is worth to keep: a number by its value, a special its parameter (read from
    prm[base + P_SWITCH ...]: the player's worths at base 0, the helper's at P_GIVE)."""
    if k < K_WILD:
        return k + 1.0
    if k == K_WILD:
        return prm[base + P_WILD]
    if k == K_SWITCH:
        return prm[base + P_SWITCH]
    if k == K_ZAP:
        return prm[base + P_ZAP]
    return prm[base + P_NO]


@njit(cache=True)
def _first_legal(m):
    for a in range(NUM_ACTIONS):
        if m[a]:
            return a
    return -1


# Number cards of value <= L in the deck (L = 0..11): a random 4-card hand holds only such cards (nothing it
# could play on a row ending at L) with probability about (_LE[L] / 105) ** 4.
_LE = np.concatenate((np.zeros(1), np.cumsum(KIND_COUNTS[:MAX_VALUE]))).astype(np.float64)


@njit(cache=True)
def _p_stuck(last, prm):
    """About how likely the next player has no play on a row ending at `last` (0: an empty row): it holds
    no special card (probability `p_no_special`) and four numbers all at most `last`."""
    if last <= 0:
        return 0.0
    f = _LE[last] / _LE[MAX_VALUE]
    return prm[P_NOSPEC] * f * f * f * f


@njit(cache=True)
def _p_cannot_give(cnt, last, held, hand_size):
    """How likely I hold no card givable on a row ending at `last` after my refill (cnt: my hand before it,
    `held` cards)."""
    for k in range(K_WILD, NUM_KINDS):
        if cnt[k] > 0:
            return 0.0
    for v in range(last + 1, MAX_VALUE + 1):
        if cnt[v - 1] > 0:
            return 0.0
    p_draw = 1.0 - _LE[last] / 105.0       # a special or a number above `last`
    q = 1.0
    for _ in range(max(0, int(hand_size) - held)):
        q *= 1.0 - p_draw
    return q


@njit(cache=True)
def _rate(cnt, last, cleared, protected, held, prm, weak=1.0):
    """How good my position is after a play (higher is better): what my hand is worth to keep, less the
    risk that the next player cannot play and asks me (an exchange costs me a good card; failing to give
    ends the round with no point for me)."""
    worth = 0.0
    for k in range(NUM_KINDS):
        worth += cnt[k] * _kind_worth(k, prm)
    if cleared or protected:
        return worth
    ps = min(1.0, _p_stuck(last, prm) * weak)
    return worth - ps * (prm[P_EXCHANGE] + prm[P_FAIL] * _p_cannot_give(cnt, last, held, prm[P_HAND]))


@njit(cache=True)
def _play_values(o, m, off, n, prm, vals):
    """Rate every legal play of a normal turn or of the received card by how well it leaves me placed (see
    `_rate`): vals[a] = -rating."""
    rvals = np.zeros(ROW_CAP, np.int64)
    wild = np.zeros(ROW_CAP, np.bool_)
    nrow = _read_row(o, off, rvals, wild)
    row_max = ROW_CAP
    if nrow > 0 and o[off[O_ROWLEN]] > 0:
        row_max = int(round(nrow / o[off[O_ROWLEN]]))
    h = prm[P_HAND]
    cnt = np.zeros(NUM_KINDS, np.int64)
    held = 0
    for k in range(NUM_KINDS):
        x = o[off[O_OWN] + k]
        cnt[k] = max(1, int(round(x * h))) if x > 0 else 0
        held += cnt[k]
    last = rvals[nrow - 1] if nrow > 0 else 0
    d = 1 if o[off[O_DIR]] > 0.5 else -1           # the next seat to play (fresh No!s are skipped, R8)
    nxt = d % n
    while nxt != 0 and o[off[O_FRESH] + nxt] > 0.5:
        nxt = (nxt + d) % n
    weak = prm[P_WEAK] if o[off[O_ASKER] + nxt] > 0.5 else 1.0
    for a in range(ASK):
        if not m[a]:
            continue
        if a < WILD:                                   # a number at the end
            k = a - PLAY
            cnt[k] -= 1
            r = _rate(cnt, k + 1, nrow + 1 >= row_max, False, held - 1, prm, weak)
            cnt[k] += 1
        elif a < SWITCH:                               # a Wild at slot s
            s = a - WILD
            cnt[K_WILD] -= 1
            r = _rate(cnt, last if s < nrow else last + 1, nrow + 1 >= row_max, False, held - 1, prm, weak)
            cnt[K_WILD] += 1
        elif a < ZAP:                                  # Switch: take slot s, put v
            s, kv = divmod(a - SWITCH, 11)
            taken = K_WILD if wild[s] else rvals[s] - 1
            cnt[K_SWITCH] -= 1
            cnt[kv] -= 1
            cnt[taken] += 1
            r = _rate(cnt, kv + 1 if s == nrow - 1 else last, False, False, held - 1, prm, weak)
            cnt[taken] -= 1
            cnt[kv] += 1
            cnt[K_SWITCH] += 1
        elif a == ZAP:
            cnt[K_ZAP] -= 1
            r = _rate(cnt, rvals[nrow - 2] if nrow >= 2 else 0, False, False, held - 1, prm, weak)
            cnt[K_ZAP] += 1
        else:                                          # No!: I skip, and nobody can ask me meanwhile
            cnt[K_NO] -= 1
            r = _rate(cnt, last, False, True, held - 1, prm)
            cnt[K_NO] += 1
            others = 0                                 # R20b: seats that could no longer be helped
            for q in range(1, n):
                others += o[off[O_FRESH] + q] > 0.5 or o[off[O_SPENT] + q] > 0.5
            if others >= n - 2:
                r -= prm[P_NO_CROWD]
        vals[a] = -r


@njit(cache=True)
def values(o, m, off, n, prm, vals):
    """The heuristic's rating of every legal action of observation o (lower is better; illegal ones stay as
    given): plays by `_play_values`; gifts the highest number first (rated minus its value), then the special
    worth least to the helper; give-backs by what the card is worth to me; asking 0."""
    ph = _one_hot(o, off[O_PHASE], NUM_PHASES)
    if ph == PH_GIVE:
        for k in range(NUM_KINDS):
            if m[GIVE + k]:
                vals[GIVE + k] = -(k + 1.0) if k < MAX_VALUE else _kind_worth(k, prm, P_GIVE)
    elif ph == PH_BACK:
        for k in range(NUM_KINDS):
            if m[GIVE_BACK + k]:
                vals[GIVE_BACK + k] = _kind_worth(k, prm)
    else:
        _play_values(o, m, off, n, prm, vals)
        if m[ASK]:
            vals[ASK] = 0.0


@njit(cache=True)
def decide(o, m, off, n, prm):
    """The heuristic's action for one observation o with mask m: the best-rated legal action (the first in
    action order on a tie)."""
    vals = np.full(NUM_ACTIONS, np.inf)
    values(o, m, off, n, prm, vals)
    best = _first_legal(m)
    for a in range(NUM_ACTIONS):
        if m[a] and vals[a] < vals[best]:
            best = a
    return best


@njit(cache=True)
def greedy_decide(o, m, off, n, prm):
    """GreedyAgent's action: the first legal action, which is the smallest fitting number when one fits,
    else the first legal Wild slot, Switch, Zap, No!, ask, give or give back in action order."""
    return _first_legal(m)


@njit(cache=True)
def values_kernel(obs, masks, off, n, prm, out, vals):
    for i in range(obs.shape[0]):
        values(obs[i], masks[i], off, n, prm, vals[i])
        out[i] = decide(obs[i], masks[i], off, n, prm)


@njit(cache=True)
def heuristic_kernel(obs, masks, off, n, prm, greedy, out):
    for i in range(obs.shape[0]):
        out[i] = greedy_decide(obs[i], masks[i], off, n, prm) if greedy else decide(obs[i], masks[i], off, n, prm)


class HeuristicAgent(KernelAgent):
    """The careful human-like Help! player above; `params` override entries of DEFAULTS. Deterministic."""

    name = "heuristic"
    game = "help"
    num_actions = NUM_ACTIONS
    defaults = DEFAULTS
    kernel = staticmethod(heuristic_kernel)
    values_kernel = staticmethod(values_kernel)
    players_of = staticmethod(players_from_obs_dim)
    starts_of = staticmethod(offset_vector)


class GreedyAgent(HeuristicAgent):
    """The "smallest card that fits" Help! baseline above."""

    name = "greedy"
    greedy = True
