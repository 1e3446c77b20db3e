"""The 52 cards (R1, R2) and the flat action table of 350 (spec "Actions") as named constants and helpers."""
import numpy as np

from ..checks import as_int, as_list, rule, shown, to_int

NUM_CARDS = 52
NUM_SLOTS = 8          # R3, D6: slots per player
MAX_PLAYERS = 6        # D1
MAX_OTHERS = MAX_PLAYERS - 1

# R1: card id c -> rank c // 4 + 1, suit c % 4.
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SIGNS = ("c", "d", "h", "s")
RANK_SIGNS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = ("", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")

CARD_RANKS = np.array([c // 4 + 1 for c in range(NUM_CARDS)], np.int8)
CARD_SUITS = np.array([c % 4 for c in range(NUM_CARDS)], np.int8)
# R2: the rank for ace..queen; a red king (diamonds, hearts) 0, a black king 13.
CARD_VALUES = np.array([(0 if s in (DIAMONDS, HEARTS) else 13) if r == KING else r
                        for r, s in zip(CARD_RANKS, CARD_SUITS)], np.int8)

# ---------------------------------------------------------------- the action table (350 actions)
NUM_ACTIONS = 350
DRAW_STOCK = 0            # R9: draw the stock's top card
TAKE_DISCARD = 1          # R9: take the discard pile's top card
PLACE = 2                 # 2 + p: put the drawn card into own slot p (R12)
DISCARD_DRAWN = 10        # R12: discard the card drawn from the stock
QUEEN_LOOK = 11           # 11 + p: Queen, look at own slot p (R11)
JACK_SWAP = 19            # 19 + 64 (r - 1) + 8 p + q: Jack, own slot p with slot q of the player r seats on (R10)
SNAP = 339                # 339 + p: snap own slot p (R13)
PASS = 347                # R13: end one's part of a snap window
KNOCK = 348               # R18
NO_KNOCK = 349            # R18


def rank(c: int) -> int:
    """R1: 1 (ace) .. 13 (king)."""
    return int(c) // 4 + 1


def suit(c: int) -> int:
    """R1: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return int(c) % 4


def value(c: int) -> int:
    """R2: what card c counts at the end of a round."""
    return int(CARD_VALUES[int(c)])


def card_id(r: int, s: int) -> int:
    """The id of the card of rank r (1..13) and suit s (0..3)."""
    if not (1 <= r <= 13 and 0 <= s <= 3):
        raise ValueError(f"rank {r}, suit {s}: ranks are 1..13, suits 0..3")
    return 4 * (r - 1) + s


def card_name(c: int) -> str:
    """A short name: 'Qh', '10c', 'Kd'."""
    return f"{RANK_SIGNS[rank(c)]}{SUIT_SIGNS[suit(c)]}"


def place_action(p: int) -> int:
    return PLACE + p


def queen_action(p: int) -> int:
    return QUEEN_LOOK + p


def snap_action(p: int) -> int:
    return SNAP + p


def jack_action(r: int, p: int, q: int) -> int:
    """Jack (R10): own slot p with slot q of the player r seats clockwise (r = 1..5)."""
    if not (1 <= r <= MAX_OTHERS and 0 <= p < NUM_SLOTS and 0 <= q < NUM_SLOTS):
        raise ValueError(f"jack_action({r}, {p}, {q}): r is 1..{MAX_OTHERS}, slots are 0..{NUM_SLOTS - 1}")
    return JACK_SWAP + 64 * (r - 1) + 8 * p + q


def decode_jack(a: int) -> tuple[int, int, int]:
    """(r, p, q) of a Jack action."""
    if not JACK_SWAP <= a < SNAP:
        raise ValueError(f"action {a} is not a Jack exchange")
    k = a - JACK_SWAP
    return k // 64 + 1, (k % 64) // 8, k % 8


def action_name(a: int) -> str:
    """A short readable name of action `a`, e.g. 'swap into slot 3', 'Jack: my slot 1 with player+2's slot 0'."""
    a = as_int(a, "action", 0, NUM_ACTIONS - 1)
    if a == DRAW_STOCK:
        return "draw from the stock"
    if a == TAKE_DISCARD:
        return "take the discard"
    if a < DISCARD_DRAWN:
        return f"swap into slot {a - PLACE}"
    if a == DISCARD_DRAWN:
        return "discard the drawn card"
    if a < JACK_SWAP:
        return f"Queen: look at my slot {a - QUEEN_LOOK}"
    if a < SNAP:
        r, p, q = decode_jack(a)
        return f"Jack: my slot {p} with player+{r}'s slot {q}"
    if a < PASS:
        return f"snap slot {a - SNAP}"
    return {PASS: "pass", KNOCK: "knock", NO_KNOCK: "do not knock"}[a]


ACTION_NAMES = [action_name(a) for a in range(NUM_ACTIONS)]


def check_deck(deck, name: str = "deck") -> np.ndarray:
    """Validate a forced deck (R4: the 52 card ids, each once, top first) and return it as int8.

    Raises ValueError naming the first problem: not a list, wrong length (both checked before anything is
    converted), an item that is no integer, an id outside 0..51, or an id given twice.
    """
    items = as_list(deck, name, f"the {NUM_CARDS} card ids 0..{NUM_CARDS - 1} (top first, {rule('cabo', 'R4')})",
                    NUM_CARDS, unit="cards")
    where = {}
    for i, given in enumerate(items):
        c = to_int(given)
        if c is None:
            raise ValueError(f"{name} card {i} is {shown(given)}: cards are integer ids 0..51 "
                             f"({rule('cabo', 'R1')})")
        if not 0 <= c < NUM_CARDS:
            raise ValueError(f"{name} card {i} is {shown(given)}: card ids are 0..51 ({rule('cabo', 'R1')})")
        if c in where:
            raise ValueError(f"{name} cards {where[c]} and {i} are both {c} ({card_name(c)}): every id occurs once "
                             f"({rule('cabo', 'R4')})")
        where[c] = i
    return np.array(items, np.int8)
