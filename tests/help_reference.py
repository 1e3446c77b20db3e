"""Slow, plain-Python reference implementation of ONE round of Help! (Kim Vandenbroucke).

Written from the rules contract quando_env/help/RULES.md alone (rule ids R*, D*, K* below refer
to it), without looking at the project's engine.  It is meant to be read and trusted, not to be
fast: the round is a straightforward procedural script (a generator) that yields every decision
and receives the chosen action back.  Standard library only.

Representation
--------------
* A card is its code (R2): "1".."11", "W", "S", "Z", "N".  Cards of one kind are interchangeable,
  so a hand is stored as 15 counts indexed by kind (k = v-1 for number v, 11 W, 12 S, 13 Z, 14 N).
* The row is a list of (code, value) pairs, left to right; a Wild keeps the value it received when
  it was placed (D4).
* The draw pile is a list of codes with index 0 = top; the discard pile is a list of codes with
  index 0 = the card discarded FIRST (the bottom), new discards are appended.
* The No! area of a seat is None, "fresh" (not yet cost its owner a turn) or "spent" (R8).
* Actions are the flat table of 105 indices of the spec (see the helpers below).

The public interface (HelpRound, choose_starter, the action helpers) is what the engine
comparison uses.  Decisions made where the spec is silent are marked "NOTE:".
"""

from collections import Counter

# ----------------------------------------------------------------------------- cards (R1, R2)
CODES = [str(v) for v in range(1, 12)] + ["W", "S", "Z", "N"]
NUM_KINDS = 15
WILD, SWITCH, ZAP_KIND, NO_KIND = 11, 12, 13, 14

# R1: copies of each kind in the 105-card deck (the 5 point cards never play).
KIND_COUNTS = [5, 5] + [7] * 5 + [8] * 4 + [7] * 4
assert sum(KIND_COUNTS) == 105


def kind_of(code):
    """Kind index of a card code (R2)."""
    try:
        return CODES.index(code)
    except ValueError:
        raise ValueError(f"R2: unknown card code {code!r}") from None


def code_of(kind):
    """Card code of a kind index (R2)."""
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"R2: unknown kind {kind!r}")
    return CODES[kind]


def is_number_kind(kind):
    return kind <= 10


def full_deck():
    """The 105 codes of R1 in a fixed order: all 1s, all 2s, ..., all 11s, then W, S, Z, N."""
    return [CODES[k] for k in range(NUM_KINDS) for _ in range(KIND_COUNTS[k])]


# ----------------------------------------------------------------------------- actions
NUM_ACTIONS = 105
ZAP = 72
NO = 73
ASK = 74
MAX_ROW_SLOTS = 6          # the action table holds rows of up to 6 cards (Wild slots 0..5)


def number_action(v):
    """Play number v (R10; also the opening R6 and the received card R19)."""
    if not 1 <= v <= 11:
        raise ValueError("number 1..11")
    return v - 1


def wild_action(s):
    """Play a Wild at row slot s (R11)."""
    if not 0 <= s <= 5:
        raise ValueError("Wild slot 0..5")
    return 11 + s


def switch_action(s, v):
    """Switch: take row slot s, put number v from hand in its place (R12)."""
    if not (0 <= s <= 4 and 1 <= v <= 11):
        raise ValueError("Switch slot 0..4, number 1..11")
    return 17 + 11 * s + (v - 1)


def give_action(k):
    """Helper gives a card of kind k (R17)."""
    if not 0 <= k < NUM_KINDS:
        raise ValueError("kind 0..14")
    return 75 + k


def give_back_action(k):
    """Asker gives back a card of kind k (R18)."""
    if not 0 <= k < NUM_KINDS:
        raise ValueError("kind 0..14")
    return 90 + k


