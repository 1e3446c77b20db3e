"""Cabo's own agents: the heuristic (a careful human-like player) and the greedy baseline."""
from .heuristic import GreedyAgent, HeuristicAgent

AGENTS = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
