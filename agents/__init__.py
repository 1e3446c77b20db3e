"""Baseline agents for Quando: one interface, `act(obs, mask)` on one observation or a batch."""
from .base import Agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .ppo import PPOAgent
from .random_agent import RandomAgent
from .rollout import RolloutAgent

__all__ = ["Agent", "GreedyAgent", "HeuristicAgent", "PPOAgent", "RandomAgent", "RolloutAgent", "make_agent"]


def make_agent(name: str, seed: int | None = None, **kwargs) -> Agent:
    """An agent by its command-line name: random, greedy, heuristic, rollout, ppo or ppo:PATH."""
    key, _, arg = name.partition(":")
    if arg and key != "ppo":
        raise ValueError(f"agent {name!r}: only ppo takes a path (ppo:PATH)")
    if key == "random":
        return RandomAgent(seed=seed, **kwargs)
    if key == "greedy":
        return GreedyAgent(**kwargs)
    if key == "heuristic":
        return HeuristicAgent(**kwargs)
    if key == "rollout":
        return RolloutAgent(seed=seed, **kwargs)
    if key == "ppo":
        return PPOAgent(arg or None, **kwargs)
    raise ValueError(f"unknown agent {name!r}: choose random, greedy, heuristic, rollout, ppo or ppo:PATH")
