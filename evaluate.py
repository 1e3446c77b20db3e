"""Evaluate agents of any game: `python evaluate.py --agents heuristic random random random --games 200 --seed 0`,
in this process, or as Ray tasks on every CPU of this machine (`--ray local`) or of a cluster (`--ray ADDRESS`).

See `python evaluate.py --help` (installed: `python -m quando_env evaluate`); the logic lives in
quando_env/evaluation/cli.py and quando_env/evaluation/matches.py."""
import sys

from quando_env.cli import agent_commands


def parse_args(argv=None):
    """The command line, checked as `python -m quando_env evaluate` checks it."""
    return agent_commands.parse_args("evaluate", argv, prog="evaluate.py")


if __name__ == "__main__":
    sys.exit(agent_commands.run("evaluate", sys.argv[1:], prog="evaluate.py"))
