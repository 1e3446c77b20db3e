"""Agents by name (random, heuristic, ppo:PATH, my_agents.py:MyAgent, ...) for quando_env's own front ends:
terminal play, the browser, warmup and the training envs' opponents. What a name means is said in one place, the
agents package quando_env.agents (agent_name, check_agent, make_agent, NAMES_HELP); this module is quando_env's
door to it, the `quando_env.agents` entry point (pyproject.toml), so quando_env itself never imports it.

Some names load files that run code (ppo:PATH, rllib:CHECKPOINT, plug-in files and modules): load only files you
trust.
"""
import importlib
from importlib.metadata import entry_points

GROUP = "quando_env.agents"


class Unavailable(ValueError):
    """No agents package answers at the entry point (not installed, or broken)."""


def agents():
    """The agents package's module, named by the entry point."""
    try:
        (ep,) = entry_points(group=GROUP, name="make_agent")
        return importlib.import_module(ep.module)
    except Exception as e:  # not installed, broken, or not registered
        raise Unavailable(f"agents come from the agents package (entry point {GROUP}), which is not available: "
                          f"{type(e).__name__}: {e}") from None


def names_help() -> str:
    """The names an agent may have (the agents package's NAMES_HELP), or why there are none."""
    try:
        return agents().NAMES_HELP
    except Unavailable:
        return f"none: the agents package (entry point {GROUP}) is not available"


def spelled(name: str) -> str:
    """`name` as the agents package reads it (agent_name: RANDOM is random, a file or module keeps its case)."""
    return agents().agent_name(name)


def check(name: str, game: str, num_players: int) -> None:
    """Refuse a name the agents package would refuse (check_agent), without building anything."""
    agents().check_agent(name, game=game, num_players=num_players)


def make(name: str, game: str, num_players: int, seed: int | None = None, options: dict | None = None):
    """The agent `name` of the agents package (make_agent) for `game` with num_players, played with the game's
    `options`."""
    return agents().make_agent(name, seed=seed, game=game, num_players=num_players, options=dict(options or {}))
