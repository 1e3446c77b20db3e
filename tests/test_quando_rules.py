"""One test per rule (R*) and decision (D*) of the spec, and the rulebook's worked examples, run on the
engine itself (VectorGame). Hand-built decks come from the reference's deck builders."""
import numpy as np
import pytest

from quando_env import VectorGame
from quando_env.quando.cards import (CARD_VALUES, FLIP_UNKNOWN, KNOCK, PASS, TAKE_DOWN, TAKE_UP, deck_to_cards,
                                    set_action)
from quando_env.quando.observation import offsets
from quando_reference import complete_deck


class Table:
    """One engine game set up from a hand-built deck, with readable accessors for the tests."""

    def __init__(self, hands, draw_top=(), dealer=None, **config):
        n = len(hands)
        dealer = n - 1 if dealer is None else dealer
        config.setdefault("episode", "round")
        self.g = VectorGame(1, seed=0, autoreset=False, num_players=n, hand_size=len(hands[0]), **config)
        self.g.reset(deck=complete_deck(hands, draw_top=draw_top, dealer=dealer), dealer=dealer)
        self.n = n

    def legal(self):
        return np.flatnonzero(self.g.legal_action_mask[0]).tolist()

    @property
    def cur(self):
        return int(self.g.current_player[0])

    def step(self, *actions):
        for a in actions:
            self.reward = self.g.step(np.array([a]))[0]

    def hand(self, p):
        return self.g.hands(0)[p]

    def draw_pile(self):
        return self.g.piles(0)[0]

    def discard_pile(self):
        return self.g.piles(0)[1]

    @property
    def over(self):
        return bool(self.g.game_over[0])

    def points(self):
        return self.g.round_points[0].tolist()

    def seen(self, p, a, b):
        """Sides of card {a, b} player p has seen, as a set of numbers."""
        c = int(np.flatnonzero([(x, y) == (min(a, b), max(a, b)) for x, y in CARD_VALUES])[0])
        bits = int(self.g.states[0]["seen"][p, c])
        return {int(CARD_VALUES[c, s]) for s in range(2) if bits >> s & 1}


# ------------------------------------------------------------------ material and setup
@pytest.mark.quick
def test_R1_fifty_five_cards_every_pair_once_ten_with_a_zero():
    pairs = {tuple(p) for p in CARD_VALUES.tolist()}
    assert len(pairs) == 55 and all(a < b for a, b in pairs)
    assert pairs == {(a, b) for a in range(11) for b in range(a + 1, 11)}
    assert sum(0 in p for p in pairs) == 10


def test_R1_deck_validation_names_the_problem():
    deck = complete_deck([[(1, 0)], [(2, 0)]])
    with pytest.raises(ValueError, match="both"):
        deck_to_cards(deck[:-1] + [deck[0]])
    with pytest.raises(ValueError, match="exactly 55"):
        deck_to_cards(deck[:-1])
    with pytest.raises(ValueError, match="differ"):
        deck_to_cards(deck[:-1] + [[3, 3]])
    with pytest.raises(ValueError, match="0..10"):
        deck_to_cards(deck[:-1] + [[3, 11]])


def test_R2_R5_dealt_card_up_side_becomes_back_down_side_front():
    g = VectorGame(1, seed=0, num_players=2, hand_size=2)
    rng = np.random.default_rng(0)
    pairs = [[a, b] for a in range(11) for b in range(a + 1, 11)]
    rng.shuffle(pairs)
    deck = [p if rng.random() < 0.5 else p[::-1] for p in pairs]
    g.reset(deck=deck, dealer=1)
    hands = g.hands(0)
    # Seat 0 gets deck[0], deck[2]; seat 1 gets deck[1], deck[3]; each (front, back) = (down, up).
    assert hands[0] == [(deck[0][1], deck[0][0]), (deck[2][1], deck[2][0])]
    assert hands[1] == [(deck[1][1], deck[1][0]), (deck[3][1], deck[3][0])]
    # R4: the rest stays in order, top first, up side up.
    assert g.piles(0)[0] == [tuple(p) for p in deck[4:]]


