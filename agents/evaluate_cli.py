"""The command line of evaluate.py: matches and leagues of named agents on batches of any game, in this process
or as Ray tasks (--ray: agents.ray_tasks, imported only then)."""
import argparse
import json
import sys
import time
from functools import partial

from quando_env.registry import game_names

from . import make_agent
from .evaluation import build_agents, format_table, play_match
from .league import format_ratings, play_league

NAMES_HELP = ("agent names: random, the game's own (greedy, heuristic), rollout, ppo (the shipped model), ppo:PATH or "
              "rllib:CHECKPOINT")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="evaluate.py", description="Measure agents against each other. Seats "
                                "rotate game by game, so no agent keeps the starting advantage.", allow_abbrev=False)
    p.add_argument("--game", default="quando", choices=game_names(), help="the game (default quando)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--agents", nargs="+", metavar="NAME", help="one agent per seat (" + NAMES_HELP + "); with "
                   "fewer names than --players, the last one fills the remaining seats")
    g.add_argument("--league", nargs="+", metavar="NAME", help="distinct agents to play round robin (every "
                   "lineup of --players of them), rated with OpenSkill")
    p.add_argument("--games", type=int, default=200, help="games (per lineup in a league); default 200")
    p.add_argument("--seed", type=int, default=0, help="game j is seeded seed + j; default 0")
    p.add_argument("--players", type=int, default=None, help="players per game (default: the number of --agents, "
                   "4 in a league)")
    p.add_argument("--edition", choices=["kendi", "oya"], default=None, help="Quando's edition (default kendi)")
    p.add_argument("--batch-size", type=int, default=256, help="games stepped together; default 256 (with --ray, "
                   "fewer where that gives every CPU a batch)")
    p.add_argument("--rollout-samples", type=int, default=None, help="worlds per decision of rollout agents (twice "
                   "as many when knocking is an option); default 96")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--plot", metavar="DIR", help="write PNG charts into DIR")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--ray", metavar="ADDRESS", type=ray_address, help="play the batches as Ray tasks, at least one "
                   "per CPU: `local` starts a Ray on this machine, HOST:PORT (what `ray start --head` prints), "
                   "ray://HOST:PORT or auto joins a cluster; same results as without --ray")
    return p


def ray_address(text: str) -> str:
    """--ray's value: local, auto, HOST:PORT or ray://HOST:PORT."""
    host, colon, port = text.removeprefix("ray://").rpartition(":")
    if text in ("local", "auto") or (colon and host and port.isdigit()):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is no Ray address: give local (a Ray on this machine), "
                                     "HOST:PORT (what `ray start --head` prints), ray://HOST:PORT or auto")


def ray_runner(address: str | None):
    """The runner of --ray (None without it): Ray is imported here only."""
    if address is None:
        return None
    try:
        from .ray_tasks import RayRunner
    except ModuleNotFoundError as e:
        if e.name != "ray":
            raise
        raise ValueError("--ray needs Ray: pip install -c constraints.txt -e \".[rllib]\"") from None
    try:
        return RayRunner(address)
    except ConnectionError as e:
        raise ValueError(f"--ray {address}: {e}") from None


def rules(args) -> dict:
    """The game options the command line sets."""
    return {"edition": args.edition} if args.edition else {}


def build(name: str, seed: int, args):
    kwargs = {}
    if name == "rollout":
        kwargs.update(rules(args))
        if args.rollout_samples:
            kwargs["samples"] = args.rollout_samples
            kwargs["knock_samples"] = 2 * args.rollout_samples
    return make_agent(name, seed=seed, game=args.game, **kwargs)


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.games < 1:
        parser().error("--games must be at least 1")
    t0 = time.time()
    try:
        runner = ray_runner(args.ray)
    except ValueError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    where = f" on Ray ({runner.num_cpus} CPUs)" if runner else ""
    if args.league:
        n = args.players or 4
        try:
            factories = {name: partial(build, name, args.seed + 7919 * i, args) for i, name in enumerate(args.league)}
            result = play_league(factories, args.games, seed=args.seed, num_players=n, progress=not args.no_progress,
                                 batch_size=args.batch_size, game=args.game, runner=runner, **rules(args))
        except (ValueError, FileNotFoundError) as e:
            print(f"evaluate.py: error: {e}", file=sys.stderr)
            return 2
        print(f"league of {len(args.league)} agents, {n} players, {len(result['lineups'])} lineups x {args.games} "
              f"games, seed {args.seed}, {time.time() - t0:.1f}s{where}")
        print(format_ratings(result))
        out = {"mode": "league", "game": args.game, "players": n, "seed": args.seed, **rules(args), **result}
        summary = {k: v for k, v in result["ratings"].items()}
    else:
        n = args.players or len(args.agents)
        names = list(args.agents)
        if len(names) > n:
            parser().error(f"{len(names)} agents for {n} players")
        names += [names[-1]] * (n - len(names))
        try:
            agents = partial(build_agents, [partial(build, name, args.seed + 7919 * i, args)
                                            for i, name in enumerate(names)])
            res = play_match(agents, args.games, seed=args.seed, names=names, batch_size=args.batch_size,
                             progress=not args.no_progress, game=args.game, runner=runner, **rules(args))
        except (ValueError, FileNotFoundError) as e:
            print(f"evaluate.py: error: {e}", file=sys.stderr)
            return 2
        summary = res.pooled()
        what = args.game + (f", {args.edition}" if args.edition else "")
        print(format_table(summary, f"{args.games} games, {n} players ({what}), seats rotating, seed "
                                    f"{args.seed}, {time.time() - t0:.1f}s{where}"))
        out = {"mode": "match", "game": args.game, "players": n, "games": args.games, "seed": args.seed,
               **rules(args), "seats": names, "agents": summary}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if args.plot:
        from .plots import plot_ratings, plot_summary

        paths = plot_summary(summary, args.plot, title=f"{n} players")
        if args.league:
            paths += plot_ratings(result, args.plot)
        print("charts: " + ", ".join(str(p) for p in paths))
    return 0
