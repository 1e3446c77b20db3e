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


def pettingzoo_id(name: str) -> str:
    """The id of a game's AEC env in PettingZoo's registry: "quando_env/Quando-v0"."""
    return f"quando_env/{gym_id(name)}"


def register_pettingzoo() -> None:
    """Register every game's AEC env in PettingZoo's registry (its releases that have one), so that
    `pettingzoo.make("aec", "quando_env/Cabo-v0", num_players=3)` builds it (done when quando_env is imported)."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        return
    for name in GAMES:
        if pettingzoo_id(name) not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pettingzoo_id(name), entry_point=f"{GAMES[name]}:env")


def make(name: str, **config):
    """The wrapped PettingZoo AEC env of a game: `quando_env.make("quando", num_players=3)`."""
    return game_module(name).env(**config)
