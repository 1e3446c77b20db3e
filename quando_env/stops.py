"""What a command line's run does on a stop: SIGTERM (a scheduler's or kill's stop) raised as Ctrl-C is, so the
results finished by then are kept; and one run at a time per output folder."""
import contextlib
import fcntl
import os
import signal
import threading
from pathlib import Path


class Stopped(KeyboardInterrupt):
    """SIGTERM during a run: handled as Ctrl-C is (results kept, then exit status 143)."""


@contextlib.contextmanager
def sigterm_stops():
    """Within it, SIGTERM raises Stopped (a KeyboardInterrupt) in the main thread; it yields a list that records
    each SIGTERM (for the exit status, when a caller turned the Stopped into its own exception). The handler
    before it is restored after."""
    fired = []

    def stop(signum, frame):
        fired.append(signum)
        raise Stopped

    if threading.current_thread() is not threading.main_thread():
        yield fired
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield fired
    finally:
        signal.signal(signal.SIGTERM, previous)


def lock_folder(out: Path):
    """An open lock file on `out`/.lock held (flock, released when the process ends) so two runs never write
    into one folder; ValueError naming the folder when another run holds it. Keep the returned file open."""
    f = open(Path(out) / ".lock", "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise ValueError(f"another run is writing to {out} (it holds {Path(out) / '.lock'}): give another folder, or "
                         "wait until it ends") from None
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f
