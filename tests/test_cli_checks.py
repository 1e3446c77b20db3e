"""The command lines (evaluate.py, train.py, python -m quando_env demo/play) refuse bad options before any
work, with exit status 2 and one line naming the option; Ctrl-C loses nothing (issue 20). In-process: the
parsers and main() are called directly, and Ctrl-C is a KeyboardInterrupt raised from a function the loop
calls."""
import json
import sys
import types

import pytest

from quando_env.evaluation import cli as evaluate_cli, matches
from quando_env.training import sb3
from quando_env import cli


def refused(parse, argv, capsys) -> str:
    """parse(argv) must exit with status 2; its stderr (one error line naming the option)."""
    with pytest.raises(SystemExit) as e:
        parse(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].count("error:") == 1
    return err.strip().splitlines()[-1]


def no_games(monkeypatch):
    """Make playing any batch fail the test: a refused command line plays nothing."""
    def play_batch(*a, **k):
        raise AssertionError("a game was played before the options were checked")
    monkeypatch.setattr(matches, "play_batch", play_batch)


# ---------------------------------------------------------------- output paths, checked before the work
@pytest.mark.parametrize("option,path", [("--json", "{tmp}/nonexistent/x.json"), ("--json", "{tmp}"),
                                         ("--plot", "{tmp}/a_file/charts"), ("--json", "")])
def test_evaluate_refuses_an_output_it_cannot_write_before_playing(tmp_path, capsys, monkeypatch, option, path):
    (tmp_path / "a_file").write_text("x")
    no_games(monkeypatch)
    path = path.format(tmp=tmp_path)
    line = refused(evaluate_cli.main, ["--agents", "random", "random", "--games", "2", "--no-progress", option,
                                       path], capsys)
    assert f"argument {option}:" in line and repr(path) in line


def test_demo_refuses_a_record_path_it_cannot_write_before_playing(tmp_path, capsys, monkeypatch):
    import quando_env.cli.commands as commands

    monkeypatch.setattr(commands, "game_module", lambda game: pytest.fail("the demo started"))
    line = refused(cli.main, ["demo", "--record", str(tmp_path / "no" / "demo.json")], capsys)
    assert "argument --record:" in line and "no folder" in line


def test_play_refuses_a_record_path_it_cannot_write(tmp_path, capsys):
    line = refused(cli.main, ["play", "--opponents", "random", "--record", str(tmp_path / "no" / "g.json")], capsys)
    assert "argument --record:" in line


def test_train_refuses_outputs_it_cannot_write_and_creates_no_folder(tmp_path, capsys):
    (tmp_path / "a_file").write_text("x")
    line = refused(sb3.parse_args, ["--save-to", str(tmp_path / "new" / "model.zip")], capsys)
    assert "argument --save-to:" in line and not (tmp_path / "new").exists()
    assert "must end in .zip" in refused(sb3.parse_args, ["--save-to", str(tmp_path / "model")], capsys)
    assert "argument --out:" in refused(sb3.parse_args, ["--out", str(tmp_path / "a_file" / "run")], capsys)
    args = sb3.parse_args(["--save-to", str(tmp_path / "model.zip"), "--out", str(tmp_path / "run" / "x")])
    assert args.out == str(tmp_path / "run" / "x") and not (tmp_path / "run").exists()
    assert sb3.parse_args(["--game", "cabo"]).out == "runs/ppo_cabo"


# ---------------------------------------------------------------- numbers and names
EVALUATE_BAD = [
    (["--rollout-samples", "0"], "--rollout-samples"),     # used to mean the default 96
    (["--rollout-samples", "1"], "--rollout-samples"),
    (["--seed", "1e20"], "--seed"),                         # used to be an OverflowError
    (["--seed", "-5"], "--seed"),                           # used not to name --seed
    (["--seed", str(2**63 - 1)], "--seed"),                 # no room for the games' seeds seed + j
    (["--seed", str(2**70)], "--seed"),
    (["--games", "0"], "--games"),
    (["--games", "1.5"], "--games"),
    (["--batch-size", "0"], "--batch-size"),
    (["--players", "9"], "--players"),
    (["--players", "-1"], "--players"),
    (["--game", "help", "--edition", "oya"], "--edition"),
]


@pytest.mark.parametrize("extra,option", EVALUATE_BAD)
def test_evaluate_refuses_bad_numbers_naming_the_option(capsys, extra, option):
    line = refused(evaluate_cli.parse_args, ["--agents", "heuristic", "random", *extra], capsys)
    assert f"argument {option}:" in line


