"""The games of quando_env by name: their PettingZoo-style modules, engines and Gymnasium ids."""
import importlib

# name -> the game's module (PettingZoo convention: env(), raw_env, VectorGame, the env card).
GAMES = {"quando": "quando_env.quando_v0",
         "cabo": "quando_env.cabo_v0",
         "help": "quando_env.help_v0",
         }


def game_names() -> list[str]:
    """The names `make`, `--game` and the Gymnasium ids use."""
    return list(GAMES)


def game_module(name: str):
    """The `<name>_v0` module of a game."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {game_names()}")
    return importlib.import_module(GAMES[name])


def game_class(game):
    """The batched engine class of a game given by name (or the class itself: a quando_env.core.Game subclass);
    ValueError naming `game` otherwise."""
    if isinstance(game, str):
        return game_module(game).VectorGame
    from .core import Game

    if not (isinstance(game, type) and issubclass(game, Game)):
        raise ValueError(f"game={game!r} is not allowed: a game's name, one of {game_names()}, or its engine class")
    return game


def game_classes() -> list:
    return [game_class(name) for name in GAMES]


def gym_id(name: str) -> str:
    """The Gymnasium id of a game's single-agent env: "Quando-v0"."""
    return f"{name.capitalize()}-v0"


def make(name: str, **config):
    """The wrapped PettingZoo AEC env of a game: `quando_env.make("quando", num_players=3)`."""
    return game_module(name).env(**config)
