"""Decisions per second of RolloutAgent: its fused play-out kernel against stepping VectorGame from Python.

    python benchmarks/bench_rollout.py [--positions 128] [--samples 32]

Both rows decide the same positions (taken from heuristic games) with the same seed and return the same
actions (checked); the baseline plays the heuristic play-outs by calling VectorGame.step and
HeuristicAgent.act once per decision level, as the agent did before the fused kernel. The ratio column
compares each row with that baseline, measured in the same run.
"""
import argparse
import time

import numpy as np

from quando_env.agents.quando import search_kit
from quando_env.agents.quando.heuristic import HeuristicAgent
from quando_env.agents.rollout import RolloutAgent
from quando_env import VectorGame


class SteppedHeuristic(HeuristicAgent):
    """The same player; RolloutAgent only fuses play-outs of HeuristicAgent itself, so this one is stepped."""


def positions(n: int, count: int, seed: int = 0):
    vg = VectorGame(64, seed=seed, num_players=n)
    h = HeuristicAgent()
    obs, masks = [], []
    while sum(len(o) for o in obs) < 5 * count:
        o, m = vg.observe(), vg.legal_action_mask.copy()
        obs.append(o)
        masks.append(m)
        vg.step(h.act(o, m))
    return np.concatenate(obs)[::5][:count], np.concatenate(masks)[::5][:count]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=128)
    p.add_argument("--samples", type=int, default=32, help="worlds per decision (twice as many for knocks)")
    args = p.parse_args()
    print(f"{'players':>7}  {'agent':<34} {'decisions/s':>12} {'vs stepped':>10}")
    for n in (2, 4, 6):
        obs, masks = positions(n, args.positions)
        kw = dict(samples=args.samples, knock_samples=2 * args.samples, seed=0)
        stepped = search_kit(SteppedHeuristic(knock_samples=16))
        rows = [("stepped play-outs (baseline)", RolloutAgent(stepped, **kw)),
                ("fused play-out kernel", RolloutAgent(search_kit(), **kw))]
        base, actions = None, None
        for label, agent in rows:
            agent.act(obs[:2], masks[:2])                     # compile outside the timing
            t = time.perf_counter()
            a = agent.act(obs, masks)
            rate = len(obs) / (time.perf_counter() - t)
            if actions is None:
                base, actions = rate, a
            elif not np.array_equal(a, actions):
                raise SystemExit(f"{label} chose other actions than the baseline with {n} players")
            print(f"{n:>7}  {label:<34} {rate:>12,.0f} {rate / base:>9.1f}x")


if __name__ == "__main__":
    main()
