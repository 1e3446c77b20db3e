"""Determinization: full Cabo states consistent with one player's observation (for search agents).

Works from the observation vector alone, so an agent that uses it sees nothing it should not. The
observer becomes seat 0 of every sample and the seats keep their relative order (seat r of a sample is
the seat r places clockwise of the observer), so encoding a sample for seat 0 gives back the observation
exactly, and the legal mask of the player to move is the original one (it depends only on public facts).

What the observation shows is kept: every card the observer has seen where it is now (own and others'
slots, the discard pile in order, seen stock cards at their positions, the drawn card), the phase, who
is active and who decides, the snap window (discarder, upcard window; its position follows from the
decider), the drawn card's source, knock, going out, final turn, dealer, turns, totals, last round's
points and rounds. The cards the observer has not seen are dealt uniformly at random (each sample from
its own quando_env.rng stream) over the places it cannot see: occupied slots with unknown cards, the
unknown stock positions and an unseen drawn card. The one public inference the observation does not
carry is applied to the drawn card: a card another player drew from the stock and did not have to show
is no Queen (R11, K5), and no Jack when the Jack's rule applied (R10: another seat holds a card).
Earlier such inferences (which slot got a stock card that was no Jack or Queen) are not in the
observation and are not used.

The other players' knowledge (their `seen` rows) is not in the observation. Each sample gives them what
is certain, plus one plain assumption:
  - certain: every card in the discard pile and every seen card in the stock (it can only have got there
    from the discard pile, K4); the drawn card when it is public (taken from the discard pile, or a Jack or
    Queen shown by its rule), and the drawn card for the player who drew it (K3);
  - assumed: every card the observer knows in another player's slot is known to all (such a card mostly
    became known publicly: taken from the discard pile, a wrong snap, a kept Jack or Queen; the exception,
    a card the observer gave away with its Jack, is treated the same); the cards the observer knows in its
    own slots are private to it; and each other player knows the cards now in its own slots
    0..peek-1 (K1, as if they were still the ones dealt there), whatever the sample put there.
The knowledge never changes a legal mask (D6), only how the play-out agents play.

Fields the observation does not hold: `steps` (decisions so far in the episode) is 0, so max_steps counts
from the sample on; `deck` (the round's dealt deck, only read by records) is 0..51; `shuffles` is 0 (D14).
"""
import numpy as np
from numba import njit

from .. import rng
from ..obs_reader import ObsReader
from . import engine as E
from .cards import CARD_RANKS, JACK, NUM_CARDS, NUM_SLOTS, QUEEN
from .observation import PARTS

_STOCK, _SLOT, _DRAWN = 0, 1, 2      # kinds of unseen places


