"""Cabo, K10: a player's observation is a function of what that player has seen and public facts. The test
of the spec: exchange two cards a player never saw in a round (both J, both Q, or both neither) in the
forced deck and replay the same actions: all stay legal and that player's observations and masks are
unchanged at every step. A planted leak (an observation that also encodes the unseen cards in the
opponents' slots) fails the same check, so the check can see a leak. Rule ids refer to
quando_env/cabo/RULES.md."""
import random

import numpy as np
import pytest

from quando_env.cabo import VectorGame
from quando_env.cabo.cards import JACK, PASS, QUEEN, SNAP, rank


def new_round(n, deck, dealer):
    game = VectorGame(1, seed=0, autoreset=False, num_players=n, episode="round")
    game.reset(deck=deck, dealer=dealer)
    return game


def play_round(n, deck, dealer, rng):
    """Random legal play (snapping now and then) of one round; returns the actions and, per seat, the cards
    it saw before the end (R22 reveals everything at the end)."""
    game = new_round(n, deck, dealer)
    actions = []
    seen = [set() for _ in range(n)]
    while game.current_player[0] >= 0:
        seen = [game.seen_cards(0, p) for p in range(n)]
        legal = np.flatnonzero(game.legal_action_mask[0])
        snaps = [a for a in legal if SNAP <= a < PASS]
        a = PASS if PASS in legal and rng.random() < 0.7 else int(rng.choice(list(legal)))
        if snaps and rng.random() < 0.1:
            a = int(rng.choice(snaps))
        actions.append(int(a))
        game.step(np.array([a]))
    return actions, seen


def kind(c):
    return rank(c) if rank(c) in (JACK, QUEEN) else 0


def swapped(deck, a, b):
    out = list(deck)
    i, j = out.index(a), out.index(b)
    out[i], out[j] = out[j], out[i]
    return out


def observe(game, p):
    return game.observe(players=[p])[0]


def leaky_observe(game, p):
    """A planted leak: the honest observation plus the ids of every card in the opponents' slots."""
    s = game.states[0]
    extra = np.zeros((game.num_players, 8, 52), np.float32)
    for q in range(game.num_players):
        if q != p:
            for i, c in enumerate(s["slot"][q]):
                if c >= 0:
                    extra[q, i, c] = 1.0
    return np.concatenate([observe(game, p), extra.ravel()])


def unchanged_for(n, deck, dealer, actions, p, deck2, obs_fn=observe):
    """Replay `actions` on both decks: True if every action stays legal and p's observation and the mask
    are the same at every step before the round ends."""
    a, b = new_round(n, deck, dealer), new_round(n, deck2, dealer)
    for act in actions:
        if a.current_player[0] < 0:
            break
        if not np.array_equal(obs_fn(a, p), obs_fn(b, p)):
            return False
        if not np.array_equal(a.legal_action_mask[0], b.legal_action_mask[0]) or not b.legal_action_mask[0, act]:
            return False
        a.step(np.array([act]))
        b.step(np.array([act]))
    return bool(a.game_over[0] == b.game_over[0])


def pick_pair(rng, seen, deck, among=None):
    unseen = [c for c in deck if c not in seen]
    firsts = [c for c in unseen if among is None or c in among]
    rng.shuffle(firsts)
    for c1 in firsts:
        mates = [c for c in unseen if c != c1 and kind(c) == kind(c1)]
        if mates:
            return c1, rng.choice(mates)
    return None


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_K10_exchanging_two_cards_a_player_never_saw_changes_nothing_it_observes(n):
    rng = random.Random(n)
    checked = 0
    for r in range(8):
        deck = list(range(52))
        rng.shuffle(deck)
        dealer = rng.randrange(n)
        actions, seen = play_round(n, deck, dealer, rng)
        for p in range(n):
            pair = pick_pair(rng, seen[p], deck)
            if pair is None:
                continue
            assert unchanged_for(n, deck, dealer, actions, p, swapped(deck, *pair)), (n, r, p, pair)
            checked += 1
    assert checked >= 8 * n - 2


def test_K10_jack_and_queen_pairs_are_exchangeable_too():
    rng = random.Random(11)
    done = set()
    for r in range(40):
        n = rng.randrange(2, 7)
        deck = list(range(52))
        rng.shuffle(deck)
        actions, seen = play_round(n, deck, n - 1, rng)
        for p in range(n):
            for kd in (JACK, QUEEN):
                pair = pick_pair(rng, seen[p], deck, among=[c for c in deck if rank(c) == kd])
                if pair:
                    assert unchanged_for(n, deck, n - 1, actions, p, swapped(deck, *pair))
                    done.add(kd)
    assert done == {JACK, QUEEN}


def test_K10_a_planted_leak_fails_the_same_check():
    rng = random.Random(3)
    caught = 0
    for r in range(10):
        n = 3
        deck = list(range(52))
        rng.shuffle(deck)
        actions, seen = play_round(n, deck, 2, rng)
        p = 0
        opponents_cards = [c for c in deck[:12] if c not in deck[0:12:3]]   # dealt to seats 1 and 2
        pair = pick_pair(rng, seen[p], deck, among=opponents_cards)
        if pair is None:
            continue
        assert unchanged_for(n, deck, 2, actions, p, swapped(deck, *pair))          # honest: unchanged
        caught += not unchanged_for(n, deck, 2, actions, p, swapped(deck, *pair), obs_fn=leaky_observe)
    assert caught >= 5


def test_K1_K2_K9_what_a_seat_has_seen_after_the_deal():
    game = new_round(4, list(range(52)), 3)
    s = game.states[0]
    for p in range(4):
        assert game.seen_cards(0, p) == {int(s["slot"][p, 0]), int(s["slot"][p, 1]), 16}
    text = game.render_text(0, 1)
    assert "??" in text and "Kc" not in text.split("stock")[0]
