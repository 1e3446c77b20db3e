"""Self-tests of the Help! reference round (tests/help_reference.py).

Hand-built decks check each rule of quando_env/help/RULES.md that concerns a round (test names
carry the rule id), the action table, the spec's "Required tests" and its corollary; random play
(3-5 players, both reshuffle modes, varied options) checks the invariants.
R21 (totals, game end) and K1-K3 (observations) are outside one round's decisions and not here;
K4's mask part is checked by recomputing every mask from the mover's hand, the row and the phase.
"""

import os
import random
import sys
from collections import Counter

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from help_reference import (  # noqa: E402
    ASK, CODES, NO, NUM_ACTIONS, ZAP, HelpRound, ReshufflesExhausted, card_plays,
    choose_starter, code_of, full_deck, give_action, give_back_action, givable_kinds, kind_of,
    legal_plays, number_action, switch_action, switch_fits, wild_action, wild_slots,
)


# ----------------------------------------------------------------------------- helpers
def make_deck(hands, draw_top=()):
    """A 105-card deck dealing `hands` (blocks, D1), then `draw_top`, then the unused cards in
    full_deck() order."""
    used = [c for h in hands for c in h] + list(draw_top)
    left = Counter(full_deck())
    left.subtract(Counter(used))
    assert all(v >= 0 for v in left.values()), f"too many copies: {left}"
    rest = []
    for c in full_deck():
        if left[c] > 0:
            rest.append(c)
            left[c] -= 1
    return used + rest


def row_of(*values):
    """A row of number cards."""
    return [(str(v), v) for v in values]


def all_cards(r):
    cards = [c for p in range(r.n) for c in r.hand(p)]
    cards += [code for code, _ in r.row()] + r.draw_pile() + r.discard_pile()
    cards += ["N" for state in r.no_cards() if state is not None]
    return Counter(cards)


def play(r, seat, action, phase=None):
    """Check who decides (and the phase), then step."""
    assert r.current_player == seat, (r.current_player, seat)
    if phase is not None:
        assert r.phase == phase
    assert action in r.legal_actions(), (action, r.legal_actions())
    r.step(action)


# ----------------------------------------------------------------------------- material, actions
def test_R1_R2_deck_and_codes():
    deck = full_deck()
    assert len(deck) == 105
    counts = Counter(deck)
    assert [counts[str(v)] for v in range(1, 12)] == [5, 5, 7, 7, 7, 7, 7, 8, 8, 8, 8]
    assert sum(counts[str(v)] for v in range(1, 12)) == 77
    assert [counts[c] for c in "WSZN"] == [7, 7, 7, 7]
    assert CODES == [str(v) for v in range(1, 12)] + ["W", "S", "Z", "N"]
    for k in range(15):
        assert kind_of(code_of(k)) == k
    assert kind_of("1") == 0 and kind_of("11") == 10 and kind_of("W") == 11
    assert kind_of("S") == 12 and kind_of("Z") == 13 and kind_of("N") == 14
    with pytest.raises(ValueError):
        kind_of("12")


def test_action_table():
    assert NUM_ACTIONS == 105
    table = [number_action(v) for v in range(1, 12)]
    table += [wild_action(s) for s in range(6)]
    table += [switch_action(s, v) for s in range(5) for v in range(1, 12)]
    table += [ZAP, NO, ASK]
    table += [give_action(k) for k in range(15)] + [give_back_action(k) for k in range(15)]
    assert table == list(range(105))
    assert number_action(1) == 0 and number_action(11) == 10
    assert wild_action(0) == 11 and wild_action(5) == 16
    assert switch_action(0, 1) == 17 and switch_action(4, 11) == 71
    assert switch_action(3, 7) == 17 + 33 + 6
    assert (ZAP, NO, ASK) == (72, 73, 74)
    assert give_action(0) == 75 and give_action(14) == 89
    assert give_back_action(0) == 90 and give_back_action(14) == 104


def test_action_table_switch_v_le_s_never_fits():
    # A strictly ascending row of values >= 1 has value >= s at slot s-1, so v <= s never fits.
    rng = random.Random(7)
    for _ in range(500):
        n = rng.randint(1, 5)
        row = row_of(*sorted(rng.sample(range(1, 12), n)))
        for s in range(n):
            for v in range(1, s + 1):
                assert not switch_fits(row, s, v)


# ----------------------------------------------------------------------------- setup
def test_R3_D1_deal_in_blocks_and_validation():
    deck = full_deck()
    random.Random(3).shuffle(deck)
    for n in (3, 4, 5):
        for h in (3, 4, 6):
            r = HelpRound(n, deck, hand_size=h, starter=0)
            for i in range(n):
                assert r.hand(i) == sorted(deck[h * i:h * i + h], key=kind_of)
            assert r.draw_pile() == deck[h * n:]
            assert r.row() == [] and r.discard_pile() == [] and r.no_cards() == [None] * n
    bad = [
        dict(num_players=2), dict(num_players=6), dict(hand_size=2), dict(hand_size=7),
        dict(row_max=1), dict(row_max=7), dict(direction=0), dict(reshuffle="cut"),
        dict(max_steps=0), dict(callers=[3]), dict(callers=[]), dict(starter=3),
        dict(reshuffles=[["1"]]),                       # arrangements need reshuffle="shuffle"
    ]
    for kw in bad:
        args = dict(num_players=3, deck=deck)
        args.update(kw)
        with pytest.raises(ValueError):
            HelpRound(**args)
    with pytest.raises(ValueError):
        HelpRound(3, deck[:-1])                         # 104 cards
    with pytest.raises(ValueError):
        HelpRound(3, deck[:-1] + ["1" if deck[-1] != "1" else "2"])   # wrong composition
    with pytest.raises(ValueError):
        HelpRound(3, deck[:-1] + ["X"])


