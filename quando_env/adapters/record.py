"""Game records: everything needed to replay a game exactly, and the proof that a replay is that game, as JSON.

A record holds the game's format tag, the config, each round's setup (the game's `round_setup`: for
Quando the deck and dealer), every in-round reshuffle (the only randomness inside a round), the actions,
the result once the game is over, and (format version 2 on) a proof: per round the number of actions, the
round's points and the totals after it (null while unfinished) and a digest of the game so far. Replaying
forces the setups and reshuffles into a game of one, checks every action against the mask, and compares
each round with its proof as the round ends, so a record that does not reproduce its game fails naming
the round (and its steps) where the record and the replay diverged.

The digest is a SHA-256 hash chain over the record's config, each round's setup, and per decision the action,
the reshuffle it caused, then the seat to move and its legal moves (or, at a round's end, the round's
points and totals): canonical JSON and little-endian integers, so it is the same on every machine and
numpy version. It covers the record's own content (any change to it shows) and what the rules made of it
(who decided, among which moves, with which results); it does not hash the engine's state record (whose
random stream and stale pile tails differ between a game and its replay) nor an observation encoding
(which may change between versions while the game stays the same). The digest proves consistency, not
authorship: whoever edits a record can recompute it. `seed` and `players` are notes the proof leaves out.

A Recorder takes each step down as it is played (the action, the seat to move and its mask; a round's end, a
reshuffle, the next deal) and hashes it into the digest when the record is read, so recording costs an AEC
step about a microsecond and the proof of a record nobody reads is never computed.
"""
import functools
import hashlib
import json
import struct

import numpy as np

from ..checks import SEED_MAX, as_int, is_int, need, shown
from ..episode import F_ROUND_OVER, F_TERMINATED, F_TRUNCATED, NUM_FLAGS
from ..options import make_config
from ..files import read_json, write_text

PROOF_SINCE = 2                 # records of a format version below this carry no proof
MAX_RECORD_BYTES = 4 * 2**20    # a record file larger than this is refused unread (see load)
FIELDS = ("format", "config", "seed", "rounds", "reshuffles", "actions", "result", "proof", "players")


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _ints(values) -> bytes:
    return b"".join(int(v).to_bytes(8, "little", signed=True) for v in values)


_PAIR = struct.Struct("<qq")    # two integers as _ints writes them
_NO_FLAGS = bytes(NUM_FLAGS)    # a step that ended nothing (an error flag raised before the recorder sees it)


def round_event(setup: dict, seat: int, mask: np.ndarray) -> list:
    """The proof's event for a round's start: its setup, then the seat to move and its legal moves."""
    return [setup, _ints([seat]) + mask.tobytes()]     # masks are uint8


def step_event(action: int, reshuffle: dict | None, seat: int, mask: np.ndarray, result=None):
    """The proof's event for one decision: its action and the reshuffle it caused, then the seat to move and
    its legal moves, or, when the round ended (`result` = (points, totals)), the round's points and totals.
    Records and replays both build their events here (see `game_event`) and feed them to `Digest.take`.
    The commonest event (no reshuffle, the round goes on) is a tuple, which `take` hashes without joining."""
    if reshuffle is None and result is None:
        return (action, seat, mask.tobytes())
    shuffled = b"" if reshuffle is None else _canonical(reshuffle)      # as it is now, whatever changes it later
    after = _ints([seat]) + mask.tobytes() if result is None else _ints(result[0]) + _ints(result[1])
    return [_ints([action]), shuffled, after]


def game_event(game, action: int, reshuffle: dict | None, round_over: bool):
    """`step_event` for the step just taken in game 0 of `game`."""
    result = (game.round_points[0].tolist(), game.totals[0].tolist()) if round_over else None
    return step_event(action, reshuffle, game.states[0]["cur"].item(), game.masks[0], result)