def describe_action(a):
    """Human-readable meaning of an action index (for messages and debugging)."""
    if 0 <= a <= 10:
        return f"play {a + 1}"
    if 11 <= a <= 16:
        return f"Wild at slot {a - 11}"
    if 17 <= a <= 71:
        s, v = divmod(a - 17, 11)
        return f"Switch slot {s} for {v + 1}"
    if a == ZAP:
        return "Zap"
    if a == NO:
        return "No!"
    if a == ASK:
        return "ask for help"
    if 75 <= a <= 89:
        return f"give {CODES[a - 75]}"
    if 90 <= a <= 104:
        return f"give back {CODES[a - 90]}"
    return f"invalid action {a}"


# ----------------------------------------------------------------------------- pure rule helpers
def _counts(hand):
    """Accept a hand as a list of codes or as 15 kind counts; return the 15 counts."""
    if len(hand) == NUM_KINDS and all(isinstance(c, int) for c in hand):
        return list(hand)
    counts = [0] * NUM_KINDS
    for code in hand:
        counts[kind_of(code)] += 1
    return counts


def _values(row):
    return [value for _, value in row]


def wild_value(row, s):
    """R11: value a Wild takes at slot s: 1 at the start, else the value on its left plus 1."""
    return 1 if s == 0 else row[s - 1][1] + 1


def wild_slots(row):
    """R11: slots s (0..len(row)) where a Wild may go: w <= 11 and w below the card that follows."""
    slots = []
    for s in range(len(row) + 1):
        w = wild_value(row, s)
        if w <= 11 and (s == len(row) or w < row[s][1]):
            slots.append(s)
    return slots


def number_fits(row, v):
    """R10: number v goes at the end; legal iff the row is empty or v exceeds the last value."""
    return not row or v > row[-1][1]


def switch_fits(row, s, v):
    """R12/D4: replacing the card at slot s by value v keeps the row strictly ascending
    (the other cards, Wilds included, keep their values)."""
    values = _values(row)
    values[s] = v
    return all(a < b for a, b in zip(values, values[1:]))


def card_plays(kind, hand, row):
    """Legal actions of playing ONE card of `kind` that is in `hand` on `row` (R10-R14).

    hand: codes or 15 counts, including the card itself; a Switch's replacement is any number
    card of the hand (D5: chosen from the hand before the taking, may equal the taken value)."""
    counts = _counts(hand)
    if counts[kind] == 0:
        return []
    if is_number_kind(kind):                                   # R10
        return [number_action(kind + 1)] if number_fits(row, kind + 1) else []
    if kind == WILD:                                           # R11
        return [wild_action(s) for s in wild_slots(row)]
    if kind == SWITCH:                                         # R12 (row not empty)
        acts = []
        for s in range(len(row)):
            for v in range(1, 12):
                if counts[v - 1] > 0 and switch_fits(row, s, v):   # D5: a number card from hand
                    acts.append(switch_action(s, v))
        return acts
    if kind == ZAP_KIND:                                       # R13 (row not empty)
        return [ZAP] if row else []
    return [NO]                                                # R14: always legal


def legal_plays(hand, row):
    """All legal plays of a normal turn (R9-R14), sorted; [] means the player must ask (R16)."""
    counts = _counts(hand)
    acts = set()
    for k in range(NUM_KINDS):
        if counts[k]:
            acts.update(card_plays(k, counts, row))
    return sorted(acts)


def kind_givable(kind, row):
    """R17/D8: a card is givable iff playable on the row judged on the row alone."""
    if is_number_kind(kind):
        return number_fits(row, kind + 1)
    if kind == WILD:
        return bool(wild_slots(row))
    if kind in (SWITCH, ZAP_KIND):
        return bool(row)
    return True                                                # No!


def givable_kinds(hand, row):
    """Kinds the helper holds that are givable on `row` (R17)."""
    counts = _counts(hand)
    return [k for k in range(NUM_KINDS) if counts[k] and kind_givable(k, row)]


# ----------------------------------------------------------------------------- starting player
def _lowest_number(hand):
    nums = [int(c) for c in hand if kind_of(c) <= 10]
    return min(nums) if nums else None


