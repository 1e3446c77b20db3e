"""Self-tests of the Cabo reference round (tests/cabo_reference.py).

Hand-built decks check one rule each (test names carry the rule id of quando_env/cabo/RULES.md), then
random rounds check invariants and the K10 information property.
"""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cabo_reference import (  # noqa: E402
    CLUBS, DIAMONDS, HEARTS, SPADES, JACK, QUEEN, KING, ACE,
    NUM_ACTIONS, DRAW_STOCK, TAKE_DISCARD, DISCARD_DRAWN, PASS, KNOCK, NO_KNOCK,
    CaboRound, action_phase, add_round_points, card_id, card_rank, card_suit, card_value,
    decode_jack, deck_for, first_dealer, game_over, is_red, jack_action, next_dealer,
    place_action, queen_action, snap_action, winners,
)

C = card_id


# ----------------------------------------------------------------------------- helpers
def do(r, player, phase, action):
    """Step `action`, first checking who decides and in which phase."""
    assert (r.current_player, r.phase) == (player, phase), (r.current_player, r.phase)
    assert action in r.legal_actions(), (action, r.legal_actions())
    r.step(action)


def pass_window(r):
    """Pass every snap decision of the open window; returns the seats asked, in order."""
    asked = []
    while r.phase == "snap":
        asked.append(r.current_player)
        r.step(PASS)
    return asked


def simple_turn(r, player, knock=None):
    """Draw from the stock, discard it, pass the window, then answer the knock decision if any."""
    do(r, player, "draw", DRAW_STOCK)
    do(r, player, "place", DISCARD_DRAWN)
    pass_window(r)
    if knock is not None:
        do(r, player, "knock", KNOCK if knock else NO_KNOCK)


def all_cards(r):
    cards = [c for p in range(r.num_players) for c in r.slots(p) if c is not None]
    cards += r.stock() + r.discard_pile()
    if r.drawn is not None:
        cards.append(r.drawn)
    return cards


def occupied(r, p):
    return [s for s, c in enumerate(r.slots(p)) if c is not None]


# ----------------------------------------------------------------------------- material
def test_R1_card_ids_rank_suit_colour():
    assert [card_rank(c) for c in (0, 3, 4, 39, 40, 43, 44, 47, 48, 51)] == \
        [1, 1, 2, 10, 11, 11, 12, 12, 13, 13]
    assert [card_suit(c) for c in range(4)] == [CLUBS, DIAMONDS, HEARTS, SPADES]
    assert [is_red(c) for c in range(4)] == [False, True, True, False]
    for c in range(52):
        assert C(card_rank(c), card_suit(c)) == c
    with pytest.raises(ValueError):
        card_rank(52)


def test_R2_card_values():
    assert card_value(C(ACE, SPADES)) == 1
    assert card_value(C(10, HEARTS)) == 10
    assert card_value(C(JACK, CLUBS)) == 11
    assert card_value(C(QUEEN, DIAMONDS)) == 12
    assert card_value(C(KING, DIAMONDS)) == 0 and card_value(C(KING, HEARTS)) == 0
    assert card_value(C(KING, CLUBS)) == 13 and card_value(C(KING, SPADES)) == 13
    assert sum(card_value(c) for c in range(52)) == 4 * 78 + 26


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_R3_D1_two_to_six_players_with_eight_slots(n):
    r = CaboRound(n, list(range(52)), n - 1)
    assert r.num_players == n
    for p in range(n):
        assert len(r.slots(p)) == 8
        assert r.slots(p)[4:] == [None] * 4
        assert r.num_cards(p) == 4


@pytest.mark.parametrize("n", [0, 1, 7, 10])
def test_R3_D1_other_player_counts_rejected(n):
    with pytest.raises(ValueError):
        CaboRound(n, list(range(52)), 0)


def test_R4_deck_and_argument_validation():
    good = list(range(52))
    with pytest.raises(ValueError):
        CaboRound(3, good[:51], 2)                            # 51 cards
    with pytest.raises(ValueError):
        CaboRound(3, [0] + good[1:51] + [0], 2)               # duplicate
    with pytest.raises(ValueError):
        CaboRound(3, good[:51] + [52], 2)                     # id out of range
    with pytest.raises(ValueError):
        CaboRound(3, good, 3)                                 # dealer not a seat
    with pytest.raises(ValueError):
        CaboRound(3, good, -1)
    with pytest.raises(ValueError):
        CaboRound(3, good, 2, hand_size=0)
    with pytest.raises(ValueError):
        CaboRound(3, good, 2, hand_size=9)
    with pytest.raises(ValueError):
        CaboRound(3, good, 2, peek=9)
    with pytest.raises(ValueError):
        CaboRound(3, good, 2, peek=-1)
    with pytest.raises(ValueError):
        CaboRound(3, good, 2, turn_limit=-1)
    with pytest.raises(ValueError):
        CaboRound(3, good, "2")
    CaboRound(6, good, 5, hand_size=8, peek=8, turn_limit=0)   # the largest setup fits


def test_R4_deck_builder():
    hands = [[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)], [C(6, 0), C(7, 0)]]
    for dealer in range(3):
        deck = deck_for(hands, C(9, 0), [C(10, 0)], dealer=dealer)
        assert sorted(deck) == list(range(52))
        r = CaboRound(3, deck, dealer, hand_size=2)
        assert [r.slots(p)[:2] for p in range(3)] == hands
        assert r.discard_pile() == [C(9, 0)] and r.stock()[0] == C(10, 0)
    with pytest.raises(ValueError):
        deck_for([[1], [1]], 2)


