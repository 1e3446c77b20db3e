"""The batched training envs: gymnasium.make_vec("Quando-v0") and quando_env.make_vec_env (SB3 VecEnv)."""
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

import quando_env
from quando_env import VectorGame
from quando_env.quando.engine import PH_OVER
from quando_env.adapters.gym_env import GameEnv as QuandoEnv
from quando_env.adapters.gym_vector_env import GameVectorEnv as QuandoVectorEnv
from training_env_helpers import FirstLegal, LastLegal, pick_batch, section


def assert_infos_equal(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], dict):
            assert_infos_equal(a[k], b[k])
        elif a[k].dtype == object:
            for x, y in zip(a[k], b[k]):
                assert (x is None and y is None) or np.array_equal(x, y)
        else:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# ---------------------------------------------------------------- VectorGame additions used by the driver
def test_vectorgame_step_and_sample_on_some_games_equal_whole_batch_steps():
    a, b = VectorGame(6, seed=5, autoreset=False), VectorGame(6, seed=5, autoreset=False)
    halves = (np.array([0, 2, 4]), np.array([5, 3, 1]))
    for _ in range(200):
        actions = a.sample_actions()
        rewards = a.step(actions)
        for h in halves:
            sampled = b.sample_actions(games=h)
            np.testing.assert_array_equal(sampled, actions[h])
            np.testing.assert_array_equal(b.step(sampled, games=h), rewards[h])
            np.testing.assert_array_equal(b.game_over[h], a.game_over[h])
    np.testing.assert_array_equal(a.observe(), b.observe())
    np.testing.assert_array_equal(a.observe(players=[1, 2], games=[4, 0]),
                                  a.observe(players=[2, 0, 0, 0, 1, 0])[[4, 0]])
    np.testing.assert_array_equal(a.hand_sums(games=[3, 1]), a.hand_sums()[[3, 1]])


def test_vectorgame_play_random_equals_the_loop_of_sample_actions_and_step():
    auto = np.zeros((5, 4), bool)
    auto[:, 1:] = True                        # seats 1-3 random, seat 0 stops the run
    auto[2] = [False, True, False, True]
    a, b = VectorGame(5, seed=9, autoreset=False), VectorGame(5, seed=9, autoreset=False)
    games = np.arange(5)
    for _ in range(60):
        got = a.play_random(games, auto)
        ended = a.game_over | a.truncated
        want = np.zeros((5, 4))
        live = games[(b.current_player >= 0) & auto[games, np.maximum(b.current_player, 0)]]
        done = np.zeros(5, bool)
        while live.size:
            want[live] += b.step(b.sample_actions(games=live), games=live)
            done[live] |= b.game_over[live] | b.truncated[live]
            cur = b.current_player[live]
            live = live[(cur >= 0) & auto[live, np.maximum(cur, 0)] & ~done[live]]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ended, done)
        np.testing.assert_array_equal(a.observe(), b.observe())
        stopped = a.current_player
        assert ((stopped < 0) | ~auto[games, np.maximum(stopped, 0)]).all()
        # the waiting seats (0, and 2 in game 2) move by hand
        acts = a.sample_actions()
        a.step(acts)
        b.sample_actions()
        b.step(acts)
        if (a.current_player < 0).all():
            break


# ---------------------------------------------------------------- Gymnasium VectorEnv
def run_vector(envs, steps, seed):
    obs, info = envs.reset(seed=seed)
    out = [(obs, info)]
    for _ in range(steps):
        result = envs.step(pick_batch(obs, info["action_mask"]))
        obs, info = result[0], result[4]
        out.append(result)
    return out


def step_until_an_episode_ends(envs, seed):
    """Reset, then step with the `pick` learner until some env's episode ends; that step's results."""
    obs, info = envs.reset(seed=seed)
    for _ in range(1000):
        obs, rew, term, trunc, info = envs.step(pick_batch(obs, info["action_mask"]))
        if (term | trunc).any():
            return obs, rew, term, trunc, info
    raise AssertionError("no episode ended")


