"""Every code block of README.md and docs/**/*.md runs as written, and the site builds with warnings as errors.

The rule (docs/contributing.md): ```python blocks are executed, each in a fresh namespace unless its fence says
```python continued (then it goes on in the namespace of the block before it in the same file); every command of a
```bash block, and every `$ ` line of a ```console block, is checked by its program's own parser (or is one of
README's CI commands, a pip install of extras that exist, or the docs build); ```bash run blocks are also executed.
Everything runs in a temporary folder.
"""
import importlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from quando_env import registry

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)]
FENCE = re.compile(r"^(`{3,})([\w-]*)(.*)$")


def blocks(text: str) -> list[tuple[int, str, list[str], str]]:
    """(line, language, the fence's other words, code) of each top-level fenced block."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, start = m.group(1), i
        i += 1
        while i < len(lines) and lines[i].rstrip() != ticks:
            i += 1
        out.append((start + 1, m.group(2), m.group(3).split(), "\n".join(lines[start + 1:i]) + "\n"))
        i += 1
    return out


def page_blocks(language: str) -> list[tuple[Path, int, list[str], str]]:
    return [(page, line, words, code) for page in PAGES for line, lang, words, code in blocks(page.read_text())
            if lang == language]


def run_python(page: str, found: list[tuple[int, list[str], str]]) -> None:
    """Execute one page's python blocks in order: a fresh namespace each, or the previous one if `continued`."""
    namespace = {}
    for line, words, code in found:
        if "continued" not in words:
            namespace = {"__name__": "__docs__"}
        exec(compile(code, f"{page}:{line}", "exec"), namespace)


def python_cases():
    by_page = {}
    for page, line, words, code in page_blocks("python"):
        by_page.setdefault(page, []).append((line, words, code))
    cases = []
    for page, found in by_page.items():
        ray = any("init_ray" in code for _, _, code in found)   # shares the session's Ray worker (conftest)
        marks = [pytest.mark.xdist_group("ray")] if ray else []
        cases.append(pytest.param(page, found, ray, marks=marks, id=str(page.relative_to(ROOT))))
    return cases


@pytest.mark.parametrize("page, found, ray", python_cases())
def test_python_blocks_run(page, found, ray, tmp_path, monkeypatch, request):
    if ray:
        request.getfixturevalue("ray_local")
    monkeypatch.chdir(tmp_path)
    before = dict(registry.GAMES)           # a page may register a game (adding-a-game.md): taken out after
    request.addfinalizer(lambda: (registry.GAMES.clear(), registry.GAMES.update(before)))
    run_python(str(page.relative_to(ROOT)), found)


def test_a_broken_or_unjoined_block_fails():
    """The runner itself: a block using a name it does not define fails unless its fence says `continued`."""
    page = ("x = 1\n```python\nimport math\ny = math.pi\n```\n"
            "```python continued\nprint(y)\n```\n"
            "```python\nprint(y)\n```\n")
    found = [(line, words, code) for line, lang, words, code in blocks(page) if lang == "python"]
    assert [words for _, words, _ in found] == [[], ["continued"], []]
    run_python("page.md", found[:2])
    with pytest.raises(NameError, match="'y' is not defined"):
        run_python("page.md", found)


def ci_commands() -> list[str]:
    """The commands .ci/run runs (after its `cd` and the system packages of .ci/browser): CI installs and tests
    the project exactly as README says."""
    return [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
            if line and not line.startswith(("#", "set ", "cd ", ".ci/browser"))]


def test_readme_has_ci_commands():
    readme = [code.strip() for _, lang, _, code in blocks((ROOT / "README.md").read_text()) if lang == "bash"]
    assert ci_commands() and all(command in readme for command in ci_commands())


def test_readme_names_the_quick_subset_that_pyproject_registers():
    """`pytest -m quick -n 2` checks an install in about a minute: the marker is registered (--strict-markers
    passes) and marks a sample of every game's rules and of the envs, records and information model."""
    import tomllib

    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("quick:") and "pytest -m quick -n 2" in m for m in markers)
    assert "`pytest -m quick -n 2`" in (ROOT / "README.md").read_text()
    marked = {p.name for p in (ROOT / "tests").glob("test_*.py") if "@pytest.mark.quick\n" in p.read_text()}
    assert {f"test_{game}_{part}.py" for game in ("quando", "cabo", "help") for part in ("rules",)} <= marked
    assert {"test_quando_aec.py", "test_cabo_env.py", "test_help_env.py", "test_generic_tools.py", "test_records.py",
            "test_quando_vec_env.py", "test_quando_information.py"} <= marked


def commands(code: str, prompt: str = "") -> list[list[str]]:
    """Each command of a shell block as argv (comments dropped, `&&` chains split); with a `prompt` ("$ " in a
    console block) only the lines after it are commands, the others their output."""
    out = []
    for line in code.splitlines():
        if not line.startswith(prompt):
            continue
        line = line[len(prompt):]
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(words[:cut])
            words = words[cut + 1:]
    return out


