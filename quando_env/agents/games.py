"""Each game's own agents package (its spec's `agents` part, e.g. quando_env.agents.quando): its players (AGENTS)
and its rollout search kit (search_kit), for the generic agents that need them without importing the package of
agents (agents.learned's anchor, agents.ppo's hints, make_agent)."""
from ..registry import game_spec


def game_package(game: str):
    """The agents package of game `game`; ValueError for a game without one."""
    spec = game_spec(game)
    if spec.agents is None:
        raise ValueError(f"no agents for game {game!r}")
    return spec.part("agents")


def game_agents(game: str) -> dict:
    """The game's own agent classes by name (its heuristics)."""
    return game_package(game).AGENTS
