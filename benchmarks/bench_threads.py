"""Speed in the user's own loop whatever is imported first, and what numba's threads give, each row in a fresh
interpreter (the threading layer is chosen once per process):

    python benchmarks/bench_threads.py [--seconds 3] [--games quando cabo help]

SB3 rows: the user's masked loop over an SB3 VecEnv of 256 Quando games against random opponents (masks through
env_method("action_masks"), a random legal action per game, step), with torch and SB3 imported before quando_env
unless the row says otherwise; the ratio is against SB3's DummyVecEnv over 256 `Quando-v0` envs in the same run.
"numba on torch's OpenMP" is what the package did before it chose numba's threading layer (torch's libgomp,
loaded first, keeps spinning idle threads); NUMBA_THREADING_LAYER=omp brings it back. "threaded on workqueue" runs
the batch on workqueue's threads, as the package did before it kept batches under
quando_env.threads.WORKQUEUE_MIN_GAMES serial there.

VectorGame rows: random play (`step(sample_actions())`) of 4,096 games. One interpreter per row alternates rounds
on 1 and 2 numba threads (--rounds pairs, a 1-thread round then a 2-thread one), so that both see the same machine;
the rates are the medians of the rounds and the ratio the median of the pairs' ratios. "idle threads sleep" is the
package's default (OMP_WAIT_POLICY=PASSIVE); the GOMP_SPINCOUNT row lets idle OpenMP threads spin about 0.2 ms
before they sleep, and the ACTIVE row never lets them sleep: what the kernels give when no thread has to be woken.
"""
import argparse
import os
import subprocess
import sys

SB3_LOOP = """
import time, numpy as np
{first}
import gymnasium as gym
import quando_env
{setup}
from stable_baselines3.common.vec_env import DummyVecEnv
venv = {venv}
rng = np.random.default_rng(0)
venv.seed(0); venv.reset()
def run(seconds):
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds or n == 0:
        m = np.stack(venv.env_method("action_masks"))
        venv.step(np.where(m, rng.random(m.shape), -1.0).argmax(1))
        n += venv.num_envs
    return n / (time.perf_counter() - t)
run(0.3)
print(run({seconds}), quando_env.THREADING)
"""
ENGINE_LOOP = """
import time, numba, numpy as np
from quando_env.registry import game_class
g = game_class("{game}")(4096, seed=0, num_players=4)
def rate(threads, seconds):
    numba.set_num_threads(threads)
    g.step(g.sample_actions())
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        g.step(g.sample_actions())
        n += 4096
    return n / (time.perf_counter() - t)
rate(1, 0.1), rate(2, 0.1)
pairs = np.array([(rate(1, {seconds}), rate(2, {seconds})) for _ in range({rounds})])
one, two = np.median(pairs, axis=0)
print(one, two, np.median(pairs[:, 1] / pairs[:, 0]))
"""
FIRST = "import torch, stable_baselines3"
BATCHED = "quando_env.make_vec_env(256, num_players=4)"
DUMMY = 'DummyVecEnv([lambda: gym.make("Quando-v0", num_players=4) for _ in range(256)])'


def run(code: str, **env) -> str:
    """The last line a snippet printed, run in a fresh interpreter without the threading settings of this one."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER", "GOMP_SPINCOUNT")}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return out.stdout.strip().rpartition("\n")[-1]


def rate(code: str, **env) -> tuple[float, str]:
    """(steps per second, the package's threading choice) of an SB3 loop snippet."""
    value, _, layer = run(code, **env).partition(" ")
    return float(value), layer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="time per SB3 row, and a tenth of it per VectorGame round (default 3)")
    ap.add_argument("--rounds", type=int, default=9, help="1- and 2-thread round pairs per VectorGame row (default 9)")
    ap.add_argument("--games", nargs="+", default=["quando", "cabo", "help"])
    args = ap.parse_args()
    s = args.seconds
    base, _ = rate(SB3_LOOP.format(first=FIRST, setup="", venv=DUMMY, seconds=s))
    rows = [("SB3 DummyVecEnv, 256 Quando-v0 (baseline)", base, "", base)]
    for name, first, setup, env in (
            ("make_vec_env(256), torch first, numba on torch's OpenMP (before)", FIRST, "",
             {"NUMBA_THREADING_LAYER": "omp"}),
            ("make_vec_env(256), torch first, threaded on workqueue (before)", FIRST,
             "quando_env.threads.WORKQUEUE_MIN_GAMES = 64", {}),
            ("make_vec_env(256), torch first (now)", FIRST, "", {}),
            ("make_vec_env(256), quando_env first", "", "", {})):
        r, layer = rate(SB3_LOOP.format(first=first, setup=setup, venv=BATCHED, seconds=s), **env)
        rows.append((name, r, layer, base))
    round_s = s / 10
    for game in args.games:
        for what, env in (("idle threads sleep (default)", {}),
                          ("GOMP_SPINCOUNT=20000 exported", {"GOMP_SPINCOUNT": "20000"}),
                          ("OMP_WAIT_POLICY=ACTIVE exported", {"OMP_WAIT_POLICY": "ACTIVE"})):
            one, two, ratio = map(float, run(ENGINE_LOOP.format(game=game, seconds=round_s, rounds=args.rounds),
                                             **env).split())
            if not env:
                rows.append((f"{game}: VectorGame 4096 games, 1 thread", one, "", one))
            rows.append((f"{game}: 2 threads, {what}", two, "", two / ratio))
    print(f"SB3 rows about {s:g} s each; VectorGame rows {args.rounds} pairs of {round_s:g}-second rounds; "
          "each row in a fresh interpreter\n")
    print(f"| {'what':66} | {'steps/s':>11} | {'ratio':>7} | {'package chose':13} |")
    print(f"|{'-' * 68}|{'-' * 12}:|{'-' * 8}:|{'-' * 15}|")
    for name, r, layer, against in rows:
        print(f"| {name:66} | {r:11,.0f} | {r / against:6.2f}x | {layer:13} |")


if __name__ == "__main__":
    main()
