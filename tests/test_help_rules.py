"""One test per rule of the Help! contract (quando_env/help/RULES.md), named after its id: R1-R22, D1-D14, the corollary
and the spec's "Required tests". Games start from forced decks; some tables (a row, a No!) are written into
the state directly and the masks recomputed, so that each test shows its rule in a few lines."""
from collections import Counter

import numpy as np
import pytest

from quando_env.help import VectorGame
from quando_env.help import engine as E
from quando_env.help.cards import (ASK, CODES, FULL_DECK, KIND_COUNTS, NO, ZAP, give_action, give_back_action,
                                   kind_of, play_action, switch_action, wild_action)

ALL = [CODES[k] for k in FULL_DECK]


def deck(hands, top=()):
    """A deck (codes, top first): the seats' hands in blocks (D1), then `top` on the draw pile, then the rest
    of the cards in R1 order."""
    left = Counter(ALL)
    used = [c for h in hands for c in h] + list(top)
    left.subtract(used)
    assert min(left.values()) >= 0
    return used + [c for c in CODES for _ in range(left[c])]


def game(hands, top=(), starter=None, **cfg):
    g = VectorGame(1, seed=0, autoreset=False, num_players=len(hands), hand_size=len(hands[0]), **cfg)
    g.reset(deck=deck(hands, top), starter=starter)
    return g


def table(g, row=None, no=None, cur=None):
    """Write a row [(code, value)], No!s {seat: 1 fresh / 2 spent} and the seat to play into game 0."""
    s = g.states
    if row is not None:
        s["nrow"][0] = len(row)
        for j, (code, v) in enumerate(row):
            s["row_kind"][0, j] = kind_of(code)
            s["row_val"][0, j] = v
    for q, state in (no or {}).items():
        s["no"][0, q] = state
    if cur is not None:
        s["active"][0] = s["cur"][0] = cur
        s["phase"][0] = E.PH_PLAY
    g.kernels.masks(g.states, g.cfg, g.masks)
    return g


def legal(g):
    return np.flatnonzero(g.legal_action_mask[0]).tolist()


def step(g, *actions):
    for a in actions:
        assert g.legal_action_mask[0, a], (a, legal(g), g.render_text(0))
        g.step(np.array([a]))


def values(g):
    return [v for _, v in g.row(0)]


# ---------------------------------------------------------------- material and setup
def test_R1_the_deck_holds_105_cards_of_15_kinds():
    assert KIND_COUNTS.tolist() == [5, 5, 7, 7, 7, 7, 7, 8, 8, 8, 8, 7, 7, 7, 7] and KIND_COUNTS.sum() == 105
    g = VectorGame(8, seed=1)
    for i in range(8):
        assert np.bincount(g.states[i]["deck"], minlength=15).tolist() == KIND_COUNTS.tolist()


def test_R2_codes_and_kind_indices():
    assert [kind_of(c) for c in ("1", "11", "W", "S", "Z", "N")] == [0, 10, 11, 12, 13, 14]
    g = VectorGame(1, seed=0)
    assert sorted(g.round_setup(0)["deck"]) == sorted(ALL)


@pytest.mark.quick
def test_R3_deal_in_blocks_rest_is_the_draw_pile():
    d = deck([["1", "2", "3", "4"], ["5", "6", "7", "8"], ["9", "10", "11", "W"]], top=["S", "Z"])
    g = VectorGame(1, seed=0, num_players=3)
    g.reset(deck=d)
    assert g.hands(0) == [["1", "2", "3", "4"], ["5", "6", "7", "8"], ["9", "10", "11", "W"]]
    assert g.draw_pile(0) == d[12:] and g.row(0) == [] and g.discard_pile(0) == [] and g.no_cards(0) == [None] * 3


def finish_round(g, rng):
    r = int(g.rounds_done[0])
    while int(g.rounds_done[0]) == r and g.current_player[0] >= 0:
        g.step(np.array([rng.choice(legal(g))]))


def test_R4_round_0_is_clockwise_and_the_direction_flips_every_round():
    g = VectorGame(1, seed=2, autoreset=False, num_players=4, target=99)
    rng = np.random.default_rng(0)
    dirs = [g.direction(0)]
    for _ in range(3):
        finish_round(g, rng)
        dirs.append(g.direction(0))
    assert dirs == [1, -1, 1, -1]


