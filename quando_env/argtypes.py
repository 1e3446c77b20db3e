"""What every command line of the repository takes, checked before any work: argparse `type=` functions
(python -m quando_env, evaluate.py, train.py) and the checks that need several options at once.

A bad value ends the program at once with argparse's usage line, one `error: argument --OPTION: ...` line
naming the option and what it allows, and exit status 2: never a traceback, and never after games were
played or a model trained. Output paths are checked the same way, so results are never lost for want of a
folder: a file needs an existing folder it can write in; a folder is created, so the nearest existing
folder above it must be writable.
"""
import argparse
import math
import os
import re
from pathlib import Path

from .checks import SEED_MAX, shown
from .files import output_target


def _span(lo, hi, what: str, above: bool = False) -> str:
    """'an integer 1..5', 'a number > 0', 'an integer >= 1' ..."""
    if hi is None:
        return f"{what} {'>' if above else '>='} {lo}"
    return f"{what} {lo}..{hi}" if not above else f"{what} > {lo} and <= {hi}"


def int_in(lo: int, hi: int | None = None):
    """The type of an integer option in lo..hi (no upper bound with hi=None)."""
    allowed = _span(lo, hi, "an integer")

    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not {allowed}") from None
        if value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"{shown(value)} is not allowed: {allowed}")
        return value
    return integer


def float_in(lo: float, hi: float | None = None, above: bool = False):
    """The type of a finite number option in lo..hi (above: lo itself excluded; hi=None: no upper bound)."""
    allowed = _span(lo, hi, "a number", above)

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not {allowed}") from None
        if not math.isfinite(value) or value < lo or (above and value == lo) or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"{shown(text)} is not allowed: {allowed}")
        return value
    return number


def host_name(text: str) -> str:
    """A host name (letters, digits, dots, hyphens, lower-cased) or an IP address, spelled as a browser's address
    bar and Host header spell it: an IP address in its canonical form, IPv4's legacy forms (127.1, 0x7f000001,
    010.0.0.1) read as inet_aton and URLs read them."""
    import ipaddress
    import socket

    if re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)(\.(0[xX][0-9a-fA-F]+|[0-9]+))*", text):
        try:
            return str(ipaddress.IPv4Address(socket.inet_aton(text)))
        except OSError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not an IPv4 address") from None
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        if len(text) <= 253 and all(re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", label)
                                    for label in text.split(".")):
            return text.lower()
    raise argparse.ArgumentTypeError(f"{shown(text)} is not a host name or an IP address")


def bind_host(text: str) -> str:
    """An address to bind, as host_name spells it, "" as 0.0.0.0 (every address)."""
    return "0.0.0.0" if text == "" else host_name(text)


def is_loopback(host: str) -> bool:
    """Whether `host` (as bind_host spells it) is an address or name of this computer only (127.0.0.0/8, ::1,
    localhost)."""
    import ipaddress

    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


positive_int = int_in(1)
seed = int_in(0, SEED_MAX)            # a game seed (game j of a batch gets seed + j: see check_seed_room)
probability = float_in(0.0, 1.0)


def _path(text: str) -> Path:
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"{shown(text)} is no path")
    return Path(text)


def _named(text: str) -> str:
    """A path as an error message shows it: whole, unless absurdly long."""
    return repr(text) if len(text) <= 1000 else shown(text)


def existing_file(text: str) -> str:
    """The type of an input file option: the file must exist (its name is kept as given)."""
    path = _path(text)
    try:
        ok = path.is_file()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"{_named(text)}: {e.strerror}") from None
    if not ok:
        raise argparse.ArgumentTypeError(f"{_named(text)}: no such file" + (" (a folder)" if path.is_dir() else ""))
    return text


def _writable_folder(folder: Path, text: str) -> None:
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{_named(text)}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{_named(text)}: cannot write in {folder}")


def output_file(text: str) -> str:
    """The type of an output file option: not a folder, in an existing folder this program may write in
    (no folder is created), and writable if it exists."""
    path = _path(text)
    try:
        if text.endswith(("/", os.sep)) or path.is_dir():
            raise argparse.ArgumentTypeError(f"{_named(text)} is a folder: give a file name")
        if not path.parent.exists():
            raise argparse.ArgumentTypeError(f"{_named(text)}: no folder {path.parent}")
        _writable_folder(path.parent, text)
        if path.exists() and not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"{_named(text)}: the file is not writable")
        output_target(path)         # a regular file or none, where a file can be created: tried, not assumed
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{_named(text)}: {e}") from None
    except OSError as e:
        raise argparse.ArgumentTypeError(f"{_named(text)}: {e.strerror}") from None
    return text


