"""The information model (spec K1-K4): a player's observation and mask depend only on the sides that
player has seen and on public facts. Tested by changing unseen sides and checking nothing changes."""
import numpy as np
import pytest

from quando_env import VectorGame
from quando_env.quando.cards import CARD_VALUES, TAKE_DOWN, TAKE_UP, set_action
from quando_env.quando.observation import offsets
from quando_reference import complete_deck

sample_states = VectorGame.sample_states
LOC_DRAW = 6


def swap_cards(state, c1, c2, keep1, keep2, rng):
    """Exchange the identities of the physical cards now carrying ids c1 and c2. keep1 (keep2) is a number
    the physical card c1 (c2) keeps in the same role (facing its holder or up / the other side); None:
    that card may come out either way up. Whoever had seen a role of a physical card still has seen that
    role. Returns the new state record."""
    s = state.copy()
    for src, dst, keep in ((c1, c2, keep1), (c2, c1, keep2)):
        f = int(state["face"][src])
        if keep is None:
            nf = int(rng.integers(2))
        else:
            keep_side = int(np.flatnonzero(CARD_VALUES[dst] == keep)[0])
            nf = keep_side if CARD_VALUES[src, f] == keep else 1 - keep_side
        s["face"][dst] = nf
        s["loc"][dst] = state["loc"][src]
        s["acq"][dst] = state["acq"][src]
        for q in range(6):
            bits = int(state["seen"][q, src])
            s["seen"][q, dst] = ((bits >> f & 1) << nf) | ((bits >> (1 - f) & 1) << (1 - nf))
    for pile, k in (("draw", "ndraw"), ("disc", "ndisc")):
        arr = s[pile][: int(s[k])]
        a, b = arr == c1, arr == c2
        arr[a], arr[b] = c2, c1
    return s


def unseen_swaps(state, p, rng, count=8):
    """Random identity swaps that change only sides p has not seen: a card showing p one number v may
    trade with a card showing p the same v in the same role, or with a card p has seen nothing of that
    carries a v; two cards p has seen nothing of may trade freely."""
    s = state
    for _ in range(count):
        seen = s["seen"][p]
        c1 = int(rng.integers(55))
        if seen[c1] == 3:
            continue
        blind = [c for c in range(55) if seen[c] == 0 and c != c1]
        if seen[c1] == 0:
            cands = [(c, None, None) for c in blind]
        else:
            side = 0 if seen[c1] == 1 else 1
            v, role = int(CARD_VALUES[c1, side]), side != s["face"][c1]
            same = [(c, v, v) for c in range(55) if c != c1 and seen[c] in (1, 2)
                    and CARD_VALUES[c, 0 if seen[c] == 1 else 1] == v
                    and ((0 if seen[c] == 1 else 1) != s["face"][c]) == role]
            cands = same + [(c, v, None) for c in blind if v in CARD_VALUES[c]]
        if cands:
            c2, keep1, keep2 = cands[rng.integers(len(cands))]
            s = swap_cards(s, c1, c2, keep1, keep2, rng)
    return s


@pytest.mark.parametrize("n,edition", [(2, "kendi"), (3, "oya"), (4, "kendi"), (5, "oya"), (6, "kendi"),
                                       (4, "oya")])
def test_K1_K4_changing_unseen_sides_changes_no_observation_or_mask(n, edition):
    rng = np.random.default_rng(n)
    g = VectorGame(32, seed=n, num_players=n, edition=edition)
    probe = VectorGame(1, seed=0, autoreset=False, num_players=n, edition=edition)
    checked = changed_truth = other_noticed = 0
    for t in range(400):
        g.step(g.sample_actions())
        if t % 20:
            continue
        for i in range(0, 32, 4):
            if g.states[i]["phase"] == 4:
                continue
            for p in range(n):
                altered = unseen_swaps(g.states[i], p, rng)
                # written as is, not by load_states: the swaps may break a rule p cannot check (another seat
                # asked to flip a 0 may no longer hold one), which load_states refuses
                probe.states[0] = altered
                probe.kernels.masks(probe.states, probe.cfg, probe.masks)
                seats = np.array([p])
                before = g.observe(np.full(32, p))[i]
                assert (probe.observe(seats)[0] == before).all(), (t, i, p)
                if int(g.current_player[i]) == p:
                    assert (probe.legal_action_mask[0] == g.legal_action_mask[i]).all()
                checked += 1
                if probe.hands(0) != g.hands(i) or probe.piles(0) != g.piles(i):
                    changed_truth += 1
                    # control: someone else usually sees the difference, so the check can fail
                    others = [q for q in range(n) if q != p]
                    obs_o = g.observe(np.full(32, others[0]))[i]
                    other_noticed += not (probe.observe(np.array([others[0]]))[0] == obs_o).all()
    assert checked > 100 and changed_truth > checked // 2 and other_noticed > 0


@pytest.mark.quick
def test_K1_holder_sees_front_others_see_back():
    g = VectorGame(1, seed=0, autoreset=False, num_players=3, episode="round")
    s = g.states[0]
    for c in range(55):
        q = s["loc"][c]
        if q < 3:
            front = int(s["face"][c])
            for p in range(3):
                assert s["seen"][p, c] == (1 << front if p == q else 1 << (1 - front))