class Digest:
    """The running digest of a record's proof (see the module docstring), fed the events `round_event` and
    `step_event` build. A hash chain (each event hashed with the digest so far), so it is 32 bytes that copy
    and pickle with the env that records."""

    def __init__(self, config: dict, value: bytes | None = None):
        self.value = hashlib.sha256(_canonical(config)).digest() if value is None else value

    def take(self, events: list) -> None:
        """Events fed in order, each one `round_event` or `step_event` built, or a proof entry (a dict), which
        gets the digest so far."""
        value, sha256, pack = self.value, hashlib.sha256, _PAIR.pack
        for event in events:
            kind = type(event)
            if kind is tuple:
                value = sha256(value + pack(event[0], event[1]) + event[2]).digest()
            elif kind is list:
                value = sha256(value + b"".join(p if type(p) is bytes else _canonical(p) for p in event)).digest()
            else:
                event["digest"] = value.hex()
        self.value = value

    def hexdigest(self) -> str:
        return self.value.hex()


class Recorder:
    """Follows game 0 of a game of one (autoreset off) and writes down what a replay needs, and its proof.
    `record` is complete and proven whenever it is read (a game left early saves what was played). A step
    only takes down its action and the decision it led to (or the reshuffle, the round's result and the
    next deal); the proof's digest takes them in when the record is read, so that recording costs a step
    about a microsecond and hashing is paid only for records that are read."""

    _VIEWS = ("_flags", "_cur", "_shuffles_now", "_mask")

    def __init__(self, game, seed=None):
        self.game = game
        items, start = _config_start(game.config)
        config = dict(items)
        self.digest = Digest(config, start)
        self._record = {"format": game.record_format, "config": config,
                        "seed": None if seed is None else int(seed), "rounds": [], "reshuffles": [],
                        "actions": [], "proof": []}
        self._pending = []      # events the digest has not taken in yet (Digest.take)
        self._views()
        self._shuffles = self._shuffles_now.item(0)
        self._round_starts()

    def _views(self) -> None:
        """Views of game 0's flags, seat to move, reshuffle count and mask (read at every step)."""
        g = self.game
        self._flags, self._cur, self._shuffles_now, self._mask = g.flags[0], g.states["cur"], g.states["shuffles"], \
            g.masks[0]

    def __getstate__(self):
        """Copies and pickles keep the game, not views of it (a pickled view would be a copy)."""
        state = self.__dict__.copy()
        for name in self._VIEWS:
            del state[name]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._views()

    @property
    def record(self) -> dict:
        """The record so far, its proof up to date."""
        if self._pending:
            self.digest.take(self._pending)
            self._pending.clear()
            entry = self._record["proof"][-1]
            if entry["points"] is None:
                entry["actions"] = len(self._record["actions"]) - self._first
            entry["digest"] = self.digest.hexdigest()
        return self._record

    def _round_starts(self) -> None:
        setup = self.game.round_setup(0)
        entry = {"actions": 0, "points": None, "totals": None, "digest": None}
        self._record["rounds"].append(setup)
        self._record["proof"].append(entry)
        self._first = len(self._record["actions"])       # the round's first step
        self._pending += (round_event(setup, self._cur.item(0), self._mask), entry)

    def after_step(self, action: int) -> None:
        """Note the action just taken (a Python int: the AEC step's hot path converts nothing), and the reshuffle,
        round's end or game's end it caused."""
        self._record["actions"].append(action)
        if self._flags.tobytes() == _NO_FLAGS and self._shuffles_now.item(0) == self._shuffles:
            self._pending.append((action, self._cur.item(0), self._mask.tobytes()))    # step_event's, inlined
        else:
            self._event(action)

    def _event(self, action: int) -> None:
        game, record = self.game, self._record
        flags = self._flags.tolist()
        reshuffle = None
        shuffles = self._shuffles_now.item(0)
        if shuffles > self._shuffles:
            self._shuffles = shuffles
            reshuffle = {"step": len(record["actions"]) - 1, **game.reshuffle_record(0)}
            record["reshuffles"].append(reshuffle)
        round_over = flags[F_ROUND_OVER]
        self._pending.append(game_event(game, action, reshuffle, round_over))
        if round_over:
            entry = record["proof"][-1]
            entry["actions"] = len(record["actions"]) - self._first
            entry["points"] = game.round_points[0].tolist()
            entry["totals"] = game.totals[0].tolist()
            self._pending.append(entry)
        ended = flags[F_TERMINATED] or flags[F_TRUNCATED]
        if round_over and not ended:
            self._round_starts()
        if ended:
            record["result"] = {"totals": game.totals[0].tolist(), "terminated": bool(flags[F_TERMINATED]),
                                "truncated": bool(flags[F_TRUNCATED])}