# ----------------------------------------------------------------------------- action table
def test_action_table_is_a_bijection_onto_350():
    table = {0: ("draw",), 1: ("take",), 10: ("discard",), 347: ("pass",), 348: ("knock",),
             349: ("no knock",)}
    for s in range(8):
        table[place_action(s)] = ("place", s)
        table[queen_action(s)] = ("queen", s)
        table[snap_action(s)] = ("snap", s)
    for r in range(1, 6):
        for p in range(8):
            for q in range(8):
                a = jack_action(r, p, q)
                assert a not in table
                table[a] = ("jack", r, p, q)
                assert decode_jack(a) == (r, p, q)
    assert sorted(table) == list(range(NUM_ACTIONS)) and NUM_ACTIONS == 350


def test_action_table_fixed_indices_and_phases():
    assert (DRAW_STOCK, TAKE_DISCARD, DISCARD_DRAWN, PASS, KNOCK, NO_KNOCK) == \
        (0, 1, 10, 347, 348, 349)
    assert [place_action(s) for s in (0, 7)] == [2, 9]
    assert [queen_action(s) for s in (0, 7)] == [11, 18]
    assert jack_action(1, 0, 0) == 19 and jack_action(5, 7, 7) == 338
    assert jack_action(2, 3, 4) == 19 + 64 + 24 + 4
    assert [snap_action(s) for s in (0, 7)] == [339, 346]
    phases = [action_phase(a) for a in range(350)]
    assert phases.count("draw") == 2 and phases.count("place") == 9
    assert phases.count("queen") == 8 and phases.count("jack") == 320
    assert phases.count("snap") == 9 and phases.count("knock") == 2
    for bad in [(0, 0, 0), (6, 0, 0), (1, 8, 0), (1, 0, -1)]:
        with pytest.raises(ValueError):
            jack_action(*bad)
    with pytest.raises(ValueError):
        snap_action(8)


# ----------------------------------------------------------------------------- setup
@pytest.mark.parametrize("n,dealer", [(2, 1), (3, 0), (4, 2), (6, 5)])
def test_R5_R6_deal_order_upcard_and_stock(n, dealer):
    deck = list(range(51, -1, -1))
    r = CaboRound(n, deck, dealer, hand_size=4)
    for p in range(n):
        k = (p - dealer - 1) % n                              # position in a dealing round
        assert r.slots(p)[:4] == [deck[i * n + k] for i in range(4)]
    assert r.discard_pile() == [deck[4 * n]]
    assert r.stock() == deck[4 * n + 1:]
    assert sorted(all_cards(r)) == list(range(52))


def test_R6_K1_K2_D2_peek_slots_and_upcard():
    deck = list(range(52))
    for peek in (0, 1, 2, 4):
        r = CaboRound(3, deck, 2, hand_size=4, peek=peek)
        up = r.discard_pile()[0]
        for p in range(3):
            assert r.seen(p) == set(r.slots(p)[:peek]) | {up}


def test_R7_D10_D13_upcard_window_then_first_turn_left_of_dealer():
    r = CaboRound(4, list(range(52)), 2)
    assert r.phase == "snap" and r.turns == 0
    assert pass_window(r) == [3, 0, 1, 2]                     # R13 order, dealer last
    # no knock decision after R7's window (D10); it is not a turn (D13)
    assert (r.current_player, r.phase, r.turns) == (3, "draw", 0)
    assert r.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]


def test_R7_R20_out_in_upcard_window_dealer_gets_no_turn_R10_jack_skipped():
    # 2 players, dealer 1.  The dealer snaps its only card on the upcard and goes out.
    deck = deck_for([[C(4, 0)], [C(7, 1)]], C(7, 0), [C(JACK, 0)], dealer=1)
    r = CaboRound(2, deck, 1, hand_size=1)
    do(r, 0, "snap", PASS)
    do(r, 1, "snap", snap_action(0))                          # correct: out
    assert r.out == [False, True] and r.num_cards(1) == 0
    # R7: seat 0 takes the first turn; it draws a Jack but nobody else holds a card (R10)
    do(r, 0, "draw", DRAW_STOCK)
    assert r.phase == "place" and r.drawn == C(JACK, 0)
    assert C(JACK, 0) in r.seen(0) and C(JACK, 0) not in r.seen(1)   # rule skipped: no K5
    do(r, 0, "place", place_action(0))
    assert pass_window(r) == [0]                              # the out player is not asked
    # the turn would return to T = the dealer: the round ends, no knock decision
    assert r.round_over and r.phase == "over" and r.current_player is None
    assert r.turns == 1 and r.knocker is None
    assert r.slots(0)[0] == C(JACK, 0)
    assert r.points() == [11, 0]


# ----------------------------------------------------------------------------- a turn
def test_R9_K3_draw_from_stock_only_the_drawer_sees():
    deck = deck_for([[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)], [C(6, 0), C(7, 0)]],
                    C(8, 0), [C(9, 0)], dealer=2)
    r = CaboRound(3, deck, 2, hand_size=2)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    assert r.drawn == C(9, 0) and C(9, 0) not in r.stock()
    assert C(9, 0) in r.seen(0)
    assert C(9, 0) not in r.seen(1) and C(9, 0) not in r.seen(2)
    assert r.legal_actions() == [place_action(0), place_action(1), DISCARD_DRAWN]


def test_R9_D9_take_discard_top_must_be_placed():
    deck = deck_for([[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)]], C(8, 0), dealer=1)
    r = CaboRound(2, deck, 1, hand_size=2)
    pass_window(r)
    do(r, 0, "draw", TAKE_DISCARD)
    assert r.drawn == C(8, 0) and r.discard_pile() == []
    assert r.legal_actions() == [place_action(0), place_action(1)]      # no DISCARD_DRAWN
    do(r, 0, "place", place_action(1))
    assert r.slots(0)[:2] == [C(2, 0), C(8, 0)]
    assert r.discard_pile() == [C(3, 0)]
    assert all(C(3, 0) in r.seen(p) for p in range(2))                  # K4


