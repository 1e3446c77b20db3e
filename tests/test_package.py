"""The package as users get it: the agents under quando_env's own name alone (one module, one name), one front
door `python -m quando_env train|evaluate`, a missing extra named with its pip command, PettingZoo's and
Gymnasium's registries, and the wheel's contents."""
import functools
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import quando_env
from quando_env.extras import MODULES, install_command

ROOT = Path(__file__).resolve().parents[1]
MODEL = "quando_env/agents/models/learned_quando_4p.npz"


def python(code: str, cwd=ROOT, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_one_module_has_one_name():
    """quando_env.agents' modules answer to their own name alone: reload reruns them, importlib.resources lists
    their files, find_spec finds them by that name; the old short name `agents` says where they are now."""
    import importlib
    import importlib.resources
    import importlib.util

    import quando_env.training.learner as learner

    with pytest.raises(ImportError, match=r"`agents` is now `quando_env\.agents`"):
        import agents.learner  # noqa: F401
    assert learner.__spec__.name == "quando_env.training.learner"
    assert importlib.util.find_spec("quando_env.training.learner").name == "quando_env.training.learner"
    assert importlib.reload(learner) is learner and learner.__spec__.name == "quando_env.training.learner"
    assert "heuristic.py" in {f.name for f in importlib.resources.files("quando_env.agents.cabo").iterdir()}
    assert not [name for name, module in sys.modules.items() if name.split(".")[0] in ("quando_env", "agents")
                and getattr(module, "__spec__", None) is not None and module.__spec__.name != name]


def test_python_m_agents_says_the_new_name():
    r = subprocess.run([sys.executable, "-m", "agents.distill", "--help"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode != 0 and "python -m quando_env.agents.X" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-m", "quando_env.training.distill", "--help"], capture_output=True,
                       text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m quando_env.training.distill"), r.stderr


OLD_COMMANDS = ("learner", "training", "distill", "credit", "strength", "evaluate_cli")


@pytest.mark.parametrize("old", OLD_COMMANDS)
def test_an_old_command_runs_the_module_that_moved(old):
    """`python -m quando_env.agents.X`, documented before training and evaluation left the players' room, runs
    the new module with the same arguments and prints nothing else."""
    from quando_env.agents.moved import MOVED
    from quando_env.evaluation.strength import table

    r = subprocess.run([sys.executable, "-m", f"quando_env.agents.{old}", "--help"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout == table() if old == "strength" else r.stdout.startswith(f"usage: python -m {MOVED[old]} ")


def test_importing_a_module_that_moved_names_its_new_one():
    import importlib
    import importlib.util

    from quando_env.agents.moved import MOVED

    assert set(OLD_COMMANDS) < set(MOVED)
    for old, new in MOVED.items():
        with pytest.raises(ImportError, match=rf"^quando_env\.agents\.{old} is now {re.escape(new)}: write "):
            importlib.import_module(f"quando_env.agents.{old}")
        assert f"quando_env.agents.{old}" not in sys.modules
        assert not (ROOT / "quando_env" / "agents" / f"{old}.py").exists()       # no file: git sees the move
        assert importlib.util.find_spec(new).name == new
    with pytest.raises(ImportError, match="now quando_env.training.sb3"):
        from quando_env.agents import training  # noqa: F401
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("quando_env.agents.nothing")


def test_repository_model_paths_name_the_shipped_models(tmp_path, monkeypatch):
    from quando_env.agents import check_agent, make_agent

    monkeypatch.chdir(tmp_path)
    check_agent("learned:agents/models/learned_cabo_4p.npz", game="cabo")
    agent = make_agent("learned:agents/models/learned_quando_4p.npz", game="quando")
    assert agent.path == ROOT / MODEL
    with pytest.raises(FileNotFoundError, match="agents/models/nothing.npz"):
        check_agent("learned:agents/models/nothing.npz", game="quando")


def test_import_quando_env_and_its_command_line_stay_free_of_torch_and_agents():
    r = python("import sys, quando_env, quando_env.cli, quando_env.__main__\n"
               "print(sorted(m for m in ('torch', 'agents', 'quando_env.agents', 'tqdm') if m in sys.modules))")
    assert r.stdout.strip() == "[]", r.stderr


def test_version():
    assert quando_env.__version__.count(".") == 2 and all(x.isdigit() for x in quando_env.__version__.split("."))


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_front_door_commands_have_help_and_check_like_the_scripts(command, capsys):
    from quando_env.cli import main, parse_args

    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith(f"usage: python -m quando_env {command}")
    args = parse_args([command, "--game", "cabo"] + (["--agents", "heuristic", "random"] if command == "evaluate"
                                                      else ["--timesteps", "1000"]))
    assert (args.hyper.game if command == "train" else args.game) == "cabo"
    with pytest.raises(SystemExit):
        main([command, "--games" if command == "evaluate" else "--timesteps", "0"])
    assert f"python -m quando_env {command}: error: argument" in capsys.readouterr().err


def test_front_door_lists_train_and_evaluate(capsys):
    from quando_env.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "train" in out and "evaluate" in out


def test_a_missing_extra_is_named_with_its_pip_command():
    """Without the train extra's modules: one line naming the clone's pip command, no traceback."""
    hint = install_command("train")
    r = python("import sys; sys.modules['torch'] = None\n"
               "from quando_env.cli import main; sys.exit(main(['train', '--game', 'cabo']))")
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"python -m quando_env train: error: this command needs torch, which the train extra installs: {hint} "
        "(in the clone's root folder)"]
    r = python("import sys; sys.modules['tqdm'] = None\n"
               "from quando_env.cli import main; sys.exit(main(['evaluate', '--agents', 'random', 'random']))")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1 and hint in r.stderr, r.stderr
    r = python("import sys; sys.modules['stable_baselines3'] = sys.modules['sb3_contrib'] = None\n"
               "import quando_env\n"
               "from quando_env.agents import make_agent\n"
               "for make in (lambda: quando_env.make_vec_env(2), lambda: make_agent('ppo', game='quando')):\n"
               "    try:\n"
               "        make()\n"
               "    except ModuleNotFoundError as e:\n"
               "        print(e)\n")
    assert r.stdout.splitlines() == [
        f"make_vec_env (an SB3 VecEnv) needs stable_baselines3, which the train extra installs: {hint} "
        "(in the clone's root folder)",
        f"the ppo agent needs sb3_contrib, which the train extra installs: {hint} (in the clone's root folder)"], \
        r.stderr


def test_every_extra_missing_says_the_install_that_works_from_the_clone():
    """Each extra's first module missing, in one process: each message is one line with that extra's pip command
    from the clone (-e, constraints.txt), never `pip install "quando_env[...]"` (the package is on no index)."""
    code = ("import contextlib, io, sys\n"
            f"for m in {[mods[0] for mods in MODULES.values()]}: sys.modules[m] = None\n"
            "import quando_env\n"
            "from quando_env import picture\n"
            "from quando_env.evaluation.cli import ray_runner\n"
            "from quando_env.cli import main\n"
            "tries = [lambda: quando_env.make_vec_env(2), picture.pygame_module, lambda: ray_runner('local'),\n"
            "        lambda: __import__('quando_env.integrations.rllib'),\n"
            "        lambda: __import__('quando_env.integrations.openspiel'), lambda: __import__('quando_env.jax')]\n"
            "for t in tries:\n"
            "    try:\n"
            "        t()\n"
            "    except Exception as e:\n"
            "        print(e)\n"
            "err = io.StringIO()\n"
            "with contextlib.redirect_stderr(err):\n"
            "    main(['serve', '--game', 'cabo', '--players', '2'])\n"
            "print(err.getvalue().strip())\n")
    lines = python(code).stdout.splitlines()
    assert len(lines) == len(MODULES) + 1, lines    # serve's line is the web extra's second
    named = {extra for extra in MODULES for line in lines if install_command(extra) in line}
    assert named == set(MODULES) and not any("quando_env[" in line for line in lines), lines
    assert all(install_command(extra) == f'pip install -c constraints.txt -e ".[{extra}]"' for extra in MODULES)


@pytest.mark.parametrize("opponents", ["learned", "learned:" + MODEL])
def test_learned_opponents_with_num_players(opponents):
    env = gym.make("Quando-v0", num_players=4, opponents=opponents)
    assert env.reset(seed=0)[0].shape == env.observation_space.shape
    envs = gym.make_vec("Quando-v0", num_envs=2, num_players=4, opponents=opponents)
    assert envs.reset(seed=0)[0].shape == envs.observation_space.shape
    venv = quando_env.make_vec_env(2, num_players=4, opponents=opponents)
    assert venv.reset().shape == (2, *venv.observation_space.shape)


def test_check_env_with_random_illegal_actions_passes_without_pygame(monkeypatch):
    from gymnasium.utils.env_checker import check_env

    monkeypatch.setitem(sys.modules, "pygame", None)
    env = gym.make("Cabo-v0", illegal_action="random")
    assert env.unwrapped.metadata["render_modes"] == ["ansi"]
    check_env(env.unwrapped)


def test_pettingzoo_registry_makes_every_game():
    import pettingzoo

    for name in quando_env.game_names():
        env = pettingzoo.make("aec", f"quando_env/{name.capitalize()}-v0", num_players=3)
        env.reset(seed=0)
        assert env.unwrapped.game.name == name and len(env.possible_agents) == 3


def test_module_prefixed_id_in_spawned_workers():
    """A spawned worker has not imported quando_env: "quando_env:Cabo-v0" imports it before the id."""
    envs = gym.vector.AsyncVectorEnv([functools.partial(gym.make, "quando_env:Cabo-v0", num_players=3)] * 2,
                                     context="spawn")
    try:
        obs, info = envs.reset(seed=0)
        assert obs.shape == (2, quando_env.registry.game_class("cabo").obs_dim_of(3))
        assert info["action_mask"].any(axis=1).all()
    finally:
        envs.close()


def test_vector_mask_is_empty_at_an_episode_end_and_its_action_ignored():
    envs = gym.make_vec("Help-v0", num_envs=4, episode="round")
    obs, info = envs.reset(seed=0)
    ended = 0
    for _ in range(400):
        masks = info["action_mask"].astype(bool)
        actions = [np.flatnonzero(m)[0] if m.any() else envs.single_action_space.n - 1 for m in masks]
        obs, reward, terminated, truncated, info = envs.step(actions)
        done = terminated | truncated
        assert not info["action_mask"][done].any() and info["action_mask"][~done].any(axis=1).all()
        ended += int(done.sum())
    assert ended > 0


def build_wheel(tmp_path) -> Path:
    """The wheel of the repository's files (those git keeps or would), built offline without build isolation."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout
    src = tmp_path / "src"
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes((ROOT / name).read_bytes())
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                        "-q", "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = (tmp_path / "dist").glob("quando_env-*.whl")
    return wheel


def test_the_wheel_installs_quando_env_alone_with_its_agents_and_models(tmp_path):
    wheel = build_wheel(tmp_path)
    assert wheel.name.startswith(f"quando_env-{quando_env.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"quando_env", f"quando_env-{quando_env.__version__}.dist-info"}, tops
    for shipped in ("quando_env/agents/models/learned_quando_4p.npz", "quando_env/agents/models/ppo_quando_4p.zip",
                    "quando_env/agents/models/win_quando_4p.json", "quando_env/quando/RULES.md",
                    "quando_env/agents/quando/heuristic.py"):
        assert shipped in names
    assert any(n.startswith("quando_env/web/static/") for n in names)
    entry = zipfile.ZipFile(wheel).read(f"quando_env-{quando_env.__version__}.dist-info/entry_points.txt")
    assert "make_agent = quando_env.agents:make_agent" in entry.decode()

    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target",
                        str(site), str(wheel)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not (site / "agents").exists() and (site / "quando_env" / "agents" / "models").is_dir()
    work = tmp_path / "project"                 # a user's folder with an agents package of its own
    (work / "agents").mkdir(parents=True)
    (work / "agents" / "__init__.py").write_text("MINE = True\n")
    r = subprocess.run([sys.executable, "-c",
                        "import agents, quando_env, quando_env.agents\n"
                        "from quando_env import named_agents\n"
                        "print(agents.MINE, quando_env.__file__)\n"
                        "print(type(named_agents.make('heuristic', 'cabo', 4)).__module__)\n"
                        "from quando_env.cli import main\n"
                        "for command in ('evaluate', 'train'):\n"
                        "    try:\n"
                        "        main([command, '--help'])\n"
                        "    except SystemExit:\n"
                        "        pass\n"
                        "print('evaluate', main(['evaluate', '--game', 'help', '--agents', 'learned', 'heuristic', "
                        "'--players', '4', '--games', '2', '--no-progress', '--json', 'e.json']))\n"
                        "print('train', main(['train', '--game', 'help', '--timesteps', '64', '--eval-games', '2', "
                        "'--out', 'run', '--no-progress', '--set', 'num_games=8', '--set', 'rollout_steps=8', "
                        "'--set', 'bc_decisions=0']))\n"],
                       capture_output=True, text=True, cwd=work, env={**os.environ, "PYTHONPATH": str(site)})
    lines = r.stdout.splitlines()
    assert lines[:2] == [f"True {site / 'quando_env' / '__init__.py'}", "quando_env.agents.cabo.heuristic"], \
        r.stdout + r.stderr
    assert lines[2].startswith("usage: python -m quando_env evaluate")
    assert any(line.startswith("usage: python -m quando_env train") for line in lines[3:]), r.stderr
    assert "evaluate 0" in lines and "train 0" in lines, r.stdout[-2000:] + r.stderr[-2000:]   # they run, too
    assert json.loads((work / "e.json").read_text())["games"] == 2 and (work / "run" / "model.npz").is_file()


# How the project was made, which its pages must not speak of (they speak of the project itself): work items
# by number, working sessions, acceptance bars, who decided, the people or agents who did the work.
MAKING = re.compile(r"\b(?:issues?|PR|pull request) ?#?\d+|(?<![\w.])#\d{1,4}\b|(?<!\.)\bsessions?\b|"
                    r"(?<!progress )(?<!error )\bbars?\b|\bwe (?:decided|chose|agreed)\b|\b(?:two|three|four|five|"
                    r"six|the) helpers\b(?! of)|\baudits?\b|\bthe lead\b|\blast (?:session|time)\b", re.I)
LINK = re.compile(r"https?://\S+")


def test_pages_speak_of_the_project_only():
    """README files and the docs never cite the work that made them (an upstream project's issue may be cited by
    link)."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    pages = [f for f in files if f.startswith("docs/") or Path(f).name.lower().startswith("readme")]
    assert "README.md" in pages and "docs/index.md" in pages
    found = [f"{page}:{i}: {m.group(0)!r} in {line.strip()[:100]}" for page in pages
             for i, line in enumerate((ROOT / page).read_text().splitlines(), 1)
             for m in MAKING.finditer(LINK.sub("", line))]
    assert not found, "\n".join(found)


def test_the_making_pattern_finds_what_it_looks_for():
    for text in ("as issue 21 asked", "issue #20", "see #12", "last session's numbers", "the bars of the task",
                 "We decided to", "four helpers measured", "the robustness audit"):
        assert MAKING.search(text), text
    for text in ("a progress bar", "error bars", "the helper gives a card", "quando_env.web.session",
                 "https://github.com/pytest-dev/pytest-xdist/issues/1386"):
        assert not MAKING.search(LINK.sub("", text)), text


def test_every_benchmark_script_imports_and_answers_help():
    """A benchmark is run by hand, so nothing else notices one that no longer imports: each is run with --help."""
    code = ("import runpy, sys\nfor path in sys.argv[1:]:\n    sys.argv = [path, '--help']\n    try:\n"
            "        runpy.run_path(path, run_name='__main__')\n    except SystemExit as e:\n"
            "        assert e.code in (0, None), (path, e.code)\n    else:\n        raise AssertionError(path)\n")
    scripts = sorted(str(p) for p in (ROOT / "benchmarks").glob("*.py"))
    assert len(scripts) >= 10
    r = subprocess.run([sys.executable, "-c", code, *scripts], capture_output=True, text=True, cwd=ROOT / "benchmarks",
                       env={**os.environ, "PYTHONPATH": f"{ROOT / 'benchmarks'}{os.pathsep}{ROOT}"})
    assert r.returncode == 0, r.stderr[-2000:]