@functools.lru_cache(maxsize=64)
def _config_start(config) -> tuple[tuple, bytes]:
    """A config's options as (name, value) pairs (plain immutable values) and the digest they start."""
    d = config.to_dict()
    return tuple(d.items()), Digest(d).value


def save(record: dict, path, follow_symlinks: bool = True) -> None:
    """Write a record as JSON. ValueError naming the path if it cannot be written, and nothing is written
    when the record is not a well-formed record (`check`) or not JSON. follow_symlinks=False: a symlink at
    `path` is replaced, not written through."""
    check(record)
    try:
        text = json.dumps(record, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        raise ValueError(f"the game record cannot be written as JSON: {e}") from None
    try:
        write_text(path, text, follow_symlinks)     # a temporary file renamed: a failed write keeps the old file
    except OSError as e:
        raise ValueError(f"cannot write the game record to {path}: {e.strerror or e}") from None


def load(path, max_bytes: int = MAX_RECORD_BYTES) -> dict:
    """Read a saved record and check its fields (`check`). ValueError, naming the file, if it cannot be
    read, is larger than max_bytes (MAX_RECORD_BYTES, 4 MiB, by default: the largest record of a game that ran
    to its default max_steps measured 231 kB, Cabo with 2 players and 520 rounds; parsing 4 MiB of JSON takes
    at most about 110 MB; a game played with a far larger max_steps can write more: raise max_bytes to read
    it), is not JSON, or is not a well-formed record."""
    record = read_json(path, "game record", as_int(max_bytes, "max_bytes", 1))
    try:
        check(record)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return record


def formats() -> dict:
    """Every record format replayed -> (game class, whether it carries a proof): each game's own and its
    earlier versions."""
    from ..registry import game_classes

    out = {}
    for cls in game_classes():
        tag, version = cls.record_format.rsplit("/", 1)
        for v in range(1, int(version) + 1):
            out[f"{tag}/{v}"] = (cls, v >= PROOF_SINCE)
    return out


def game_class_of(record):
    """The game class whose record format the record has, or a ValueError naming the formats known."""
    return _format_of(record)[0]


def _format_of(record):
    known = formats()
    if not isinstance(record, dict) or not isinstance(record.get("format"), str) or record["format"] not in known:
        raise ValueError("not a game record: expected a JSON object with format "
                         + " or ".join(repr(f) for f in known))
    return known[record["format"]]


def _ints_list(x, n: int) -> bool:
    return isinstance(x, list) and len(x) == n and all(is_int(v) for v in x)


def check(record) -> tuple:
    """Check a record's fields and shapes before anything is replayed: ValueError naming the first field
    that is wrong. Returns (game class, proven: whether the record carries a proof). Deals,
    reshuffled piles and actions are checked against the rules by `replay`."""
    cls, proven = _format_of(record)
    unknown = sorted(set(record) - (set(FIELDS) if proven else set(FIELDS) - {"proof"}))
    if unknown:
        raise ValueError(f"game record has unknown field(s) {unknown} for its format {record['format']!r}")
    for key, kind in (("config", dict), ("rounds", list), ("reshuffles", list), ("actions", list)) \
            + ((("proof", list),) if proven else ()):
        if key not in record:
            raise ValueError(f"game record has no {key!r}")
        if not isinstance(record[key], kind):
            raise ValueError(f"game record's {key!r} must be a JSON {'object' if kind is dict else 'list'}, "
                             f"got {type(record[key]).__name__}")
    result = record.get("result")
    if result is not None and not isinstance(result, dict):
        raise ValueError(f"game record's 'result' must be a JSON object, got {type(result).__name__}")
    try:
        config = make_config(cls.config_class, **record["config"])
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"game record's config: {e}") from None
    n = config.num_players
    seed = record.get("seed")
    need(seed is None or (is_int(seed) and 0 <= seed <= SEED_MAX), f"game record's seed={shown(seed)}",
         f"null or an integer 0..{SEED_MAX}")
    players = record.get("players")
    need(players is None or (isinstance(players, list) and len(players) == n and all(isinstance(p, str)
                                                                                      for p in players)),
         f"game record's players={shown(players)}", f"a list of {n} names")
    rounds, actions = record["rounds"], record["actions"]
    if not rounds:
        raise ValueError("game record has no rounds")
    most = cls.max_decisions(config)
    need(len(actions) <= most, f"game record's {len(actions)} actions", f"at most {most} (the config's max_steps)")
    need(len(rounds) <= len(actions) + 1, f"game record's {len(rounds)} rounds",
         f"at most one more than its {len(actions)} actions")
    for r, setup in enumerate(rounds):
        if not isinstance(setup, dict) or set(setup) != set(cls.setup_keys):
            raise ValueError(f"round {r} of the record has no valid setup: it needs exactly {list(cls.setup_keys)}")
    for i, entry in enumerate(record["reshuffles"]):
        need(isinstance(entry, dict) and is_int(entry.get("step")) and entry["step"] >= 0,
             f"game record's reshuffles[{i}]={shown(entry)}", "an object with the step (an integer >= 0)")
    if result is not None:
        need(set(result) == {"totals", "terminated", "truncated"} and _ints_list(result["totals"], n)
             and isinstance(result["terminated"], bool) and isinstance(result["truncated"], bool)
             and not (result["terminated"] and result["truncated"]),
             f"game record's result={shown(result)}",
             f"an object with totals ({n} integers), terminated and truncated (true or false, not both)")
    if proven:
        _check_proof(record["proof"], len(rounds), n)
    return cls, proven