def test_R4_default_direction_and_next_seat():
    deck = make_deck([["1", "Z", "Z", "Z"], ["2", "W", "W", "W"], ["3", "W", "W", "W"]])
    r = HelpRound(3, deck)
    assert r.direction == 1
    play(r, 0, number_action(1), "open")
    assert r.current_player == 1                        # p + d
    r = HelpRound(3, deck, direction=-1)
    play(r, 0, number_action(1), "open")
    assert r.current_player == 2                        # p - 1 mod n


# ----------------------------------------------------------------------------- calls, opening
def test_R5_R6_calls_3_5_1_that_seat_starts_with_its_1():
    hands = [["3", "9", "W", "Z"], ["5", "7", "S", "N"], ["1", "8", "6", "Z"]]
    assert choose_starter(hands, [0, 1, 2]) == (2, 1, {0: 3, 1: 5, 2: 1})
    r = HelpRound(3, make_deck(hands))
    assert r.calls == {0: 3, 1: 5, 2: 1}
    assert r.current_player == 2 and r.phase == "open"
    assert r.legal_actions() == [number_action(1)]     # R6: the only legal action
    r.step(number_action(1))
    assert r.row() == [("1", 1)]
    assert r.current_player == 0 and r.phase == "play"


def test_R5_ties_go_to_the_lowest_seat_and_only_callers_call():
    hands = [["4", "W"], ["2", "9"], ["2", "3"], ["1", "N"]]
    assert choose_starter(hands, [0, 1, 2, 3]) == (3, 1, {0: 4, 1: 2, 2: 2, 3: 1})
    assert choose_starter(hands, [0, 1, 2]) == (1, 2, {0: 4, 1: 2, 2: 2})   # D14: 3 stays hidden
    assert choose_starter(hands, [2, 0]) == (2, 2, {0: 4, 2: 2})
    hands = [["11", "10", "9", "8"], ["4", "4", "N", "N"], ["4", "5", "6", "7"]]
    r = HelpRound(3, make_deck(hands), callers=[1, 2])
    assert r.calls == {1: 4, 2: 4} and r.current_player == 1
    assert r.legal_actions() == [number_action(4)]


def test_D2_only_number_cards_are_called():
    hands = [["W", "7", "Z", "N"], ["S", "5", "Z", "N"], ["W", "W", "S", "9"]]
    assert choose_starter(hands, [0, 1, 2]) == (1, 5, {0: 7, 1: 5, 2: 9})


def test_R5_D14_fallback_every_number_holder_calls_publicly():
    hands = [["W", "S", "Z", "N"], ["6", "S", "Z", "N"], ["W", "4", "Z", "N"]]
    # the only caller (seat 0) calls nothing: seats 1 and 2 compete, their calls are public
    assert choose_starter(hands, [0]) == (2, 4, {1: 6, 2: 4})
    r = HelpRound(3, make_deck(hands), callers=[0])
    assert r.calls == {1: 6, 2: 4}
    assert r.current_player == 2 and r.phase == "open" and r.legal_actions() == [number_action(4)]


def test_R5_R6_nobody_holds_a_number_lowest_caller_takes_a_normal_turn():
    hands = [["W", "S", "Z", "N"], ["W", "S", "Z", "N"], ["W", "S", "Z", "N"]]
    assert choose_starter(hands, [2, 1]) == (1, None, {})
    r = HelpRound(3, make_deck(hands), callers=[1, 2])
    assert r.calls == {} and r.current_player == 1 and r.phase == "play"
    assert r.legal_actions() == [wild_action(0), NO]   # normal turn on the empty row


def test_D3_open_lowest_false_starter_takes_a_normal_turn():
    hands = [["3", "9", "W", "Z"], ["5", "7", "S", "N"], ["1", "8", "6", "Z"]]
    assert choose_starter(hands, [0, 1, 2], open_lowest=False) == (2, None, {0: 3, 1: 5, 2: 1})
    r = HelpRound(3, make_deck(hands), open_lowest=False)
    assert r.current_player == 2 and r.phase == "play"
    assert r.legal_actions() == [number_action(v) for v in (1, 6, 8)]


def test_R5_starter_option_overrides_calls():
    hands = [["3", "9", "W", "Z"], ["5", "7", "S", "N"], ["1", "8", "6", "Z"]]
    r = HelpRound(3, make_deck(hands), starter=1)
    assert r.current_player == 1 and r.phase == "play" and r.calls == {}
    assert r.legal_actions() == [number_action(5), number_action(7), NO]


