"""Learner steps per second of the training environments, against SB3's DummyVecEnv over single envs.

    python benchmarks/bench_training_envs.py [--seconds 3] [--players 4]

Every row plays random legal learner actions against "random" opponents (4 players, whole games) and times
only the environment: the step call and the action-mask query an algorithm like MaskablePPO makes each step.
The ratio column compares each row with DummyVecEnv over 256 `Quando-v0` envs measured in the same run;
the batched envs run once on 1 numba thread and once on all of them. Steps per CPU-second (this process's
CPU time, all threads) show what a quiet machine gives when others share the cores.
"""
import argparse
import time

import gymnasium as gym
import numba
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

import quando_env


def random_legal(rng, masks):
    """A uniformly random legal action per row (computed outside the timed part)."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


class Clock:
    """Wall and CPU time spent inside `with clock:` blocks, and the learner steps counted."""

    def __init__(self):
        self.wall = self.cpu = 0.0
        self.steps = 0
        self.start = time.perf_counter()

    def __enter__(self):
        self.t = time.perf_counter(), time.process_time()

    def __exit__(self, *exc):
        self.wall += time.perf_counter() - self.t[0]
        self.cpu += time.process_time() - self.t[1]

    def running(self, seconds) -> bool:
        return time.perf_counter() - self.start < seconds or self.steps == 0

    def rates(self) -> tuple[float, float]:
        """(learner steps per second, per CPU-second)."""
        return self.steps / self.wall, self.steps / self.cpu


def time_sb3(venv, seconds, seed=0):
    """Learner steps/s of an SB3 VecEnv: masks via env_method("action_masks"), then step."""
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    venv.reset()
    clock = Clock()
    while clock.running(seconds):
        with clock:
            masks = np.stack(venv.env_method("action_masks"))
        actions = random_legal(rng, masks)
        with clock:
            venv.step(actions)
        clock.steps += venv.num_envs
    return clock.rates()


def time_gym_vector(envs, seconds, seed=0):
    """Learner steps/s of a Gymnasium VectorEnv: masks from info["action_mask"]."""
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    clock = Clock()
    while clock.running(seconds):
        actions = random_legal(rng, info["action_mask"].astype(bool))
        with clock:
            _, _, _, _, info = envs.step(actions)
        clock.steps += envs.num_envs
    return clock.rates()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per row (default 3)")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    rules = {"num_players": args.players}
    quando_env.make_vec_env(2, **rules).reset()    # compile the numba kernels before timing anything

    rows = []
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    baseline = time_sb3(DummyVecEnv([lambda: gym.make("Quando-v0", **rules) for _ in range(256)]), args.seconds)
    rows.append(("SB3 DummyVecEnv over Quando-v0 (baseline)", 256, baseline))
    for t in sorted({1, threads}):
        numba.set_num_threads(t)
        on = f", {t} thread{'s' if t > 1 else ''}"
        for n in (256, 1024):
            rows.append(("quando_env.make_vec_env (SB3 VecEnv)" + on, n,
                         time_sb3(quando_env.make_vec_env(n, **rules), args.seconds)))
        rows.append(('gymnasium.make_vec("Quando-v0")' + on, 1024,
                     time_gym_vector(gym.make_vec("Quando-v0", num_envs=1024, **rules), args.seconds)))

    print(f"{args.players} players, random opponents, whole games; {args.seconds:g} s per row\n")
    print(f"| {'environment':54} | {'games':>5} | {'learner steps/s':>15} | {'vs DummyVecEnv':>14} "
          f"| {'steps/CPU-second':>16} |")
    print(f"|{'-' * 56}|{'-' * 6}:|{'-' * 16}:|{'-' * 15}:|{'-' * 17}:|")
    for name, n, (rate, cpu_rate) in rows:
        print(f"| {name:54} | {n:5d} | {rate:15,.0f} | {rate / baseline[0]:13.1f}x | {cpu_rate:16,.0f} |")


if __name__ == "__main__":
    main()