@pytest.mark.parametrize("n,size", [(2, 8), (3, 8), (4, 7), (5, 7), (6, 7)])
def test_R3_hand_size_by_player_count(n, size):
    g = VectorGame(3, seed=1, num_players=n)
    assert (g.states["nhand"][:, :n] == size).all()
    assert (g.states["ndraw"] == 55 - n * size).all()


def test_R3_hand_size_configurable_and_checked():
    g = VectorGame(1, seed=1, num_players=3, hand_size=5)
    assert g.states["nhand"][0, :3].tolist() == [5, 5, 5]
    for bad in (0, 19, "7"):
        with pytest.raises(ValueError, match="hand_size"):
            VectorGame(1, num_players=3, hand_size=bad)
    with pytest.raises(ValueError, match="2 to 6"):
        VectorGame(1, num_players=7)


def test_R4_random_decks_are_shuffled_with_random_orientation():
    g = VectorGame(400, seed=3)
    up_low = (g.states["deck_up"] == 0).mean()
    assert 0.45 < up_low < 0.55
    top_cards = np.bincount(g.states["deck"][:, 0], minlength=55)
    assert (top_cards > 0).sum() > 45  # many different top cards over 400 deals
    assert all(sorted(d) == list(range(55)) for d in g.states["deck"])


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_R5_R6_deal_starts_left_of_dealer_who_also_starts_play(dealer):
    hands = [[(1, 0), (2, 0)], [(3, 0), (4, 0)], [(5, 0), (6, 0)]]
    t = Table(hands, draw_top=[(9, 10)], dealer=dealer)
    assert [t.hand(p) for p in range(3)] == hands
    assert t.draw_pile()[0] == (9, 10)
    assert t.cur == (dealer + 1) % 3


def test_R6_default_dealer_is_last_seat_and_moves_clockwise_each_round():
    g = VectorGame(1, seed=5, num_players=3, knock_min_turns=0, target_score=10_000)
    assert int(g.states[0]["dealer"]) == 2 and int(g.current_player[0]) == 0
    dealers = [int(g.states[0]["dealer"])]
    while len(dealers) < 4:
        mask = g.legal_action_mask[0]
        g.step(np.array([KNOCK if mask[KNOCK] else (PASS if mask[PASS] else g.sample_actions()[0])]))
        if g.round_over[0] and not g.game_over[0]:
            dealers.append(int(g.states[0]["dealer"]))
            assert int(g.current_player[0]) == (dealers[-1] + 1) % 3
    assert dealers == [2, 0, 1, 2]


# ------------------------------------------------------------------ a turn
@pytest.mark.quick
def test_R7_mask_offers_straights_sets_and_no_knock_or_pass_at_first():
    hands = [[(3, 0), (4, 0), (5, 0), (5, 1), (7, 1), (8, 1), (10, 1), (5, 2)],
             [(1, 3), (2, 3), (4, 3), (5, 3), (6, 3), (7, 3), (8, 3), (9, 3)]]
    t = Table(hands)
    expected = [3] + [set_action(v, k) for v, ks in ((3, 1), (4, 1), (5, 3), (7, 1), (8, 1), (10, 1))
                      for k in range(1, ks + 1)]
    assert t.legal() == sorted(expected)


def test_R7_straight_needs_three_consecutive_fronts_backs_do_not_count():
    t = Table([[(0, 1), (2, 1), (1, 3)], [(1, 4), (9, 2), (9, 3)]])
    assert 0 in t.legal()                      # fronts 0, 1, 2 (a back of 1 does not matter)
    t2 = Table([[(0, 1), (2, 1), (3, 1)], [(1, 4), (9, 2), (9, 3)]])
    assert not any(a < 9 for a in t2.legal())


def test_R8_after_discarding_the_active_player_must_draw():
    t = Table([[(3, 0), (4, 0), (5, 0)], [(1, 3), (2, 3), (6, 3)]], draw_top=[(7, 8)])
    t.step(set_action(4, 1))
    assert t.cur == 0 and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_UP)
    assert t.cur == 1 and len(t.hand(0)) == 3


