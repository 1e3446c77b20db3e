"""The notebooks run top to bottom (on CPU, each within its 3-minute budget) and say what they should."""
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = os.path.join(os.path.dirname(__file__), "..", "notebooks")


def run(name, tmp_path):
    nb = nbformat.read(os.path.join(NOTEBOOKS, name), as_version=4)
    env = dict(os.environ)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # One numba thread per kernel, as conftest gives each worker: two spinning OpenMP pools beside the
        # other worker made the PPO notebook 15x slower (300 s instead of 20).
        env["NUMBA_NUM_THREADS"] = "1"
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute(
        env=env)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    svgs = [o["data"]["image/svg+xml"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if "image/svg+xml" in o.get("data", {})]
    run.svgs = svgs        # the table views displayed as SVG (TableView._repr_svg_)
    return text, images


def test_01_quickstart_plays_renders_and_replays(tmp_path):
    text, images = run("01_quickstart.ipynb", tmp_path)
    assert "view of player_0" in text and "may play:" in text and "my fronts:" in text
    assert "actions replayed; totals" in text and "decisions per second" in text
    assert images >= 1
    assert len(run.svgs) == 1 and run.svgs[0].startswith("<svg") and "Quando (kendi), round 1" in run.svgs[0]


def test_02_train_ppo_learns_to_beat_random_play(tmp_path):
    text, images = run("02_train_ppo.ipynb", tmp_path)
    lines = dict(line.split(":", 1) for line in text.splitlines() if line.startswith(("random play:", "trained PPO:")))
    random_pts = float(lines["random play"].split()[0])
    ppo_pts = float(lines["trained PPO"].split()[0])
    assert ppo_pts < random_pts          # fewer round points than random play after a short run
    assert images >= 1


def test_03_evaluate_tournament_and_ratings(tmp_path):
    text, images = run("03_evaluate.ipynb", tmp_path)
    lines = text.splitlines()
    league = next(i for i, line in enumerate(lines) if line.startswith("agent") and "ordinal" in line)
    match = {line.split()[0]: line.split() for line in lines[:league] if line.startswith(("heuristic", "random"))}
    assert float(match["heuristic"][2]) > 0.7           # win rate against three random players
    ranking = [line.split()[0] for line in lines[league + 2:league + 6]]
    assert sorted(ranking) == ["greedy", "heuristic", "ppo", "random"] and ranking[-1] == "random"
    assert images >= 2


@pytest.mark.parametrize("name,game", [("04_cabo_quickstart.ipynb", "Cabo"), ("05_help_quickstart.ipynb", "Help!")])
def test_game_quickstarts_show_play_and_measure_the_heuristic(tmp_path, name, game):
    text, images = run(name, tmp_path)
    assert re.search(rf"^{re.escape(game)}, round 1, .*, view of (player_\d)$\n(.*\n)+^\1 may play:$", text, re.M)
    assert "omniscient view" in text
    assert re.search(r"^    0\.\.\d+ +phase +one-hot decision kind", text, re.M)        # the observation's named parts
    assert ("cards I have seen this round: [" if game == "Cabo" else "my hand: {") in text
    played = [line.split() for line in text.splitlines() if line.startswith(("random ", "heuristic "))
              and " game " in line]
    assert [(w[0], w[2]) for w in played] == [(a, f"{g}:") for a in ("random", "heuristic") for g in range(3)]
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith(("heuristic  ", "random  "))}
    assert float(rows["heuristic"][2]) > float(rows["random"][2]) + 0.1     # win rates against random play
    assert images >= 2
    assert len(run.svgs) == 1 and f"{game}, round 1" in run.svgs[0] and "view of player_" in run.svgs[0]
