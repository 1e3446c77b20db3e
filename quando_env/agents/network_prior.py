"""A learned model's policy as the rollout search's prior (expert iteration: the search around the network).

The search (agents.rollout, agents.search) keeps its prior's choice unless another candidate beats it in the same
worlds, and tries the prior's best-ranked moves. NetworkPrior ranks the legal moves by a learned model's policy
outputs, from the deciding seat's observation alone (its move features, where the model has a scorer, come from
a world sampled from that observation: LearnedAgent.features_of). The outputs are computed in float64 and rounded
to float32, so a row ranks its moves the same whatever the batch it is in (float32 matrix products differ in the
last bits with the batch's shape, and a ranking near a tie would follow them).
"""
import numpy as np

from .learned import LearnedAgent


class NetworkPrior:
    """The ranking a learned model (a LearnedAgent) gives; `name` is the agent name it was made from."""

    def __init__(self, agent: LearnedAgent, name: str = "learned"):
        if not isinstance(agent, LearnedAgent):
            raise ValueError(f"prior {agent!r}: give a learned model (learned or learned:PATH)")
        weights = {k: np.asarray(v, np.float64) for k, v in agent.weights.items()}
        self.agent = LearnedAgent(header=agent.header, weights=weights)
        self.name = name

    def action_values(self, obs, masks) -> tuple[np.ndarray, np.ndarray]:
        """(the policy's best legal move (B,), values (B, num_actions): minus its outputs, lower is better, +inf
        where illegal), what a SearchKit's prior gives."""
        scores = self.agent.scores(np.asarray(obs, np.float32), np.asarray(masks, bool)).astype(np.float32)
        return scores.argmax(axis=1), -scores

    def __repr__(self):
        return f"NetworkPrior({self.name!r})"
