"""The two training commands speak one vocabulary (--seconds, --resume continuing the run in --out), show their
defaults in --help, and train.py's bar names the phase it is in."""
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quando_env.training import learner, sb3

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
    args = sb3.parse_args(["--seconds", "90", "--out", str(tmp_path / "run")])
    assert args.seconds == 90.0
    with pytest.raises(SystemExit):
        sb3.parse_args(["--seconds", "90", "--time-limit", "2"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_sb3_resume_alone_continues_the_run_in_out(tmp_path, capsys):
    out = tmp_path / "run"
    with pytest.raises(SystemExit):
        sb3.parse_args(["--resume", "--out", str(out)])
    assert "argument --resume: " in capsys.readouterr().err
    out.mkdir()
    (out / "final_model.zip").write_bytes(b"")
    assert sb3.parse_args(["--resume", "--out", str(out)]).resume == str(out / "final_model.zip")
    assert sb3.parse_args(["--resume", str(out / "final_model.zip")]).resume == str(out / "final_model.zip")


def test_evaluate_cli_runs_as_a_module_and_draws_no_progress_bar_into_a_pipe():
    r = subprocess.run([sys.executable, "-m", "quando_env.evaluation.cli", "--agents", "random", "random",
                        "--games", "2"], capture_output=True, cwd=ROOT)
    assert r.returncode == 0 and b"random" in r.stdout, r.stderr
    assert b"\r" not in r.stdout + r.stderr                # (bytes: text mode would read each \r as a newline)


# ---------------------------------------------------------------- one front door: train.py --algo learner|sb3
SHARED = ["--game", "--seconds", "--timesteps", "--seed", "--threads", "--out", "--resume", "--eval-every",
          "--eval-games", "--checkpoint-every", "--no-progress"]


def test_train_takes_the_algorithm_and_defaults_to_the_learner(tmp_path):
    from quando_env import cli
    from quando_env.cli import agent_commands

    sb3 = agent_commands.parse_args("train", ["--algo", "sb3", "--game", "cabo", "--seconds", "30", "--out",
                                              str(tmp_path / "a")], prog="train.py")
    assert sb3.reference == "random" and sb3.seconds == 30.0 and sb3.game == "cabo"
    assert agent_commands.parse_args("train", ["--game", "cabo", "--out", str(tmp_path / "b")]).hyper.game == "cabo"
    assert cli.parse_args(["train", "--algo=sb3", "--out", str(tmp_path / "c")]).reference == "random"


def test_a_bad_algorithm_is_refused_naming_the_choices(capsys):
    from quando_env.cli import agent_commands

    with pytest.raises(SystemExit) as e:
        agent_commands.parse_args("train", ["--algo", "dqn"], prog="train.py")
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "train.py: error: argument --algo: invalid choice: 'dqn'" in err and "learner" in err and "sb3" in err


def test_train_help_names_the_algorithms_then_the_chosen_ones_options(capsys):
    from quando_env.cli import agent_commands

    with pytest.raises(SystemExit):
        agent_commands.parse_args("train", ["--algo", "sb3", "--help"], prog="train.py")
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: train.py --algo sb3 ") and "--reference" in out
    assert out.endswith("--algo {learner,sb3}: which algorithm trains (learner: the batched self-play learner (its "
                        "model plays as learned:OUT/best.npz); sb3: MaskablePPO of Stable-Baselines3 (its model plays "
                        "as ppo:OUT/best_model.zip); default learner); the options above are train.py --algo sb3's.")


def test_both_algorithms_speak_one_vocabulary():
    for p in (learner.parser(), sb3.parser()):
        assert set(SHARED) <= set(p._option_string_actions), p.prog


def test_the_sb3_run_keeps_the_model_that_scores_best_against_random_players(tmp_path, monkeypatch):
    """Win rates stay 0 (as against strong players in a short run); points per round move: the kept model is the
    evaluation with the best points, summary.json names it, and a snapshot joins the pool at every evaluation."""
    points = iter([60.0, 40.0, 50.0, 45.0, 45.0, 45.0])
    lineups = []

    class Result:
        def __init__(self, names):
            self.names = names

        def pooled(self):
            return {"ppo": {"win_rate": 0.0, "win_rate_ci95": [0.0, 0.1], "mean_round_points": next(points)}}

    def play_by(agents, games, deadline, clock, names, **kw):
        lineups.append(names)
        return Result(names), games
    monkeypatch.setattr(sb3, "play_by", play_by)
    out = tmp_path / "run"
    rc = sb3.main(["--game", "cabo", "--timesteps", "1536", "--envs", "2", "--eval-every", "512", "--eval-games",
                        "2", "--out", str(out), "--no-progress", "--time-limit", "0"])
    assert rc == 0
    s = json.loads((out / "summary.json").read_text())
    assert [e["mean_round_points"] for e in s["evaluations"]] == [60.0, 40.0, 50.0, 45.0]
    assert [e["pool"] for e in s["evaluations"]] == [0, 0, 1, 2]
    assert s["kept"] == s["evaluations"][1] and s["model"] == str(out / "best_model.zip")
    assert lineups[0] == ["ppo", "random", "random", "random"]
    from sb3_contrib import MaskablePPO
    assert MaskablePPO.load(s["model"], device="cpu").num_timesteps == s["evaluations"][1]["timesteps"] == 512
    assert (out / "curve.png").stat().st_size > 0


def test_score_counts_points_the_games_way_and_breaks_ties_by_win_rate():
    low, high = {"mean_round_points": 20.0, "win_rate": 0.1}, {"mean_round_points": 30.0, "win_rate": 0.0}
    assert sb3.score(low, "cabo") > sb3.score(high, "cabo")       # Cabo: the lowest total wins
    assert sb3.score(high, "help") > sb3.score(low, "help")       # Help!: the highest
    assert sb3.score({**low, "win_rate": 0.2}, "quando") > sb3.score(low, "quando")


def test_the_clock_keeps_the_end_of_the_run_within_seconds(tmp_path):
    args = sb3.parse_args(["--seconds", "100", "--out", str(tmp_path / "r")])
    clock = sb3.Clock(args, time.time() - 90)           # 10 s left
    assert not clock.out_of_time(1.0) and clock.out_of_time(10.0)
    assert clock.every is None and clock.every_s == 10.0     # about ten evaluations in the budget
    assert clock.share(sb3.WARM_SHARE) < time.time()
    steps = sb3.Clock(sb3.parse_args(["--out", str(tmp_path / "r")]), time.time())
    assert steps.every == sb3.DEFAULT_EVAL_EVERY and steps.due(steps.next_eval(0), 100_000)


def test_a_warm_start_past_its_deadline_stops_after_its_first_chunk_and_batch():
    from types import SimpleNamespace
    import torch

    calls = []

    class Policy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def evaluate_actions(self, obs, acts, masks):
            calls.append(len(acts))
            return self.w.expand(len(acts)), self.w.expand(len(acts)), None

        def get_distribution(self, obs, action_masks):
            return SimpleNamespace(get_actions=lambda deterministic: torch.zeros(len(obs), dtype=torch.int64))

    st = sb3.warm_start(SimpleNamespace(policy=Policy()), games=8, seed=0, gamma=0.9, reward_scale=1.0, chunk=2,
                             batch_size=16, progress=False, deadline=time.time() - 1, game="cabo")
    assert st["games"] == 2 and len(calls) == 1


def test_the_learners_summary_names_its_kept_model(tmp_path):
    from quando_env.cli import agent_commands

    out = tmp_path / "run"
    assert agent_commands.run("train", ["--algo", "learner", "--game", "help", "--out", str(out), "--timesteps", "800",
                                        "--eval-every", "400", "--eval-games", "4", "--set", "num_games=8", "--set",
                                        "rollout_steps=16", "--set", "hidden=16", "--set", "bc_decisions=200",
                                        "--no-progress"], prog="train.py") == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["model"] == str(out / "best.npz") and s["final_model"] == str(out / "model.npz")