# ----------------------------------------------------------------------------- the row
def test_R7_D13_11_onto_1_to_5_clears_the_row():
    hands = [["1", "4", "Z", "Z"], ["2", "5", "Z", "Z"], ["3", "11", "Z", "N"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 6))
    for seat, v in [(0, 1), (1, 2), (2, 3), (0, 4), (1, 5)]:
        play(r, seat, number_action(v))
    assert r.row() == row_of(1, 2, 3, 4, 5)
    play(r, 2, number_action(11), "play")
    assert r.row() == []
    assert r.discard_pile() == ["1", "2", "3", "4", "5", "11"]   # D13: leftmost first
    assert r.current_player == 0 and r.phase == "play"          # next player starts a new row
    assert ZAP not in r.legal_actions()                         # empty row: no Zap


def test_R7_row_max_option_and_a_wild_completing_the_row():
    hands = [["1", "4", "Z", "Z"], ["2", "5", "Z", "Z"], ["3", "11", "W", "N"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 6), row_max=3)
    for seat, v in [(0, 1), (1, 2)]:
        play(r, seat, number_action(v))
    play(r, 2, number_action(3))
    assert r.row() == [] and r.discard_pile() == ["1", "2", "3"]
    r = HelpRound(3, make_deck(hands, ["W"] * 6), row_max=2)
    play(r, 0, number_action(1), "open")
    assert r.hand(1) == ["2", "5", "Z", "Z"]
    play(r, 1, number_action(2))
    assert r.row() == [] and r.discard_pile() == ["1", "2"]
    play(r, 2, wild_action(0))                                  # new row: the Wild is 1
    assert r.row() == [("W", 1)]
    assert r.hand(0) == sorted(["4", "Z", "Z", "W"], key=kind_of)
    play(r, 0, wild_action(1))                                  # Wild 2 completes the row
    assert r.row() == [] and r.discard_pile() == ["1", "2", "W", "W"]


# ----------------------------------------------------------------------------- plays
def test_R9_R10_numbers_and_must_play_if_possible():
    assert legal_plays(["5", "7", "8", "9"], row_of(3, 7)) == [number_action(8), number_action(9)]
    assert legal_plays(["5", "7", "2", "1"], []) == [number_action(v) for v in (1, 2, 5, 7)]
    assert legal_plays(["5", "7", "2", "1"], row_of(7)) == []      # R9: must ask then
    assert legal_plays(["11", "11", "3", "1"], row_of(11)) == []   # nothing above 11


def test_R11_wild_slots():
    # Required: Wild on 3,4,5,8: slots 0 (value 1), 3 (value 6), 4 (value 9) only.
    row = row_of(3, 4, 5, 8)
    assert wild_slots(row) == [0, 3, 4]
    assert card_plays(kind_of("W"), ["W"], row) == [wild_action(0), wild_action(3), wild_action(4)]
    assert wild_slots([]) == [0]                                   # a new row starts at 1
    assert wild_slots(row_of(1, 2, 3)) == [3]                      # never between consecutive
    assert wild_slots(row_of(1, 11)) == [1]                        # 12 > 11: not at the end
    assert wild_slots(row_of(2, 11)) == [0, 1]
    # in a round: the row 3, 4, 5, 8 built by plays
    hands = [["3", "8", "Z", "Z"], ["4", "W", "Z", "Z"], ["5", "S", "6", "7"]]
    r = HelpRound(3, make_deck(hands, ["N"] * 4), starter=0)
    for seat, v in [(0, 3), (1, 4), (2, 5), (0, 8)]:
        play(r, seat, number_action(v))
    assert r.row() == row_of(3, 4, 5, 8)
    assert [a for a in r.legal_actions() if 11 <= a <= 16] == [11, 14, 15]
    for s, value in [(0, 1), (3, 6), (4, 9)]:
        rr = HelpRound(3, make_deck(hands, ["N"] * 4), starter=0)
        for seat, v in [(0, 3), (1, 4), (2, 5), (0, 8)]:
            rr.step(number_action(v))
        rr.step(wild_action(s))
        assert ("W", value) in rr.row() and rr.row().index(("W", value)) == s


def test_R12_D13_switch_a_wild_of_value_6_between_5_and_8_for_a_7():
    hands = [["3", "8", "Z", "Z"], ["4", "W", "Z", "Z"], ["5", "S", "6", "7"]]
    r = HelpRound(3, make_deck(hands, ["N"] * 4), starter=0)
    for seat, v in [(0, 3), (1, 4), (2, 5), (0, 8)]:
        play(r, seat, number_action(v))
    play(r, 1, wild_action(3))
    assert r.row() == [("3", 3), ("4", 4), ("5", 5), ("W", 6), ("8", 8)]
    assert r.current_player == 2 and r.hand(2) == ["6", "7", "S", "N"]
    legal = r.legal_actions()
    assert switch_action(3, 7) in legal
    assert switch_action(3, 6) in legal                          # D5: may equal the taken value
    assert switch_action(4, 7) in legal                          # 8 -> 7 after the Wild 6
    assert switch_action(4, 6) not in legal                      # D4: the Wild stays 6
    assert switch_action(2, 6) not in legal and switch_action(0, 6) not in legal
    play(r, 2, switch_action(3, 7))
    assert r.row() == row_of(3, 4, 5, 7, 8)
    assert r.discard_pile() == ["S"]                             # D13: only the Switch
    assert "W" in r.hand(2) and "7" not in r.hand(2)             # a plain Wild again
    assert len(r.hand(2)) == 4


