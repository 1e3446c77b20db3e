"""Observation and state spaces have finite bounds (quando_env.bounds) that every observation and state of random
games respects, each seat's view included, under options that reach the bounds' corners (small targets, short
turn limits, round episodes, few decisions)."""
import gymnasium as gym
import numpy as np
import pytest

import quando_env
from quando_env import bounds
from quando_env.registry import game_class

CONFIGS = {
    "quando": [{"num_players": 2}, {"num_players": 6, "target_score": 5}, {"num_players": 3, "max_steps": 40},
               {"num_players": 4, "episode": "round", "edition": "oya", "knock_penalty": 0}],
    "cabo": [{"num_players": 2, "target": 5}, {"num_players": 6, "turn_limit": 3}, {"num_players": 3,
             "turn_limit": 0, "max_steps": 60}, {"num_players": 4, "episode": "round"}],
    "help": [{"num_players": 3, "target": 1}, {"num_players": 5, "hand_size": 3}, {"num_players": 4,
             "hand_size": 6, "max_steps": 30}, {"num_players": 3, "episode": "round"}],
}


def within(x: np.ndarray, high: np.ndarray, what: str) -> None:
    assert np.isfinite(high).all() and (x >= 0).all(), what
    over = np.argwhere(x > high)
    assert not over.size, f"{what}: entry {over[0][-1]} is {x[tuple(over[0])]} > {high[over[0][-1]]}"


@pytest.mark.parametrize("game", list(CONFIGS))
def test_every_observation_and_state_of_random_games_is_within_the_bounds(game):
    for k, config in enumerate(CONFIGS[game]):
        vg = game_class(game)(64, seed=k, autoreset=False, **config)
        obs_high, state_high = bounds.high(vg, "observation"), bounds.high(vg, "state")
        n, ended = vg.num_players, 0
        for _ in range(300):
            for p in range(n):
                within(vg.observe(players=np.full(64, p)), obs_high, f"{game} {config} observation of seat {p}")
            within(vg.state(), state_high, f"{game} {config} state")
            over = np.flatnonzero(vg.game_over | vg.truncated)
            if over.size:
                ended += over.size
                vg.reset(games=over)
            vg.step(vg.sample_actions())
        assert ended > 0, f"{game} {config}: no episode ended, so the final positions went unchecked"


@pytest.mark.parametrize("game", list(CONFIGS))
def test_env_spaces_are_finite_and_hold_what_the_envs_give(game):
    config = CONFIGS[game][0]
    env = quando_env.make(game, **config)
    env.reset(seed=0)
    assert np.isfinite(env.state_space.high).all() and env.state_space.contains(env.state())
    space = env.observation_space(env.agents[0])
    assert np.isfinite(space["observation"].high).all() and space.contains(env.observe(env.agents[0]))
    single = gym.make(f"{game.capitalize()}-v0", **config)
    obs, _ = single.reset(seed=0)
    assert np.isfinite(single.observation_space.high).all() and single.observation_space.contains(obs)
    gym.wrappers.RescaleObservation(single, np.float32(0), np.float32(1))      # refuses infinite bounds


def test_an_engine_no_registered_spec_names_keeps_infinite_bounds():
    """(A registered game must name its bounds: tests/test_game_specs.py.)"""
    from tiny_game import TinyGame

    vg = TinyGame(2, seed=0)
    assert np.isinf(bounds.high(vg, "observation")).all() and bounds.part_highs(vg, "state") is None
    with pytest.raises(ValueError, match="kind='obs'"):
        bounds.high(vg, "obs")
