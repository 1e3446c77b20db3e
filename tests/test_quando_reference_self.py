"""Self-tests of the reference round (tests/quando_reference.py) on hand-built decks.

The rulebook's worked examples (spec, end of "Scoring and the game") plus a few targeted rule
checks and random-play smoke tests.  Test names carry the rule they check.
"""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from quando_reference import (  # noqa: E402
    KNOCK, PASS, TAKE_UP, TAKE_DOWN, FLIP_UNSEEN,
    RefRound, Reshuffle, complete_deck, deck_for_hands, full_card_set, set_action,
)


def _pairs(cards):
    return sorted(tuple(sorted(c)) for c in cards)


def _all_cards(r):
    cards = [c for p in range(r.n) for c in r.hand(p)] + r.draw_pile() + r.discard_pile()
    return cards


# ----------------------------------------------------------------------------- deck helpers
def test_R5_deck_for_hands_deals_as_requested():
    hands = [[(1, 0), (2, 0)], [(3, 0), (4, 0)], [(5, 0), (6, 0)]]
    for dealer in range(3):
        deck = complete_deck(hands, draw_top=[(9, 10)], dealer=dealer)
        r = RefRound(3, deck, dealer, hand_size=2)
        assert [r.hand(p) for p in range(3)] == hands
        assert r.draw_pile()[0] == (9, 10)
        assert len(r.draw_pile()) == 55 - 6
        assert r.current_player == (dealer + 1) % 3          # R6


def test_R1_deck_builder_rejects_bad_decks():
    with pytest.raises(ValueError):
        deck_for_hands([[(1, 0)], [(1, 0)]], [], 1, 2)      # duplicate card, missing cards
    with pytest.raises(ValueError):
        complete_deck([[(1, 0)], [(0, 1)]])                 # same card twice


# ----------------------------------------------------------------------------- worked examples
TRIPLET_HANDS = [
    # Tim (seat 0, active): three 8s
    [(8, 1), (8, 2), (8, 3), (5, 1), (6, 1), (7, 1), (9, 1)],
    # Sarah (seat 1): two zeros
    [(0, 4), (0, 5), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)],
    # Maria (seat 2): no zero front
    [(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (9, 8), (10, 9)],
    # Linus (seat 3): no zero front
    [(1, 0), (2, 0), (3, 0), (5, 3), (6, 3), (7, 3), (10, 3)],
]


def test_R12_triplet_example_kendi():
    deck = complete_deck(TRIPLET_HANDS, draw_top=[(4, 6), (10, 0), (9, 0)], dealer=3)
    r = RefRound(4, deck, 3, edition="kendi")
    assert r.current_player == 0
    assert set_action(8, 3) in r.legal_actions()
    r.step(set_action(8, 3))
    # R10/D4: all backs unseen -> acquisition order; the last placed is on top
    assert r.discard_pile() == [(8, 3), (8, 2), (8, 1)]
    assert r.current_player == 0 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_UP)                                          # Tim draws first (R12 kendi)
    assert r.hand(0)[-1] == (4, 6)
    # Sarah has two zeros: must flip one (never draws)
    assert r.current_player == 1 and r.legal_actions() == [FLIP_UNSEEN]
    r.step(FLIP_UNSEEN)                                      # D5: earliest acquired (0,4)
    assert r.hand(1)[:2] == [(4, 0), (0, 5)]
    for q in range(4):                                       # everyone knows both sides now
        assert r.has_seen(q, (0, 4), 0) and r.has_seen(q, (0, 4), 4)
    # Maria and Linus have no zero: draw
    assert r.current_player == 2 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_UP)
    assert r.hand(2)[-1] == (10, 0)
    assert r.current_player == 3 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_DOWN)
    assert r.hand(3)[-1] == (0, 9)
    # play goes on with the player left of the active one: Sarah
    assert r.current_player == 1 and not r.round_over
    assert set_action(4, 1) in r.legal_actions()
    assert [len(r.hand(p)) for p in range(4)] == [5, 7, 8, 8]