def test_R8_discarding_the_whole_hand_still_ends_with_a_card():
    t = Table([[(4, 0), (4, 1), (4, 2)], [(1, 3), (2, 3), (6, 3)]], draw_top=[(7, 8)])
    t.step(set_action(4, 3))
    assert t.hand(0) == [] and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_UP)
    assert len(t.hand(0)) == 1


def test_R9_take_up_and_take_down():
    hands = [[(3, 0), (4, 0)], [(1, 3), (2, 3)]]
    t = Table(hands, draw_top=[(7, 8), (6, 9)])
    t.step(set_action(3, 1), TAKE_UP)
    assert t.hand(0)[-1] == (7, 8)             # up side becomes the front
    t.step(set_action(1, 1), TAKE_DOWN)
    assert t.hand(1)[-1] == (9, 6)             # down side becomes the front, up side the back


def test_R10_straight_placed_in_order_last_on_top():
    t = Table([[(5, 0), (3, 0), (4, 0)], [(1, 3), (2, 3), (6, 3)]], draw_top=[(7, 8)])
    t.step(3)
    assert t.discard_pile() == [(5, 0), (4, 0), (3, 0)]   # top first: x+2 on top


def test_R10_D4_set_placed_in_D4_order():
    # Seat 0 holds three 6s: backs unseen -> 5.5 each -> acquisition order: dealt first goes first.
    t = Table([[(6, 1), (6, 2), (6, 3)], [(1, 3), (2, 3), (7, 3)]], draw_top=[(7, 8)])
    t.step(set_action(6, 3))
    assert t.discard_pile() == [(6, 3), (6, 2), (6, 1)]


def test_R11_kendi_discard_pile_turned_over_as_a_block():
    # 2 players x 26 cards leave 3 cards in the draw pile; play until it runs dry.
    rng = np.random.default_rng(2)
    g = VectorGame(1, seed=0, autoreset=False, num_players=2, hand_size=26, episode="round", knock_min_turns=99)
    for _ in range(400):
        draw, disc = g.piles(0)
        mask = g.legal_action_mask[0]
        if mask[TAKE_UP] and len(draw) == 1 and disc:
            g.step(np.array([TAKE_UP]))
            new_draw, new_disc = g.piles(0)
            assert new_disc == []
            # first discarded (bottom) becomes the top; every card shows its other side
            assert new_draw == [(d, u) for u, d in reversed(disc)]
            return
        legal = np.flatnonzero(mask)
        g.step(np.array([rng.choice(legal)]))
    pytest.fail("the draw pile never ran dry")


def test_R11_oya_discard_pile_shuffled_into_new_draw_pile():
    g = VectorGame(1, seed=0, autoreset=False, num_players=2, hand_size=26, episode="round", edition="oya")
    rng = np.random.default_rng(4)
    for _ in range(400):
        draw, disc = g.piles(0)
        if g.legal_action_mask[0, TAKE_UP] and len(draw) == 1 and disc:
            g.step(np.array([TAKE_UP]))
            new_draw, new_disc = g.piles(0)
            assert new_disc == [] and len(new_draw) == len(disc)
            assert sorted(map(sorted, new_draw)) == sorted(map(sorted, disc))
            assert int(g.states[0]["shuffles"]) == 1
            return
        mask = g.legal_action_mask[0].copy()
        mask[KNOCK] = False if mask[PASS] else mask[KNOCK]
        g.step(np.array([rng.choice(np.flatnonzero(mask))]))
    pytest.fail("the draw pile never ran dry")


def test_R11_discard_onto_empty_table_becomes_draw_pile_at_once():
    # 55 cards dealt exactly cannot happen with equal hands, so use 5 players x 11.
    g = VectorGame(1, seed=0, autoreset=False, num_players=5, hand_size=11, episode="round")
    assert g.piles(0) == ([], [])
    hand0 = g.hands(0)[0]
    a = set_action(hand0[0][0], 1)
    g.step(np.array([a]))
    draw, disc = g.piles(0)
    assert disc == [] and draw == [(hand0[0][1], hand0[0][0])]   # turned over: shows the old back
    assert g.legal_action_mask[0, TAKE_UP]