def choose_starter(hands, callers, open_lowest=True):
    """R5/R6/D2/D14: who starts the round.

    hands: per seat a list of codes; callers: the seats that call.
    Returns (starter, opening number or None, {seat: call} of the public calls)."""
    callers = sorted(set(callers))
    if not callers:
        # NOTE: the spec never produces an empty caller set (R20 always leaves at least two
        # seats at 0 points, a truncated round gives nobody a point); rejected as invalid.
        raise ValueError("R5: at least one caller")
    for s in callers:
        if not 0 <= s < len(hands):
            raise ValueError(f"R5: caller {s} is not a seat")
    # R5/D2: a caller calls its lowest NUMBER card (a Wild is no number); special-only calls nothing.
    calls = {s: _lowest_number(hands[s]) for s in callers}
    calls = {s: c for s, c in calls.items() if c is not None}
    if not calls:
        # R5/D14 fallback: every seat holding a number card calls, publicly.
        calls = {s: _lowest_number(hands[s]) for s in range(len(hands))}
        calls = {s: c for s, c in calls.items() if c is not None}
    if not calls:
        # R5 last fallback: nobody holds a number card; the lowest caller starts, calling nothing.
        return callers[0], None, {}
    starter = min(calls, key=lambda s: (calls[s], s))          # lowest call, ties to lowest seat
    opening = calls[starter] if open_lowest else None          # R6/D3
    return starter, opening, calls


# ----------------------------------------------------------------------------- errors
class ReshufflesExhausted(ValueError):
    """reshuffle="shuffle" needed a new draw-pile arrangement but `reshuffles` had none left.
    `discard_pile` holds the discard pile (bottom first) that was to be shuffled."""

    def __init__(self, discard_pile):
        self.discard_pile = list(discard_pile)
        super().__init__(
            f"R15: a reshuffle is needed but no arrangement is left in `reshuffles`; "
            f"discard pile (bottom first) = {self.discard_pile}")


# ----------------------------------------------------------------------------- the round
PHASES = ("open", "play", "give", "give_back", "play_received", "over")