def test_R12o_triplet_example_oya_penalty_before_own_draw():
    deck = complete_deck(TRIPLET_HANDS, draw_top=[(4, 6), (10, 0), (9, 0)], dealer=3)
    r = RefRound(4, deck, 3, edition="oya")
    r.step(set_action(8, 3))
    assert r.current_player == 1 and r.legal_actions() == [FLIP_UNSEEN]
    r.step(FLIP_UNSEEN)
    assert r.current_player == 2
    r.step(TAKE_UP)
    assert r.hand(2)[-1] == (4, 6)
    assert r.current_player == 3
    r.step(TAKE_UP)
    assert r.hand(3)[-1] == (10, 0)
    assert r.current_player == 0 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_DOWN)                                        # Tim finishes by drawing
    assert r.hand(0)[-1] == (0, 9)
    assert r.current_player == 0 and r.legal_actions() == [KNOCK, PASS]   # R15o
    r.step(PASS)
    assert r.current_player == 1 and KNOCK not in r.legal_actions()


ONLY_ZEROS_HANDS = [
    [(9, 1), (9, 2), (9, 3), (0, 5)],        # Maria: 9, 9, 9, 0
    [(1, 2), (2, 3), (3, 4), (4, 5)],
    [(0, 1), (5, 6), (6, 7), (7, 8)],
    [(10, 1), (10, 2), (10, 3), (10, 4)],
]


def test_R14_R13_only_zeros_example_cancels_penalty():
    deck = complete_deck(ONLY_ZEROS_HANDS, draw_top=[(0, 6)], dealer=3)
    r = RefRound(4, deck, 3, edition="kendi", hand_size=4)
    r.step(set_action(9, 3))
    r.step(TAKE_UP)                                          # draws a 0
    assert r.round_over and r.legal_actions() == []
    assert r.hand(0) == [(0, 5), (0, 6)]
    for p in (1, 2, 3):                                      # no penalty happened
        assert r.hand(p) == ONLY_ZEROS_HANDS[p]
    assert r.points() == [0, 10, 18, 40]
    with pytest.raises(ValueError):
        r.step(TAKE_UP)


def test_R12o_R14_only_zeros_oya_penalty_not_cancelled():
    deck = complete_deck(ONLY_ZEROS_HANDS, draw_top=[(5, 7), (2, 4), (0, 6)], dealer=3)
    r = RefRound(4, deck, 3, edition="oya", hand_size=4)
    r.step(set_action(9, 3))
    assert r.current_player == 1
    r.step(TAKE_UP)                                          # seat 1 draws (5,7)
    assert r.current_player == 2 and r.legal_actions() == [FLIP_UNSEEN]
    r.step(FLIP_UNSEEN)                                      # seat 2 flips its zero
    assert r.current_player == 3
    r.step(TAKE_UP)                                          # seat 3 draws (2,4)
    assert r.current_player == 0
    r.step(TAKE_UP)                                          # Maria draws the 0
    assert r.round_over
    assert r.points() == [0, 15, 19, 42]


def _knock_then_pass_all(hands, expected):
    r = RefRound(4, complete_deck(hands, dealer=3), 3, hand_size=3, knock_min_turns=0)
    assert KNOCK in r.legal_actions()
    r.step(KNOCK)
    for seat in (1, 2, 3):
        assert r.current_player == seat
        assert PASS in r.legal_actions() and KNOCK not in r.legal_actions()   # R16
        r.step(PASS)
    assert r.round_over and r.knocker == 0
    assert r.points() == expected


def test_R17_scoring_example_knocker_lowest_alone():
    hands = [
        [(0, 5), (1, 5), (1, 6)],            # Linus (knocker): 2
        [(3, 7), (4, 7), (4, 8)],            # Tim: 11
        [(1, 7), (2, 7), (3, 8)],            # Sarah: 6
        [(0, 6), (2, 6), (2, 8)],            # Maria: 4
    ]
    _knock_then_pass_all(hands, [0, 11, 6, 4])


