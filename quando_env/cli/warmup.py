"""Numba compiles the games' kernels on first use, 30-60 s per game on an idle 2-core machine (FIRST_USE; minutes on
a busy one), and caches them on disk (`cache=True`:
beside the sources, or in NUMBA_CACHE_DIR), so later runs load them in about a second.
`python -m quando_env warmup` pays that cost ahead for every game; `demo`, `play`, `serve`, `evaluate` and `train`
say so before they compile with a cold cache (quando_env.cli.first_use)."""
import sys
import time
from types import ModuleType

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from ..core import PARALLEL_MIN_GAMES
from ..registry import game_class, game_module, game_names, game_spec
from ..threads import min_parallel_games
from .first_use import FIRST_USE, cold, notice  # noqa: F401 (cold and notice: also called by these names here)
from ..opponents import PlayError, make_opponent

AGENTS = ("greedy", "heuristic", "rollout", "learned")   # every game's own agents, the search, the shipped model
SEARCHED = 20                                   # decisions the rollout search is asked at


def kernels(prefixes) -> list:
    """The numba dispatchers of the loaded modules whose names start with one of `prefixes`."""
    found = {}
    for name, module in list(sys.modules.items()):
        if isinstance(module, ModuleType) and name.startswith(prefixes):
            found.update((id(v), v) for v in vars(module).values() if isinstance(v, Dispatcher))
    return list(found.values())


def kernel_modules(name: str) -> tuple[str, ...]:
    """The prefixes of the names of the modules holding game `name`'s kernels, as its spec names them: its engine's
    package (a top-level engine module: its own name) and its agents package."""
    spec = game_spec(name)
    engine = spec.engine.partition(":")[0]
    package = engine.rpartition(".")[0]
    return (f"{package}." if package else engine,) + ((f"{spec.agents}.",) if spec.agents else ())


def _counts(found) -> tuple[int, int]:
    """(signatures loaded from the disk cache, signatures compiled) so far by these dispatchers."""
    return (sum(sum(k.stats.cache_hits.values()) for k in found),
            sum(sum(k.stats.cache_misses.values()) for k in found))


def _play(name: str) -> None:
    """What the envs and agents run: one game in the AEC env with the agents asked at each decision (the slow
    rollout search only at the first SEARCHED), and a batch of random games (the vector envs' and
    evaluations' kernels)."""
    env = game_module(name).raw_env()
    env.reset(seed=0)
    try:
        agents = [make_opponent(a, 1, 0, env.game) for a in AGENTS]
    except PlayError:       # the agents package is not installed: the envs' kernels only
        agents = []
    asked = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        chosen = [a.act(obs["observation"], obs["action_mask"]) for a in agents[:3 if asked < SEARCHED else 2]]
        asked += 1
        env.step(int(chosen[0]) if chosen else int(np.flatnonzero(obs["action_mask"])[0]))
    size = min_parallel_games(PARALLEL_MIN_GAMES)      # a batch that runs the threaded kernels
    batch = game_class(name)(size, seed=0)
    batch.play_random(None, np.ones((size, batch.num_players), bool))
    batch.observe()
    batch.state()
    if batch.action_feature_parts is not None:      # move features, batched and one game at a time
        batch.action_features()
        batch.action_features(games=[0])
        type(batch).action_features_of(batch.observe(games=[0]), batch.config)


def warmup() -> int:
    """Compile (or load from the disk cache) every game's kernels; one line per game with the time taken."""
    print(f"Compiling every game's numba kernels (each game {FIRST_USE} the first time, seconds once cached):",
          flush=True)
    threads = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)    # the threaded kernels too, whoever lowered the count
    try:
        for name in game_names():
            start = time.perf_counter()
            _play(name)
            seconds = time.perf_counter() - start
            loaded, compiled = _counts(kernels(kernel_modules(name)))
            state = f"compiled {compiled} kernel signatures, now cached" if compiled else \
                f"cached: {loaded} kernel signatures loaded from the disk cache" if loaded else "cached: already loaded"
            print(f"  {name}: {state} ({seconds:.1f} s)", flush=True)
    finally:
        numba.set_num_threads(threads)
    return 0
