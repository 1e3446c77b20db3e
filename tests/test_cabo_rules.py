"""Cabo: one test per rule (R*) and decision (D*) of quando_env/cabo/RULES.md, named after its id, and
the spec's "Required tests". Rounds are forced with tests/cabo_reference.py's deck builder (hands by
slot, upcard, stock top) and played through the engine (quando_env.cabo.VectorGame)."""
import numpy as np
import pytest

from cabo_reference import card_id, deck_for
from quando_env.cabo import VectorGame
from quando_env.cabo import engine as E
from quando_env.cabo.cards import (CARD_VALUES, DISCARD_DRAWN, DRAW_STOCK, KNOCK, NO_KNOCK, NUM_ACTIONS, PASS,
                                   TAKE_DISCARD, action_name, card_name, check_deck, jack_action, place_action,
                                   queen_action, rank, snap_action, suit, value)

C, D, H, S = 0, 1, 2, 3


def k(r, s):
    return card_id(r, s)


def table(hands, upcard, stock=(), dealer=None, **opts):
    """A round of len(hands) players dealt from a forced deck (hands[p] in slot order); stock cards
    already dealt are left out."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    used = {c for h in hands for c in h} | {upcard}
    stock = [c for c in dict.fromkeys(stock) if c not in used]
    opts = {"episode": "round", "hand_size": len(hands[0]), "peek": min(2, len(hands[0])), **opts}
    game = VectorGame(1, seed=0, autoreset=False, num_players=n, **opts)
    game.reset(deck=deck_for(hands, upcard, stock, dealer), dealer=dealer)
    return game


def do(game, *actions):
    for a in actions:
        game.step(np.array([a]))


def legal(game):
    return np.flatnonzero(game.legal_action_mask[0]).tolist()


def st(game):
    return game.states[0]


def phase(game):
    return int(st(game)["phase"])


def cur(game):
    return int(st(game)["cur"])


def pass_window(game):
    """Everyone passes the open snap window; returns the seats asked, in order."""
    asked = []
    while phase(game) == E.PH_SNAP:
        asked.append(cur(game))
        do(game, PASS)
    return asked


def quiet_turn(game, knock=False):
    """Draw from the stock, discard it, everyone passes, then (if asked) knock or not."""
    assert phase(game) == E.PH_DRAW
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    pass_window(game)
    if phase(game) == E.PH_KNOCK:
        do(game, KNOCK if knock else NO_KNOCK)


# Low plain cards, no two of one rank among hands: a 3-player table with 4 cards each.
HANDS3 = [[k(1, C), k(2, C), k(3, C), k(4, C)], [k(1, D), k(2, D), k(3, D), k(4, D)],
          [k(1, H), k(2, H), k(3, H), k(4, H)]]
PLAIN = [k(r, s) for r in (5, 6, 7, 8, 9, 10) for s in (C, D, H, S)]   # stock cards with no rule


def plain_table(**opts):
    return table(HANDS3, k(10, S), PLAIN, **opts)


# ---------------------------------------------------------------- material
def test_R1_card_ids_rank_suit_colour():
    assert [rank(c) for c in (0, 3, 4, 40, 51)] == [1, 1, 2, 11, 13]
    assert [suit(c) for c in (0, 1, 2, 3, 51)] == [C, D, H, S, S]
    assert card_name(k(12, H)) == "Qh" and card_name(k(10, C)) == "10c"


def test_R2_values_red_king_0_black_king_13():
    assert [value(k(r, C)) for r in range(1, 13)] == list(range(1, 13))
    assert [value(k(13, s)) for s in (C, D, H, S)] == [13, 0, 0, 13]
    assert CARD_VALUES.sum() == 4 * sum(range(1, 13)) + 26


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_R3_two_to_six_players_with_eight_slots(n):
    game = VectorGame(1, num_players=n)
    assert game.states["slot"].shape[1:] == (6, 8)
    assert (st(game)["nhand"][:n] == 4).all()


def test_R4_forced_deck_is_52_ids_top_first():
    deck = list(range(51, -1, -1))
    game = VectorGame(1, num_players=2, episode="round")
    game.reset(deck=deck, dealer=1)
    assert st(game)["deck"].tolist() == deck
    assert game.hands(0)[0][0] == 51 and game.hands(0)[1][0] == 50           # the top card first
    with pytest.raises(ValueError, match="every id occurs once"):
        check_deck([0] * 52)


# ---------------------------------------------------------------- setup
@pytest.mark.parametrize("n,dealer", [(2, 0), (3, 2), (4, 1), (6, 5)])
def test_R5_deal_one_card_at_a_time_from_the_dealers_left_card_i_to_slot_i(n, dealer):
    deck = list(range(52))
    game = VectorGame(1, num_players=n, episode="round")
    game.reset(deck=deck, dealer=dealer)
    for p in range(n):
        j = (p - dealer - 1) % n
        assert game.hands(0)[p] == [j + n * i for i in range(4)] + [None] * 4


@pytest.mark.quick
def test_R6_upcard_then_stock_in_order_and_peek_at_slots_0_and_1():
    game = VectorGame(1, num_players=3, episode="round")
    game.reset(deck=list(range(52)), dealer=2)
    stock, disc = game.piles(0)
    assert disc == [12] and stock == list(range(13, 52))
    for p in range(3):
        assert game.seen_cards(0, p) == set(game.hands(0)[p][:2]) | {12}


def test_R7_upcard_window_dealer_last_then_left_of_dealer_starts_without_a_turn():
    game = plain_table()
    assert phase(game) == E.PH_SNAP and st(game)["in_turn"] == 0
    assert pass_window(game) == [0, 1, 2]
    assert phase(game) == E.PH_DRAW and cur(game) == 0 and st(game)["turns"] == 0


def test_R8_turns_go_clockwise_and_a_player_holding_no_card_is_skipped():
    hands = [[k(1, C)], [k(5, C)], [k(2, C)], [k(3, C)]]
    game = table(hands, k(5, D), PLAIN[4:])               # dealer 3
    assert cur(game) == 0
    do(game, PASS, snap_action(0))                               # seat 1's only card matches: out
    assert st(game)["out"][1] == 1
    pass_window(game)                                      # 2, 3 (seat 1 is no longer asked)
    assert cur(game) == 0
    quiet_turn(game)
    assert cur(game) == 2                                  # seat 1 skipped


# ---------------------------------------------------------------- a turn
@pytest.mark.quick
def test_R9_draw_from_the_stock_only_the_drawer_sees_or_take_the_discard_top():
    game = plain_table()
    pass_window(game)
    assert legal(game) == [DRAW_STOCK, TAKE_DISCARD]
    top = game.piles(0)[0][0]
    do(game, DRAW_STOCK)
    assert st(game)["drawn"] == top and top in game.seen_cards(0, 0)
    assert top not in game.seen_cards(0, 1) | game.seen_cards(0, 2)
    game = plain_table()
    pass_window(game)
    do(game, TAKE_DISCARD)
    assert st(game)["drawn"] == k(10, S) and game.piles(0)[1] == []
    assert legal(game) == [place_action(i) for i in range(4)]


def test_R10_jack_from_the_stock_exchanges_cards_chosen_by_the_drawer_nobody_looks():
    game = table(HANDS3, k(10, S), [k(11, C)] + PLAIN)
    pass_window(game)
    do(game, DRAW_STOCK)
    assert phase(game) == E.PH_JACK
    assert legal(game) == sorted(jack_action(r, p, q) for r in (1, 2) for p in range(4) for q in range(4))
    do(game, jack_action(2, 3, 1))                         # my slot 3 with player 2's slot 1
    assert game.hands(0)[0][3] == k(2, H) and game.hands(0)[2][1] == k(4, C)
    assert k(2, H) not in game.seen_cards(0, 0) and k(4, C) not in game.seen_cards(0, 2)
    assert phase(game) == E.PH_PLACE and DISCARD_DRAWN in legal(game)


def test_R10_jack_is_skipped_when_no_other_player_holds_a_card():
    game = table([[k(1, C)], [k(5, C)]], k(5, D), [k(11, C)] + PLAIN)  # dealer 1
    do(game, PASS, snap_action(0))                         # the dealer goes out in R7's window
    assert phase(game) == E.PH_DRAW and cur(game) == 0
    do(game, DRAW_STOCK)
    assert phase(game) == E.PH_PLACE                       # no Jack exchange
    assert k(11, C) not in game.seen_cards(0, 1)           # K5 only when the rule applies


def test_R11_queen_from_the_stock_look_at_one_own_card():
    game = table(HANDS3, k(10, S), [k(12, C)] + PLAIN)
    pass_window(game)
    do(game, DRAW_STOCK)
    assert phase(game) == E.PH_QUEEN and legal(game) == [queen_action(i) for i in range(4)]
    do(game, queen_action(3))
    assert k(4, C) in game.seen_cards(0, 0) and k(4, C) not in game.seen_cards(0, 1)
    assert k(12, C) in game.seen_cards(0, 1)               # K5
    assert phase(game) == E.PH_PLACE


def test_R12_place_into_an_occupied_slot_or_discard_a_stock_card_then_a_window():
    game = plain_table()
    pass_window(game)
    drawn = game.piles(0)[0][0]
    do(game, DRAW_STOCK)
    assert legal(game) == [place_action(i) for i in range(4)] + [DISCARD_DRAWN]
    do(game, place_action(2))
    assert game.hands(0)[0][2] == drawn and game.piles(0)[1][0] == k(3, C)
    assert phase(game) == E.PH_SNAP and st(game)["discarder"] == 0 and cur(game) == 1


# ---------------------------------------------------------------- the snap
def test_R13_window_order_others_from_the_left_then_the_discarder_then_knock_decision():
    game = plain_table()
    pass_window(game)
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    assert pass_window(game) == [1, 2, 0]
    assert phase(game) == E.PH_KNOCK and cur(game) == 0


def test_R13_a_correct_snap_asks_again_a_pass_or_wrong_snap_ends_the_part():
    hands = [[k(5, C), k(5, H), k(2, C), k(3, C)], [k(1, D), k(2, D), k(3, D), k(4, D)],
             [k(1, H), k(2, H), k(3, H), k(4, H)]]
    game = table(hands, k(5, D), PLAIN[4:])
    do(game, snap_action(0))
    assert cur(game) == 0 and legal(game) == [snap_action(i) for i in (1, 2, 3)] + [PASS]
    do(game, snap_action(2))                               # wrong: a 2 on a 5
    assert cur(game) == 1


def test_R14_correct_snap_same_rank_goes_onto_the_pile_slot_empties_nothing_else_moves():
    hands = [[k(1, C), k(5, C), k(2, C), k(3, C)]] + HANDS3[1:]
    game = table(hands, k(5, D), PLAIN[4:])
    before = game.hands(0)
    do(game, snap_action(1))
    after = game.hands(0)
    assert after[0] == [k(1, C), None, k(2, C), k(3, C), None, None, None, None]
    assert after[1:] == before[1:] and game.piles(0)[1] == [k(5, C), k(5, D)]
    assert all(k(5, C) in game.seen_cards(0, p) for p in range(3))


def test_R15_only_players_holding_1_to_7_cards_are_asked():
    eight = [[k(r, s) for r, s in [(1, C), (2, C), (3, C), (4, C), (6, C), (7, C), (8, C), (9, C)]],
             [k(r, s) for r, s in [(1, D), (2, D), (3, D), (4, D), (6, D), (7, D), (8, D), (9, D)]]]
    game = table(eight, k(5, D))
    assert phase(game) == E.PH_DRAW                        # nobody asked in R7's window


def test_R16_wrong_snap_card_returns_penalty_card_into_the_lowest_empty_slot_unseen():
    hands = [[k(1, C), k(5, C), k(2, C), k(3, C)]] + HANDS3[1:]
    game = table(hands, k(5, D), PLAIN[4:])
    do(game, snap_action(1))                               # correct: slot 1 empties
    do(game, snap_action(0))                               # wrong: the ace returns, a penalty card
    pen = PLAIN[4]
    assert game.hands(0)[0][:4] == [k(1, C), pen, k(2, C), k(3, C)]
    assert all(k(1, C) in game.seen_cards(0, p) for p in range(3))
    assert all(pen not in game.seen_cards(0, p) for p in range(3))
    assert cur(game) == 1


def test_R17_empty_stock_discard_pile_but_its_top_turned_over_oldest_on_top():
    game = VectorGame(1, seed=0, autoreset=False, num_players=2, episode="round", turn_limit=0)
    game.reset(deck=list(range(52)), dealer=1)
    while not (phase(game) == E.PH_DRAW and not game.piles(0)[0]):   # play until the stock is empty
        a = DRAW_STOCK if phase(game) == E.PH_DRAW else DISCARD_DRAWN if phase(game) == E.PH_PLACE else \
            PASS if phase(game) == E.PH_SNAP else NO_KNOCK if phase(game) == E.PH_KNOCK else legal(game)[0]
        do(game, a)
    disc = game.piles(0)[1]
    do(game, DRAW_STOCK)
    assert st(game)["drawn"] == disc[-1]                   # the oldest discard
    assert game.piles(0) == (disc[1:-1][::-1], [disc[0]])


def test_R17_a_stock_draw_is_illegal_when_the_restock_would_be_empty():
    game = plain_table()
    pass_window(game)
    # the pile sizes are written as is, not by load_states: the cards they leave out are nowhere, which
    # load_states refuses (no real table gets here: at most 49 of the 52 cards are outside the piles)
    game.states["nstock"][0] = 0
    game.states["ndisc"][0] = 1
    game.kernels.masks(game.states, game.cfg, game.masks)
    assert legal(game) == [TAKE_DISCARD]
    game.states["ndisc"][0] = 2
    game.kernels.masks(game.states, game.cfg, game.masks)
    assert legal(game) == [DRAW_STOCK, TAKE_DISCARD]


# ---------------------------------------------------------------- end of a round
def test_R18_knock_decision_after_the_own_window_only_while_nobody_knocked():
    game = plain_table()
    pass_window(game)
    quiet_turn(game, knock=True)
    assert st(game)["knocker"] == 0
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    pass_window(game)
    assert phase(game) == E.PH_DRAW and cur(game) == 2     # no knock decision after a knock


def test_R19_after_a_knock_one_turn_each_then_the_knockers_last_turn():
    game = plain_table()
    pass_window(game)
    quiet_turn(game)                                        # seat 0, no knock
    quiet_turn(game, knock=True)                            # seat 1 knocks
    actives = []
    while not game.round_over[0]:
        actives.append(cur(game))
        quiet_turn(game)
    assert actives == [2, 0, 1]


def test_R20_going_out_in_Ts_turn_players_play_until_the_turn_returns_to_T():
    hands = [[k(1, C)], [k(5, C)], [k(2, C)], [k(3, C)]]
    game = table(hands, k(9, D), [k(5, D)] + PLAIN)        # seat 0 discards the 5d: seat 1 snaps out
    pass_window(game)
    do(game, DRAW_STOCK, DISCARD_DRAWN, snap_action(0))
    assert st(game)["out_turn"] == 0
    pass_window(game)
    actives = []
    while not game.round_over[0]:
        actives.append(cur(game))
        quiet_turn(game)
    assert actives == [2, 3]                                # then the turn would return to seat 0


def test_R20_with_a_knock_pending_the_earlier_end_applies():
    hands = [[k(1, C)], [k(2, C)], [k(6, C)], [k(3, C)]]
    game = table(hands, k(9, D), PLAIN[:1] + [k(6, D)] + PLAIN[1:])
    pass_window(game)
    quiet_turn(game, knock=True)                            # seat 0 knocks
    do(game, DRAW_STOCK, DISCARD_DRAWN, snap_action(0))     # seat 1 discards the 6d: seat 2 goes out
    pass_window(game)
    actives = []
    while not game.round_over[0]:
        actives.append(cur(game))
        quiet_turn(game)
    assert actives == [3, 0]                                # seat 0's last turn ends it before seat 1


def test_R21_the_round_ends_after_the_window_of_turn_number_turn_limit():
    game = plain_table(turn_limit=2)
    pass_window(game)
    quiet_turn(game)
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    pass_window(game)
    assert game.round_over[0] and st(game)["turns"] == 2


def test_R22_hand_total_is_the_sum_of_values_held_0_when_out():
    hands = [[k(13, D), k(13, S)], [k(12, C), k(1, S)], [k(5, C), k(9, H)]]
    game = table(hands, k(5, D), PLAIN[4:], turn_limit=1)
    do(game, PASS, PASS, snap_action(0), PASS)              # seat 2 snaps the 5c
    quiet_turn(game)
    assert game.round_over[0] and game.round_points[0].tolist() == [13, 13, 9]


def play_knock_round(hands, knocker_total_first=True, **opts):
    """2 players, hand_size len(hands[0]); seat 0 knocks at once; quiet turns to the end."""
    game = table(hands, k(10, S), PLAIN, **opts)
    pass_window(game)
    quiet_turn(game, knock=True)
    while not game.round_over[0]:
        quiet_turn(game)
    return game


@pytest.mark.parametrize("mine,other,tie_doubles,points", [
    (k(5, C), k(3, C), False, [10, 3]), (k(3, C), k(5, C), False, [3, 5]),
    (k(4, C), k(4, D), False, [4, 4]), (k(4, C), k(4, D), True, [8, 4])])
def test_R23_the_knockers_total_doubles_if_another_total_is_strictly_lower(mine, other, tie_doubles, points):
    game = play_knock_round([[mine], [other]], tie_doubles=tie_doubles)
    assert game.round_points[0].tolist() == points


def test_R24_totals_add_round_points_and_the_dealer_moves_clockwise():
    game = VectorGame(1, seed=3, num_players=3, autoreset=False)
    assert st(game)["dealer"] == 2
    before = game.totals[0].copy()
    while game.rounds_done[0] == 0:
        game.step(np.array([legal(game)[-1]]))
    assert st(game)["dealer"] == 0
    pts = game.round_points[0]
    assert (game.totals[0] == before + pts - 25 * np.isin(before + pts, [25, 50, 75, 100])).all()


def scored(total_before, mine, other=k(1, S), **opts):
    """Seat 0's game total after a knock round in which it scores value(mine) (or double)."""
    game = table([[mine], [other]], k(10, S), PLAIN, episode="game", **opts)
    game.states["total"][0, 0] = total_before
    pass_window(game)
    quiet_turn(game, knock=False)
    while game.rounds_done[0] == 0:
        quiet_turn(game)
    return game


