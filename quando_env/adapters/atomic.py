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


_held = False       # a Ctrl-C arrived while held (only the main thread runs Python's signal handlers)


def _hold(signum, frame):
    global _held
    _held = True


def hold() -> bool:
    """Hold Ctrl-C (SIGINT, when Python's own handler is installed, in the main thread) until `release`: for a
    block that changes several things that must stay consistent (the engine's step and the game record), where
    undoing would cost more than finishing. True if this call holds it (a nested hold does not); pass the answer
    to release. This runs every AEC step, so it uses _signal, the C module under `signal`, whose enum conversions
    cost 3 µs a call, learns that it runs outside the main thread from the handler's refusal, and is two plain
    calls: a context manager costs about half a microsecond more."""
    if _signal.getsignal(SIGINT) is not _DEFAULT:
        return False
    try:
        _signal.signal(SIGINT, _hold)
    except ValueError:      # not the main thread
        return False
    return True


def release(holding: bool, interrupt: bool = True) -> None:
    """End what hold() began (holding: its answer): Python's handler is back, and a Ctrl-C that arrived raises
    KeyboardInterrupt now (unless `interrupt` is false: the block is raising already)."""
    global _held
    if holding:
        _signal.signal(SIGINT, _DEFAULT)
        if _held:
            _held = False
            if interrupt:
                raise KeyboardInterrupt
