"""Each game's own agents package (quando_env.agents.<game>), found by the game's name: its players (AGENTS) and
its rollout search kit (search_kit), for the generic agents that need them without importing the package of
agents (agents.learned's anchor, agents.ppo's hints, make_agent)."""
from importlib import import_module


def game_package(game: str):
    """The module quando_env.agents.<game>; ValueError for a game without one."""
    name = f"{__package__}.{game}"
    try:
        return import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        raise ValueError(f"no agents for game {game!r}") from None


def game_agents(game: str) -> dict:
    """The game's own agent classes by name (its heuristics)."""
    return game_package(game).AGENTS
