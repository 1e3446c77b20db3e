"""`python -m quando_env train|evaluate`: the training and evaluation command lines (train.py's and evaluate.py's,
with the same options), for an installed package that has no such scripts.

Training has one front door for its two algorithms: `--algo learner` (the default: the batched self-play learner,
training.learner) or `--algo sb3` (MaskablePPO of Stable-Baselines3, training.sb3). Both take --game, --seconds,
--timesteps, --seed, --threads, --out, --resume, --eval-every, --eval-games, --checkpoint-every and --no-progress
in the same sense, and write OUT/summary.json naming the kept model ("model") with the evaluations it was kept by,
and OUT/curve.png plotting them."""
import argparse
import sys

from ..extras import MissingExtra, needs

COMMANDS = {"train": "train an agent: --algo learner (default) or sb3, the options of train.py (the train extra)",
            "evaluate": "measure agents against each other (the options of evaluate.py; the train extra)"}
ALGOS = {"learner": "the batched self-play learner (its model plays as learned:OUT/best.npz)",
         "sb3": "MaskablePPO of Stable-Baselines3 (its model plays as ppo:OUT/best_model.zip)"}


def split_algo(argv: list, prog: str) -> tuple[str, list]:
    """(the --algo given, default learner; the other arguments) of train's command line; a bad --algo ends the
    program as argparse does (exit 2, naming the option and the choices)."""
    p = argparse.ArgumentParser(prog=prog, add_help=False, allow_abbrev=False)
    p.add_argument("--algo", choices=list(ALGOS), default="learner")
    args, rest = p.parse_known_args(argv)
    return args.algo, rest


def module(command: str, algo: str = "learner"):
    """The module whose main and parse_args run `command` (train: with algorithm `algo`)."""
    if command == "train":
        if algo == "sb3":
            from ..training import sb3
            return sb3
        from ..training import learner
        return learner
    from ..evaluation import cli
    return cli


def _split(command: str, argv: list, prog: str) -> tuple[object, list, str]:
    """(the module that runs the command line, its arguments, the command's name in its messages)."""
    if command != "train":
        return module(command), list(argv), prog
    algo, rest = split_algo(list(argv), prog)
    return module(command, algo), rest, prog if algo == "learner" else f"{prog} --algo {algo}"


def _parse(command: str, target, rest: list, prog: str):
    """target.parse_args(rest); train's --help ends with the choice of algorithms."""
    try:
        return target.parse_args(rest, prog=prog)
    except SystemExit as e:
        if e.code == 0 and command == "train":
            print(f"\n--algo {{{','.join(ALGOS)}}}: which algorithm trains (" + "; ".join(
                f"{k}: {v}" for k, v in ALGOS.items()) + "; default learner); the options above are "
                f"{prog}'s.")
        raise


def parse_args(command: str, argv: list, prog: str | None = None):
    """The command line of `command`, checked as its own parse_args checks it."""
    prog = prog or f"python -m quando_env {command}"
    target, rest, prog = _split(command, argv, prog)
    return _parse(command, target, rest, prog)


def announce(command: str, args) -> None:
    """The first-use notice (cli.first_use) for the game the checked command line plays, with agents: training
    plays the heuristic, and evaluate any agent but random."""
    from .first_use import notice

    if command == "train":
        notice(args.hyper.game if hasattr(args, "hyper") else args.game, agents=True)
    else:
        notice(args.game, agents=any(a != "random" for a in (args.league or args.agents)))


def run(command: str, argv: list, prog: str | None = None) -> int:
    """Run `command` on argv, the first-use notice first; a missing extra is one line naming the pip command that
    installs it (exit 1). A command line's run: train's --seconds counts from the start of the process."""
    prog = prog or f"python -m quando_env {command}"
    try:
        with needs("train", "this command"):
            target, rest, name = _split(command, argv, prog)
            announce(command, _parse(command, target, rest, name))      # a bad option ends it here, before
            return target.main(rest, prog=name, **({"since_process_start": True} if command == "train" else {}))
    except MissingExtra as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