def test_R25_a_total_landing_on_25_50_75_100_loses_25_once():
    assert scored(20, k(5, C), turn_limit=2).totals[0, 0] == 0      # 25 -> 0
    assert scored(45, k(5, C), turn_limit=2).totals[0, 0] == 25     # 50 -> 25, once
    assert scored(70, k(4, C), turn_limit=2).totals[0, 0] == 74


def test_R26_the_game_ends_after_a_round_with_a_total_over_100_lowest_wins_ties_share():
    game = scored(95, k(7, C), turn_limit=2)
    assert game.game_over[0] and game.totals[0].tolist() == [102, 1]
    assert game.winners([0]).tolist() == [[False, True]]
    game = scored(92, k(7, C), turn_limit=2)
    assert not game.game_over[0] and game.totals[0].tolist() == [99, 1]
    assert scored(94, k(7, C), turn_limit=2).game_over[0]
    tied = VectorGame(1, num_players=3)
    tied.states["total"][0, :3] = [40, 40, 90]
    assert tied.winners().tolist() == [[True, True, False]]


# ---------------------------------------------------------------- the spec's required tests
def test_required_exactly_100_gives_75_and_play_goes_on():
    game = scored(90, k(10, C), turn_limit=2)
    assert game.totals[0, 0] == 75 and not game.game_over[0] and game.current_player[0] >= 0