def test_R12_K4_place_and_discard_drawn():
    deck = deck_for([[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)]], C(8, 0),
                    [C(9, 0), C(10, 0)], dealer=1)
    r = CaboRound(2, deck, 1, hand_size=2)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", place_action(0))                        # 9 in, the 2 goes face up
    assert r.slots(0)[:2] == [C(9, 0), C(3, 0)] and r.drawn is None
    assert r.discard_pile() == [C(2, 0), C(8, 0)]
    assert C(2, 0) in r.seen(1) and C(9, 0) not in r.seen(1)
    assert r.phase == "snap"                                  # R12: the window opens
    pass_window(r)
    do(r, 0, "knock", NO_KNOCK)
    do(r, 1, "draw", DRAW_STOCK)
    do(r, 1, "place", DISCARD_DRAWN)                          # the drawn 10 goes on top
    assert r.slots(1)[:2] == [C(4, 0), C(5, 0)]
    assert r.discard_pile()[0] == C(10, 0) and C(10, 0) in r.seen(0)


def test_R10_K5_K6_D8_jack_exchange_relative_seats_and_keep():
    hands = [[C(2, p), C(3, p), C(4, p), C(5, p)] for p in range(3)]
    hands[2] = [C(6, 0), C(7, 0), C(8, 0), C(9, 0)]
    deck = deck_for(hands, C(10, 0), [C(JACK, 1)], dealer=2)
    r = CaboRound(3, deck, 2)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    assert r.phase == "jack" and r.current_player == 0
    assert all(C(JACK, 1) in r.seen(p) for p in range(3))    # K5
    legal = r.legal_actions()
    assert legal == sorted(jack_action(rr, p, q) for rr in (1, 2) for p in range(4)
                           for q in range(4))
    before_seen = [r.seen(p) for p in range(3)]
    do(r, 0, "jack", jack_action(2, 0, 3))                    # own slot 0 <-> seat 2 slot 3
    assert r.slots(0)[0] == C(9, 0) and r.slots(2)[3] == C(2, 0)
    assert [r.seen(p) for p in range(3)] == before_seen       # K6: nobody looks
    assert C(9, 0) not in r.seen(0) and C(2, 0) in r.seen(0)  # knowledge moved with the card
    # D8: the Jack may then be kept
    assert r.legal_actions() == [place_action(s) for s in range(4)] + [DISCARD_DRAWN]
    do(r, 0, "place", place_action(1))
    assert r.slots(0)[1] == C(JACK, 1) and r.discard_pile()[0] == C(3, 0)


def test_R10_jack_relative_seat_encoding_from_a_later_seat():
    hands = [[C(r, 0)] for r in (2, 3, 4, 5)]
    deck = deck_for(hands, C(10, 0), [C(9, 0), C(8, 0), C(JACK, 2)], dealer=3)
    r = CaboRound(4, deck, 3, hand_size=1)
    pass_window(r)
    simple_turn(r, 0, knock=False)
    simple_turn(r, 1, knock=False)
    do(r, 2, "draw", DRAW_STOCK)
    # targets: seat 3 (r=1), seat 0 (r=2), seat 1 (r=3)
    assert r.legal_actions() == [jack_action(1, 0, 0), jack_action(2, 0, 0), jack_action(3, 0, 0)]
    do(r, 2, "jack", jack_action(2, 0, 0))
    assert r.slots(2)[0] == C(2, 0) and r.slots(0)[0] == C(4, 0)


def test_R11_K5_K7_D8_queen_peek_is_mandatory_on_occupied_slots():
    # seat 0 snaps its slot 2 on the upcard (a 5), so slot 2 is empty when the Queen comes.
    hands = [[C(2, 0), C(3, 0), C(5, 1), C(6, 0)], [C(7, 0), C(8, 0), C(9, 0), C(10, 0)]]
    deck = deck_for(hands, C(5, 0), [C(QUEEN, 3)], dealer=1)
    r = CaboRound(2, deck, 1)
    do(r, 0, "snap", snap_action(2))
    do(r, 0, "snap", PASS)
    do(r, 1, "snap", PASS)
    do(r, 0, "draw", DRAW_STOCK)
    assert r.phase == "queen"
    assert r.legal_actions() == [queen_action(0), queen_action(1), queen_action(3)]
    assert C(QUEEN, 3) in r.seen(1)                            # K5
    assert C(6, 0) not in r.seen(0)
    do(r, 0, "queen", queen_action(3))
    assert C(6, 0) in r.seen(0) and C(6, 0) not in r.seen(1)   # K7
    assert r.legal_actions() == [place_action(0), place_action(1), place_action(3),
                                 DISCARD_DRAWN]               # R12: occupied slots only
    do(r, 0, "place", place_action(3))                         # D8: the Queen is kept
    assert r.slots(0)[3] == C(QUEEN, 3) and r.discard_pile()[0] == C(6, 0)


