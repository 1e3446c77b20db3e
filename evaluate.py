"""Evaluate agents of any game: `python evaluate.py --agents heuristic random random random --games 200 --seed 0`,
in this process, or as Ray tasks on every CPU of this machine (`--ray local`) or of a cluster (`--ray ADDRESS`).

See `python evaluate.py --help`; the logic lives in agents/evaluate_cli.py and agents/evaluation.py."""
import sys

from agents.evaluate_cli import main

if __name__ == "__main__":
    sys.exit(main())
