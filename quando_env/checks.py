"""What callers pass, checked once: every public entry point converts its inputs here before any arithmetic.

Inputs arrive as Python ints, numpy scalars of any width, bools, floats and strings. An integer option is
taken only from an int or a numpy integer (never a bool, float or string), converted to a Python int and
range-checked *before* it reaches numpy or a kernel, so nothing wraps around in a narrow dtype and nothing
a caller passes can make a kernel index out of bounds. Errors are ValueErrors naming what was wrong and
what is allowed.
"""
import math
import operator

import numpy as np

SEED_MAX = 2**63 - 1    # seeds are int64 (game i of a batch seeded s gets s + i)


def rule(game: str, *ids: str) -> str:
    """Where a message's rule can be looked up: "rule R3 of quando_env/quando/RULES.md"."""
    return f"rule {', '.join(ids)} of quando_env/{game}/RULES.md"


def is_int(x) -> bool:
    """An integer (int or numpy integer), and not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def need(ok: bool, what: str, allowed: str) -> None:
    """Raise ValueError naming the bad value and what is allowed."""
    if not ok:
        raise ValueError(f"{what} is not allowed: {allowed}")


def shown(x, width: int = 80) -> str:
    """A value as an error message shows it: its repr (control characters escaped) cut to `width` characters,
    built in time bounded by `width` whatever the value (a 400-digit integer, a long or deeply nested list)."""
    parts, room = [], [width + 1]

    def put(text: str) -> bool:         # True once the message is full
        parts.append(text[:room[0]])
        room[0] -= len(text)
        return room[0] <= 0

    def walk(v) -> bool:
        kind = type(v)
        if kind not in (list, tuple, dict):
            return put(_atom(v, room[0]))
        if put("[" if kind is list else "(" if kind is tuple else "{"):
            return True
        for i, item in enumerate(v.items() if kind is dict else v):
            if (i and put(", ")) or (walk(item[0]) or put(": ") or walk(item[1]) if kind is dict else walk(item)):
                return True
        return put("]" if kind is list else ",)" if kind is tuple and len(v) == 1 else ")" if kind is tuple else "}")

    walk(x)
    text = "".join(parts)
    return text if len(text) <= width else text[:width - 3] + "..."


def _atom(v, room: int) -> str:
    """repr of one value that is no list, tuple or dict, about `room` characters of it when long."""
    if isinstance(v, str) and len(v) > room:
        return repr(v[:room])
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 256:      # over 77 digits
        if v.bit_length() > 10_000:     # beyond what int's own str would give (4,300 digits at most)
            return f"<an integer of about {round(v.bit_length() * math.log10(2))} digits>"
        digits = int.__repr__(v)         # (the value itself, whatever a subclass says)
        return f"{digits[:20]}...{digits[-5:]} ({len(digits.lstrip('-'))} digits)"
    try:
        return repr(v)
    except Exception:       # a repr that fails says what the value is
        return f"<{type(v).__name__}>"


def printable(text) -> str:
    """`text` safe to print: each character that is not printable (ESC and the other C0 and C1 controls, \\r,
    DEL, bidirectional overrides...) written as its escape, such as \\x1b, so text read from a file or a
    network cannot move the cursor, clear the screen, retitle the window, hyperlink or overwrite a line."""
    text = str(text)
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def to_int(x) -> int | None:
    """x as an exact Python int (from an int, an int subclass, a numpy integer or a 0-d integer array), or None
    when x is no integer (a bool, float, string, None...). The one conversion every check uses *before* it
    compares: an int subclass whose comparisons lie is compared by its value, never by its own methods."""
    if isinstance(x, np.ndarray):
        return int(x.item()) if x.ndim == 0 and x.dtype.kind in "iu" else None
    if not is_int(x):
        return None
    v = operator.index(x)          # an exact int (Python >= 3.10), even for an int subclass
    return v if type(v) is int else int.__index__(v)


def as_int(x, name: str, lo: int | None = None, hi: int | None = None, allowed: str | None = None) -> int:
    """x as a Python int in lo..hi (either bound may be None), or ValueError naming `name`."""
    v = to_int(x)
    if v is None or (lo is not None and v < lo) or (hi is not None and v > hi):
        if allowed is None and lo is not None and hi is not None:
            allowed = f"an integer {lo}..{hi}"
        elif allowed is None:
            allowed = f"an integer >= {lo}" if lo is not None else f"an integer <= {hi}" if hi is not None \
                else "an integer"
        need(False, f"{name}={shown(x)}", allowed)
    return v


def as_bool(x, name: str) -> bool:
    """x as a bool (True/False or a numpy bool only), or ValueError naming `name`."""
    if not isinstance(x, (bool, np.bool_)):
        need(False, f"{name}={shown(x)}", "True or False")
    return bool(x)


def as_choice(x, name: str, choices) -> str:
    """x if it is one of `choices` (strings), or ValueError naming `name` and the choices."""
    if not (isinstance(x, str) and x in choices):
        need(False, f"{name}={shown(x)}", f"choose one of {tuple(choices)}")
    return x


def as_seed(x, name: str = "seed", count: int = 1) -> int:
    """An int seed in 0..SEED_MAX - (count - 1): `count` consecutive seeds x .. x + count - 1 must fit."""
    return as_int(x, name, 0, SEED_MAX - (count - 1))


def seed_list(seed, slots, unit: str = "game", allow_none: bool = True) -> list:
    """Per-game seeds from what a reset takes for the games in `slots`: an int (the i-th listed game gets
    seed + i), or a list (tuple, array) of one per listed game, each a seed, or None where `allow_none` (that
    game goes on with its own streams). ValueError naming a bad seed by its game's slot."""
    slots = list(slots)
    count = len(slots)
    if np.ndim(seed) == 0 and not isinstance(seed, (str, bytes)):
        first = as_seed(seed, count=count)
        return [first + i for i in range(count)]
    need(isinstance(seed, (list, tuple, np.ndarray)), f"seed={shown(seed)}",
         f"an int ({unit} i gets seed + i), or a list of one seed per {unit}" + " (or None)" * allow_none)
    items = seed.reshape(-1).tolist() if isinstance(seed, np.ndarray) else list(seed)
    if len(items) != count:
        raise ValueError(f"got {len(items)} seeds for {count} {unit}s: give one per {unit}")
    return [None if x is None and allow_none else as_seed(x, f"the seed of game {g}") for g, x in zip(slots, items)]