# ------------------------------------------------------------------ the number triplet
TRIPLET_HANDS = [
    [(8, 1), (8, 2), (8, 3), (5, 1), (6, 1), (7, 1), (9, 1)],     # Tim (active): three 8s
    [(0, 4), (0, 5), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)],     # Sarah: two zeros
    [(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (9, 8), (10, 9)],    # Maria: no zero
    [(1, 0), (2, 0), (3, 0), (5, 3), (6, 3), (7, 3), (10, 3)],    # Linus: no zero (zeros on backs)
]


def test_R12_worked_example_triplet_kendi():
    t = Table(TRIPLET_HANDS, draw_top=[(4, 6), (10, 0), (9, 0)], dealer=3)
    t.step(set_action(8, 3))
    assert t.cur == 0 and t.legal() == [TAKE_UP, TAKE_DOWN]   # Tim draws first
    t.step(TAKE_UP)
    assert t.cur == 1 and t.legal() == [FLIP_UNKNOWN]          # Sarah flips one of her zeros
    t.step(FLIP_UNKNOWN)
    assert t.hand(1)[:2] == [(4, 0), (0, 5)]                   # D5: the earliest acquired
    assert all(t.seen(q, 0, 4) == {0, 4} for q in range(4))    # flipped: everyone knows it
    assert t.cur == 2 and t.legal() == [TAKE_UP, TAKE_DOWN]    # Maria draws
    t.step(TAKE_UP)
    assert t.cur == 3 and t.legal() == [TAKE_UP, TAKE_DOWN]    # Linus draws
    t.step(TAKE_DOWN)
    assert t.hand(3)[-1] == (0, 9)
    assert t.cur == 1 and not t.over                           # play goes on left of Tim
    assert [len(t.hand(p)) for p in range(4)] == [5, 7, 8, 8]


def test_R12_triplet_of_zeros_and_penalty_reaches_the_knocker():
    hands = [[(1, 2), (1, 3), (2, 3)], [(0, 2), (0, 3), (0, 4)], [(5, 6), (5, 7), (6, 7)]]
    t = Table(hands, draw_top=[(8, 9), (4, 5), (6, 8)], knock_min_turns=0)
    t.step(KNOCK)                                  # seat 0 knocks
    t.step(set_action(0, 3))                       # seat 1: a triplet of zeros counts (any value)
    t.step(TAKE_UP)
    assert t.cur == 2 and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_UP)
    assert t.cur == 0 and t.legal() == [TAKE_UP, TAKE_DOWN]   # the knocker is penalised too
    t.step(TAKE_UP)
    assert t.cur == 2 and t.legal()[-1] == PASS                # seat 2's last-round turn


def test_R12_flip_of_a_zero_with_known_back():
    # Seat 1 took a card 'down' whose up side was 7 and whose down side is 0: front 0, known back 7.
    hands = [[(2, 3), (2, 4), (2, 5), (9, 10)], [(1, 3), (1, 4), (0, 5), (6, 8)]]
    t = Table(hands, draw_top=[(6, 9), (7, 0), (3, 8)])
    t.step(set_action(9, 1), TAKE_UP)             # seat 0 takes (6, 9)
    t.step(set_action(6, 1), TAKE_DOWN)           # seat 1 takes 7/0 down: front 0, back 7 known
    assert t.hand(1)[-1] == (0, 7)
    t.step(set_action(2, 3), TAKE_UP)             # seat 0's triplet of 2s
    assert t.cur == 1 and t.legal() == [FLIP_UNKNOWN, FLIP_UNKNOWN + 7]
    t.step(FLIP_UNKNOWN + 7)                      # 124 + (7-1): the zero whose back is 7
    assert t.hand(1)[-1] == (7, 0) and t.hand(1)[2] == (0, 5)


