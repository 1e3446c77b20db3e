"""Slow, plain-Python reference implementation of ONE round of Cabo.

Written from the rules contract quando_env/cabo/RULES.md alone (without looking at the
project's engine); rule ids R*, D*, K* refer to that spec.  It exists to be read and trusted,
not to be fast: the round is one procedural script (a generator) that yields every decision
point of the spec and receives the chosen action back.  Standard library only.

Representation
--------------
* A card is its id 0..51 (R1): rank = id // 4 + 1, suit = id % 4 (0 clubs, 1 diamonds,
  2 hearts, 3 spades).
* Each seat has 8 slots (R3, D6): a list of 8 entries, each a card id or None (empty).
* The stock and the discard pile are lists of card ids with index 0 = top.
* The card drawn on the current turn and not yet placed is held apart in `drawn`.
* Knowledge (K1-K9) is kept per seat as the set of card ids whose face that seat has seen
  this round.  Every move is public, so the set is all that is needed to know where each
  seen card is.
* Actions are the 350 indices of the spec's action table.

Where the spec leaves something open, the decision is marked with a comment starting "NOTE:".
"""

import operator

# ----------------------------------------------------------------------------- action table
NUM_ACTIONS = 350
NUM_SLOTS = 8                      # R3, D6
MAX_OTHER_SEATS = 5                # r = 1..5 in the Jack encoding (at most 6 players)

DRAW_STOCK = 0
TAKE_DISCARD = 1
PLACE_BASE = 2                     # 2 + slot
DISCARD_DRAWN = 10
QUEEN_BASE = 11                    # 11 + slot
JACK_BASE = 19                     # 19 + 64 (r - 1) + 8 p + q
SNAP_BASE = 339                    # 339 + slot
PASS = 347
KNOCK = 348
NO_KNOCK = 349

PHASES = ("draw", "place", "queen", "jack", "snap", "knock", "over")


def _check_slot(slot):
    if not 0 <= slot < NUM_SLOTS:
        raise ValueError(f"slot must be 0..7, got {slot}")


def place_action(slot):
    """Put the drawn card into own slot `slot`."""
    _check_slot(slot)
    return PLACE_BASE + slot


def queen_action(slot):
    """Queen: look at own slot `slot`."""
    _check_slot(slot)
    return QUEEN_BASE + slot


def jack_action(r, p, q):
    """Jack: exchange own slot p with slot q of the player r seats clockwise (r = 1..5)."""
    if not 1 <= r <= MAX_OTHER_SEATS:
        raise ValueError(f"r must be 1..5, got {r}")
    _check_slot(p)
    _check_slot(q)
    return JACK_BASE + 64 * (r - 1) + 8 * p + q


def snap_action(slot):
    """Snap own slot `slot`."""
    _check_slot(slot)
    return SNAP_BASE + slot


def decode_jack(action):
    """Inverse of jack_action: returns (r, p, q)."""
    if not JACK_BASE <= action < SNAP_BASE:
        raise ValueError(f"{action} is not a Jack action")
    k = action - JACK_BASE
    return k // 64 + 1, (k % 64) // 8, k % 8


def action_phase(action):
    """The phase in which `action` can be legal (spec action table)."""
    if action in (DRAW_STOCK, TAKE_DISCARD):
        return "draw"
    if PLACE_BASE <= action <= DISCARD_DRAWN:
        return "place"
    if QUEEN_BASE <= action < JACK_BASE:
        return "queen"
    if JACK_BASE <= action < SNAP_BASE:
        return "jack"
    if SNAP_BASE <= action <= PASS:
        return "snap"
    if action in (KNOCK, NO_KNOCK):
        return "knock"
    raise ValueError(f"no action {action}")


# ----------------------------------------------------------------------------- cards
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3


def _check_card(c):
    if not 0 <= c < 52:
        raise ValueError(f"card id must be 0..51, got {c}")


def card_id(rank, suit):
    """Card id of (rank 1..13, suit 0..3) (R1)."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise ValueError("rank 1..13, suit 0..3")
    return 4 * (rank - 1) + suit


def card_rank(c):
    """R1: 1 ace .. 10, 11 jack, 12 queen, 13 king."""
    _check_card(c)
    return c // 4 + 1


def card_suit(c):
    """R1: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    _check_card(c)
    return c % 4


