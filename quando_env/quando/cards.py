"""The 55 double-sided cards and the flat action table of the spec (R1, "Actions")."""
import numpy as np
from numba.extending import register_jitable

from ..checks import as_int, as_list, rule, shown, to_int

NUM_CARDS = 55
MAX_VALUE = 10
NUM_VALUES = 11
MAX_PLAYERS = 6

# Card id -> its two numbers, low side first. Ids are internal bookkeeping only: they correlate with the
# hidden sides, so nothing a player observes may be indexed or ordered by them.
CARD_VALUES = np.array([(a, b) for a in range(NUM_VALUES) for b in range(a + 1, NUM_VALUES)], dtype=np.int8)
PAIR_TO_CARD = np.full((NUM_VALUES, NUM_VALUES), -1, dtype=np.int8)
for _c, (_a, _b) in enumerate(CARD_VALUES):
    PAIR_TO_CARD[_a, _b] = PAIR_TO_CARD[_b, _a] = _c

# Action table (spec "Actions"): one flat discrete space of 134.
NUM_ACTIONS = 134
STRAIGHT = 0          # 0..8: straight x, x+1, x+2
SET = 9               # 9 + 10*v + (k-1): k cards of front v
KNOCK = 119
PASS = 120
TAKE_UP = 121
TAKE_DOWN = 122
FLIP_UNKNOWN = 123
FLIP_KNOWN = 124      # 124 + (b-1): flip the front-0 card whose known back is b


MAX_SET = 10          # a set holds 1..10 cards; SET's rows hold MAX_SET actions per front value
assert SET + NUM_VALUES * MAX_SET == KNOCK and FLIP_KNOWN + MAX_VALUE == NUM_ACTIONS


# What an action id means, in one place (plain Python and inside numba kernels alike).
@register_jitable
def is_straight(a):
    """A (R7): a straight x, x+1, x+2."""
    return STRAIGHT <= a < SET


@register_jitable
def is_set(a):
    """B (R7): k cards of one front value."""
    return SET <= a < KNOCK


@register_jitable
def is_flip(a):
    """A penalised seat's choice of the front 0 to flip (R12, D5)."""
    return FLIP_UNKNOWN <= a < NUM_ACTIONS


@register_jitable
def straight_low(a):
    """The lowest number x of straight action a."""
    return a - STRAIGHT


@register_jitable
def set_value(a):
    """The front value v of set action a."""
    return (a - SET) // MAX_SET


@register_jitable
def set_count(a):
    """How many cards k set action a discards (1..MAX_SET)."""
    return (a - SET) % MAX_SET + 1


@register_jitable
def flip_back(a):
    """The known back b of the front-0 card that flip action a >= FLIP_KNOWN turns."""
    return a - FLIP_KNOWN + 1


@register_jitable
def flip_action(back):
    """Index of the action 'flip the front-0 card whose known back is `back`' (1..10)."""
    return FLIP_KNOWN + back - 1


@register_jitable
def set_action(value, count):
    """Index of the action 'discard `count` cards showing `value`'."""
    return SET + MAX_SET * value + (count - 1)


def action_name(a: int) -> str:
    """A short readable name of action `a`, e.g. 'straight 3-4-5', 'three 7s', 'take the hidden side'."""
    a = as_int(a, "action", 0, NUM_ACTIONS - 1)
    if is_straight(a):
        x = straight_low(a)
        return f"straight {x}-{x + 1}-{x + 2}"
    if is_set(a):
        v, k = set_value(a), set_count(a)
        words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
        return f"{words[k - 1]} {v}" + ("s" if k > 1 else "")
    return {KNOCK: "knock", PASS: "pass", TAKE_UP: "take the visible side", TAKE_DOWN: "take the hidden side",
            FLIP_UNKNOWN: "flip a 0 with unknown back"}.get(a, f"flip the 0 with back {flip_back(a)}")


ACTION_NAMES = [action_name(a) for a in range(NUM_ACTIONS)]


_PAIRS = CARD_VALUES.tolist()      # per card id its two numbers as Python ints


def card_pairs(ids, ups) -> list[list[int]]:
    """Cards given by id and up-side index as [up, down] number pairs (how decks are written in records)."""
    return [[(p := _PAIRS[c])[u], p[1 - u]] for c, u in zip(np.asarray(ids).tolist(), np.asarray(ups).tolist())]


def deck_to_cards(deck, name: str = "deck") -> tuple[np.ndarray, np.ndarray]:
    """Validate a deck given as 55 [up, down] pairs (top first, R4) and return (card ids, up-side index).

    Raises ValueError naming the first problem: not a list, wrong length (both checked before anything is
    converted), a pair that is no two integers, a number outside 0..10, equal sides, or a pair that is repeated
    (so, with 55 pairs, another is missing).
    """
    items = as_list(deck, name, f"{NUM_CARDS} [up, down] pairs of integers 0..10, top first ({rule('quando', 'R4')})",
                    NUM_CARDS, unit="cards", item_size=2)
    ids = np.empty(NUM_CARDS, np.int8)
    up = np.empty(NUM_CARDS, np.int8)
    seen = {}
    for i, p in enumerate(items):
        u, d = up_down(p, f"{name} card {i}")
        key = (min(u, d), max(u, d))
        if key in seen:
            raise ValueError(f"{name} cards {seen[key]} and {i} are both {list(key)}: every pair occurs exactly once "
                             f"({rule('quando', 'R1')})")
        seen[key] = i
        ids[i] = PAIR_TO_CARD[u, d]
        up[i] = 0 if u < d else 1
    return ids, up


def up_down(p, what: str) -> tuple[int, int]:
    """A card given as an [up, down] pair: two different integers 0..10 (ValueError naming `what` otherwise)."""
    pair = isinstance(p, (list, tuple)) or (isinstance(p, np.ndarray) and p.ndim == 1)
    u, d = (to_int(p[0]), to_int(p[1])) if pair and len(p) == 2 else (None, None)
    if u is None or d is None:
        raise ValueError(f"{what} is {shown(p)}: each card is an [up, down] pair of integers")
    if not (0 <= u <= MAX_VALUE and 0 <= d <= MAX_VALUE):
        raise ValueError(f"{what} is {[u, d]}: numbers must be 0..10")
    if u == d:
        raise ValueError(f"{what} is {[u, d]}: the two sides of a card differ ({rule('quando', 'R1')})")
    return u, d
