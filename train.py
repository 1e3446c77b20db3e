"""Train a MaskablePPO Quando agent by self-play: `python train.py --timesteps 1000000 --out runs/ppo`.

See `python train.py --help`; the logic lives in agents/training.py."""
import sys

from agents.training import main

if __name__ == "__main__":
    sys.exit(main())
