"""Baseline agents: one interface, `act(obs, mask)` on one observation or a batch, for every game.

Generic agents live here (random, PPO, the rollout search); each game's own players live in its folder
(agents/quando, agents/cabo: greedy, heuristic). `make_agent(name, game=...)` builds any of them by name;
`check_agent(name, game=...)` refuses a bad name without building anything (command lines check it first).
A name may also be a plug-in, FILE.py:NAME or package.module:NAME: your own agent (agents.plugins, docs/agents.md).
This is the one place a name becomes an agent: quando_env's front ends (terminal play, the browser, the training
envs' opponents) ask here through quando_env.named_agents, random included.

ppo:PATH and rllib:CHECKPOINT load files whose libraries (Stable-Baselines3, RLlib) unpickle them: loading
one runs code it holds, so load only files you trust.
"""
from pathlib import Path

import quando_env  # noqa: F401  before torch: it sets OpenMP's passive wait (quando_env's docstring)

from . import moved, plugins
from .base import Agent
from .games import game_agents, game_package
from .ppo import PPOAgent
from .random_agent import RandomAgent
from .rollout import RolloutAgent
from .search import SearchAgent

moved.install()                 # the old paths of the modules that moved to training and evaluation

__all__ = ["Agent", "NAMES_HELP", "PPOAgent", "RandomAgent", "RolloutAgent", "SearchAgent", "agent_name",
           "check_agent", "game_agents", "make_agent"]

# The agent names make_agent takes, said once: the command lines' help texts (evaluate.py; python -m quando_env
# play through the quando_env.agents entry point) show this.
NAMES_HELP = ("random, the game's own (greedy, heuristic), rollout, search (the rollout search's fast teacher), "
              "search:learned or search:learned:PATH (the search with a learned model as its prior; rollout:... "
              "alike), ppo (the shipped model), ppo:PATH, learned (the shipped learned model), learned:PATH (a model "
              "of training.learner), rllib:CHECKPOINT, or your own agent: FILE.py:NAME or package.module:NAME (a class "
              "or factory there, see docs/agents.md); ppo:PATH and rllib:CHECKPOINT run code from their file as they "
              "load it (pickle), and a plug-in's file or module runs as it is imported, so load only files you trust")

MODELS = Path(__file__).resolve().parent / "models"


def model_file(path: str) -> str:
    """A model path as given, or the shipped model it names when written `agents/models/FILE` (the repository's
    path to quando_env/agents/models, kept for the command lines and scripts that use it) and no such file is
    here."""
    parts = Path(path).parts
    if path and not Path(path).exists() and len(parts) == 3 and parts[:2] == ("agents", "models"):
        return str(MODELS / parts[2])
    return path


def agent_name(name: str) -> str:
    """`name` as make_agent reads it: a name in capitals is the same name (RANDOM, PPO:PATH); a file or module
    keeps its case (my_agents.py:MyAgent, MyModule:Agent)."""
    key, sep, arg = str(name).partition(":")
    return key.lower() + sep + arg if key.isalpha() and (key.islower() or key.isupper()) else key + sep + arg


def model_path(name: str, game: str, num_players: int = 4) -> Path | None:
    """The model file the agent `name` loads (ppo, ppo:PATH, learned, learned:PATH), None for any other."""
    from . import learned, ppo

    key, _, arg = str(name).partition(":")
    if key == "ppo":
        return Path(model_file(arg)) if arg else ppo.default_model(game)
    if key == "learned":
        return Path(model_file(arg)) if arg else learned.default_model(game, num_players)
    if key in ("rollout", "search") and arg:
        return model_path(arg, game, num_players)       # the prior's
    return None


