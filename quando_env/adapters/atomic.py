"""All or nothing: an adapter call that can fail after it began to change state (an opponent's act() that
raises or answers an illegal move, a forced setup refused after a seeded deal) puts back what it changed,
so a refused call leaves every observable as it was and the caller can simply retry.

Inputs are validated before anything changes; a snapshot covers what only fails halfway. Taking one
copies the engine's arrays as bytes (0.6 to 1.1 KB per game: a few microseconds, about 1% of a step).
"""
import _signal
import copy
import signal
from contextlib import contextmanager

import numpy as np

SIGINT = int(signal.SIGINT)
_DEFAULT = signal.default_int_handler

ENGINE = ("states", "masks", "rewards", "flags", "action_streams")   # everything a Game's calls change


class Snapshot:
    """`arrays` (as bytes: 10x faster than copying a structured array; restored in place, so views of them
    stay valid) and `values` (shallow copies, set back) of `obj`, as they are now."""

    def __init__(self, obj, arrays=(), values=()):
        self.obj = obj
        self.arrays = {n: getattr(obj, n).view(np.uint8).copy() for n in arrays}
        self.values = {n: copy.copy(getattr(obj, n)) for n in values}

    def restore(self) -> None:
        for n, v in self.arrays.items():
            getattr(self.obj, n).view(np.uint8)[...] = v
        for n, v in self.values.items():
            setattr(self.obj, n, v)


@contextmanager
def all_or_nothing(*snapshots: Snapshot):
    """`with all_or_nothing(snapshot, ...):` restores every snapshot if the block raises (Ctrl-C included)."""
    try:
        yield
    except BaseException:
        for s in snapshots:
            s.restore()
        raise


class uninterrupted:
    """`with uninterrupted():` holds Ctrl-C (SIGINT, when Python's own handler is installed, in the main thread)
    until the block ends, then raises KeyboardInterrupt: for a block that changes several things that must stay
    consistent (the engine's step and the game record), where undoing would cost more than finishing. (It uses
    _signal, the C module under `signal`, whose enum conversions cost 3 µs a call, and learns that it runs
    outside the main thread from the handler's refusal: this runs every AEC step.)"""

    __slots__ = ("held", "active")

    def __enter__(self):
        self.held = []
        self.active = _signal.getsignal(SIGINT) is _DEFAULT
        if self.active:
            try:
                _signal.signal(SIGINT, self._hold)
            except ValueError:      # not the main thread: only the main thread runs Python's signal handlers
                self.active = False

    def _hold(self, signum, frame):
        self.held.append(signum)

    def __exit__(self, *exc):
        if self.active:
            _signal.signal(SIGINT, _DEFAULT)
            if self.held and exc[0] is None:
                raise KeyboardInterrupt
