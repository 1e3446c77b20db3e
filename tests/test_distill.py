"""training.distill: label shards that are the same however they are made (one call, resumed, split, on Ray), the
search's candidate values true to its choice, and a network trained on them that plays."""
import hashlib
import json
from collections import Counter

import numpy as np
import pytest
import tiny_game

from quando_env.agents import Agent, RandomAgent, RolloutAgent, make_agent
from quando_env.training.label_shards import MANIFEST, read_shard, shard_path
from quando_env.training.distill import (LabelSettings, label, load_folders, main, margins, targets, train,
                                        versus_init)
from quando_env.evaluation.matches import play_match
from quando_env.agents.learned import LearnedAgent, default_model, load_model
from quando_env.agents.rollout import SearchKit
from quando_env import rng
from quando_env.registry import GAMES, game_class

QUICK = ["--samples", "2", "--knock-samples", "2", "--shard-size", "6", "--games", "2", "--every", "0.2", "--quiet"]


def run_label(out, *args) -> int:
    return main(["label", "--out", str(out), *QUICK, *args])


def shards_of(folder) -> list:
    return sorted(p.name for p in folder.glob("shard_*.npz"))


def same_shards(a, b) -> bool:
    """The same shard files with the same header and arrays (NaN equal to NaN, state records byte for byte)."""
    if shards_of(a) != shards_of(b) or not shards_of(a):
        return False
    for name in shards_of(a):
        (ha, xa), (hb, xb) = read_shard(a / name), read_shard(b / name)
        if ha != hb or set(xa) != set(xb):
            return False
        for k in xa:
            if xa[k].dtype.names:
                if xa[k].tobytes() != xb[k].tobytes():
                    return False
            elif not np.array_equal(xa[k], xb[k], equal_nan=xa[k].dtype.kind == "f"):
                return False
    return True


def test_the_same_seed_gives_the_same_shards_in_one_call_resumed_or_split(tmp_path, capsys):
    one, two, split = tmp_path / "one", tmp_path / "two", tmp_path / "split"
    assert run_label(one, "--shards", "3") == 0
    assert shards_of(one) == ["shard_00000.npz", "shard_00001.npz", "shard_00002.npz"]
    header, arrays = read_shard(shard_path(one, 2))
    assert header["samples"] == 6 and header["seed"] == 2 and header["game"] == "quando"
    assert arrays["obs"].shape[0] == arrays["values"].shape[0] == arrays["states"].shape[0] == 6
    assert (arrays["masks"].sum(axis=1) >= 2).all() and len(arrays["features"]) == arrays["masks"].sum()
    assert run_label(two, "--shards", "1") == 0
    shard_path(two, 1).write_bytes(b"half a file")    # a run stopped while writing shard 1, before listing it
    capsys.readouterr()
    assert run_label(two, "--shards", "3") == 0       # resumed: shard 0 skipped, 1 (unlisted) and 2 made
    assert "1 complete shard(s) skipped" in capsys.readouterr().out
    assert same_shards(one, two)
    assert run_label(split, "--shards", "2:3") == 0 and run_label(split, "--shards", "0:2") == 0
    assert same_shards(one, split)
    capsys.readouterr()
    assert run_label(split, "--shards", "3") == 0
    assert "nothing to label" in capsys.readouterr().out
    other = tmp_path / "other"
    assert run_label(other, "--shards", "1", "--seed", "1") == 0
    assert read_shard(shard_path(other, 0))[0]["seed"] == 1
    assert not np.array_equal(read_shard(shard_path(other, 0))[1]["obs"], read_shard(shard_path(one, 0))[1]["obs"])


