"""The JAX engines' speed: jitted, vmapped random legal play, beside the numba engine and Pgx's sparrow_mahjong in the
same run.

    python benchmarks/bench_jax.py [--games 4096] [--steps 100] [--repeats 3] [--only quando,...]

Each JAX row (ours, and Pgx's sparrow_mahjong as a reference) runs `--steps` decisions of every game in one
`jax.jit` (a `lax.scan` over: a uniformly random legal action per game, then the vmapped `env.step`) and counts
the decisions of games not yet finished; the compile column is the time to trace and compile that program. The
numba rows step a VectorGame of as many games with `sample_actions` (autoreset: every game always plays).
Decisions per second of wall time, and per CPU-second of the whole process (all threads), which stays put when
other work shares the machine; the rows' runs take turns, best of `--repeats` each; the machine's load average is
printed above the table.
"""
import argparse
import os
import time

import jax
import jax.numpy as jnp
import numba
import pgx

from quando_env import jax as qjax
from quando_env.jax import ops
from quando_env.registry import game_class


def random_legal(key, mask):
    """A uniformly random legal action: the legal one with the highest hashed priority (one threefry draw per game
    rather than `jax.random.categorical`'s one per action, which costs as much as a step of a game of many actions
    on the CPU)."""
    priority = ops.hashed_bits(jax.random.bits(key, (), jnp.uint32), mask.shape[0])
    return jnp.argmax(jnp.where(mask, priority, 0))


def jax_play(env, num_games: int, steps: int):
    """(compile seconds, run): run() plays `steps` random legal decisions in each game, returning the decisions of
    unfinished games."""
    init = jax.jit(jax.vmap(env.init))
    step = jax.vmap(env.step)

    def body(state, key):
        k_act, k_step = jax.random.split(key)
        action = jax.vmap(random_legal)(jax.random.split(k_act, num_games), state.legal_action_mask)
        live = ~(state.terminated | state.truncated)
        return step(state, action, jax.random.split(k_step, num_games)), live.sum()

    def play(state, key):
        return jax.lax.scan(body, state, jax.random.split(key, steps))[1].sum()

    t0 = time.perf_counter()
    state = jax.block_until_ready(init(jax.random.split(jax.random.PRNGKey(0), num_games)))
    compiled = jax.jit(play).lower(state, jax.random.PRNGKey(1)).compile()
    seconds = time.perf_counter() - t0
    keys = iter(range(2, 10**6))

    def run():
        return int(compiled(state, jax.random.PRNGKey(next(keys))))
    return seconds, run


def numba_play(name: str, num_games: int, steps: int):
    g = game_class(name)(num_games, seed=0)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    g.step(g.sample_actions())     # compiled (cached) and warm

    def run():
        for _ in range(steps):
            g.step(g.sample_actions())
        return steps * num_games
    return 0.0, run


def measured(runs, repeats: int) -> list[tuple[float, float]]:
    """Per run, the best of `repeats` (decisions per second, decisions per CPU-second); the runs take turns, so
    that each meets the same share of whatever else the machine is doing."""
    best = [(0.0, 0.0)] * len(runs)
    for run in runs:
        run()       # warm
    for _ in range(repeats):
        for i, run in enumerate(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            n = run()
            wall, cpu = time.perf_counter() - t0, max(time.process_time() - c0, 1e-9)
            best[i] = max(best[i], (n / wall, n / cpu))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=",".join(qjax.games()), help="games, comma-separated")
    args = parser.parse_args()
    rows = []
    for name in args.only.split(","):
        rows.append((f"{name} (JAX)", *jax_play(qjax.make(name), args.games, args.steps)))
        rows.append((f"{name} (numba VectorGame)", *numba_play(name, args.games, args.steps)))
    rows.append(("pgx sparrow_mahjong (JAX)", *jax_play(pgx.make("sparrow_mahjong"), args.games, args.steps)))
    speeds = measured([run for _, _, run in rows], args.repeats)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{args.games} games, {args.steps} decisions each per run, best of {args.repeats}; jax {jax.__version__} "
          f"on {jax.devices()[0].device_kind}, {os.cpu_count()} CPUs, load average {load}")
    print(f"{'engine':34s} {'compile s':>10s} {'decisions/s':>14s} {'per CPU-s':>14s}")
    for (label, compile_s, _), (wall, cpu) in zip(rows, speeds):
        print(f"{label:34s} {compile_s:10.1f} {wall:14,.0f} {cpu:14,.0f}")


if __name__ == "__main__":
    main()
