"""Train an agent for a game: `python train.py --game cabo --seconds 3600` (installed: `python -m quando_env train`).

`--algo learner` (the default) runs the batched self-play learner with the game's recipe (the package
quando_env/training/learner/; its model plays as `learned:OUT/best.npz`); `--algo sb3` runs MaskablePPO of
Stable-Baselines3 (quando_env/training/sb3.py; `ppo:OUT/best_model.zip`). Either writes OUT/summary.json
naming the kept model ("model") and OUT/curve.png; `python train.py --algo sb3 --help` lists an algorithm's
options."""
import sys

from quando_env.cli import agent_commands


def parse_args(argv=None):
    """The command line, checked as `python -m quando_env train` checks it."""
    return agent_commands.parse_args("train", sys.argv[1:] if argv is None else argv, prog="train.py")


if __name__ == "__main__":
    sys.exit(agent_commands.run("train", sys.argv[1:], prog="train.py"))