@pytest.mark.quick
def test_R5_calls_3_5_1_the_seat_with_the_1_starts_with_its_1():
    g = game([["3", "9", "W", "N"], ["5", "7", "8", "S"], ["1", "11", "Z", "Z"]])
    assert g.calls(0) == {0: 3, 1: 5, 2: 1}
    assert g.current_player[0] == 2 and legal(g) == [play_action(1)]


def test_R5_ties_go_to_the_lowest_seat_and_later_callers_are_the_zero_scorers():
    g = game([["4", "9", "W", "N"], ["2", "7", "8", "S"], ["2", "11", "Z", "Z"]])
    assert g.current_player[0] == 1
    g = VectorGame(1, seed=5, autoreset=False, num_players=5, target=99)
    rng = np.random.default_rng(1)
    for _ in range(4):
        finish_round(g, rng)
        s = g.states[0]
        zero = (s["points"][:5] == 0).astype(int).tolist()
        assert s["caller"][:5].tolist() == zero
        callers_with_numbers = [q for q in range(5) if zero[q] and s["hand"][q, :11].any()]
        if callers_with_numbers:
            assert sorted(g.calls(0)) == callers_with_numbers


def test_R6_the_starter_who_called_must_open_with_the_called_card():
    g = game([["3", "9", "W", "N"], ["5", "7", "8", "S"], ["6", "11", "Z", "Z"]])
    assert g.phase(0) == "open" and legal(g) == [play_action(3)]
    step(g, play_action(3))
    assert values(g) == [3] and g.current_player[0] == 1 and g.phase(0) == "play"


def test_R6_a_starter_who_called_nothing_takes_a_normal_turn():
    g = game([["W", "S", "Z", "N"], ["W", "S", "Z", "N"], ["W", "S", "Z", "N"]])
    assert g.calls(0) == {} and g.current_player[0] == 0 and g.phase(0) == "play"
    assert legal(g) == [wild_action(0), NO]


