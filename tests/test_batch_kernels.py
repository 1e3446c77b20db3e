"""The games' batch kernels (quando_env/<game>/batch.py) stay thin and alike: each loops over the listed games and
calls one game's rules from its engine.py, and a kernel of one name reads the same in every game but for those calls.
numba caches only module-level kernels on disk (a kernel built by a factory compiles anew in every process), so each
game writes its batch kernels out; this test keeps the copies from drifting apart or growing logic of their own."""
import ast
import importlib
from pathlib import Path

import quando_env
from quando_env.registry import game_class

GAMES = ("quando", "cabo", "help")
CONTRACT = {"reset_kernel", "step_kernel", "step_kernel_parallel", "redeal_kernel", "mask_kernel"}
LOOPS = ("range", "prange")
DECORATORS = ("njit(cache=True)", "njit(cache=True, parallel=True)")     # module level, cached on disk


def sources() -> dict[str, str]:
    return {g: (Path(quando_env.__file__).parent / g / "batch.py").read_text() for g in GAMES}


def kernels(game: str, source: str, problems: list) -> dict[str, str]:
    """{kernel name: its shape}: the AST without the docstring, the parameters and what the game's own calls (the
    names imported from .engine) pass. Whatever is not thin goes into `problems`."""
    tree = ast.parse(source)
    own = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "engine"
           and node.level == 1 for a in node.names}
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (isinstance(node, ast.Expr)
                                                              and isinstance(node.value, ast.Constant)):
            continue
        if not isinstance(node, ast.FunctionDef):
            problems.append(f"{game}: batch.py holds {ast.unparse(node)[:60]!r}, not a kernel")
            continue
        where = f"{game}: {node.name}"
        decorators = [ast.unparse(d) for d in node.decorator_list]
        if len(decorators) != 1 or decorators[0] not in DECORATORS:
            problems.append(f"{where} is decorated {decorators}, not one of {DECORATORS}")
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        for stmt in body:
            thin(stmt, own, where, problems)
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in own:
                call.func.id, call.args, call.keywords = "GAME", [], []
        node.body, node.args = body, ast.arguments([], [], None, [], [], None, [])
        out[node.name] = ast.dump(node)
    return out


def thin(stmt, own, where, problems) -> None:
    """A kernel is a loop over the games whose body names a game (`g = games[i]`) and calls the game's rules, and
    at most returns first_error(...)."""
    if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call) and ast.unparse(stmt.iter.func) in LOOPS:
        for inner in stmt.body:
            if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Subscript):
                continue
            if (isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call)
                    and isinstance(inner.value.func, ast.Name) and inner.value.func.id in own):
                continue
            problems.append(f"{where}: {ast.unparse(inner)!r} in the loop is neither a game's name nor a call of "
                            f"the game's rules")
    elif isinstance(stmt, ast.Return) and ast.unparse(stmt).startswith("return first_error("):
        return
    else:
        problems.append(f"{where}: {ast.unparse(stmt).splitlines()[0]!r} is logic of its own (a kernel loops over "
                        f"the games and calls the rules)")


def check(srcs: dict[str, str]) -> list[str]:
    """Every problem with the games' batch modules: not thin, a contract kernel missing, or a kernel whose shape
    differs between games."""
    problems = []
    shapes = {g: kernels(g, src, problems) for g, src in srcs.items()}
    for g, ks in shapes.items():
        problems += [f"{g}: no {name} in batch.py" for name in sorted(CONTRACT - set(ks))]
    for name in sorted({n for ks in shapes.values() for n in ks}):
        having = {g: ks[name] for g, ks in shapes.items() if name in ks}
        if len(set(having.values())) > 1:
            problems.append(f"{name} differs between {sorted(having)} beyond the game's own calls")
    return problems


def test_batch_kernels_are_thin_and_alike():
    assert check(sources()) == []


def test_the_games_step_with_their_batch_kernels():
    for g in GAMES:
        batch = importlib.import_module(f"quando_env.{g}.batch")
        cls = game_class(g)
        assert cls.kernels.step is batch.step_kernel and cls.kernels.masks is batch.mask_kernel


def test_check_finds_a_kernel_grown_logic_of_its_own():
    srcs = sources()
    loop = "        step_one(states[games[i]], actions[i], cfg, rewards[games[i]], flags[games[i]], masks[games[i]])\n"
    assert srcs["cabo"].count(loop) == 2
    grown = dict(srcs, cabo=srcs["cabo"].replace(loop, loop + "        if actions[i] == 0:\n"
                                                 "            rewards[games[i]] *= 2\n", 1))
    assert any(p.startswith("cabo: step_kernel: 'if actions[i] == 0:") for p in check(grown)), check(grown)
    # thin, but unlike the other games' step kernels: a second call of the rules in the loop
    again = "        mask_one(states[games[i]], cfg, masks[games[i]])\n"
    twice = dict(srcs, help=srcs["help"].replace(loop, loop + again, 1))
    assert check(twice) == ["step_kernel differs between ['cabo', 'help', 'quando'] beyond the game's own calls"]
    missing = dict(srcs, quando=srcs["quando"].replace("def redeal_kernel(", "def redeal_kernels("))
    assert "quando: no redeal_kernel in batch.py" in check(missing)


def test_the_record_checks_loop_alike():
    """check_kernel, the batch loop over a game's check_one, is the same code in every game."""
    dumps = set()
    for g in GAMES:
        tree = ast.parse((Path(quando_env.__file__).parent / g / "state_checks.py").read_text())
        (kernel,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "check_kernel"]
        dumps.add(ast.dump(kernel))
    assert len(dumps) == 1
