"""Help!'s own agents: the heuristic (a careful human-like player) and the greedy baseline ("smallest card
that fits"), both numba over the observation alone."""
from .heuristic import GreedyAgent, HeuristicAgent, players_from_obs_dim

AGENTS = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["AGENTS", "GreedyAgent", "HeuristicAgent", "players_from_obs_dim"]