def cli_parser(argv: list[str]):
    """The parse_args (or parser().parse_args) of the program `python X.py ...` or `python -m M ...` runs, and
    the arguments it gets."""
    if argv[1] == "-m":
        module, args = importlib.import_module(argv[2]), argv[3:]
        if argv[2] == "quando_env":
            module = importlib.import_module("quando_env.__main__")
    else:
        spec = importlib.util.spec_from_file_location("docs_cli_" + Path(argv[1]).stem, ROOT / argv[1])
        module, args = importlib.util.module_from_spec(spec), argv[2:]
        spec.loader.exec_module(module)   # its `if __name__ == "__main__"` stays off
    home = sys.modules.get(getattr(getattr(module, "main", None), "__module__", None))   # where main comes from
    for candidate in (module, home or module):
        if hasattr(candidate, "parse_args"):
            return candidate.parse_args, args
        if hasattr(candidate, "parser"):
            return candidate.parser().parse_args, args
    raise AssertionError(f"{shlex.join(argv)}: the program has no parse_args or parser() to check it with")


def shell_cases():
    ci = ci_commands()
    cases = []
    found = [(*block, "") for block in page_blocks("bash")] + [(*block, "$ ") for block in page_blocks("console")]
    for page, line, words, code, prompt in found:
        where = f"{page.relative_to(ROOT)}:{line}"
        if code.strip() in ci:
            continue    # .ci/run runs it (test_readme_has_ci_commands keeps them in sync)
        cases += [pytest.param(argv, id=f"{where}:{shlex.join(argv)[:60]}") for argv in commands(code, prompt)]
        if "run" in words:
            cases.append(pytest.param(code, id=f"{where}:run"))
    return cases


@pytest.mark.parametrize("command", shell_cases())
def test_shell_commands(command, tmp_path, monkeypatch, capsys):
    """In a fresh folder that sees the repository's scripts and examples (paths as in the docs), and gets what
    they write."""
    monkeypatch.chdir(tmp_path)
    for name in ("evaluate.py", "train.py", "examples", "benchmarks", "constraints.txt", "pyproject.toml"):
        (tmp_path / name).symlink_to(ROOT / name)
    if isinstance(command, str):    # a ```bash run block: executed
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return
    argv = command
    if argv[0] == "python":
        parse, args = cli_parser(argv)
        try:
            parse(args)
        except SystemExit as e:
            pytest.fail(f"{shlex.join(argv)} is refused by its parser (exit {e.code}): {capsys.readouterr().err}")
    elif argv[:2] == ["pip", "install"]:
        extras = set(re.findall(r"\w[\w-]*", "".join(re.findall(r"\[([^]]*)\]", " ".join(argv)))))
        defined = set(re.findall(r"^(\w[\w-]*) = \[", (ROOT / "pyproject.toml").read_text(), re.M))
        assert extras <= defined, f"{shlex.join(argv)}: extras {sorted(extras - defined)} are not in pyproject.toml"
        assert "-c" not in argv or (ROOT / argv[argv.index("-c") + 1]).is_file()
    elif argv[0] == "sphinx-build":
        assert argv[1:3] == ["-W", "--keep-going"], "build the docs as the test does, warnings as errors"
    else:
        pytest.fail(f"{shlex.join(argv)}: no check for this command (docs/contributing.md: write it inline instead)")


def test_sphinx_build(tmp_path):
    """The site builds with every warning an error; the observation and move-feature tables come from the code."""
    done = subprocess.run([sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    from quando_env import quando_v0

    name, start, stop, _ = quando_v0.VectorGame.observation_layout_of(4).rows()[-1]
    page = (tmp_path / "games" / "quando.html").read_text()
    assert f"<td><p>{start}..{stop - 1}</p></td>" in page and name in page
    name, start, stop, _ = quando_v0.VectorGame.action_feature_layout_of(4).rows()[-1]
    assert "action_feature_layout_of(n)" in page and f"<td><p>{start}..{stop - 1}</p></td>" in page and name in page
    for game in ("cabo", "help"):
        assert f"{game}_v0.VectorGame.action_feature_layout_of(n)" in (tmp_path / "games" / f"{game}.html").read_text()


def test_layout_sizes_in_n():
    """The generated tables write a section's size as a function of the player count, or its sizes if not linear."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from obs_layout import size_formula

    assert size_formula({2: 5, 3: 5, 4: 5}) == "5"
    assert size_formula({2: 2, 3: 3}) == "n"
    assert size_formula({2: 132, 3: 264, 6: 660}) == "132 (n-1)"
    assert size_formula({2: 220, 3: 275}) == "55 (n+2)"
    assert size_formula({3: 10, 4: 12, 5: 20}) == "10 (3 players), 12 (4 players), 20 (5 players)"