def test_D8_jack_and_queen_act_only_when_drawn_from_the_stock_on_a_turn():
    # The upcard is a Jack; a wrong snap brings a Queen as penalty; then the Jack is taken
    # from the discard pile: no rule applies anywhere.
    hands = [[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)]]
    deck = deck_for(hands, C(JACK, 0), [C(QUEEN, 0), C(JACK, 1)], dealer=1)
    r = CaboRound(2, deck, 1, hand_size=2)
    do(r, 0, "snap", snap_action(0))                          # wrong: penalty is the Queen
    assert r.slots(0)[:3] == [C(2, 0), C(3, 0), C(QUEEN, 0)]
    assert C(QUEEN, 0) not in r.seen(0)                        # K9
    do(r, 1, "snap", PASS)
    do(r, 0, "draw", TAKE_DISCARD)
    assert r.phase == "place" and r.drawn == C(JACK, 0)        # no Jack exchange
    do(r, 0, "place", place_action(2))
    pass_window(r)
    do(r, 0, "knock", NO_KNOCK)
    do(r, 1, "draw", TAKE_DISCARD)                             # a Queen from the pile: no peek
    assert r.phase == "place" and r.drawn == C(QUEEN, 0)


# ----------------------------------------------------------------------------- the snap
def test_R13_window_order_after_a_turn_then_knock_decision():
    r = CaboRound(5, list(range(52)), 4)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)
    assert pass_window(r) == [1, 2, 3, 4, 0]
    assert (r.current_player, r.phase, r.legal_actions()) == (0, "knock", [KNOCK, NO_KNOCK])
    assert r.turns == 1
    do(r, 0, "knock", NO_KNOCK)
    assert (r.current_player, r.phase) == (1, "draw")
    do(r, 1, "draw", DRAW_STOCK)
    do(r, 1, "place", DISCARD_DRAWN)
    assert pass_window(r) == [2, 3, 4, 0, 1]


def test_R14_correct_snap_empties_slot():
    hands = [[C(2, 0), C(7, 1), C(3, 0), C(4, 0)], [C(5, 0), C(6, 0), C(8, 0), C(9, 0)]]
    deck = deck_for(hands, C(7, 0), dealer=1)
    r = CaboRound(2, deck, 1)
    before = r.slots(0)
    do(r, 0, "snap", snap_action(1))
    assert r.slots(0) == [C(2, 0), None, C(3, 0), C(4, 0)] + [None] * 4   # D6: others stay
    assert r.discard_pile() == [C(7, 1), C(7, 0)]
    assert all(C(7, 1) in r.seen(p) for p in range(2))          # K8
    assert r.slots(1) == [C(5, 0), C(6, 0), C(8, 0), C(9, 0)] + [None] * 4
    assert before != r.slots(0)
    # R13: after a correct snap the same player decides again, on its occupied slots only
    assert (r.current_player, r.phase) == (0, "snap")
    assert r.legal_actions() == [snap_action(0), snap_action(2), snap_action(3), PASS]


def test_R13_D5_several_snaps_by_several_players_in_one_window():
    hands = [[C(2, 0), C(3, 0)], [C(6, 1), C(4, 0)], [C(6, 2), C(6, 3)]]
    deck = deck_for(hands, C(9, 0), [C(6, 0)], dealer=2)
    r = CaboRound(3, deck, 2, hand_size=2)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)                           # a 6 on top
    do(r, 1, "snap", snap_action(0))
    do(r, 1, "snap", PASS)
    do(r, 2, "snap", snap_action(1))
    do(r, 2, "snap", snap_action(0))                           # seat 2 goes out
    assert r.out == [False, False, True]
    do(r, 0, "snap", PASS)                                     # seat 2 is not asked again
    assert r.discard_pile()[:4] == [C(6, 2), C(6, 3), C(6, 1), C(6, 0)]
    assert r.phase == "draw" and r.current_player == 1         # no knock: someone went out


def test_R13_wrong_snap_ends_the_part_of_that_player():
    hands = [[C(2, 0), C(3, 0)], [C(4, 0), C(5, 0)]]
    deck = deck_for(hands, C(9, 0), [C(10, 0)], dealer=1)
    r = CaboRound(2, deck, 1, hand_size=2)
    do(r, 0, "snap", snap_action(1))                           # wrong
    assert (r.current_player, r.phase) == (1, "snap")


def test_D3_red_king_matches_black_king():
    hands = [[C(KING, HEARTS), C(3, 0)], [C(4, 0), C(5, 0)]]
    deck = deck_for(hands, C(KING, SPADES), dealer=1)
    r = CaboRound(2, deck, 1, hand_size=2)
    do(r, 0, "snap", snap_action(0))
    assert r.slots(0)[:2] == [None, C(3, 0)]
    assert r.discard_pile() == [C(KING, HEARTS), C(KING, SPADES)]


def test_R16_D6_D7_K8_K9_wrong_snap_penalty_into_lowest_empty_slot():
    hands = [[C(2, 0), C(7, 1), C(3, 0), C(4, 0)], [C(5, 0), C(6, 0), C(8, 0), C(9, 0)]]
    deck = deck_for(hands, C(7, 0), [C(10, 0), C(10, 1)], dealer=1)
    r = CaboRound(2, deck, 1)
    do(r, 0, "snap", snap_action(1))                           # correct: slot 1 empty
    do(r, 0, "snap", snap_action(3))                           # wrong: the 4 is shown
    assert r.slots(0)[:5] == [C(2, 0), C(10, 0), C(3, 0), C(4, 0), None]
    assert r.discard_pile() == [C(7, 1), C(7, 0)]
    assert r.stock()[0] == C(10, 1)
    assert all(C(4, 0) in r.seen(p) for p in range(2))          # K8
    assert all(C(10, 0) not in r.seen(p) for p in range(2))     # K9
    assert (r.current_player, r.phase) == (1, "snap")          # the part has ended
    do(r, 1, "snap", snap_action(0))                           # wrong: lowest empty is slot 4
    assert r.slots(1) == [C(5, 0), C(6, 0), C(8, 0), C(9, 0), C(10, 1), None, None, None]


