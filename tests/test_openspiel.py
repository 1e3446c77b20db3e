"""OpenSpiel (issue 13): every game as a pyspiel Python game, run by the real pyspiel and its Python ISMCTS bot.

The states must agree with the PettingZoo env move by move (same seed, same actions), survive pyspiel's
random_sim_test with serialization checks, clone and serialize exactly, and resample worlds that the
observing player cannot tell apart from the real one.
"""
import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pyspiel
import pytest
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
