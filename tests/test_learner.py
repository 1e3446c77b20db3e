"""quando_env.training.learner and learned: learning happens, runs repeat, decisions earn the right rewards, the policy
sees its seat's observation alone, model files load without pickle and play legal moves, and foreign or
malformed files are refused."""
import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tiny_game

from quando_env.agents import make_agent
from quando_env.agents.base import Agent
from quando_env.evaluation.matches import play_match
from quando_env.agents.learned import FORMAT, LearnedAgent, default_model, load_model, save_model
from quando_env.training.learner import (DEFAULT_DECISIONS, LEARNER, RECIPES, Hyper, Learner, legal_moves, main,
                                         parse_args)
from quando_env.agents.random_agent import RandomAgent
from quando_env import registry
from quando_env.provenance import made_by
from quando_env.registry import game_class

GAMES = ("quando", "cabo", "help")
FEATURED = tuple(g for g in GAMES if game_class(g).action_feature_parts is not None)   # games with move features
SHIPPED = GAMES                             # every game has a model in quando_env/agents/models


class KeepAgent(Agent):
    """Tiny's stand-in heuristic: always keeps its card (the learner must find out when to swap)."""

    def act_batch(self, obs, masks):
        return np.zeros(len(obs), np.int64)


@pytest.fixture
def tiny(monkeypatch):
    """The tiny test game (examples/tiny_game.py) in the registry, for this test only."""
    monkeypatch.setitem(registry.GAMES, "tiny", tiny_game.SPEC)
    return "tiny"


def tiny_hyper(**kw) -> Hyper:
    return Hyper(**{"game": "tiny", "num_players": 2, "num_games": 64, "rollout_steps": 16, "hidden": (32,),
                    "lr": 3e-3, "minibatch": 256, "points_coef": 0.5, "snapshot_every": 0, "eval_games": 400, **kw})


def small_learner(game, **kw) -> Learner:
    return Learner(Hyper(**{"game": game, "num_games": 16, "rollout_steps": 8, "hidden": (16,), "minibatch": 64,
                            **kw}))


# ---------------------------------------------------------------- learning, on any game of the contract
def test_a_short_run_on_the_tiny_game_clearly_beats_random_and_its_own_heuristic(tiny):
    """Every game through the contract: Tiny (written against quando_env.core.Game alone) trains with a heuristic
    handed in and no learner change; half a second of PPO finds when to swap."""
    learner = Learner(tiny_hyper(), heuristic=KeepAgent())
    before = learner.evaluate()["win_rate"]
    for _ in range(40):
        learner.iteration()
    res = play_match([learner.agent(), RandomAgent(seed=0)], 400, seed=5, game=tiny, names=["learned", "random"],
                     progress=False).pooled()
    assert res["learned"]["win_rate"] >= 0.62                        # random against random: 0.5
    after = learner.evaluate()
    assert after["win_rate"] >= 0.62 and after["win_rate"] > before + 0.15 and after["ci"][0] > 0.5


@pytest.mark.parametrize("method, overlap", [("ppo", False), ("dmc", False), ("ppo", True), ("dmc", True)])
def test_the_same_seed_gives_the_same_weights_and_another_seed_others(tiny, method, overlap):
    def run(seed):
        learner = Learner(tiny_hyper(seed=seed, method=method, num_games=32, rollout_steps=8, bc_decisions=300,
                                     snapshot_every=200, self_play_share=0.3, overlap=overlap), heuristic=KeepAgent())
        for _ in range(8):
            learner.iteration()
        assert learner.snapshots and not learner.imitating          # every phase and the pool took part
        return learner.weights()

    a, b, c = run(3), run(3), run(4)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)


@pytest.mark.parametrize("game, move", [("help", ()), ("cabo", (16, 8))])
def test_with_overlap_the_next_rollout_is_collected_by_the_weights_from_before_the_update(game, move):
    """overlap: while the first rollout is learned from, the second is collected in another thread by the
    network as it was before that update: the same rollout, row for row (legal moves included), as a learner of
    the same seed that collects twice and learns nothing; the update in between changed the weights."""
    kw = dict(game=game, num_games=16, rollout_steps=8, hidden=(16,), minibatch=64, move_hidden=move, seed=2,
              self_play_share=0.5)
    ahead, still = Learner(Hyper(**kw, overlap=True)), Learner(Hyper(**kw))
    start = ahead.weights()
    ahead.iteration()
    ahead.settle()
    assert not all(np.array_equal(start[k], v) for k, v in ahead.weights().items())
    still.collect()
    still.collect()
    a, b = ahead.collector.roll, still.collector.roll
    assert a is not ahead.collector.spare and a.count == b.count > 0
    for key, arr in a.buf.items():
        np.testing.assert_array_equal(arr[:a.count], b.buf[key][:b.count], err_msg=key)
    if move:
        ids = np.arange(a.count)
        for x, y in zip(a.stored_moves(ids), b.stored_moves(ids)):
            np.testing.assert_array_equal(x, y)


def test_a_learner_that_overlapped_is_freed_once_dropped():
    """Its collecting thread keeps no reference to it (a rollout buffer is hundreds of MB for Cabo's defaults)."""
    import gc
    import weakref

    learner = small_learner("help")
    assert learner.hp.overlap
    for _ in range(2):
        learner.iteration()
    learner.settle()
    gone = weakref.ref(learner)
    del learner
    gc.collect()
    assert gone() is None


# ---------------------------------------------------------------- per-seat rewards
def test_the_rewards_a_seat_collects_between_two_of_its_decisions_belong_to_the_earlier_one():
    """Two rollouts of Help! (4 seats, learner and heuristic owners mixed, episodes ending inside them) against a
    plain per-game replay of the same steps: each decision's reward, successor, end flag and (values zeroed)
    undiscounted return."""
    learner = Learner(Hyper(game="help", num_games=16, rollout_steps=60, hidden=(16,), self_play_share=0.5,
                            points_coef=0.1, win_reward=1.0, gamma=1.0, bc_decisions=0))
    n, hp = learner.n, learner.hp
    steps = []                      # per step: cur, owners, rewards, ended games and their winners
    view, credit = learner.collector.seat_view, learner.collector.reward

    def seat_view():
        steps.append({"cur": learner.game.current_player.copy(), "owner": learner.collector.owner.copy()})
        return view()

    def reward(r):
        ended = np.flatnonzero(learner.game.game_over | learner.game.truncated)
        steps[-1].update(r=r.copy(), ended=ended, won=learner.game.winners(ended))
        credit(r)

    learner.collector.seat_view, learner.collector.reward = seat_view, reward
    rows_of = []                    # per rollout: key (step, game) -> buffer row
    key_of_row = {}
    for _ in range(2):
        carried = learner.collector.last[learner.collector.last >= 0]
        first = len(steps)
        keys = {key_of_row[int(r)]: j for j, r in enumerate(carried)}
        segments, ready = learner.collect()
        for t in range(first, len(steps)):
            st = steps[t]
            mine = np.flatnonzero(st["owner"][np.arange(hp.num_games), st["cur"]] == LEARNER)
            s, e = segments[t - first + 1]
            assert e - s == mine.size
            keys.update({(t, int(g)): s + j for j, g in enumerate(mine)})
        rows_of.append((keys, segments, ready))
        key_of_row = {row: key for key, row in keys.items()}
    assert sum(st["ended"].size for st in steps) >= 5

    # The replay: one game at a time, one step at a time.
    rew, nxt, done = {}, {}, {}
    pending = {}
    for t, st in enumerate(steps):
        for g in range(hp.num_games):
            seat = int(st["cur"][g])
            if st["owner"][g, seat] == LEARNER:
                if (g, seat) in pending:
                    nxt[pending[(g, seat)]] = (t, g)
                pending[(g, seat)] = (t, g)
                rew[(t, g)], done[(t, g)] = 0.0, False
            r = st["r"][g].astype(np.float64)
            shaped = hp.points_coef * (r - (r.sum() - r) / (n - 1))
            if g in st["ended"]:
                shaped += np.where(st["won"][list(st["ended"]).index(g)], 1.0, -1.0)
            for s in range(n):
                if (g, s) in pending:
                    rew[pending[(g, s)]] += shaped[s]
            if g in st["ended"]:
                for s in range(n):
                    if (g, s) in pending:
                        done[pending.pop((g, s))] = True
    keys, segments, ready = rows_of[1]
    buf = learner.buf
    for key, row in keys.items():
        assert buf.rew[row] == pytest.approx(rew[key], abs=1e-5), key
        assert buf.nxt[row] == (keys[nxt[key]] if key in nxt else -1)
    assert not ready[[keys[k] for k in pending.values()]].any() and ready.sum() == len(keys) - len(pending)
    # Undiscounted returns with zero values: the rewards of the decision and of the seat's later ones, up to a
    # decision still pending (it is carried into the next rollout and trained there).
    buf.val[:] = 0.0
    _, ret = learner.advantages(learner.collector.roll, 1.0)
    for key, row in keys.items():
        total, k = rew[key], key
        while k in nxt and ready[keys[nxt[k]]]:
            k = nxt[k]
            total += rew[k]
        if ready[row]:
            assert ret[row] == pytest.approx(total, abs=1e-4)


