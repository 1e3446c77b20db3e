"""Expert iteration, one command per game: rounds of label (the search around the current model), train, measure.

    python -m quando_env.training.expert_iteration --game quando --out runs/ei_quando --rounds 2 --ray auto

Round r (1, 2, ...) starts from the current model M (round 1: --init, by default the game's shipped learned model;
later rounds: the model the round before made) and runs four commands of the package, each printed before it
runs (--dry-run prints them only):

1. `distill label --policy learned:M --prior learned:M --opponents self`: M plays every seat; the search with M as
   its prior labels a share of its decisions (OUT/round_r/self);
2. the same with `--opponents heuristic`: M in one seat against the game's heuristic (OUT/round_r/heuristic);
3. `distill train` on both folders with `--init M`: the round's model, OUT/round_r/model.npz;
4. `evaluate` of that model, and of the search with it as its prior, against three heuristic players
   (OUT/round_r/network.json, OUT/round_r/search.json).

Every step resumes: label skips the shards its folders' manifests list, and a step whose file is written is not
run again, so a stopped run given the same options goes on where it stopped. The shards' seeds are disjoint
across rounds and folders ((2 r + k) * 1,000,000 + i for shard i). With --ray the labelling and the evaluations
run as Ray tasks (one CPU each) on a machine's cores or a cluster's; training runs here.
"""
import argparse
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path

import quando_env
from quando_env import argtypes
from quando_env.checks import printable
from quando_env.registry import game_names

from quando_env.agents import learned

from . import distill

PROG = "python -m quando_env.training.expert_iteration"


def commands(args, r: int, model: Path) -> list[tuple[list[str], Path]]:
    """Round r's steps from the model file `model`: (argv, the file or folder that says the step is done)."""
    py = [sys.executable, "-m"]
    out = Path(args.out) / f"round_{r}"
    shards = math.ceil(args.labels / 2 / args.shard_size)
    ray = ["--ray", args.ray] if args.ray else []
    prior = [] if args.heuristic_prior else ["--prior", f"learned:{model}"]
    steps = []
    for k, opponents in enumerate(("self", "heuristic")):
        steps.append(([*py, distill.__name__, "label", "--game", args.game, "--players", str(args.players),
                       "--teacher", "search", "--policy", f"learned:{model}", *prior, "--opponents", opponents,
                       "--out", str(out / opponents), "--shards", str(shards), "--shard-size", str(args.shard_size),
                       "--seed", str((2 * r + k) * distill.MAX_SHARDS), *ray], None))
    trained = out / "model.npz"
    steps.append(([*py, distill.__name__, "train", str(out / "self"), str(out / "heuristic"), "--out", str(trained),
                   "--init", str(model), "--epochs", str(args.epochs), "--threads", str(args.threads),
                   *(["--min-margin", f"{args.min_margin:g}"] if args.min_margin else [])], trained))
    heuristics = ["heuristic"] * (args.players - 1)
    for name, agent, games in (("network", f"learned:{trained}", args.eval_games),
                               ("search", f"search:learned:{trained}", args.search_games)):
        if games:
            steps.append(([*py, "quando_env", "evaluate", "--game", args.game, "--players", str(args.players),
                           "--agents", agent, *heuristics, "--games", str(games), "--seed", str(args.eval_seed),
                           "--json", str(out / f"{name}.json"), *ray], out / f"{name}.json"))
    return steps


def parser() -> argparse.ArgumentParser:
    from quando_env.evaluation.cli import ray_address

    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False, description="Expert iteration: per round, label the "
                                "current model's games with the search around it (against itself and against the "
                                "heuristic), train the next model on them, and measure it alone and in the search.")
    p.add_argument("--game", default="quando", choices=game_names())
    p.add_argument("--players", type=argtypes.int_in(2, 6), default=4)
    p.add_argument("--out", required=True, type=argtypes.output_dir, help="the rounds' folder (OUT/round_1, ...)")
    p.add_argument("--rounds", type=argtypes.int_in(1, 100), default=2)
    p.add_argument("--init", default=None, help="the first round's model file (default: the game's shipped learned "
                   "model for that many players)")
    p.add_argument("--labels", type=argtypes.int_in(2, 10**9), default=1_000_000, help="labels per round, half "
                   "from the model's own games and half from its games against the heuristic (default 1,000,000)")
    p.add_argument("--shard-size", type=argtypes.int_in(1, distill.MAX_SHARD_SIZE), default=2000)
    p.add_argument("--heuristic-prior", action="store_true", help="the search keeps the heuristic as its prior")
    p.add_argument("--epochs", type=argtypes.int_in(1, 100_000), default=10)
    p.add_argument("--threads", type=argtypes.int_in(1, 1024), default=1, help="torch threads of training")
    p.add_argument("--min-margin", type=argtypes.float_in(0.0, 1e6), default=0.0, help="train's: decisions the "
                   "search won by fewer points keep the current model's policy (default 0: every label counts)")
    p.add_argument("--eval-games", type=argtypes.int_in(0, 10**7), default=8000, help="games of the model against "
                   "three heuristic players (0: none)")
    p.add_argument("--search-games", type=argtypes.int_in(0, 10**7), default=2000, help="games of the search with "
                   "the model as its prior against three heuristic players (0: none)")
    p.add_argument("--eval-seed", type=argtypes.int_in(0, 2**32 - 1), default=1)
    p.add_argument("--ray", metavar="ADDRESS", type=ray_address, help="label and evaluate as Ray tasks: local, "
                   "HOST:PORT, ray://HOST:PORT or auto")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    p = parser()
    args = p.parse_args(argv)
    args.init = Path(args.init or learned.default_model(args.game, args.players))
    try:
        learned.LearnedAgent(args.init, game=args.game, num_players=args.players)
    except (ValueError, OSError) as e:
        p.error(f"argument --init: {printable(e)}")
    if math.ceil(args.labels / 2 / args.shard_size) < 2:
        p.error(f"argument --labels: {args.labels}: at least two shards a folder (training holds the last one out): "
                f"more than 2 x --shard-size ({2 * args.shard_size})")
    return args


def main(argv=None) -> int:
    """Exit status 0, or the first failing step's."""
    args = parse_args(argv)
    model = args.init
    root = str(Path(quando_env.__file__).resolve().parents[1])      # the steps import this quando_env
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    for r in range(1, args.rounds + 1):
        for argv_, done in commands(args, r, model):
            print(shlex.join(["python", *argv_[1:]]), flush=True)
            if args.dry_run or (done is not None and done.exists()):
                continue
            code = subprocess.run(argv_, env=env).returncode
            if code:
                print(f"{PROG}: error: round {r}'s step above failed (exit {code})", file=sys.stderr)
                return code
        model = Path(args.out) / f"round_{r}" / "model.npz"
    return 0


if __name__ == "__main__":
    sys.exit(main())
