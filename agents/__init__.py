"""Baseline agents: one interface, `act(obs, mask)` on one observation or a batch, for every game.

Generic agents live here (random, PPO, the rollout search); each game's own players live in its folder
(agents/quando, agents/cabo: greedy, heuristic). `make_agent(name, game=...)` builds any of them by name.
"""
from .base import Agent
from .ppo import PPOAgent
from .random_agent import RandomAgent
from .rollout import RolloutAgent

__all__ = ["Agent", "PPOAgent", "RandomAgent", "RolloutAgent", "game_agents", "make_agent"]


def game_agents(game: str) -> dict:
    """The game's own agent classes by name (its heuristics), from the package agents/<game>."""
    from importlib import import_module

    try:
        return import_module(f"agents.{game}").AGENTS
    except ModuleNotFoundError as e:
        if e.name != f"agents.{game}":
            raise
        raise ValueError(f"no agents for game {game!r}") from None


def make_agent(name: str, seed: int | None = None, game: str = "quando", **kwargs) -> Agent:
    """An agent by its command-line name: random, rollout, ppo, ppo:PATH, learned, learned:PATH (a model of
    agents.learner), rllib:CHECKPOINT (a policy trained with quando_env.integrations.rllib), or one of the game's
    own (greedy, heuristic)."""
    key, _, arg = name.partition(":")
    own = game_agents(game)
    if arg and key not in ("ppo", "rllib", "learned"):
        raise ValueError(f"agent {name!r}: only ppo, learned and rllib take a path (ppo:PATH, learned:PATH, "
                         "rllib:CHECKPOINT)")
    if key == "random":
        return RandomAgent(seed=seed, **kwargs)
    if key in own:
        return own[key](**kwargs)
    if key == "rollout":
        from importlib import import_module
        return RolloutAgent(seed=seed, kit=import_module(f"agents.{game}").search_kit(), **kwargs)
    if key == "ppo":
        return PPOAgent(arg or None, game=game, **kwargs)
    if key == "learned":
        from .learned import LearnedAgent
        return LearnedAgent(arg or None, game=game, **kwargs)
    if key == "rllib" and arg:
        from .rllib_agent import RLlibAgent
        return RLlibAgent(arg, **kwargs)
    raise ValueError(f"unknown agent {name!r}: choose random, {', '.join(own)}, rollout, ppo, ppo:PATH, learned, "
                     "learned:PATH or rllib:CHECKPOINT")
