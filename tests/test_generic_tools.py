"""What generic RL code does with every game's training envs: mask a policy's logits with -inf at every step
(episode ends included), and draw actions from the action space without the mask (Gymnasium's checker,
SuperSuit's sticky actions, TorchRL's rollout without a policy)."""
import warnings

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env
from supersuit import sticky_actions_v0
from torchrl.envs import GymWrapper, TransformedEnv
from torchrl.envs.gym_like import default_info_dict_reader
from torchrl.envs.transforms import ActionMask

import quando_env
from quando_env.adapters.gym_env import NO_OP, GameEnv
from quando_env.adapters.record import replay
from quando_env.registry import game_module

GAMES = quando_env.game_names()
IDS = {game: quando_env.registry.gym_id(game) for game in GAMES}
OPTION = 'illegal_action="random"'      # what a refusal names: the option that lets such a tool run


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


# ---------------------------------------------------------------- tools that draw actions without the mask
REGISTERED = sorted(i for i, spec in gym.registry.items() if str(spec.entry_point).startswith("quando_env."))


def test_every_registered_id_is_a_game():
    assert REGISTERED == sorted(IDS.values())


@pytest.mark.quick
@pytest.mark.parametrize("env_id", REGISTERED)
def test_gymnasium_checker_passes_on_every_registered_id_with_no_keyword(env_id):
    """Gymnasium's check_env draws its step-determinism action before a fresh reset(seed=123), which the new deal
    may not allow: the ids default to illegal_action="random" (Gymnasium's API accepts every action of the space)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make(env_id))
        check_env(gym.make(env_id).unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_on_a_registered_id_is_flagged_and_refused_on_request(game):
    """gym.make's default plays a random legal action instead and says so in info; illegal_action="raise" (GameEnv's
    default) refuses it, naming the option, and changes nothing."""
    env = gym.make(IDS[game])
    _, info = env.reset(seed=0)
    assert info["illegal_action"] is False
    illegal = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True
    if not (info["action_mask"] == 0).all():
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert info["illegal_action"] is False
    for refusing in (gym.make(IDS[game], illegal_action="raise"), GameEnv(game)):
        obs, _ = refusing.reset(seed=0)
        with pytest.raises(ValueError, match="is illegal.*" + OPTION):
            refusing.step(illegal)
        np.testing.assert_array_equal(refusing.unwrapped._observation(), obs)


def test_why_cabo_passes_the_checker_with_the_default():
    """Cabo's learner decides first whether to snap, the same moves in every deal; Quando's and Help!'s first
    moves depend on the cards dealt, so an action drawn for one deal is often illegal in the next."""
    first = {}
    for game in GAMES:
        env = GameEnv(game)
        first[game] = {tuple(np.flatnonzero(env.reset(seed=s)[1]["action_mask"])) for s in range(12)}
    assert len(first["cabo"]) == 1 and len(first["quando"]) > 1 and len(first["help"]) > 1


@pytest.mark.parametrize("game", GAMES)
def test_random_baseline_on_the_pettingzoo_env_plays_whole_legal_games(game):
    """PettingZoo's random-agent loop, env.action_space(agent).sample() without the mask, plays legal moves of
    the agent to move: the game ends by its rules, never by the illegal-move rule."""
    env = game_module(game).env(episode="round")
    env.reset(seed=2)
    for agent in env.action_spaces:
        env.action_space(agent).seed(0)
    moves = 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample())
        moves += not (term or trunc)
    raw = env.unwrapped
    assert raw.game.game_over[0] and len(raw.game_record()["actions"]) == moves > 0
    for _ in replay(raw.game_record()):
        pass


@pytest.mark.parametrize("game", GAMES)
def test_random_baseline_on_the_vector_env_steps_legally(game):
    """envs.action_space.sample() draws each env's legal action (action 0 where an episode just ended, which the
    next step ignores): the default env, which refuses illegal actions, plays on through episode ends."""
    envs = gym.make_vec(IDS[game], num_envs=4, episode="round")
    _, info = envs.reset(seed=0)
    envs.action_space.seed(0)
    ended = 0
    for _ in range(60):
        actions = envs.action_space.sample()
        assert info["policy_mask"][np.arange(4), actions].all()
        _, _, terminated, truncated, info = envs.step(actions)
        ended += int((terminated | truncated).sum())
    assert ended > 0


def play_sticky(env, seed):
    """SuperSuit's sticky actions over a PettingZoo env, random moves drawn from the action space: returns how
    many actions were replaced."""
    env = sticky_actions_v0(env, repeat_action_probability=0.5)
    env.reset(seed=seed)
    replaced = 0
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        replaced += info.get("illegal_action", False)
        env.step(None if term or trunc else env.action_space(agent).sample())
    return replaced


@pytest.mark.parametrize("game", GAMES)
def test_supersuit_sticky_actions_run_with_random_replacement_or_are_refused(game):
    module = game_module(game)
    env = module.env(illegal_action="random", episode="round")
    assert play_sticky(env, seed=3) > 0
    assert env.unwrapped.game.game_over[0]
    for _ in replay(env.unwrapped.game_record()):
        pass
    with pytest.raises(ValueError, match=f"is illegal.*{OPTION}"):
        play_sticky(module.env(illegal_action="raise", episode="round"), seed=3)
    with pytest.raises(ValueError, match=r"illegal_action='x' is not allowed: one of \['terminate', 'raise'"):
        module.env(illegal_action="x")
    # the Gymnasium env: a repeated illegal action is replaced and flagged, or refused naming the option
    single = sticky_actions_v0(gym.make(IDS[game], illegal_action="random", episode="round"), 0.5)
    single.reset(seed=3)
    single.action_space.seed(3)
    done, flagged = False, 0
    while not done:
        _, _, term, trunc, info = single.step(single.action_space.sample())
        done, flagged = term or trunc, flagged + info["illegal_action"]
    assert term and flagged > 0
    single = sticky_actions_v0(gym.make(IDS[game], illegal_action="raise", episode="round"), 0.9)
    single.reset(seed=3)
    with pytest.raises(ValueError, match=f"is illegal.*{OPTION}"):
        for _ in range(500):
            single.step(single.action_space.sample())


@pytest.mark.parametrize("game", GAMES)
def test_torchrl_rollout_without_a_policy_samples_legal_moves_by_the_policy_mask(game):
    """TorchRL's rollout without a policy draws from the action spec: with its ActionMask transform reading
    info["policy_mask"] every move is legal (illegal_action="raise" refuses any other); without the mask,
    illegal_action="random" (the ids' default) runs and "raise" refuses naming it."""
    torch.manual_seed(0)
    base = GymWrapper(gym.make(IDS[game], illegal_action="raise", episode="round"), categorical_action_encoding=True)
    base.set_info_dict_reader(default_info_dict_reader(["policy_mask"]))
    td = TransformedEnv(base, ActionMask(mask_key="policy_mask")).rollout(120, break_when_any_done=False)
    assert td["next", "done"].any() and td["policy_mask"][torch.arange(120), td["action"]].all()
    td = GymWrapper(gym.make(IDS[game], episode="round")).rollout(120, break_when_any_done=False)
    assert td.shape[0] == 120 and td["next", "done"].any()
    with pytest.raises(ValueError, match=f"is illegal.*{OPTION}"):
        GymWrapper(gym.make(IDS[game], illegal_action="raise", episode="round")).rollout(120, break_when_any_done=False)
