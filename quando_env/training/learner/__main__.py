"""`python -m quando_env.training.learner`: the learner's command line (cli.main)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main(since_process_start=True))