def test_required_0_plus_25_gives_0():
    game = table([[k(12, C), k(13, C)], [k(1, S), k(1, H)]], k(10, S), PLAIN, episode="game", turn_limit=2)
    pass_window(game)
    while game.rounds_done[0] == 0:
        quiet_turn(game)
    assert game.round_points[0, 0] == 25 and game.totals[0, 0] == 0


def out_after_knock(knocker_hand):
    """Seat 0 knocks; then seat 1 snaps its only card in seat 2's window and goes out (3 players)."""
    hands = [knocker_hand, [k(6, C)], [k(2, C)]]
    game = table(hands, k(10, S), PLAIN[:2] + [k(6, D)] + PLAIN[2:], hand_size=len(knocker_hand))
    pass_window(game)
    quiet_turn(game, knock=True)
    do(game, DRAW_STOCK, DISCARD_DRAWN)                     # seat 1's turn: a plain card
    pass_window(game)
    do(game, DRAW_STOCK, DISCARD_DRAWN, PASS, snap_action(0))  # seat 2 discards the 6d, seat 1 snaps out
    pass_window(game)
    while not game.round_over[0]:
        quiet_turn(game)
    return game


def test_required_out_after_a_knock_a_knocker_with_total_above_0_is_doubled():
    game = out_after_knock([k(3, C)])
    assert game.round_points[0].tolist() == [6, 0, 2]