def _decode(obs, config):
    """One template record with everything the observation shows, the unseen cards, the places they can go
    (kind, a, b) and whether the first place is a drawn card that must not be a Queen (1) or a Jack (2)."""
    n = config.num_players
    rd = ObsReader(PARTS.layout(n), obs)
    sec, one, count = rd.sec, rd.one, rd.count
    phase = rd.phase(E.PH_OVER)
    t = np.zeros(1, E.STATE_DTYPE)
    s = t[0]
    s["slot"][:] = -1
    s["loc"][:] = -1
    s["pos"][:] = -1
    s["stock"][:] = -1
    s["disc"][:] = -1
    s["deck"][:] = np.arange(NUM_CARDS)
    s["phase"] = phase
    s["active"] = one("active", "active seat")
    s["cur"] = one("decider", "deciding seat")
    if s["active"] < 0 or s["cur"] < 0:
        raise ValueError("the observation names no active or deciding seat")
    s["dealer"] = one("dealer", "dealer")
    s["knocker"] = one("knocker", "knocker") if sec("knocked")[0] > 0.5 else -1
    s["out_turn"] = one("out_turn", "out_turn") if sec("gone_out")[0] > 0.5 else -1
    s["final"] = int(sec("final_turn")[0] > 0.5)
    s["turns"] = count(sec("turns")[0], 100)
    s["round"] = count(sec("round")[0], 10)
    s["total"][:n] = count(sec("totals"), config.target)
    s["points"][:n] = count(sec("round_points"), config.target)
    s["out"][:n] = sec("out") > 0.5
    s["in_turn"] = 1
    s["discarder"] = s["active"]
    if phase == E.PH_SNAP:          # the window: its discarder, and the decider's place in its order (R13)
        s["discarder"] = one("discarder", "discarder")
        s["in_turn"] = 0 if sec("upcard_window")[0] > 0.5 else 1
        s["snap_k"] = n - 1 if s["cur"] == s["discarder"] else (int(s["cur"]) - int(s["discarder"]) - 1) % n
    seen = sec("seen") > 0.5
    s["seen"][0, :] = seen
    public = np.zeros(NUM_CARDS, bool)           # what every other seat has seen (certain or assumed)

    kinds, pa, pb = [], [], []
    occ = sec("occupied").reshape(n, NUM_SLOTS) > 0.5
    ids = sec("slots").reshape(n, NUM_SLOTS, NUM_CARDS) > 0.5
    for r in range(n):
        for i in range(NUM_SLOTS):
            if not occ[r, i]:
                continue
            hot = np.flatnonzero(ids[r, i])
            if hot.size > 1:
                raise ValueError(f"the observation shows two cards in relative seat {r}'s slot {i}")
            if hot.size:
                c = int(hot[0])
                _put(s, c, r)
                s["slot"][r, i] = c
                s["pos"][c] = i
                public[c] |= r > 0               # assumed: a card known in another's slot is public
            else:
                kinds.append(_SLOT)
                pa.append(r)
                pb.append(i)
        s["nhand"][r] = occ[r].sum()
    if not np.array_equal(s["nhand"][:n], count(sec("hand_sizes"), 8, NUM_SLOTS)):
        raise ValueError("the observation's hand sizes and occupied slots disagree")

    s["ndisc"] = nd = count(sec("discard_size")[0], 52, NUM_CARDS)
    for c in np.flatnonzero(sec("discard_pile") > 0):
        j = nd - count(sec("discard_pile")[c], 52, NUM_CARDS)
        if not 0 <= j < nd or s["disc"][j] >= 0:
            raise ValueError("the observation's discard pile is not a pile")
        s["disc"][j] = c
        _put(s, int(c), E.LOC_DISC)
    if nd and ((s["disc"][:nd] < 0).any() or s["disc"][nd - 1] != one("discard_top", "discard top")):
        raise ValueError("the observation's discard pile is not a pile")
    public[s["disc"][:nd]] = True                # K2, K4

    s["nstock"] = ns = count(sec("stock_size")[0], 52, NUM_CARDS)
    for c in np.flatnonzero(sec("stock_known") > 0):
        j = ns - count(sec("stock_known")[c], 52, NUM_CARDS)
        if not 0 <= j < ns or s["stock"][j] >= 0:
            raise ValueError("the observation's stock positions are not a pile")
        s["stock"][j] = c
        _put(s, int(c), E.LOC_STOCK)
        public[c] = True                         # a seen stock card came from the discard pile (R17, K4)
    for j in np.flatnonzero(s["stock"][:ns] < 0):
        kinds.append(_STOCK)
        pa.append(int(j))
        pb.append(0)

    rule = 0
    src = sec("drawn_from") > 0.5
    s["drawn"] = -1
    if src.any():
        s["from_stock"] = int(src[0])
        c = one("drawn_card", "drawn card")
        if c >= 0:
            _put(s, c, E.LOC_DRAWN)
            s["drawn"] = c
            shown = (not src[0] or phase in (E.PH_JACK, E.PH_QUEEN) or CARD_RANKS[c] == QUEEN
                     or (CARD_RANKS[c] == JACK and _jack_applies(s, n)))
            public[c] |= shown or s["active"] != 0      # the observer saw another's drawn card: it was shown
        else:                                    # unseen: another player's stock card it did not have to show
            kinds.insert(0, _DRAWN)
            pa.insert(0, 0)
            pb.insert(0, 0)
            rule = 2 if _jack_applies(s, n) else 1
    cards = np.flatnonzero(s["loc"] < 0)
    if not np.array_equal(seen[cards], np.zeros(cards.size, bool)) or cards.size != len(kinds):
        raise ValueError(f"the observation accounts for {NUM_CARDS - cards.size} seen cards and {len(kinds)} unseen "
                         f"places, but leaves {cards.size} cards unplaced: is it a {n}-player observation?")
    for q in range(1, n):
        s["seen"][q, :] = public
    return t, cards.astype(np.int64), np.array([kinds, pa, pb], np.int64).reshape(3, -1), rule


