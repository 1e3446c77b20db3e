"""Every game's batched engine gives the same games, rewards and observations with 1 thread or all of them,
and whether a batch takes the serial or the parallel kernels (quando_env.core.PARALLEL_MIN_GAMES)."""
import numba
import numpy as np
import pytest

from quando_env.core import PARALLEL_MIN_GAMES
from quando_env.registry import game_class, game_names


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
    one, two = (trajectory(cls, 4 * PARALLEL_MIN_GAMES, t) for t in (1, 2))
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", game_names())
def test_serial_and_parallel_kernels_play_the_same_games(name):
    """Game i of a large batch (parallel kernels) is the game a batch of one seeded seed + i plays (serial)."""
    cls = game_class(name)
    big = trajectory(cls, PARALLEL_MIN_GAMES, 2)
    for i in (0, PARALLEL_MIN_GAMES - 1):
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
    code = "import os, agents.learner; print(os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected


def test_a_learner_lowers_numba_threads_before_its_first_batch(monkeypatch):
    """A learner of 1 thread never starts numba's thread team (its spinning slowed training 8x on a loaded
    machine): the thread count is set before the games are made."""
    from agents.learner import Hyper, Learner

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