class HelpRound:
    """One round of Help!, driven decision by decision through step().

    current_player: seat deciding now (the helper during "give"); None once over or truncated.
    phase:          "open" | "play" | "give" | "give_back" | "play_received" | "over".
    round_over:     True once the round has ended by R20 (points() is then available).
    truncated:      True if max_steps decisions were taken without the round ending (R22/D12).
                    NOTE: a truncated round has round_over False (it did not end; no points).
    steps:          number of decisions taken.
    asker, helper:  seats of the help sequence in progress or that ended the round (else None).
    received:       kind index the asker received in the current help sequence (else None).
    end_reason:     None, "R20a" (no givable card / R19 failure) or "R20b" (no possible helper).
    """

    def __init__(self, num_players, deck, direction=1, callers=None, starter=None, hand_size=4,
                 row_max=6, open_lowest=True, reshuffle="flip", reshuffles=None, max_steps=1000):
        # ---- validation
        if isinstance(num_players, bool) or not isinstance(num_players, int) \
                or not 3 <= num_players <= 5:
            raise ValueError("R3: 3 to 5 players")
        if direction not in (1, -1) or isinstance(direction, bool):
            raise ValueError("direction must be +1 or -1")
        if isinstance(hand_size, bool) or not isinstance(hand_size, int) or not 3 <= hand_size <= 6:
            raise ValueError("option hand_size: 3..6")
        if isinstance(row_max, bool) or not isinstance(row_max, int) or not 2 <= row_max <= 6:
            raise ValueError("option row_max: 2..6")
        if not isinstance(open_lowest, bool):
            raise ValueError("open_lowest must be a bool")
        if reshuffle not in ("flip", "shuffle"):
            raise ValueError('reshuffle must be "flip" or "shuffle"')
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError("max_steps must be a positive int")
        deck = list(deck)
        if len(deck) != 105:
            raise ValueError("R1: a deck has 105 cards")
        for c in deck:
            if c not in CODES:
                raise ValueError(f"R2: unknown card code {c!r}")
        if Counter(deck) != Counter(full_deck()):
            raise ValueError("R1: the deck must hold exactly the 105 cards of R1")
        if callers is None:
            callers = list(range(num_players))                 # round 0: every seat calls (R5)
        callers = list(callers)
        for s in callers:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < num_players:
                raise ValueError(f"R5: caller {s!r} is not a seat")
        if not callers:
            raise ValueError("R5: at least one caller")
        if starter is not None and (isinstance(starter, bool) or not isinstance(starter, int)
                                    or not 0 <= starter < num_players):
            raise ValueError("starter must be a seat")
        if reshuffle == "flip":
            if reshuffles:
                # NOTE: arrangements only make sense for "shuffle"; giving some with "flip" is an error.
                raise ValueError('reshuffles are only used with reshuffle="shuffle"')
            pending = []
        else:
            pending = [list(a) for a in (reshuffles or [])]
            for a in pending:
                for c in a:
                    if c not in CODES:
                        raise ValueError(f"R2: unknown card code {c!r} in reshuffles")

        # ---- setup (R3, D1)
        self.n = num_players
        self.direction = direction
        self.hand_size = hand_size
        self.row_max = row_max
        self.open_lowest = open_lowest
        self.reshuffle = reshuffle
        self.max_steps = max_steps
        self._pending_reshuffles = pending
        self.reshuffle_count = 0

        self._hands = [[0] * NUM_KINDS for _ in range(self.n)]
        dealt = [deck[hand_size * i: hand_size * (i + 1)] for i in range(self.n)]   # D1: blocks
        for seat, cards in enumerate(dealt):
            for c in cards:
                self._hands[seat][kind_of(c)] += 1
        self._draw = deck[hand_size * self.n:]                 # rest in order, top first
        self._row = []
        self._discard = []
        self._no = [None] * self.n

        # ---- R5/R6: starter and calls
        if starter is None:
            self.starter, self._opening, calls = choose_starter(dealt, callers, open_lowest)
        else:
            # NOTE: `starter` replaces R5 entirely: no calls are made public and, having called
            # nothing, the starter takes a normal turn (R6).
            self.starter, self._opening, calls = starter, None, {}
        self.calls = dict(calls)
        self.callers = sorted(set(callers))

        # ---- state of the decision loop
        self.steps = 0
        self.round_over = False
        self.truncated = False
        self.current_player = None
        self.phase = None
        self.asker = None
        self.helper = None
        self.received = None
        self.end_reason = None
        self._points = None
        self._legal = []
        self._script = self._play_round()
        self._advance(None)

    # ------------------------------------------------------------------ public interface
    def legal_actions(self):
        """Sorted legal action indices for current_player; [] once over or truncated."""
        return list(self._legal)

    def step(self, action):
        """Apply the current decision; ValueError if the action is not legal.

        NOTE: if a "shuffle" arrangement is missing or wrong, the error is raised in the middle of
        the step (at the draw that needs it, D11); the round object is then unusable."""
        if self.round_over or self.truncated:
            raise ValueError("the round is over")
        if action not in self._legal:
            raise ValueError(f"illegal action {action} ({describe_action(action)}) in phase "
                             f"{self.phase!r}; legal: {self._legal}")
        self.steps += 1
        self._advance(action)
        if not self.round_over and self.steps >= self.max_steps:      # R22/D12
            # NOTE: truncation leaves round_over False (PettingZoo truncation, not termination).
            self.truncated = True
            self.current_player = None
            self.phase = "over"
            self._legal = []
            self._script.close()

    def hand(self, p):
        """Seat p's cards, sorted by kind index."""
        return [CODES[k] for k in range(NUM_KINDS) for _ in range(self._hands[p][k])]

    def hand_counts(self, p):
        """Seat p's cards as 15 kind counts."""
        return list(self._hands[p])

    def row(self):
        """The row as (code, value) pairs, left to right."""
        return list(self._row)

    def draw_pile(self):
        """Draw pile, top first."""
        return list(self._draw)

    def discard_pile(self):
        """Discard pile, index 0 = the card discarded first (bottom)."""
        return list(self._discard)

    def no_cards(self):
        """Per seat: None, "fresh" or "spent" (the No! in front of that seat, R8)."""
        return list(self._no)

    def points(self):
        """R20 round points per seat; only once the round has ended."""
        if not self.round_over:
            raise ValueError("the round has not ended (or was truncated: no points, R22)")
        return list(self._points)

    # ------------------------------------------------------------------ driving the script
    def _advance(self, action):
        """Feed `action` to the round script and record the next decision (or the end)."""
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
            return
        assert legal, "every decision has a legal action"
        self.current_player = player
        self.phase = phase
        self._legal = sorted(legal)

    # ------------------------------------------------------------------ the round script
    def _play_round(self):
        """Generator: yields (player, phase, legal actions) per decision, receives the action."""
        p = self.starter
        if self._opening is not None:
            # R6/D3: the starter who called opens with the called card; still a decision (D10).
            action = yield p, "open", [number_action(self._opening)]
            self._apply_play(p, action)
            self._refill(p)                                    # R15
            p = self._pass_turn(p)                             # R15 then R8
        while True:
            # A normal turn (R9): play a card if any play is legal, otherwise ask (D10).
            legal = legal_plays(self._hands[p], self._row)
            action = yield p, "play", (legal if legal else [ASK])
            if action == ASK:
                ended = yield from self._ask_for_help(p)
                if ended:
                    return
            else:
                self._apply_play(p, action)
            self._refill(p)                                    # R15 ends p's turn
            p = self._pass_turn(p)                             # R8 for the next seat

    def _pass_turn(self, p):
        """R8: give the turn to the next seat; fresh No!s skip their owner (no decision, now
        spent); a spent No! is discarded when its owner's turn comes and that turn is played.
        Returns the seat that takes the next normal turn."""
        q = (p + self.direction) % self.n
        while self._no[q] == "fresh":
            self._no[q] = "spent"                              # skipped: the turn passes on
            q = (q + self.direction) % self.n
        if self._no[q] == "spent":
            self._discard.append("N")                          # D13: at the owner's next normal turn
            self._no[q] = None
        return q

    def _ask_for_help(self, p):
        """R16-R19 (D8, D9).  Returns True if the round ended (R20)."""
        self.asker = p
        h = self._find_helper(p)
        if h is None:
            self._end_round("R20b", p, None)                   # R16/R20b: nobody can help
            return True
        self.helper = h
        givable = givable_kinds(self._hands[h], self._row)     # R17/D8: row and own cards only
        if not givable:
            self._end_round("R20a", p, h)
            return True
        # R17: the helper chooses the kind to give (compulsory, D8); a decision even if single (D10).
        action = yield h, "give", [give_action(k) for k in givable]
        k = action - 75
        self._hands[h][k] -= 1
        self._hands[p][k] += 1
        self.received = k
        # R18: p gives back any kind it holds, except the card just received (another copy may go).
        others = list(self._hands[p])
        others[k] -= 1
        action = yield p, "give_back", [give_back_action(j) for j in range(NUM_KINDS) if others[j]]
        j = action - 90
        self._hands[p][j] -= 1
        self._hands[h][j] += 1
        # R19: p must play the received card now, among its legal plays.
        # NOTE: a received card without a legal play (a Switch while p holds no number card) is
        # detected after the give-back decision (D9 order: give, give back, play), and the round
        # ends there: no "play_received" decision with an empty mask is ever offered.
        plays = card_plays(k, self._hands[p], self._row)
        if not plays:
            self._end_round("R20a", p, h)                      # R19 failure (a useless Switch)
            return True
        action = yield p, "play_received", plays
        self._apply_play(p, action)
        self.asker = self.helper = self.received = None        # success: R15 ends p's turn,
        return False                                           # h does not draw

    def _find_helper(self, p):
        """R16/D6/D7: first seat going backwards from p (p-d, p-2d, ...) without a No! in front."""
        for i in range(1, self.n):
            q = (p - i * self.direction) % self.n
            if self._no[q] is None:
                return q
        return None

    def _end_round(self, reason, p, h):
        """R20: a) every seat other than p and h scores 1; b) p alone scores 1."""
        self.end_reason = reason
        if reason == "R20a":
            self._points = [0 if s in (p, h) else 1 for s in range(self.n)]
        else:
            self._points = [1 if s == p else 0 for s in range(self.n)]

    # ------------------------------------------------------------------ plays (R10-R14)
    def _take(self, p, k):
        assert self._hands[p][k] > 0, "the card must be in hand"
        self._hands[p][k] -= 1

    def _apply_play(self, p, action):
        """Carry out a legal play of seat p (legality was checked by the caller)."""
        if 0 <= action <= 10:                                  # R10: number at the end
            v = action + 1
            self._take(p, v - 1)
            self._row.append((str(v), v))
            self._clear_full_row()
        elif 11 <= action <= 16:                               # R11: Wild at slot s
            s = action - 11
            self._take(p, WILD)
            self._row.insert(s, ("W", wild_value(self._row, s)))   # value fixed now (D4)
            self._clear_full_row()
        elif 17 <= action <= 71:                               # R12: Switch
            s, v = divmod(action - 17, 11)
            v += 1
            self._take(p, SWITCH)
            self._discard.append("S")                          # D13: the Switch first
            self._take(p, v - 1)                               # D5: put-in card leaves the hand first
            taken_code, _ = self._row[s]
            self._hands[p][kind_of(taken_code)] += 1           # a taken Wild is a plain Wild again
            self._row[s] = (str(v), v)
        elif action == ZAP:                                    # R13
            self._take(p, ZAP_KIND)
            self._discard.append("Z")                          # D13: Zap, then the zapped card
            code, _ = self._row.pop()
            self._discard.append(code)
        elif action == NO:                                     # R14
            self._take(p, NO_KIND)
            self._no[p] = "fresh"
        else:
            raise AssertionError(f"not a play: {action}")
        assert all(a < b for a, b in zip(_values(self._row), _values(self._row)[1:]))

    def _clear_full_row(self):
        """R7: a row reaching row_max cards goes to the discard pile, leftmost first (D13)."""
        if len(self._row) == self.row_max:
            self._discard.extend(code for code, _ in self._row)
            self._row = []

    # ------------------------------------------------------------------ drawing (R15, D11)
    def _refill(self, p):
        """R15: p draws until holding hand_size cards, reshuffling lazily when a card is needed."""
        while sum(self._hands[p]) < self.hand_size:
            if not self._draw:
                self._reshuffle()
            self._hands[p][kind_of(self._draw.pop(0))] += 1

    def _reshuffle(self):
        """R15/D11: the discard pile (only; row and No! cards stay) becomes the draw pile."""
        assert self._discard, "D11: both piles empty cannot happen"
        if self.reshuffle == "flip":
            new_draw = list(self._discard)                     # first discarded is drawn first
        else:
            if not self._pending_reshuffles:
                raise ReshufflesExhausted(self._discard)
            new_draw = self._pending_reshuffles.pop(0)
            if Counter(new_draw) != Counter(self._discard):
                raise ValueError(f"R15: reshuffle arrangement {new_draw} is not a permutation of "
                                 f"the discard pile {self._discard}")
        self._draw = new_draw
        self._discard = []
        self.reshuffle_count += 1
