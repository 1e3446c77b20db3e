"""The second robustness audit's findings, each a test that failed before its fix: integer inputs converted
before any comparison, model files checked by their directory, checks linear in their input, results kept
(atomic writes, partial results on stops), records handed out as snapshots, and refusals as ValueErrors."""
import argparse
import json
import signal
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

import quando_env
import quando_env.checks as checks
from quando_env.agents.learned import MAX_MODEL_BYTES, LearnedAgent, load_model, save_model
from quando_env.adapters import single_agent
from quando_env.adapters.single_agent import LearnerGames
from quando_env.registry import game_class, game_names

GAMES = game_names()


class Liar(int):
    """An int whose comparisons say it is in every range (and whose int() says 0)."""
    def __lt__(self, other): return False
    def __gt__(self, other): return False
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __int__(self): return 0
    __hash__ = int.__hash__


def test_to_int_converts_before_comparing():
    assert checks.to_int(Liar(10**6)) == 10**6 and type(checks.to_int(Liar(7))) is int
    assert checks.to_int(np.uint64(2**64 - 1)) == 2**64 - 1 and checks.to_int(np.array(3, np.int8)) == 3
    assert [checks.to_int(x) for x in (True, np.bool_(False), 2.0, "3", None, np.array([3]), np.array(2.0))] == \
        [None] * 7
    assert checks.as_int(np.array(5, np.uint16), "n", 0, 9) == 5       # a 0-d integer array, as documented
    for f in (lambda: checks.as_int(Liar(10**6), "n", 0, 9), lambda: checks.as_ints([Liar(-1)], "games", 0, 9),
              lambda: checks.as_ints(np.array([Liar(99)], object), "games", 0, 9),
              lambda: checks.as_action(Liar(2**70), 9) and checks.as_int(Liar(2**70), "a", 0, 8)):
        with pytest.raises(ValueError):
            f()


@pytest.mark.parametrize("name", GAMES)
def test_lying_ints_are_refused_before_the_kernels(name):
    cls = game_class(name)
    game = cls(num_games=2, seed=1)
    before = game.states.tobytes()
    with pytest.raises(ValueError, match="games"):
        game.step(np.zeros(1, np.int64), games=[Liar(10**6)])
    with pytest.raises(ValueError, match="games"):
        game.observe(games=[Liar(-10**6)])
    with pytest.raises(ValueError, match="players"):
        game.observe(players=[Liar(10**6)])
    with pytest.raises(ValueError, match="g="):
        game.render_text(Liar(10**6))
    with pytest.raises(ValueError, match="hand_size"):
        cls(hand_size=Liar(999))
    assert game.states.tobytes() == before
    dealer = "dealer" if "dealer" in cls.setup_keys else None
    if dealer:
        with pytest.raises(ValueError, match="dealer"):
            game.reset(seed=1, dealer=Liar(10**6))
    learner = LearnerGames(cls, num_games=2, seat=0)
    with pytest.raises(ValueError, match="action 1000000000 is out of range"):
        learner.step(np.array([Liar(10**9), Liar(10**9)], object))


@pytest.mark.parametrize("name", GAMES)
def test_slot_lists_are_checked_in_linear_time(name, monkeypatch):
    """An accepted games= list builds no message (before, each element built the repr of the whole list)."""
    game = game_class(name)(num_games=2000, seed=1)
    learner = LearnerGames(game_class(name), num_games=64, seat=0)
    shown = []
    for module in (checks, single_agent):
        monkeypatch.setattr(module, "shown", lambda x: shown.append(1) or "x")
    games = list(range(2000))
    game.observe(games=games)
    game.step(game.sample_actions(), games=games)
    game.observe(players=[0] * 2000, games=games)
    learner.step(np.argmax(learner.action_masks(), axis=1))
    assert shown == []