def test_R15_D6_eight_cards_are_not_asked():
    r = CaboRound(3, list(range(52)), 2, hand_size=8)
    assert r.phase == "draw" and r.current_player == 0         # nobody asked on the upcard
    r = CaboRound(2, list(range(52)), 1, hand_size=7)
    up = card_rank(r.discard_pile()[0])
    wrong = next(s for s in range(7) if card_rank(r.slots(0)[s]) != up)
    do(r, 0, "snap", snap_action(wrong))                       # 8 cards now
    assert r.num_cards(0) == 8
    do(r, 1, "snap", PASS)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)
    assert pass_window(r) == [1]                               # seat 0 with 8 cards is skipped
    assert r.phase == "knock"


def test_D4_only_own_cards_can_be_snapped_and_window_closes_before_next_draw():
    r = CaboRound(3, list(range(52)), 2)
    assert r.current_player == 0
    assert r.legal_actions() == [snap_action(s) for s in range(4)] + [PASS]
    pass_window(r)
    assert r.phase == "draw"


# ----------------------------------------------------------------------------- empty stock
def test_R17_D14_refill_on_stock_draw_oldest_discard_on_top():
    # 6 players with 8 cards: a stock of 3, nobody is ever asked to snap.
    deck = list(range(52))
    r = CaboRound(6, deck, 5, hand_size=8)
    up, s0, s1, s2 = deck[48], deck[49], deck[50], deck[51]
    assert r.stock() == [s0, s1, s2]
    for seat in (0, 1, 2):
        simple_turn(r, seat, knock=False)
    assert r.stock() == [] and r.discard_pile() == [s2, s1, s0, up]
    assert r.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    do(r, 3, "draw", DRAW_STOCK)
    assert r.drawn == up                                       # the oldest discard
    assert r.stock() == [s0, s1] and r.discard_pile() == [s2]
    # K4: the restocked stock is known to everyone
    assert all({s0, s1} <= r.seen(p) for p in range(6))


def test_R17_refill_for_a_penalty_card():
    deck = list(range(51, -1, -1))                             # a stock of 9 low cards (no J, Q)
    r = CaboRound(6, deck, 5, hand_size=7)
    pass_window(r)
    up = r.discard_pile()[0]
    stock = r.stock()
    seats = [0, 1, 2, 3, 4, 5, 0, 1, 2]
    for seat in seats[:-1]:
        simple_turn(r, seat, knock=False)
    do(r, 2, "draw", DRAW_STOCK)
    do(r, 2, "place", DISCARD_DRAWN)
    assert r.stock() == [] and len(r.discard_pile()) == 10
    top = card_rank(r.discard_pile()[0])
    assert r.current_player == 3
    wrong = next(s for s in range(7) if card_rank(r.slots(3)[s]) != top)
    do(r, 3, "snap", snap_action(wrong))
    assert r.slots(3)[7] == up                                 # the oldest discard
    assert r.stock() == stock[:8] and r.discard_pile() == [stock[8]]


def test_R17_no_card_when_refill_is_empty_whitebox():
    # Unreachable in play (see the NOTE in _take_from_stock), so checked on the helper itself.
    r = CaboRound(2, list(range(52)), 1)
    r._stock, r._discard = [], [5]
    assert r._take_from_stock() is None
    assert r._stock == [] and r._discard == [5]
    r._discard = [5, 6, 7]
    assert r._take_from_stock() == 7 and r._stock == [6] and r._discard == [5]


# ----------------------------------------------------------------------------- end of round
def _knock_setup(n=3, **options):
    r = CaboRound(n, list(range(52)), n - 1, **options)
    pass_window(r)
    return r


def test_R18_knock_offered_only_while_nobody_has_knocked():
    r = _knock_setup(3)
    simple_turn(r, 0, knock=False)
    simple_turn(r, 1, knock=True)
    assert r.knocker == 1
    simple_turn(r, 2)                                          # no knock decision
    assert (r.current_player, r.phase) == (0, "draw")


def test_R19_D11_last_lap_and_knockers_final_turn():
    r = _knock_setup(3)
    simple_turn(r, 0, knock=True)
    simple_turn(r, 1)
    simple_turn(r, 2)
    assert (r.current_player, r.phase) == (0, "draw")         # the knocker's last turn
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)
    assert pass_window(r) == [1, 2, 0]
    assert r.round_over and r.turns == 4                       # D11: no knock decision


def test_R19_option_no_final_turn_for_the_knocker():
    r = _knock_setup(3, knocker_final_turn=False)
    simple_turn(r, 0, knock=False)
    simple_turn(r, 1, knock=True)
    simple_turn(r, 2)
    simple_turn(r, 0)
    assert r.round_over and r.turns == 4


def test_R8_R20_D12_out_in_a_turn_skipped_seat_no_jack_target_lap_returns_to_T():
    hands = [[C(2, 0)], [C(3, 0)], [C(5, 1)], [C(9, 0)]]
    deck = deck_for(hands, C(7, 0), [C(5, 0), C(JACK, 0), C(4, 0), C(6, 0)], dealer=3)
    r = CaboRound(4, deck, 3, hand_size=1)
    assert pass_window(r) == [0, 1, 2, 3]
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)                           # a 5 on top
    do(r, 1, "snap", PASS)
    do(r, 2, "snap", snap_action(0))                           # seat 2 goes out in 0's turn
    assert r.out == [False, False, True, False]
    assert pass_window(r) == [3, 0]
    assert (r.current_player, r.phase) == (1, "draw")         # no knock decision (R18)
    do(r, 1, "draw", DRAW_STOCK)                               # a Jack
    assert r.legal_actions() == [jack_action(2, 0, 0), jack_action(3, 0, 0)]  # not seat 2
    do(r, 1, "jack", jack_action(2, 0, 0))
    assert r.slots(1)[0] == C(9, 0) and r.slots(3)[0] == C(3, 0)
    do(r, 1, "place", DISCARD_DRAWN)
    assert pass_window(r) == [3, 0, 1]                         # seat 2 not asked (D12)
    simple_turn(r, 3)                                          # seat 2 skipped (R8)
    assert r.round_over and r.turns == 3                       # the turn would return to 0
    assert r.points() == [2, 9, 0, 3]


