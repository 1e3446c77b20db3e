"""No module of quando_env (its agents included) imports, at any level (inside functions too), a module that
imports it back, directly or through others: each seam between two modules runs one way; and the rooms of the
agents are layered: the players (quando_env.agents) import neither evaluation nor training, evaluation never
training. The imports are read from the sources with ast, so an import written inside a function (to break a
cycle at run time) still counts. And no module is over 700 lines."""
import ast
from pathlib import Path

import quando_env

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("quando_env",)
ROOMS = ("quando_env.agents", "quando_env.evaluation", "quando_env.training")    # each imports only those before it


def module_files() -> dict[str, Path]:
    """Every module of the packages by dotted name (a package by its own name, from its __init__.py)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(name: str, path: Path, modules) -> set[str]:
    """The modules of `modules` that module `name` (at `path`) imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # `from a import b` imports module a.b where there is one, else the name b from a
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:      # `import a.b.c` is a.b.c if it is a module, else a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(graph) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), set()

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def room(module: str) -> int:
    """The place of `module`'s room in ROOMS, -1 outside them."""
    return next((i for i, r in enumerate(ROOMS) if module == r or module.startswith(r + ".")), -1)


def upward(graph) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a room imports a later one."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if -1 < room(a) < room(b))


def test_the_layer_check_finds_an_import_running_back_up():
    graph = {"quando_env.agents.learned": {"quando_env.training.learner.net", "quando_env.checks"},
             "quando_env.training.sb3": {"quando_env.agents.ppo", "quando_env.evaluation.plots"},
             "quando_env.evaluation.cli": {"quando_env.agents"}}
    assert upward(graph) == [("quando_env.agents.learned", "quando_env.training.learner.net")]


def test_players_import_neither_evaluation_nor_training_and_evaluation_never_training():
    graph = import_graph()
    assert {"quando_env.agents.learned", "quando_env.evaluation.matches", "quando_env.training.sb3"} <= set(graph)
    assert upward(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_third_module():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == {("a", "b", "c")}


def test_imports_inside_functions_and_relative_imports_are_read():
    graph = import_graph()
    assert "quando_env.registry" in graph["quando_env.cli.play"]         # from ..registry import game_module
    assert "quando_env.web.server" in graph["quando_env.cli"]           # inside main()


def test_quando_env_has_no_import_cycles():
    assert "quando_env.agents.learned" in import_graph()              # the agents are read too
    assert cycles(import_graph()) == set()


MAX_LINES = 700      # a module one reads in a sitting; a bigger one holds two things


def long_modules(root: Path) -> dict:
    return {str(p.relative_to(root)): n for p in sorted(root.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_LINES}


def test_no_module_of_the_package_is_over_700_lines(tmp_path):
    assert long_modules(Path(quando_env.__file__).parent) == {}
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_modules(tmp_path) == {"big.py": MAX_LINES + 1}
