"""evaluate's results come first: the table and --json are out before any record is written, so a record that
cannot be written, Ctrl-C or SIGTERM while records are written keeps them (the exit status and message say how
far the records got); the records folder is checked before any game, its symlinks are never written through;
and one label names one agent."""
import itertools
import json
import os
import signal

import pytest

from quando_env.adapters import record
from quando_env.evaluation import cli as evaluate_cli

GAMES = 6


def evaluate(tmp_path, capsys, folder, *extra):
    out = tmp_path / "r.json"
    rc = evaluate_cli.main(["--agents", "heuristic", "random", "--games", str(GAMES), "--batch-size", "3",
                            "--no-progress", "--json", str(out), "--records", str(folder), *extra])
    return rc, json.loads(out.read_text()) if out.exists() else None, capsys.readouterr()


def complete(data) -> bool:
    """--json holds every game of the match, not marked partial."""
    return "partial" not in data and data["per_game"]["seeds"] == list(range(GAMES)) and \
        all(row["games"] == GAMES for row in data["agents"].values())


def stop_at_record(monkeypatch, k: int, stop):
    """record.save writes k - 1 records, then stop() is called in the k-th."""
    real, calls = record.save, itertools.count(1)
    monkeypatch.setattr(record, "save", lambda *a, **kw: (next(calls) == k and stop(), real(*a, **kw))[1])


def ctrl_c():
    raise KeyboardInterrupt


def sigterm():
    signal.raise_signal(signal.SIGTERM)


@pytest.mark.parametrize("stop, status, said", [(sigterm, 143, "stopped by SIGTERM"), (ctrl_c, 130, "interrupted")],
                         ids=["sigterm", "ctrl-c"])
def test_a_stop_while_records_are_written_keeps_the_table_and_json(tmp_path, capsys, monkeypatch, stop, status, said):
    stop_at_record(monkeypatch, 3, stop)
    folder = tmp_path / "games"
    rc, data, captured = evaluate(tmp_path, capsys, folder)
    assert rc == status and complete(data)
    assert "heuristic" in captured.out and "win rate" in captured.out          # the table
    assert f"{said}: results kept (the table, --json {tmp_path / 'r.json'}), records incomplete: 2 of {GAMES} " \
           f"games written to {folder}, no games.json" in captured.err
    assert sorted(p.name for p in folder.iterdir()) == ["game_00000.json", "game_00001.json"]   # no temporary file
    assert record.verify(record.load(folder / "game_00001.json")) is True


def test_a_record_that_cannot_be_written_keeps_the_results(tmp_path, capsys):
    folder = tmp_path / "games"
    (folder / "game_00003.json").mkdir(parents=True)
    rc, data, captured = evaluate(tmp_path, capsys, folder)
    assert rc == 1 and complete(data) and "Traceback" not in captured.err and "win rate" in captured.out
    assert "game_00003.json" in captured.err and f"results kept (the table, --json {tmp_path / 'r.json'}), records " \
           f"incomplete: 3 of {GAMES} games written" in captured.err
    assert not (folder / "games.json").exists()


def test_a_dangling_symlink_records_folder_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    from quando_env.evaluation import matches
    monkeypatch.setattr(matches, "play_batch", None)     # no game may start
    folder = tmp_path / "games"
    folder.symlink_to(tmp_path / "nowhere")
    with pytest.raises(SystemExit) as e:
        evaluate_cli.main(["--agents", "heuristic", "random", "--records", str(folder), "--no-progress"])
    assert e.value.code == 2
    assert f"argument --records: '{folder}': {folder} is a symlink to nothing" in capsys.readouterr().err
    (tmp_path / "deeper").symlink_to(tmp_path / "nowhere")
    with pytest.raises(SystemExit):
        evaluate_cli.main(["--agents", "heuristic", "random", "--records", str(tmp_path / "deeper" / "games")])


def test_symlinks_in_the_records_folder_are_replaced_not_followed(tmp_path, capsys):
    folder = tmp_path / "games"
    folder.mkdir()
    outside = {name: tmp_path / f"outside_{name}" for name in ("games.json", "game_00000.json")}
    for name, target in outside.items():
        target.write_text("not yours")
        (folder / name).symlink_to(target)
    rc, data, captured = evaluate(tmp_path, capsys, folder)
    assert rc == 0 and complete(data)
    assert all(target.read_text() == "not yours" for target in outside.values())
    assert not any(os.path.islink(folder / name) for name in outside)
    assert len(json.loads((folder / "games.json").read_text())["games"]) == GAMES


def test_a_label_names_one_agent(capsys):
    with pytest.raises(SystemExit) as e:
        evaluate_cli.parse_args(["--agents", "x=heuristic", "x=random"])
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "argument --agents: the label 'x' is given to two agents, heuristic and random: give each agent its own label")
    with pytest.raises(SystemExit):
        evaluate_cli.parse_args(["--agents", "random=heuristic", "random", "--players", "3"])
    args = evaluate_cli.parse_args(["--agents", "heuristic", "random", "random"])     # one agent, two seats: one row
    assert args.labels == ["heuristic", "random", "random"]
