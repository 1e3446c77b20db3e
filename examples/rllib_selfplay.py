"""Self-play PPO with RLlib on any game, then its checkpoint against the random and heuristic agents.

One shared policy plays every seat; an action-masking module keeps it to legal moves, and each iteration
prints the mean return per seat and how many sampled actions their mask forbade (always 0: the env would
raise on one). The checkpoint is then played by quando_env.agents.rllib_agent.RLlibAgent in the project's evaluation
(seats rotating, game j seeded seed + j).

    python examples/rllib_selfplay.py --game cabo --iterations 20
    python examples/rllib_selfplay.py --game help --iterations 200 --address HEAD_IP:6379 --env-runners 8 \
        --train-batch 4096
"""
import argparse
import math
import os
import time

import ray
from quando_env.agents import make_agent
from quando_env.evaluation.matches import format_table, play_match
from quando_env.agents.rllib_agent import RLlibAgent
from quando_env.integrations import init_ray
from quando_env.integrations.rllib import ILLEGAL_ACTIONS, ppo_config
from quando_env.registry import game_names, make


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Self-play PPO with RLlib, checkpoint, evaluation.", allow_abbrev=False)
    p.add_argument("--game", default="quando", choices=game_names(), help="the game (default quando)")
    p.add_argument("--iterations", type=int, default=10, help="PPO iterations (default 10)")
    p.add_argument("--address", default=None, help="a Ray cluster's address (`ray start --head` prints it); "
                   "default: a local Ray on this machine")
    p.add_argument("--checkpoint-dir", default=None, help="where the checkpoint goes (default runs/rllib_GAME)")
    p.add_argument("--players", type=int, default=None, help="players per game (default: the game's)")
    p.add_argument("--env-runners", type=int, default=None, help="parallel env runners (default 1): what scales "
                   "on a cluster")
    p.add_argument("--train-batch", type=int, default=None, help="env steps per iteration (default 512): raise it "
                   "with --env-runners, each runner samples its share")
    p.add_argument("--eval-games", type=int, default=200, help="games against each opponent (default 200)")
    p.add_argument("--seed", type=int, default=0, help="training and evaluation seed (default 0)")
    return p


def seat_return(env_runners: dict) -> float:
    """The mean return of one seat over the iteration's finished episodes (nan if none finished)."""
    per_agent = env_runners.get("agent_episode_returns_mean") or {}
    return sum(per_agent.values()) / len(per_agent) if per_agent else math.nan


def train(args, config: dict) -> str:
    """Train, print one line per iteration, save the checkpoint; returns its folder."""
    cfg = ppo_config(args.game, **config).debugging(seed=args.seed)
    if args.env_runners is not None:
        cfg = cfg.env_runners(num_env_runners=args.env_runners)
    if args.train_batch is not None:
        cfg = cfg.training(train_batch_size_per_learner=args.train_batch)
    algo = cfg.build_algo()
    try:
        for i in range(1, args.iterations + 1):
            t0 = time.time()
            er = algo.train()["env_runners"]
            print(f"iteration {i}: mean return per seat {seat_return(er):.3f}, episodes {er.get('num_episodes', 0)}, "
                  f"illegal actions {er[ILLEGAL_ACTIONS]}, env steps {er['num_env_steps_sampled']}, "
                  f"{time.time() - t0:.1f}s", flush=True)
        return algo.save(os.path.abspath(args.checkpoint_dir)).checkpoint.path
    finally:
        algo.stop()


def evaluate(args, checkpoint: str, config: dict) -> dict:
    """Win rate of the checkpoint against each opponent (one checkpoint seat, the opponent in the others)."""
    agent = RLlibAgent(checkpoint)
    n = len(make(args.game, **config).possible_agents)
    rates = {}
    for opponent in ("random", "heuristic"):
        lineup = [agent] + [make_agent(opponent, seed=args.seed + 7919 * i, game=args.game) for i in range(1, n)]
        res = play_match(lineup, args.eval_games, seed=args.seed, names=["rllib"] + [opponent] * (n - 1),
                         progress=False, game=args.game, **config)
        summary = res.pooled()
        print(format_table(summary, f"checkpoint against {opponent} ({args.eval_games} games, {n} players)"))
        rates[opponent] = summary["rllib"]["win_rate"]
    print("win rates: " + ", ".join(f"against {k} {v:.3f}" for k, v in rates.items()))
    return rates


def main(argv=None) -> dict:
    args = parser().parse_args(argv)
    if min(args.iterations, args.eval_games, args.train_batch or 1) < 1 or (args.env_runners or 0) < 0:
        parser().error("--iterations, --eval-games and --train-batch must be at least 1, --env-runners at least 0")
    args.checkpoint_dir = args.checkpoint_dir or f"runs/rllib_{args.game}"
    config = {"num_players": args.players} if args.players else {}
    started_here = not ray.is_initialized()
    init_ray(args.address or "local")
    try:
        checkpoint = train(args, config)
    finally:
        if started_here:
            ray.shutdown()
    print(f"checkpoint: {checkpoint}")
    return evaluate(args, checkpoint, config)


if __name__ == "__main__":
    main()