def test_R20_active_player_goes_out_in_its_own_window():
    hands = [[C(5, 1)], [C(3, 0)], [C(9, 0)]]
    deck = deck_for(hands, C(7, 0), [C(5, 0)], dealer=2)
    r = CaboRound(3, deck, 2, hand_size=1)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)
    do(r, 1, "snap", PASS)
    do(r, 2, "snap", PASS)
    do(r, 0, "snap", snap_action(0))                           # the discarder is asked last
    assert r.out[0] and (r.current_player, r.phase) == (1, "draw")
    simple_turn(r, 1)
    simple_turn(r, 2)
    assert r.round_over and r.turns == 3


def _out_after_knock(seat0_cards, knocker_final_turn=True):
    """Seat 0 knocks on turn 1; in seat 1's turn seat 3 snaps both its 3s and goes out."""
    hands = [seat0_cards, [C(8, 0), C(8, 1)], [C(9, 0), C(9, 1)], [C(3, 1), C(3, 2)]]
    stock = [C(2, 0), C(3, 0), C(4, 0), C(5, 0)]
    deck = deck_for(hands, C(10, 0), stock, dealer=3)
    r = CaboRound(4, deck, 3, hand_size=2, knocker_final_turn=knocker_final_turn)
    pass_window(r)
    simple_turn(r, 0, knock=True)
    do(r, 1, "draw", DRAW_STOCK)
    do(r, 1, "place", DISCARD_DRAWN)                           # a 3 on top
    do(r, 2, "snap", PASS)
    do(r, 3, "snap", snap_action(0))
    do(r, 3, "snap", snap_action(1))                           # out in seat 1's turn
    assert pass_window(r) == [0, 1]
    simple_turn(r, 2)                                          # seat 3 skipped
    if knocker_final_turn:
        simple_turn(r, 0)                                      # R19 comes before R20's end
    assert r.round_over
    assert r.out == [False, False, False, True]
    return r


def test_required_out_after_knock_knocker_with_positive_total_is_doubled():
    r = _out_after_knock([C(6, 0), C(ACE, 0)])
    assert r.turns == 4 and r.knocker == 0
    assert r.hand_totals() == [7, 16, 18, 0]
    assert r.points() == [14, 16, 18, 0]


def test_required_out_after_knock_knocker_with_only_red_kings_scores_0():
    r = _out_after_knock([C(KING, DIAMONDS), C(KING, HEARTS)])
    assert r.hand_totals() == [0, 16, 18, 0]
    assert r.points() == [0, 16, 18, 0]


def test_R20_R19_out_after_knock_without_final_turn_ends_at_knocker():
    r = _out_after_knock([C(6, 0), C(ACE, 0)], knocker_final_turn=False)
    assert r.turns == 3 and r.points() == [14, 16, 18, 0]


def test_R21_D10_D13_turn_limit_ends_round_without_knock_decision():
    r = _knock_setup(2, turn_limit=3)
    assert r.turns == 0                                        # R7's window is not a turn
    simple_turn(r, 0, knock=False)
    simple_turn(r, 1, knock=False)
    assert r.turns == 2
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "place", DISCARD_DRAWN)
    pass_window(r)
    assert r.round_over and r.turns == 3                       # no knock decision on turn 3


def test_R21_D13_turn_limit_during_last_lap_scored_with_knocker_rule():
    r = _knock_setup(3, turn_limit=2)
    simple_turn(r, 0, knock=True)
    simple_turn(r, 1)
    assert r.round_over and r.turns == 2
    totals = r.hand_totals()
    doubled = min(totals[1], totals[2]) < totals[0]
    assert r.points()[0] == (2 * totals[0] if doubled else totals[0])


def test_R21_turn_limit_zero_means_none():
    r = _knock_setup(2, turn_limit=0)
    for t in range(250):                                       # swap with the discard top
        do(r, t % 2, "draw", TAKE_DISCARD)
        do(r, t % 2, "place", place_action(0))
        pass_window(r)
        do(r, t % 2, "knock", NO_KNOCK)
    assert not r.round_over and r.turns == 250


# ----------------------------------------------------------------------------- scoring
def _two_player_knock_round(card0, card1, tie_doubles=False):
    """Seat 0 (holding card0) knocks on the first turn; seat 1 holds card1."""
    deck = deck_for([[card0], [card1]], C(JACK, 3), [C(QUEEN, 0), C(QUEEN, 1), C(QUEEN, 2)],
                    dealer=1)
    r = CaboRound(2, deck, 1, hand_size=1, tie_doubles=tie_doubles)
    pass_window(r)
    do(r, 0, "draw", DRAW_STOCK)
    do(r, 0, "queen", queen_action(0))
    do(r, 0, "place", DISCARD_DRAWN)
    pass_window(r)
    do(r, 0, "knock", KNOCK)
    for seat in (1, 0):
        do(r, seat, "draw", DRAW_STOCK)
        do(r, seat, "queen", queen_action(0))
        do(r, seat, "place", DISCARD_DRAWN)
        pass_window(r)
    assert r.round_over
    return r


