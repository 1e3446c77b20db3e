"""What a game is made of, declared once as data (as OpenSpiel's GameType/GameInfo): each game package holds its
`GameSpec`, quando_env.registry lists them, and every part of the package that needs a game's engine, PettingZoo
module, JAX env, agents, bounds or training recipe reads it here instead of guessing a module path. Parts are named
as import paths ("package.module" or "package.module:attribute") and imported only when used, so that a spec stays
cheap to read and a part that needs an optional extra (the JAX env) is imported only by the code that asks for it.
"""
from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class GameSpec:
    """A game's facts and parts. Required: `name` (what `make`, `--game` and the Gymnasium ids use), `title`
    (printed in tables), `engine` (its quando_env.core.Game subclass), `pettingzoo` (its module: env(), raw_env,
    VectorGame) and `bounds` (a `{"observation": f(config), "state": f(config)}` of the parts that can pass 1, see
    quando_env.bounds: `{}` when every part stays within [0, 1]). The others are None for a game without them:
    `jax` (its pgx.Env class), `agents` (a package with AGENTS, its players by name, and search_kit, its rollout
    search), `heuristic_kernel` (the numba kernel its heuristic player runs first), and the learner's `recipe`
    (settings of `train.py --game G`), `decisions` (a new run's default budget) and `finish` (settings over the
    stage against the heuristic, decisions)."""

    name: str
    title: str
    engine: str
    pettingzoo: str
    bounds: str
    jax: str | None = None
    agents: str | None = None
    heuristic_kernel: str | None = None
    recipe: dict = field(default_factory=dict)
    decisions: int | None = None
    finish: tuple[dict, int] | None = None

    def part(self, name: str):
        """The part `name` (a field naming an import path) imported; ValueError naming the game and the part when
        the game has none, or it does not import."""
        if name not in PARTS:
            raise ValueError(f"part={name!r} is not allowed: one of {PARTS}")
        path = getattr(self, name)
        if path is None:
            raise ValueError(f"game {self.name!r} has no {name} part")
        return load(path, f"game {self.name!r}'s {name} part")


# the fields naming an import path
PARTS = ("engine", "pettingzoo", "bounds", "jax", "agents", "heuristic_kernel")


def load(path: str, what: str):
    """The module or attribute at import path `path` ("a.b" or "a.b:attr"). A missing module of the path itself, or
    a missing attribute, is a ValueError naming `what` and `path`; other errors (a missing optional library) pass."""
    module, _, attribute = path.partition(":")
    try:
        found = import_module(module)
    except ModuleNotFoundError as e:
        if not (e.name and (module == e.name or module.startswith(e.name + "."))):
            raise
        raise ValueError(f"{what} {path!r} does not import: no module {e.name!r}") from None
    if not attribute:
        return found
    try:
        return getattr(found, attribute)
    except AttributeError:
        raise ValueError(f"{what} {path!r} does not import: {module} has no {attribute!r}") from None


def check(spec: GameSpec) -> None:
    """Import every part `spec` names, its JAX env included (ValueError naming the first that fails), and check what
    each must hold."""
    from .core import Game

    for name in ("name", "title", "engine", "pettingzoo", "bounds"):
        if not isinstance(getattr(spec, name), str) or not getattr(spec, name):
            raise ValueError(f"game {spec.name!r}: {name}={getattr(spec, name)!r} is not allowed: a non-empty string")
    engine = spec.part("engine")
    if not (isinstance(engine, type) and issubclass(engine, Game)) or engine.name != spec.name:
        raise ValueError(f"game {spec.name!r}'s engine part {spec.engine!r} is not a quando_env.core.Game subclass "
                         f"named {spec.name!r}")
    if getattr(spec.part("pettingzoo"), "VectorGame", None) is not engine:
        raise ValueError(f"game {spec.name!r}'s pettingzoo part {spec.pettingzoo!r} has no VectorGame = its engine")
    bounds = spec.part("bounds")
    if not (isinstance(bounds, dict) and set(bounds) == {"observation", "state"}):
        raise ValueError(f"game {spec.name!r}'s bounds part {spec.bounds!r} is not a dict with keys 'observation' "
                         "and 'state'")
    if spec.agents is not None:
        agents = spec.part("agents")
        if not isinstance(getattr(agents, "AGENTS", None), dict):
            raise ValueError(f"game {spec.name!r}'s agents part {spec.agents!r} has no AGENTS dict")
    for name in ("jax", "heuristic_kernel"):     # the JAX env needs the jax extra: imported here, and only here
        if getattr(spec, name) is not None:
            spec.part(name)