def test_required_out_after_a_knock_a_knocker_holding_only_red_kings_scores_0():
    game = out_after_knock([k(13, D)])
    assert game.round_points[0].tolist() == [0, 0, 2]


# ---------------------------------------------------------------- decisions
@pytest.mark.parametrize("n", [1, 7, 10])
def test_D1_two_to_six_players_only(n):
    with pytest.raises(ValueError, match="2 to 6 players"):
        VectorGame(1, num_players=n)


def test_D2_peeked_cards_are_slots_0_to_peek_minus_1_without_a_decision():
    game = plain_table(peek=3)
    assert game.seen_cards(0, 1) == {k(1, D), k(2, D), k(3, D), k(10, S)}
    assert phase(game) == E.PH_SNAP


def test_D3_a_red_king_snaps_on_a_black_king():
    hands = [[k(13, H), k(2, C)], [k(1, D), k(2, D)]]
    game = table(hands, k(13, S), PLAIN)
    do(game, snap_action(0))
    assert game.piles(0)[1][:2] == [k(13, H), k(13, S)]


def test_D4_only_own_cards_are_snapped_and_the_window_closes_before_the_knock_and_next_draw():
    game = plain_table()
    assert legal(game) == [snap_action(i) for i in range(4)] + [PASS]
    pass_window(game)
    quiet_turn(game)
    assert phase(game) == E.PH_DRAW and cur(game) == 1