def is_red(c):
    """R1: diamonds and hearts are red."""
    return card_suit(c) in (DIAMONDS, HEARTS)


def card_value(c):
    """R2: the rank for ace..queen; red king 0, black king 13."""
    rank = card_rank(c)
    if rank == KING:
        return 0 if is_red(c) else 13
    return rank


def _as_int(x, name):
    try:
        return operator.index(x)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {x!r}") from None


# ----------------------------------------------------------------------------- the round
class CaboRound:
    """One round of Cabo, driven decision by decision through step().

    current_player: seat that decides now; None once the round is over.
    phase:          "draw", "place", "queen", "jack", "snap", "knock", or "over".
    round_over:     True once the round has ended (R19, R20, R21).
    drawn:          the card drawn this turn and not yet placed, else None.
    knocker:        seat that knocked (R18), or None.
    out:            per seat, True once its last card was snapped (R20).
    turns:          completed turns this round (D13).
    """

    def __init__(self, num_players, deck, dealer, hand_size=4, peek=2, knocker_final_turn=True,
                 tie_doubles=False, turn_limit=200):
        """deck: the 52 card ids, index 0 = top (R4).  Deals at once (R5, R6) and runs up to the
        first decision, which is the upcard's snap window (R7)."""
        n = _as_int(num_players, "num_players")
        if not 2 <= n <= 6:
            raise ValueError("R3/D1: 2 to 6 players")
        dealer = _as_int(dealer, "dealer")
        if not 0 <= dealer < n:
            raise ValueError("dealer must be a seat 0..n-1")
        hand_size = _as_int(hand_size, "hand_size")
        # NOTE: hand_size may be 1..8 (8 slots, D6); 8 * 6 + 1 upcard always fits in 52 cards.
        if not 1 <= hand_size <= NUM_SLOTS:
            raise ValueError("hand_size must be 1..8")
        peek = _as_int(peek, "peek")
        # NOTE: peek may be 0..8; slots at or beyond hand_size are empty at the deal, so with
        # peek > hand_size a player simply looks at all of its cards.
        if not 0 <= peek <= NUM_SLOTS:
            raise ValueError("peek must be 0..8")
        turn_limit = _as_int(turn_limit, "turn_limit")
        if turn_limit < 0:
            raise ValueError("turn_limit must be >= 0 (0 = none)")
        deck = [_as_int(c, "card") for c in deck]
        if sorted(deck) != list(range(52)):
            raise ValueError("R4: the deck must hold the 52 ids 0..51, each once")

        self.num_players = n
        self.dealer = dealer
        self.hand_size = hand_size
        self.peek = peek
        # NOTE: the two flag options are taken by truth value.
        self.knocker_final_turn = bool(knocker_final_turn)
        self.tie_doubles = bool(tie_doubles)
        self.turn_limit = turn_limit

        self.current_player = None
        self.phase = None
        self.round_over = False
        self.drawn = None
        self.knocker = None
        self.out = [False] * n
        self.turns = 0
        self._out_turn = None        # R20: seat T in whose turn the first player went out
        self._legal = []
        self._points = None

        self._slots = [[None] * NUM_SLOTS for _ in range(n)]
        self._seen = [set() for _ in range(n)]

        # R5: hand_size rounds of one card, from the left of the dealer, clockwise;
        # a player's i-th card goes to slot i.
        pos = 0
        for i in range(hand_size):
            for k in range(1, n + 1):
                seat = (dealer + k) % n
                self._slots[seat][i] = deck[pos]
                pos += 1
        # R6: the next card is the upcard (discard pile), the rest is the stock, in order.
        upcard = deck[pos]
        self._discard = [upcard]
        self._stock = deck[pos + 1:]
        # R6 / K1 / D2: every player looks at own slots 0 .. peek-1.
        for p in range(n):
            for s in range(min(peek, hand_size)):
                self._seen[p].add(self._slots[p][s])
        self._show_to_all(upcard)                                   # K2

        self._script = self._play_round()
        self._advance(None)

    # ------------------------------------------------------------------ public interface
    def legal_actions(self):
        """Sorted legal action indices; [] once the round is over."""
        return list(self._legal)

    def step(self, action):
        """Apply the current decision; ValueError if the action is not legal now."""
        if self.round_over:
            raise ValueError("the round is over")
        action = _as_int(action, "action")
        if action not in self._legal:
            raise ValueError(f"illegal action {action} in phase {self.phase}; legal: {self._legal}")
        self._advance(action)

    def slots(self, p):
        """Seat p's 8 slots: card id or None (R3, D6)."""
        return list(self._slots[p])

    def num_cards(self, p):
        """How many cards seat p holds (public, D6)."""
        return sum(c is not None for c in self._slots[p])

    def stock(self):
        """The stock, top first."""
        return list(self._stock)

    def discard_pile(self):
        """The discard pile, top first."""
        return list(self._discard)

    def seen(self, p):
        """Card ids whose face seat p has seen this round (K1-K9).
        NOTE: the reveal at the end of the round (R22) is not added here."""
        return set(self._seen[p])

    def hand_totals(self):
        """R22: sum of the values held per seat (0 for an empty hand)."""
        return [sum(card_value(c) for c in row if c is not None) for row in self._slots]

    def points(self):
        """R23: round points per seat; only once the round is over."""
        if not self.round_over:
            raise ValueError("the round is not over")
        return list(self._points)

    # ------------------------------------------------------------------ driving the script
    def _advance(self, action):
        """Send `action` to the round script and record the next decision (or the end)."""
        try:
            if action is None:
                player, phase, legal = next(self._script)
            else:
                player, phase, legal = self._script.send(action)
        except StopIteration:
            self.round_over = True
            self.current_player = None
            self.phase = "over"
            self._legal = []
            self._points = self._score()
            return
        assert legal, "every decision has a legal action"
        assert all(action_phase(a) == phase for a in legal)
        self.current_player = player
        self.phase = phase
        self._legal = sorted(legal)

    # ------------------------------------------------------------------ the round script
    def _play_round(self):
        """Generator: yields (player, phase, legal actions) at each decision, receives the action."""
        # R7: the upcard opens a snap window with the dealer as discarder.  It is not a turn (D13)
        # and is followed by no knock decision (D10).  A player going out here counts as going out
        # in the dealer's turn (R20).
        yield from self._snap_window(discarder=self.dealer, turn_of=self.dealer)
        active = self._next_active(self.dealer)                  # R7: left of the dealer, R8
        while active is not None:
            # R19 / D11: once K has knocked, K is only scheduled again for the final turn.
            final_turn = self.knocker is not None and active == self.knocker
            yield from self._turn(active)                        # R9-R13
            # D13: the turn is complete once its window has closed.
            # NOTE: `turns` therefore already counts the current turn during its knock decision.
            self.turns += 1
            if self.turn_limit and self.turns >= self.turn_limit:
                return                                           # R21 (D10: no knock decision)
            if final_turn:
                return                                           # R19: ends after the knocker's last turn
            # R18 / D10: knock decision only if nobody has knocked or gone out yet
            # (this also excludes every last-lap turn).
            if self.knocker is None and self._out_turn is None:
                choice = yield active, "knock", [KNOCK, NO_KNOCK]
                if choice == KNOCK:
                    self.knocker = active
            active = self._next_active(active)

    def _next_active(self, after):
        """Seat of the next turn after seat `after`'s turn, or None if the round ends (R8, R19, R20)."""
        n = self.num_players
        for k in range(1, n + 1):
            seat = (after + k) % n
            # R20 / D12: after a going-out in T's turn, play stops when the turn would return to T.
            # NOTE: this holds even if T itself is out (its seat still marks the end of the lap).
            # NOTE: only the first going-out fixes T: a later one, in the turn of some T' inside
            # the lap, would end the round later (at the return to T'), so the earlier end wins.
            if self._out_turn is not None and seat == self._out_turn:
                return None
            # R19: after the knock every other player had one more turn; now the knocker's last
            # turn (knocker_final_turn, D11) or the end.  Checked after R20 so the earlier end wins.
            if self.knocker is not None and seat == self.knocker:
                # NOTE: a knocker who has gone out meanwhile holds no card and is skipped (R8),
                # so the round ends here.
                if self.knocker_final_turn and self.num_cards(seat) > 0:
                    return seat
                return None
            # R8 / D12: a player holding no card (an out player) is skipped.
            if self.num_cards(seat) > 0:
                return seat
        return None

    def _turn(self, active):
        """One turn of `active`: draw (R9), Jack/Queen (R10, R11), place (R12), snap window (R13)."""
        # R9: draw from the stock or take the discard top.
        legal = []
        if self._stock or len(self._discard) >= 2:               # R17: a refill must give a card
            legal.append(DRAW_STOCK)
        if self._discard:
            legal.append(TAKE_DISCARD)
        choice = yield active, "draw", legal

        if choice == DRAW_STOCK:
            card = self._take_from_stock()                       # R17 if the stock is empty
            self.drawn = card
            self._seen[active].add(card)                         # K3
            # D8: only a J or Q drawn from the stock on a turn acts; before R12.
            if card_rank(card) == JACK:
                yield from self._jack(active, card)              # R10
            elif card_rank(card) == QUEEN:
                yield from self._queen(active, card)             # R11
            place_legal = self._own_slot_actions(active, PLACE_BASE) + [DISCARD_DRAWN]
        else:
            card = self._discard.pop(0)                          # already seen by all (K2, K4)
            self.drawn = card
            place_legal = self._own_slot_actions(active, PLACE_BASE)   # D9: must be placed

        # R12: into an occupied own slot (its card goes face up onto the pile), or discard it.
        choice = yield active, "place", place_legal
        self.drawn = None
        if choice == DISCARD_DRAWN:
            self._put_on_discard(card)                           # K4
        else:
            slot = choice - PLACE_BASE
            old = self._slots[active][slot]
            self._slots[active][slot] = card
            self._put_on_discard(old)                            # K4
        # R12: the discard opens a snap window with the active player as discarder.
        yield from self._snap_window(discarder=active, turn_of=active)

    def _jack(self, active, card):
        """R10: exchange one own card with one card of another player; nobody looks (K6)."""
        n = self.num_players
        # R10 / D12: only players who hold cards (never out players) can be chosen.
        others = [q for q in range(n) if q != active and self.num_cards(q) > 0]
        if not others:
            # R10: skipped when no other player holds a card.
            # NOTE: the rule does not apply then, so K5 does not show the Jack to everyone;
            # only the drawer has seen it (K3).
            return
        self._show_to_all(card)                                  # K5
        own = self._occupied(active)
        legal = []
        for q in others:
            r = (q - active) % n                                 # seats clockwise from the drawer
            for p in own:
                for s in self._occupied(q):
                    legal.append(jack_action(r, p, s))
        choice = yield active, "jack", legal
        r, p, s = decode_jack(choice)
        q = (active + r) % n
        # K6: no face is seen; knowledge by id moves with the cards automatically.
        self._slots[active][p], self._slots[q][s] = self._slots[q][s], self._slots[active][p]

    def _queen(self, active, card):
        """R11 / D8: the drawer must look at one own card."""
        self._show_to_all(card)                                  # K5
        choice = yield active, "queen", self._own_slot_actions(active, QUEEN_BASE)
        slot = choice - QUEEN_BASE
        self._seen[active].add(self._slots[active][slot])        # K7: the others learn the slot only

    def _snap_window(self, discarder, turn_of):
        """R13: each other player clockwise from the discarder's left, then the discarder."""
        n = self.num_players
        order = [(discarder + k) % n for k in range(1, n)] + [discarder]
        for q in order:
            # R15 / D6: only players holding 1..7 cards are asked (not out players, not full hands).
            # A player who snaps correctly decides again (R13, D5) while still holding a card.
            while 1 <= self.num_cards(q) <= NUM_SLOTS - 1:
                legal = self._own_slot_actions(q, SNAP_BASE) + [PASS]   # D4: own cards only
                choice = yield q, "snap", legal
                if choice == PASS:
                    break                                        # R13: a pass ends their part
                slot = choice - SNAP_BASE
                card = self._slots[q][slot]
                self._show_to_all(card)                          # K8: correct or wrong, all see it
                # R14 / D3: correct if it has the rank of the discard top (snaps never change
                # the top's rank, so the window's rank is that of the card that opened it).
                if card_rank(card) == card_rank(self._discard[0]):
                    self._slots[q][slot] = None                  # the slot becomes empty (D6)
                    self._discard.insert(0, card)
                    if self.num_cards(q) == 0:                   # R20: the last card was snapped
                        self.out[q] = True
                        if self._out_turn is None:
                            self._out_turn = turn_of
                else:
                    # R16 / D7: the card goes back; one penalty card from the stock (R17) into the
                    # lowest empty slot (D6), seen by nobody (K9).  A wrong snap ends their part.
                    penalty = self._take_from_stock()
                    if penalty is not None:
                        self._slots[q][self._slots[q].index(None)] = penalty
                    break

    # ------------------------------------------------------------------ piles and knowledge
    def _take_from_stock(self):
        """Top card of the stock, or None if there is none even after R17.

        R17 / D14: an empty stock is refilled, when a card must come from it, by turning the
        discard pile except its top over as one block, without shuffling: the oldest discard
        becomes the stock top.
        NOTE: with at most 6 players of at most 8 cards, at least 4 cards are always outside the
        hands at a draw (5 at a wrong snap, whose player holds at most 7), so the refill always
        yields a card and the "still empty" branch cannot be reached in play; it is kept because
        R17 states it."""
        if not self._stock:
            self._stock = list(reversed(self._discard[1:]))
            del self._discard[1:]
        if not self._stock:
            return None
        return self._stock.pop(0)

    def _put_on_discard(self, card):
        self._discard.insert(0, card)
        self._show_to_all(card)                                  # K4

    def _show_to_all(self, card):
        for s in self._seen:
            s.add(card)

    def _occupied(self, p):
        return [s for s in range(NUM_SLOTS) if self._slots[p][s] is not None]

    def _own_slot_actions(self, p, base):
        """base + slot for each occupied slot of p (only occupied slots are legal)."""
        return [base + s for s in self._occupied(p)]

    # ------------------------------------------------------------------ scoring
    def _score(self):
        """R22 / R23 / D15: points = hand total; the knocker's total is doubled if another
        player's total is strictly lower (tie_doubles: lower or equal).  Also after R20/R21 ends
        (D13)."""
        totals = self.hand_totals()
        pts = list(totals)
        k = self.knocker
        if k is not None:
            others = [totals[q] for q in range(self.num_players) if q != k]
            if self.tie_doubles:
                doubled = any(t <= totals[k] for t in others)
            else:
                doubled = any(t < totals[k] for t in others)
            if doubled:
                pts[k] = 2 * totals[k]
        return pts


