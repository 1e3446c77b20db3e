"""Train a learned agent for a game with its default recipe: `python train.py --game cabo --seconds 3600`.

The batched self-play learner (the package quando_env/agents/learner/); see `python train.py --help` (installed:
`python -m quando_env train`). The model plays as `learned:RUN/best.npz`. SB3's MaskablePPO path (the `ppo`
agent) is `python -m quando_env.agents.training`."""
import sys

from quando_env.cli import agent_commands


def parse_args(argv=None):
    """The command line, checked as `python -m quando_env train` checks it."""
    return agent_commands.parse_args("train", argv, prog="train.py")


if __name__ == "__main__":
    sys.exit(agent_commands.run("train", sys.argv[1:], prog="train.py"))
