"""How numba's threads live beside other thread pools in the process, chosen once when quando_env is imported.

numba's default threading layer on Linux is OpenMP. torch loads its own libgomp globally, and numba's parallel
kernels then run on that runtime, which read its settings when torch was imported: its idle threads spin
between kernels, and a batched env loop beside other processes ran 8x slower with torch imported first (alone on
an idle machine spinning threads are faster: docs/speed.md has both). So:

- a user's own NUMBA_THREADING_LAYER, or a layer numba has started already, is kept;
- if an OpenMP runtime is already loaded and OMP_WAIT_POLICY was not given, numba's threads use the
  `workqueue` layer (plain threads that sleep when idle), since no setting reaches that runtime any more;
- otherwise OpenMP with OMP_WAIT_POLICY=PASSIVE (idle threads sleep rather than spin beside torch). Threads that
  spin 20,000 times before they sleep (GOMP_SPINCOUNT) stepped Help!'s two-thread batches 1.5x faster on two idle
  cores, and Cabo's and Help!'s 3-9x slower on a busy 2-core machine (docs/speed.md): spinning is left to a user
  who owns the machine.

Each parallel kernel call wakes numba's sleeping threads; workqueue's wake slowly (a condition variable), so on that
layer batches run threaded only from WORKQUEUE_MIN_GAMES games (`min_parallel_games`): at 256 games two threads
stepped the SB3 VecEnv 1.4x slower than one on an idle machine.

The workqueue layer aborts the process when two Python threads launch parallel kernels at once, so every parallel
kernel of the package runs under `LOCK` (`serialized`); a batch already uses every thread numba has.
"""
import os
import sys
import threading
from types import SimpleNamespace

LOCK = threading.Lock()
OPENMP_LIBRARIES = ("libgomp", "libiomp", "libomp")
WORKQUEUE_MIN_GAMES = 1024


def min_parallel_games(default: int) -> int:
    """The smallest batch that runs threaded on numba's chosen layer (`default` unless it is workqueue)."""
    import numba
    return WORKQUEUE_MIN_GAMES if numba.config.THREADING_LAYER == "workqueue" else default


def openmp_loaded() -> bool:
    """Whether an OpenMP runtime is already mapped into this process (torch imported first loads one)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            return any(lib in line for line in f for lib in OPENMP_LIBRARIES)
    except OSError:          # no /proc (macOS, Windows): torch is the usual one
        return "torch" in sys.modules


def choose_layer() -> str:
    """Pick numba's threading layer as the module docstring says; returns what was decided, for the docs and
    tests: 'user', 'started', 'workqueue' or 'omp-passive'."""
    import numba
    from numba.np.ufunc import parallel

    if os.environ.get("NUMBA_THREADING_LAYER"):
        return "user"
    if getattr(parallel, "_is_initialized", False):    # numba's private flag: a missing one must not break import
        return "started"
    if "OMP_WAIT_POLICY" not in os.environ and openmp_loaded():
        numba.config.THREADING_LAYER = "workqueue"
        return "workqueue"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return "omp-passive"


def serialized(kernels):
    """The same kernels, each called under LOCK (for a game's parallel kernels)."""
    def locked(fn):
        def call(*args):
            with LOCK:
                return fn(*args)
        call.__name__ = getattr(fn, "__name__", "kernel")
        return call
    return SimpleNamespace(**{name: locked(fn) for name, fn in vars(kernels).items()})