def _check_proof(proof, num_rounds: int, n: int) -> None:
    need(len(proof) == num_rounds, f"game record's proof of {len(proof)} rounds",
         f"one entry per round of the record ({num_rounds})")
    for r, entry in enumerate(proof):
        field = f"game record's proof[{r}]"
        need(isinstance(entry, dict) and set(entry) == {"actions", "points", "totals", "digest"},
             f"{field}={shown(entry)}", "an object with actions, points, totals and digest")
        need(is_int(entry["actions"]) and entry["actions"] >= 0, f"{field}.actions={shown(entry['actions'])}",
             "an integer >= 0")
        finished = entry["points"] is not None
        for key in ("points", "totals"):
            need(_ints_list(entry[key], n) if finished or r < num_rounds - 1 else entry[key] is None,
                 f"{field}.{key}={shown(entry[key])}",
                 f"{n} integers" + ("" if r < num_rounds - 1 else ", or null for both while the round is unfinished"))
        digest = entry["digest"]
        need(isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest),
             f"{field}.digest={shown(digest)}", "64 lowercase hexadecimal digits (SHA-256)")


def verify(record: dict, each=None, position=None) -> bool:
    """Replay a whole record, calling each(step, seat, action, game) after every action and position(step,
    game) at every position (see `replay`) if given (ValueError where it fails). True: the record's proof
    showed the replay is the recorded game; False: the record (format version 1) carries no proof, so only
    its actions' legality and its final totals were checked."""
    steps = replay(record, position)
    while True:
        try:
            step = next(steps)
        except StopIteration as done:
            return done.value
        if each is not None:
            each(*step)