def test_D5_several_matching_cards_and_several_players_in_one_window():
    hands = [[k(5, C), k(5, H), k(2, C)], [k(5, S), k(3, D), k(4, D)], [k(1, H), k(2, H), k(3, H)]]
    game = table(hands, k(5, D), PLAIN[4:])
    do(game, snap_action(0), snap_action(1), PASS, snap_action(0), PASS)
    assert game.piles(0)[1][:4] == [k(5, S), k(5, H), k(5, C), k(5, D)]


def test_D6_slots_are_stable_and_a_full_hand_is_not_asked():
    hands = [[k(r, C) for r in (1, 2, 3, 4, 6, 7, 8)], [k(r, D) for r in (1, 2, 3, 4, 6, 7, 8)]]
    game = table(hands, k(5, D), PLAIN[4:])                # 7 cards each
    do(game, snap_action(2))                                 # wrong: an 8th card in slot 7
    assert game.hands(0)[0][7] is not None and st(game)["nhand"][0] == 8
    assert cur(game) == 1
    pass_window(game)
    quiet_turn(game)                                         # seat 0 (8 cards) is not asked in its own window
    assert st(game)["nhand"].max() <= 8


def test_D7_the_penalty_is_one_card_nobody_sees():
    hands = [[k(1, C), k(2, C)], [k(1, D), k(2, D)]]
    game = table(hands, k(5, D), PLAIN[4:])
    do(game, snap_action(0))
    assert st(game)["nhand"][0] == 3 and not any(PLAIN[4] in game.seen_cards(0, p) for p in (0, 1))


