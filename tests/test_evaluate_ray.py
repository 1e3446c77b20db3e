"""evaluate.py --ray: match batches as Ray tasks (evaluation.ray_tasks) give exactly the single-process results.

The tests run the CLI in this process on the session's local Ray (the ray_local fixture: 2 CPUs), so
`--ray local` finds Ray already up and uses it."""
import json
import os
import socket
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from quando_env.agents import RandomAgent
from quando_env.agents.cabo import HeuristicAgent as CaboHeuristic
from quando_env.evaluation.cli import main, parser
from quando_env.evaluation.matches import Batch, play_match, split_games
from quando_env.agents.quando import GreedyAgent

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
    assert other_batches.pop("batch_size") == 5 and {**other_batches, "batch_size": alone["batch_size"]} == alone
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
    from quando_env.evaluation.ray_tasks import RayRunner

    runner = Recording(RayRunner("local"))
    assert runner.num_cpus == ray_local.cluster_resources()["CPU"] == 2
    agents = [RandomAgent(), GreedyAgent(), RandomAgent()]
    res = play_match(agents, 5, seed=4, runner=runner, progress=False, game="quando")
    assert runner.batches == [Batch(0, 2), Batch(2, 3)]
    assert np.array_equal(res.totals, play_match(agents, 5, seed=4, progress=False, game="quando").totals)
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
            "from quando_env.evaluation.cli import main\n"
            "assert main(['--agents', 'random', 'greedy', '--games', '2', '--no-progress']) == 0\n"
            "assert 'ray' not in sys.modules, 'evaluate.py imported ray without --ray'\n"
            "sys.modules['ray'] = None   # what Python does for a package that is not installed: ImportError\n"
            "sys.exit(main(['--agents', 'random', 'greedy', '--games', '2', '--ray', 'local']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ("evaluate.py: error: --ray needs ray, which the rllib extra installs: "
                                "pip install -c constraints.txt -e \".[rllib]\" (in the clone's root folder)")


# ---------------------------------------------------------------- faults: a dead worker, an address with no Ray
class Wrapping:
    """A runner that hands everything to another, each batch's play wrapped by `wrap(play, batch)`, and keeps
    the results it yields."""

    def __init__(self, runner, wrap):
        self.runner, self.num_cpus, self.wrap, self.results = runner, runner.num_cpus, wrap, []

    def map(self, play, batches, on_games):
        for r in self.runner.map(partial(self.wrap, play), batches, on_games):
            self.results.append(r)
            yield r


def same_match(a, b) -> bool:
    return a.stats == b.stats and a.pooled() == b.pooled() and np.array_equal(a.totals, b.totals)


def test_a_batch_whose_worker_dies_is_retried_and_gives_the_single_process_results(ray_local, tmp_path):
    """The first attempt at the second batch kills its worker process (as the kernel's OOM killer or a lost
    node would); Ray runs the task again (ray_tasks.MAX_RETRIES) and the match equals the one played here."""
    from quando_env.evaluation.ray_tasks import MAX_RETRIES, RayRunner

    marker = tmp_path / "died"

    def die_once(play, batch):      # defined here, so that Ray ships it by value to its workers
        if batch.start > 0 and not marker.exists():
            marker.touch()
            os._exit(1)
        return play(batch)

    assert MAX_RETRIES >= 1
    runner = Wrapping(RayRunner("local"), die_once)
    agents = [CaboHeuristic(), RandomAgent(), RandomAgent()]
    res = play_match(agents, 6, seed=9, game="cabo", runner=runner, progress=False)
    assert marker.exists() and len(runner.results) == 2
    assert same_match(res, play_match(agents, 6, seed=9, game="cabo", progress=False))


def test_an_address_where_no_ray_listens_fails_within_30_seconds_naming_it():
    """evaluate.py --ray 127.0.0.1:PORT with nothing on the port: one clear line, not minutes of Ray retrying."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]      # closed again when the block ends: nothing listens there
    code = ("import sys\n"
            "from quando_env.evaluation.cli import main\n"
            f"sys.exit(main(['--agents', 'random', 'greedy', '--games', '2', '--ray', '127.0.0.1:{port}']))\n")
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert time.monotonic() - t0 < 30
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("evaluate.py: error: ") and "Traceback" not in r.stderr
    assert f"no Ray cluster answered at 127.0.0.1:{port}: nothing accepted a connection at " in r.stderr


def test_batches_spread_over_a_two_node_cluster_and_give_the_single_process_results(ray_two_nodes):
    """On a cluster of two nodes (one CPU each) the batches run on both, and the match is the one played here."""
    import ray

    from quando_env.evaluation.ray_tasks import RayRunner

    def on_node(play, batch):
        result = play(batch)
        result.node = ray.get_runtime_context().get_node_id()
        return result

    runner = Wrapping(RayRunner(ray_two_nodes.address), on_node)
    assert runner.num_cpus == 2 and {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    agents = [GreedyAgent(), RandomAgent(), RandomAgent()]
    res = play_match(agents, 8, seed=5, batch_size=2, runner=runner, progress=False, game="quando")
    assert len({r.node for r in runner.results}) == 2
    assert same_match(res, play_match(agents, 8, seed=5, progress=False, game="quando"))