def replay(record: dict, position=None):
    """Replay a record; yields (step, seat, action, game) after each action, and returns (the generator's
    value) whether the record's proof was checked. position(step, game), if given, sees the game at every
    position: before action `step` is taken (once it is known to be legal), and after the last action (step =
    the number of actions), so a viewer can show the table and name the move in its context. Raises
    ValueError on the first inconsistency: a field that is wrong, a bad setup, an illegal action at step k,
    a round whose result or digest differs from the record's proof (naming the round and its steps), a final
    result that differs."""
    walk = _Replay(record)
    for k, a in enumerate(walk.actions):
        seat = walk.before(k, a)
        if position is not None:
            position(k, walk.game)
        walk.take(k, a)
        yield k, seat, a, walk.game
    if position is not None:
        position(len(walk.actions), walk.game)
    walk.finish()
    return walk.proven


class _Replay:
    """A record replayed step by step into a game of one: `before` checks an action (and forces the record's
    next reshuffle into the game), `take` plays it and checks what it led to against the record and its
    proof, `finish` checks the record's end."""

    def __init__(self, record: dict):
        cls, self.proven = check(record)
        self.rounds, self.shuffles, self.actions = record["rounds"], record["reshuffles"], record["actions"]
        self.proof, self.result = record.get("proof"), record.get("result")
        try:
            self.game = cls(1, seed=0, autoreset=False, **record["config"])
        except (TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"game record's config: {e}") from None
        self.digest = Digest(record["config"]) if self.proven else None
        self.round, self.first = 0, 0                 # the round being played and its first step
        self.next_shuffle, self.armed = 0, -1         # the record's next reshuffle, and the one forced into the game
        self._action = np.zeros(1, np.int64)
        self._start_round(first=True)

    def _start_round(self, first: bool = False) -> None:
        start_round(self.game, self.rounds, self.round, first)
        if self.proven:
            self.digest.take([round_event(self.rounds[self.round], self.game.states[0]["cur"].item(),
                                          self.game.masks[0])])

    def before(self, k: int, a) -> int:
        """Check action k (a) before it is taken; the seat that takes it."""
        game, left = self.game, len(self.actions) - k
        if game.current_player[0] < 0:
            raise ValueError(f"step {k}: the game is already over, but the record has {left} more actions")
        n = self.next_shuffle
        if n < len(self.shuffles) and self.armed != n:   # it stays forced until the game reshuffles
            try:
                game.force_reshuffle(0, self.shuffles[n])
            except ValueError as e:
                raise ValueError(f"reshuffle {n} of the record is {e}") from None
            self.armed = n
        entry = self.proof[self.round] if self.proven else None
        if entry is not None and k - self.first == entry["actions"] and entry["points"] is None:
            raise ValueError(f"step {k}: the record's proof leaves round {self.round} unfinished after step {k - 1}, "
                             f"but the record has {left} more actions")
        seat = int(game.current_player[0])
        if type(a) is not int or not 0 <= a < game.num_actions or not game.masks[0, a]:
            legal = ", ".join(f"{x} ({game.action_name(x)})" for x in np.flatnonzero(game.masks[0]))
            raise ValueError(f"step {k}: action {shown(a)} of player_{seat} is illegal; legal were: {legal}")
        return seat

    def take(self, k: int, a: int) -> None:
        """Take action k (a, checked by `before`) and check the reshuffle, round's end and proof it leads to."""
        game = self.game
        self._action[0] = a
        try:
            game.step(self._action, checked=True)
        except ValueError as e:
            raise ValueError(f"step {k}: reshuffle {self.next_shuffle} of the record: {e}") from None
        reshuffle = self._reshuffle(k)
        round_over = bool(game.round_over[0])
        last = k + 1 == len(self.actions)
        if self.proven:
            entry = self.proof[self.round]
            self.digest.take([game_event(game, a, reshuffle, round_over)])
            if round_over or last or k + 1 - self.first == entry["actions"]:
                _compare_round(game, entry, self.round, self.first, k, round_over, self.digest, last)
        if round_over and not (game.game_over[0] or game.truncated[0]):
            if self.round + 1 >= len(self.rounds):
                raise ValueError(f"step {k}: round {self.round + 1} starts, but the record has only "
                                 f"{len(self.rounds)} rounds")
            self.round, self.first = self.round + 1, k + 1
            self._start_round()

    def _reshuffle(self, k: int) -> dict | None:
        """The record's reshuffle that step k caused, if the game reshuffled (ValueError if the record has
        no reshuffle at step k)."""
        n, shuffles = self.next_shuffle, self.shuffles
        if self.game.reshuffles(0) <= n:
            return None
        if n >= len(shuffles) or shuffles[n]["step"] != k:
            raise ValueError(f"step {k}: the discard pile was reshuffled here, but the record's next "
                             f"reshuffle is {'missing' if n >= len(shuffles) else 'at another step'}")
        self.next_shuffle += 1
        return shuffles[n]

    def finish(self) -> None:
        """Check the record's end: its last round's deal, its rounds and reshuffles all used, its result."""
        game, r, steps = self.game, self.round, len(self.actions)
        if self.proven and self.first == steps:     # the last round has no steps yet: its deal is proven
            _compare_round(game, self.proof[r], r, self.first, self.first - 1, False, self.digest, True)
        if r + 1 != len(self.rounds) or self.next_shuffle != len(self.shuffles):
            raise ValueError(f"after step {steps - 1}: the record has {len(self.rounds)} rounds and "
                             f"{len(self.shuffles)} reshuffles, but its actions reach {r + 1} rounds and "
                             f"{self.next_shuffle} reshuffles")
        result = self.result
        if result is None and game.current_player[0] < 0:
            raise ValueError(f"the game is over after step {steps - 1}, but the record has no result")
        if result is not None:
            over = {"terminated": bool(game.game_over[0]), "truncated": bool(game.truncated[0])}
            claimed = {k: result[k] for k in over}
            if claimed != over:
                raise ValueError(f"the record's result says {claimed}, but its actions end with {over}: "
                                 f"actions are missing or the result is wrong")
            if result["totals"] != [int(x) for x in game.totals[0]]:
                raise ValueError(f"the record's final totals {result['totals']} differ from the replay's "
                                 f"{[int(x) for x in game.totals[0]]}")