def test_D8_jack_and_queen_act_only_when_drawn_from_the_stock_and_may_be_kept():
    game = table(HANDS3, k(12, S), PLAIN)                   # the upcard is a queen
    pass_window(game)
    do(game, TAKE_DISCARD)
    assert phase(game) == E.PH_PLACE
    game = table(HANDS3, k(10, S), [k(12, C)] + PLAIN)
    pass_window(game)
    do(game, DRAW_STOCK)
    assert legal(game) == [queen_action(i) for i in range(4)]   # mandatory: no decline action
    do(game, queen_action(0), place_action(0))
    assert game.hands(0)[0][0] == k(12, C)


def test_D9_a_card_taken_from_the_discard_pile_must_be_placed():
    game = plain_table()
    pass_window(game)
    do(game, TAKE_DISCARD)
    assert DISCARD_DRAWN not in legal(game)


def test_D10_no_knock_decision_after_R7s_window_in_the_last_lap_or_at_the_turn_limit():
    game = plain_table(turn_limit=1)
    pass_window(game)
    assert phase(game) == E.PH_DRAW
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    pass_window(game)
    assert game.round_over[0]


def test_D11_the_knockers_last_turn_is_a_full_turn_without_knock_decision():
    game = plain_table()
    pass_window(game)
    quiet_turn(game, knock=True)
    quiet_turn(game)
    quiet_turn(game)
    assert cur(game) == 0 and st(game)["final"] == 1
    do(game, DRAW_STOCK, DISCARD_DRAWN)
    asked = pass_window(game)
    assert asked == [1, 2, 0] and game.round_over[0]


