"""What generic RL code does with every game's training envs: mask a policy's logits with -inf at every step
(episode ends included), and draw actions from the action space without the mask (Gymnasium's checker,
SuperSuit's sticky actions, TorchRL's rollout without a policy)."""
import gymnasium as gym
import numpy as np
import pytest
import torch

import quando_env
from quando_env.adapters.gym_env import NO_OP

GAMES = quando_env.game_names()
IDS = {game: quando_env.registry.gym_id(game) for game in GAMES}


def masked_softmax(logits: torch.Tensor, mask) -> torch.Tensor:
    """The documented pattern: illegal logits set to -inf, then softmax."""
    return torch.softmax(logits.masked_fill(~torch.as_tensor(np.asarray(mask), dtype=torch.bool), -torch.inf), -1)


def check_policy_mask(info_mask, policy_mask, logits):
    """policy_mask is action_mask wherever an action is legal, NO_OP alone where none is; the masked softmax is
    finite and puts no probability outside it."""
    legal = np.asarray(info_mask, bool)
    safe = np.asarray(policy_mask, bool)
    assert policy_mask.dtype == np.int8
    rows = legal.any(axis=-1)
    np.testing.assert_array_equal(safe[rows], legal[rows])
    assert (safe[~rows].sum(axis=-1) == 1).all() and safe[~rows][..., NO_OP].all()
    probs = masked_softmax(logits, safe)
    assert torch.isfinite(probs).all() and (probs[torch.as_tensor(~safe)] == 0).all()
    return int((~rows).sum())


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("game", GAMES)
def test_vector_env_logits_masked_with_minus_inf_stay_finite_at_every_step(game, mode):
    envs = gym.make_vec(IDS[game], num_envs=4, episode="round", autoreset_mode=gym.vector.AutoresetMode[mode.upper()])
    obs, info = envs.reset(seed=0)
    policy = torch.nn.Linear(obs.shape[1], envs.single_action_space.n)
    ended = empty = 0
    with torch.no_grad():
        for _ in range(60):
            logits = policy(torch.as_tensor(obs))
            empty += check_policy_mask(info["action_mask"], info["policy_mask"], logits)
            mask = torch.as_tensor(info["policy_mask"], dtype=torch.bool)
            actions = torch.distributions.Categorical(logits=logits.masked_fill(~mask, -torch.inf)).sample()
            obs, reward, terminated, truncated, info = envs.step(actions.numpy())
            ended += int((terminated | truncated).sum())
            if "final_info" in info:        # same_step: the ended episodes' last infos
                finals, ended_here = info["final_info"], info["_final_info"]
                check_policy_mask(finals["action_mask"][ended_here], finals["policy_mask"][ended_here],
                                  logits[torch.as_tensor(ended_here)])
    assert ended > 0 and (empty > 0) == (mode == "next_step")


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_policy_mask_is_safe_through_an_episode_end(game):
    env = gym.make(IDS[game], episode="round")
    obs, info = env.reset(seed=1)
    policy = torch.nn.Linear(obs.shape[0], env.action_space.n)
    done, empty = False, 0
    with torch.no_grad():
        while not done:
            empty += check_policy_mask(info["action_mask"], info["policy_mask"], policy(torch.as_tensor(obs)))
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            done = terminated or truncated
        assert not info["action_mask"].any()        # the legal actions: none once the episode is over
        empty += check_policy_mask(info["action_mask"], info["policy_mask"], policy(torch.as_tensor(obs)))
    assert empty == 1


def test_sb3_vec_env_masks_are_never_empty():
    """The SB3 VecEnv resets an ended episode inside the step, so the masks MaskablePPO reads are the new
    episode's."""
    venv = quando_env.make_vec_env(num_envs=4, game="help", seed=0, episode="round")
    venv.reset()
    ended = 0
    for _ in range(200):
        masks = np.array(venv.env_method("action_masks"))
        assert masks.any(axis=1).all()
        _, _, done, _ = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        ended += int(done.sum())
    assert ended > 0