def test_D4_wild_value_is_fixed_when_placed():
    row = [("3", 3), ("W", 4), ("9", 9)]
    assert switch_fits(row, 0, 2)                                # the Wild stays 4 (not 3)
    assert not switch_fits(row, 0, 4) and not switch_fits(row, 0, 5)
    assert switch_fits(row, 2, 5) and not switch_fits(row, 2, 4)
    hands = [["5", "Z", "Z", "Z"], ["W", "Z", "Z", "Z"], ["S", "3", "Z", "N"]]
    r = HelpRound(3, make_deck(hands, ["N"] * 4), starter=0)
    play(r, 0, number_action(5))
    play(r, 1, wild_action(0))
    assert r.row() == [("W", 1), ("5", 5)]
    play(r, 2, switch_action(1, 3))
    assert r.row() == [("W", 1), ("3", 3)]                       # not recomputed


def test_D5_switch_replacement_is_a_number_card_from_hand_before_taking():
    row = row_of(2, 5)
    assert card_plays(kind_of("S"), ["S", "W", "Z", "N"], row) == []    # no number in hand
    assert card_plays(kind_of("S"), ["S", "5"], row) == [switch_action(1, 5)]   # 5 for the 5
    assert card_plays(kind_of("S"), ["S", "3", "1"], row) == sorted(
        [switch_action(0, 1), switch_action(0, 3), switch_action(1, 3)])
    assert card_plays(kind_of("S"), ["S", "3"], []) == []                # R12: row not empty


def test_R13_D13_zap_discards_zap_then_last_card():
    assert card_plays(kind_of("Z"), ["Z"], []) == []
    assert card_plays(kind_of("Z"), ["Z"], row_of(4)) == [ZAP]
    hands = [["1", "Z", "Z", "Z"], ["5", "Z", "W", "W"], ["9", "9", "9", "N"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 4))
    play(r, 0, number_action(1), "open")
    play(r, 1, number_action(5))
    play(r, 2, number_action(9))
    play(r, 0, ZAP)
    assert r.row() == row_of(1, 5) and r.discard_pile() == ["Z", "9"]
    play(r, 1, ZAP)
    assert r.row() == row_of(1) and r.discard_pile() == ["Z", "9", "Z", "5"]
    # a single card is zapped too: the row is then empty
    r = HelpRound(3, make_deck(hands, ["W"] * 4))
    play(r, 0, number_action(1))
    play(r, 1, ZAP)
    assert r.row() == [] and r.discard_pile() == ["Z", "1"]


def test_R14_D6_no_is_always_legal_and_the_draw_is_the_refill():
    assert card_plays(kind_of("N"), ["N"], []) == [NO]
    assert card_plays(kind_of("N"), ["N"], row_of(11)) == [NO]
    hands = [["1", "Z", "Z", "Z"], ["N", "Z", "Z", "Z"], ["9", "9", "9", "9"]]
    r = HelpRound(3, make_deck(hands, ["W", "8"]))
    play(r, 0, number_action(1))
    size = len(r.draw_pile())
    play(r, 1, NO)
    assert r.no_cards() == [None, "fresh", None]
    assert r.hand(1) == ["8", "Z", "Z", "Z"]                     # one card drawn: back to 4
    assert len(r.draw_pile()) == size - 1
    assert "N" not in r.discard_pile()


# ----------------------------------------------------------------------------- No! and turns
def test_R8_D13_no_skip_then_discard():
    hands = [["1", "Z", "Z", "Z"], ["N", "5", "6", "7"], ["8", "9", "10", "11"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 7))
    play(r, 0, number_action(1), "open")
    play(r, 1, NO)
    assert r.no_cards() == [None, "fresh", None]
    play(r, 2, number_action(8))
    play(r, 0, ZAP)
    # seat 1 is skipped without a decision: the No! is now spent
    assert r.current_player == 2 and r.phase == "play"
    assert r.no_cards() == [None, "spent", None]
    assert r.discard_pile() == ["Z", "8"]
    steps = r.steps
    play(r, 2, number_action(9))
    play(r, 0, ZAP)
    assert r.steps == steps + 2
    # seat 1's next turn: the spent No! goes to the discard pile, then a normal turn
    assert r.current_player == 1 and r.phase == "play"
    assert r.no_cards() == [None, None, None]
    assert r.discard_pile() == ["Z", "8", "Z", "9", "N"]        # D13
    play(r, 1, number_action(5))
    assert r.row() == row_of(1, 5)


def test_R8_turn_passing_over_several_no_cards_including_the_players_own():
    hands = [["1", "N", "Z", "Z"], ["N", "Z", "Z", "Z"], ["N", "S", "S", "S"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 4))
    play(r, 0, number_action(1), "open")
    play(r, 1, NO)
    play(r, 2, NO)
    play(r, 0, NO)
    # seats 1, 2 and 0 are skipped in turn (all spent); seat 1's spent No! is then discarded
    assert r.current_player == 1 and r.phase == "play"
    assert r.no_cards() == ["spent", None, "spent"]
    assert r.discard_pile() == ["N"]
    assert r.steps == 4
    play(r, 1, ZAP)
    assert r.current_player == 2 and r.no_cards() == ["spent", None, None]
    assert r.discard_pile() == ["N", "Z", "1", "N"]
    play(r, 2, wild_action(0))
    assert r.current_player == 0 and r.no_cards() == [None, None, None]