def test_R18_scoring_example_knocker_tied():
    hands = [
        [(0, 5), (1, 5), (3, 5)],            # Sarah (knocker): 4
        [(3, 6), (4, 6), (5, 6)],            # Maria: 12
        [(1, 6), (2, 6), (4, 7)],            # Linus: 7
        [(0, 7), (1, 7), (3, 7)],            # Tim: 4
    ]
    _knock_then_pass_all(hands, [9, 12, 7, 0])


def test_R18_R12o_french_example():
    hands = [
        [(5, 9), (0, 2), (3, 9), (1, 4)],    # Nico
        [(1, 8), (1, 9), (2, 9), (3, 10)],   # Emma: 7
        [(6, 1), (6, 2), (6, 3), (10, 4)],   # Cyrille
    ]
    deck = complete_deck(hands, draw_top=[(1, 7), (0, 8), (5, 10)], dealer=2)
    r = RefRound(3, deck, 2, edition="oya", hand_size=4)
    assert KNOCK not in r.legal_actions()                    # oya: no knock at turn start
    r.step(set_action(5, 1))
    r.step(TAKE_UP)
    assert r.legal_actions() == [KNOCK, PASS]
    r.step(KNOCK)                                            # Nico knocks after his draw
    assert r.knocker == 0 and r.current_player == 1
    assert PASS in r.legal_actions() and KNOCK not in r.legal_actions()
    r.step(PASS)                                             # Emma passes
    assert r.current_player == 2
    r.step(set_action(6, 3))                                 # Cyrille: triplet
    assert r.current_player == 0 and r.legal_actions() == [FLIP_UNSEEN]   # knocker included
    r.step(FLIP_UNSEEN)
    assert r.current_player == 1 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_UP)
    assert r.current_player == 2 and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
    r.step(TAKE_UP)
    assert r.round_over                                      # back at the knocker: end
    assert r.hand_sums() == [7, 7, 15]
    assert r.points() == [12, 0, 15]


# ----------------------------------------------------------------------------- targeted rules
def test_D3_knock_penalty_also_when_round_ends_by_only_zeros():
    hands = [[(1, 2), (1, 3), (2, 3), (4, 5)],
             [(9, 1), (9, 2), (9, 3), (0, 4)]]
    deck = complete_deck(hands, draw_top=[(0, 5)])
    r = RefRound(2, deck, 1, hand_size=4, knock_min_turns=0)
    r.step(KNOCK)
    r.step(set_action(9, 3))
    r.step(TAKE_UP)
    assert r.round_over
    assert r.points() == [8 + 5, 0]


def test_R15_knock_needs_two_completed_AB_turns_each():
    hands = [[(v, 0) for v in range(1, 9)], [(v, 9) for v in range(1, 9)]]
    r = RefRound(2, complete_deck(hands), 1)
    knock_legal = []
    for _ in range(5):
        knock_legal.append(KNOCK in r.legal_actions())
        if len(knock_legal) == 5:
            break
        r.step(min(a for a in r.legal_actions() if a >= 9))  # a set of one card
        r.step(TAKE_DOWN)
    assert knock_legal == [False, False, False, False, True]
    r.step(KNOCK)
    assert r.knocker == 0 and r.current_player == 1
    assert PASS in r.legal_actions()
    r.step(set_action(r.hand(1)[0][0], 1))                   # last-round turn played normally
    r.step(TAKE_UP)
    assert r.round_over


