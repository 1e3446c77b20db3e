"""RLlibAgent: a policy trained with RLlib (quando_env.integrations.rllib) behind the agent interface, so
the evaluation, leagues and terminal play measure it like any other agent.

Loading a checkpoint runs code from it (RLlib restores pickled objects), so load only checkpoints you trust."""
from .base import Agent


class RLlibAgent(Agent):
    """Plays the checkpoint's most likely legal action (deterministic). Load only checkpoints you trust: loading
    one unpickles it (quando_env.integrations.rllib.load_policy), which can run any code it holds."""

    name = "rllib"

    def __init__(self, checkpoint: str, module_id: str | None = None):
        from quando_env.integrations.rllib import POLICY, load_policy

        self.checkpoint = checkpoint
        self.policy = load_policy(checkpoint, module_id or POLICY)

    def act_batch(self, obs, masks):
        return self.policy.act(obs, masks)

    def __repr__(self):
        return f"RLlibAgent({self.checkpoint!r})"