def test_K2_every_new_draw_pile_top_is_seen_by_everyone():
    g = VectorGame(16, seed=1, num_players=4)
    for _ in range(200):
        g.step(g.sample_actions())
        s = g.states
        top = s["draw"][np.arange(16), np.maximum(s["ndraw"] - 1, 0)]
        up_bit = 1 << s["face"][np.arange(16), top]
        for p in range(4):
            has = s["seen"][np.arange(16), p, top] & up_bit
            assert (has[s["ndraw"] > 0] > 0).all()


def test_K3_discarded_side_seen_by_everyone():
    hands = [[(3, 0), (4, 0), (5, 1)], [(1, 3), (2, 3), (6, 3)]]
    g = VectorGame(1, seed=0, autoreset=False, num_players=2, hand_size=3, episode="round")
    g.reset(deck=complete_deck(hands, draw_top=[(7, 8)]), dealer=1)
    g.step(np.array([set_action(5, 1)]))
    c = int(np.flatnonzero([(a, b) == (1, 5) for a, b in CARD_VALUES])[0])
    assert g.states[0]["seen"][0, c] == 0b10     # seat 0: the 5 only (it never saw its own back)
    assert g.states[0]["seen"][1, c] == 0b11     # seat 1: the back 1 while held, now the 5
    o0, o1 = g.observe(np.array([0]))[0], g.observe(np.array([1]))[0]
    a, _ = offsets(2)["discard_pile"]
    assert o0[a] == o1[a] == np.float32((5 + 1) / 11)
    assert o0[a + 1] == 0 and o1[a + 1] == np.float32((1 + 1) / 11)


def test_D1_K4_dealt_backs_unknown_to_the_holder_in_the_observation():
    g = VectorGame(1, seed=3, num_players=4)
    obs = g.observe(np.array([0]))[0]
    a, b = offsets(4)["own_hand"]
    own = obs[a:b].reshape(11, 12)
    assert own[:, :11].sum() == 0 and own[:, 11].sum() == 7   # every back unseen
    a, b = offsets(4)["known_cards"]
    assert obs[a:b].sum() == 0                                 # no card known on both sides yet


def test_K_take_down_reveals_the_back_to_the_drawer_take_up_does_not():
    hands = [[(3, 0), (4, 0)], [(1, 3), (2, 3)]]
    g = VectorGame(1, seed=0, autoreset=False, num_players=2, hand_size=2, episode="round")
    g.reset(deck=complete_deck(hands, draw_top=[(7, 8), (6, 9)]), dealer=1)
    g.step(np.array([set_action(3, 1)]))
    g.step(np.array([TAKE_UP]))       # seat 0: front 7, back 8 unseen by seat 0, seen by seat 1
    g.step(np.array([set_action(1, 1)]))
    g.step(np.array([TAKE_DOWN]))     # seat 1: front 9, back 6 (the up side it saw)
    own = offsets(2)["own_hand"][0]
    o0, o1 = g.observe(np.array([0]))[0], g.observe(np.array([1]))[0]
    assert o0[own + 7 * 12 + 11] == 1          # 7 with unknown back
    assert o1[own + 9 * 12 + 6] == 1           # 9 with known back 6


def test_K_perfect_recall_after_kendi_turn_over():
    """Cards keep what each player saw of them through the discard pile and back into the draw pile."""
    g = VectorGame(1, seed=0, autoreset=False, num_players=2, hand_size=26, episode="round", knock_min_turns=99)
    rng = np.random.default_rng(1)
    for _ in range(400):
        draw, disc = g.piles(0)
        if g.legal_action_mask[0, TAKE_UP] and len(draw) == 1 and disc:
            before = g.states[0]["seen"].copy()
            g.step(np.array([TAKE_UP]))
            after = g.states[0]["seen"]
            assert ((after & before) == before).all()               # nothing forgotten
            a, _ = offsets(2)["draw_pile"]
            top_known_down = [g.observe(np.array([p]))[0][a + 1] for p in range(2)]
            # the new top's down side is the side it was discarded with: everyone saw it (K3)
            assert all(x > 0 for x in top_known_down)
            return
        g.step(np.array([rng.choice(np.flatnonzero(g.legal_action_mask[0]))]))
    pytest.fail("the draw pile never ran dry")


@pytest.mark.parametrize("n,edition", [(2, "oya"), (4, "kendi"), (6, "oya")])
def test_determinization_keeps_the_observation_and_mask(n, edition):
    """Issue 4's sampler: every sampled world gives the observer the same observation and mask."""
    g = VectorGame(16, seed=7, num_players=n, edition=edition)
    worlds = VectorGame(12, seed=0, autoreset=False, num_players=n, edition=edition)
    differ = 0
    for t in range(240):
        g.step(g.sample_actions())
        if t % 30 or g.states[0]["phase"] == 4:
            continue
        for p in (int(g.current_player[0]), (int(g.current_player[0]) + 1) % n):
            obs = g.observe(np.full(16, p))[0]
            states = sample_states(obs, 12, g.config, seed=t)
            worlds.load_states(states)
            assert (worlds.observe(np.zeros(12, np.int64)) == obs).all()
            if p == int(g.current_player[0]):
                assert (worlds.legal_action_mask == g.legal_action_mask[0]).all()
            for w in range(12):                       # valid worlds: 55 cards, each once
                s = states[w]
                count = (s["loc"] < n).sum() + s["ndraw"] + s["ndisc"]
                assert count == 55 and len(set(s["draw"][: s["ndraw"]]) | set(s["disc"][: s["ndisc"]])) == \
                    s["ndraw"] + s["ndisc"]
            differ += len({worlds.hands(w).__repr__() for w in range(12)}) > 1
    assert differ > 0     # the hidden sides really are resampled