def check_agent(name: str, game: str, num_players: int = 4) -> None:
    """Refuse what make_agent(name, game=game, num_players=num_players) would refuse: ValueError for an unknown
    name or a path where none is taken, FileNotFoundError for a model file or checkpoint that does not exist
    (`learned` is the shipped model of the game and player count). Builds nothing and loads no model file; a
    plug-in's file or module is imported (to find its class, and refuse one that declares another game)."""
    from . import learned
    from .ppo import default_model, no_ppo_model

    name = agent_name(name)
    key, colon, arg = name.partition(":")
    arg = model_file(arg) if key in ("ppo", "learned") else arg
    own = game_agents(game)
    if colon and not arg and key in ("ppo", "learned", "rllib"):
        raise ValueError(f"agent {name!r}: no path after {key + ':'!r}; give {key}:PATH" +
                         (", or 'learned' for the shipped model" if key == "learned" else ""))
    if key in ("rollout", "search") and colon:
        return check_prior(name, arg, game, num_players)
    if arg and (key in ("random", "rollout", "search") or key in own):
        raise ValueError(f"agent {name!r}: only ppo, learned and rllib take a path (ppo:PATH, learned:PATH, "
                         "rllib:CHECKPOINT); your own agent is FILE.py:NAME or package.module:NAME")
    if plugins.is_plugin(str(name)):
        return plugins.check(name, game)
    if key in ("random", "rollout", "search") or key in own:
        return
    if key == "ppo":
        path = Path(arg) if arg else default_model(game)
        if not path.is_file():
            raise FileNotFoundError(f"agent {name!r}: " + no_ppo_model(game, path if arg else None))
        return
    if key == "learned":
        if not arg:                     # the shipped model of that many players: the count checked first
            from quando_env.core import make_config
            from quando_env.registry import game_class
            num_players = make_config(game_class(game).config_class, num_players=num_players).num_players
        path = Path(arg) if arg else learned.default_model(game, num_players)
        if not path.is_file():
            raise FileNotFoundError(f"agent {name!r}: " + (learned.no_model(game, num_players) if not arg else
                                                           f"no learned model at {path}"))
        return
    if key == "rllib" and arg:
        if not Path(arg).exists():
            raise FileNotFoundError(f"agent {name!r}: no RLlib checkpoint at {arg}")
        return
    raise ValueError(f"unknown agent {name!r}: choose random, {', '.join(own)}, rollout, search, ppo, ppo:PATH, "
                     "learned, learned:PATH, rllib:CHECKPOINT, FILE.py:NAME or package.module:NAME")


def check_prior(name: str, prior: str, game: str, num_players: int) -> None:
    """Refuse a search's prior (search:PRIOR, distill label --prior) that is no learned model, or not there."""
    if prior.partition(":")[0] != "learned":
        raise ValueError(f"agent {name!r}: the search's prior {prior!r} is not a learned model: give "
                         f"{name.partition(':')[0]}:learned or {name.partition(':')[0]}:learned:PATH")
    check_agent(prior, game, num_players)


def make_agent(name: str, seed: int | None = None, *, game: str, num_players: int = 4, options: dict | None = None,
               **kwargs) -> Agent:
    """An agent by its command-line name (NAMES_HELP) for games of `num_players` players: random, rollout, search,
    rollout:learned[:PATH] and search:learned[:PATH] (with a learned model as the search's prior; or prior=NAME),
    ppo, ppo:PATH, learned, learned:PATH (a model of training.learner, refused here unless made for this game and player
    count), rllib:CHECKPOINT (a policy trained with quando_env.integrations.rllib), one of the game's own
    (greedy, heuristic), or a plug-in FILE.py:NAME / package.module:NAME (agents.plugins: NAME is called with
    those of game, num_players, seed, the options and kwargs that it names). options: the game's options (e.g.
    edition), for the agents that use them (rollout, plug-ins). ppo:PATH and rllib:CHECKPOINT run code from
    their file as they load it (pickle), and a plug-in's file or module runs as it is imported: load only files
    you trust; learned models are read without pickle."""
    name = agent_name(name)
    check_agent(name, game, num_players)
    if plugins.is_plugin(name):
        offered = {"game": game, "num_players": num_players, "seed": seed, **(options or {}), **kwargs}
        return plugins.make(name, game, offered)
    key, _, arg = name.partition(":")
    arg = model_file(arg) if key in ("ppo", "learned") else arg
    own = game_agents(game)
    if key == "random":
        return RandomAgent(seed=seed, **kwargs)
    if key in own:
        return own[key](**kwargs)
    if key in ("rollout", "search"):
        cls = RolloutAgent if key == "rollout" else SearchAgent
        prior = arg or kwargs.get("prior")              # a learned model's name (search:learned:PATH), or one
        if isinstance(prior, str):
            check_prior(name, prior, game, num_players)
            kwargs["prior"] = make_agent(prior, game=game, num_players=num_players, options=options)
        return cls(game_package(game).search_kit(), seed=seed, **(options or {}), **kwargs)
    if key == "ppo":
        return PPOAgent(arg or None, game=game, num_players=num_players, **kwargs)
    if key == "learned":
        from .learned import LearnedAgent, default_model
        return LearnedAgent(arg or default_model(game, num_players), game=game, num_players=num_players,
                            options=options, **kwargs)
    from .rllib_agent import RLlibAgent
    return RLlibAgent(arg, **kwargs)