def test_R8_two_fresh_no_cards_in_a_row_four_players():
    hands = [["1", "Z", "Z", "Z"], ["N", "W", "W", "W"], ["N", "W", "W", "W"], ["9", "9", "9", "9"]]
    r = HelpRound(4, make_deck(hands, ["W"] * 1 + ["Z"] * 3))
    play(r, 0, number_action(1))
    play(r, 1, NO)
    play(r, 2, NO)
    play(r, 3, number_action(9))
    play(r, 0, ZAP)
    assert r.current_player == 3 and r.no_cards() == [None, "spent", "spent", None]
    play(r, 3, number_action(9))
    play(r, 0, ZAP)
    assert r.current_player == 1 and r.no_cards() == [None, None, "spent", None]
    play(r, 1, wild_action(1))
    assert r.current_player == 2 and r.no_cards() == [None, None, None, None]
    assert r.discard_pile() == ["Z", "9", "Z", "9", "N", "N"]


# ----------------------------------------------------------------------------- asking for help
def test_R16_R20b_helpless_scoring():
    hands = [["1", "1", "1", "1"], ["N", "Z", "Z", "Z"], ["N", "Z", "Z", "Z"]]
    r = HelpRound(3, make_deck(hands, ["1"]))
    play(r, 0, number_action(1), "open")
    assert r.hand(0) == ["1"] * 4
    play(r, 1, NO)
    play(r, 2, NO)
    assert r.current_player == 0 and r.legal_actions() == [ASK]
    play(r, 0, ASK)
    assert r.round_over and not r.truncated and r.phase == "over"
    assert r.current_player is None and r.legal_actions() == []
    assert r.end_reason == "R20b"
    assert r.points() == [1, 0, 0]                               # p alone scores 1
    with pytest.raises(ValueError):
        r.step(ASK)


def test_R17_R20a_failed_help_scoring_no_givable_card_on_empty_row():
    hands = [["Z", "Z", "S", "S"], ["1", "2", "3", "4"], ["Z", "Z", "Z", "S"]]
    r = HelpRound(3, make_deck(hands), starter=0)
    assert r.legal_actions() == [ASK]                            # empty row: no Zap, no Switch
    r.step(ASK)
    assert r.round_over and r.end_reason == "R20a" and r.helper == 2 and r.steps == 1
    assert r.points() == [0, 1, 0]                               # everybody but p and h
    r = HelpRound(3, make_deck(hands), starter=0, direction=-1)
    r.step(ASK)                                                  # helper is seat 1 now: gives
    assert not r.round_over and r.phase == "give" and r.current_player == 1
    assert r.legal_actions() == [give_action(k) for k in range(4)]


def test_R17_R20a_failed_help_scoring_helper_holds_only_numbers_below_11():
    hands = [["11", "2", "3", "4"], ["5", "6", "7", "8"], ["9", "10", "Z", "Z"], ["W", "W", "S", "N"]]
    r = HelpRound(4, make_deck(hands, ["5"]), starter=0)
    play(r, 0, number_action(11))
    play(r, 1, ASK)
    assert r.round_over and r.end_reason == "R20a"
    assert r.points() == [0, 0, 1, 1]


def test_R17_D8_givable_judged_on_the_row_alone():
    hand = ["Z", "S", "N", "W", "5", "1"]
    assert givable_kinds(hand, []) == [0, 4, 11, 14]            # no Zap/Switch on an empty row
    assert givable_kinds(hand, row_of(3, 11)) == [11, 12, 13, 14]
    assert givable_kinds(["S", "Z"], row_of(4)) == [12, 13]     # D8: Switch without numbers
    assert givable_kinds(["1", "2", "3"], row_of(3)) == []


def test_D7_helper_search_past_a_no():
    hands = [["1", "Z", "Z", "Z"], ["N", "Z", "Z", "Z"], ["1", "1", "1", "1"]]
    r = HelpRound(3, make_deck(hands, ["W", "W", "W", "W"]))
    assert r.calls == {0: 1, 2: 1} and r.current_player == 0    # tie: lowest seat
    play(r, 0, number_action(1), "open")
    play(r, 1, NO)
    play(r, 2, ASK, "play")
    assert r.asker == 2 and r.helper == 0                        # seat 1 (No!) passed over
    assert r.current_player == 0 and r.phase == "give"
    assert r.hand(0) == ["W", "Z", "Z", "Z"]
    assert r.legal_actions() == [give_action(11), give_action(13)]
    play(r, 0, give_action(13), "give")
    assert r.current_player == 2 and r.phase == "give_back"
    assert r.legal_actions() == [give_back_action(0)]           # not the Zap just received
    draw = len(r.draw_pile())
    play(r, 2, give_back_action(0), "give_back")
    assert r.phase == "play_received" and r.legal_actions() == [ZAP]
    play(r, 2, ZAP, "play_received")
    assert r.row() == [] and r.discard_pile() == ["Z", "1"]
    assert r.hand(2) == ["1", "1", "1", "W"]                     # R15 refill of the asker
    assert r.hand(0) == ["1", "W", "Z", "Z"]                     # the helper does not draw
    assert len(r.draw_pile()) == draw - 1
    assert r.current_player == 0 and r.phase == "play" and r.steps == 6