ONLY_ZEROS_HANDS = [
    [(9, 1), (9, 2), (9, 3), (0, 5)],      # Maria: 9, 9, 9, 0
    [(1, 2), (2, 3), (3, 4), (4, 5)],
    [(0, 1), (5, 6), (6, 7), (7, 8)],
    [(10, 1), (10, 2), (10, 3), (10, 4)],
]


def test_R13_R14_worked_example_only_zeros_cancels_the_triplet_penalty():
    t = Table(ONLY_ZEROS_HANDS, draw_top=[(0, 6)], dealer=3)
    t.step(set_action(9, 3), TAKE_UP)
    assert t.over and t.legal() == []
    assert t.hand(0) == [(0, 5), (0, 6)]
    assert [t.hand(p) for p in (1, 2, 3)] == ONLY_ZEROS_HANDS[1:]      # nobody was penalised
    assert t.points() == [0, 10, 18, 40]
    assert t.reward.tolist() == [0, -10, -18, -40]


def test_R12o_oya_penalty_before_own_draw_and_not_cancelled_by_only_zeros():
    t = Table(ONLY_ZEROS_HANDS, draw_top=[(5, 7), (2, 4), (0, 6)], dealer=3, edition="oya")
    t.step(set_action(9, 3))
    assert t.cur == 1 and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_UP)
    assert t.cur == 2 and t.legal() == [FLIP_UNKNOWN]
    t.step(FLIP_UNKNOWN, TAKE_UP)
    assert t.cur == 0 and t.legal() == [TAKE_UP, TAKE_DOWN]   # the active player draws last
    t.step(TAKE_UP)
    assert t.over and t.points() == [0, 15, 19, 42]


def test_R12o_worked_example_triplet_oya():
    t = Table(TRIPLET_HANDS, draw_top=[(4, 6), (10, 0), (9, 0)], dealer=3, edition="oya")
    t.step(set_action(8, 3), FLIP_UNKNOWN, TAKE_UP, TAKE_UP)
    assert t.cur == 0 and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_DOWN)
    assert t.hand(0)[-1] == (0, 9)
    assert t.legal() == [KNOCK, PASS]                           # R15o


# ------------------------------------------------------------------ end of a round
def test_R14_only_zeros_ends_the_round_also_in_the_last_round():
    hands = [[(1, 2), (1, 3), (2, 3)], [(5, 1), (0, 4), (0, 6)], [(5, 6), (5, 7), (6, 7)]]
    t = Table(hands, draw_top=[(0, 8)], knock_min_turns=0)
    t.step(KNOCK, set_action(5, 1), TAKE_UP)
    assert t.over
    assert t.points()[1] == 0


def test_R14_only_zeros_is_checked_after_the_draw_not_after_the_discard():
    t = Table(ONLY_ZEROS_HANDS, draw_top=[(4, 6)], dealer=3)
    t.step(set_action(9, 3))
    assert t.hand(0) == [(0, 5)] and not t.over and t.legal() == [TAKE_UP, TAKE_DOWN]
    t.step(TAKE_UP)
    assert not t.over and t.cur == 1           # drew a 4: the round goes on, the penalty follows


def test_R15_kendi_knock_needs_every_player_two_completed_turns():
    hands = [[(v, 0) for v in range(1, 9)], [(v, 9) for v in range(1, 9)]]
    t = Table(hands)
    knock_legal = []
    for _ in range(5):
        knock_legal.append(KNOCK in t.legal())
        if len(knock_legal) == 5:
            break
        t.step(min(a for a in t.legal() if a >= 9), TAKE_DOWN)
    assert knock_legal == [False, False, False, False, True]


@pytest.mark.parametrize("kmin", [0, 1, 3])
def test_R15_knock_minimum_is_configurable(kmin):
    hands = [[(v, 0) for v in range(1, 9)], [(v, 9) for v in range(1, 9)]]
    t = Table(hands, knock_min_turns=kmin)
    turns = 0
    while KNOCK not in t.legal():
        t.step(min(a for a in t.legal() if a >= 9), TAKE_DOWN)
        turns += 1
    assert turns == 2 * kmin