# ---------------------------------------------------------------- the policy's input
@pytest.mark.parametrize("game, move", [(g, ()) for g in GAMES] + [(g, (16, 8)) for g in FEATURED])
def test_the_policy_depends_only_on_the_seats_observation(game, move):
    """Worlds sampled consistent with one seat's observation differ in what it has not seen; the learner's view
    of them and its action probabilities are identical. A planted leak (the next seat's observation) fails."""
    cls = game_class(game)
    src = cls(1, seed=7, autoreset=False, num_players=4)
    for _ in range(30):
        src.step(src.sample_actions())
    while src.legal_action_mask[0].sum() < 2:          # a decision with a choice
        src.step(src.sample_actions())
    obs = src.observe()[0]
    worlds = cls.sample_states(obs, 16, src.config, seed=1)
    learner = small_learner(game, hidden=(64,), move_hidden=move, anchor=1.5)   # the heuristic's move too
    with __import__("torch").no_grad():
        for p in learner.net.parameters():
            p.normal_(0.0, 0.1)              # probabilities far from uniform: an input change moves them
    learner.game.load_states(worlds)
    assert len({learner.game.state()[i].tobytes() for i in range(16)}) > 1      # the hidden parts differ
    o, m = learner.collector.seat_view()
    assert (o == obs).all()

    f = learner.collector.legal_features(np.arange(16), m)
    probs = learner.collector.policy(o, m, f, learner.collector.anchor_moves(o, m))[0]
    assert (probs == probs[0]).all() and probs[0].max() < 1.0

    nxt = (learner.game.current_player + 1) % 4
    leaked = learner.collector.policy(learner.game.observe(players=nxt), m, f, learner.collector.anchor_moves(o, m))[0]
    assert not (leaked == leaked[0]).all()

    # What collection hands the policy is that same view, row for row.
    seen = []
    decide = learner.collector.decide
    learner.collector.decide = lambda o, m, *rest: (seen.append(o.copy()), decide(o, m, *rest))[1]
    learner.hp.rollout_steps = 1
    expected = learner.game.observe()
    mine = np.flatnonzero(learner.collector.owner[np.arange(16), learner.game.current_player] == LEARNER)
    learner.collect()
    assert np.array_equal(seen[0], expected[mine])


@pytest.mark.parametrize("read", ["seat_view", "legal_features", "anchor_moves", "decide"])
def test_reading_the_games_between_iterations_waits_for_the_rollout_being_collected(read):
    """With overlap the next rollout is collected while iteration() returns; the learner's views of its games (and
    of the heuristic and the random generator that collecting uses) wait for it when called from the caller's
    thread (before, seat_view read games that thread was stepping: the masks changed under the caller)."""
    learner = small_learner("cabo", move_hidden=(8, 4), anchor=1.0)
    o, m = learner.collector.seat_view()
    o, m = o.copy(), m.copy()                   # a whole view, taken before collecting starts
    moves = learner.collector.legal_features(np.arange(16), m)
    learner.iteration()
    collecting, waited = learner.ahead, []

    class Watched:
        def result(self):
            waited.append(1)
            return collecting.result()
    learner.ahead = Watched()
    args = {"seat_view": (), "legal_features": (np.arange(16), m), "anchor_moves": (o, m),
            "decide": (o, m, None, moves)}[read]
    getattr(learner.collector, read)(*args)
    assert waited == [1] and collecting.done()


# ---------------------------------------------------------------- model files
@pytest.mark.parametrize("game", GAMES)
def test_a_saved_model_loads_and_plays_legal_moves_in_play_match(tmp_path, game):
    learner = small_learner(game)
    learner.iteration()
    path = save_model(tmp_path / "m.npz", learner.header(), learner.weights())
    agent = make_agent(f"learned:{path}", game=game)
    assert isinstance(agent, LearnedAgent) and agent.header["info"]["decisions"] == learner.counters["decisions"]
    heuristic = make_agent("heuristic", game=game)
    res = play_match([agent, heuristic, heuristic, heuristic], 4, seed=0, game=game, progress=False,
                     names=["learned", "h", "h", "h"])        # the engine refuses any illegal move
    assert res.pooled()["learned"]["games"] == 4
    o, m = learner.collector.seat_view()
    np.testing.assert_array_equal(agent.act(o, m), learner.agent().act(o, m))
    assert m[np.arange(len(o)), agent.act(o, m)].all()


@pytest.mark.parametrize("game", SHIPPED)
def test_the_shipped_models_load_and_play_legal_moves(game):
    agent = make_agent("learned", game=game)
    assert isinstance(agent, LearnedAgent) and agent.header["game"] == game
    assert default_model(game).stat().st_size < 10 * 2**20
    heuristic = make_agent("heuristic", game=game)
    res = play_match([agent, heuristic, heuristic, heuristic], 8, seed=0, game=game, progress=False,
                     names=["learned", "h", "h", "h"])        # the engine refuses any illegal move
    assert res.pooled()["learned"]["games"] == 8


def test_the_default_model_path_says_how_to_train_it():
    with pytest.raises(FileNotFoundError, match=r"learned_nogame_4p\.npz\): train one with `python -m quando_env "
                       r"train --game nogame --set num_players=4` and give learned:runs/learned_nogame/best.npz"):
        LearnedAgent(game="nogame")


@pytest.fixture
def saved(tmp_path):
    """A small Help! model on disk: (path, header, weights)."""
    learner = small_learner("help")
    return save_model(tmp_path / "ok.npz", learner.header(), learner.weights()), learner.header(), learner.weights()


def rewrite(path, header, weights, **arrays):
    np.savez(path, header=np.array(json.dumps(header)), **{**weights, **arrays})
    return path