def test_accepted_resets_and_agent_actions_build_no_message(monkeypatch):
    """The Gymnasium vector env's reset and a checked agent's actions build their refusals' messages only when
    refusing (before, every reset showed its options)."""
    from quando_env.adapters import gym_vector_env
    from quando_env.adapters.gym_vector_env import GameVectorEnv
    from quando_env.agents import base
    from quando_env.agents.random_agent import RandomAgent
    shown = []
    monkeypatch.setattr(gym_vector_env, "shown", lambda x: shown.append(1) or "x")
    venv = GameVectorEnv(4)
    venv.reset(seed=0)
    venv.reset(options={"reset_mask": np.ones(4, bool)})
    assert shown == []

    class Name(str):
        def __format__(self, spec):
            shown.append(1)
            return "x"
    agent = base.WrappedAgent(RandomAgent())
    agent.name = Name("x")
    game = game_class("quando")(8, seed=0)
    assert agent.act_batch(game.observe(), game.legal_action_mask).shape == (8,)
    assert shown == []


def tiny_model(tmp_path):
    header = {"format": "quando_env-learned/1", "game": "help", "options": {"num_players": 4}, "obs_dim": 8,
              "num_actions": 3, "hidden": [4], "head": "policy", "info": {}}
    shapes = {"trunk.0.weight": (4, 8), "trunk.0.bias": (4,), "policy.weight": (3, 4), "policy.bias": (3,),
              "value.weight": (1, 4), "value.bias": (1,)}
    path = save_model(tmp_path / "m.npz", header, {k: np.ones(s, np.float32) for k, s in shapes.items()})
    return path, header


def npy_header(shape, dtype="<f4") -> bytes:
    import io
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(f, {"descr": dtype, "fortran_order": False, "shape": shape})
    return f.getvalue()


def test_a_model_file_that_inflates_to_1_gb_is_refused_unread(tmp_path):
    path, _ = tiny_model(tmp_path)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open("extra.npy", "w", force_zip64=True) as f:
            f.write(npy_header((2**28,)))
            chunk = bytes(1 << 22)
            for _ in range(256):                 # 1 GiB of zeros, about 4 MB on disk
                f.write(chunk)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="extra"):
            load_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 << 20


