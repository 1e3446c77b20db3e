"""Help!'s information model (spec K1-K4): a player's observation and mask depend only on what that player
has seen (its own hand, the public table, the cards of its own help exchanges). Tested by changing what it
has not seen, the other hands and the draw pile, and checking nothing of its own changes; a planted leak
makes the same check fail."""
import numpy as np
import pytest

from quando_env.help import VectorGame
from quando_env.help import engine as E
from quando_env.help.cards import ASK, CODES, FULL_DECK, give_action, give_back_action, kind_of
from quando_env.help.observation import offsets

NUM_KINDS = 15


def unseen_swaps(state, p, n, rng, count=6):
    """A copy of the state record with `count` random exchanges of kinds between cards p has not seen: the
    cards in the other seats' hands and the draw pile's cards (hand sizes and pile sizes stay)."""
    s = state.copy()
    for _ in range(count):
        places = [("draw", j) for j in range(int(s["dpos"]), int(s["dend"]))]
        for q in range(n):
            if q != p:
                places += [("hand", q, k) for k in range(NUM_KINDS) for _ in range(int(s["hand"][q, k]))]
        a, b = (places[i] for i in rng.choice(len(places), 2, replace=False))
        ka = int(s["draw"][a[1]]) if a[0] == "draw" else a[2]
        kb = int(s["draw"][b[1]]) if b[0] == "draw" else b[2]
        for place, old, new in ((a, ka, kb), (b, kb, ka)):
            if place[0] == "draw":
                s["draw"][place[1]] = new
            else:
                s["hand"][place[1], old] -= 1
                s["hand"][place[1], new] += 1
    return s


def honest(game, p):
    return game.observe(np.array([p]))[0]


def leaky(game, p):
    """A planted leak: the observation plus the draw pile's top card."""
    s = game.states[0]
    return np.append(game.observe(np.array([p]))[0], s["draw"][s["dpos"]])


def unchanged_at_every_step(n, observe, steps=150, games=6, seed=0, **cfg):
    """Random play; at every step and for every seat, changed unseen cards leave that seat's observation (and
    its mask when it decides) unchanged. Returns (checks made, checks that found a difference, truth changed)."""
    rng = np.random.default_rng(seed)
    g = VectorGame(games, seed=seed, num_players=n, **cfg)
    one = VectorGame(1, seed=0, num_players=n, **cfg)
    probe = VectorGame(1, seed=0, num_players=n, **cfg)
    checks = differ = changed = 0
    for _ in range(steps):
        g.step(g.sample_actions())
        for i in range(games):
            one.load_states(g.states[i: i + 1].copy())
            for p in range(n):
                # written as is, not by load_states: the swaps may break a rule p cannot check (a helper's
                # givable card, a gift in the asker's hand), which load_states refuses
                probe.states[0] = unseen_swaps(g.states[i], p, n, rng)
                probe.kernels.masks(probe.states, probe.cfg, probe.masks)
                same = np.array_equal(observe(probe, p), observe(one, p))
                if int(one.current_player[0]) == p:
                    same &= np.array_equal(probe.legal_action_mask[0], one.legal_action_mask[0])
                checks += 1
                differ += not same
                changed += probe.hands(0) != one.hands(0) or probe.draw_pile(0) != one.draw_pile(0)
    return checks, differ, changed


@pytest.mark.parametrize("n,cfg", [(3, {}), (4, dict(row_max=2)), (5, dict(hand_size=6, reshuffle="flip"))])
def test_K4_changing_unseen_cards_changes_no_observation_or_mask(n, cfg):
    checks, differ, changed = unchanged_at_every_step(n, honest, **cfg)
    assert checks > 1000 and differ == 0 and changed > checks // 2


def test_K4_a_planted_leak_is_caught_by_the_same_check():
    checks, differ, _ = unchanged_at_every_step(4, leaky, steps=30)
    assert differ > checks // 20       # the swaps reach the top card often enough