def test_D11_option_no_final_turn_for_the_knocker():
    game = plain_table(knocker_final_turn=False)
    pass_window(game)
    quiet_turn(game, knock=True)
    quiet_turn(game)
    quiet_turn(game)
    assert game.round_over[0]


def test_D12_out_players_take_no_turn_are_not_asked_and_are_no_jack_target():
    hands = [[k(1, C), k(2, C)], [k(5, C), k(5, S)], [k(3, C), k(4, C)], [k(6, C), k(7, C)]]
    game = table(hands, k(5, D), [k(11, C)] + PLAIN)
    do(game, PASS, snap_action(0), snap_action(1))          # seat 1 snaps both: out (T = dealer 3)
    assert pass_window(game) == [2, 3]
    do(game, DRAW_STOCK)
    assert all((a - 19) // 64 + 1 != 1 for a in legal(game))   # seat 1 (r = 1) is no target


def test_D13_R7s_window_is_no_turn_and_a_turn_limit_round_is_scored_with_the_knocker_rule():
    game = play_knock_round([[k(9, C)], [k(2, C)]], turn_limit=2)
    assert st(game)["turns"] == 2 and game.round_points[0].tolist() == [18, 2]


def test_D14_the_forced_deck_and_the_actions_determine_the_round():
    a = VectorGame(1, seed=1, num_players=3, episode="round", autoreset=False)
    b = VectorGame(1, seed=2, num_players=3, episode="round", autoreset=False)
    deck = list(np.random.default_rng(0).permutation(52))
    a.reset(deck=deck)
    b.reset(deck=deck)
    rng = np.random.default_rng(1)
    while a.current_player[0] >= 0:
        act = rng.choice(legal(a))
        do(a, act)
        do(b, act)
        assert a.states[0]["slot"].tobytes() == b.states[0]["slot"].tobytes()
    assert a.round_points[0].tolist() == b.round_points[0].tolist() and a.reshuffles(0) == 0


def test_D15_a_tie_with_the_knocker_does_not_double():
    assert play_knock_round([[k(6, C)], [k(6, D)]]).round_points[0].tolist() == [6, 6]


def test_D16_R25_once_and_not_for_a_round_of_0_points():
    assert scored(75, k(13, D), other=k(2, S), turn_limit=2).totals[0, 0] == 75
    assert scored(95, k(5, C), turn_limit=2).totals[0, 0] == 75


def test_action_table_names_and_size():
    assert NUM_ACTIONS == 350 and len({action_name(a) for a in range(350)}) == 350
    assert action_name(5) == "swap into slot 3" and action_name(jack_action(2, 1, 0)) == \
        "Jack: my slot 1 with player+2's slot 0"
    assert [action_name(a) for a in (0, 1, 10, 347, 348, 349)] == [
        "draw from the stock", "take the discard", "discard the drawn card", "pass", "knock", "do not knock"]
    assert action_name(queen_action(2)) == "Queen: look at my slot 2" and action_name(snap_action(2)) == "snap slot 2"
