"""evaluate.py --ray: match batches as Ray tasks (agents.ray_tasks) give exactly the single-process results.

The tests run the CLI in this process on the session's local Ray (the ray_local fixture: 2 CPUs), so
`--ray local` finds Ray already up and uses it."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import RandomAgent
from agents.evaluate_cli import main, parser
from agents.evaluation import Batch, play_match, split_games
from agents.quando import GreedyAgent

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.xdist_group("ray")


def evaluate(tmp_path, capsys, *args) -> tuple[dict, list[str]]:
    """Run evaluate.py's main on args; its JSON results and its printed table (the title, which carries the
    time taken, left out)."""
    out = tmp_path / "results.json"
    assert main([*args, "--no-progress", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    return json.loads(out.read_text()), printed[1:]


@pytest.mark.parametrize("args", [
    ["--game", "quando", "--agents", "heuristic", "random", "greedy", "random", "--games", "24", "--seed", "7"],
    ["--game", "cabo", "--agents", "random", "heuristic", "random", "--games", "30", "--seed", "3"],
    ["--game", "help", "--league", "random", "greedy", "heuristic", "--players", "3", "--games", "8", "--seed", "1"],
], ids=["quando", "cabo", "help-league"])
def test_ray_gives_exactly_the_single_process_results(ray_local, tmp_path, capsys, args):
    alone, alone_table = evaluate(tmp_path, capsys, *args)
    on_ray, ray_table = evaluate(tmp_path, capsys, *args, "--ray", "local")
    assert on_ray == alone
    assert ray_table == alone_table
    other_batches, _ = evaluate(tmp_path, capsys, *args, "--ray", "local", "--batch-size", "5")
    assert other_batches == alone
    assert evaluate(tmp_path, capsys, *args[:-1], str(int(args[-1]) + 1))[0] != alone   # the seed does matter


def test_rollout_agents_built_inside_the_tasks_play_the_same_games(ray_local, tmp_path, capsys):
    args = ["--game", "cabo", "--agents", "rollout", "random", "--games", "3", "--seed", "2", "--rollout-samples", "2"]
    assert evaluate(tmp_path, capsys, *args, "--ray", "local")[0] == evaluate(tmp_path, capsys, *args)[0]


def test_ray_writes_the_same_charts(ray_local, tmp_path, capsys):
    assert main(["--agents", "heuristic", "random", "--games", "4", "--no-progress", "--ray", "local",
                 "--plot", str(tmp_path)]) == 0
    assert "on Ray (2 CPUs)" in capsys.readouterr().out
    assert (tmp_path / "win_rate.png").stat().st_size > 1000 and (tmp_path / "round_points.png").exists()


def test_split_gives_every_cpu_work():
    """At least one batch per CPU even when all games fit one batch, never an empty batch, every game once."""
    assert split_games(10, 256, min_batches=4) == [Batch(0, 2), Batch(2, 3), Batch(5, 2), Batch(7, 3)]
    assert split_games(3, 256, min_batches=8) == [Batch(0, 1), Batch(1, 1), Batch(2, 1)]
    assert [b.size for b in split_games(1000, 256, min_batches=2)] == [250] * 4
    assert [b.size for b in split_games(1000, 256, min_batches=16)] == [62, 63, 62, 63] * 4
    for games, size, cpus in [(2000, 256, 2), (7, 3, 1), (513, 256, 3), (1, 256, 64)]:
        batches = split_games(games, size, cpus)
        assert len(batches) >= min(cpus, games) and all(1 <= b.size <= size for b in batches)
        assert [b.start for b in batches] == [sum(b.size for b in batches[:i]) for i in range(len(batches))]
        assert sum(b.size for b in batches) == games
    assert split_games(0, 256, 2) == []
    with pytest.raises(ValueError, match="batch_size"):
        split_games(10, 0)


class Recording:
    """A runner that hands everything to another and keeps the batches it was given."""

    def __init__(self, runner):
        self.runner, self.num_cpus, self.batches = runner, runner.num_cpus, []

    def map(self, play, batches, on_games):
        self.batches = list(batches)
        return self.runner.map(play, batches, on_games)


def test_a_match_that_fits_one_batch_still_runs_a_task_per_cpu(ray_local):
    from agents.ray_tasks import RayRunner

    runner = Recording(RayRunner("local"))
    assert runner.num_cpus == ray_local.cluster_resources()["CPU"] == 2
    agents = [RandomAgent(), GreedyAgent(), RandomAgent()]
    res = play_match(agents, 5, seed=4, runner=runner, progress=False)
    assert runner.batches == [Batch(0, 2), Batch(2, 3)]
    assert np.array_equal(res.totals, play_match(agents, 5, seed=4, progress=False).totals)
    assert [s.games for s in res.stats] == [5, 5, 5]


def test_bad_ray_address_is_refused(capsys):
    for bad in ["", "nowhere", "host:port", ":6379", "ray://"]:
        with pytest.raises(SystemExit):
            parser().parse_args(["--agents", "random", "--ray", bad])
        assert "is no Ray address: give local" in capsys.readouterr().err
    for good in ["local", "auto", "127.0.0.1:6379", "head-node:6379", "ray://10.0.0.5:10001"]:
        assert parser().parse_args(["--agents", "random", "--ray", good]).ray == good


def test_without_ray_evaluate_never_imports_it_and_a_missing_ray_is_a_clear_error():
    code = ("import sys\n"
            "from agents.evaluate_cli import main\n"
            "assert main(['--agents', 'random', 'greedy', '--games', '2', '--no-progress']) == 0\n"
            "assert 'ray' not in sys.modules, 'evaluate.py imported ray without --ray'\n"
            "sys.modules['ray'] = None   # what Python does for a package that is not installed: ImportError\n"
            "sys.exit(main(['--agents', 'random', 'greedy', '--games', '2', '--ray', 'local']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "--ray needs Ray: pip install" in r.stderr