def test_D6_a_spent_no_also_bars_helping_direction_minus_one():
    # direction -1: order 0, 2, 1; the helper of p is p+1
    hands = [["1", "Z", "Z", "Z"], ["1", "1", "1", "W"], ["N", "S", "S", "S"]]
    r = HelpRound(3, make_deck(hands, ["Z", "S", "1"]), direction=-1)
    play(r, 0, number_action(1), "open")
    play(r, 2, NO)
    play(r, 1, wild_action(1))
    play(r, 0, ZAP)
    assert r.no_cards() == [None, None, "spent"]                 # seat 2 skipped
    assert r.current_player == 1 and r.hand(1) == ["1"] * 4 and r.row() == row_of(1)
    play(r, 1, ASK)
    assert r.helper == 0 and r.current_player == 0               # seat 2 (spent) passed over


def test_R16_R18_R19_D9_successful_help_with_a_switch():
    hands = [["2", "3", "3", "4"], ["9", "Z", "Z", "Z"], ["10", "N", "N", "N"]]
    r = HelpRound(3, make_deck(hands, ["S", "W", "8"]), starter=1)
    play(r, 1, number_action(9))
    play(r, 2, NO)
    play(r, 0, ASK)                                              # 2, 3, 3, 4 all below 9
    assert r.helper == 1                                         # seat 2 has a No!
    assert r.hand(1) == ["S", "Z", "Z", "Z"]
    assert r.legal_actions() == [give_action(12), give_action(13)]
    play(r, 1, give_action(12), "give")                          # D9: give first
    assert r.legal_actions() == [give_back_action(k) for k in (1, 2, 3)]   # R18: not the Switch
    play(r, 0, give_back_action(2), "give_back")                 # then give back a 3
    assert r.hand(1) == ["3", "Z", "Z", "Z"]
    assert r.legal_actions() == [switch_action(0, v) for v in (2, 3, 4)]   # then play (R19)
    play(r, 0, switch_action(0, 3), "play_received")
    assert r.row() == row_of(3) and r.discard_pile() == ["S"]
    assert r.hand(0) == ["2", "4", "8", "9"]                     # took the 9, drew the 8
    assert r.hand(1) == ["3", "Z", "Z", "Z"]                     # the helper did not draw
    assert r.current_player == 1 and r.phase == "play"           # the turn passed on from p
    assert r.asker is None and r.helper is None


def test_R19_D8_four_switches_receiving_a_switch():
    hands = [["S", "S", "S", "S"], ["5", "6", "7", "8"], ["S", "9", "10", "11"]]
    r = HelpRound(3, make_deck(hands, ["W", "W"]), starter=1)
    play(r, 1, number_action(5))
    play(r, 2, number_action(9))
    assert r.row() == row_of(5, 9)
    play(r, 0, ASK)                                              # Switches but no number
    assert r.helper == 2 and give_action(12) in r.legal_actions()
    play(r, 2, give_action(12), "give")
    assert r.hand(0) == ["S"] * 5
    assert r.legal_actions() == [give_back_action(12)]           # a second Switch may go
    play(r, 0, give_back_action(12), "give_back")
    assert r.round_over and r.end_reason == "R20a"               # the Switch has no play
    assert r.points() == [0, 1, 0]
    assert r.hand(0) == ["S"] * 4 and r.hand(2) == ["10", "11", "W", "S"]


def test_R20_points_only_once_over():
    r = HelpRound(3, make_deck([["1", "Z", "Z", "Z"], ["2", "Z", "Z", "Z"], ["3", "W", "W", "W"]]))
    with pytest.raises(ValueError):
        r.points()


# ----------------------------------------------------------------------------- decisions
def test_D10_forced_single_choices_are_decisions():
    hands = [["1", "Z", "Z", "Z"], ["N", "Z", "Z", "Z"], ["1", "1", "1", "1"]]
    r = HelpRound(3, make_deck(hands, ["W", "W", "W", "W"]))
    phases = []
    for a in (number_action(1), NO, ASK, give_action(13), give_back_action(0), ZAP):
        phases.append((r.current_player, r.phase, len(r.legal_actions())))
        r.step(a)
    assert phases == [(0, "open", 1), (1, "play", 2), (2, "play", 1), (0, "give", 2),
                      (2, "give_back", 1), (2, "play_received", 1)]
    assert r.steps == 6 and not r.round_over


def test_R22_D12_truncation_at_max_steps():
    hands = [["1", "Z", "Z", "Z"], ["5", "Z", "W", "W"], ["9", "9", "9", "N"]]
    r = HelpRound(3, make_deck(hands, ["W"] * 4), max_steps=3)
    r.step(number_action(1))
    r.step(number_action(5))
    assert not r.truncated and r.current_player == 2
    r.step(number_action(9))
    assert r.truncated and not r.round_over and r.steps == 3
    assert r.current_player is None and r.phase == "over" and r.legal_actions() == []
    with pytest.raises(ValueError):
        r.points()
    with pytest.raises(ValueError):
        r.step(ZAP)
    # a round that ends on its last allowed decision is over, not truncated
    hands = [["1", "1", "1", "1"], ["N", "Z", "Z", "Z"], ["N", "Z", "Z", "Z"]]
    r = HelpRound(3, make_deck(hands, ["1"]), max_steps=4)
    for a in (number_action(1), NO, NO, ASK):
        r.step(a)
    assert r.round_over and not r.truncated and r.points() == [1, 0, 0]


