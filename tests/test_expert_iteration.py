"""training.expert_iteration: each round labels with the search around the model the round before made, trains from
it and measures it; a stopped run resumes; a failing step stops the run naming it."""
import json
import shlex

import pytest

from quando_env.agents import learned
from quando_env.training import expert_iteration
from quando_env.training.label_shards import read_shard, shard_path
from quando_env.agents.learned import load_model


def printed(capsys) -> list[list[str]]:
    return [shlex.split(line) for line in capsys.readouterr().out.splitlines() if line.startswith("python -m")]


def option(argv, name):
    return argv[argv.index(name) + 1]


def test_each_round_starts_from_the_model_the_round_before_made_with_disjoint_seeds(tmp_path, capsys):
    out = tmp_path / "ei"
    assert expert_iteration.main(["--game", "help", "--out", str(out), "--rounds", "2", "--dry-run"]) == 0
    steps = printed(capsys)
    assert [s[3] if s[2] != "quando_env" else "evaluate" for s in steps] == \
        ["label", "label", "train", "evaluate", "evaluate"] * 2
    shipped = str(learned.default_model("help", 4))
    for r, model in ((1, shipped), (2, str(out / "round_1" / "model.npz"))):
        self_, heuristic, train, network, search = steps[5 * r - 5:5 * r]
        for label, opponents in ((self_, "self"), (heuristic, "heuristic")):
            assert option(label, "--policy") == option(label, "--prior") == f"learned:{model}"
            assert option(label, "--opponents") == opponents and option(label, "--shards") == "250"
            assert option(label, "--out") == str(out / f"round_{r}" / opponents)
        assert train[4:6] == [str(out / f"round_{r}" / "self"), str(out / f"round_{r}" / "heuristic")]
        assert option(train, "--init") == model and option(train, "--out") == str(out / f"round_{r}" / "model.npz")
        assert option(network, "--agents") == f"learned:{out / f'round_{r}' / 'model.npz'}"
        assert option(search, "--agents") == f"search:learned:{out / f'round_{r}' / 'model.npz'}"
    seeds = [int(option(s, "--seed")) for s in steps if s[3:4] == ["label"]]
    assert len(set(seeds)) == 4 and min(b - a for a, b in zip(seeds, seeds[1:])) >= 250     # shard ranges apart
    assert not out.exists() and "--min-margin" not in steps[2]
    assert expert_iteration.main(["--game", "help", "--out", str(out), "--dry-run", "--min-margin", "8"]) == 0
    assert option(printed(capsys)[2], "--min-margin") == "8"


def test_a_round_labels_trains_and_measures_and_a_second_run_resumes_without_redoing_it(tmp_path, capsys):
    out = tmp_path / "ei"
    argv = ["--game", "help", "--out", str(out), "--rounds", "1", "--labels", "24", "--shard-size", "6",
            "--epochs", "1", "--eval-games", "2", "--search-games", "0", "--heuristic-prior"]
    assert expert_iteration.main(argv) == 0
    assert len(printed(capsys)) == 4
    header, _ = read_shard(shard_path(out / "round_1" / "heuristic", 0))
    assert header["opponents"] == "heuristic" and "prior" not in header["search"]
    info = load_model(out / "round_1" / "model.npz")[0]["info"]
    assert [f["folder"] for f in info["labels_folders"]] == [str(out / "round_1" / k) for k in ("self", "heuristic")]
    assert json.loads((out / "round_1" / "network.json").read_text())["games"] == 2
    before = (out / "round_1" / "model.npz").read_bytes()
    assert expert_iteration.main(argv) == 0
    assert (out / "round_1" / "model.npz").read_bytes() == before


def test_a_failing_step_stops_the_run_naming_it_and_bad_options_are_refused_before_any(tmp_path, capsys):
    out = tmp_path / "ei"
    (out / "round_1" / "self").mkdir(parents=True)
    (out / "round_1" / "self" / "manifest.json").write_text(json.dumps(
        {"format": "quando_env-labels-manifest/1", "settings": {"game": "cabo"}, "shards": {}}))   # other labels
    assert expert_iteration.main(["--game", "help", "--out", str(out)]) == 2
    assert "round 1's step above failed (exit 2)" in capsys.readouterr().err
    assert sorted(p.name for p in (out / "round_1").iterdir()) == ["self"]
    other = str(learned.default_model("cabo", 4))
    for args, message in [(["--init", other], "argument --init: "), (["--labels", "24", "--shard-size", "12"],
                                                                      "argument --labels: 24: at least two shards")]:
        with pytest.raises(SystemExit) as e:
            expert_iteration.main(["--game", "help", "--out", str(tmp_path / "bad"), *args])
        assert e.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