def as_actions(actions, k: int) -> np.ndarray | None:
    """k actions from integers only: an integer array of shape (k,) (returned as it is: the hot path), or a list,
    tuple or object array of k Python ints and numpy integers of any widths (never bools, floats or strings;
    numpy would read True as 1 and 19.7 as a float). An int64 array, or an object array of Python ints where one
    lies beyond int64 (the caller names it as out of range); None for anything else (the caller words the error,
    naming its own context)."""
    if isinstance(actions, np.ndarray) and actions.dtype.kind in "iu":
        if actions.shape != (k,):
            return None
        if actions.dtype.kind == "u" and actions.size and actions.max() >= 2**63:
            return np.array(actions.tolist(), object)
        return actions
    if isinstance(actions, np.ndarray):
        items = actions.tolist() if actions.shape == (k,) and actions.dtype == object else None
    else:
        items = list(actions) if isinstance(actions, (list, tuple)) and len(actions) == k else None
    values = None if items is None else list(map(to_int, items))
    if values is None or None in values:
        return None
    try:
        return np.array(values, np.int64)
    except OverflowError:
        return np.array(values, object)


def as_ints(x, name: str, lo: int, hi: int) -> np.ndarray:
    """A 1-d int64 array from integers (a scalar, a sequence, or an integer numpy array) in lo..hi.

    Refuses bools, floats and strings, so a boolean mask is never read as indices. Linear in the input: the
    message is built only when refusing."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        flat = x.reshape(-1)
        if flat.size and (flat.min() < lo or flat.max() > hi):     # (compared in the array's own dtype)
            need(False, f"{name}={shown(x)}", f"integers {lo}..{hi}")
        return flat.astype(np.int64)
    if isinstance(x, np.ndarray):
        items = x.reshape(-1).tolist() if x.dtype == object else None
    elif is_int(x):
        items = [x]
    elif isinstance(x, (str, bytes)):
        items = None
    else:
        try:
            items = list(x)
        except TypeError:
            items = None
    values = None if items is None else list(map(to_int, items))
    if values is None or not all(v is not None and lo <= v <= hi for v in values):
        need(False, f"{name}={shown(x)}" if items is not None or not isinstance(x, np.ndarray)
             else f"{name} of dtype {x.dtype}", f"integers {lo}..{hi}")
    return np.array(values, np.int64)


def as_slots(games, num_games: int, name: str = "games") -> np.ndarray:
    """Distinct game slots 0..num_games-1 as an int64 array (a repeated slot would be stepped twice)."""
    idx = as_ints(games, name, 0, num_games - 1)
    increasing = idx.size < 2 or bool((idx[1:] > idx[:-1]).all())     # the usual case: nothing to sort
    if not increasing and np.unique(idx).size != idx.size:
        need(False, f"{name}={shown(games)}", "distinct slots (each game at most once)")
    return idx


def as_action(x, num_actions: int, name: str = "action") -> int:
    """One action as a Python int, from an int, a numpy integer or a 0-d integer array (what frameworks
    pass); never a bool, float, string or None. The range is the caller's to check: its message can name
    the legal actions."""
    v = to_int(x)
    if v is None:       # (the message is built only when needed: this runs on every step)
        need(False, f"{name}={shown(x)}", f"one integer 0..{num_actions - 1}")
    return v


def as_list(x, name: str, allowed: str, lo: int, hi: int | None = None, unit: str = "items",
            item_size: int = 1) -> list:
    """x as a list of lo..hi items (exactly lo if hi is None): a list or tuple, or a numpy array of shape (k,)
    or (k, item_size). Its type and length are checked before anything is converted, so a string, a generator
    or a huge input is refused at once: ValueError naming `name` and the `allowed` items."""
    hi = lo if hi is None else hi
    exactly = "exactly " if lo == hi else ""
    if isinstance(x, np.ndarray):
        k = x.shape[0] if x.ndim else -1
        if x.shape != ((k,) if item_size == 1 else (k, item_size)) or not lo <= k <= hi:
            raise ValueError(f"{name} has shape {x.shape}, a {name} has {exactly}{allowed}")
        return x.tolist()
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"{name} must be a list of {allowed}, got {type(x).__name__}")
    if not lo <= len(x) <= hi:
        raise ValueError(f"{name} has {len(x)} {unit}, a {name} has {exactly}{allowed}")
    return list(x)


def check_plays(agent, game: str, what: str) -> None:
    """Refuse an agent (or its class) that declares another game: its `game` attribute, a game's name, is not
    `game`. One that declares none plays any game."""
    declared = getattr(agent, "game", None)
    if isinstance(declared, str) and declared != game:
        raise ValueError(f"{what} plays {declared}, not {game}: give an agent made for {game}")