def test_illegal_action_raises():
    hands = [["3", "9", "W", "Z"], ["5", "7", "S", "N"], ["1", "8", "6", "Z"]]
    r = HelpRound(3, make_deck(hands))
    for a in (number_action(6), NO, ASK, wild_action(0), 104, -1, 105):
        with pytest.raises(ValueError):
            r.step(a)
    assert r.steps == 0 and r.current_player == 2


def test_corollary_wild_always_fits_and_switch_covers_numbers_up_to_last():
    rng = random.Random(11)
    for _ in range(2000):
        n = rng.randint(1, 5)
        values = sorted(rng.sample(range(1, 12), n))
        row = [("W" if rng.random() < 0.3 else str(v), v) for v in values]
        assert wild_slots(row), row
        for v in range(1, values[-1] + 1):
            assert any(switch_fits(row, s, v) for s in range(n)), (row, v)
        # so an asker on this row holds only numbers <= last, or only Switches
        hand = [str(rng.randint(1, 11)) for _ in range(3)] + ["S"]
        if not legal_plays(hand, row):
            pytest.fail(f"a Switch with numbers always plays: {hand} {row}")


# ----------------------------------------------------------------------------- reshuffles
def _to_empty_draw_pile():
    """Random play (5 players, 6 cards, row_max 2) until, at a normal turn before any reshuffle,
    the draw pile is empty and the mover has a play that discards nothing (a number or Wild on
    the empty row, or a No!).  Returns (deck, the actions up to that turn, that play)."""
    for seed in range(200):
        rng = random.Random(seed)
        deck = full_deck()
        rng.shuffle(deck)
        r = HelpRound(5, deck, hand_size=6, row_max=2)
        actions = []
        while r.current_player is not None and r.reshuffle_count == 0:
            if r.phase == "play" and not r.draw_pile():
                quiet = [a for a in r.legal_actions() if a == NO or (a <= 16 and not r.row())]
                if quiet:
                    return deck, actions, quiet[0]
            a = rng.choice(r.legal_actions())
            actions.append(a)
            r.step(a)
    raise AssertionError("no round reached an empty draw pile")


def _replay(deck, actions, **kw):
    r = HelpRound(5, deck, hand_size=6, row_max=2, **kw)
    for a in actions:
        r.step(a)
    return r


def _code_played(action):
    return str(action + 1) if action <= 10 else ("W" if action <= 16 else "N")


def test_R15_D11_flip_reshuffle_order():
    deck, actions, quiet = _to_empty_draw_pile()
    r = _replay(deck, actions)
    p = r.current_player
    discard = r.discard_pile()
    # D11: the refill that emptied the draw pile did not reshuffle; it waits for a needed card
    assert r.draw_pile() == [] and len(discard) > 1 and r.reshuffle_count == 0
    before = Counter(r.hand(p))
    row_and_no = (r.row(), r.no_cards())
    r.step(quiet)                                                # p must draw one card
    assert r.reshuffle_count == 1
    # "flip": the first-discarded card is drawn first, the others follow in discard order
    assert Counter(r.hand(p)) == before - Counter([_code_played(quiet)]) + Counter([discard[0]])
    assert r.draw_pile() == discard[1:]
    # only the discard pile was used (row and No! cards stay); R8 may then discard a spent No!
    assert r.discard_pile() in ([], ["N"])
    assert all_cards(r) == Counter(full_deck())
    assert row_and_no[0] == [] and len(r.row()) <= 1


def test_R15_shuffle_uses_the_given_arrangements():
    deck, actions, quiet = _to_empty_draw_pile()
    probe = _replay(deck, actions, reshuffle="shuffle")          # no reshuffle needed so far
    discard = probe.discard_pile()
    p = probe.current_player
    before = Counter(probe.hand(p))
    arrangement = list(reversed(discard))
    assert arrangement != discard
    r = _replay(deck, actions, reshuffle="shuffle", reshuffles=[arrangement])
    r.step(quiet)
    assert r.reshuffle_count == 1
    assert Counter(r.hand(p)) == before - Counter([_code_played(quiet)]) + Counter([arrangement[0]])
    assert r.draw_pile() == arrangement[1:]
    # not a permutation of the discard pile: ValueError
    wrong = list(arrangement)
    wrong[0] = "1" if wrong[0] != "1" else "2"
    r = _replay(deck, actions, reshuffle="shuffle", reshuffles=[wrong])
    with pytest.raises(ValueError):
        r.step(quiet)
    r = _replay(deck, actions, reshuffle="shuffle", reshuffles=[arrangement[1:]])
    with pytest.raises(ValueError):
        r.step(quiet)
    # the list runs out: a clear error carrying the discard pile
    r = _replay(deck, actions, reshuffle="shuffle", reshuffles=[])
    with pytest.raises(ReshufflesExhausted) as info:
        r.step(quiet)
    assert info.value.discard_pile == discard


