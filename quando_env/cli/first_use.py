"""The notice `demo`, `play` and the browser front end print before they compile a game's kernels with a cold
numba cache (`python -m quando_env warmup` compiles them ahead; quando_env.cli.warmup tells how).

Whether the cache is cold is read from numba's cache index of the game's kernels (a private part of numba,
so when it cannot be read the notice states the expected time instead)."""
from ..registry import game_class

FIRST_USE = "30-60 s"    # measured cold: warmup took 47, 27 and 34 s for Quando, Cabo and Help! on the idle machine


def cold(name: str) -> bool | None:
    """Whether game `name`'s step or observe kernel, which every use of an env compiles, has no usable disk
    cache (None: numba's cache index is unreadable)."""
    used = game_class(name).kernels
    try:
        return any(not k._cache._cache_file._load_index() for k in (used.step, used.observe))
    except Exception:       # numba's cache layout is private and may change
        return None


def notice(name: str) -> None:
    """One line before a command compiles game `name`'s kernels with a cold cache."""
    state = cold(name)
    if state is not False:
        print(f"Compiling the {name} kernels for first use: {FIRST_USE}{'' if state else ' if not cached yet'}, once "
              "(cached on disk; `python -m quando_env warmup` compiles every game ahead).", flush=True)