def _put(s, c, where):
    if s["loc"][c] >= 0:
        raise ValueError(f"the observation shows card {c} in two places")
    s["loc"][c] = where


def _jack_applies(s, n):
    """R10: a Jack drawn now by the active player acts when another seat holds a card."""
    return any(s["nhand"][q] > 0 for q in range(n) if q != s["active"])


@njit(cache=True)
def _fill(states, seeds, cards, places, rule, n, peek):
    """Deal the unseen cards over the unseen places in every record (each from its own stream), then give
    the other seats what they saw of it: their own slots 0..peek-1 and the drawer its drawn card."""
    m = cards.shape[0]
    items = np.empty(m, np.int64)
    st = np.zeros(1, np.uint64)
    for g in range(states.shape[0]):
        s = states[g]
        st[0] = seeds[g]
        items[:] = cards
        start = 0
        if rule > 0:                 # places[0] is the drawn card: no Queen (and no Jack when rule 2)
            ok = 0
            for t in range(m):
                r = CARD_RANKS[items[t]]
                ok += not (r == QUEEN or (rule == 2 and r == JACK))
            if ok > 0:
                k = rng.rand_below(st, 0, ok)
                for t in range(m):
                    r = CARD_RANKS[items[t]]
                    if not (r == QUEEN or (rule == 2 and r == JACK)):
                        if k == 0:
                            tmp = items[0]
                            items[0] = items[t]
                            items[t] = tmp
                            break
                        k -= 1
                start = 1
        rng.shuffle(st, 0, items[start:], m - start)
        for t in range(m):
            c = items[t]
            kind = places[0, t]
            if kind == _SLOT:
                s.slot[places[1, t], places[2, t]] = c
                s.loc[c] = places[1, t]
                s.pos[c] = places[2, t]
            elif kind == _STOCK:
                s.stock[places[1, t]] = c
                s.loc[c] = E.LOC_STOCK
            else:
                s.drawn = c
                s.loc[c] = E.LOC_DRAWN
        for q in range(1, n):        # assumed: each knows its own slots 0..peek-1 (K1)
            for i in range(peek):
                c = s.slot[q, i]
                if c >= 0:
                    s.seen[q, c] = 1
        if s.drawn >= 0 and s.active != 0:      # K3: the drawer saw its card
            s.seen[s.active, s.drawn] = 1
        s.rng[0] = seeds[g] ^ np.uint64(0xD1B54A32D192ED03)


def draw_states(obs, num_samples: int, config, seed: int | None) -> np.ndarray:
    """`num_samples` Cabo state records consistent with `obs`, an observation of a game with `config` (a
    quando_env.cabo.Config), the observer as seat 0 (see the module docstring). ValueError for an observation
    of a finished episode or one that is no observation of this player count. The game's `determinizer`:
    VectorGame.sample_states checks the arguments before and the records after."""
    template, cards, places, rule = _decode(obs, config)
    states = np.repeat(template, num_samples)
    seeds = np.random.SeedSequence(seed).generate_state(num_samples, np.uint64)
    _fill(states, seeds, cards, places, rule, config.num_players, min(config.peek, config.hand_size))
    return states