def test_K4_draw_pile_order_beyond_the_cards_drawn_changes_nothing_for_anyone():
    """A whole round twice, the second time with the never-drawn part of the draw pile in another order:
    the same actions are legal all along and every seat observes the same things at every step."""
    rng = np.random.default_rng(5)
    for trial in range(20):
        deck = [CODES[k] for k in FULL_DECK]
        rng.shuffle(deck)
        a = VectorGame(1, seed=trial, autoreset=False, num_players=4, episode="round")
        a.reset(deck=deck)
        actions, obs = [], []
        while a.current_player[0] >= 0:
            obs.append(np.stack([a.observe(np.array([p]))[0] for p in range(4)]))
            actions.append(int(rng.choice(np.flatnonzero(a.legal_action_mask[0]))))
            a.step(np.array([actions[-1]]))
        drawn = int(a.states[0]["dpos"])
        if a.reshuffles(0) or drawn >= 100:
            continue
        changed = deck[:drawn] + list(rng.permutation(deck[drawn:]))
        b = VectorGame(1, seed=trial, autoreset=False, num_players=4, episode="round")
        b.reset(deck=changed)
        for k, act in enumerate(actions):
            assert np.array_equal(np.stack([b.observe(np.array([p]))[0] for p in range(4)]), obs[k])
            assert b.legal_action_mask[0, act]
            b.step(np.array([act]))
        assert b.round_points[0].tolist() == a.round_points[0].tolist()


def test_K3_the_kind_given_is_seen_by_asker_and_helper_only_until_it_is_played():
    deck_hands = [["2", "3", "4", "4"], ["5", "7", "8", "S"], ["6", "10", "N", "Z"]]
    from test_help_rules import game, table
    g = table(game(deck_hands, starter=0), row=[("5", 5), ("10", 10)])
    g.step(np.array([ASK]))
    g.step(np.array([give_action(kind_of("Z"))]))
    a, b = offsets(3)["given"]
    seen = [g.observe(np.array([p]))[0][a:b].sum() for p in range(3)]
    assert seen == [1, 0, 1]                                   # asker 0 and helper 2, not seat 1
    g.step(np.array([give_back_action(kind_of("2"))]))
    a2, b2 = offsets(3)["given_back"]
    assert [g.observe(np.array([p]))[0][a2:b2].sum() for p in range(3)] == [1, 0, 1]
    g.step(np.array([72]))                                     # the Zap is played: now everyone saw it
    assert [g.observe(np.array([p]))[0][a:b].sum() for p in range(3)] == [1, 1, 1]
    assert [g.observe(np.array([p]))[0][a2:b2].sum() for p in range(3)] == [1, 0, 1]


def test_K1_K2_own_hand_and_public_table_in_the_observation():
    from test_help_rules import game, table
    g = table(game([["2", "3", "W", "N"], ["5", "7", "8", "S"], ["6", "10", "N", "Z"]], starter=0),
              row=[("5", 5), ("W", 6)], no={1: E.NO_SPENT})
    o = g.observe(np.array([0]))[0]
    off = offsets(3)
    own = o[slice(*off["own_hand"])] * 4
    assert own.tolist() == [0, 1, 1] + [0] * 8 + [1, 0, 0, 1]
    row = o[slice(*off["row"])].reshape(6, 12)
    assert row[0, 4] == 1 and row[1, 5] == 1 and row[1, 11] == 1 and row[2:].sum() == 0
    assert o[slice(*off["no_spent"])].tolist() == [0, 1, 0]
    o1 = g.observe(np.array([1]))[0]
    assert o1[slice(*off["no_spent"])].tolist() == [1, 0, 0]     # relative seats: seat 1 itself is 0
    assert (o1[slice(*off["own_hand"])] * 4).tolist() == [0] * 4 + [1, 0, 1, 1] + [0] * 4 + [1, 0, 0]