def test_the_manifest_lists_every_shard_with_its_checksum_and_a_damaged_one_is_named_in_one_line(tmp_path, capsys):
    out = tmp_path / "labels"
    assert run_label(out, "--shards", "2", "--teacher", "search", "--first", "2", "--opponents", "heuristic") == 0
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["settings"]["teacher"] == "search" and sorted(manifest["shards"]) == ["0", "1"]
    for i, entry in manifest["shards"].items():
        assert entry["file"] == shard_path(out, int(i)).name and entry["labels"] == 6
        assert entry["sha256"] == hashlib.sha256(shard_path(out, int(i)).read_bytes()).hexdigest()
    header, arrays = read_shard(shard_path(out, 1))
    assert header["teacher"] == "search" and header["opponents"] == "heuristic"
    assert header["search"]["horizon"] == "game"
    assert np.array_equal(arrays["visits"] > 0, ~np.isnan(arrays["values"]))
    assert np.array_equal(arrays["seat"], arrays["game"] % 4)          # the policy's seat in each game slot
    assert np.array_equal(arrays["seat"], arrays["states"]["cur"])
    data = bytearray(shard_path(out, 1).read_bytes())
    data[len(data) // 2] ^= 1                          # one bit flipped: still a zip, not the bytes listed
    shard_path(out, 1).write_bytes(bytes(data))
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        run_label(out, "--shards", "3", "--teacher", "search", "--first", "2", "--opponents", "heuristic")
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert e.value.code == 2 and "shard_00001.npz is damaged" in err
    assert main(["train", str(out), "--out", str(tmp_path / "m.npz"), "--epochs", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "shard_00001.npz is damaged" in err[0] and not (tmp_path / "m.npz").exists()
    shard_path(out, 1).unlink()
    with pytest.raises(SystemExit):                    # listed but gone: named too
        run_label(out, "--shards", "2", "--teacher", "search", "--first", "2", "--opponents", "heuristic")
    assert "shard_00001.npz is listed" in capsys.readouterr().err


def test_shards_share_a_seed_exactly_when_their_seed_plus_index_is_the_same(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_label(a, "--shards", "1:2") == 0 and run_label(b, "--shards", "0:1", "--seed", "1") == 0
    (ha, xa), (hb, xb) = read_shard(shard_path(a, 1)), read_shard(shard_path(b, 0))
    assert ha["seed"] == hb["seed"] == 1 and np.array_equal(xa["obs"], xb["obs"])


@pytest.mark.parametrize("args, message", [
    (["--shards", "0"], "argument --shards"), (["--shards", "3:2"], "argument --shards"),
    (["--samples", "1"], "argument --samples"), (["--every", "0"], "argument --every"),
    (["--policy", "random"], "argument --policy"), (["--policy", "learned:nowhere.npz"], "argument --policy"),
    (["--players", "9"], "argument --players"), (["--game", "chess"], "argument --game"),
    (["--ray", "nowhere"], "argument --ray"),
    (["--game", "help", "--policy", f"learned:{default_model('quando', 4)}"], "argument --policy: "),   # Quando's
    (["--game", "help", "--teacher", "search", "--prior", f"learned:{default_model('quando', 4)}"],
     "argument --prior: "),
])
def test_bad_label_options_are_refused_before_anything_is_written(tmp_path, capsys, args, message):
    out = tmp_path / "labels"
    with pytest.raises(SystemExit) as e:
        main(["label", "--out", str(out), *args])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()


def test_a_folder_of_other_labels_is_refused_and_left_as_it_was(tmp_path, capsys):
    out = tmp_path / "labels"
    assert run_label(out, "--shards", "1") == 0
    before = shard_path(out, 0).read_bytes()
    with pytest.raises(SystemExit) as e:
        run_label(out, "--shards", "2", "--seed", "5")
    assert e.value.code == 2 and "made with other settings" in capsys.readouterr().err
    assert shards_of(out) == ["shard_00000.npz"] and shard_path(out, 0).read_bytes() == before


def test_bad_train_options_are_refused_before_anything_is_written(tmp_path, capsys):
    labels = tmp_path / "labels"
    assert run_label(labels, "--shards", "2") == 0
    model = tmp_path / "model.npz"
    for args, message in [(["--move-hidden", "8"], "two widths"), (["--init", "nowhere.npz"], "argument --init"),
                          (["--temperature", "-1"], "argument --temperature"),
                          (["--epochs", "0"], "argument --epochs"),
                          (["--min-margin", "2"], "give --init"), (["--min-margin", "-1"], "argument --min-margin")]:
        with pytest.raises(SystemExit) as e:
            main(["train", str(labels), "--out", str(model), *args])
        assert e.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", str(tmp_path / "none"), "--out", str(model)])
    assert main(["train", str(labels), "--out", str(model), "--holdout", "2"]) == 1
    assert "fewer than the 2 shards" in capsys.readouterr().err
    assert not model.exists()


def test_candidate_values_agree_with_act_and_leave_act_unchanged():
    """The choice candidate_values gives is act()'s with the same streams, the streams advance alike, values are
    NaN exactly off the searched candidates (always the heuristic's choice among them)."""
    vg = game_class("quando")(16, seed=3, autoreset=False)
    heuristic = make_agent("heuristic", game="quando")
    for _ in range(40):
        vg.step(heuristic.act(vg.observe(), vg.legal_action_mask))
    obs, masks = vg.observe(), vg.legal_action_mask
    search = make_agent("rollout", samples=4, knock_samples=4, seed=0, game="quando")
    streams = rng.streams(np.arange(16), rng.SALT_AGENT)
    s1, s2 = streams.copy(), streams.copy()
    acts = search.act(obs, masks, streams=s1)
    values, choice = search.candidate_values(obs, masks, s2)
    assert np.array_equal(acts, choice) and np.array_equal(s1, s2) and not np.array_equal(s1, streams)
    prior = heuristic.act(obs, masks)
    several = masks.sum(axis=1) >= 2
    assert several.sum() >= 8
    searched = ~np.isnan(values)
    assert not (searched & ~masks).any() and not searched[~several].any()
    assert (searched.sum(axis=1)[several] >= 2).all()
    rows = np.arange(16)
    assert searched[rows[several], prior[several]].all() and searched[rows, choice][several].all()
    assert (values[rows, choice][several] >= values[rows, prior][several]).all()   # a change only for the better
    assert np.array_equal(search.act(obs, masks, streams=streams.copy()), acts)          # act() is repeatable
    with pytest.raises(ValueError, match="streams must be"):
        search.candidate_values(obs, masks, streams[:3])


def test_a_model_trained_on_quando_labels_plays_as_learned_path(tmp_path, capsys):
    labels, model = tmp_path / "labels", tmp_path / "model.npz"
    assert run_label(labels, "--shards", "3") == 0
    assert main(["train", str(labels), "--out", str(model), "--hidden", "32", "--move-hidden", "16,8", "--epochs",
                 "2"]) == 0
    assert "held-out accuracy" in capsys.readouterr().out
    header, _ = load_model(model)
    assert header["move"] == {"features": game_class("quando")(1).action_feature_dim, "hidden": [16, 8]}
    assert header["info"]["method"] == "distill" and header["info"]["labels"] == 12
    lineup = [make_agent(f"learned:{model}", game="quando")] + [make_agent("random", game="quando") for _ in range(3)]
    res = play_match(lineup, 2, seed=1, progress=False, game="quando")
    assert [s.games for s in res.stats] == [2, 2, 2, 2]      # the engine refuses an illegal move
    again = tmp_path / "again.npz"
    assert main(["train", str(labels), "--out", str(again), "--hidden", "32", "--move-hidden", "16,8", "--epochs",
                 "2"]) == 0
    w1, w2 = load_model(model)[1], load_model(again)[1]
    assert all(np.array_equal(w1[k], w2[k]) for k in w1)       # deterministic for a seed
    assert main(["train", str(labels), "--out", str(again), "--hidden", "32", "--move-hidden", "16,8", "--epochs",
                 "1", "--init", str(model)]) == 0            # a model of its own starts another


def test_an_anchored_init_keeps_its_anchor_and_plays_as_before_where_training_moves_nothing(tmp_path, capsys):
    """The shipped Quando model adds a bonus to the heuristic's move as it plays; distilling from it trains the network
    under that bonus and keeps it, so a step too small to move a weight leaves every move as the init's."""
    labels, model, init = tmp_path / "labels", tmp_path / "model.npz", default_model("quando")
    assert load_model(init)[0]["anchor"]["weight"] > 0
    assert run_label(labels, "--shards", "2") == 0
    assert main(["train", str(labels), "--out", str(model), "--init", str(init), "--move-hidden", "none",
                 "--epochs", "1", "--lr", "1e-12", "--holdout", "0"]) == 0
    assert load_model(model)[0]["anchor"] == load_model(init)[0]["anchor"]
    data = np.concatenate([read_shard(shard_path(labels, i))[1]["obs"] for i in range(2)])
    masks = np.concatenate([read_shard(shard_path(labels, i))[1]["masks"] for i in range(2)])
    before, after = (make_agent(f"learned:{m}", game="quando") for m in (init, model))
    assert np.array_equal(before.act(data, masks), after.act(data, masks))
    assert main(["train", str(labels), "--out", str(model), "--init", str(init), "--move-hidden", "none",
                 "--epochs", "1", "--lr", "1e-12", "--holdout", "0", "--min-margin", "1000"]) == 0
    info = load_model(model)[0]["info"]
    assert info["min_margin"] == 1000 and info["held_out"]["changed"] == 0 == info["held_out"]["agreed_broken"]
    assert np.array_equal(before.act(data, masks), make_agent(f"learned:{model}", game="quando").act(data, masks))


def test_decisions_the_search_won_narrowly_keep_the_inits_policy_as_their_target():
    nan = np.nan
    values = np.array([[5.0, 3.0, nan, nan], [5.0, 4.5, 1.0, nan], [nan, 2.0, nan, nan]], np.float32)
    masks = np.array([[1, 1, 1, 0], [1, 1, 1, 0], [0, 1, 1, 0]], bool)
    choice = np.array([0, 0, 1])
    assert margins(values).tolist() == [2.0, 0.5, 0.0]        # one searched candidate: no margin
    own = np.array([[0.2, 0.3, 0.5, 0], [0.6, 0.2, 0.2, 0], [0, 0.5, 0.5, 0]], np.float32)
    search = targets(values, masks, choice, 0.0)
    assert search.argmax(1).tolist() == [0, 0, 1]
    mixed = targets(values, masks, choice, 0.0, own, min_margin=1.0)
    assert np.array_equal(mixed[0], search[0]) and np.array_equal(mixed[1:], own[1:])
    assert np.array_equal(targets(values, masks, choice, 0.0, own, min_margin=0.0), search)


def test_what_training_did_to_the_inits_moves_is_counted_apart_from_the_accuracy():
    choice = np.array([0, 1, 2, 3, 0, 1])
    init = np.array([0, 1, 2, 0, 1, 1])         # the search departed from the init on decisions 3 and 4
    best = np.array([0, 2, 2, 3, 1, 1])         # learned decision 3's departure, lost decision 1's agreement
    assert versus_init(best, init, choice) == {"init_accuracy": 4 / 6, "changed": 2 / 6, "departures_learned": 0.5,
                                               "agreed_broken": 0.25}
    assert versus_init(init, init, choice)["changed"] == 0 == versus_init(init, init, choice)["agreed_broken"]


def test_train_takes_several_folders_of_one_game_holding_out_each_ones_last_shards(tmp_path, capsys):
    a, b, other, model = tmp_path / "a", tmp_path / "b", tmp_path / "other", tmp_path / "model.npz"
    assert run_label(a, "--shards", "2") == 0 and run_label(b, "--shards", "3", "--seed", "7") == 0
    header, fit, held, listed = load_folders([a, b], holdout=1)
    assert header["game"] == "quando" and listed == [{"folder": str(a), "labels": 12}, {"folder": str(b), "labels": 18}]
    last = [read_shard(shard_path(a, 1))[1], read_shard(shard_path(b, 2))[1]]
    assert [h["choice"].tolist() for h in held] == [x["choice"].tolist() for x in last]
    assert len(fit) == 3 and sum(len(s["choice"]) for s in fit) == 18
    assert main(["train", str(a), str(b), "--out", str(model), "--hidden", "16", "--move-hidden", "8,8", "--epochs",
                 "1"]) == 0
    info = load_model(model)[0]["info"]
    assert info["labels"] == 18 and info["labels_folders"] == listed
    assert run_label(other, "--shards", "2", "--players", "3") == 0
    capsys.readouterr()
    model.unlink()
    assert main(["train", str(a), str(other), "--out", str(model)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(a) in err and str(other) in err and "one game and options" in err
    assert not model.exists()


def test_stats_count_each_phase_and_compare_the_search_with_the_played_and_heuristic_moves(tmp_path, capsys):
    labels = tmp_path / "labels"
    assert run_label(labels, "--shards", "2", "--teacher", "search", "--first", "2", "--shard-size", "20",
                     "--max-candidates", "2") == 0
    rows = [read_shard(shard_path(labels, i))[1] for i in range(2)]
    obs, masks, values, visits, choice, played, phase = (np.concatenate([r[k] for r in rows]) for k in
                                                         ("obs", "masks", "values", "visits", "choice", "played",
                                                          "states"))
    phase = phase["phase"]
    heuristic = make_agent("heuristic", game="quando").act(obs, masks)
    gaps = [np.diff(np.sort(v[n > 0])[-2:])[0] for v, n in zip(values, visits) if (n > 0).sum() >= 2]
    capsys.readouterr()
    assert main(["stats", str(labels), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)[str(labels)]
    assert stats["labels"] == 40 and stats["shards"] == 2 and stats["game"] == "quando"
    assert {int(p): s["labels"] for p, s in stats["phases"].items()} == dict(Counter(phase.tolist()))
    a = stats["all"]
    assert a["differs_played"] == pytest.approx(np.mean(choice != played))
    assert a["differs_heuristic"] == pytest.approx(np.mean(choice != heuristic)) and a["differs_heuristic"] > 0
    assert a["gap"] == pytest.approx(np.mean(gaps)) and a["candidates"] == pytest.approx((visits > 0).sum() / 40)
    assert main(["stats", str(labels), "--no-heuristic"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "40 labels in 2 shards" in table[0] and table[-1].split()[:2] == ["all", "40"] and " - " in table[-1]
    shard_path(labels, 1).write_bytes(b"damaged")
    assert main(["stats", str(labels)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "shard_00001.npz is damaged" in err


def test_a_learned_prior_is_recorded_and_checked_on_resuming_and_older_folders_resume_without_one(tmp_path, capsys):
    search = ["--teacher", "search", "--first", "2"]
    withp, without = tmp_path / "prior", tmp_path / "plain"
    assert run_label(withp, "--shards", "1", *search, "--prior", "learned") == 0
    header, arrays = read_shard(shard_path(withp, 0))
    assert header["search"]["prior"] == "learned"
    assert json.loads((withp / MANIFEST).read_text())["settings"]["prior"] == "learned"
    with pytest.raises(SystemExit) as e:
        run_label(withp, "--shards", "2", *search)                   # the same folder without the prior
    assert e.value.code == 2 and "made with other settings" in capsys.readouterr().err
    assert run_label(without, "--shards", "1", *search) == 0
    assert "prior" not in read_shard(shard_path(without, 0))[0]["search"]
    manifest = json.loads((without / MANIFEST).read_text())
    del manifest["settings"]["prior"]                                  # a folder labelled before priors existed
    (without / MANIFEST).write_text(json.dumps(manifest))
    capsys.readouterr()
    assert run_label(without, "--shards", "2", *search) == 0
    assert "1 complete shard(s) skipped" in capsys.readouterr().out
    for prior, message in [("heuristic", "not a learned model"), ("learned:nowhere.npz", "no learned model")]:
        with pytest.raises(SystemExit) as e:
            run_label(tmp_path / "bad", *search, "--prior", prior)
        assert e.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


# ---------------------------------------------------------------- the tiny game, with a search kit of its own
@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(GAMES, "tiny", tiny_game.SPEC)
    return "tiny"


class TinyHeuristic(Agent):
    """Swaps a card below 5 (the mean of the others is 4.5 or so), keeps the rest: the search's prior."""

    def act_batch(self, obs, masks):
        return (obs[:, :10].argmax(axis=1) < 5).astype(np.int64)

    def action_values(self, obs, masks):
        acts = self.act_batch(obs, masks)
        vals = np.ones(masks.shape)
        vals[np.arange(len(obs)), acts] = 0.0
        return acts, vals


def tiny_kit():

    class Searched(tiny_game.TinyGame):
        @classmethod
        def sample_states(cls, obs, k, config, seed=None):
            """Worlds of the mover's observation, the mover as seat 0: the unseen cards dealt at random."""
            r = np.random.default_rng(seed)
            own, started, swapped = int(obs[:10].argmax()), obs[11] > 0, obs[12] > 0
            s = np.zeros(k, cls.state_dtype)
            for i in range(k):
                rest = r.permutation([c for c in range(10) if c != own])
                s[i]["deck"] = [own, *rest]
                s[i]["card"] = [own, rest[1] if swapped and not started else rest[0]]
                s[i]["swapped"] = [0, swapped and not started]
                s[i]["pos"] = 3 if swapped and not started else 2
                s[i]["phase"] = tiny_game.PH_FIRST if started else tiny_game.PH_SECOND
                s[i]["round"] = 0 if started else 1
                s[i]["total"] = np.rint(obs[13:15] * config.target)
            s["rng"][:, 0] = rng.streams(np.arange(k) + (seed or 0), rng.SALT_GAME)
            return s

    return SearchKit(game_class=Searched, prior=TinyHeuristic(), players_of_obs=lambda d: 2,
                     playout_agent=TinyHeuristic())


def test_a_model_distilled_from_the_tiny_games_search_beats_random_clearly(tiny, tmp_path):
    settings = LabelSettings(game=tiny, options=game_class(tiny).config_class().to_dict(), samples=24,
                             knock_samples=24, max_candidates=None, shard_size=200, every=1.0, games=16)
    search = RolloutAgent(tiny_kit(), samples=24, knock_samples=24, max_candidates=None, seed=0)
    stats = label(settings, tmp_path / "labels", range(3), policy=TinyHeuristic(), search=search)
    assert stats["labels"] == 600 and stats["shards"] == 3
    _, arrays = read_shard(shard_path(tmp_path / "labels", 0))
    assert (~np.isnan(arrays["values"])).all()                  # both moves searched at every decision
    keep_better = arrays["values"][:, 0] > arrays["values"][:, 1]
    card = arrays["obs"][:, :10].argmax(axis=1)
    assert keep_better[card >= 8].all() and not keep_better[card <= 1].any()   # the search knows high from low
    e = train(tmp_path / "labels", tmp_path / "m.npz", hidden=(32,), move_hidden=(16, 8), epochs=30,
              log=lambda m: None)
    assert e["accuracy"] > 0.8
    agent = LearnedAgent(tmp_path / "m.npz", game=tiny, num_players=2)
    res = play_match([agent, RandomAgent(seed=0)], 400, seed=5, game=tiny, names=["learned", "random"],
                     progress=False).pooled()
    assert res["learned"]["win_rate"] > 0.6, res


# ---------------------------------------------------------------- on Ray: the same shards
ray_tests = pytest.mark.xdist_group("ray")


@ray_tests
def test_ray_makes_the_same_shards(ray_local, tmp_path):
    assert run_label(tmp_path / "here", "--shards", "3") == 0
    assert run_label(tmp_path / "ray", "--shards", "3", "--ray", "local") == 0
    assert same_shards(tmp_path / "here", tmp_path / "ray")
    teacher = ["--shards", "2", "--teacher", "search", "--first", "2", "--opponents", "heuristic"]
    assert run_label(tmp_path / "here_search", *teacher) == 0
    assert run_label(tmp_path / "ray_search", *teacher, "--ray", "local") == 0
    assert same_shards(tmp_path / "here_search", tmp_path / "ray_search")


@ray_tests
def test_shards_spread_over_a_two_node_cluster_are_the_single_process_ones(ray_two_nodes, tmp_path):
    import ray

    from quando_env.training.distill import label_shard
    from quando_env.evaluation.ray_tasks import RayRunner

    def on_node(index):
        out = label_shard(settings, index)
        out["node"] = ray.get_runtime_context().get_node_id()
        return out

    settings = LabelSettings(options=game_class("quando").config_class(num_players=4).to_dict(), samples=2,
                             knock_samples=2, shard_size=6, every=0.2, games=2, game="quando")
    runner = RayRunner(ray_two_nodes.address)
    assert runner.num_cpus == 2
    results = list(runner.run(on_node, range(4)))
    assert len({r["node"] for r in results}) == 2
    for r in results:
        here = label_shard(settings, r["index"])["arrays"]
        assert all(np.array_equal(here[k], r["arrays"][k], equal_nan=here[k].dtype.kind == "f")
                   for k in here if not here[k].dtype.names)
        assert here["states"].tobytes() == r["arrays"]["states"].tobytes()
    assert run_label(tmp_path / "here", "--shards", "2") == 0
    assert run_label(tmp_path / "cluster", "--shards", "2", "--ray", ray_two_nodes.address) == 0
    assert same_shards(tmp_path / "here", tmp_path / "cluster")
