"""Slow, plain-Python reference implementation of ONE round of Quando.

Written only from the rules spec (quando_env/quando/RULES.md); rule ids (R*, D*, K*) refer to it.
It is meant to be read and trusted, not to be fast: the round is a straightforward
procedural script (a generator) that yields every decision point and receives the
chosen action back.  No numpy, standard library only.

Representation
--------------
* A card is identified by its unordered pair of numbers, stored as the tuple (lo, hi).
  Because the two sides of a card carry different numbers (R1), a *side* of a card is
  identified by its number; "the other side" of a card showing v is lo + hi - v.
* A hand entry is [card, front, acquisition_seq]; hands are kept in acquisition order.
* A pile entry is (card, up); piles are lists with index 0 = top.
* seen[p][card] is the set of side numbers player p has seen of that card (K1-K4).

Decisions made where the spec is silent are marked "NOTE" in the code.
"""

from collections import Counter

# ----------------------------------------------------------------------------- actions
NUM_ACTIONS = 134
KNOCK = 119
PASS = 120
TAKE_UP = 121
TAKE_DOWN = 122
FLIP_UNSEEN = 123          # D5: earliest acquired front-0 card whose back is unseen
FLIP_KNOWN_BASE = 123      # 124 + (b-1) == 123 + b: flip the front-0 card with known back b


def straight_action(x):
    """Action index of the straight x, x+1, x+2 (x = 0..8)."""
    return x


def set_action(v, k):
    """Action index of a set of k cards with front v (v = 0..10, k = 1..10)."""
    return 9 + 10 * v + (k - 1)


def decode_set(action):
    """Inverse of set_action: returns (v, k)."""
    return (action - 9) // 10, (action - 9) % 10 + 1


def full_card_set():
    """All 55 cards of R1 as (lo, hi) tuples, sorted."""
    return [(a, b) for a in range(11) for b in range(a + 1, 11)]


def _card_of(x, y):
    return (x, y) if x < y else (y, x)


def _other(card, v):
    """The number on the other side of `card` from the side showing v."""
    return card[0] + card[1] - v


class Reshuffle(Exception):
    """Raised when edition 'oya' would shuffle the discard pile into a new draw pile (R11); the comparison stops
    there."""


