"""OpenSpiel (issue 13): every game as a pyspiel Python game, run by the real pyspiel and its Python ISMCTS bot.

The states must agree with the PettingZoo env move by move (same seed, same actions), survive pyspiel's
random_sim_test with serialization checks, clone and serialize exactly, and resample worlds that the
observing player cannot tell apart from the real one.
"""
import base64
import builtins
import functools
import importlib.util
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots import uniform_random

import quando_env
from quando_env.integrations import openspiel as osp

GAMES = quando_env.game_names()
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "openspiel_ismcts.py"

osp.register()


def load(game, **params):
    return pyspiel.load_game(osp.short_name(game), params)


def play_random(state, steps, rs):
    """Apply up to `steps` uniformly random legal moves; the state is changed in place."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rs.randint(len(legal))])
    return state


def tensors(state):
    return [np.asarray(state.information_state_tensor(p)) for p in range(state.num_players())]


def check_same(a, b):
    """Two states are the same game: table, history, returns, every player's information."""
    assert str(a) == str(b)
    assert a.history() == b.history()
    assert a.returns() == b.returns()
    assert a.current_player() == b.current_player()
    for x, y in zip(tensors(a), tensors(b)):
        np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------- registration and parameters
@pytest.mark.parametrize("game", GAMES)
def test_parameters_and_game_info(game):
    cls = quando_env.registry.game_class(game)
    n = cls.config_class().num_players
    other = 3 if n != 3 else 4
    g = load(game, players=other)
    assert g.num_players() == other
    assert g.num_distinct_actions() == cls.num_actions
    assert g.information_state_tensor_shape() == [cls.obs_dim_of(other)]
    assert g.observation_tensor_shape() == [cls.obs_dim_of(other)]
    assert g.max_chance_outcomes() == 0     # sampled chance: no chance nodes
    config = g.engine.config
    assert (g.min_utility(), g.max_utility()) == cls.return_bounds(config) and g.min_utility() < g.max_utility()
    assert g.max_game_length() == cls.max_decisions(config) >= config.max_steps
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    params = g.get_parameters()
    assert params["players"] == other and params["seed"] == osp.SEED_FRESH
    assert {"episode", "reward", "max_steps"} <= set(params)
    assert load(game).num_players() == n
    osp.register()      # registering again changes nothing
    with pytest.raises(ValueError, match="num_players"):
        load(game, players=9)
    with pytest.raises(ValueError, match="seed"):
        load(game, seed=-2)


def test_load_cabo_for_three_and_options():
    g = pyspiel.load_game("python_cabo", {"players": 3, "peek": 1, "episode": "round", "dealer": 0})
    engine = g.engine
    assert engine.num_players == 3 and engine.config.peek == 1 and engine.config.dealer == 0
    assert load("cabo").engine.config.dealer is None        # -1 stands for the rule's default (None)
    assert load("quando", reward="win").min_utility() == -1.0


# ---------------------------------------------------------------- pyspiel's own random simulations
@pytest.mark.parametrize("game", GAMES)
def test_random_sim_test_with_serialization(game):
    """pyspiel.random_sim_test over 50 games (seeds 0..49, one round each for time); its own serialize=True
    needs the game's RNG state (Game::GetRNGState), which a Python game cannot provide, so the same
    serialization check (at the first 10 states and every power of two) runs as its state_checker_fn."""
    checked = 0
    for seed in range(50):
        g = load(game, seed=seed, episode="round")

        def check(state, g=g):
            nonlocal checked
            k = len(state.history())
            if k < 10 or k & (k - 1) == 0:
                back = g.deserialize_state(state.serialize())
                assert back.serialize() == state.serialize()
                assert back.history() == state.history() and back.returns() == state.returns()
                checked += 1

        pyspiel.random_sim_test(g, num_sims=1, serialize=False, verbose=False, state_checker_fn=check)
    assert checked >= 50 * 5


