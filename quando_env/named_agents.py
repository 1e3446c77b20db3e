"""Agents by name (heuristic, ppo:PATH, my_agents.py:MyAgent, ...) for quando_env's own front ends: terminal play
and the training envs' opponents. They come from the `quando_env.agents` entry point (pyproject.toml: the agents
package registers its make_agent there), so quando_env itself never imports the agents package.

Some names load files that run code (ppo:PATH, rllib:CHECKPOINT, plug-in files and modules): load only files you
trust. "random" is quando_env's own and is not resolved here.
"""
import importlib
import inspect
from importlib.metadata import entry_points

GROUP = "quando_env.agents"


class Unavailable(ValueError):
    """No agents package answers at the entry point (not installed, or broken)."""


def _entry_point():
    try:
        (ep,) = entry_points(group=GROUP, name="make_agent")
        return ep, ep.load()
    except Exception as e:  # not installed, broken, or not registered
        raise Unavailable(f"agents other than random come from the agents package (entry point {GROUP}), which "
                          f"is not available: {type(e).__name__}: {e}") from None


def _module():
    return importlib.import_module(_entry_point()[0].module)


def names_help() -> str:
    """The names an opponent may have: the agents package's (its NAMES_HELP, random among them), or only random
    when that package is not available."""
    try:
        return getattr(_module(), "NAMES_HELP", "random or a name the agents package takes")
    except Unavailable:
        return f"random only: the agents package (entry point {GROUP}) is not available"


def parameters(function) -> dict:
    """The parameters a function takes by keyword ({} when it does not say): what a caller may offer it."""
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}
    return {k: p for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def check(name: str, game: str, num_players: int) -> None:
    """Refuse a name the agents package would refuse (its check_agent, where it has one) without building it."""
    check_agent = getattr(_module(), "check_agent", None)
    if check_agent is not None:
        check_agent(name, game=game, **({"num_players": num_players} if "num_players" in parameters(check_agent)
                                        else {}))


def make(name: str, game: str, num_players: int, seed: int | None = None, options: dict | None = None):
    """The agent `name` of the agents package for `game` with num_players, checked to have act(obs, mask).
    Only the keywords its make_agent names are passed (seed, game, num_players, options: the game's options)."""
    make_agent = _entry_point()[1]
    offered = {"seed": seed, "game": game, "num_players": num_players, "options": dict(options or {})}
    params = parameters(make_agent)
    agent = make_agent(name, **{k: v for k, v in offered.items() if k in params})
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"make_agent({name!r}) of the agents package returned {type(agent).__name__}, which has no "
                         "act(obs, mask)")
    return agent