@pytest.mark.parametrize("argv,option", [
    (["--agents", "chess"], "--agents"), (["--agents", "ppo:/nonexistent.zip"], "--agents"),
    (["--agents", "heuristic:x"], "--agents"), (["--game", "help", "--agents", "ppo"], "--agents"),
    (["--agents", "random", "random", "random", "--players", "2"], "--agents"),
    (["--league", "random", "random"], "--league"), (["--league", "random"], "--league"),
    (["--league", "random", "rllib:/nonexistent"], "--league"),
])
def test_evaluate_refuses_bad_agent_names_before_building_any(capsys, argv, option):
    assert f"argument {option}:" in refused(evaluate_cli.parse_args, argv, capsys)


def test_evaluate_says_where_a_player_count_it_was_not_given_comes_from(capsys):
    line = refused(evaluate_cli.parse_args, ["--game", "help", "--agents", "heuristic", "random"], capsys)
    assert line.endswith("Help! is played by 3 to 5 players (rule R3 of quando_env/help/RULES.md); without --players a "
                         "match has one player per agent")
    line = refused(evaluate_cli.parse_args, ["--game", "help", "--agents", "random", "--players", "2"], capsys)
    assert line.endswith("(rule R3 of quando_env/help/RULES.md)")


def test_evaluate_rollout_samples_are_used_as_given():
    args = evaluate_cli.parse_args(["--agents", "rollout", "--players", "2", "--rollout-samples", "2"])
    agent = evaluate_cli.build("rollout", 0, args)
    assert (agent.samples, agent.knock_samples) == (2, 4)


@pytest.mark.parametrize("argv,option", [
    (["--timesteps", "-5"], "--timesteps"), (["--eval-games", "0"], "--eval-games"),
    (["--heuristic-share", "2"], "--heuristic-share"), (["--heuristic-share", "nan"], "--heuristic-share"),
    (["--envs", "0"], "--envs"), (["--threads", "0"], "--threads"), (["--seed", str(2**32)], "--seed"),
    (["--seed", "-5"], "--seed"), (["--lr", "0"], "--lr"), (["--lr", "inf"], "--lr"), (["--clip", "-1"], "--clip"),
    (["--eval-every", "0"], "--eval-every"), (["--checkpoint-every", "0"], "--checkpoint-every"),
    (["--pool-size", "0"], "--pool-size"), (["--bc-games", "-1"], "--bc-games"),
    (["--time-limit", "-1"], "--time-limit"), (["--players", "7"], "--players"),
    (["--game", "help", "--players", "2"], "--players"),
])
def test_train_refuses_bad_numbers_naming_the_option(capsys, argv, option):
    assert f"argument {option}:" in refused(sb3.parse_args, argv, capsys)


def test_train_resume_needs_an_existing_file_and_names_it(tmp_path, capsys):
    """--resume x used to look for x.zip.zip after the run had started."""
    line = refused(sb3.parse_args, ["--resume", str(tmp_path / "x")], capsys)
    assert "argument --resume:" in line and "no such file" in line and ".zip.zip" not in line
    (tmp_path / "x").write_bytes(b"")
    assert sb3.parse_args(["--resume", str(tmp_path / "x")]).resume == str(tmp_path / "x")


@pytest.mark.parametrize("argv,option", [
    (["demo", "--seed", "1e20"], "--seed"), (["demo", "--seed", "-5"], "--seed"),
    (["demo", "--players", "0"], "--players"), (["demo", "--players", "7"], "--players"),
    (["demo", "--game", "cabo", "--edition", "oya"], "--edition"),
    (["play", "--seed", str(2**63)], "--seed"), (["play", "--players", "1"], "--players"),
    (["play", "--opponents", "chess"], "--opponents"), (["play", "--opponents", "random,random"], "--opponents"),
    (["play", "--opponents", "ppo:/nonexistent.zip"], "--opponents"),
])
def test_demo_and_play_refuse_bad_options_naming_them(capsys, argv, option):
    assert f"argument {option}:" in refused(cli.parse_args, argv, capsys)