class Boom:
    """Unpickling this creates a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_foreign_or_malformed_model_file_is_refused_with_a_clear_error(tmp_path, saved):
    path, header, weights = saved
    for name in ("model", "model.bin"):                 # saved under the name given, whatever its suffix
        assert save_model(tmp_path / name, header, weights).is_file() and LearnedAgent(tmp_path / name)
    with pytest.raises(ValueError, match=r"ok\.npz is a model of game 'help' for 4 players with observations of "
                       "length 228; it cannot play game 'cabo' for 4 players"):
        make_agent(f"learned:{path}", game="cabo")
    with pytest.raises(ValueError, match="cannot play game 'help' with observations of length 252"):
        load_model(path, game="help", obs_dim=252)
    agent = LearnedAgent(path, game="help")
    with pytest.raises(ValueError, match="takes observations of length 228, got 252"):
        agent.act(np.zeros((1, 252), np.float32), np.ones((1, 105), bool))

    with pytest.raises(ValueError, match="for 4 players with observations of length 228; it cannot play game "
                       "'help' for 3 players"):
        LearnedAgent(path, game="help", num_players=3)
    bad = tmp_path / "bad.npz"
    for content in (b"not a zip at all", b"\x93NUMPY"):
        bad.write_bytes(content)
        with pytest.raises(ValueError, match="not a learned model file") as e:
            LearnedAgent(bad)
        assert "pickle" not in str(e.value)            # numpy's advice to load it unsafely is not passed on
    np.save(tmp_path / "one.npy", np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="one.npy: not a learned model file .*a single .npy array"):
        LearnedAgent(tmp_path / "one.npy")
    np.savez(bad, **weights)
    with pytest.raises(ValueError, match="no JSON header"):
        LearnedAgent(bad)
    np.savez(bad, header=np.array("{not json"), **weights)
    with pytest.raises(ValueError, match="the header is not JSON"):
        LearnedAgent(bad)
    with pytest.raises(ValueError, match="format 'other/9'"):
        LearnedAgent(rewrite(bad, {**header, "format": "other/9"}, weights))
    with pytest.raises(ValueError, match="header field 'obs_dim' must be of type int"):
        LearnedAgent(rewrite(bad, {**header, "obs_dim": "228"}, weights))
    with pytest.raises(ValueError, match=r"trunk\.0\.weight must be finite float32 of shape \(16, 228\)"):
        LearnedAgent(rewrite(bad, header, weights, **{"trunk.0.weight": np.zeros((16, 227), np.float32)}))
    with pytest.raises(ValueError, match="must be finite"):
        LearnedAgent(rewrite(bad, header, weights, **{"value.bias": np.array([np.nan], np.float32)}))
    with pytest.raises(ValueError, match="arrays .*extra"):
        LearnedAgent(rewrite(bad, header, weights, extra=np.zeros(1, np.float32)))
    # A pickled payload in the file is refused, never run.
    ran = tmp_path / "pickle_ran"
    np.savez(bad, header=np.array([Boom(ran)], dtype=object), **weights)
    assert b"pickle_ran" in bad.read_bytes()                          # the payload is in the file
    with pytest.raises(ValueError, match="not a learned model file"):
        LearnedAgent(bad)
    assert not ran.exists()


# ---------------------------------------------------------------- the command line
def run_args(out, *extra):
    return ["--game", "help", "--out", str(out), "--eval-every", "1500", "--eval-games", "8", "--checkpoint-every",
            "1500", "--set", "num_games=16", "--set", "rollout_steps=16", "--set", "hidden=16", "--set",
            "bc_decisions=1000", "--no-progress", *extra]


def test_a_run_writes_model_summary_curve_checkpoints_and_resumes(tmp_path):
    out = tmp_path / "run"
    assert main(run_args(out, "--timesteps", "3000")) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["game"] == "help" and s["decisions"] >= 3000 and s["bc_decisions"] >= 1000
    assert s["decisions_per_second"] > 0 and s["wall_seconds"] > 0 and s["cpu_seconds"] > 0
    assert [e["decisions"] for e in s["evaluations"]][0] == 0 and s["evaluations"][-1]["decisions"] == s["decisions"]
    assert all(0 <= e["ci"][0] <= e["win_rate"] <= e["ci"][1] <= 1 for e in s["evaluations"])
    assert (out / "curve.png").stat().st_size > 0 and any((out / "tb").iterdir())
    assert any((out / "checkpoints").iterdir()) and (out / "best.npz").exists()
    LearnedAgent(out / "model.npz", game="help")
    assert main(run_args(out, "--timesteps", "5000", "--resume")) == 0
    s2 = json.loads((out / "summary.json").read_text())
    assert s2["decisions"] >= 5000 and s2["evaluations"][:len(s["evaluations"])] == s["evaluations"]
    assert s2["wall_seconds"] > s["wall_seconds"]


def test_seconds_hold_the_whole_run_its_last_evaluation_and_saving_included(tmp_path, monkeypatch, capsys):
    """Training stops early enough that the last evaluation and saving end within --seconds: on a fake clock on
    which every evaluation takes 30 s and every iteration 1 s, a 100 s run ends by 100 s, having trained, with
    its last evaluation on its last weights."""
    from quando_env.training.learner.run import Run

    now = [0.0]

    def taking(seconds, method):
        def slow(self, *args, **kwargs):
            now[0] += seconds
            return method(self, *args, **kwargs)
        return slow

    monkeypatch.setattr(Run, "clock", staticmethod(lambda: now[0]))
    monkeypatch.setattr(Learner, "evaluate", taking(30.0, Learner.evaluate))
    monkeypatch.setattr(Learner, "iteration", taking(1.0, Learner.iteration))
    out = tmp_path / "run"
    assert main(run_args(out, "--seconds", "100", "--eval-every", "1000000")) == 0
    s = json.loads((out / "summary.json").read_text())
    assert now[0] <= 100 and s["wall_seconds"] <= 100
    assert s["decisions"] > 0 and s["evaluations"][-1]["decisions"] == s["decisions"]
    assert "time limit near at" in capsys.readouterr().out
    now[0] = 0.0                                # resumed: its evaluations' durations come from the summary
    assert main(["--out", str(out), "--resume", "--seconds", "100", "--no-progress"]) == 0
    s2 = json.loads((out / "summary.json").read_text())
    assert now[0] <= 100 and s2["decisions"] > s["decisions"]
    assert s2["evaluations"][-1]["decisions"] == s2["decisions"]


@pytest.mark.parametrize("later, last", [(0.1, "(4 of 8 games: the rest would not end within --seconds)"),
                                         (0.2, "no game ended by the end of --seconds: not evaluated")])
def test_seconds_count_from_the_commands_start_and_the_last_evaluation_ends_by_its_deadline(tmp_path, monkeypatch,
                                                                                           capsys, later, last):
    """--seconds 120 of a command line whose clock starts 11 s after the process did (its imports), on a fake clock
    where an iteration takes 5 s and each move of the learned policy in an evaluation 0.02 s until it has learned,
    then `later` (its games grow longer): the run ends by 120 s from the process's start, its last evaluation
    stopped at the deadline with the games that ended by then (whole parts of the evaluation), or none, and it says
    so."""
    from quando_env.training.learner import cli
    from quando_env.training.learner.run import Run

    now, move = [0.0], [0.02]

    def act(self, *args, **kwargs):
        now[0] += move[0]
        return real(self, *args, **kwargs)

    def iteration(self):
        now[0] += 5.0
        move[0] = later
        return learn(self)
    real, learn = LearnedAgent.act, Learner.iteration
    monkeypatch.setattr(Run, "clock", staticmethod(lambda: now[0]))
    monkeypatch.setattr(LearnedAgent, "act", act)
    monkeypatch.setattr(Learner, "iteration", iteration)
    monkeypatch.setattr(cli, "process_age", lambda: 11.0)
    out = tmp_path / "run"
    assert main(run_args(out, "--seconds", "120", "--eval-every", "1000000"), since_process_start=True) == 0
    s = json.loads((out / "summary.json").read_text())
    assert now[0] + 11 <= 120 and s["wall_seconds"] <= 120 and s["decisions"] > 0
    assert [e["games"] for e in s["evaluations"]] == ([8, 4] if later < 0.2 else [8])
    assert last in capsys.readouterr().out.splitlines()[-2]


def test_a_processs_age_counts_from_its_start():
    r = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); "
                        "from quando_env.training.budget import process_age; print(time.perf_counter() - t, "
                        "process_age())"], capture_output=True, text=True, timeout=120)
    since_first_line, age = map(float, r.stdout.split())
    assert since_first_line < age < since_first_line + 60, r.stderr[-2000:]     # the interpreter started first


def test_train_py_runs_the_learner_with_the_games_recipe(tmp_path):
    """`train.py --game G` is the learner's command line under its own name: the game's recipe, its summary (the
    seed, settings, version and commit), no progress bar on a pipe."""
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "run"
    args = [a for a in run_args(out, "--timesteps", "2000", "--seed", "7") if a != "--no-progress"]
    r = subprocess.run([sys.executable, str(root / "train.py"), *args], capture_output=True, cwd=root, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert b"\r" not in r.stdout + r.stderr and b"[eval]" in r.stdout     # a pipe gets lines, no progress bar
    s = json.loads((out / "summary.json").read_text())
    assert s["game"] == "help" and s["decisions"] >= 2000 and s["hyper"]["lr"] == RECIPES["help"]["lr"]
    assert s["seed"] == s["hyper"]["seed"] == 7 and s["options"]["num_players"] == 4
    assert {k: s[k] for k in ("version", "commit")} == made_by()
    assert (out / "log.txt").read_text().startswith("train.py --game help")
    r = subprocess.run([sys.executable, str(root / "train.py"), "--game", "help", "--timesteps", "0"],
                       capture_output=True, text=True, cwd=root, timeout=300)
    assert r.returncode == 2 and r.stderr.splitlines()[-1].startswith("train.py: error: argument --timesteps")


def test_a_run_given_no_length_ends_at_the_games_default_budget(tmp_path):
    """`train.py --game G` alone ends (at the game's DEFAULT_DECISIONS); a limit given replaces it."""
    out = ["--out", str(tmp_path / "run")]
    for game in ("quando", "cabo", "help"):
        assert parse_args(["--game", game, *out]).timesteps == DEFAULT_DECISIONS[game]
    assert parse_args(out).timesteps == DEFAULT_DECISIONS["quando"]
    assert parse_args(["--game", "cabo", "--seconds", "60", *out]).timesteps is None
    assert parse_args(["--game", "cabo", "--timesteps", "5", *out]).timesteps == 5
    main(run_args(tmp_path / "run", "--timesteps", "100"))
    assert parse_args(["--resume", *out]).timesteps is None                  # a resumed run goes on until stopped


def test_a_plain_run_of_a_game_goes_on_to_its_finishing_stage_and_a_run_given_settings_does_not(tmp_path, tiny):
    """`train.py --game G` alone runs the whole recipe (FINISH after the first run); --set, --seconds or
    --timesteps make it one run unless --finish is given; a game without a finishing stage refuses --finish."""
    out = ["--out", str(tmp_path / "run")]
    for game in ("quando", "cabo", "help"):
        args = parse_args(["--game", game, *out])
        assert args.finish and args.recipe == {"finish": True, "timesteps": DEFAULT_DECISIONS[game]}
        assert not parse_args(["--game", game, "--no-finish", *out]).finish
        for given in (["--set", "lr=1e-4"], ["--seconds", "60"], ["--timesteps", "5"]):
            assert not parse_args(["--game", game, *given, *out]).finish
            assert parse_args(["--game", game, *given, "--finish", *out]).finish
    with pytest.raises(SystemExit):
        parse_args(["--game", tiny, "--finish", *out])


def test_the_finishing_stage_starts_from_the_runs_best_model_and_a_resumed_run_goes_on_to_it(tmp_path, monkeypatch,
                                                                                              capsys):
    """The finishing stage runs in OUT/finish from OUT/best.npz with the game's finish settings over the run's, for
    its decisions; a run stopped before its finishing stage began goes on to it when resumed."""
    from quando_env.training.learner import finish

    settings = finish("help")[0]
    monkeypatch.setitem(registry.GAMES, "help", dataclasses.replace(registry.GAMES["help"],
                                                                    finish=(registry.GAMES["help"].finish[0], 400)))
    out = tmp_path / "run"
    assert main(run_args(out, "--timesteps", "600", "--finish")) == 0
    first = json.loads((out / "state.json").read_text())["hyper"]
    final = json.loads((out / "finish" / "state.json").read_text())["hyper"]
    assert final["init"] == str(out / "best.npz") and final["lr"] == 1e-4
    assert final["self_play_share"] == 0 and final["heuristic_share"] == 1 and final["bc_decisions"] == 0
    assert {k: v for k, v in final.items() if k not in settings and k != "init"} == {
        k: v for k, v in first.items() if k not in settings and k != "init"}
    assert json.loads((out / "finish" / "summary.json").read_text())["decisions"] >= 400
    assert json.loads((out / "recipe.json").read_text()) == {"finish": True, "timesteps": 600}
    shutil.rmtree(out / "finish")                                   # as if stopped between the two
    capsys.readouterr()
    assert main(["--out", str(out), "--resume", "--no-progress"]) == 0
    assert "the finishing stage of help" in capsys.readouterr().out
    assert json.loads((out / "finish" / "summary.json").read_text())["decisions"] >= 400
    assert json.loads((out / "summary.json").read_text())["decisions"] < 1000      # the first run did not go on


def _ctrl_c():
    raise KeyboardInterrupt


def _sigterm():
    import os
    import signal

    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize("stop, status, said", [(_ctrl_c, 130, "interrupted at "),
                                                (_sigterm, 143, "stopped by SIGTERM at ")])
def test_ctrl_c_or_sigterm_saves_the_model_and_state_and_says_so_in_one_line(tmp_path, monkeypatch, capsys, stop,
                                                                             status, said):
    """A scheduler's stop (SIGTERM) saves as Ctrl-C does; the SIGTERM handler before the run is back after it."""
    import signal

    calls = []
    iteration = Learner.iteration

    def stopped(self):
        calls.append(1)
        if len(calls) == 3:
            stop()
        return iteration(self)

    monkeypatch.setattr(Learner, "iteration", stopped)
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "run"
    assert main(run_args(out, "--timesteps", "100000")) == status
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith(said) and "--resume" in lines[-1]
    assert signal.getsignal(signal.SIGTERM) is before
    state = json.loads((out / "state.json").read_text())
    assert state["counters"]["decisions"] == json.loads((out / "summary.json").read_text())["decisions"] > 0
    LearnedAgent(out / "model.npz", game="help")


def test_settings_are_checked():
    with pytest.raises(ValueError, match="method='a2c' is not allowed: choose one of"):
        Hyper(method="a2c", game="quando")
    with pytest.raises(ValueError, match="num_games=0"):
        Hyper(num_games=0, game="quando")
    for bad in ({"lr": -1.0}, {"lr": float("nan")}, {"hidden": ()}, {"seed": -1}, {"epochs": 2.0}, {"gamma": 2},
                {"options": {"num_players": 3}}, {"threads": True}, {"teacher": "oracle"}, {"teacher_samples": 1},
                {"bc_dagger": 1.5}, {"init": 3}, {"margin": -0.1}, {"overlap": 1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            Hyper(game="quando", **bad)
    with pytest.raises(ValueError, match="num_players"):
        Hyper(game="help", num_players=9)


@pytest.mark.parametrize("args,message", [
    (["--eval-every", "0"], "argument --eval-every: 0 is not allowed"),
    (["--timesteps", "-5"], "argument --timesteps: -5 is not allowed"),
    (["--seconds", "0"], "argument --seconds: '0' is not allowed"),
    (["--seconds", "nan"], "argument --seconds: 'nan' is not allowed"),
    (["--seed", "-1"], "argument --seed: -1 is not allowed"),
    (["--threads", "0"], "argument --threads: 0 is not allowed"),
    (["--resume"], "argument --resume: no run saved in"),
    (["--set", "speed=3"], "argument --set: 'speed=3': give NAME=VALUE with NAME one of"),
    (["--set", "epochs"], "argument --set: 'epochs': give NAME=VALUE"),
    (["--set", "game=cabo"], "argument --set: 'game=cabo': give NAME=VALUE"),
    (["--set", "epochs=x"], "argument --set: 'epochs=x': epochs takes an integer"),
    (["--set", "hidden="], "argument --set: 'hidden=': hidden takes integers separated by commas"),
    (["--set", "options=[1"], "argument --set: 'options=[1': options takes a JSON object"),
    (["--set", "options=[1]"], "argument --set: 'options=[1]': options takes a JSON object"),
    (["--set", "options={\"x\": 1}"], "argument --set: unknown option(s) ['x']"),
    (["--set", "method=foo"], "argument --set: method='foo' is not allowed"),
    (["--set", "num_players=9"], "argument --set:"),
    (["--set", "lr=-1"], "argument --set: lr=-1.0 is not allowed: a number > 0.0"),
    (["--set", "seed=-3"], "argument --set: seed=-3 is not allowed"),
    (["--eval-games", "0"], "argument --eval-games: 0 is not allowed"),
    (["--eval-games", "10000001"], "argument --eval-games: eval_games=10000001 is not allowed"),
    (["--set", "rollout_steps=100000"], "argument --set: num_games * rollout_steps=256 * 100000 is not allowed"),
    (["--seed", "3", "--set", "seed=5"], "argument --set: seed=5 and --seed 3 disagree: give one"),
    (["--set", "options=null"], "argument --set: 'options=null': options takes a JSON object"),
    (["--set", "init=nowhere.npz"], "argument --set init: no learned model at nowhere.npz"),
    (["--set", "init=examples/tiny_game.py"], "argument --set init: examples/tiny_game.py: not a learned model file"),
    (["--set", "move_hidden=8"], "argument --set: move_hidden=(8,) is not allowed: () or two integer widths"),
    (["--set", "overlap=yes"], "argument --set: 'overlap=yes': overlap takes 1, 0, true or false"),
    (["--device", "cuda"] if not __import__("torch").cuda.is_available() else ["--device", "tpu"],
     "argument --device:"),
    (["--out", "/proc/quando_run"], "argument --out:")])
def test_command_line_values_are_checked_before_anything_is_written(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as e:
        status = main(["--out", str(tmp_path / "run"), *args])
        raise SystemExit(status)                        # the checks made once the settings are read return 2
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_an_output_folder_that_cannot_be_made_is_refused_first(tmp_path, capsys):
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["--out", str(tmp_path / "a_file" / "run")])
    assert e.value.code == 2 and "argument --out:" in capsys.readouterr().err


@pytest.fixture
def saved_run(tmp_path):
    """A run folder as a run of 2 torch threads leaves it (nothing trained)."""
    import torch

    threads = torch.get_num_threads()
    learner = Learner(Hyper(game="help", num_games=4, rollout_steps=2, hidden=(8,), threads=2, seed=3))
    torch.set_num_threads(threads)
    out = tmp_path / "run"
    out.mkdir()
    learner.save_state(out)
    return out


@pytest.mark.parametrize("args,option", [(["--seed", "4"], "--seed"), (["--set", "hidden=16"], "--set"),
                                         (["--eval-games", "7"], "--eval-games"), (["--game", "cabo"], "--game"),
                                         (["--threads", "1"], "--threads")])
def test_resume_refuses_options_the_saved_run_does_not_have(saved_run, capsys, args, option):
    before = sorted(p.name for p in saved_run.iterdir())
    with pytest.raises(SystemExit) as e:
        main(["--out", str(saved_run), "--resume", *args])
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert e.value.code == 2 and f"argument {option}: --resume continues the run in" in line, line
    assert sorted(p.name for p in saved_run.iterdir()) == before


def test_a_folder_holding_a_run_is_refused_unless_resumed(saved_run, capsys):
    before = {p.name: p.read_bytes() for p in saved_run.iterdir() if p.is_file()}
    with pytest.raises(SystemExit) as e:
        main(run_args(saved_run, "--timesteps", "100"))
    assert e.value.code == 2 and "holds a run already: --resume continues it" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in saved_run.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("cut", ["model.npz", "state.npz", "state.json"])
def test_a_stop_while_saving_leaves_the_saved_files_whole(saved_run, monkeypatch, cut):
    learner = Learner.resume(saved_run)
    before = {p.name: p.read_bytes() for p in saved_run.iterdir() if p.is_file()}
    savez, write_text = np.savez, Path.write_text

    def cut_short(file, *args, **kwargs):          # np.savez gets an open file, Path.write_text a Path
        target = file if isinstance(file, Path) else Path(file.name)
        if target.name.startswith(cut):
            target.write_bytes(b"half a file")
            raise KeyboardInterrupt
        return (write_text if isinstance(file, Path) else savez)(file, *args, **kwargs)
    monkeypatch.setattr(np, "savez", cut_short)
    monkeypatch.setattr(Path, "write_text", cut_short)
    with pytest.raises(KeyboardInterrupt):
        learner.save_state(saved_run)
    assert {p.name: p.read_bytes() for p in saved_run.iterdir() if p.is_file() and p.name in before} == before


@pytest.mark.parametrize("damage, content", [("state.npz", "{truncated"), ("model.npz", "{truncated"),
                                             ("summary.json", "{truncated"), ("summary.json", "[]"),
                                             ("summary.json", '{"evaluations": 5}')])
def test_resume_names_the_run_whose_files_cannot_be_read(saved_run, capsys, damage, content):
    (saved_run / "summary.json").write_text('{"evaluations": [], "wall_seconds": 1, "cpu_seconds": 1}')
    assert main(["--out", str(saved_run), "--resume", "--no-progress", "--timesteps", "1"]) == 0   # readable
    (saved_run / damage).write_text(content)
    assert main(["--out", str(saved_run), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "argument --resume: " in err and str(saved_run) in err and "Traceback" not in err, err


def damage_run(out: Path, damage: str) -> None:
    """A run folder whose summary names best.npz, with one of the files --resume reads damaged."""
    e = {"decisions": 0, "win_rate": 0.5, "ci": [0.4, 0.6], "wall_seconds": 1, "mean_round_points": 0.0}
    (out / "summary.json").write_text(json.dumps({"evaluations": [e], "wall_seconds": 1, "cpu_seconds": 1,
                                                  "model": str(out / "best.npz")}))
    shutil.copy(out / "model.npz", out / "best.npz")
    shapes = [tuple(p.shape) for p in Learner.resume(out).net.parameters()]
    moments = {"0.step": np.float32(1), "0.exp_avg": np.zeros(shapes[0], np.float32),
               "0.exp_avg_sq": np.zeros(shapes[0], np.float32)}
    if damage == "best.npz cut short":
        (out / "best.npz").write_bytes((out / "model.npz").read_bytes()[:300])
    elif damage == "best.npz of another network":
        other = Learner(Hyper(game="help", num_games=4, rollout_steps=2, hidden=(4,), seed=3))
        save_model(out / "best.npz", other.header(), other.weights())
    elif damage == "best.npz missing":
        (out / "best.npz").unlink()
    elif damage == "state.npz of another network":
        np.savez(out / "state.npz", **{**moments, "0.exp_avg": np.zeros(3, np.float32)})
    elif damage == "state.npz not finite":
        np.savez(out / "state.npz", **{**moments, "0.exp_avg_sq": np.full(shapes[0], np.nan, np.float32)})
    else:
        np.savez(out / "state.npz", **moments)      # a readable one


@pytest.mark.parametrize("damage", ["best.npz cut short", "best.npz of another network", "best.npz missing",
                                    "state.npz of another network", "state.npz not finite"])
def test_resume_checks_every_file_it_reads_before_anything_changes(saved_run, capsys, damage):
    """Not only state.json, model.npz, state.npz and summary.json: best.npz, the model the summary names, too."""
    damage_run(saved_run, "none")
    assert main(["--out", str(saved_run), "--resume", "--no-progress", "--timesteps", "1"]) == 0    # readable
    damage_run(saved_run, damage)
    before = {p: p.read_bytes() for p in saved_run.rglob("*") if p.is_file()}
    assert main(["--out", str(saved_run), "--resume", "--no-progress", "--timesteps", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "argument --resume: " in err[0] and str(saved_run) in err[0], err
    assert ("best.npz" if damage.startswith("best") else "state.npz") in err[0]
    assert {p: p.read_bytes() for p in saved_run.rglob("*") if p.is_file()} == before


def test_an_evaluations_duration_is_read_back_when_it_is_a_time(tmp_path):
    """What an evaluation took ("seconds", which --seconds reserves for the last one of a resumed run) is checked as
    the other times are; summaries saved before it was kept still read."""
    from quando_env.training.learner.run import read_summary

    e = {"decisions": 0, "win_rate": 0.5, "ci": [0.4, 0.6], "wall_seconds": 1, "mean_round_points": 0.0}
    path = tmp_path / "summary.json"
    for seconds, ok in ((None, True), (2.5, True), (-1, False), ("2", False)):
        path.write_text(json.dumps({"evaluations": [{**e, **({} if seconds is None else {"seconds": seconds})}],
                                    "wall_seconds": 1, "cpu_seconds": 1}))
        if ok:
            assert read_summary(path)["evaluations"][0].get("seconds") == seconds
        else:
            with pytest.raises(ValueError, match="not the summary of a run"):
                read_summary(path)


def test_a_run_saved_before_overlap_existed_resumes_without_it_and_a_new_one_keeps_its_setting(saved_run):
    state = json.loads((saved_run / "state.json").read_text())
    assert state["hyper"]["overlap"] is True                    # the default
    assert Learner.resume(saved_run).hp.overlap
    del state["hyper"]["overlap"], state["update_rng"]
    (saved_run / "state.json").write_text(json.dumps(state))
    assert not Learner.resume(saved_run).hp.overlap


def test_a_resumed_run_no_longer_needs_the_model_it_started_from(tmp_path, saved):
    init = tmp_path / "init.npz"
    saved[0].rename(init)
    out = tmp_path / "run"
    assert main(run_args(out, "--timesteps", "500", "--set", f"init={init}", "--set", "bc_decisions=0")) == 0
    init.unlink()
    assert main(run_args(out, "--timesteps", "1500", "--resume", "--set", f"init={init}",
                         "--set", "bc_decisions=0")) == 0
    assert json.loads((out / "summary.json").read_text())["decisions"] >= 1500


def test_resume_takes_its_thread_counts_from_the_saved_run(saved_run, monkeypatch):
    import numba
    import torch

    used = {}

    def numba_threads(n):
        used["numba"] = n
        raise RuntimeError("stop here")
    monkeypatch.setattr(torch, "set_num_threads", lambda n: used.setdefault("torch", n))
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 8)
    monkeypatch.setattr(numba, "set_num_threads", numba_threads)
    with pytest.raises(RuntimeError, match="stop here"):     # repeating the run's settings is allowed
        main(["--out", str(saved_run), "--resume", "--game", "help", "--seed", "3", "--set", "hidden=8",
              "--no-progress"])
    assert used == {"torch": 2, "numba": 2}


def last_legal(masks):
    """The last legal action of every row."""
    return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)


def draw_last_legal(learner):
    """Make the learner's policy put all its probability on the last legal action (its log-probabilities, head
    outputs and values stay the network's)."""
    policy = learner.collector.policy

    def one_hot(obs, masks, moves=None, anchor=None, net=None):
        p, *rest = policy(obs, masks, moves, None, net)
        q = np.zeros_like(p)
        q[np.arange(len(obs)), last_legal(masks)] = 1.0
        return (q, *rest)
    learner.collector.policy = one_hot


@pytest.mark.parametrize("method", ["ppo", "dmc"])
def test_decide_draws_its_actions_from_the_policys_probabilities(method):
    learner = small_learner("help", method=method, epsilon=0.25)
    o, m = learner.collector.seat_view()
    probs, logp, logits, value = learner.collector.policy(o, m)
    assert np.allclose(probs.sum(axis=1), 1.0) and (probs[~m] == 0).all()
    if method == "dmc":                 # epsilon-greedy on the action values
        best = np.where(m, logits, -np.inf).argmax(axis=1)
        np.testing.assert_allclose(probs[np.arange(len(o)), best], 0.75 + 0.25 / m.sum(axis=1))
    last = last_legal(m)
    draw_last_legal(learner)
    acts, lp, val, played = learner.collector.decide(o, m)
    np.testing.assert_array_equal(played, acts)
    np.testing.assert_array_equal(acts, last)
    np.testing.assert_array_equal(lp, logp[np.arange(len(o)), last])


@pytest.mark.parametrize("game", GAMES)
def test_the_first_layer_on_the_nonzeros_gives_the_dense_layers_values_and_gradients(game):
    """training.sparse: the learner's forward and backward from the observations' nonzeros equal the dense ones
    (real observations, plus an all-zero row and a batch of zeros)."""
    import torch

    from quando_env.training import sparse
    from quando_env.training.learner import Net

    learner = small_learner(game)
    obs = np.concatenate([learner.collector.seat_view()[0], np.zeros((1, learner.obs_dim), np.float32)])
    assert 0 < (obs != 0).mean() < 0.5
    net = Net(learner.obs_dim, learner.num_actions, (32, 16))
    for x in (obs, np.zeros((3, learner.obs_dim), np.float32)):
        grads = []
        for given in (torch.from_numpy(x), sparse.sparse_rows(x)):
            logits, value = net(given)
            loss = (logits * torch.linspace(-1, 1, learner.num_actions)).square().sum() + value.sum()
            grads.append([logits, value, *torch.autograd.grad(loss, list(net.parameters()))])
        for dense, fast in zip(*grads):
            np.testing.assert_allclose(fast.detach().numpy(), dense.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_a_minibatch_taken_from_a_rollouts_nonzeros_is_the_minibatchs_own_nonzeros():
    """training.sparse.SparseRows.take (the update finds a rollout's nonzeros once): the same arrays as finding
    the rows' nonzeros again, for rows in any order, repeated, empty, and an all-zero row."""
    from quando_env.training import sparse

    rng = np.random.default_rng(0)
    x = ((rng.random((60, 40)) < 0.1) * rng.random((60, 40))).astype(np.float32)
    x[7] = 0
    batch = sparse.sparse_rows(x)
    for ids in (np.array([3, 7, 9, 59]), rng.permutation(60)[:25], np.array([5, 5, 7]), np.array([], np.int64)):
        taken, found = batch.take(ids), sparse.sparse_rows(x[ids])
        assert (taken.num_rows, taken.width) == (found.num_rows, found.width)
        for name in ("rows", "cols", "vals", "offsets"):
            np.testing.assert_array_equal(getattr(taken, name), getattr(found, name))
        for kept, again in zip(taken.with_columns().by_column(), found.by_column()):      # found once, kept
            np.testing.assert_array_equal(kept, again)


@pytest.mark.parametrize("game", FEATURED)
def test_the_legal_moves_outputs_give_the_losses_and_gradients_of_the_dense_ones(game):
    """A move scorer's outputs come as `Legal` (the legal moves' alone): its log-probabilities, entropy, likeliest
    move, anchor and PPO loss equal those computed on the (B, num_actions) outputs it stands for, gradients too."""
    import torch

    from quando_env.training.learner import Legal, anchored, dense, legal_moves, ppo_loss

    learner = small_learner(game, move_hidden=(16, 8), anchor=2.0)
    for p in learner.net.parameters():
        torch.nn.init.normal_(p, 0.0, 0.3)
    rng = np.random.default_rng(0)
    for _ in range(7):                      # positions past the first moves
        m = learner.game.legal_action_mask
        learner.game.step(np.array([rng.choice(np.flatnonzero(r)) if r.any() else 0 for r in m]))
    o, m = learner.collector.seat_view()
    live = m.sum(axis=1) > 1
    o, m = o[live], m[live]
    moves = legal_moves(m, learner.game.action_features(games=np.flatnonzero(live))[m])
    acts = torch.from_numpy(np.array([rng.choice(np.flatnonzero(r)) for r in m]))
    heur = torch.from_numpy(learner.heuristic.act(o, m))
    masks, n = torch.from_numpy(m), len(o)
    got = []
    for as_legal in (True, False):
        logits, value = learner.net(torch.from_numpy(o), moves)
        assert isinstance(logits, Legal)
        logits = anchored(logits if as_legal else dense(logits), heur, learner.hp.anchor)
        out = ppo_loss(learner.hp, logits, value, masks, acts, torch.zeros(n), torch.linspace(-1, 1, n),
                       torch.zeros(n))
        grads = torch.autograd.grad(out["loss/total"], list(learner.net.parameters()))
        got.append([out["loss/policy"], out["loss/entropy"], out["loss/approx_kl"], *grads])
    for fast, full in zip(*got):
        np.testing.assert_allclose(fast.detach().numpy(), full.detach().numpy(), rtol=1e-4, atol=1e-6)
    assert got[0][1] > 0.1                  # the entropy is not 0 (the outputs differ per move)


def test_acting_on_the_nonzeros_follows_the_weights_as_they_change():
    """training.sparse.linear without gradients (acting) gives the dense layer's outputs, also after the weight
    changes in place (an optimizer step, a restored state)."""
    import torch

    from quando_env.training import sparse

    layer = torch.nn.Linear(40, 5)
    x = ((np.random.default_rng(1).random((6, 40)) < 0.2) * 1.0).astype(np.float32)
    rows = sparse.sparse_rows(x)
    with torch.no_grad():
        for change in (lambda: None, lambda: layer.weight.add_(1.0),
                       lambda: layer.load_state_dict({"weight": torch.zeros(5, 40), "bias": torch.ones(5)})):
            change()
            np.testing.assert_allclose(sparse.linear(rows, layer).numpy(), layer(torch.from_numpy(x)).numpy(),
                                       rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dagger", [0.0, 1.0])
def test_the_warm_start_learns_the_heuristics_move_and_dagger_plays_the_policys_own(dagger):
    """bc_dagger: the share of warm-start decisions that play the policy's draw; the label stays the heuristic's."""
    learner = small_learner("cabo", bc_decisions=10_000, bc_dagger=dagger)
    heuristic = learner.heuristic.act
    labels, played = [], []
    draw_last_legal(learner)
    learner.heuristic.act = lambda o, m: labels.append(heuristic(o, m)) or labels[-1]
    step = learner.game.step
    learner.game.step = lambda a: played.append(a.copy()) or step(a)
    learner.hp.rollout_steps = 1
    m = learner.game.legal_action_mask.copy()
    learner.collect()
    last = last_legal(m)
    np.testing.assert_array_equal(learner.buf.act[:learner.count], labels[0])     # always learns the heuristic
    np.testing.assert_array_equal(played[0], last if dagger else labels[0])
    assert (labels[0] != last).any()


def test_the_dmc_warm_start_makes_the_teachers_move_the_greedy_one(tiny):
    """DMC imitates through action values: the teacher's move is fitted to its return and every other legal move
    held below it (fitting the teacher's moves alone left the greedy move elsewhere in 59% of these states)."""
    learner = Learner(tiny_hyper(method="dmc", bc_decisions=10**9), heuristic=KeepAgent())
    for _ in range(40):
        logs = learner.iteration()
    obs, masks = learner.collector.seat_view()
    assert masks[:, 0].all() and (learner.agent().act(obs, masks) == 0).mean() >= 0.95
    assert logs["loss/imitation_accuracy"] >= 0.95


def test_init_starts_from_a_saved_model_of_the_same_shape_and_refuses_another(saved):
    path, header, weights = saved
    learner = small_learner("help", init=str(path))
    assert all(np.array_equal(v, weights[k]) for k, v in learner.weights().items())
    with pytest.raises(ValueError, match=r"has layers \[16\].*hidden=\[32\]"):
        small_learner("help", init=str(path), hidden=(32,))
    with pytest.raises(ValueError, match="help"):
        small_learner("cabo", init=str(path))
    with pytest.raises(ValueError, match=r"has a policy head.*a q head \(dmc\)"):
        small_learner("help", init=str(path), method="dmc")


def test_a_rollout_teacher_labels_the_warm_start():
    """teacher="rollout": the warm start learns the rollout search's moves (expert iteration)."""
    from quando_env.agents.rollout import RolloutAgent

    learner = small_learner("cabo", bc_decisions=10_000, teacher="rollout", teacher_samples=2)
    assert isinstance(learner.collector.teacher, RolloutAgent) and learner.collector.teacher.samples == 2
    labels = []
    act = learner.collector.teacher.act
    learner.collector.teacher.act = lambda o, m: labels.append(act(o, m)) or labels[-1]
    learner.hp.rollout_steps = 2
    learner.collect()
    np.testing.assert_array_equal(learner.buf.act[:learner.count], np.concatenate(labels))


# ---------------------------------------------------------------- the learned agent knows its player count
@pytest.fixture
def shipped(saved, tmp_path, monkeypatch):
    """The saved 4-player Help! model as the shipped one (quando_env/agents/models/learned_help_4p.npz)."""
    import shutil

    from quando_env.agents import learned

    monkeypatch.setattr(learned, "MODELS", tmp_path / "models")
    (tmp_path / "models").mkdir()
    shutil.copy(saved[0], tmp_path / "models" / "learned_help_4p.npz")
    return saved[0]


def test_the_learned_agent_is_the_model_of_the_player_count_and_refuses_another(shipped, capsys):
    from quando_env.agents import check_agent
    from quando_env.evaluation import cli as evaluate_cli
    from quando_env import cli

    check_agent("learned", "help", num_players=4)
    with pytest.raises(FileNotFoundError, match=r"learned_help_3p\.npz; the shipped ones play 4 players\): play 4 "
                       r"players \(--players 4, num_players=4 in Python\), or train one"):
        check_agent("learned", "help", num_players=3)      # the player count is the usual fix
    assert isinstance(make_agent("learned", game="help", num_players=4), LearnedAgent)
    three, four = (game_class("help").obs_dim_of(n) for n in (3, 4))
    with pytest.raises(ValueError, match=f"observations of length {four}; it cannot play game 'help' for 3 "
                                         f"players with observations of length {three}"):
        make_agent(f"learned:{shipped}", game="help", num_players=3)
    evaluate_cli.parse_args(["--game", "help", "--players", "4", "--agents", "learned", "heuristic"])
    cli.parse_args(["play", "--game", "help", "--players", "4", "--opponents", "learned"])
    three_players = ["--game", "help", "--players", "3"]
    for parse, argv, option in ((evaluate_cli.parse_args, [*three_players, "--agents", "learned"], "--agents"),
                                (cli.parse_args, ["play", *three_players, "--opponents", "learned"], "--opponents")):
        with pytest.raises(SystemExit) as e:
            parse(argv)
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert e.value.code == 2 and f"argument {option}:" in line and "learned_help_3p.npz" in line, line
    status = evaluate_cli.main(["--game", "help", "--players", "3", "--agents", f"learned:{shipped}", "--games", "2",
                                "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and f"length {four}" in err and f"length {three}" in err, err


def test_a_learned_agent_refuses_a_game_with_other_rules_than_it_was_trained_with(tmp_path):
    """Quando's editions have the same observations: the model's header is what tells them apart. The episode's
    options (episode, reward, max_steps) do not change the rules a model plays by."""
    import quando_env

    assert isinstance(make_agent("learned", game="quando", options={"edition": "kendi"}), LearnedAgent)
    with pytest.raises(ValueError, match=r"learned_quando_4p\.npz was trained with other rules: edition='kendi' "
                                         r"\(this game has edition='oya'\)"):
        make_agent("learned", game="quando", options={"edition": "oya"})
    for game in GAMES:
        quando_env.make_vec_env(2, game=game, opponents="learned", episode="round", reward="win",
                                max_steps=2000).close()
    header, weights = load_model(default_model("quando"))
    oya = save_model(tmp_path / "oya.npz", {**header, "options": {**header["options"], "edition": "oya"}}, weights)
    make_agent(f"learned:{oya}", game="quando", options={"edition": "oya"})
    with pytest.raises(ValueError, match="oya.npz was trained with other rules: edition='oya' .*edition='kendi'"):
        make_agent(f"learned:{oya}", game="quando", options={})        # the default game: kendi


def test_terminal_play_builds_learned_opponents_for_its_player_count(shipped):
    from quando_env.opponents import PlayError, make_opponent

    game = game_class("help")(1, seed=0, num_players=3)
    with pytest.raises(PlayError, match="cannot play game 'help' for 3 players with observations of length"):
        make_opponent(f"learned:{shipped}", 1, 0, game)
    assert isinstance(make_opponent(f"learned:{shipped}", 1, 0, game_class("help")(1, seed=0)), LearnedAgent)


# ---------------------------------------------------------------- the move scorer
def scrambled(learner):
    """The learner with random weights far from its initial ones (the move scorer's output starts at zero)."""
    import torch

    with torch.no_grad():
        for p in learner.net.parameters():
            p.normal_(0.0, 0.2)
    return learner


@pytest.mark.parametrize("game", FEATURED)
def test_a_move_scorer_model_plays_the_same_from_its_file_given_features_or_observations_alone(tmp_path, game):
    """A model that scores moves saves as format 2; LearnedAgent (numpy) gives the torch network's outputs, and
    the same moves whether the caller passes the game's move features or the agent derives them from the
    observations (sampled worlds)."""
    import torch

    learner = scrambled(small_learner(game, move_hidden=(16, 8)))
    for _ in range(20):
        learner.game.step(learner.game.sample_actions())
    path = save_model(tmp_path / "m.npz", learner.header(), learner.weights())
    agent = LearnedAgent(path, game=game, num_players=4)
    assert agent.header["format"] == FORMAT and agent.uses_action_features
    live = np.flatnonzero(learner.game.current_player >= 0)
    o, m = learner.game.observe(games=live), learner.game.legal_action_mask[live]
    feats = learner.game.action_features(games=live)
    with torch.no_grad():
        logits = learner.net(torch.from_numpy(o), legal_moves(m, feats[m]))[0].dense().numpy()
    np.testing.assert_allclose(agent.scores(o, m, feats)[m], logits[m], rtol=1e-4, atol=1e-4)
    given = agent.act(o, m, features=feats)
    assert np.array_equal(given, agent.act(o, m)) and np.array_equal(given, np.where(m, logits, -np.inf).argmax(1))
    flat = LearnedAgent(header={**agent.header, "move": None}, weights={
        k: v for k, v in agent.weights.items() if not k.startswith("move_")})
    assert not np.allclose(flat.scores(o, m)[m], logits[m], atol=1e-3)         # the move scores count
    res = play_match([agent] + [make_agent("heuristic", game=game)] * 3, 4, seed=0, game=game, progress=False,
                     names=["learned", "h", "h", "h"])
    assert res.pooled()["learned"]["games"] == 4


def test_a_flat_model_starts_a_move_scorer_that_plays_as_it_until_it_learns(tmp_path):
    """init from a model without a move scorer: the scorer's output starts at zero, so the run plays the init
    model's moves; a model with another scorer is refused."""
    learner = scrambled(small_learner("quando"))
    path = save_model(tmp_path / "flat.npz", learner.header(), learner.weights())
    flat = LearnedAgent(path)
    learner = small_learner("quando", init=str(path), move_hidden=(16, 8))
    o, m = learner.collector.seat_view()
    np.testing.assert_array_equal(learner.agent().act(o, m, features=learner.game.action_features()), flat.act(o, m))
    learner.iteration()
    scored = save_model(path.parent / "scored.npz", learner.header(), learner.weights())
    with pytest.raises(ValueError, match="move scorer"):
        small_learner("quando", init=str(scored), move_hidden=(16, 4))


def test_the_tiny_game_trains_its_move_scorer_through_the_contract(tiny):
    """A game with move features (Tiny's: keep or swap, the card held after) trains a move scorer with no
    learner change."""
    learner = Learner(tiny_hyper(move_hidden=(16, 8)), heuristic=KeepAgent())
    for _ in range(40):
        learner.iteration()
    after = learner.evaluate()
    assert after["win_rate"] >= 0.62 and after["ci"][0] > 0.5


# ---------------------------------------------------------------- the anchor on the heuristic
@pytest.mark.parametrize("game", GAMES)
def test_an_anchored_model_adds_its_weight_to_the_heuristics_move_as_the_learner_does(tmp_path, game):
    """anchor=w: the policy's output of the heuristic's move gets +w, in the learner (torch) and in the saved
    model (numpy, the heuristic computed at play time); a large weight plays the heuristic's moves exactly."""
    learner = scrambled(small_learner(game, anchor=2.5))
    for _ in range(15):
        learner.game.step(learner.game.sample_actions())
    live = np.flatnonzero(learner.game.current_player >= 0)
    o, m = learner.game.observe(games=live), learner.game.legal_action_mask[live]
    heuristic = make_agent("heuristic", game=game).act(o, m)
    np.testing.assert_array_equal(learner.collector.anchor_moves(o, m), heuristic)
    logits = learner.collector.policy(o, m, None, heuristic)[2]
    plain = learner.collector.policy(o, m)[2]
    added = np.zeros_like(plain)
    added[np.arange(len(live)), heuristic] = 2.5
    np.testing.assert_allclose(logits, plain + added, atol=1e-5)
    path = save_model(tmp_path / "a.npz", learner.header(), learner.weights())
    agent = LearnedAgent(path, game=game, num_players=4)
    assert agent.header["anchor"] == {"agent": "heuristic", "weight": 2.5}
    np.testing.assert_allclose(agent.scores(o, m)[m], logits[m], rtol=1e-4, atol=1e-4)
    strong = LearnedAgent(header={**agent.header, "anchor": {"agent": "heuristic", "weight": 1000.0}},
                          weights=agent.weights)
    np.testing.assert_array_equal(strong.act(o, m), heuristic)


def test_an_anchor_is_refused_where_it_cannot_mean_what_it_says(tmp_path):
    """An anchor needs format 3, the heuristic and a weight in (0, 1000]; dmc's action values take none."""
    learner = small_learner("help", anchor=1.0)
    header, weights = learner.header(), learner.weights()
    bad = tmp_path / "bad.npz"
    for wrong in ({"format": "quando_env-learned/2"}, {"anchor": {"agent": "rollout", "weight": 1.0}},
                  {"anchor": {"agent": "heuristic", "weight": 0}}, {"anchor": {"agent": "heuristic", "weight": True}},
                  {"anchor": {"agent": "heuristic", "weight": 1.0, "x": 1}}):
        with pytest.raises(ValueError, match="header field 'anchor' must be"):
            LearnedAgent(rewrite(bad, {**header, **wrong}, weights))
    with pytest.raises(ValueError, match="anchor=0 for dmc"):
        Hyper(game="help", method="dmc", anchor=1.0)
    with pytest.raises(ValueError, match="anchor=-1"):
        Hyper(game="help", anchor=-1)


def test_a_move_scorer_needs_move_features():
    with pytest.raises(ValueError, match="move_hidden"):
        Hyper(game="help" if "help" not in FEATURED else "quando", move_hidden=(4,))


def test_training_envs_hand_a_move_scorer_opponent_the_engines_features(tmp_path, monkeypatch):
    """An opponent that scores moves gets the engine's features from the training env (cheap), never derives
    them from observations (a sampled world per decision)."""
    from quando_env import make_vec_env

    learner = scrambled(small_learner("quando", move_hidden=(16, 8)))
    opponent = LearnedAgent(save_model(tmp_path / "m.npz", learner.header(), learner.weights()))
    monkeypatch.setattr(LearnedAgent, "features_of", lambda self, obs: pytest.fail("features derived"))
    venv = make_vec_env(8, opponents=[opponent], seed=0, num_players=4)
    venv.reset()
    for _ in range(30):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(last_legal(masks))