def test_R15o_oya_knock_only_after_the_draw_with_no_minimum():
    hands = [[(v, 0) for v in range(1, 9)], [(v, 9) for v in range(1, 9)]]
    t = Table(hands, edition="oya")
    assert KNOCK not in t.legal()
    t.step(set_action(1, 1), TAKE_UP)
    assert t.legal() == [KNOCK, PASS] and t.cur == 0
    t.step(KNOCK)
    assert t.cur == 1 and KNOCK not in t.legal() and PASS in t.legal()
    t.step(set_action(1, 1), TAKE_UP)          # last round: no knock decision after the draw
    assert t.over


def test_R16_last_round_everyone_else_once_pass_allowed_no_second_knock():
    hands = [[(1, 2), (1, 3), (2, 3)], [(5, 1), (5, 4), (4, 6)], [(5, 6), (5, 7), (6, 7)], [(8, 1), (8, 2), (8, 3)]]
    t = Table(hands, draw_top=[(9, 10)], knock_min_turns=0)
    t.step(KNOCK)
    assert t.cur == 1 and PASS in t.legal() and KNOCK not in t.legal()
    t.step(PASS)
    assert t.cur == 2 and PASS in t.legal() and KNOCK not in t.legal()
    t.step(set_action(5, 1), TAKE_UP)         # acting normally is allowed too
    assert t.cur == 3
    t.step(PASS)
    assert t.over                             # back at the knocker: no further turn


def _knock_then_pass_all(hands):
    t = Table(hands, dealer=3, knock_min_turns=0)
    t.step(KNOCK, PASS, PASS, PASS)
    assert t.over
    return t.points()


def test_R17_worked_example_knocker_lowest_alone():
    hands = [[(0, 5), (1, 5), (1, 6)], [(3, 7), (4, 7), (4, 8)], [(1, 7), (2, 7), (3, 8)], [(0, 6), (2, 6), (2, 8)]]
    assert _knock_then_pass_all(hands) == [0, 11, 6, 4]


def test_R17_R18_all_tied_lowest_score_zero_but_a_tied_knocker_pays():
    hands = [[(1, 5), (2, 6)], [(3, 7), (0, 8)], [(2, 5), (1, 6)], [(4, 8), (5, 9)]]
    assert _knock_then_pass_all(hands) == [8, 0, 0, 9]


def test_R18_worked_example_knocker_tied():
    hands = [[(0, 5), (1, 5), (3, 5)], [(3, 6), (4, 6), (5, 6)], [(1, 6), (2, 6), (4, 7)], [(0, 7), (1, 7), (3, 7)]]
    assert _knock_then_pass_all(hands) == [9, 12, 7, 0]


def test_R18_penalty_configurable_and_applies_when_beaten():
    hands = [[(3, 5), (1, 5)], [(1, 6), (2, 6)], [(0, 6), (2, 7)], [(5, 7), (1, 8)]]
    t = Table(hands, dealer=3, knock_min_turns=0, knock_penalty=10)
    t.step(KNOCK, PASS, PASS, PASS)
    assert t.points() == [14, 3, 0, 6]


def test_R18_worked_example_french_edition():
    hands = [[(5, 9), (0, 2), (3, 9), (1, 4)], [(1, 8), (1, 9), (2, 9), (3, 10)], [(6, 1), (6, 2), (6, 3), (10, 4)]]
    t = Table(hands, draw_top=[(1, 7), (0, 8), (5, 10)], dealer=2, edition="oya")
    assert KNOCK not in t.legal()
    t.step(set_action(5, 1), TAKE_UP, KNOCK)     # Nico knocks after his draw
    t.step(PASS)                                  # Emma passes
    t.step(set_action(6, 3))                      # Cyrille's triplet: Nico (knocker) flips, Emma draws
    assert t.cur == 0 and t.legal() == [FLIP_UNKNOWN]
    t.step(FLIP_UNKNOWN, TAKE_UP, TAKE_UP)
    assert t.over
    assert t.g.hand_sums()[0].tolist() == [7, 7, 15]
    assert t.points() == [12, 0, 15]


