"""`python -m quando_env train|evaluate`: the learner's and the evaluation's command lines (train.py's and
evaluate.py's, with the same options), for an installed package that has no such scripts."""
import sys

from ..extras import MissingExtra, needs

COMMANDS = {"train": "train a learned agent with the game's recipe (the options of train.py; the train extra)",
            "evaluate": "measure agents against each other (the options of evaluate.py; the train extra)"}


def module(command: str):
    """The module whose main and parse_args run `command`."""
    if command == "train":
        from ..agents import learner
        return learner
    from ..agents import evaluate_cli
    return evaluate_cli


def parse_args(command: str, argv: list, prog: str | None = None):
    """The command line of `command`, checked as its own parse_args checks it."""
    return module(command).parse_args(argv, prog=prog or f"python -m quando_env {command}")


def run(command: str, argv: list, prog: str | None = None) -> int:
    """Run `command` on argv; a missing extra is one line naming the pip command that installs it (exit 1)."""
    prog = prog or f"python -m quando_env {command}"
    try:
        with needs("train", "this command"):
            return module(command).main(argv, prog=prog)
    except MissingExtra as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
