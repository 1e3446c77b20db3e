"""The vectorized engine against the plain-Python reference (tests/quando_reference.py, written from the spec
alone) on thousands of random rounds: same player to move, same mask at every decision, same hands and
piles (which checks D4's choice and order of discarded cards), same points."""
import random
from collections import Counter

import numpy as np
import pytest

from quando_env import VectorGame
from quando_reference import RefRound, Reshuffle

ROUNDS_PER_CASE = 250  # x 10 cases = 2,500 rounds, each compared decision by decision


def random_deck(rng):
    pairs = [[a, b] for a in range(11) for b in range(a + 1, 11)]
    rng.shuffle(pairs)
    return [p if rng.random() < 0.5 else p[::-1] for p in pairs]


def choose(legal, rng):
    """Random legal play that knocks rarely, so rounds run long enough to reach every rule."""
    if 119 in legal and rng.random() > 0.1:
        legal = [a for a in legal if a != 119] or legal
    return rng.choice(legal)


def play_both(n, edition, deck, dealer, rng, knock_min_turns=2, hand_size=None, seen=None):
    """Play one round in both implementations with the same random legal actions, comparing all the way.
    `seen` (a Counter) collects which rule paths the round went through."""
    ref = RefRound(n, deck, dealer, edition=edition, knock_min_turns=knock_min_turns, hand_size=hand_size)
    eng = VectorGame(1, seed=0, autoreset=False, num_players=n, edition=edition, episode="round",
                     knock_min_turns=knock_min_turns, hand_size=hand_size)
    eng.reset(deck=deck, dealer=dealer)
    steps = 0
    while True:
        where = f"n={n} {edition} step {steps}"
        assert [eng.hands(0)[p] for p in range(n)] == [ref.hand(p) for p in range(n)], where
        assert eng.piles(0) == (ref.draw_pile(), ref.discard_pile()), where
        if ref.round_over:
            assert eng.game_over[0] and eng.round_over[0], where
            assert eng.round_points[0].tolist() == ref.points(), where
            if seen is not None:
                seen["knocked round" if ref.knocker is not None else "only-zeros round"] += 1
            return "over", steps
        assert int(eng.current_player[0]) == ref.current_player, where
        legal = ref.legal_actions()
        assert np.flatnonzero(eng.legal_action_mask[0]).tolist() == legal, where
        a = choose(legal, rng)
        if seen is not None:
            seen[kind(a)] += 1
            seen["turn-over"] += len(ref.discard_pile()) > 0 and len(ref.draw_pile()) == 1 and a in (121, 122)
        try:
            ref.step(a)
        except Reshuffle:
            return "reshuffle", steps
        eng.step(np.array([a]))
        steps += 1


def kind(a):
    if a < 9:
        return "straight"
    if a < 119:
        return "triplet" if (a - 9) % 10 == 2 else "set"
    return {119: "knock", 120: "pass", 121: "take up", 122: "take down", 123: "flip unseen"}.get(a, "flip known")


CASES = [(n, ed) for ed in ("kendi", "oya") for n in range(2, 7)]


@pytest.mark.parametrize("n,edition", CASES)
def test_engine_matches_reference_on_random_rounds(n, edition):
    rng = random.Random(1000 * n + len(edition))
    seen = Counter()
    for i in range(ROUNDS_PER_CASE):
        kmin = rng.choice([0, 1, 2, 2, 2, 5])  # knocking opens at different moments
        outcome, steps = play_both(n, edition, random_deck(rng), rng.randrange(n), rng, knock_min_turns=kmin,
                                   seen=seen)
        seen[outcome] += 1
        seen["decisions"] += steps
    # The comparison is only as good as the paths it went through.
    for path in ("straight", "set", "triplet", "knock", "pass", "take up", "take down", "flip unseen",
                 "knocked round", "turn-over" if edition == "kendi" else "reshuffle"):
        assert seen[path] > 0, (path, seen)
    assert seen["decisions"] > 20 * ROUNDS_PER_CASE, seen


def test_engine_matches_reference_with_small_and_large_hands():
    """Tiny hands end rounds by only zeros (R14) often; full hands empty both piles (R11, D2)."""
    rng = random.Random(7)
    seen = Counter()
    for i in range(300):
        n = rng.randrange(2, 7)
        hand = rng.choice([1, 2, 55 // n])
        play_both(n, rng.choice(["kendi", "oya"]), random_deck(rng), rng.randrange(n), rng, hand_size=hand,
                  seen=seen)
    assert seen["only-zeros round"] > 0 and seen["knocked round"] > 0, seen