def test_ray_that_does_not_answer_ends_with_one_line(monkeypatch, capsys):
    """Whatever init_ray raises (a timeout, a connection error, a multi-line Ray error), one line names --ray."""
    class RayRunner:
        def __init__(self, address):
            raise TimeoutError("no answer from 127.0.0.1:1 within 30 s\n(more Ray log lines)")

    monkeypatch.setitem(sys.modules, "quando_env.evaluation.ray_tasks", types.SimpleNamespace(RayRunner=RayRunner))
    no_games(monkeypatch)
    assert evaluate_cli.main(["--agents", "random", "random", "--games", "2", "--ray", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["evaluate.py: error: --ray 127.0.0.1:1: no answer from 127.0.0.1:1 within 30 s"]


# ---------------------------------------------------------------- Ctrl-C
def interrupt_on_call(monkeypatch, k: int):
    """Let play_batch run k - 1 batches, then raise KeyboardInterrupt (what Ctrl-C raises) in the k-th."""
    real, calls = matches.play_batch, []

    def play_batch(*a, **kw):
        calls.append(1)
        if len(calls) == k:
            raise KeyboardInterrupt
        return real(*a, **kw)
    monkeypatch.setattr(matches, "play_batch", play_batch)


def test_ctrl_c_during_a_match_writes_the_finished_games_marked_partial(tmp_path, capsys, monkeypatch):
    interrupt_on_call(monkeypatch, 3)
    out = tmp_path / "r.json"
    rc = evaluate_cli.main(["--agents", "heuristic", "random", "--games", "8", "--batch-size", "2", "--no-progress",
                            "--json", str(out), "--plot", str(tmp_path / "charts")])
    captured = capsys.readouterr()
    assert rc == 130 and "Traceback" not in captured.err
    assert "PARTIAL: interrupted after 4 of 8 games" in captured.out
    data = json.loads(out.read_text())
    assert data["partial"] is True and data["games_played"] == 4 and data["games"] == 8
    assert data["agents"]["heuristic"]["games"] == 4 and data["agents"]["random"]["games"] == 4
    assert (tmp_path / "charts" / "win_rate.png").exists()
    assert captured.err.strip().splitlines() == ["evaluate.py: interrupted: the 4 games finished are reported and "
                                                 "written, marked partial"]


def test_ctrl_c_during_a_league_rates_the_finished_games_marked_partial(tmp_path, capsys, monkeypatch):
    interrupt_on_call(monkeypatch, 4)      # lineup 1 plays batches 1-2, lineup 2 batch 3, then Ctrl-C
    out = tmp_path / "r.json"
    rc = evaluate_cli.main(["--league", "heuristic", "random", "greedy", "--players", "2", "--games", "4",
                            "--batch-size", "2", "--no-progress", "--json", str(out)])
    assert rc == 130
    data = json.loads(out.read_text())
    assert data["partial"] is True and data["games_played"] == 6
    assert sum(r["games"] for r in data["ratings"].values()) == 12          # 6 games of 2 seats
    assert "PARTIAL: interrupted after 6 of 12 games" in capsys.readouterr().out


def test_ctrl_c_before_any_game_finished_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    interrupt_on_call(monkeypatch, 1)
    out = tmp_path / "r.json"
    rc = evaluate_cli.main(["--agents", "heuristic", "random", "--games", "4", "--no-progress", "--json", str(out)])
    captured = capsys.readouterr()
    assert rc == 130 and not out.exists() and captured.out == ""
    assert captured.err.strip().splitlines() == ["evaluate.py: interrupted before any game finished: nothing written"]


def test_ctrl_c_during_training_saves_the_latest_model_and_its_history(tmp_path, capsys, monkeypatch):
    """The first evaluation (at step 0) runs; Ctrl-C comes in the second, after some PPO updates."""
    from quando_env.training import budget

    real, calls = budget.play_match, []

    def play_match(*a, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **kw)
    monkeypatch.setattr(budget, "play_match", play_match)       # (the evaluations' games: 2, one part)
    out = tmp_path / "run"
    rc = sb3.main(["--timesteps", "2048", "--envs", "2", "--bc-games", "0", "--eval-every", "512",
                        "--eval-games", "2", "--out", str(out), "--no-progress", "--time-limit", "0"])
    assert rc == 130
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == (f"python -m quando_env.training.sb3: interrupted at 512 timesteps: latest model saved to "
                    f"{out / 'final_model.zip'}, evaluation history to {out / 'eval_history.json'}")
    hist = json.loads((out / "eval_history.json").read_text())
    assert [h["timesteps"] for h in hist] == [0]
    from sb3_contrib import MaskablePPO
    assert MaskablePPO.load(str(out / "final_model.zip"), device="cpu").num_timesteps == 512


# ---------------------------------------------------------------- untrusted files
def test_help_and_docstrings_say_that_model_files_run_code(capsys):
    from quando_env.agents import PPOAgent, make_agent
    from quando_env.agents.rllib_agent import RLlibAgent

    with pytest.raises(SystemExit):
        cli.parse_args(["play", "--help"])
    for text in (evaluate_cli.parser().format_help(), sb3.parser().format_help(), capsys.readouterr().out,
                 make_agent.__doc__, PPOAgent.__doc__, sys.modules[RLlibAgent.__module__].__doc__):
        text = " ".join(text.split())
        assert "only files you trust" in text or "only checkpoints you trust" in text


def test_train_refuses_a_resume_file_that_is_no_model_in_one_line_before_writing(tmp_path, capsys):
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    rc = sb3.main(["--resume", str(tmp_path / "x.zip"), "--out", str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and \
        err[0].startswith("python -m quando_env.training.sb3: error: argument --resume:")
    assert not (tmp_path / "run").exists()