def test_R22_hand_totals():
    r = CaboRound(2, deck_for([[C(KING, CLUBS), C(KING, HEARTS), C(JACK, 0)],
                               [C(ACE, 0), C(QUEEN, 1), C(10, 2)]], C(2, 0), dealer=1), 1,
                  hand_size=3)
    assert r.hand_totals() == [24, 23]
    with pytest.raises(ValueError):
        r.points()                                             # only once the round is over


@pytest.mark.parametrize("k_card,o_card,tie_doubles,expected", [
    (C(5, 0), C(9, 0), False, [5, 9]),       # knocker strictly lowest
    (C(5, 0), C(3, 0), False, [10, 3]),      # someone strictly lower: doubled
    (C(5, 0), C(5, 1), False, [5, 5]),       # D15: a tie does not double
    (C(5, 0), C(5, 1), True, [10, 5]),       # option: a tie doubles
    (C(5, 0), C(9, 0), True, [5, 9]),
    (C(KING, 1), C(KING, 2), True, [0, 0]),  # 0 doubled is 0
])
def test_R23_D15_knocker_doubling(k_card, o_card, tie_doubles, expected):
    r = _two_player_knock_round(k_card, o_card, tie_doubles)
    assert r.knocker == 0 and r.points() == expected


def test_R23_no_knocker_points_are_totals():
    r = _knock_setup(2, turn_limit=1)
    simple_turn(r, 0)
    assert r.round_over and r.points() == r.hand_totals()


def test_R24_dealer_rotation_and_adding_points():
    assert first_dealer(4) == 3
    assert [next_dealer(d, 4) for d in range(4)] == [1, 2, 3, 0]
    assert add_round_points([10, 20, 30], [5, 0, 13]) == [15, 20, 43]
    with pytest.raises(ValueError):
        add_round_points([1, 2], [3])


def test_R25_exactly_100_gives_75():
    totals = add_round_points([90, 40], [10, 12])
    assert totals == [75, 52]
    assert not game_over(totals)                              # play goes on


def test_R25_zero_plus_25_gives_0():
    assert add_round_points([0], [25]) == [0]


def test_R25_D16_subtract_once_and_only_after_positive_points():
    assert add_round_points([25, 50, 75, 100], [0, 0, 0, 0]) == [25, 50, 75, 100]
    assert add_round_points([25, 0, 40, 70], [25, 50, 35, 5]) == [25, 25, 50, 50]
    assert add_round_points([24, 99, 80], [2, 2, 21]) == [26, 101, 101]


def test_R26_game_over_and_winners():
    assert not game_over([100, 0, 99])
    assert game_over([101, 0, 50])
    assert game_over([60, 10], target=50)
    assert winners([101, 30, 30, 40]) == [1, 2]


# ----------------------------------------------------------------------------- misc rules
def test_illegal_actions_raise():
    r = CaboRound(2, list(range(52)), 1)
    for bad in (DRAW_STOCK, KNOCK, snap_action(5), NUM_ACTIONS, -1, "x"):
        with pytest.raises(ValueError):
            r.step(bad)
    r = _knock_setup(2, turn_limit=1)
    simple_turn(r, 0)
    assert r.round_over and r.legal_actions() == []
    with pytest.raises(ValueError):
        r.step(DRAW_STOCK)


def _random_policy(rng, r, p_knock=0.2, p_good_snap=0.6, p_pass=0.8):
    legal = r.legal_actions()
    if r.phase == "knock":
        return KNOCK if rng.random() < p_knock else NO_KNOCK
    if r.phase == "snap":
        top = card_rank(r.discard_pile()[0])
        good = [snap_action(s) for s in occupied(r, r.current_player)
                if card_rank(r.slots(r.current_player)[s]) == top]
        if good and rng.random() < p_good_snap:
            return rng.choice(good)
        if rng.random() < p_pass:
            return PASS
    return rng.choice(legal)


def _play(deck, actions, n, dealer, **options):
    r = CaboRound(n, deck, dealer, **options)
    states = []
    for a in actions:
        states.append((r.current_player, r.phase, r.legal_actions(),
                       [r.slots(p) for p in range(n)], r.stock(), r.discard_pile()))
        r.step(a)
    return r, states


def test_D14_forced_deck_and_actions_determine_the_round():
    rng = random.Random(7)
    for _ in range(20):
        n = rng.randint(2, 6)
        deck = list(range(52))
        rng.shuffle(deck)
        r = CaboRound(n, deck, 0, turn_limit=60)
        actions = []
        while not r.round_over:
            a = _random_policy(rng, r, p_knock=0.05)
            actions.append(a)
            r.step(a)
        r1, s1 = _play(deck, actions, n, 0, turn_limit=60)
        r2, s2 = _play(deck, actions, n, 0, turn_limit=60)
        assert s1 == s2 and r1.points() == r2.points() == r.points()


# ----------------------------------------------------------------------------- information
def _observation(r, p):
    """What seat p can know: where each card it has seen is, plus public facts (K10)."""
    where = {}
    for q in range(r.num_players):
        for s, c in enumerate(r.slots(q)):
            if c is not None:
                where[c] = ("slot", q, s)
    for i, c in enumerate(r.stock()):
        where[c] = ("stock", i)
    for i, c in enumerate(r.discard_pile()):
        where[c] = ("discard", i)
    if r.drawn is not None:
        where[r.drawn] = ("drawn",)
    known = sorted((c, where[c]) for c in r.seen(p))
    public = (r.phase, r.current_player, r.round_over, r.knocker, tuple(r.out), r.turns,
              tuple(tuple(c is not None for c in r.slots(q)) for q in range(r.num_players)),
              len(r.stock()), len(r.discard_pile()), r.drawn is not None,
              tuple(r.legal_actions()))
    return known, public


