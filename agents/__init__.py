"""Baseline agents: one interface, `act(obs, mask)` on one observation or a batch, for every game.

Generic agents live here (random, PPO, the rollout search); each game's own players live in its folder
(agents/quando, agents/cabo: greedy, heuristic). `make_agent(name, game=...)` builds any of them by name;
`check_agent(name, game=...)` refuses a bad name without building anything (command lines check it first).

ppo:PATH and rllib:CHECKPOINT load files whose libraries (Stable-Baselines3, RLlib) unpickle them: loading
one runs code it holds, so load only files you trust.
"""
from pathlib import Path

from .base import Agent
from .ppo import PPOAgent
from .random_agent import RandomAgent
from .rollout import RolloutAgent

__all__ = ["Agent", "NAMES_HELP", "PPOAgent", "RandomAgent", "RolloutAgent", "check_agent", "game_agents",
           "make_agent"]

# The agent names make_agent takes, said once: the command lines' help texts (evaluate.py; python -m quando_env
# play through the quando_env.agents entry point) show this.
NAMES_HELP = ("random, the game's own (greedy, heuristic), rollout, ppo (the shipped model), ppo:PATH, learned "
              "(the shipped learned model), learned:PATH (a model of agents.learner) or rllib:CHECKPOINT; ppo:PATH "
              "and rllib:CHECKPOINT run code from their file as they load it (pickle), so load only files you trust")


def game_agents(game: str) -> dict:
    """The game's own agent classes by name (its heuristics), from the package agents/<game>."""
    from importlib import import_module

    try:
        return import_module(f"agents.{game}").AGENTS
    except ModuleNotFoundError as e:
        if e.name != f"agents.{game}":
            raise
        raise ValueError(f"no agents for game {game!r}") from None


def check_agent(name: str, game: str = "quando", num_players: int = 4) -> None:
    """Refuse what make_agent(name, game=game, num_players=num_players) would refuse: ValueError for an unknown
    name or a path where none is taken, FileNotFoundError for a model file or checkpoint that does not exist
    (`learned` is the shipped model of the game and player count). Builds nothing, loads no file."""
    from . import learned
    from .ppo import default_model

    key, _, arg = str(name).partition(":")
    own = game_agents(game)
    if arg and key not in ("ppo", "rllib", "learned"):
        raise ValueError(f"agent {name!r}: only ppo, learned and rllib take a path (ppo:PATH, learned:PATH, "
                         "rllib:CHECKPOINT)")
    if key in ("random", "rollout") or key in own:
        return
    if key == "ppo":
        path = Path(arg) if arg else default_model(game)
        if not path.is_file():
            raise FileNotFoundError(f"agent {name!r}: no PPO model at {path}" + ("" if arg else
                             f" (no {game} model is shipped): train one with `python train.py --game {game}` "
                             "and give ppo:PATH"))
        return
    if key == "learned":
        path = Path(arg) if arg else learned.default_model(game, num_players)
        if not path.is_file():
            raise FileNotFoundError(f"agent {name!r}: no learned model at {path}: train one with `python -m "
                                    f"agents.learner --game {game} --set num_players={num_players}` and give "
                                    "learned:PATH")
        return
    if key == "rllib" and arg:
        if not Path(arg).exists():
            raise FileNotFoundError(f"agent {name!r}: no RLlib checkpoint at {arg}")
        return
    raise ValueError(f"unknown agent {name!r}: choose random, {', '.join(own)}, rollout, ppo, ppo:PATH, learned, "
                     "learned:PATH or rllib:CHECKPOINT")


def make_agent(name: str, seed: int | None = None, game: str = "quando", num_players: int = 4,
               **kwargs) -> Agent:
    """An agent by its command-line name (NAMES_HELP) for games of `num_players` players: random, rollout, ppo,
    ppo:PATH, learned, learned:PATH (a model of agents.learner, refused here unless made for this game and player
    count), rllib:CHECKPOINT (a policy trained with quando_env.integrations.rllib), or one of the game's own
    (greedy, heuristic). ppo:PATH and rllib:CHECKPOINT run code from their file as they load it (pickle): load
    only files you trust; learned models are read without pickle."""
    check_agent(name, game, num_players)
    key, _, arg = name.partition(":")
    own = game_agents(game)
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
        from .learned import LearnedAgent, default_model
        return LearnedAgent(arg or default_model(game, num_players), game=game, num_players=num_players, **kwargs)
    from .rllib_agent import RLlibAgent
    return RLlibAgent(arg, **kwargs)
