"""`python -m quando_env warmup` compiles every game's kernels into numba's disk cache, one line per game; a
later run finds them cached. The commands that play a game (demo, play, evaluate, train) say so before compiling
with a cold cache."""
import os
import subprocess
import sys

from quando_env.cli import main
from quando_env.registry import game_names


def run(*args, **env):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})


def game_lines(out: str) -> dict:
    return {line.split(":")[0].strip(): line for line in out.splitlines() if line.startswith("  ")}


def test_warmup_names_every_game_and_a_second_run_finds_them_cached(capsys):
    assert main(["warmup"]) == 0          # compiles what is not cached yet (or finds it loaded)
    first = game_lines(capsys.readouterr().out)
    assert list(first) == game_names()
    second = run("-m", "quando_env", "warmup")          # a new process: everything from the disk cache
    assert second.returncode == 0, second.stderr
    lines = game_lines(second.stdout)
    assert list(lines) == game_names()
    assert all(line.split(": ", 1)[1].startswith("cached: ") and "loaded from the disk cache" in line
               for line in lines.values()), second.stdout
    check = "from quando_env.cli.warmup import cold; print([cold(g) for g in ('quando', 'cabo', 'help')])"
    assert run("-c", check).stdout.strip() == "[False, False, False]"


def test_a_cold_cache_is_told_before_compiling(tmp_path):
    tell = "from quando_env.cli.warmup import cold, notice; print(cold('cabo')); notice('cabo')"
    out = run("-c", tell, NUMBA_CACHE_DIR=str(tmp_path)).stdout.splitlines()
    assert out[0] == "True"
    assert out[1].startswith("Compiling the cabo kernels for first use: 30-60 s, once") and "warmup" in out[1]
    assert run("-c", tell).stdout.splitlines() == ["False"]     # the suite's cache is warm: nothing said


def test_the_cli_help_mentions_warmup():
    out = run("-m", "quando_env", "--help").stdout
    assert "warmup" in out and "compile every game's numba kernels ahead" in out


def first_line(args, cache) -> str:
    """The first line the command prints with numba's cache in `cache`; the command is then stopped (it would
    go on compiling)."""
    p = subprocess.Popen([sys.executable, "-m", "quando_env", *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    try:
        return p.stdout.readline()
    finally:
        p.kill()
        p.wait()


def test_demo_and_play_tell_a_cold_cache_first(tmp_path):
    record = str(tmp_path / "game.json")
    for args in (["demo", "--game", "help", "--record", record],
                 ["play", "--game", "help", "--opponents", "random", "--record", record]):
        assert first_line(args, tmp_path / "cache").startswith("Compiling the help kernels for first use"), args


def test_evaluate_and_both_training_algorithms_tell_a_cold_cache_first(tmp_path):
    out = str(tmp_path / "run")
    for args in (["evaluate", "--game", "help", "--agents", "random", "random", "random", "--games", "3"],
                 ["train", "--game", "help", "--timesteps", "100", "--out", out],
                 ["train", "--algo", "sb3", "--game", "help", "--timesteps", "100", "--out", out]):
        line = first_line(args, tmp_path / "cache")
        assert line.startswith("Compiling the help kernels for first use: 30-60 s"), (args, line)


def test_agents_count_among_the_kernels_compiled_first():
    from quando_env.agents.help.heuristic import heuristic_kernel
    from quando_env.cli.first_use import first_kernels

    assert heuristic_kernel in first_kernels("help", agents=True)
    assert heuristic_kernel not in first_kernels("help")
