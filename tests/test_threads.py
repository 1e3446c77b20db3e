"""Every game's batched engine gives the same games, rewards and observations with 1 thread or all of them,
and whether a batch takes the serial or the parallel kernels (quando_env.core.PARALLEL_MIN_GAMES)."""
import numba
import numpy as np
import pytest

from quando_env.core import PARALLEL_MIN_GAMES
from quando_env.registry import game_class, game_names
from quando_env.threads import min_parallel_games

THREADED = min_parallel_games(PARALLEL_MIN_GAMES)     # the smallest threaded batch on this session's layer


def trajectory(cls, num_games, threads, steps=60, seed=3):
    """Observations, masks, rewards and flags of random play (sample_actions, step, observe, play_random)."""
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        g = cls(num_games, seed=seed)
        out = []
        for k in range(steps):
            out += [g.observe(), g.legal_action_mask.copy(), g.step(g.sample_actions()), g.flags.copy()]
        auto = np.ones((num_games, g.num_players), bool)
        auto[:, 0] = False          # play everyone but seat 0 at random inside the engine
        out += [g.play_random(np.arange(num_games), auto), g.observe(players=np.zeros(num_games, np.int64))]
        return out
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("name", game_names())
def test_results_do_not_depend_on_the_thread_count(name):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.fail("this test needs numba to be allowed 2 threads (NUMBA_NUM_THREADS >= 2)")
    cls = game_class(name)
    one, two = (trajectory(cls, 4 * THREADED, t) for t in (1, 2))
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", game_names())
def test_serial_and_parallel_kernels_play_the_same_games(name):
    """Game i of a large batch (parallel kernels) is the game a batch of one seeded seed + i plays (serial)."""
    cls = game_class(name)
    big = trajectory(cls, THREADED, 2)
    for i in (0, THREADED - 1):
        small = trajectory(cls, 1, 2, seed=3 + i)
        for a, b in zip(big[:-2], small[:-2]):
            np.testing.assert_array_equal(a[i], b[0])


@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_importing_the_package_makes_openmp_threads_wait_passively_unless_told(preset, expected):
    """Idle OpenMP threads that spin starve torch in the same process (docs/speed.md): importing quando_env (and
    the agents package, which imports it before torch) sets OMP_WAIT_POLICY=PASSIVE, a user's own value kept."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    code = "import os, quando_env.training.learner; print(os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected


def test_a_learner_lowers_numba_threads_before_its_first_batch(monkeypatch):
    """A learner of 1 thread never starts numba's thread team (its spinning slowed training 8x on a loaded
    machine): the thread count is set before the games are made."""
    from quando_env.training.learner import Hyper, Learner

    cls, seen = game_class("help"), []
    make = cls.__init__
    monkeypatch.setattr(cls, "__init__", lambda self, *a, **k: (seen.append(numba.get_num_threads()),
                                                                 make(self, *a, **k))[1])
    before = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        Learner(Hyper(game="help", threads=1, num_games=8, rollout_steps=2))
    finally:
        numba.set_num_threads(before)
    assert seen == [1]


def run_python(code: str, **env_vars) -> str:
    """Run code in a fresh interpreter (threading choices are made once per process); its stdout."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER")}
    env.update(NUMBA_NUM_THREADS="2", **env_vars)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


LAYER = ("import numba, quando_env; g = quando_env.VectorGame(1024); g.step(g.sample_actions()); "  # threaded
         "print(quando_env.THREADING, numba.threading_layer())")


@pytest.mark.parametrize("first, env_vars, expected", [
    ("", {}, "omp-passive omp"),
    ("import torch; ", {}, "workqueue workqueue"),          # torch's OpenMP is loaded: keep numba off it
    ("import torch; ", {"OMP_WAIT_POLICY": "PASSIVE"}, "omp-passive omp"),   # the user's setting reached it
    ("import torch; ", {"NUMBA_THREADING_LAYER": "omp"}, "user omp"),
])
def test_numba_threads_stay_off_an_openmp_runtime_loaded_before_the_package(first, env_vars, expected):
    """torch imported first loads OpenMP with spinning idle threads, which numba's omp layer would share (a
    batched env loop ran 6x slower): the package then runs numba on its workqueue layer; a user's choice wins."""
    assert run_python(first + LAYER, **env_vars) == expected


def test_on_the_workqueue_layer_only_large_batches_run_threaded():
    """workqueue's sleeping threads wake slowly: the SB3 VecEnv's 256 games ran 1.4x faster serially there, so
    batches below quando_env.threads.WORKQUEUE_MIN_GAMES run serially on that layer (on OpenMP from 64 games)."""
    code = ("import torch, quando_env; g = quando_env.VectorGame(8); "
            "print(quando_env.THREADING, [g.kernels_for(k) is g.parallel_kernels for k in (64, 1023, 1024)])")
    assert run_python(code) == "workqueue [False, False, True]"
    assert run_python(code.replace("import torch, ", "import ")) == "omp-passive [True, True, True]"


CONCURRENT = """
import threading, numpy as np
import torch, quando_env, numba
from quando_env import threads
PLANT
def play(seed, out):
    g = quando_env.VectorGame(threads.WORKQUEUE_MIN_GAMES, seed=seed)     # threaded on workqueue
    for _ in range(40):
        g.step(g.sample_actions())
    out.append(g.observe())
alone, together = [], []
for s in (1, 2):
    play(s, alone)
workers = [threading.Thread(target=play, args=(s, together)) for s in (1, 2)]
[w.start() for w in workers]
[w.join() for w in workers]
together.sort(key=lambda o: any(np.array_equal(o, a) for a in alone[:1]), reverse=True)
print(numba.threading_layer(), all(np.array_equal(a, b) for a, b in zip(alone, together)))
"""


def test_two_python_threads_can_step_batches_at_once():
    """numba's workqueue layer aborts the process when two threads launch parallel kernels together: the
    package's parallel kernels take turns (quando_env.threads.LOCK)."""
    assert run_python(CONCURRENT.replace("PLANT", "")) == "workqueue True"


def test_without_the_lock_two_threads_abort_the_process():
    """The check above fails on a planted fault: the lock replaced by a no-op."""
    import os
    import subprocess
    import sys

    code = CONCURRENT.replace("PLANT", "import contextlib; threads.LOCK = contextlib.nullcontext()")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER")}
    out = subprocess.run([sys.executable, "-c", code], env={**env, "NUMBA_NUM_THREADS": "2"}, capture_output=True,
                         text=True)
    assert out.returncode != 0 and "workqueue" in out.stderr