def test_D3_knock_penalty_also_when_the_round_ends_by_only_zeros():
    hands = [[(1, 2), (1, 3), (2, 3), (4, 5)], [(9, 1), (9, 2), (9, 3), (0, 4)]]
    t = Table(hands, draw_top=[(0, 5)], knock_min_turns=0)
    t.step(KNOCK, set_action(9, 3), TAKE_UP)
    assert t.over and t.points() == [8 + 5, 0]


# ------------------------------------------------------------------ scoring and the game
def _knock_early(g):
    """Random play where the player to move knocks as soon as allowed: short rounds."""
    mask = g.legal_action_mask
    acts = g.sample_actions()
    acts = np.where(mask[:, KNOCK], KNOCK, np.where(mask[:, PASS], PASS, acts))
    return g.step(acts)


@pytest.mark.parametrize("edition", ["kendi", "oya"])
def test_R19_totals_accumulate_and_game_ends_at_target(edition):
    g = VectorGame(64, seed=11, autoreset=False, num_players=3, edition=edition, target_score=30)
    totals = np.zeros((64, 3))
    for _ in range(3000):
        if not g.legal_action_mask.any():
            break
        r = _knock_early(g)
        totals -= r
        ended = g.round_over
        assert (g.totals[ended] == totals[ended]).all()
    over = g.states["phase"] == 4
    assert over.all()
    t = g.totals
    reached = (t >= 30).any(1) if edition == "kendi" else (t > 30).any(1)
    assert reached.all()


def test_R19_kendi_ends_at_exactly_the_target_oya_needs_more():
    hands = [[(0, 1), (1, 2)], [(10, 1), (9, 2)]]
    t = Table(hands, knock_min_turns=0, episode="game", target_score=19)
    t.step(KNOCK, PASS)
    assert t.points() == [0, 19] and t.over
    t = Table(hands, draw_top=[(0, 3)], edition="oya", episode="game", target_score=19)
    t.step(set_action(0, 1), TAKE_UP, KNOCK, PASS)
    assert t.g.round_over[0] and t.g.totals[0].tolist() == [0, 19] and not t.over


def test_R19_win_reward_for_all_lowest_totals():
    hands = [[(1, 5), (2, 6)], [(2, 5), (1, 6)], [(4, 8), (5, 9)]]
    t = Table(hands, knock_min_turns=0, episode="round", reward="win")
    t.step(KNOCK, PASS, PASS)
    assert t.points() == [8, 0, 9]
    assert t.reward.tolist() == [-1, 1, -1]
    t = Table([[(3, 7), (4, 8)], [(1, 5), (2, 6)], [(2, 5), (1, 6)]], knock_min_turns=0, reward="win")
    t.step(KNOCK, PASS, PASS)
    assert t.points() == [12, 0, 0] and t.reward.tolist() == [-1, 1, 1]   # ties: several winners


# ------------------------------------------------------------------ decisions
def test_D1_dealt_cards_backs_unseen_by_holder_seen_by_others():
    t = Table([[(3, 0), (4, 0)], [(1, 3), (2, 3)]], draw_top=[(7, 8)])
    assert t.seen(0, 3, 0) == {3} and t.seen(1, 3, 0) == {0}
    assert t.seen(0, 7, 8) == {7} and t.seen(1, 7, 8) == {7}   # K2: the draw top's up side
    assert t.seen(0, 9, 10) == set()                            # K4: nothing else


