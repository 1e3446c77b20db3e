"""Every game's options on every command line (--option NAME=VALUE, checked by the game's config), display names
(LABEL=NAME), and evaluation results that carry what shaped them (version, options, settings, model hashes,
per-game results)."""
import hashlib
import json
from pathlib import Path

import pytest

import quando_env
from quando_env.evaluation import cli as evaluate_cli
from quando_env.cli import main, parse_args

ROOT = Path(__file__).resolve().parents[1]


def refused(capsys, run, argv) -> str:
    with pytest.raises(SystemExit) as e:
        run(argv)
    assert e.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("command", ["demo", "play", "serve"])
def test_game_options_on_the_terminal_and_browser_commands(command, capsys):
    args = parse_args([command, "--game", "cabo", "--option", "turn_limit=7", "--option", "tie_doubles=true"])
    assert args.option == ["turn_limit=7", "tie_doubles=true"]
    line = refused(capsys, parse_args, [command, "--game", "help", "--option", "hand_size=9"])
    assert line.endswith("error: argument --option: 'hand_size=9': hand_size=9 is not allowed: an integer 3..6")
    line = refused(capsys, parse_args, [command, "--game", "cabo", "--option", "edition=oya"])
    assert "argument --option: 'edition=oya': give NAME=VALUE with NAME one of cabo's options" in line
    line = refused(capsys, parse_args, [command, "--option", "num_players=3"])
    assert line.endswith("(--players sets num_players)")


def test_demo_plays_with_the_options(tmp_path, capsys):
    record = tmp_path / "g.json"
    assert main(["demo", "--game", "help", "--players", "3", "--option", "hand_size=6", "--option", "target=1",
                 "--record", str(record)]) == 0
    options = json.loads(record.read_text())["config"]
    assert options["hand_size"] == 6 and options["target"] == 1


def evaluate(tmp_path, *argv) -> dict:
    out = tmp_path / "r.json"
    assert evaluate_cli.main([*argv, "--no-progress", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_evaluation_json_carries_options_version_models_and_each_game(tmp_path, capsys):
    r = evaluate(tmp_path, "--game", "cabo", "--agents", "mine=learned", "random", "heuristic", "heuristic",
                 "--option", "max_steps=5000", "--games", "5", "--seed", "3", "--batch-size", "2")
    assert r["seats"] == ["mine", "random", "heuristic", "heuristic"]
    assert r["agent_names"] == {"mine": "learned", "random": "random", "heuristic": "heuristic"}
    assert r["version"] == quando_env.__version__ and r["batch_size"] == 2 and r["rollout_samples"] == 96
    assert r["options"]["max_steps"] == 5000 and r["options"]["num_players"] == 4 and r["max_steps"] == 5000
    model = ROOT / "quando_env/agents/models/learned_cabo_4p.npz"
    assert r["models"] == {"mine": {"name": "learned", "path": str(model),
                                    "sha256": hashlib.sha256(model.read_bytes()).hexdigest()}}
    games = r["per_game"]
    assert games["seeds"] == [3, 4, 5, 6, 7] and len(games["places"]) == len(games["totals"]) == 5
    assert all(len(row) == 4 and min(row) == 0 for row in games["places"])
    assert "mine" in capsys.readouterr().out


def test_display_names_are_checked(capsys):
    line = refused(capsys, evaluate_cli.parse_args, ["--agents", "=random", "random"])
    assert "'=random': give NAME or LABEL=NAME" in line
    line = refused(capsys, evaluate_cli.parse_args, ["--league", "a=random", "a=heuristic"])
    assert "give at least two distinct agents, got a a" in line
    args = evaluate_cli.parse_args(["--agents", "b=random", "random"])
    assert args.labels == ["b", "random"] and args.agents == ["random", "random"]


def test_chart_titles_name_the_games_and_seed(tmp_path, monkeypatch):
    titles = []
    import quando_env.evaluation.plots as plots

    monkeypatch.setattr(plots, "plot_summary", lambda summary, out, title, **kw: titles.append(title) or [])
    evaluate(tmp_path, "--agents", "random", "random", "--games", "3", "--seed", "9", "--plot", str(tmp_path))
    assert titles == ["quando, 2 players, 3 games, seed 9"]


def test_records_keep_every_game_of_a_match(tmp_path):
    from quando_env.adapters import record

    folder = tmp_path / "games"
    r = evaluate(tmp_path, "--game", "cabo", "--agents", "h=heuristic", "random", "--players", "3", "--games", "4",
                 "--seed", "5", "--batch-size", "3", "--records", str(folder))
    index = json.loads((folder / "games.json").read_text())
    assert [g["seed"] for g in index["games"]] == [5, 6, 7, 8]
    assert index["games"][1]["seats"] == ["random", "h", "random"]         # game 1: seat s plays agent (s - 1) mod 2
    for j, entry in enumerate(index["games"]):
        rec = record.load(folder / entry["file"])
        assert record.verify(rec) is True and rec["seed"] == 5 + j
        totals = rec["result"]["totals"]
        by_agent = [min(t for t, a in zip(totals, entry["seats"]) if a == name) for name in ("h", "random")]
        assert by_agent == r["per_game"]["totals"][j]


def test_records_are_for_matches(capsys, tmp_path):
    line = refused(capsys, evaluate_cli.parse_args, ["--league", "random", "heuristic", "--records", str(tmp_path)])
    assert line.endswith("argument --records: only a match (--agents) keeps its games")


def test_long_agent_names_are_slanted_on_chart_axes(tmp_path):
    from quando_env.evaluation import plots

    row = {"win_rate": 0.5, "win_rate_ci95": [0.4, 0.6], "mean_round_points": 3.0}
    figures = plots.summary_figures({"learned:runs/long/best.npz": row, "heuristic": row})
    axes = [ax for fig in figures.values() for ax in fig.axes]
    plots.save(figures, tmp_path)
    assert all(t.get_rotation() == 25 for ax in axes for t in ax.get_xticklabels())
    short = plots.summary_figures({"a": row, "heuristic": row})
    ax = short["win_rate.png"].axes[0]
    plots.slant(ax)
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