# ---------------------------------------------------------------- the same game as the PettingZoo env
@pytest.mark.parametrize("game", GAMES)
def test_state_follows_the_env(game):
    """Same seed, same moves: legal actions equal the env's mask, every player's information tensor equals
    the env's observation, rewards fall alike and the returns equal the env's summed rewards."""
    env = quando_env.registry.game_module(game).raw_env()
    env.reset(seed=11)
    state = load(game, seed=11).new_initial_state()
    shape = state.get_game().information_state_tensor_shape()
    total = dict.fromkeys(env.possible_agents, 0.0)
    rs = np.random.RandomState(0)
    steps = 0
    while not state.is_terminal():
        agent = env.agent_selection
        assert state.current_player() == env.possible_agents.index(agent)
        mask = env.observe(agent)["action_mask"]
        legal = state.legal_actions()
        assert legal == np.flatnonzero(mask).tolist()
        for p, a in enumerate(env.possible_agents):
            t = np.asarray(state.information_state_tensor(p))
            assert list(t.shape) == shape
            np.testing.assert_array_equal(t, env.observe(a)["observation"])
        action = legal[rs.randint(len(legal))]
        state.apply_action(action)
        env.step(action)
        steps += 1
        assert state.rewards() == [env.rewards[a] for a in env.possible_agents]
        for a in env.possible_agents:
            total[a] += env.rewards[a]
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert state.returns() == [total[a] for a in env.possible_agents]
    assert steps > 20 and any(r != 0 for r in state.returns())
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []


@pytest.mark.parametrize("game", GAMES)
def test_seed_deals_reproducibly(game):
    a, b = load(game, seed=5).new_initial_state(), load(game, seed=5).new_initial_state()
    assert str(a) == str(b)
    assert str(load(game, seed=6).new_initial_state()) != str(a)
    fresh = load(game)
    assert str(fresh.new_initial_state()) != str(fresh.new_initial_state())


# ---------------------------------------------------------------- clone, serialize
@pytest.mark.parametrize("game", GAMES)
def test_clone_is_independent_and_carries_the_stream(game):
    rs = np.random.RandomState(1)
    state = play_random(load(game, seed=3).new_initial_state(), 15, rs)
    before = state.serialize()
    clone = state.clone()
    check_same(state, clone)
    play_random(clone, 10, rs)
    assert state.serialize() == before and clone.history() != state.history()
    # the same moves from a clone give the same game to the end: later deals and reshuffles come from the
    # stream the clone carries
    twin = state.clone()
    moves = []
    while not state.is_terminal():
        legal = state.legal_actions()
        moves.append(legal[rs.randint(len(legal))])
        state.apply_action(moves[-1])
    for m in moves:
        twin.apply_action(m)
    check_same(state, twin)


@pytest.mark.parametrize("game", GAMES)
def test_serialize_round_trip(game):
    g = load(game, seed=8)
    rs = np.random.RandomState(2)
    state = g.new_initial_state()
    assert g.deserialize_state(state.serialize()).serialize() == state.serialize()
    while not state.is_terminal():
        play_random(state, 7, rs)
        back = g.deserialize_state(state.serialize())
        check_same(state, back)
        assert back.legal_actions() == state.legal_actions() and back.rewards() == state.rewards()
    # pickling goes through the same serialization (pyspiel's own would want Game::GetRNGState)
    assert str(pickle.loads(pickle.dumps(g))) == str(g)
    # a deserialized or unpickled state plays on exactly as the original (its stream travels with it)
    state = play_random(g.new_initial_state(), 12, rs)
    back = g.deserialize_state(state.serialize())
    unpickled = pickle.loads(pickle.dumps(state))
    check_same(state, unpickled)
    seed = rs.randint(1 << 30)
    play_random(state, 10_000, np.random.RandomState(seed))
    play_random(back, 10_000, np.random.RandomState(seed))
    play_random(unpickled, 10_000, np.random.RandomState(seed))
    check_same(state, back)
    check_same(state, unpickled)


