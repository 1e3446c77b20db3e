"""Cabo: the vectorized engine against the plain-Python reference (tests/cabo_reference.py, written from
the spec alone) on thousands of random rounds, 2-6 players and varied options: same player to move,
same mask (as the sorted legal actions), same slots, stock and discard pile, same knowledge (K1-K9),
same knocker, out players and turn count at every decision; same points at the end. Rule ids refer to
quando_env/cabo/RULES.md."""
import random
from collections import Counter

import numpy as np
import pytest

from cabo_reference import CaboRound, card_rank
from quando_env.cabo import VectorGame
from quando_env.cabo.cards import (DISCARD_DRAWN, DRAW_STOCK, JACK_SWAP, KNOCK, PASS, QUEEN_LOOK, SNAP,
                                   TAKE_DISCARD)


def choose(ref, rng, style):
    """A legal action of the reference's current decision. 'random': uniform, knocking rarely (so rounds
    run long enough to reach everything); 'snapper': snaps every matching card it holds (it peeks at its
    own slots omnisciently), sometimes a wrong one, so players go out."""
    legal = ref.legal_actions()
    if ref.phase == "knock":
        return KNOCK if rng.random() < 0.08 else legal[-1]
    if ref.phase == "snap" and style == "snapper":
        top = card_rank(ref.discard_pile()[0])
        mine = ref.slots(ref.current_player)
        hits = [SNAP + i for i, c in enumerate(mine) if c is not None and card_rank(c) == top]
        if hits and rng.random() < 0.95:
            return rng.choice(hits)
        return PASS if rng.random() < 0.9 else rng.choice(legal)
    if ref.phase == "snap":
        return PASS if rng.random() < 0.6 else rng.choice(legal)
    return rng.choice(legal)


def compare(eng, ref, n, where):
    s = eng.states[0]
    assert [[None if c < 0 else int(c) for c in s["slot"][p]] for p in range(n)] == \
        [ref.slots(p) for p in range(n)], where
    assert eng.piles(0) == (ref.stock(), ref.discard_pile()), where
    if not ref.round_over:
        for p in range(n):
            assert eng.seen_cards(0, p) == ref.seen(p), (where, p)
        assert int(s["turns"]) == ref.turns, where
    assert int(s["knocker"]) == (-1 if ref.knocker is None else ref.knocker), where
    assert [bool(x) for x in s["out"][:n]] == ref.out, where


def kind(ref, a, before_top):
    if a == DRAW_STOCK:
        return "draw stock"
    if a == TAKE_DISCARD:
        return "take discard"
    if a == DISCARD_DRAWN:
        return "discard drawn"
    if a < QUEEN_LOOK:
        return "place"
    if a < JACK_SWAP:
        return "queen"
    if a < SNAP:
        return "jack"
    if a < PASS:
        return "snap"
    return {PASS: "pass", KNOCK: "knock"}.get(a, "no knock")


def play_both(rng, seen, style, **opts):
    n = opts["num_players"]
    deck = list(range(52))
    rng.shuffle(deck)
    dealer = rng.randrange(n)
    ref = CaboRound(n, deck, dealer, hand_size=opts["hand_size"], peek=opts["peek"],
                    knocker_final_turn=opts["knocker_final_turn"], tie_doubles=opts["tie_doubles"],
                    turn_limit=opts["turn_limit"])
    eng = VectorGame(1, seed=0, autoreset=False, episode="round", max_steps=100_000, **opts)
    eng.reset(deck=deck, dealer=dealer)
    step = 0
    while True:
        where = f"{opts} style={style} step {step}"
        compare(eng, ref, n, where)
        if ref.round_over:
            assert eng.game_over[0] and eng.round_over[0] and int(eng.current_player[0]) == -1, where
            assert eng.round_points[0].tolist() == ref.points(), where
            assert eng.hand_totals(0).tolist() == [ref.hand_totals()], where
            seen["knocked round"] += ref.knocker is not None
            seen["out round"] += any(ref.out)
            seen["turn limit round"] += ref.turns == opts["turn_limit"]
            seen["knocker doubled"] += ref.knocker is not None and ref.points()[ref.knocker] > \
                ref.hand_totals()[ref.knocker]
            seen["rounds"] += 1
            return step
        assert int(eng.current_player[0]) == ref.current_player, where
        legal = ref.legal_actions()
        assert np.flatnonzero(eng.legal_action_mask[0]).tolist() == legal, where
        a = choose(ref, rng, style)
        k = kind(ref, a, None)
        seen[k] += 1
        if k == "snap":
            q = ref.current_player
            good = card_rank(ref.slots(q)[a - SNAP]) == card_rank(ref.discard_pile()[0])
            seen["correct snap" if good else "wrong snap"] += 1
            if good and ref.num_cards(q) == 1:
                seen["went out" + (" in R7 window" if ref.turns == 0 and ref.phase == "snap"
                                   and int(eng.states[0]["in_turn"]) == 0 else "")] += 1
            if not good and not ref.stock():
                seen["R17 refill for a penalty"] += 1
        if a == DRAW_STOCK and not ref.stock():
            seen["R17 refill for a draw"] += 1
        if ref.phase == "draw" and ref.knocker is not None and ref.current_player == ref.knocker:
            seen["knocker's final turn"] += 1
        out_before = sum(ref.out)
        ref.step(a)
        eng.step(np.array([a]))
        if ref.phase == "place" and k == "draw stock":
            seen["jack/queen not triggered" if card_rank(ref.drawn) in (11, 12) else "plain stock draw"] += 1
        seen["second player out"] += out_before == 1 and sum(ref.out) == 2
        step += 1


def options(rng, n):
    hand = rng.choice([1, 2, 3, 4, 4, 4, 5, 6, 8])
    return dict(num_players=n, hand_size=hand, peek=rng.randint(0, hand),
                knocker_final_turn=rng.random() < 0.7, tie_doubles=rng.random() < 0.3,
                turn_limit=rng.choice([0, 200, 200, 3, 10, 40]))


ROUNDS = 400  # per player count: 2,000 rounds in all, compared decision by decision


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_engine_matches_reference_on_random_rounds(n):
    rng = random.Random(100 + n)
    seen = Counter()
    for i in range(ROUNDS):
        seen["decisions"] += play_both(rng, seen, "snapper" if i % 2 else "random", **options(rng, n))
    # The comparison is only as good as the paths it went through.
    for path in ("draw stock", "take discard", "discard drawn", "place", "queen", "jack", "correct snap",
                 "wrong snap", "pass", "knock", "no knock", "went out", "knocked round", "out round",
                 "turn limit round", "knocker doubled", "knocker's final turn", "R17 refill for a draw"):
        assert seen[path] > 0, (path, seen)
    assert seen["decisions"] > 30 * ROUNDS, seen



def test_engine_matches_reference_on_rare_paths():
    """Long rounds with big hands empty the stock often (R17 for penalties); tiny hands let players go
    out in R7's window and several players go out in one round."""
    rng = random.Random(7)
    seen = Counter()
    for i in range(600):
        n = rng.randrange(2, 7)
        opts = options(rng, n)
        if i % 2:
            opts.update(hand_size=rng.choice([1, 1, 2]), peek=0, turn_limit=0)
        else:
            hand = rng.choice([6, 7, 8])
            opts.update(hand_size=hand, peek=min(opts["peek"], hand), turn_limit=rng.choice([0, 200]))
        play_both(rng, seen, "snapper" if i % 3 else "random", **opts)
    for path in ("R17 refill for a penalty", "went out in R7 window", "second player out"):
        assert seen[path] > 0, (path, seen)
