"""Help!'s 105 deck cards (R1, R2) and the flat table of 105 actions (spec "Actions").

Cards of one kind are interchangeable, so the engine keeps cards as kind indices: k = v-1 for the number
v (1..11), then Wild, Switch, Zap and No!. A deck is written as 105 card codes ("1".."11", "W", "S", "Z",
"N"), the top card first.
"""
import numpy as np

from ..checks import as_int, as_list, rule, shown

NUM_CARDS = 105
NUM_KINDS = 15
MAX_PLAYERS = 5
MAX_VALUE = 11
ROW_CAP = 6                  # the action table holds rows of up to 6 cards (row_max <= 6)

K_WILD, K_SWITCH, K_ZAP, K_NO = 11, 12, 13, 14
CODES = [str(v) for v in range(1, 12)] + ["W", "S", "Z", "N"]
KIND_NAMES = [str(v) for v in range(1, 12)] + ["Wild", "Switch", "Zap", "No!"]
KIND_OF_CODE = {c: k for k, c in enumerate(CODES)}
KIND_COUNTS = np.array([5, 5] + [7] * 5 + [8] * 4 + [7] * 4, np.int64)    # R1
assert KIND_COUNTS.sum() == NUM_CARDS
FULL_DECK = np.repeat(np.arange(NUM_KINDS), KIND_COUNTS).astype(np.int8)    # all 1s, all 2s, ..., all No!s

# Action table: one flat discrete space of 105.
NUM_ACTIONS = 105
PLAY = 0             # 0..10: play number v = a + 1 (R10; also the opening R6 and the received card R19)
WILD = 11            # 11..16: Wild at slot s = a - 11 (R11)
SWITCH = 17          # 17 + 11*s + (v-1): Switch, take row slot s (0..4), put number v (R12)
ZAP = 72             # R13
NO = 73              # R14
ASK = 74             # R16
GIVE = 75            # 75 + k: the helper gives a card of kind k (R17)
GIVE_BACK = 90       # 90 + k: the asker gives back a card of kind k (R18)


def play_action(v: int) -> int:
    """Play the number card v (1..11)."""
    if not 1 <= v <= MAX_VALUE:
        raise ValueError(f"number {v!r}: numbers are 1..11")
    return PLAY + v - 1


def wild_action(slot: int) -> int:
    """Put a Wild at row slot 0..5 (slot = row length: the end)."""
    if not 0 <= slot < ROW_CAP:
        raise ValueError(f"Wild slot {slot!r}: slots are 0..5")
    return WILD + slot


def switch_action(slot: int, v: int) -> int:
    """Switch: take the card at row slot 0..4 and put the number v (1..11) from hand in its place."""
    if not (0 <= slot < ROW_CAP - 1 and 1 <= v <= MAX_VALUE):
        raise ValueError(f"Switch slot {slot!r}, number {v!r}: slots are 0..4, numbers 1..11")
    return SWITCH + 11 * slot + v - 1


def give_action(kind: int) -> int:
    """The helper gives a card of kind 0..14."""
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"kind {kind!r}: kinds are 0..14")
    return GIVE + kind


def give_back_action(kind: int) -> int:
    """The asker gives back a card of kind 0..14."""
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"kind {kind!r}: kinds are 0..14")
    return GIVE_BACK + kind


def kind_of(code) -> int:
    """Kind index of a card code (R2); ValueError for anything else."""
    if not isinstance(code, str) or code not in KIND_OF_CODE:
        raise ValueError(f"{code!r} is not a card code: codes are {', '.join(CODES)}")
    return KIND_OF_CODE[code]


def a_card(kind: int) -> str:
    """'a 9', 'an 8', 'a Wild', 'a No!'."""
    name = KIND_NAMES[kind]
    return ("an " if name in ("8", "11") else "a ") + name


def action_name(a: int) -> str:
    """A short readable name of action a: 'play 7', 'Wild at slot 2', 'Switch: take slot 1, put a 6', 'Zap',
    'No!', 'ask for help', 'give a 9', 'give back a 3'."""
    a = as_int(a, "action", 0, NUM_ACTIONS - 1)
    if a < WILD:
        return f"play {a + 1}"
    if a < SWITCH:
        return f"Wild at slot {a - WILD}"
    if a < ZAP:
        s, k = divmod(a - SWITCH, 11)
        return f"Switch: take slot {s}, put {a_card(k)}"
    if a == ZAP:
        return "Zap"
    if a == NO:
        return "No!"
    if a == ASK:
        return "ask for help"
    if a < GIVE_BACK:
        return f"give {a_card(a - GIVE)}"
    return f"give back {a_card(a - GIVE_BACK)}"


ACTION_NAMES = [action_name(a) for a in range(NUM_ACTIONS)]


def codes_of(kinds) -> list[str]:
    """Card codes of kind indices."""
    return [CODES[k] for k in np.asarray(kinds).tolist()]


def codes_to_kinds(codes, name: str, lo: int, hi: int | None = None) -> np.ndarray:
    """Validate lo..hi card codes (top first) and return their kind indices; the type and length are checked
    before anything is converted. ValueError naming the first problem."""
    items = as_list(codes, name, f"{lo if hi is None else f'{lo}..{hi}'} card codes ({', '.join(CODES)})", lo, hi,
                    "cards")
    kinds = np.empty(len(items), np.int8)
    for i, c in enumerate(items):
        if not isinstance(c, str) or c not in KIND_OF_CODE:
            raise ValueError(f"{name} card {i} is {shown(c)}: card codes are {', '.join(CODES)} "
                             f"({rule('help', 'R2')})")
        kinds[i] = KIND_OF_CODE[c]
    return kinds


def deck_to_kinds(deck, name: str = "deck") -> np.ndarray:
    """Validate a deck of 105 card codes (top first, R2) and return its kind indices.

    ValueError naming the first problem: not a list, wrong length, an unknown code, or a kind that is
    missing or too many (R1)."""
    kinds = codes_to_kinds(deck, name, NUM_CARDS)
    counts = np.bincount(kinds, minlength=NUM_KINDS)
    for k in range(NUM_KINDS):
        if counts[k] != KIND_COUNTS[k]:
            raise ValueError(f"{name} holds {counts[k]} cards {CODES[k]!r}, the deck has exactly {KIND_COUNTS[k]} "
                             f"({rule('help', 'R1')})")
    return kinds


def pile_to_kinds(pile) -> np.ndarray:
    """Validate a list of card codes (a recorded reshuffle) and return its kind indices."""
    return codes_to_kinds(pile, "pile", 1, NUM_CARDS)