# ----------------------------------------------------------------------------- random play
def _check_decision(r):
    """Invariants between decisions, and K4: each mask recomputed from the mover's hand, the
    row and the phase (plus the kind received, known to the mover)."""
    assert all_cards(r) == Counter(full_deck())                  # each card exactly once
    row = r.row()
    values = [v for _, v in row]
    assert all(a < b for a, b in zip(values, values[1:]))        # R7
    assert len(row) <= r.row_max - 1 and all(1 <= v <= 11 for v in values)
    assert all(code == "W" or int(code) == v for code, v in row)
    assert r.steps < r.max_steps
    legal = r.legal_actions()
    assert legal and legal == sorted(set(legal)) and all(0 <= a < 105 for a in legal)
    assert give_back_action(14) not in legal                     # 104 never legal
    for a in legal:
        if 17 <= a <= 71:
            s, v = divmod(a - 17, 11)
            assert v + 1 > s and s < len(row)                    # v <= s never legal
    p = r.current_player
    hand = r.hand(p)
    if r.phase in ("open", "play"):
        assert r.no_cards()[p] is None                           # R8
        assert all(len(r.hand(q)) == r.hand_size for q in range(r.n))
    if r.phase == "open":
        assert row == [] and legal == [number_action(r.calls[p])]
    elif r.phase == "play":
        plays = legal_plays(hand, row)
        assert legal == (plays if plays else [ASK])              # R9, D10
        if legal == [ASK]:                                       # the corollary
            if row:
                nums = [int(c) for c in hand if kind_of(c) <= 10]
                assert (len(nums) == len(hand) and max(nums) <= values[-1]) or \
                    set(hand) == {"S"}, (hand, row)
            else:
                assert set(hand) <= {"Z", "S"}
    elif r.phase == "give":
        assert p == r.helper and r.no_cards()[p] is None
        assert legal == [give_action(k) for k in givable_kinds(hand, row)]
    elif r.phase == "give_back":
        assert p == r.asker and len(hand) == r.hand_size + 1
        left = Counter(hand)
        left[code_of(r.received)] -= 1
        assert legal == [give_back_action(kind_of(c)) for c in sorted(+left, key=kind_of)]
    elif r.phase == "play_received":
        assert p == r.asker and len(hand) == r.hand_size
        assert legal == card_plays(r.received, hand, row)
    else:
        raise AssertionError(r.phase)


def _random_round(rng, n, reshuffle, check=True, **kw):
    """Play one random round; with reshuffle="shuffle" the arrangements are made on demand by
    replaying the recorded actions with one more arrangement each time the list runs out."""
    deck = full_deck()
    rng.shuffle(deck)
    actions, arrangements = [], []
    while True:
        r = HelpRound(n, deck, reshuffle=reshuffle, reshuffles=list(arrangements) or None, **kw)
        for a in actions:
            r.step(a)
        try:
            while r.current_player is not None:
                if check:
                    _check_decision(r)
                a = rng.choice(r.legal_actions())
                actions.append(a)
                r.step(a)
        except ReshufflesExhausted as e:
            assert reshuffle == "shuffle"
            arrangement = list(e.discard_pile)
            rng.shuffle(arrangement)
            arrangements.append(arrangement)
            continue
        return r, len(arrangements)


@pytest.mark.parametrize("reshuffle", ["flip", "shuffle"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_rounds_invariants(n, reshuffle):
    rng = random.Random(100 * n + (reshuffle == "shuffle"))
    ended = truncated = reshuffled = 0
    reasons = Counter()
    for i in range(500):
        kw = dict(direction=rng.choice([1, -1]),
                  hand_size=rng.choice([3, 4, 4, 5, 6]),
                  row_max=rng.choice([2, 3, 4, 5, 6, 6, 6]),
                  open_lowest=rng.random() < 0.8,
                  max_steps=rng.choice([1000, 1000, 1000, 40]))
        if rng.random() < 0.3:
            kw["callers"] = rng.sample(range(n), rng.randint(1, n))
        if rng.random() < 0.1:
            kw["starter"] = rng.randrange(n)
        r, used = _random_round(rng, n, reshuffle, **kw)
        reshuffled += r.reshuffle_count > 0
        assert r.current_player is None and r.phase == "over" and r.legal_actions() == []
        assert all_cards(r) == Counter(full_deck())
        if r.truncated:
            truncated += 1
            assert not r.round_over and r.steps == kw["max_steps"]
        else:
            ended += 1
            assert r.round_over and r.steps <= kw["max_steps"]
            pts = r.points()
            reasons[r.end_reason] += 1
            if r.end_reason == "R20a":
                assert sorted(pts) == [0, 0] + [1] * (n - 2)
                assert pts[r.asker] == 0 and pts[r.helper] == 0 and r.asker != r.helper
            else:
                assert sorted(pts) == [0] * (n - 1) + [1] and pts[r.asker] == 1
        if reshuffle == "shuffle":
            assert used == r.reshuffle_count
    assert ended > 400 and truncated > 0 and reshuffled > 0
    assert reasons["R20a"] > 0 and reasons["R20b"] > 0