# ---------------------------------------------------------------- the row and a turn
def test_R7_11_onto_1_to_5_clears_the_row_leftmost_first():
    g = game([["11", "9", "9", "N"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    table(g, row=[("1", 1), ("2", 2), ("3", 3), ("W", 4), ("5", 5)])
    step(g, play_action(11))
    assert g.row(0) == [] and g.discard_pile(0) == ["1", "2", "3", "W", "5", "11"]


def test_R7_row_max_option():
    g = game([["4", "9", "9", "N"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0, row_max=3)
    table(g, row=[("1", 1), ("2", 2)])
    step(g, play_action(4))
    assert g.row(0) == [] and g.discard_pile(0) == ["1", "2", "4"]


def test_R8_no_skip_then_discard():
    g = game([["4", "9", "9", "N"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    step(g, NO)                               # seat 0: No! in front, fresh
    assert g.no_cards(0) == ["fresh", None, None]
    step(g, play_action(5))                   # seat 1
    step(g, play_action(6))                   # seat 2; seat 0 is skipped, its No! now spent
    assert g.current_player[0] == 1 and g.no_cards(0) == ["spent", None, None]
    step(g, play_action(7))                   # seat 1
    step(g, play_action(10))                  # seat 2; seat 0's turn: the spent No! is discarded
    assert g.current_player[0] == 0 and g.no_cards(0) == [None] * 3 and g.discard_pile(0)[-1] == "N"


def test_R9_play_if_any_play_is_legal_ask_only_when_none():
    g = table(game([["2", "3", "9", "9"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("10", 10)])
    assert legal(g) == [ASK]
    g = table(game([["2", "3", "9", "11"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("10", 10)])
    assert legal(g) == [play_action(11)]


def test_R10_number_fits_iff_row_empty_or_above_the_last():
    g = game([["2", "5", "6", "9"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    assert legal(g) == [play_action(v) for v in (2, 5, 6, 9)]
    table(g, row=[("6", 6)])
    assert legal(g) == [play_action(9)]


def test_R11_wild_on_3_4_5_8_fits_slots_0_3_4_only():
    g = table(game([["W", "1", "1", "2"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("3", 3), ("4", 4), ("5", 5), ("8", 8)])
    assert legal(g) == [wild_action(0), wild_action(3), wild_action(4)]
    assert [g.move_name(0, wild_action(s)) for s in (0, 3, 4)] == [
        "Wild at slot 0 (value 1)", "Wild at slot 3 (value 6)", "Wild at slot 4 (value 9)"]
    step(g, wild_action(3))
    assert g.row(0) == [("3", 3), ("4", 4), ("5", 5), ("W", 6), ("8", 8)]


def test_R11_a_new_row_starts_at_1_and_no_wild_above_11():
    g = game([["W", "1", "1", "2"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    step(g, wild_action(0))
    assert g.row(0) == [("W", 1)]
    g = table(game([["W", "4", "4", "5"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("1", 1), ("2", 2), ("11", 11)])
    assert [a for a in legal(g) if 11 <= a < 17] == [wild_action(2)]    # not at the end: 12 > 11


def test_R12_switch_a_wild_of_value_6_between_5_and_8_for_a_7():
    g = table(game([["S", "7", "1", "1"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("W", 6), ("8", 8)])
    assert switch_action(1, 7) in legal(g)
    assert g.move_name(0, switch_action(1, 7)) == "Switch: take the Wild (6), put a 7"
    step(g, switch_action(1, 7))
    assert g.row(0) == [("5", 5), ("7", 7), ("8", 8)]
    assert "W" in g.hands(0)[0] and g.discard_pile(0) == ["S"]


def test_R13_zap_then_the_last_row_card_are_discarded():
    g = table(game([["Z", "1", "1", "2"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("W", 6)])
    step(g, ZAP)
    assert g.row(0) == [("5", 5)] and g.discard_pile(0) == ["Z", "W"]
    g = game([["Z", "1", "1", "2"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    assert ZAP not in legal(g)


def test_R14_no_is_always_legal_and_placed_fresh():
    g = table(game([["N", "1", "1", "2"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("11", 11)])
    assert legal(g) == [NO]
    step(g, NO)
    assert g.no_cards(0)[0] == "fresh"


def test_R15_the_player_draws_up_to_hand_size():
    g = game([["2", "5", "6", "9", "9"], ["5", "7", "8", "S", "S"], ["6", "10", "Z", "Z", "Z"]], starter=0,
             top=["11", "W"])
    step(g, play_action(2))
    assert g.hands(0)[0] == ["5", "6", "9", "9", "11"] and g.draw_pile(0)[0] == "W"


def test_R15_flip_reshuffle_order_first_discarded_is_drawn_first():
    g = game([["2", "5", "6", "9"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0, reshuffle="flip")
    s = g.states
    s["dpos"][0] = s["dend"][0]                      # the draw pile is empty ...
    s["disc"][0, :3] = [kind_of("Z"), kind_of("3"), kind_of("S")]
    s["ndisc"][0] = 3                                # ... the discard pile is Z (first), 3, S
    step(g, play_action(2))
    assert g.hands(0)[0] == ["5", "6", "9", "Z"]     # the first-discarded card is drawn first
    assert g.draw_pile(0) == ["3", "S"] and g.discard_pile(0) == []


def test_R15_shuffle_reshuffle_draws_from_the_games_stream_and_can_be_forced():
    g = game([["2", "5", "6", "9"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0)
    s = g.states
    s["dpos"][0] = s["dend"][0]
    s["disc"][0, :3] = [kind_of("Z"), kind_of("3"), kind_of("S")]
    s["ndisc"][0] = 3
    g.force_reshuffle(0, {"pile": ["S", "3", "Z"]})
    step(g, play_action(2))
    assert g.reshuffles(0) == 1 and g.reshuffle_record(0) == {"pile": ["S", "3", "Z"]}
    assert "S" in g.hands(0)[0] and g.draw_pile(0) == ["3", "Z"]


# ---------------------------------------------------------------- asking for help
def stuck(**cfg):
    """Seat 0 holds only numbers below the row's last value: it must ask."""
    return table(game([["2", "3", "4", "4"], ["5", "7", "8", "S"], ["6", "10", "N", "Z"]], starter=0, **cfg),
                 row=[("5", 5), ("10", 10)])


def test_R16_helper_search_past_a_no():
    g = table(stuck(), no={2: E.NO_FRESH})            # d = +1: backwards from 0 is 2, then 1
    assert g.move_name(0, ASK) == "ask player_1 for help"
    step(g, ASK)
    assert g.current_player[0] == 1 and g.phase(0) == "give"


def test_R16_the_helper_is_the_previous_seat_in_the_rounds_direction():
    g = stuck()
    step(g, ASK)
    assert g.current_player[0] == 2
    g = stuck()
    g.states["dir"][0] = -1
    step(g, ASK)
    assert g.current_player[0] == 1


def test_R17_givable_cards_are_judged_on_the_row_alone():
    g = stuck()
    step(g, ASK)                                     # helper 2 holds 6 10 N Z on row 5 10
    assert legal(g) == [give_action(kind_of("Z")), give_action(kind_of("N"))]     # not the 6 or the 10


def test_R18_give_back_anything_but_the_card_just_received_a_second_copy_may_go():
    g = table(game([["2", "3", "4", "4"], ["5", "7", "8", "S"], ["11", "11", "N", "Z"]], starter=0),
              row=[("5", 5), ("10", 10)])
    step(g, ASK, give_action(kind_of("11")))
    assert legal(g) == [give_back_action(kind_of(c)) for c in ("2", "3", "4")]
    g = table(game([["S", "S", "S", "S"], ["5", "7", "8", "Z"], ["6", "10", "S", "N"]], starter=0),
              row=[("5", 5), ("10", 10)])
    step(g, ASK, give_action(kind_of("S")))
    assert legal(g) == [give_back_action(kind_of("S"))]       # a second Switch may go


def test_R19_the_received_card_must_be_played_and_the_helper_does_not_draw():
    g = stuck()
    step(g, ASK, give_action(kind_of("Z")), give_back_action(kind_of("2")))
    assert g.phase(0) == "play_received" and legal(g) == [ZAP]
    draw = len(g.draw_pile(0))
    step(g, ZAP)
    assert g.hands(0)[2] == ["2", "6", "10", "N"] and len(g.hands(0)[0]) == 4 and len(g.draw_pile(0)) == draw - 1


def test_R19_four_switches_receiving_a_switch_fail_the_help():
    g = table(game([["S", "S", "S", "S"], ["5", "7", "8", "Z"], ["6", "10", "S", "N"]], starter=0),
              row=[("5", 5), ("10", 10)])
    assert legal(g) == [ASK]
    step(g, ASK, give_action(kind_of("S")), give_back_action(kind_of("S")))
    assert g.round_over[0] and g.round_points[0].tolist() == [0, 1, 0]


def test_R20a_no_givable_card_scores_every_other_seat():
    g = table(game([["2", "3", "4", "4"], ["5", "7", "8", "S"], ["1", "2", "3", "4"], ["1", "2", "9", "W"]],
                   starter=0), row=[("5", 5), ("11", 11)])
    g.states["hand"][0, 3, kind_of("W")] = 0          # the previous seat (3) holds 1 2 9: nothing fits 5 11
    g.states["hand"][0, 3, kind_of("9")] += 1
    table(g)
    step(g, ASK)
    assert g.round_over[0] and g.round_points[0].tolist() == [0, 1, 1, 0] and g.states[0]["end_reason"] == 1


def test_R20b_helpless_asker_alone_scores():
    g = table(stuck(), no={1: E.NO_SPENT, 2: E.NO_FRESH})
    assert g.move_name(0, ASK) == "ask for help (nobody can help)"
    step(g, ASK)
    assert g.round_over[0] and g.round_points[0].tolist() == [1, 0, 0] and g.states[0]["end_reason"] == 2


def test_R21_totals_accumulate_and_the_game_ends_at_the_target_every_seat_there_wins():
    g = VectorGame(1, seed=3, autoreset=False, num_players=4, target=2, reward="win")
    rng = np.random.default_rng(3)
    rewards = np.zeros(4)
    totals = []
    while g.current_player[0] >= 0:
        rewards += g.step(np.array([rng.choice(legal(g))]))[0]
        if g.round_over[0]:
            totals.append(g.totals[0].tolist())
    assert max(totals[-1]) == 2 and all(max(t) < 2 for t in totals[:-1]) and g.game_over[0]
    win = g.winners([0])[0]
    assert win.tolist() == [t == 2 for t in totals[-1]]
    assert rewards.tolist() == [1.0 if w else -1.0 for w in win]


def test_R21_points_reward_is_plus_one_per_point():
    g = VectorGame(1, seed=4, autoreset=False, num_players=3)
    rng = np.random.default_rng(4)
    rewards = np.zeros(3)
    while g.current_player[0] >= 0:
        rewards += g.step(np.array([rng.choice(legal(g))]))[0]
    assert rewards.tolist() == g.totals[0].tolist()


def test_R22_max_steps_truncates_the_round_and_the_game():
    g = VectorGame(1, seed=0, autoreset=False, num_players=3, max_steps=4)
    for _ in range(4):
        assert not g.truncated[0]
        g.step(np.array([legal(g)[0]]))
    assert g.truncated[0] and not g.game_over[0] and g.current_player[0] == -1 and g.totals[0].sum() == 0


def test_corollary_on_a_non_empty_row_an_asker_holds_only_low_numbers_or_only_switches():
    g = VectorGame(64, seed=9, num_players=4)
    asked = 0
    for _ in range(600):
        s = g.states
        for i in np.flatnonzero(g.legal_action_mask[:, ASK]):
            st = s[i]
            if st["nrow"] == 0:
                continue
            hand = st["hand"][st["cur"]]
            last = st["row_val"][st["nrow"] - 1]
            kinds = np.flatnonzero(hand)
            assert (kinds < 11).all() and (kinds + 1 <= last).all() or (kinds == kind_of("S")).all()
            asked += 1
        g.step(g.sample_actions())
    assert asked > 10


# ---------------------------------------------------------------- decisions the printed rules leave open
def test_D1_blocks_of_hand_size_by_seat():
    hands = [["1", "2", "3", "4", "5"], ["6", "7", "8", "9", "10"], ["11", "W", "S", "Z", "N"]]
    g = game(hands)
    assert g.hands(0) == [sorted(h, key=kind_of) for h in hands]


def test_D2_a_wild_is_no_number_and_a_special_only_hand_calls_nothing():
    g = game([["W", "S", "Z", "N"], ["5", "W", "8", "S"], ["6", "10", "Z", "Z"]])
    assert g.calls(0) == {1: 5, 2: 6} and g.current_player[0] == 1


def test_D3_open_lowest_false_makes_the_opening_a_normal_turn():
    g = game([["3", "9", "W", "N"], ["5", "7", "8", "S"], ["6", "11", "Z", "Z"]], open_lowest=False)
    assert g.current_player[0] == 0 and g.phase(0) == "play" and len(legal(g)) > 1


def test_D4_a_wilds_value_is_never_recomputed():
    g = table(game([["S", "2", "1", "1"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("3", 3), ("W", 4), ("8", 8)])
    step(g, switch_action(0, 2))
    assert g.row(0) == [("2", 2), ("W", 4), ("8", 8)]
    g = table(game([["S", "5", "1", "1"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("3", 3), ("W", 4), ("8", 8)])
    assert switch_action(0, 5) not in legal(g)          # 5 left of the Wild's 4 would break the row


def test_D5_switch_puts_a_number_from_hand_possibly_equal_to_the_taken_one():
    g = table(game([["S", "5", "W", "N"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("5", 5), ("9", 9)])
    sw = [a for a in legal(g) if 17 <= a < 72]
    assert sw == [switch_action(0, 5)]                     # only the 5 from hand goes in, never the Wild
    step(g, switch_action(0, 5))
    assert g.row(0) == [("5", 5), ("9", 9)] and g.hands(0)[0].count("5") >= 1


def test_D6_a_no_bars_its_owner_from_helping_fresh_or_spent():
    for state in (E.NO_FRESH, E.NO_SPENT):
        g = table(stuck(), no={2: state})
        step(g, ASK)
        assert g.current_player[0] == 1


def test_D7_skipped_seats_are_passed_over_when_looking_for_a_helper():
    g = table(game([["2", "3", "4", "4"], ["5", "7", "8", "S"], ["6", "10", "N", "Z"], ["9", "9", "N", "S"]],
                   starter=0), row=[("5", 5), ("10", 10)], no={3: E.NO_SPENT, 2: E.NO_FRESH})
    step(g, ASK)
    assert g.current_player[0] == 1


def test_D8_helping_is_compulsory_and_a_given_switch_can_turn_out_useless():
    g = table(game([["S", "S", "S", "S"], ["5", "7", "8", "Z"], ["6", "10", "S", "1"]], starter=0),
              row=[("5", 5), ("10", 10)])
    step(g, ASK)
    assert legal(g) == [give_action(kind_of("S"))]       # the only givable card: the Switch
    step(g, give_action(kind_of("S")), give_back_action(kind_of("S")))
    assert g.round_over[0]


def test_D9_order_give_give_back_play():
    g = stuck()
    phases = [g.phase(0)]
    for a in (ASK, give_action(kind_of("N")), give_back_action(kind_of("4")), NO):
        step(g, a)
        phases.append(g.phase(0))
    assert phases == ["play", "give", "give_back", "play_received", "play"]


def test_D10_forced_single_choices_are_still_asked():
    g = stuck()
    assert legal(g) == [ASK]
    step(g, ASK)
    g2 = table(game([["2", "3", "4", "4"], ["5", "7", "8", "S"], ["6", "10", "1", "Z"]], starter=0),
               row=[("5", 5), ("10", 10)])
    step(g2, ASK)
    assert legal(g2) == [give_action(kind_of("Z"))]
    step(g2, give_action(kind_of("Z")))
    assert legal(g2) == [give_back_action(kind_of(c)) for c in ("2", "3", "4")]


def test_D11_reshuffle_lazily_row_and_no_cards_stay():
    g = table(game([["2", "5", "6", "9"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0,
                   reshuffle="flip"), row=[("1", 1)], no={2: E.NO_FRESH})
    s = g.states
    s["dpos"][0] = s["dend"][0] - 1                  # one card left: no reshuffle before it is needed
    s["disc"][0, :2] = [kind_of("Z"), kind_of("3")]
    s["ndisc"][0] = 2
    before = int(s["flips"][0])
    step(g, play_action(2))
    assert int(g.states["flips"][0]) == before and g.discard_pile(0) == ["Z", "3"]
    assert g.row(0) == [("1", 1), ("2", 2)] and g.no_cards(0)[2] == "fresh"


def test_D12_random_rounds_end_quickly():
    g = VectorGame(64, seed=12, num_players=4, episode="round")
    longest = ends = 0
    for _ in range(400):
        longest = max(longest, int(g.states["steps"].max()))
        g.step(g.sample_actions())
        ends += int(g.round_over.sum())
        assert not g.truncated.any()
    assert ends > 500 and longest < 200


def test_D13_discard_order():
    g = table(game([["S", "Z", "4", "6"], ["5", "7", "8", "S"], ["6", "10", "Z", "Z"]], starter=0),
              row=[("3", 3), ("5", 5)])
    step(g, switch_action(1, 4))                     # Switch first
    step(g, play_action(8))
    table(g, cur=0)
    step(g, ZAP)                                     # Zap, then the zapped card
    assert g.discard_pile(0) == ["S", "Z", "8"]


def test_D14_fallback_calls_are_public_otherwise_only_the_callers():
    g = VectorGame(1, seed=0, autoreset=False, num_players=3, target=9)
    g.states["caller"][0, :3] = [1, 0, 0]
    g.redeal(0, deck([["W", "S", "Z", "N"], ["5", "7", "8", "S"], ["3", "10", "Z", "Z"]]))
    assert g.calls(0) == {1: 5, 2: 3} and g.current_player[0] == 2 and legal(g) == [play_action(3)]
    g.states["caller"][0, :3] = [1, 1, 0]
    g.redeal(0, deck([["W", "S", "Z", "N"], ["5", "7", "8", "S"], ["3", "10", "Z", "Z"]]))
    assert g.calls(0) == {1: 5} and g.current_player[0] == 1