def test_D4_known_high_back_goes_first():
    # Seat 0 draws (up 9, down 5) taking it down: front 5, back 9 known to it.
    hands = [[(5, 1), (2, 1), (3, 1), (4, 1), (6, 1), (7, 1), (8, 1), (10, 1)],
             [(2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (2, 9), (2, 10)]]
    deck = complete_deck(hands, draw_top=[(9, 5), (3, 4)])
    r = RefRound(2, deck, 1)
    r.step(set_action(2, 1))
    r.step(TAKE_DOWN)
    assert r.hand(0)[-1] == (5, 9) and r.has_seen(0, (5, 9), 9)
    r.step(set_action(2, 1))
    r.step(TAKE_UP)
    r.step(set_action(5, 2))                                 # both 5s: known 9 first, 5.5 next
    assert r.discard_pile()[:2] == [(5, 1), (5, 9)]


def test_D4_unseen_back_beats_known_low_back_and_ties_by_acquisition():
    # Seat 0 takes (up 2, down 5) down: front 5, back 2 known -> the unseen back (5.5) goes first.
    hands = [[(5, 1), (2, 1), (3, 1), (4, 1), (6, 1), (7, 1), (8, 1), (5, 3)],
             [(2, 3), (2, 4), (2, 6), (2, 7), (2, 8), (2, 9), (2, 10), (3, 4)]]
    deck = complete_deck(hands, draw_top=[(2, 5), (3, 6)])
    r = RefRound(2, deck, 1)
    r.step(set_action(2, 1))
    r.step(TAKE_DOWN)
    assert r.hand(0)[-1] == (5, 2)
    r.step(set_action(2, 1))
    r.step(TAKE_UP)
    r.step(set_action(5, 1))                                 # (5,1) and (5,3) unseen: earliest
    assert r.discard_pile()[0] == (5, 1)
    r.step(TAKE_UP)
    r.step(set_action(2, 1))
    r.step(TAKE_UP)
    r.step(set_action(5, 1))                                 # (5,3) unseen beats known back 2
    assert r.discard_pile()[0] == (5, 3)


def test_K1_K2_knowledge_of_take_up_and_take_down():
    hands = [[(v, 0) for v in range(1, 9)], [(v, 9) for v in range(1, 9)]]
    deck = complete_deck(hands, draw_top=[(4, 10), (5, 10)])
    r = RefRound(2, deck, 1)
    assert r.has_seen(0, (4, 10), 4) and r.has_seen(1, (4, 10), 4)       # K2
    assert not r.has_seen(0, (1, 0), 0) and r.has_seen(1, (1, 0), 0)     # D1, K1
    r.step(set_action(1, 1))
    r.step(TAKE_UP)                                          # front 4, back 10
    assert not r.has_seen(0, (4, 10), 10) and r.has_seen(1, (4, 10), 10)
    r.step(set_action(1, 1))
    r.step(TAKE_DOWN)                                        # front 10, back 5
    assert r.has_seen(1, (5, 10), 5) and r.has_seen(1, (5, 10), 10)
    assert r.has_seen(0, (5, 10), 5) and not r.has_seen(0, (5, 10), 10)


def _two_player_big_hands():
    cards = full_card_set()
    h0 = [(lo, hi) for lo, hi in cards[:27]]                 # fronts = low numbers
    h1 = [(hi, lo) for lo, hi in cards[27:54]]
    last = cards[54]
    return [h0, h1], [(last[0], last[1])]


def test_R11_kendi_turn_over_discard_pile_as_block():
    hands, top = _two_player_big_hands()
    r = RefRound(2, deck_for_hands(hands, top, 1, 2), 1, hand_size=27)
    assert len(r.draw_pile()) == 1
    r.step(0)                                                # straight 0,1,2
    assert r.discard_pile() == [(2, 3), (1, 2), (0, 1)]
    r.step(TAKE_UP)                                          # takes the last card
    assert r.discard_pile() == []
    assert r.draw_pile() == [(1, 0), (2, 1), (3, 2)]         # first discarded on top, flipped
    for q in range(2):
        assert r.has_seen(q, (0, 1), 1)                      # K2 on the new top


def test_R11_oya_raises_reshuffle():
    hands, top = _two_player_big_hands()
    r = RefRound(2, deck_for_hands(hands, top, 1, 2), 1, edition="oya", hand_size=27)
    r.step(0)
    with pytest.raises(Reshuffle):
        r.step(TAKE_UP)


def test_D2_skipped_penalty_draws_and_discard_onto_empty_table():
    cards = full_card_set()
    sevens = [(7, 8), (7, 9), (7, 10)]
    draw = (5, 6)
    others = [(hi, lo) for lo, hi in cards
              if (lo, hi) not in [(7, 8), (7, 9), (7, 10), (5, 6)]]   # front = higher number
    hands = [sevens + others[:6]] + [others[6 + 9 * i: 15 + 9 * i] for i in range(5)]
    r = RefRound(6, deck_for_hands(hands, [draw], 5, 6), 5, hand_size=9)
    r.step(set_action(7, 3))
    r.step(TAKE_UP)                                          # last card: discard pile turned over
    assert r.draw_pile() == [(8, 7), (9, 7), (10, 7)]
    for seat in (1, 2, 3):
        assert r.current_player == seat and r.legal_actions() == [TAKE_UP, TAKE_DOWN]
        r.step(TAKE_UP)
    # seats 4 and 5 cannot draw: skipped (D2); play goes on with seat 1
    assert r.current_player == 1 and not r.round_over
    assert r.draw_pile() == [] and r.discard_pile() == []
    assert [len(r.hand(p)) for p in range(6)] == [7, 10, 10, 10, 9, 9]
    before = r.hand(1)
    r.step(set_action(before[0][0], 1))
    (front, back), = [c for c in before if c not in r.hand(1)]
    # R11: discarded onto an empty table, it becomes the draw pile at once, other side up
    assert r.discard_pile() == [] and r.draw_pile() == [(back, front)]
    r.step(TAKE_UP)
    assert r.hand(1)[-1] == (back, front)


def test_illegal_action_raises():
    r = RefRound(2, complete_deck([[(v, 0) for v in range(1, 9)],
                                   [(v, 9) for v in range(1, 9)]]), 1)
    with pytest.raises(ValueError):
        r.step(KNOCK)
    with pytest.raises(ValueError):
        r.step(TAKE_UP)
    with pytest.raises(ValueError):
        r.step(set_action(0, 1))


# ----------------------------------------------------------------------------- random smoke
def _random_deck(rng):
    cards = full_card_set()
    rng.shuffle(cards)
    return [[a, b] if rng.random() < 0.5 else [b, a] for a, b in cards]


def _check_invariants(r):
    assert _pairs(_all_cards(r)) == full_card_set()          # every card exactly once
    assert r.draw_pile() or not r.discard_pile()             # R11
    for p in range(r.n):
        for front, back in r.hand(p):                        # K1
            assert r.has_seen(p, (front, back), front)
            for q in range(r.n):
                if q != p:
                    assert r.has_seen(q, (front, back), back)
    if not r.round_over:
        assert r.legal_actions(), "every decision has a legal action"
        assert 0 <= r.current_player < r.n


@pytest.mark.parametrize("edition", ["kendi", "oya"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_random_play_smoke(num_players, edition):
    rng = random.Random(1000 * num_players + (edition == "oya"))
    ended = reshuffled = 0
    for _ in range(40):
        dealer = rng.randrange(num_players)
        r = RefRound(num_players, _random_deck(rng), dealer, edition=edition)
        assert r.current_player == (dealer + 1) % num_players
        _check_invariants(r)
        try:
            for _ in range(5000):
                if r.round_over:
                    break
                r.step(rng.choice(r.legal_actions()))
                _check_invariants(r)
        except Reshuffle:
            assert edition == "oya"
            reshuffled += 1
            continue
        if r.round_over:
            ended += 1
            pts = r.points()
            sums = r.hand_sums()
            assert len(pts) == num_players and min(pts) == 0
            for p in range(num_players):
                assert pts[p] in (0, sums[p], sums[p] + 5)
    assert ended > 0