def test_model_headers_are_read_before_any_array(tmp_path):
    path, header = tiny_model(tmp_path)
    assert LearnedAgent(path).num_actions == 3
    # The largest layers a header may name ask for 16 GB: refused by the cap, nothing read.
    big = {**header, "hidden": [65536] * 16}
    arrays = {"header": np.array(__import__("json").dumps(big))}
    np.savez(tmp_path / "big.npz", **arrays)
    with pytest.raises(ValueError, match=f"at most {MAX_MODEL_BYTES >> 20} MiB"):
        load_model(tmp_path / "big.npz")
    # An array whose .npy header claims another shape (16 GB) is refused before its data is read.
    with zipfile.ZipFile(path) as z:
        members = {i.filename: z.read(i) for i in z.infolist()}
    members["trunk.0.weight.npy"] = npy_header((65536, 65536)) + bytes(16)
    with zipfile.ZipFile(tmp_path / "claims.npz", "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"trunk\.0\.weight must be finite float32 of shape \(4, 8\)"):
            load_model(tmp_path / "claims.npz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20


# ---------------------------------------------------------------- results kept
def stop_on_call(monkeypatch, k: int, stop):
    """Let play_batch run k - 1 batches, then call stop() in the k-th."""
    from quando_env.evaluation import matches
    real, calls = matches.play_batch, []

    def play_batch(*a, **kw):
        calls.append(1)
        if len(calls) == k:
            stop()
        return real(*a, **kw)
    monkeypatch.setattr(matches, "play_batch", play_batch)


def evaluate_json(tmp_path, capsys):
    from quando_env.evaluation import cli as evaluate_cli
    out = tmp_path / "r.json"
    rc = evaluate_cli.main(["--agents", "heuristic", "random", "--games", "8", "--batch-size", "2", "--no-progress",
                            "--json", str(out)])
    return rc, json.loads(out.read_text()) if out.exists() else None, capsys.readouterr()


def test_sigterm_during_evaluate_writes_the_finished_games_marked_partial(tmp_path, capsys, monkeypatch):
    stop_on_call(monkeypatch, 3, lambda: signal.raise_signal(signal.SIGTERM))
    before = signal.getsignal(signal.SIGTERM)
    rc, data, captured = evaluate_json(tmp_path, capsys)
    assert rc == 143 and data["partial"] is True and data["games_played"] == 4
    assert signal.getsignal(signal.SIGTERM) is before      # the handler is put back


def test_an_agent_failing_mid_run_keeps_the_finished_games(tmp_path, capsys, monkeypatch):
    def fail():
        raise RuntimeError("the plug-in broke")
    stop_on_call(monkeypatch, 3, fail)
    rc, data, captured = evaluate_json(tmp_path, capsys)
    assert rc == 1 and "Traceback" not in captured.err
    assert data["partial"] is True and data["games_played"] == 4 and "the plug-in broke" in data["error"]
    assert "an agent failed (RuntimeError: the plug-in broke)" in captured.err


def test_a_plugin_whose_constructor_fails_is_one_line_exit_2(tmp_path, capsys):
    from quando_env.evaluation import cli as evaluate_cli
    plugin = tmp_path / "broken.py"
    plugin.write_text("class Broken:\n    def __init__(self, **kw):\n        raise RuntimeError('no weights')\n"
                      "    def act(self, obs, masks):\n        return masks.argmax(1)\n")
    rc = evaluate_cli.main(["--agents", f"{plugin}:Broken", "random", "--games", "2", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "RuntimeError: no weights" in err[0]


@pytest.mark.parametrize("kind", ["dangling", "loop", "device", "proc", "folder"])
def test_output_paths_that_cannot_take_a_file_are_refused_before_any_game(tmp_path, kind):
    from quando_env import argtypes
    path = tmp_path / "out.json"
    if kind == "dangling":
        path.symlink_to(tmp_path / "nowhere" / "x.json")
    elif kind == "loop":
        path.symlink_to(tmp_path / "out2.json")
        (tmp_path / "out2.json").symlink_to(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/dev/full" if kind == "device" else "/proc/self/status")
    with pytest.raises(argparse.ArgumentTypeError):
        argtypes.output_file(str(path))


def test_a_failed_record_save_keeps_the_good_file(tmp_path, monkeypatch):
    from quando_env.adapters import record as rec
    env = quando_env.quando_v0.env()
    env.reset(seed=1)
    good = env.unwrapped.game_record()
    path = tmp_path / "game.json"
    rec.save(good, path)
    before = path.read_bytes()
    real_open = open

    def failing_open(file, mode="r", *a, **kw):        # the disk fills after 1,024 bytes
        f = real_open(file, mode, *a, **kw)
        if "w" in mode:
            write = f.write
            f.write = lambda text: write(text[:1024]) and (_ for _ in ()).throw(OSError(28, "No space left"))
        return f
    monkeypatch.setattr("builtins.open", failing_open)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(ValueError, match="No space left"):
        rec.save(env.unwrapped.game_record(), path)
    monkeypatch.undo()
    assert path.read_bytes() == before and rec.load(path) == good
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]           # no temporary file left


def test_game_record_is_a_snapshot():
    env = quando_env.quando_v0.env()
    env.reset(seed=3)
    taken = env.unwrapped.game_record()
    text = json.dumps(taken)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert json.dumps(taken) == text                               # later steps do not reach it
    taken["config"]["num_players"] = 99
    taken.clear()
    assert env.unwrapped.game_record()["config"]["num_players"] == 4       # nor do its edits reach the env


# ---------------------------------------------------------------- training runs
def learner_args(out, *extra):
    return ["--game", "help", "--out", str(out), "--eval-every", "100000", "--eval-games", "4", "--checkpoint-every",
            "100000", "--set", "num_games=8", "--set", "rollout_steps=8", "--set", "hidden=8", "--set",
            "bc_decisions=0", "--no-progress", *extra]


def test_a_diverged_run_stops_with_a_clear_message_and_keeps_its_last_good_model(tmp_path, monkeypatch, capsys):
    import torch

    from quando_env.training import learner
    update, calls = learner.Learner.update, []

    def diverging(self, *a):
        logs = update(self, *a)
        calls.append(1)
        if len(calls) == 3:
            with torch.no_grad():
                next(self.net.parameters())[0, 0] = float("nan")
        return logs
    monkeypatch.setattr(learner.Learner, "update", diverging)
    out = tmp_path / "run"
    assert learner.main(learner_args(out, "--timesteps", "100000")) == 1
    assert "the learning diverged at" in capsys.readouterr().out
    header, weights = load_model(out / "model.npz")            # finite: the last good model
    monkeypatch.undo()
    state = json.loads((out / "state.json").read_text())
    assert state["counters"]["updates"] == 2
    assert learner.main(learner_args(out, "--resume", "--timesteps", str(state["counters"]["decisions"] + 50))) == 0


def test_two_runs_into_one_folder_are_refused(tmp_path, capsys):
    from quando_env import stops
    from quando_env.training import learner
    out = tmp_path / "run"
    out.mkdir()
    held = stops.lock_folder(out)
    try:
        assert learner.main(learner_args(out, "--timesteps", "10")) == 2
        assert "another run is writing to" in capsys.readouterr().err
    finally:
        held.close()
    assert learner.main(learner_args(out, "--timesteps", "10")) == 0


# ---------------------------------------------------------------- clear refusals
def test_sb3_set_attr_seat_is_refused_and_get_attr_indices_do_not_wrap():
    from quando_env.adapters.sb3_vec_env import GameVecEnv
    venv = GameVecEnv(num_envs=3, game="help", seat=1)
    assert venv.get_attr("seat", [0, 2]) == [1, 1]
    with pytest.raises(ValueError, match="set_attr\\('seat'\\)"):
        venv.set_attr("seat", 0)
    for bad in (-1, [3], [Liar(-1)], [True]):
        with pytest.raises(ValueError, match="indices"):
            venv.get_attr("seat", bad)


def test_openspiel_state_text_with_out_of_range_actions_is_a_value_error():
    from quando_env.integrations import openspiel
    game = openspiel.load_game("python_help")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    record = json.loads(state.serialize())
    for bad in (-1, 2**70):            # a SpielError and a TypeError before
        with pytest.raises(ValueError, match="action 1 is"):
            game.deserialize_state(json.dumps({**record, "actions": [*record["actions"], bad]}))


def test_replay_require_proof_fails_a_record_without_proof(capsys):
    from quando_env.cli import main
    path = str(Path(__file__).parent / "data" / "quando_record_before_contract.json")
    assert main(["replay", path]) == 0
    assert main(["replay", path, "--require-proof"]) == 1
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("not proven")
    assert main(["replay", str(Path(__file__).parent / "data" / "quando_record_v2.json"), "--require-proof"]) == 0


def test_ctrl_c_during_an_aec_step_leaves_a_record_that_verifies(monkeypatch):
    """SIGINT arriving after the engine stepped and before the record noted it: the step finishes, then
    KeyboardInterrupt; before, the record missed the action and failed verify."""
    from quando_env.adapters import record as rec
    from quando_env import help_v0
    env = help_v0.env()
    env.reset(seed=4)
    raw = env.unwrapped
    after_step = raw.recorder.after_step

    def interrupted(action):
        signal.raise_signal(signal.SIGINT)
        after_step(action)
    monkeypatch.setattr(raw.recorder, "after_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    record = raw.game_record()
    assert len(record["actions"]) == 1 and rec.verify(record)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("game", [None, 5, ["help"], dict])
def test_make_vec_env_names_a_bad_game(game):
    from quando_env.adapters.training_envs import make_vec_env
    with pytest.raises(ValueError, match="game="):          # a TypeError ('NoneType' is not callable) before
        make_vec_env(game=game)


def test_every_test_the_guarantees_page_names_exists():
    import re
    root = Path(__file__).parent
    text = (root.parent / "docs" / "guarantees.md").read_text()
    assert "issue" not in text.lower()
    defined = set(re.findall(r"^def (test_\w+)", "".join(p.read_text() for p in root.glob("test_*.py")), re.M))
    named = set(re.findall(r"`(test_\w+)`", text)) - {p.stem for p in root.glob("test_*.py")}
    assert named and named <= defined, sorted(named - defined)
    for file in re.findall(r"`(test_\w+\.py)`", text):
        assert (root / file).is_file(), file


@pytest.mark.parametrize("agent", [["player_0"], {}, [0]])
def test_aec_observe_of_an_unhashable_agent_is_a_value_error(agent):
    from quando_env import help_v0
    env = help_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="agent="):      # a TypeError (unhashable) before
        env.observe(agent)