# ----------------------------------------------------------------------------- the game
SPECIAL_TOTALS = (25, 50, 75, 100)


def add_round_points(totals, points):
    """R24 / R25 / D16: add round points to game totals; a total that lands on exactly
    25, 50, 75 or 100 after adding points > 0 loses 25, once."""
    if len(totals) != len(points):
        raise ValueError("one round score per seat")
    new = []
    for t, p in zip(totals, points):
        s = t + p
        if p > 0 and s in SPECIAL_TOTALS:
            s -= 25
        new.append(s)
    return new


def game_over(totals, target=100):
    """R26: the game ends after a round in which some total exceeds the target."""
    return any(t > target for t in totals)


def winners(totals):
    """R26: seats with the lowest total (ties share)."""
    low = min(totals)
    return [p for p, t in enumerate(totals) if t == low]


def first_dealer(num_players):
    """R24: the default first dealer is seat n-1, so seat 0 takes the first turn."""
    return num_players - 1


def next_dealer(dealer, num_players):
    """R24: the dealer moves one seat clockwise per round."""
    return (dealer + 1) % num_players


# ----------------------------------------------------------------------------- deck builder
def deck_for(hands, upcard, stock_top=(), dealer=None):
    """Forced deck (R4) that deals `hands` (R5), with `upcard` (R6) and the stock starting
    with `stock_top` (top first); the unused ids follow in ascending order.

    hands[p]: seat p's card ids in slot order (all hands of the same size).
    dealer defaults to seat n-1 (R24)."""
    n = len(hands)
    if dealer is None:
        dealer = n - 1
    size = len(hands[0])
    if any(len(h) != size for h in hands):
        raise ValueError("all hands must have the same size")
    deck = []
    for i in range(size):
        for k in range(1, n + 1):
            deck.append(hands[(dealer + k) % n][i])
    deck.append(upcard)
    deck.extend(stock_top)
    if len(set(deck)) != len(deck) or any(not 0 <= c < 52 for c in deck):
        raise ValueError("a card is used twice or is not an id 0..51")
    used = set(deck)
    deck.extend(c for c in range(52) if c not in used)
    return deck