class Opens:
    """Unpickling this opens (creates) a file: what a crafted pickle can do, harmlessly."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return builtins.open, (self.path, "w")


@pytest.mark.parametrize("game", GAMES)
def test_a_pickle_given_as_state_text_is_refused_and_never_run(game, tmp_path):
    """deserialize_state and load_state read a JSON game record: pyspiel's own form of a Python state
    ("__dict__=" and a base64 pickle) is refused before anything in it is unpickled."""
    g = load(game, seed=2)
    marker = tmp_path / "ran"
    payload = base64.b64encode(pickle.dumps({"_record": Opens(marker)})).decode()
    texts = [f"history=\nmove_number=0\n__dict__={payload}", payload,
             json.dumps({"game": str(g), "deal": 1, "actions": [], "worlds": [], "__dict__": payload})]
    for text in texts:
        with pytest.raises(ValueError, match="serialized state"):
            g.deserialize_state(text)
        with pytest.raises(ValueError, match="serialized state"):
            osp.load_state(str(g), text)
    assert not marker.exists()
    with pytest.raises(ValueError, match="one of quando_env's games"):
        osp.load_state("tic_tac_toe", "")
    with pytest.raises(ValueError, match="cannot be loaded"):
        osp.load_state("python_cabo(seed=99999999999)", "{}")


def mid_game_states(game):
    """A state of `game` some moves in, a sampled world of it some moves further, and a world of that world."""
    g = load(game, seed=8)
    rs = np.random.RandomState(4)
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    state = play_random(g.new_initial_state(), 11, rs)
    world = play_random(state.resample_from_infostate((state.current_player() + 1) % state.num_players(),
                                                      sampler), 6, rs)
    deeper = play_random(world.resample_from_infostate(world.current_player(), sampler), 3, rs)
    return g, [state, world, deeper]


@pytest.mark.parametrize("game", GAMES)
def test_serialized_states_are_json_game_records_that_replay_exactly(game):
    """Plain states and sampled worlds (and worlds of worlds) serialize to a JSON record and deserialize to
    the same state, which plays on exactly as the original: same returns, legal actions and information."""
    g, states = mid_game_states(game)
    for k, state in enumerate(states):
        text = state.serialize()
        record = json.loads(text)
        assert sorted(record) == sorted(osp.RECORD_KEYS) and record["game"] == str(g)
        assert len(record["worlds"]) == k and record["worlds"][-1:] == (
            [{"player": state.sampled_from[1], "seed": state.sampled_from[2], "actions": state.history()}] if k else [])
        back = g.deserialize_state(text)
        assert back.serialize() == text
        assert osp.load_state(str(g), text).serialize() == text
        check_same(state, back)
        seed = 100 + k
        assert list(play_moves(state, np.random.RandomState(seed))) == list(
            play_moves(back, np.random.RandomState(seed)))
        check_same(state, back)
        assert state.is_terminal() and back.returns() == state.returns()


def test_worlds_are_sampled_only_as_deep_as_deserialize_state_reads_back():
    g = load("cabo", seed=8)
    state = play_random(g.new_initial_state(), 5, np.random.RandomState(0))
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    for _ in range(osp.MAX_WORLDS):
        state = state.resample_from_infostate(state.current_player(), sampler)
    assert g.deserialize_state(state.serialize()).serialize() == state.serialize()
    with pytest.raises(ValueError, match=f"at most {osp.MAX_WORLDS} deep"):
        state.resample_from_infostate(state.current_player(), sampler)


@functools.cache
def read_only_states(game):
    """mid_game_states(game) made once, for the tests that only read them."""
    return mid_game_states(game)


def play_moves(state, rs):
    """Play random moves to the end, yielding what each step shows: legal actions, rewards, tensors (the
    state is changed in place)."""
    while not state.is_terminal():
        legal = state.legal_actions()
        yield legal, state.rewards(), [t.tolist() for t in tensors(state)]
        state.apply_action(legal[rs.randint(len(legal))])


# a tampered record: one field replaced by a value of any type (ints far out of range, bools, floats, text),
# or by a small int (often valid: another player or seed), or an action list cut short (a shorter game)
ANY = st.one_of(st.integers(-2**70, 2**70), st.booleans(), st.floats(allow_nan=False), st.text(max_size=4),
                st.none(), st.lists(st.integers(-2, 400), max_size=4),
                st.dictionaries(st.sampled_from(["player", "seed", "actions", "x"]), st.integers(-2, 9), max_size=4))


def tamper(record, where, value, cut):
    """The record with one field (picked by `where`) replaced by `value`, or (value "cut") its action list
    cut at `cut` or its worlds repeated."""
    record = json.loads(json.dumps(record))
    segments = [record] + record["worlds"]
    seg = segments[where % len(segments)]
    key = list(seg)[where % len(seg)]
    if value == "cut" and key == "actions":
        seg[key] = seg[key][:cut]
    elif value == "cut" and key == "worlds":
        seg[key] = seg[key] * (1 + cut % 3)
    else:
        seg[key] = value
    return record


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=30, deadline=None, derandomize=True)
@given(where=st.integers(0, 50), value=st.one_of(ANY, st.integers(-1, 4), st.just("cut")), cut=st.integers(0, 20))
def test_a_tampered_record_is_refused_or_replays_to_itself(game, where, value, cut):
    """Whatever one field of a record is changed to, deserialize_state refuses it with a ValueError, or gives
    a state whose record is exactly the text it was given (and which plays on)."""
    g, states = read_only_states(game)
    record = tamper(json.loads(states[2].serialize()), where, value, cut)
    text = json.dumps(record, separators=(",", ":"))
    try:
        back = g.deserialize_state(text)
    except ValueError:
        return
    assert back.serialize() == text
    assert back.is_terminal() or back.legal_actions()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=st.one_of(st.text(max_size=60), st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
                      st.recursive(st.integers() | st.text(max_size=3), lambda c: st.lists(c, max_size=3)
                                   | st.dictionaries(st.text(max_size=5), c, max_size=3)).map(json.dumps)))
def test_any_text_is_refused_as_a_state_with_a_value_error(text):
    with pytest.raises(ValueError, match="serialized state|the state's|worlds|a state of"):
        read_only_states("cabo")[0].deserialize_state(text)


def test_deeply_nested_json_is_refused_as_a_value_error():
    g = load("quando")
    with pytest.raises(ValueError, match="RecursionError"):
        g.deserialize_state("[" * 100_000 + "]" * 100_000)


# ---------------------------------------------------------------- parameters and player ids are checked
@pytest.mark.parametrize("game", GAMES)
def test_parameters_are_range_checked_and_named(game):
    """pyspiel converts a parameter dict to C++ ints first (a bare pybind11 cast error beyond 2^31-1); our
    load_game checks it before, and the game checks every parameter it is built with."""
    name = osp.short_name(game)
    factory = type(load(game))
    for key, value, allowed in [("seed", 2**31, "0..2147483647, or -1"), ("seed", 2**63, "0..2147483647"),
                                ("seed", -2, "-1 for fresh"), ("seed", True, "an integer"),
                                ("seed", 1.0, "an integer"), ("seed", "5", "an integer"),
                                ("players", 2**40, "players=1099511627776"), ("players", np.int64(2**40), "players"),
                                ("episode", 3, "a string"), ("max_steps", 2**31, "max_steps"),
                                ("nonsense", 1, "parameters .'nonsense'.")]:
        with pytest.raises(ValueError, match=allowed):
            osp.load_game(name, {key: value})
        with pytest.raises(ValueError, match=allowed):
            factory({key: value})
    assert osp.load_game(name, {"seed": np.int64(2**31 - 1)}).get_parameters()["seed"] == 2**31 - 1
    assert str(osp.load_game(name, {"seed": 7})) == str(load(game, seed=7))
    with pytest.raises(ValueError, match="cannot be loaded"):
        osp.load_game(f"{name}(seed=3000000000)")


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_parameter_value_gives_a_game_or_a_value_error(game, data):
    spec = osp.game_parameters(game)
    keys = data.draw(st.lists(st.sampled_from(sorted(spec)), min_size=1, max_size=3, unique=True))
    params = {k: data.draw(st.one_of(st.integers(-2**64, 2**64), st.integers(-2, 12), st.booleans(),
                                     st.sampled_from(["game", "round", "points", "win", ""]), st.floats()))
              for k in keys}
    try:
        g = osp.load_game(osp.short_name(game), params)
    except ValueError:
        return
    assert g.new_initial_state().legal_actions()


@pytest.mark.parametrize("game", GAMES)
def test_player_ids_out_of_range_are_refused(game):
    state = play_random(load(game, seed=1).new_initial_state(), 3, np.random.RandomState(0))
    n = state.num_players()
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    before = state.serialize()
    for bad in [9, n, -1, True, 1.0, "0", np.float32(0), 2**64]:
        with pytest.raises(ValueError, match=rf"player_id=.* 0\.\.{n - 1}"):
            state.resample_from_infostate(bad, sampler)
        with pytest.raises(ValueError, match=rf"player=.* 0\.\.{n - 1}"):
            state.observation_vector(bad)
    with pytest.raises(ValueError, match="player=9"):
        state.action_to_string(9, state.legal_actions()[0])
    with pytest.raises(ValueError, match=r"probability_sampler\(\) returned 2.0"):
        state.resample_from_infostate(0, lambda: 2.0)
    assert state.serialize() == before
    assert state.resample_from_infostate(np.int8(n - 1), sampler).returns() == state.returns()
    with pytest.raises(ValueError, match="simulations"):
        osp.ismcts_bot(state.get_game(), 0, 1)
    with pytest.raises(ValueError, match="seed"):
        osp.ismcts_bot(state.get_game(), 2, 2**31)


# ---------------------------------------------------------------- determinization
@pytest.mark.parametrize("game", GAMES)
def test_resample_from_infostate(game):
    """Sampled worlds look the same to the observing player (any player, not only the one to move), and
    play on to the end."""
    g = load(game, seed=4)
    rs = np.random.RandomState(3)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    state = g.new_initial_state()
    n = state.num_players()
    worlds = 0
    while not state.is_terminal():
        for p in range(n):
            world = state.resample_from_infostate(p, sampler)
            np.testing.assert_array_equal(world.information_state_tensor(p), state.information_state_tensor(p))
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.current_player() == state.current_player()
            assert world.returns() == state.returns()
            if p == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            worlds += 1
        play_random(state, 9, rs)
    assert worlds >= 2 * n
    live = play_random(g.new_initial_state(), 5, rs)
    world = live.resample_from_infostate(live.current_player(), sampler)
    assert play_random(world, 10_000, rs).is_terminal()


# ---------------------------------------------------------------- ISMCTS against random bots
@pytest.mark.parametrize("game", GAMES)
def test_ismcts_plays_against_random_bots(game):
    g = load(game, seed=21, episode="round")
    n = g.num_players()
    searched = 0
    for k in range(2):
        bots = [uniform_random.UniformRandomBot(p, np.random.RandomState(p)) for p in range(n)]
        bots[k] = osp.ismcts_bot(g, simulations=4, seed=k)
        state = g.new_initial_state()
        while not state.is_terminal():
            p = state.current_player()
            action = bots[p].step(state)
            assert action in state.legal_actions()
            searched += p == k
            state.apply_action(action)
        assert all(g.min_utility() <= r <= g.max_utility() for r in state.returns())
    assert searched > 0


def test_example_script(capsys):
    spec = importlib.util.spec_from_file_location("openspiel_ismcts", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.main(["--game", "cabo", "--games", "2", "--simulations", "3", "--seed", "1"])
    out = capsys.readouterr().out
    assert "game 1: ISMCTS at player 1;" in out and "per decision" in out


# ---------------------------------------------------------------- OpenSpiel's own algorithms, no glue
def random_bots(n, seed):
    return [uniform_random.UniformRandomBot(p, np.random.RandomState(seed + p)) for p in range(n)]


@pytest.mark.parametrize("game", GAMES)
def test_evaluate_bots_plays_ismcts_against_random_bots_from_any_state(game):
    """pyspiel.evaluate_bots restarts its bots at a state with a history (restart_at): from a new game, again
    with the same bots, and from a game under way."""
    g = load(game, seed=5, episode="round")
    bots = random_bots(g.num_players(), 0)
    bots[1] = osp.ismcts_bot(g, simulations=2, seed=0)
    for state in (g.new_initial_state(), g.new_initial_state(),
                  play_random(g.new_initial_state(), 3, np.random.RandomState(1))):
        returns = pyspiel.evaluate_bots(state, bots, 7)
        assert state.is_terminal() and returns == state.returns()
        assert all(g.min_utility() <= r <= g.max_utility() for r in returns)


@pytest.mark.parametrize("game", GAMES)
def test_terminal_rewards_let_openspiels_python_mcts_play(game):
    """With terminal_rewards=True the game declares RewardModel.TERMINAL (OpenSpiel's Python MCTS refuses any
    other), gives no reward before the end and there the returns the default game gives for the same moves."""
    with pytest.raises(ValueError, match="terminal rewards"):
        mcts.MCTSBot(load(game), 2.0, 2, mcts.RandomRolloutEvaluator())
    g = load(game, seed=5, episode="round", terminal_rewards=True)
    assert g.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert g.get_parameters()["terminal_rewards"] is True
    rs = np.random.RandomState(0)
    bots = random_bots(g.num_players(), 0)
    bots[0] = mcts.MCTSBot(g, 2.0, 3, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    state = g.new_initial_state()
    returns = pyspiel.evaluate_bots(state, bots, 3)
    plain = load(game, seed=5, episode="round").new_initial_state()
    for action in state.history():
        plain.apply_action(action)
    assert plain.is_terminal() and returns == plain.returns() and any(r != 0 for r in returns)
    partial = play_random(g.new_initial_state(), 5, rs)
    assert partial.rewards() == partial.returns() == [0.0] * g.num_players()


@pytest.mark.parametrize("game", GAMES)
def test_serialize_game_and_state_round_trips_where_pyspiels_cannot(game):
    """pyspiel's serialize_game_and_state and random_sim_test(serialize=True) stop at Game::GetRNGState, which a
    Python game cannot provide; openspiel.serialize_game_and_state / deserialize_game_and_state do the job."""
    g = load(game, seed=3, episode="round")
    state = play_random(g.new_initial_state(), 9, np.random.RandomState(0))
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(g, state)
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.random_sim_test(g, num_sims=1, serialize=True, verbose=False)
    text = osp.serialize_game_and_state(g, state)
    game_back, back = osp.deserialize_game_and_state(text)
    assert str(game_back) == str(g)
    check_same(state, back)
    with pytest.raises(ValueError, match="the state's game"):
        osp.serialize_game_and_state(load(game, seed=4), state)
    for bad in ["", "[]", "{}", json.dumps({"game": 3}), "[" * 10_000, 5]:
        with pytest.raises(ValueError, match="serialized game and state"):
            osp.deserialize_game_and_state(bad)


CPP_BOT = """
import pyspiel
from quando_env.integrations import openspiel
openspiel.register()
game = pyspiel.load_game("python_cabo", {{"terminal_rewards": True}})
evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
bot = {bot}
print("made", flush=True)
bot.step(game.new_initial_state())
print("stepped", flush=True)
"""


def test_openspiels_cpp_search_bots_crash_on_python_games_as_the_docs_say():
    """The docs send users to the Python bots because pyspiel.MCTSBot and pyspiel.ISMCTSBot die with a
    segmentation fault on a Python game's state (run in child processes, never in this one)."""
    bots = ["pyspiel.MCTSBot(game, evaluator, 2.0, 4, 1000, False, 0, False)",
            "pyspiel.ISMCTSBot(0, evaluator, 2.0, 4, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)"]
    root = str(Path(__file__).resolve().parents[1])
    runs = [subprocess.Popen([sys.executable, "-c", CPP_BOT.format(bot=bot)], stdout=subprocess.PIPE, text=True,
                             stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": root}) for bot in bots]
    for run in runs:
        out, _ = run.communicate(timeout=120)
        assert out.split() == ["made"] and run.returncode == -11
