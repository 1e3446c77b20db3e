"""Decisions per second per core of the searches, per game: the rollout agent before and the search teacher after.

    python benchmarks/bench_rollout.py [--positions 128] [--players 4] [--games quando cabo help]

Every row decides the same positions (taken from heuristic games, one in five decisions) on one core (numba's
threads set to 1), timed by the process's CPU time (so a machine shared with other work gives the rate of the
core it had, not of its share of it), with each agent's defaults as `make_agent` builds them (rollout: 96
worlds, 192 where knocking is legal, every candidate to the round's end; search: the teacher of agents.search).
The rows:

- rollout, stepped play-outs (with --stepped): the heuristic's play-outs stepped from Python, one VectorGame.step
  per decision level (what the rollout agent does with a play-out agent it cannot fuse);
- rollout: the `rollout` agent, its play-outs in the game's fused kernel (the same actions as the stepped row,
  checked);
- search: the `search` agent, the fast teacher;
- search:learned: the same with the game's shipped learned model as its prior (its policy ranks the candidates
  and gives the move kept unless beaten; the heuristic's choice searched besides), where the game has one for
  that many players.

The ratio column compares each row with the `rollout` row, measured in the same run. Compilation happens before
the timing.
"""
import argparse
import time

import numba
import numpy as np

from quando_env.agents import RolloutAgent, learned, make_agent
from quando_env.agents.games import game_package
from quando_env.registry import game_class


def positions(game: str, n: int, count: int, seed: int = 0):
    vg = game_class(game)(64, seed=seed, num_players=n)
    h = make_agent("heuristic", game=game)
    obs, masks = [], []
    while sum(len(o) for o in obs) < 5 * count:
        o, m = vg.observe(), vg.legal_action_mask.copy()
        obs.append(o)
        masks.append(m)
        vg.step(h.act(o, m))
    return np.concatenate(obs)[::5][:count], np.concatenate(masks)[::5][:count]


def stepped(game: str) -> RolloutAgent:
    """The rollout agent with its play-outs stepped from Python (a subclass of the heuristic is not fused)."""
    heuristic = type(make_agent("heuristic", game=game))
    playout = type("SteppedHeuristic", (heuristic,), {})
    kw = {"knock_samples": 16} if game == "quando" else {}      # Quando's play-out heuristic (its search_kit)
    return RolloutAgent(game_package(game).search_kit(playout(**kw)), seed=0)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=128)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", nargs="+", default=["quando", "cabo", "help"])
    p.add_argument("--stepped", nargs="*", default=["help"], help="games with a stepped play-outs row (default help)")
    args = p.parse_args()
    numba.set_num_threads(1)
    print(f"{args.players} players, {args.positions} positions per game, one core (decisions per CPU second)")
    print(f"{'game':<7} {'agent':<27} {'decisions/s':>11} {'ratio':>7}")
    for game in args.games:
        obs, masks = positions(game, args.players, args.positions)
        rows = [("rollout, stepped play-outs", stepped(game))] if game in args.stepped else []
        rows += [("rollout", make_agent("rollout", game=game, seed=0)),
                 ("search", make_agent("search", game=game, seed=0))]
        if learned.default_model(game, args.players).is_file():
            rows.append(("search:learned", make_agent("search:learned", game=game, seed=0, num_players=args.players)))
        rates, actions = {}, None
        for label, agent in rows:
            agent.act(obs[:4], masks[:4])                     # compile outside the timing
            t = time.process_time()
            a = agent.act(obs, masks)
            rates[label] = len(obs) / (time.process_time() - t)
            if label.startswith("rollout"):
                if actions is not None and not np.array_equal(a, actions):
                    raise SystemExit(f"{game}: the fused play-outs chose other actions than the stepped ones")
                actions = a
        for label, rate in rates.items():
            print(f"{game:<7} {label:<27} {rate:>11,.1f} {rate / rates['rollout']:>6.1f}x", flush=True)


if __name__ == "__main__":
    main()