# ----------------------------------------------------------------------------- the round
class RefRound:
    """One round of Quando, driven decision by decision through step().

    current_player: seat that must decide now (a penalised player decides their own flip/draw);
                    after the round ends it keeps the seat of the last decision.
    round_over:     True once the round has ended (R14 or R16).
    knocker:        seat that knocked this round, or None.
    """

    current_player: int
    round_over: bool
    knocker: "int | None"

    def __init__(self, num_players, deck, dealer, edition="kendi", hand_size=None,
                 knock_penalty=5, knock_min_turns=2):
        """deck: list of 55 [up, down] pairs, index 0 = top (R4). Deals at once (R5) and sets the first decision
        (R6)."""
        if not 2 <= num_players <= 6:
            raise ValueError("R3: 2 to 6 players")
        if edition not in ("kendi", "oya"):
            raise ValueError("edition must be 'kendi' or 'oya'")
        if hand_size is None:
            hand_size = 8 if num_players <= 3 else 7          # R3
        if hand_size < 1 or hand_size * num_players > 55:
            raise ValueError("hand size does not fit the deck")
        if len(deck) != 55:
            raise ValueError("R1: the deck has 55 cards")
        cards = []
        for pair in deck:
            up, down = int(pair[0]), int(pair[1])
            if up == down or not (0 <= up <= 10 and 0 <= down <= 10):
                raise ValueError("R1: two different numbers 0..10 per card")
            cards.append((_card_of(up, down), up))
        if sorted(c for c, _ in cards) != full_card_set():
            raise ValueError("R1: every pair must occur exactly once")

        self.n = num_players
        self.dealer = dealer % num_players
        self.edition = edition
        self.hand_size = hand_size
        self.knock_penalty = knock_penalty
        self.knock_min_turns = knock_min_turns

        self.knocker = None
        self.round_over = False
        self.current_player = (self.dealer + 1) % self.n
        self._legal = []
        self._points = None
        self._acq_counter = 0
        self._completed_ab = [0] * self.n     # A/B turns completed this round (R15)

        self._hands = [[] for _ in range(self.n)]
        self._discard = []
        self._seen = [dict() for _ in range(self.n)]
        for c in full_card_set():
            for p in range(self.n):
                self._seen[p][c] = set()

        # R5 / D1 / K4: deal one card at a time, clockwise from the left of the dealer.
        # A dealt card's up side becomes the back, its down side the front.
        # Nothing is seen while dealing; K1/K2 apply once the deal is complete.
        n_dealt = self.n * hand_size
        for i in range(n_dealt):
            card, up = cards[i]
            seat = (self.dealer + 1 + i) % self.n
            self._add_to_hand(seat, card, front=_other(card, up))
        self._draw = list(cards[n_dealt:])     # rest in order, top first
        self._refresh_knowledge()

        self._script = self._play_round()
        self._advance(None)

    # ------------------------------------------------------------------ public interface
    def legal_actions(self):
        """Sorted legal action indices of the 134-action table; [] when the round is over."""
        return [] if self.round_over else list(self._legal)

    def step(self, action):
        """Apply the current decision-maker's action; ValueError if it is not legal."""
        if self.round_over:
            raise ValueError("the round is over")
        if action not in self._legal:
            raise ValueError(f"illegal action {action}; legal: {self._legal}")
        self._advance(action)

    def hand(self, p):
        """Seat p's cards as (front, back), in acquisition order (deal order first)."""
        return [(front, _other(card, front)) for card, front, _ in self._hands[p]]

    def draw_pile(self):
        """Draw pile as (up, down), top first."""
        return [(up, _other(card, up)) for card, up in self._draw]

    def discard_pile(self):
        """Discard pile as (up, down), top first."""
        return [(up, _other(card, up)) for card, up in self._discard]

    def points(self):
        """Round points per seat (R17, R18, D3); valid when round_over."""
        if not self.round_over:
            raise ValueError("the round is not over")
        return list(self._points)

    def hand_sums(self):
        """Sum of fronts per seat (R17)."""
        return [sum(front for _, front, _ in h) for h in self._hands]

    def has_seen(self, p, card_pair, side):
        """True if player p has seen the side numbered `side` of the card {card_pair} (K1-K4)."""
        return side in self._seen[p][_card_of(*card_pair)]

    # ------------------------------------------------------------------ driving the script
    def _advance(self, action):
        """Feed `action` to the round script and record the next decision (or the end)."""
        try:
            if action is None:
                player, legal = next(self._script)
            else:
                player, legal = self._script.send(action)
        except StopIteration:
            self.round_over = True
            self._legal = []
            self._points = self._score()
            return
        assert legal, "every decision point has at least one legal action"
        self.current_player = player
        self._legal = sorted(legal)

    # ------------------------------------------------------------------ the round script
    def _play_round(self):
        """Generator: yields (player, legal_actions) at each decision, receives the action."""
        active = (self.dealer + 1) % self.n                       # R6
        while True:
            action = yield active, self._turn_start_actions(active)
            if action == KNOCK:                                   # R15 (kendi): no discard, no draw
                self.knocker = active
            elif action == PASS:                                  # R16: do nothing at all
                pass
            else:
                triplet = self._discard_action(active, action)    # R7 A/B, R10, D4
                self._check_empty_draw_pile()                     # R11
                if triplet and self.edition == "oya":             # R12o: penalty before own draw
                    yield from self._penalty_round(active)
                yield from self._draw_card(active)                # R8, R9 (D2 if skipped)
                if self._only_zeros(active):                      # R14 (R13 cancels kendi penalty)
                    return
                if triplet and self.edition == "kendi":           # R12
                    yield from self._penalty_round(active)
                self._completed_ab[active] += 1
                if self.edition == "oya" and self.knocker is None:   # R15o
                    choice = yield active, [KNOCK, PASS]
                    if choice == KNOCK:
                        self.knocker = active
            active = (active + 1) % self.n
            if self.knocker is not None and active == self.knocker:   # R16
                return

    def _turn_start_actions(self, p):
        """Legal actions at the start of p's turn: A (R7), B (R7), K (R15), P (R16)."""
        fronts = Counter(front for _, front, _ in self._hands[p])
        legal = []
        for x in range(9):                                        # A: straight
            if fronts[x] and fronts[x + 1] and fronts[x + 2]:
                legal.append(straight_action(x))
        for v in range(11):                                       # B: any k >= 1 equal fronts
            for k in range(1, fronts[v] + 1):
                legal.append(set_action(v, k))
        if self.knocker is None:
            if self.edition == "kendi" and all(
                    c >= self.knock_min_turns for c in self._completed_ab):
                legal.append(KNOCK)                               # R15
        else:
            legal.append(PASS)                                    # R16: knock no longer allowed
        return legal

    def _discard_action(self, p, action):
        """Discard the cards of A or B (R7, R10, D4); returns True for a set of exactly 3 (R12)."""
        if action <= 8:
            x = action
            chosen = [self._d4_order(p, v)[0] for v in (x, x + 1, x + 2)]   # placed x, x+1, x+2
            triplet = False
        else:
            v, k = decode_set(action)
            chosen = self._d4_order(p, v)[:k]                     # placed in D4 order
            triplet = (k == 3)
        for entry in chosen:                                      # the last placed ends on top
            self._hands[p].remove(entry)
            card, front, _ = entry
            self._discard.insert(0, (card, front))                # R10: front side up
            for q in range(self.n):                               # K3: everyone sees it
                self._seen[q][card].add(front)
        self._refresh_knowledge()
        return triplet

    def _d4_order(self, p, v):
        """Held cards of p with front v, in D4 order: highest back known to p first
        (unseen back = 5.5), ties by acquisition order (earliest first)."""
        def key(entry):
            card, front, acq = entry
            back = _other(card, front)
            known = back if back in self._seen[p][card] else 5.5
            return (-known, acq)
        return sorted((e for e in self._hands[p] if e[1] == v), key=key)

    def _draw_card(self, p):
        """R9: p sees the top's up side and takes it up (121) or down (122). D2: skipped if both piles empty."""
        if not self._draw:
            # By R11 the discard pile is then empty as well: D2, no decision is asked.
            assert not self._discard
            return
        choice = yield p, [TAKE_UP, TAKE_DOWN]
        card, up = self._draw.pop(0)
        front = up if choice == TAKE_UP else _other(card, up)
        self._seen[p][card].add(front)         # the drawer sees what it took into the hand
        self._add_to_hand(p, card, front)
        self._check_empty_draw_pile()                                 # R11
        self._refresh_knowledge()

    def _penalty_round(self, active):
        """R12: every other player, clockwise from the left of the active one (knocker included),
        flips one front-0 card if they hold one (D5), else draws one card (R9, D2)."""
        for i in range(1, self.n):
            q = (active + i) % self.n
            zeros = [e for e in self._hands[q] if e[1] == 0]
            if zeros:
                legal = set()
                for card, front, _ in zeros:
                    back = _other(card, front)
                    if back in self._seen[q][card]:
                        legal.add(FLIP_KNOWN_BASE + back)         # 124 + (back-1)
                    else:
                        legal.add(FLIP_UNSEEN)
                choice = yield q, sorted(legal)
                if choice == FLIP_UNSEEN:                         # D5
                    unseen = [e for e in zeros if _other(e[0], e[1]) not in self._seen[q][e[0]]]
                    target = min(unseen, key=lambda e: e[2])
                else:
                    b = choice - FLIP_KNOWN_BASE
                    target = next(e for e in zeros if _other(e[0], e[1]) == b)
                card = target[0]
                target[1] = _other(card, 0)                       # back becomes front, 0 the back
                for r in range(self.n):                           # everyone has seen both sides
                    self._seen[r][card].update(card)
                self._refresh_knowledge()
            else:
                yield from self._draw_card(q)

    def _only_zeros(self, p):
        """R14: p holds only front-0 cards.  An empty hand counts as 'only zeros' (vacuous truth);
        NOTE: with R11 in force the active player's draw is never skipped, so this cannot occur."""
        return all(front == 0 for _, front, _ in self._hands[p])

    # ------------------------------------------------------------------ piles and knowledge
    def _check_empty_draw_pile(self):
        """R11: an empty draw pile is refilled from a non-empty discard pile at once.
        kendi: turned over as a block (first discarded becomes top, other side up).
        oya: it would be shuffled, which the reference does not model: raise Reshuffle."""
        if self._draw or not self._discard:
            return
        if self.edition == "oya":
            raise Reshuffle()
        turned = [(card, _other(card, up)) for card, up in reversed(self._discard)]
        self._draw = turned
        self._discard = []
        self._refresh_knowledge()

    def _add_to_hand(self, p, card, front):
        self._hands[p].append([card, front, self._acq_counter])
        self._acq_counter += 1

    def _refresh_knowledge(self):
        """Apply K1 (holder sees front, others see back) and K2 (everyone sees the draw-pile top's up side).
        Seen sides accumulate (perfect recall)."""
        for p in range(self.n):
            for card, front, _ in self._hands[p]:
                back = _other(card, front)
                for q in range(self.n):
                    self._seen[q][card].add(front if q == p else back)
        if self._draw:
            card, up = self._draw[0]
            for q in range(self.n):
                self._seen[q][card].add(up)

    # ------------------------------------------------------------------ scoring
    def _score(self):
        """R17: lowest sum(s) score 0, others their sum.  R18/D3: after a knock, a knocker who is
        not lowest alone scores sum + knock_penalty (also when the round ended by R14)."""
        sums = self.hand_sums()
        low = min(sums)
        pts = [0 if s == low else s for s in sums]
        if self.knocker is not None:
            k = self.knocker
            lowest_alone = sums[k] == low and sums.count(low) == 1
            if not lowest_alone:
                pts[k] = sums[k] + self.knock_penalty
        return pts


