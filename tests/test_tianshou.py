"""Tianshou 2's own PettingZooEnv on every game's PettingZoo env, as it is (issue 13): Tianshou's multi-agent
algorithm collects whole episodes with masked policies (its masked random policy, and DQN whose greedy and
exploring choices read the mask), and DQN takes gradient steps on what was collected.

The env behind PettingZooEnv raises on nothing (the classic wrappers end the game with -1 for an illegal move),
so legality is checked on the collected transitions themselves: every action lies in its step's mask.
"""
import runpy
from pathlib import Path

import numpy as np
import pytest
import torch
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import quando_env
from quando_env.registry import game_module

EXAMPLE = runpy.run_path(str(Path(__file__).resolve().parents[1] / "examples" / "tianshou_dqn.py"))


def vector_env(game, seed):
    envs = DummyVectorEnv([lambda: PettingZooEnv(game_module(game).env())])
    envs.seed(seed)
    return envs


def collected(buffer):
    """The transitions in the buffer, in the order they were collected (one env)."""
    return buffer[np.arange(len(buffer))]


def assert_legal_whole_episodes(batch, episodes):
    acts = batch.act.astype(int)
    assert batch.obs.mask[np.arange(len(acts)), acts].all(), "an action outside its step's mask"
    ends = np.flatnonzero(batch.done)
    assert len(ends) == episodes and ends[-1] == len(acts) - 1
    assert batch.terminated[ends].all() and not batch.truncated.any()


@pytest.mark.parametrize("game", quando_env.game_names())
def test_wrapper_takes_the_env_as_is(game):
    env = PettingZooEnv(game_module(game).env())
    obs, info = env.reset(seed=1)
    assert env.agents == [f"player_{i}" for i in range(len(env.agents))]
    assert obs["agent_id"] == env.env.agent_selection
    assert any(obs["mask"]) and len(obs["mask"]) == env.action_space.n
    assert obs["obs"].shape == env.observation_space["observation"].shape
    assert {"score", "round_points", "rounds_done"} <= set(info)


@pytest.mark.parametrize("game", quando_env.game_names())
def test_masked_random_policies_collect_whole_episodes(game):
    np.random.seed(0)
    env = PettingZooEnv(game_module(game).env())
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents], env=env)
    buffer = VectorReplayBuffer(5000, 1)
    stats = Collector(algorithm, vector_env(game, seed=0), buffer).collect(n_episode=3, reset_before_collect=True)
    assert stats.n_collected_episodes == 3 and stats.returns.shape == (3, len(env.agents))
    batch = collected(buffer)
    assert_legal_whole_episodes(batch, episodes=3)
    assert set(batch.obs.agent_id) == set(env.agents)
    assert np.abs(stats.returns).sum() > 0, "no reward reached the collector"


def collect_and_train(game, seed, updates=3):
    """DQN (first seat) against masked random seats: 2 exploring episodes collected, then `updates` gradient
    steps on a small network and buffer."""
    np.random.seed(seed)
    torch.manual_seed(seed)
    env = PettingZooEnv(game_module(game).env())
    algorithm, learner = EXAMPLE["dqn_vs_random"](env, hidden=32, eps=0.3)
    buffer = VectorReplayBuffer(2000, 1)
    collector = Collector(algorithm, vector_env(game, seed), buffer, exploration_noise=True)
    before = [p.detach().clone() for p in learner.policy.parameters()]
    with EXAMPLE["training_step"](algorithm, learner):
        collector.collect(n_episode=2, reset_before_collect=True)
        losses = [algorithm.update(buffer, sample_size=32).get_loss_stats_dict()[f"{env.agents[0]}/loss"]
                  for _ in range(updates)]
    return env, learner, collected(buffer), losses, before


@pytest.mark.parametrize("game", quando_env.game_names())
def test_dqn_collects_masked_and_takes_gradient_steps(game):
    env, learner, batch, losses, before = collect_and_train(game, seed=0)
    assert_legal_whole_episodes(batch, episodes=2)
    assert len(losses) == 3 and np.isfinite(losses).all()
    assert any(not torch.equal(b, p) for b, p in zip(before, learner.policy.parameters()))

    # DQN's greedy choice reads the mask: on the learner's observations its actions are legal even where the
    # unmasked argmax of its Q-values is not.
    mine = batch[batch.obs.agent_id == env.agents[0]]
    with torch.no_grad():
        out = learner.policy(Batch(obs=mine.obs, info=mine.info))
    assert mine.obs.mask[np.arange(len(out.act)), out.act].all()
    unmasked = out.logits.argmax(dim=1).numpy()
    assert not mine.obs.mask[np.arange(len(unmasked)), unmasked].all(), "the mask changed no greedy choice"


def test_same_seed_same_training():
    first, second = (collect_and_train("cabo", seed=5)[2:4] for _ in range(2))
    assert np.array_equal(first[0].act, second[0].act) and first[1] == second[1]


@pytest.mark.parametrize("game", quando_env.game_names())
def test_example_trains_and_evaluates(game, capsys):
    result = EXAMPLE["main"](["--game", game, "--steps", "96", "--eval-games", "1", "--buffer", "500",
                              "--hidden", "16", "--seed", "1"])
    out = capsys.readouterr().out
    assert "DQN gradient steps" in out and "after training: learner" in out
    assert result["steps"] >= 96 and len(result["losses"]) >= 1 and result["after"].shape == (4,)


def test_the_example_updates_its_dqn_in_training_mode_and_counts_a_round_of_the_table():
    """Each update runs with the learner's network in training mode and within a training step (its exploration
    on while collecting); its targets are n-step returns over one move of each seat, so the other seats' moves
    between two of the learner's count toward its return."""
    np.random.seed(0)
    env = PettingZooEnv(game_module("help").env())
    algorithm, learner = EXAMPLE["dqn_vs_random"](env, hidden=16)
    assert learner.n_step == len(env.agents)
    modes, explore = [], []
    update, noise = learner._update_with_batch, learner.policy.add_exploration_noise

    def spy_update(batch):
        modes.append((learner.policy.model.training, learner.policy.is_within_training_step))
        return update(batch)

    def spy_noise(act, batch):
        explore.append(learner.policy.is_within_training_step)
        return noise(act, batch)
    learner._update_with_batch, learner.policy.add_exploration_noise = spy_update, spy_noise
    collector = Collector(algorithm, vector_env("help", 0), VectorReplayBuffer(2000, 1), exploration_noise=True)
    EXAMPLE["train"](algorithm, learner, env.agents[0], collector, steps=64, batch_size=16)
    assert modes and set(modes) == {(True, True)} and explore and all(explore)
