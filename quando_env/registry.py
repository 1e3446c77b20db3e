"""The games of quando_env by name: each game's spec (quando_env.spec: its engine, PettingZoo-style module, JAX env,
agents, bounds, recipe), and the Gymnasium ids."""
from .cabo.spec import SPEC as CABO
from .help.spec import SPEC as HELP
from .quando.spec import SPEC as QUANDO
from .spec import GameSpec

# name -> the game's spec; `register` adds one
GAMES = {spec.name: spec for spec in (QUANDO, CABO, HELP)}


def game_names() -> list[str]:
    """The names `make`, `--game` and the Gymnasium ids use."""
    return list(GAMES)


def register(spec: GameSpec) -> None:
    """Add a game (its Gymnasium and PettingZoo ids are registered by quando_env.adapters.training_envs.register_envs
    and register_pettingzoo, which `import quando_env` runs for the games of the package)."""
    if not isinstance(spec, GameSpec):
        raise ValueError(f"spec={spec!r} is not allowed: a quando_env.spec.GameSpec")
    if spec.name in GAMES and GAMES[spec.name] != spec:
        raise ValueError(f"a game named {spec.name!r} is registered already")
    GAMES[spec.name] = spec


def game_spec(name: str) -> GameSpec:
    """The spec of the game named `name`; ValueError naming the games otherwise."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {game_names()}")
    return GAMES[name]


def game_module(name: str):
    """The PettingZoo-style module of a game (`<name>_v0`: env(), raw_env, VectorGame, the env card)."""
    return game_spec(name).part("pettingzoo")


def game_class(game):
    """The batched engine class of a game given by name (or the class itself: a quando_env.core.Game subclass);
    ValueError naming `game` otherwise."""
    if isinstance(game, str):
        return game_spec(game).part("engine")
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
            pettingzoo.register("aec", pettingzoo_id(name), entry_point=f"{GAMES[name].pettingzoo}:env")


def make(name: str, **config):
    """The wrapped PettingZoo AEC env of a game: `quando_env.make("quando", num_players=3)`."""
    return game_module(name).env(**config)