@pytest.mark.quick
def test_make_vec_builds_the_batched_vector_env_with_next_step_autoreset():
    envs = gym.make_vec("Quando-v0", num_envs=3, num_players=3, seat=1)
    assert isinstance(envs.unwrapped, QuandoVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.observation_space.shape == (3, envs.unwrapped.core.obs_dim)
    assert envs.observation_space.dtype == np.float32 and envs.action_space.shape == (3,)
    obs, info = envs.reset(seed=0)
    assert (info["seat"] == 1).all() and envs.observation_space.contains(obs)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_env_equals_gymnasiums_sync_vector_env_of_single_envs(mode):
    kwargs = dict(num_envs=3, opponents=["random", FirstLegal()], seat="random", episode="round")
    ours = gym.make_vec("Quando-v0", vectorization_mode="vector_entry_point", autoreset_mode=mode, **kwargs)
    sync = gym.make_vec("Quando-v0", vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs)
    a, b = run_vector(ours, 150, seed=21), run_vector(sync, 150, seed=21)
    ends = 0
    for ra, rb in zip(a, b):
        for xa, xb in zip(ra[:-1], rb[:-1]):
            np.testing.assert_array_equal(xa, xb)
        assert_infos_equal(ra[-1], rb[-1])
        ends += int(np.sum(ra[2])) if len(ra) == 5 else 0
    assert ends >= 3                          # several autoresets were compared


def test_vector_env_reset_takes_one_seed_or_none_per_env_as_sync_vector_env_does():
    ours = gym.make_vec("Quando-v0", num_envs=3, episode="round")
    sync = gym.make_vec("Quando-v0", num_envs=3, episode="round", vectorization_mode="sync")
    for seed in (0, [5, None, 7], None):
        (oa, ia), (ob, ib) = ours.reset(seed=seed), sync.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert_infos_equal(ia, ib)
    with pytest.raises(ValueError, match="one per env"):
        ours.reset(seed=[1, 2])


def test_vector_env_next_step_delivers_the_end_then_a_fresh_game_ignoring_that_action():
    envs = QuandoVectorEnv(num_envs=4, episode="round", reward="win")
    obs, rew, term, trunc, info = step_until_an_episode_ends(envs, seed=0)
    i = int(np.flatnonzero(term)[0])
    assert rew[i] in (1.0, -1.0) and section(obs[i], "phase")[PH_OVER] == 1.0
    obs, rew, term2, trunc2, info = envs.step(pick_batch(obs, info["action_mask"]))
    assert rew[i] == 0.0 and not term2[i] and not trunc2[i]
    assert section(obs[i], "to_move")[0] == 1.0 and section(obs[i], "round")[0] == 0.0


def test_vector_env_disabled_autoreset_resets_by_mask():
    envs = QuandoVectorEnv(num_envs=3, episode="round", autoreset_mode="Disabled")
    obs, rew, term, trunc, info = step_until_an_episode_ends(envs, seed=1)
    with pytest.raises(ValueError, match="reset_mask"):
        envs.step(np.zeros(3, np.int64))
    obs2, info2 = envs.reset(options={"reset_mask": term})
    np.testing.assert_array_equal(obs2[~term], obs[~term])
    assert info2["action_mask"].any(axis=1).all()
    envs.step(pick_batch(obs2, info2["action_mask"]))


# ---------------------------------------------------------------- SB3 VecEnv
def sb3_rollout(venv, steps, seed):
    venv.seed(seed)
    obs = venv.reset()
    out = []
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        obs, rew, done, infos = venv.step(pick_batch(obs, masks))
        out.append((obs, rew, done, infos))
    return out


@pytest.mark.quick
def test_make_vec_env_equals_dummy_vec_env_of_single_envs_with_the_same_seed():
    kwargs = dict(opponents=["random", LastLegal()], seat="random", episode="round")
    ours = quando_env.make_vec_env(num_envs=4, **kwargs)
    dummy = DummyVecEnv([lambda: gym.make("Quando-v0", **kwargs) for _ in range(4)])
    ends = 0
    for (oa, ra, da, ia), (ob, rb, db, ib) in zip(sb3_rollout(ours, 200, 7), sb3_rollout(dummy, 200, 7)):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
        for i in np.flatnonzero(da):
            ends += 1
            np.testing.assert_array_equal(ia[i]["terminal_observation"], ib[i]["terminal_observation"])
            for key in ("TimeLimit.truncated", "seat", "hand_sum", "score", "round_points"):
                assert ia[i][key] == ib[i][key], key
    assert ends >= 5


def test_batch_slot_i_plays_the_single_env_seeded_s_plus_i_over_several_episodes():
    pool = [FirstLegal(), "random", LastLegal()]
    venv = quando_env.make_vec_env(num_envs=3, opponents=pool, seat="random", seed=100, reward="win")
    rollout = sb3_rollout(venv, 120, 100)
    for i in range(3):
        env = QuandoEnv(opponents=pool, seat="random", reward="win")
        obs, info = env.reset(seed=100 + i)
        for obs_b, rew_b, done_b, info_b in rollout:
            obs, r, term, trunc, info = env.step(pick_batch(obs[None], info["action_mask"][None])[0])
            assert r == rew_b[i] and (term or trunc) == done_b[i]
            if term or trunc:
                np.testing.assert_array_equal(obs, info_b[i]["terminal_observation"])
                obs, info = env.reset()
            np.testing.assert_array_equal(obs, obs_b[i])


def test_sb3_autoreset_delivers_terminal_observation_final_reward_and_episode_stats_then_a_fresh_game():
    venv = quando_env.make_vec_env(num_envs=8, seed=3, reward="win", episode="round")
    obs = venv.reset()
    total = np.zeros(8)
    for _ in range(500):
        obs, rew, done, infos = venv.step(pick_batch(obs, venv.action_masks()))
        total += rew
        if done.any():
            break
    for i in np.flatnonzero(done):
        info = infos[i]
        assert rew[i] in (1.0, -1.0) and info["TimeLimit.truncated"] is False
        assert section(info["terminal_observation"], "phase")[PH_OVER] == 1.0
        assert info["episode"]["r"] == total[i] and info["episode"]["l"] >= 1
        assert section(obs[i], "to_move")[0] == 1.0 and section(obs[i], "round")[0] == 0.0
        assert venv.action_masks()[i].any()
    assert all(infos[i] == {} for i in np.flatnonzero(~done))


def test_truncation_by_max_steps_is_reported_as_timelimit_truncated():
    venv = quando_env.make_vec_env(num_envs=4, seed=0, max_steps=25)
    obs = venv.reset()
    for _ in range(50):
        obs, rew, done, infos = venv.step(pick_batch(obs, venv.action_masks()))
        if done.any():
            break
    assert done.any() and all(infos[i]["TimeLimit.truncated"] for i in np.flatnonzero(done))
    obs, rew, term, trunc, info = step_until_an_episode_ends(QuandoVectorEnv(num_envs=2, max_steps=25), seed=0)
    assert trunc.any() and not term[trunc].any()


def test_trajectories_are_deterministic_per_seed():
    a = sb3_rollout(quando_env.make_vec_env(num_envs=5, episode="round"), 60, 42)
    b = sb3_rollout(quando_env.make_vec_env(num_envs=5, episode="round"), 60, 42)
    c = sb3_rollout(quando_env.make_vec_env(num_envs=5, episode="round"), 60, 43)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_learner_only_sees_its_own_decisions_in_the_batch():
    venv = quando_env.make_vec_env(num_envs=16, opponents=[FirstLegal(), "random"], seed=5)
    obs = venv.reset()
    for _ in range(100):
        masks = venv.action_masks()
        assert (section(obs, "to_move")[:, 0] == 1.0).all() and (section(obs, "decider")[:, 0] == 1.0).all()
        assert masks.any(axis=1).all()
        seats = np.array(venv.get_attr("seat"))
        np.testing.assert_array_equal(venv.core.game.current_player, seats)
        obs, _, _, _ = venv.step(pick_batch(obs, masks))


def test_opponent_moves_are_batched_one_call_per_decision_for_all_waiting_games():
    opp = FirstLegal()
    venv = quando_env.make_vec_env(num_envs=64, opponents=opp, seat=0, seed=0)
    obs = venv.reset()
    opp.calls.clear()
    for _ in range(20):
        obs, _, _, _ = venv.step(pick_batch(obs, venv.action_masks()))
    decisions = sum(opp.calls)
    assert decisions > 20 * 64                       # about three opponent decisions per learner step
    assert len(opp.calls) < decisions / 10           # ... made by few batched calls, not one per game
    assert max(opp.calls) > 32


def test_maskable_ppo_trains_out_of_the_box_on_make_vec_env():
    venv = quando_env.make_vec_env(num_envs=8, seed=0, episode="round")
    assert isinstance(venv, VecEnv) and is_masking_supported(venv)
    assert get_action_masks(venv).shape == (8, 134)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [64]}, device="cpu")
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024 and len(model.ep_info_buffer) > 0
    obs = venv.reset()
    masks = get_action_masks(venv)
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(8), actions].all()
    venv.step(actions)
    # a trained model plays as an opponent (SB3-style predict) for the next learner
    venv2 = quando_env.make_vec_env(num_envs=4, opponents=model, seed=1, episode="round")
    venv2.step(pick_batch(venv2.reset(), venv2.action_masks()))


def test_env_method_get_attr_and_set_opponents_on_the_sb3_vec_env():
    venv = quando_env.make_vec_env(num_envs=4, seed=0)
    venv.reset()
    masks = venv.env_method("action_masks")
    assert len(masks) == 4 and all(m.dtype == bool and m.shape == (134,) for m in masks)
    np.testing.assert_array_equal(venv.env_method("action_masks", indices=[2])[0], masks[2])
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_attribute")
    assert venv.get_attr("render_mode") == [None] * 4 and len(venv.get_attr("seat", indices=[0, 1])) == 2
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * 4
    opp = FirstLegal()
    venv.env_method("set_opponents", opp)
    assert venv.core.opponents == [opp]
    with pytest.raises(ValueError, match="all envs"):
        venv.env_method("set_opponents", opp, indices=[1])


def test_illegal_learner_action_in_a_batch_raises_naming_the_game_and_legal_actions():
    venv = quando_env.make_vec_env(num_envs=3, seed=0)
    obs = venv.reset()
    masks = venv.action_masks()
    actions = pick_batch(obs, masks)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(ValueError, match=r"game 1, player \d to move: action \d+ .* is illegal; legal: "):
        venv.step(actions)
    np.testing.assert_array_equal(venv.core.observe(), obs)
