"""The notice the commands that play a game (`demo`, `play`, `serve`, `evaluate`, `train`) print before they compile
its kernels with a cold numba cache (`python -m quando_env warmup` compiles them ahead; quando_env.cli.warmup tells
how).

Whether the cache is cold is read from numba's cache index of the game's kernels, and of its heuristic agent's when
agents play (a private part of numba, so when it cannot be read the notice states the expected time instead)."""
from ..registry import game_class, game_spec

FIRST_USE = "30-60 s"    # measured cold: warmup took 47, 27 and 34 s for Quando, Cabo and Help! on the idle machine


def first_kernels(name: str, agents: bool = False) -> list:
    """The numba dispatchers every use of game `name` compiles first: its step and observe kernels, and with
    `agents` its heuristic's kernel (the heuristic, the greedy player and the ppo agent's hint run it)."""
    used = game_class(name).kernels
    found = [used.step, used.observe]
    if agents and game_spec(name).heuristic_kernel is not None:      # a game with a heuristic of its own
        found.append(game_spec(name).part("heuristic_kernel"))
    return found


def cold(name: str, agents: bool = False) -> bool | None:
    """Whether one of first_kernels(name, agents) has no usable disk cache (None: numba's cache index is
    unreadable). numba has no public way to ask whether a function's disk cache holds an entry, so this reads
    its cache index through private names, and says None where they changed."""
    try:
        return any(not k._cache._cache_file._load_index() for k in first_kernels(name, agents))
    except Exception:       # numba's cache layout is private and may change
        return None


def notice(name: str, agents: bool = False) -> None:
    """One line before a command compiles game `name`'s kernels (with `agents`: its heuristic's too) with a cold
    cache."""
    state = cold(name, agents)
    if state is not False:
        print(f"Compiling the {name} kernels for first use: {FIRST_USE}{'' if state else ' if not cached yet'}, once "
              "(cached on disk; `python -m quando_env warmup` compiles every game ahead).", flush=True)
