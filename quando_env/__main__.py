"""`python -m quando_env {demo,replay,play} ...` (see quando_env.cli)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
