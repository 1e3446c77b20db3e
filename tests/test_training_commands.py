"""The two training commands speak one vocabulary (--seconds, --resume continuing the run in --out), show their
defaults in --help, and train.py's bar names the phase it is in."""
import subprocess
import sys
from pathlib import Path

import pytest

from quando_env.agents import learner, training

ROOT = Path(__file__).resolve().parents[1]


def test_learner_help_shows_the_evaluation_and_checkpoint_defaults():
    text = " ".join(learner.parser("train.py").format_help().split())
    assert "decisions between evaluations (default 2,000,000" in text
    assert "decisions between checkpoints (default 5,000,000)" in text


def test_the_bar_names_the_phase():
    run = learner.Learner(learner.Hyper(game="help", bc_decisions=100, num_games=4, rollout_steps=8))
    assert learner.phase(run) == "help imitation of heuristic"
    run.imitating = False
    assert learner.phase(run) == "help PPO"


def test_sb3_training_takes_seconds_as_train_py_does(tmp_path, capsys):
    args = training.parse_args(["--seconds", "90", "--out", str(tmp_path / "run")])
    assert args.seconds == 90.0
    with pytest.raises(SystemExit):
        training.parse_args(["--seconds", "90", "--time-limit", "2"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_sb3_resume_alone_continues_the_run_in_out(tmp_path, capsys):
    out = tmp_path / "run"
    with pytest.raises(SystemExit):
        training.parse_args(["--resume", "--out", str(out)])
    assert "argument --resume: " in capsys.readouterr().err
    out.mkdir()
    (out / "final_model.zip").write_bytes(b"")
    assert training.parse_args(["--resume", "--out", str(out)]).resume == str(out / "final_model.zip")
    assert training.parse_args(["--resume", str(out / "final_model.zip")]).resume == str(out / "final_model.zip")


def test_evaluate_cli_runs_as_a_module():
    r = subprocess.run([sys.executable, "-m", "quando_env.agents.evaluate_cli", "--agents", "random", "random",
                        "--games", "2", "--no-progress"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "random" in r.stdout, r.stderr