def _rule_class(c):
    return card_rank(c) if card_rank(c) in (JACK, QUEEN) else 0


def test_K10_swapping_two_unseen_cards_changes_nothing_p_observes():
    rng = random.Random(10)
    checked = 0
    for _ in range(120):
        n = rng.randint(2, 6)
        hand_size = rng.randint(1, 6)
        options = dict(hand_size=hand_size, peek=rng.randint(0, hand_size),
                       knocker_final_turn=rng.random() < 0.5, turn_limit=rng.choice([10, 40]))
        deck = list(range(52))
        rng.shuffle(deck)
        dealer = rng.randrange(n)
        r = CaboRound(n, deck, dealer, **options)
        actions = []
        while not r.round_over:
            a = _random_policy(rng, r, p_knock=0.1)
            actions.append(a)
            r.step(a)
        p = rng.randrange(n)
        unseen = [c for c in range(52) if c not in r.seen(p)]
        pairs = [(a, b) for a in unseen for b in unseen
                 if a < b and _rule_class(a) == _rule_class(b)]
        if not pairs:
            continue
        a, b = rng.choice(pairs)
        swapped = [b if c == a else a if c == b else c for c in deck]
        r1 = CaboRound(n, deck, dealer, **options)
        r2 = CaboRound(n, swapped, dealer, **options)
        for act in actions:
            assert _observation(r1, p) == _observation(r2, p)
            r1.step(act)
            r2.step(act)                                      # stays legal
        assert _observation(r1, p) == _observation(r2, p) and r2.round_over
        checked += 1
    assert checked > 80


# ----------------------------------------------------------------------------- random rounds
def _check_invariants(r, stats):
    n = r.num_players
    assert sorted(all_cards(r)) == list(range(52))            # each card exactly once
    for p in range(n):
        assert len(r.slots(p)) == 8 and 0 <= r.num_cards(p) <= 8
        assert r.out[p] == (r.num_cards(p) == 0)              # only snaps empty a hand
    for c in r.discard_pile():
        assert all(c in r.seen(q) for q in range(n))          # K2, K4, K8
    if r.round_over:
        assert r.current_player is None and r.phase == "over" and r.legal_actions() == []
        return
    legal = r.legal_actions()
    assert legal and legal == sorted(set(legal))              # every decision has an action
    assert all(action_phase(a) == r.phase for a in legal)
    p = r.current_player
    assert 0 <= p < n and not r.out[p]
    if r.phase == "snap":
        assert 1 <= r.num_cards(p) <= 7 and PASS in legal     # R15
        assert legal[:-1] == [snap_action(s) for s in occupied(r, p)]
    elif r.phase == "draw":
        assert r.drawn is None and TAKE_DISCARD in legal
        assert DRAW_STOCK in legal                            # never empty after R17 (NOTE)
        if not r.stock():
            stats["empty stock at draw"] += 1
    elif r.phase == "knock":
        assert r.knocker is None and not any(r.out)
        assert legal == [KNOCK, NO_KNOCK]
    else:
        assert r.drawn is not None and r.drawn in r.seen(p)   # K3 / K4
    if r.phase == "jack":
        stats["jack"] += 1
        for a in legal:
            rr, own, q = decode_jack(a)
            target = (p + rr) % n
            assert rr < n and r.slots(target)[q] is not None and not r.out[target]
            assert r.slots(p)[own] is not None
    if r.phase == "queen":
        stats["queen"] += 1
    if r.turn_limit:
        assert r.turns < r.turn_limit


def test_random_rounds_invariants():
    rng = random.Random(2024)
    stats = {k: 0 for k in ("empty stock at draw", "jack", "queen", "knock", "out",
                            "limit", "eight", "out+knock")}
    for i in range(3000):
        n = rng.randint(2, 6)
        hand_size = rng.randint(1, 8)
        turn_limit = rng.choice([0, 1, 3, 20, 60, 200])
        options = dict(hand_size=hand_size, peek=rng.randint(0, hand_size),
                       knocker_final_turn=rng.random() < 0.5, tie_doubles=rng.random() < 0.5,
                       turn_limit=turn_limit)
        deck = list(range(52))
        rng.shuffle(deck)
        dealer = rng.randrange(n)
        r = CaboRound(n, deck, dealer, **options)
        policy = dict(p_knock=rng.choice([0.02, 0.1, 0.5]) if turn_limit else 0.3,
                      p_good_snap=rng.choice([0.0, 0.5, 0.9]), p_pass=rng.choice([0.6, 0.9]))
        _check_invariants(r, stats)
        for _ in range(20000):
            if r.round_over:
                break
            r.step(_random_policy(rng, r, **policy))
            _check_invariants(r, stats)
            if any(r.num_cards(p) == 8 for p in range(n)):
                stats["eight"] += 1
        assert r.round_over, "every round ends"
        if turn_limit:
            assert r.turns <= turn_limit
        totals, pts = r.hand_totals(), r.points()
        for p in range(n):
            if p == r.knocker:
                assert pts[p] in (totals[p], 2 * totals[p])
            else:
                assert pts[p] == totals[p]
        stats["knock"] += r.knocker is not None
        stats["out"] += any(r.out)
        stats["out+knock"] += any(r.out) and r.knocker is not None
        stats["limit"] += r.turns == turn_limit
    # the random rounds reached every kind of situation
    assert all(v > 0 for v in stats.values()), stats