def _compare_round(game, entry, r, first, k, round_over, digest, last) -> None:
    """Round r (steps first..k; `last`: k is the record's last action) against its entry of the proof:
    where it ends, its points and totals, its digest."""
    where = f"round {r} (steps {first}..{k})" if k >= first else f"round {r} (no steps)"
    end = first + entry["actions"] - 1
    finished = entry["points"] is not None
    if round_over != finished or k != end:
        if last and not round_over and k < end:
            raise ValueError(f"{where}: the record's actions end {f'at step {k}' if k >= 0 else 'before step 0'}, "
                             f"but its proof has round {r} go on to step {end}: actions are missing")
        replayed = f"ends at step {k}" if round_over else f"goes on after step {k}"
        recorded = f"ends at step {end}" if finished else f"is unfinished after step {end}"
        raise ValueError(f"{where}: the replay's round {replayed}, but the record's proof says it {recorded}: "
                         f"the record and its replay diverged in this round")
    if round_over:
        got = {"points": [int(x) for x in game.round_points[0]], "totals": [int(x) for x in game.totals[0]]}
        said = {"points": entry["points"], "totals": entry["totals"]}
        if got != said:
            raise ValueError(f"{where}: the replay's round ends with {got}, but the record's proof says {said}: "
                             f"the record and its replay diverged in this round")
    if digest.hexdigest() != entry["digest"]:
        raise ValueError(f"{where}: the replay's digest differs from the record's proof: the record's config, "
                         f"this round's setup, reshuffles or actions, or its digest were changed, or the replay "
                         f"diverged in this round")


def start_round(game, rounds, r, first=False):
    """Force round r's recorded setup into game 0: the first round by reset, later ones by redeal."""
    setup = rounds[r]
    try:
        if first:
            game.reset(games=[0], **setup)
        else:
            game.redeal(0, **setup)
    except (TypeError, ValueError, OverflowError) as e:   # redeal's own complaints name the record already
        raise ValueError(f"round {r}{'' if str(e).startswith('the record') else ' of the record'}: {e}") from None