def test_D2_draw_with_both_piles_empty_is_skipped():
    # 5 x 11 cards: nothing is left after the deal. Seat 0's triplet puts three cards back (turned over
    # at once, R11), seat 0 draws one, two penalised players draw the other two; the remaining
    # penalty draws find both piles empty and are skipped, and play goes on.
    for seed in range(500):
        g = VectorGame(1, seed=seed, autoreset=False, num_players=5, hand_size=11, episode="round")
        hands, mask = g.hands(0), g.legal_action_mask[0]
        triplets = [a for a in range(9, 119) if mask[a] and (a - 9) % 10 == 2]
        drawers = [p for p in range(1, 5) if all(f != 0 for f, _ in hands[p])]
        if not triplets or len(drawers) < 3:
            continue
        g.step(np.array([triplets[0]]))
        g.step(np.array([TAKE_UP]))
        if g.game_over[0]:
            continue
        decisions = 0
        while g.states[0]["phase"] != 0:
            g.step(np.array([np.flatnonzero(g.legal_action_mask[0])[0]]))
            decisions += 1
        assert decisions == (4 - len(drawers)) + 2     # the flips, and only two draws
        assert g.states[0]["ndraw"] == 0 and g.states[0]["ndisc"] == 0
        assert int(g.current_player[0]) == 1
        return
    pytest.fail("no deal with a triplet and three penalised drawers found")


def test_D4_known_high_back_goes_first_unseen_counts_as_5_5():
    # Seat 0 holds three 2s: backs unseen (5.5), and takes (9, 2) down: front 2, known back 9.
    # Then a (2, 4) taken down: front 2, known back 4.
    hands = [[(2, 1), (2, 3), (2, 5), (7, 8)], [(1, 6), (3, 6), (4, 6), (5, 6)]]
    t = Table(hands, draw_top=[(9, 2), (10, 9), (4, 2)])
    t.step(set_action(7, 1), TAKE_DOWN)
    assert t.hand(0)[-1] == (2, 9)
    t.step(set_action(1, 1), TAKE_UP)
    t.step(set_action(2, 1), TAKE_DOWN)       # one 2 goes: the known 9 back first
    assert t.discard_pile()[0] == (2, 9)
    assert t.hand(0)[-1] == (2, 4)
    t.step(set_action(3, 1), TAKE_UP)
    t.step(set_action(2, 4))                   # the rest: unseen (5.5, deal order) before the known 4
    assert t.discard_pile()[:4] == [(2, 4), (2, 5), (2, 3), (2, 1)]


def test_D5_flip_unknown_takes_the_earliest_acquired_zero():
    t = Table([[(4, 1), (4, 2), (4, 3), (6, 7)], [(0, 5), (0, 6), (0, 7), (9, 8)]], draw_top=[(10, 9)])
    t.step(set_action(4, 3), TAKE_UP, FLIP_UNKNOWN)
    assert t.hand(1)[:3] == [(5, 0), (0, 6), (0, 7)]


def test_D6_max_steps_truncates_the_episode():
    g = VectorGame(4, seed=0, autoreset=False, max_steps=30, knock_min_turns=1000)  # nobody can knock
    for k in range(30):
        assert not g.truncated.any()
        g.step(g.sample_actions())
    assert g.truncated.all() and not g.legal_action_mask.any()


def test_knock_allowed_flag_in_observation_matches_the_mask():
    g = VectorGame(64, seed=2, num_players=4)
    a, _ = offsets(4)["knock_allowed"]
    for _ in range(300):
        obs = g.observe()
        act = g.states["phase"] == 0
        assert ((obs[:, a] == 1) == g.legal_action_mask[:, KNOCK])[act].all()
        g.step(g.sample_actions())


def test_action_decoding_covers_the_action_table_once():
    """The action table's ranges (quando.cards' predicates) part its 134 ids, and decoding inverts encoding."""
    from quando_env.quando import cards as C

    for a in range(C.NUM_ACTIONS):
        kinds = [C.is_straight(a), C.is_set(a), a in (C.KNOCK, C.PASS, C.TAKE_UP, C.TAKE_DOWN), C.is_flip(a)]
        assert sum(kinds) == 1, a
        if C.is_straight(a):
            assert C.ACTION_NAMES[a] == "straight {}-{}-{}".format(*range(C.straight_low(a), C.straight_low(a) + 3))
        if C.is_set(a):
            assert C.set_action(C.set_value(a), C.set_count(a)) == a and 1 <= C.set_count(a) <= C.MAX_SET
        if C.is_flip(a) and a != C.FLIP_UNKNOWN:
            assert C.flip_action(C.flip_back(a)) == a and C.ACTION_NAMES[a].endswith(f"back {C.flip_back(a)}")