# ----------------------------------------------------------------------------- deck builders
def deck_for_hands(hands, rest, dealer, num_players):
    """Build a 55-card deck (list of [up, down], top first) that deals `hands` (R5).

    hands[p]: seat p's cards as (front, back) in deal order (all hands the same size);
    rest: the draw pile after the deal as (up, down), top first.
    A dealt card lies with up = its back, down = its front.  Raises ValueError unless the
    55 pairs are exactly the full set of R1."""
    if len(hands) != num_players:
        raise ValueError("one hand per seat")
    size = len(hands[0])
    if any(len(h) != size for h in hands):
        raise ValueError("all hands must have the same size")
    deck = []
    for i in range(size * num_players):
        seat = (dealer + 1 + i) % num_players
        front, back = hands[seat][i // num_players]
        deck.append([back, front])
    deck.extend([up, down] for up, down in rest)
    if len(deck) != 55 or sorted(_card_of(u, d) for u, d in deck) != full_card_set() \
            or any(u == d for u, d in deck):
        raise ValueError("the deck must contain each of the 55 pairs exactly once")
    return deck


def complete_deck(hands, draw_top=(), dealer=None, num_players=None):
    """Like deck_for_hands, but only the top of the draw pile is given (as (up, down), top first);
    the unused cards follow in a fixed order: sorted (lo, hi) pairs, lo side up.
    dealer defaults to seat n-1 (so seat 0 starts), num_players to len(hands)."""
    if num_players is None:
        num_players = len(hands)
    if dealer is None:
        dealer = num_players - 1
    used = [_card_of(a, b) for h in hands for a, b in h] + [_card_of(u, d) for u, d in draw_top]
    if len(set(used)) != len(used):
        raise ValueError("a card is used twice")
    rest = list(draw_top) + [c for c in full_card_set() if c not in set(used)]
    return deck_for_hands(hands, rest, dealer, num_players)
