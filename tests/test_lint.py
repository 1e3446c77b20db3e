"""The code passes ruff with the project's configuration (pyproject.toml [tool.ruff]: line length, pyflakes,
pycodestyle, a complexity limit with named exceptions)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = (".",)   # the package, tests, benchmarks, examples, notebooks


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *CHECKED], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_runs_with_the_projects_configuration():
    """The configuration is read (a line over its length is flagged), so a pass above means something."""
    long_line = "x = " + "1 + " * 40 + "1\n"
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename",
                           "quando_env/probe.py", "-"], cwd=ROOT, input=long_line, capture_output=True, text=True)
    assert done.returncode == 1 and "E501" in done.stdout and "> 120" in done.stdout