def output_dir(text: str) -> str:
    """The type of an output folder option: an existing writable folder, or one that can be created (the
    nearest existing folder above it is a writable folder)."""
    path = _path(text)
    try:
        existing = path
        while not existing.exists() and existing != existing.parent:
            if existing.is_symlink():
                raise argparse.ArgumentTypeError(f"{_named(text)}: {existing} is a symlink to nothing (or a loop of "
                                                 "symlinks)")
            existing = existing.parent
        if existing == path and not path.is_dir():
            raise argparse.ArgumentTypeError(f"{_named(text)} is a file, not a folder")
        _writable_folder(existing, text)
    except OSError as e:
        raise argparse.ArgumentTypeError(f"{_named(text)}: {e.strerror}") from None
    return text


def check(parser: argparse.ArgumentParser, option: str, type_, value):
    """type_(value) for a value checked after parsing (a default computed from other options); a bad one ends
    the program as argparse would (status 2, the option named)."""
    try:
        return type_(value)
    except argparse.ArgumentTypeError as e:
        parser.error(f"argument {option}: {e}")


OPTION_HELP = ("one of the game's options as NAME=VALUE (a field of its Config: quando's target_score, cabo's "
               "turn_limit, help's hand_size, ...), checked by the game; repeat it for more")
OWN_FLAGS = {"num_players": "--players", "edition": "--edition"}     # options with flags of their own


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """--option NAME=VALUE, repeatable: any of the game's options (rule_options reads them)."""
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help=OPTION_HELP)


def option_value(text: str):
    """A --option VALUE as the config takes it: true/false, an integer, or the text (the config checks it)."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def rule_options(args) -> dict:
    """The game's options the command line sets (--edition and every --option), num_players aside."""
    out = {"edition": args.edition} if getattr(args, "edition", None) else {}
    for item in getattr(args, "option", None) or []:
        name, _, value = item.partition("=")
        out[name] = option_value(value)
    return out


def check_game_options(parser: argparse.ArgumentParser, game: str, players: int, edition: str | None = None,
                       players_option: str = "--players", players_from: str = "", options: list | None = None):
    """The game's config for its player count (given by players_option; players_from says how the count came
    from it, when not given as a number), --edition (Quando's) and each --option NAME=VALUE (`options`), or the
    program ends naming the option."""
    from .options import make_config
    from .registry import game_class

    cls = game_class(game).config_class
    given = {"num_players": players}
    if edition is not None:
        if "edition" not in cls.__dataclass_fields__:
            parser.error(f"argument --edition: {game} has no editions (only quando has)")
        given["edition"] = edition
    try:
        make_config(cls, **given)
    except ValueError as e:
        parser.error(f"argument {players_option}: {e}{players_from}")
    for item in options or []:
        name, eq, value = item.partition("=")
        fields = [f for f in cls.__dataclass_fields__ if f not in OWN_FLAGS]
        if not eq or name not in fields:
            parser.error(f"argument --option: {shown(item)}: give NAME=VALUE with NAME one of {game}'s options "
                         f"{', '.join(fields)}" + (f" ({OWN_FLAGS[name]} sets {name})" if name in OWN_FLAGS else ""))
        if name in given:
            parser.error(f"argument --option: {name} is given twice")
        given[name] = option_value(value)
        try:
            make_config(cls, **given)
        except (ValueError, TypeError) as e:
            parser.error(f"argument --option: {shown(item)}: {e}")
    return make_config(cls, **given)


def check_seed_room(parser: argparse.ArgumentParser, value: int, span: int, what: str) -> None:
    """Seeds value .. value + span are used (`what` says by which): all must stay <= SEED_MAX."""
    if value + span > SEED_MAX:
        parser.error(f"argument --seed: {value} leaves no room for {what} (seeds up to seed + {span} are used, "
                     f"and seeds end at {SEED_MAX}): give at most {SEED_MAX - span}")
