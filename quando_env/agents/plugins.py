"""Plug-in agents: `path/to/file.py:Name` or `package.module:Name` wherever an agent name goes (make_agent,
evaluate.py, leagues, Ray tasks, terminal play, the training envs' opponents by name).

Name is a class or a factory. It is called with those of game (the game's name), num_players, seed and the
game's options (e.g. edition) that its signature names (by name: a `**kwargs` takes none), and gives an
object with `act(obs, mask)` (one decision: an int) and/or `act_batch(obs, masks)` (a batch: B ints); see
docs/agents.md. An object that declares `game` (a game's name) is refused for any other game.

Loading a plug-in imports its file or module, which runs the code it holds: use only code you trust.
"""
import hashlib
import importlib
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path

from quando_env.checks import check_plays

from .base import Agent

BUILT_IN_PATHS = ("ppo", "learned", "rllib", "rollout", "search")     # the built-in names that take NAME:ARG


def is_plugin(name: str) -> bool:
    """A plug-in spec (TARGET:ATTR), not a built-in name nor ppo:PATH, learned:PATH or rllib:CHECKPOINT."""
    return ":" in name and name.partition(":")[0] not in BUILT_IN_PATHS


def split(spec: str) -> tuple[str, str, bool]:
    """(target, attribute, target is a file) of TARGET:ATTR; ValueError when the spec is malformed."""
    target, _, attr = spec.rpartition(":")
    is_file = target.endswith(".py") or "/" in target or "\\" in target
    if not target or not all(x.isidentifier() for x in attr.split(".")) or \
            not (is_file or all(x.isidentifier() for x in target.split("."))):
        raise ValueError(f"agent {spec!r}: a plug-in agent is FILE.py:NAME or package.module:NAME (NAME a class "
                         "or factory defined there)")
    return target, attr, is_file


def canonical(spec: str) -> str:
    """The spec with a file made absolute, so that processes started elsewhere (Ray workers) find the same file."""
    if not is_plugin(spec):
        return spec
    target, attr, is_file = split(spec)
    return f"{Path(target).resolve()}:{attr}" if is_file else spec


def import_root(spec: str) -> str | None:
    """The folder this process imports a plug-in module's top package from (None for other names), for a process
    started elsewhere (a Ray worker, which does not share this one's sys.path) to import it from: see importable."""
    if not is_plugin(spec) or split(spec)[2]:
        return None
    found = importlib.util.find_spec(split(spec)[0].partition(".")[0])
    if found is None or not found.origin and not found.submodule_search_locations:
        return None
    where = Path(found.origin) if found.origin else Path(list(found.submodule_search_locations)[0]) / "__init__.py"
    return str(where.parent.parent if found.submodule_search_locations else where.parent)


def importable(root: str | None) -> None:
    """Put a plug-in module's folder (import_root) on sys.path when it is not there yet."""
    if root is not None and root not in sys.path:
        sys.path.append(root)


def _module_of_file(spec: str, path: Path):
    """The module of a plug-in file, loaded once per process under a name of its own."""
    path = path.resolve()
    if not path.is_file():
        raise FileNotFoundError(f"agent {spec!r}: no file {path}")
    name = "agents_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))
    sys.modules[name] = module
    try:
        module.__spec__.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise ValueError(f"agent {spec!r}: importing {path} failed{_where(e, path)}: {type(e).__name__}: {e}") \
            from None
    return module


def _where(e: Exception, path: Path) -> str:
    """ ' (line N)' of the error's last line inside the plug-in's file, when it has one."""
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path]
    if isinstance(e, SyntaxError) and e.filename and Path(e.filename) == path:
        lines.append(e.lineno)
    return f" (line {lines[-1]})" if lines else ""


def _module(spec: str, name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and (name == e.name or name.startswith(e.name + ".")):
            raise ValueError(f"agent {spec!r}: no module named {e.name!r} (a plug-in module must be importable: "
                             "installed, or on PYTHONPATH)") from None
        raise ValueError(f"agent {spec!r}: importing {name} failed: {type(e).__name__}: {e}") from None
    except Exception as e:
        where = getattr(sys.modules.get(name), "__file__", None) or name
        raise ValueError(f"agent {spec!r}: importing {where} failed: {type(e).__name__}: {e}") from None


def load(spec: str):
    """The class or factory a plug-in spec names (its file or module imported); clear errors otherwise."""
    target, attr, is_file = split(spec)
    module = _module_of_file(spec, Path(target)) if is_file else _module(spec, target)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            where = Path(target).resolve() if is_file else target
            found = sorted(k for k, v in vars(module).items() if inspect.isclass(v) and not k.startswith("_"))
            raise ValueError(f"agent {spec!r}: {where} has no attribute {attr!r}"
                             + (f" (its classes: {', '.join(found)})" if found else ""))
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {spec!r}: {attr} is not a class or factory (it is {type(obj).__name__})")
    if inspect.isclass(obj) and not _acts(obj):
        raise ValueError(f"agent {spec!r}: class {attr} is not an agent: it has neither act(obs, mask) nor "
                         "act_batch(obs, masks)")
    return obj


def _acts(x) -> bool:
    return callable(getattr(x, "act", None)) or callable(getattr(x, "act_batch", None))


def check(spec: str, game: str) -> None:
    """Refuse a plug-in that make(spec, game) would refuse before building it: a bad spec, file or module, no
    such attribute, a class that is no agent or declares another game. Imports the file or module."""
    check_plays(load(spec), game, f"agent {spec!r}")


def parameters(function) -> dict:
    """The parameters a function takes by keyword ({} when it does not say): what a caller may offer it."""
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}
    return {k: p for k, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def make(spec: str, game: str, offered: dict) -> Agent:
    """The plug-in agent built for `game` with the keywords of `offered` its target names, as an Agent."""
    target = load(spec)
    check_plays(target, game, f"agent {spec!r}")
    params = parameters(target)
    agent = target(**{k: v for k, v in offered.items() if k in params})
    if not _acts(agent):
        raise ValueError(f"agent {spec!r}: {target.__name__}(...) gave a {type(agent).__name__}, which has neither "
                         "act(obs, mask) nor act_batch(obs, masks)")
    check_plays(agent, game, f"agent {spec!r}")
    return Agent.wrap(agent)
