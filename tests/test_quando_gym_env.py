"""Quando-v0, the single-agent Gymnasium env (quando_env.gym_env.QuandoEnv)."""
import pickle
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from quando_env import raw_env
from quando_env.quando.cards import NUM_ACTIONS, TAKE_UP, action_name
from quando_env.quando.engine import PH_OVER
from quando_env.adapters.gym_env import GameEnv as QuandoEnv
from training_env_helpers import FirstLegal, LastLegal, pick, section


def play_episode(env, seed=None, limit=5000):
    """(observations, rewards, infos, terminated, truncated) of one episode with the `pick` learner."""
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    for _ in range(limit):
        obs, r, term, trunc, info = env.step(pick(obs, info["action_mask"]))
        observations.append(obs)
        rewards.append(r)
        infos.append(info)
        if term or trunc:
            return observations, rewards, infos, term, trunc
    raise AssertionError("episode did not end")


def test_quando_v0_is_registered_on_import_with_a_vector_entry_point():
    spec = gym.spec("Quando-v0")
    assert spec.entry_point == "quando_env.adapters.gym_env:GameEnv"
    assert spec.vector_entry_point == "quando_env.adapters.gym_vector_env:GameVectorEnv"
    env = gym.make("Quando-v0", num_players=3, opponents="random", seat=1, edition="oya")
    assert isinstance(env.unwrapped, QuandoEnv)
    assert env.unwrapped.config.num_players == 3 and env.unwrapped.config.edition == "oya"


def test_quando_env_imports_neither_agents_nor_stable_baselines3():
    code = ("import sys, gymnasium, quando_env; env = gymnasium.make('Quando-v0'); env.reset(seed=0); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'agents', 'stable_baselines3', 'torch'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_gymnasium_env_checker_passes_with_random_replacement_of_illegal_actions():
    # check_env samples its step-determinism action *before* reset(seed=123), so with illegal_action="raise"
    # that action can be illegal in the new deal; "random" (the id's default) replaces it deterministically.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        gym_check_env(gym.make("Quando-v0", illegal_action="random").unwrapped, skip_render_check=False)


def test_sb3_env_checker_passes_with_default_options():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SB3 warning either
        sb3_check_env(gym.make("Quando-v0").unwrapped)
    sb3_check_env(gym.make("Quando-v0", num_players=2, episode="round", reward="win").unwrapped)


def test_observation_is_the_flat_float32_box_of_the_aec_encoding():
    env = QuandoEnv(num_players=5)
    obs, _ = env.reset(seed=1)
    aec = raw_env(num_players=5)
    assert env.observation_space.shape == aec.observation_space("player_0")["observation"].shape
    assert obs.dtype == np.float32 and obs.shape == (env.core.obs_dim,)
    assert env.observation_space.contains(obs)
    assert env.action_space.n == NUM_ACTIONS


@pytest.mark.quick
@pytest.mark.parametrize("seat,options", [(0, {}), (1, {"reward": "win"}), (3, {"edition": "oya"})])
def test_steps_match_the_aec_env_driven_with_the_same_opponent(seat, options):
    """Each observation, mask and reward equals the AEC env's for the learner's seat, with the opponents'
    moves (by the same deterministic agent) played in between and their rewards summed."""
    opp = FirstLegal()
    env = QuandoEnv(opponents=opp, seat=seat, **options)
    aec = raw_env(**options)
    learner = f"player_{seat}"
    obs, info = env.reset(seed=11)
    aec.reset(seed=11)

    def advance_aec():
        total = 0.0
        while aec.agent_selection != learner and not aec.terminations[learner] and not aec.truncations[learner]:
            o = aec.observe(aec.agent_selection)
            aec.step(opp.act(o["observation"], o["action_mask"]))
            total += aec.rewards[learner]
        return total

    pending = advance_aec()
    for _ in range(3000):
        view = aec.observe(learner)
        np.testing.assert_array_equal(obs, view["observation"])
        np.testing.assert_array_equal(info["action_mask"], view["action_mask"])
        np.testing.assert_array_equal(env.action_masks(), view["action_mask"].astype(bool))
        assert info["score"] == aec.infos[learner]["score"] and info["hand_sum"] == aec.infos[learner]["hand_sum"]
        a = pick(obs, info["action_mask"])
        aec.step(a)
        expected = pending + aec.rewards[learner] + advance_aec()
        pending = 0.0
        obs, r, term, trunc, info = env.step(a)
        assert r == pytest.approx(expected)
        assert term == aec.terminations[learner] and trunc == aec.truncations[learner]
        if term or trunc:
            np.testing.assert_array_equal(obs, aec.observe(learner)["observation"])
            return
    raise AssertionError("the game did not end")


def test_every_observation_is_the_learners_own_decision():
    env = QuandoEnv(opponents=[FirstLegal(), "random"], seat="random", num_players=4)
    for episode in range(4):
        observations, rewards, infos, term, trunc = play_episode(env, seed=episode if episode < 2 else None)
        for obs, info in zip(observations[:-1], infos[:-1]):
            assert section(obs, "to_move")[0] == 1.0
            assert section(obs, "decider")[0] == 1.0          # relative seat 0: the observer decides
            assert info["action_mask"].any() and info["seat"] == infos[0]["seat"]
        last = observations[-1]
        assert section(last, "phase")[PH_OVER] == 1.0 and not infos[-1]["action_mask"].any()


def test_trajectories_are_deterministic_per_seed_across_episodes():
    def run(seed):
        env = QuandoEnv(opponents=["random", LastLegal()], seat="random", episode="round")
        out = [play_episode(env, seed=seed)]
        out += [play_episode(env) for _ in range(3)]          # unseeded resets go on with the game's streams
        return out

    a, b, c = run(5), run(5), run(6)
    for ea, eb in zip(a, b):
        assert len(ea[0]) == len(eb[0]) and ea[1] == eb[1]
        for oa, ob in zip(ea[0], eb[0]):
            np.testing.assert_array_equal(oa, ob)
        assert [i["seat"] for i in ea[2]] == [i["seat"] for i in eb[2]]
    assert any(len(ea[0]) != len(ec[0]) or ea[1] != ec[1] for ea, ec in zip(a, c))


def test_fixed_seat_and_random_seat_drawn_per_episode():
    env = QuandoEnv(seat=2, episode="round")
    seats = {play_episode(env, seed=s)[2][0]["seat"] for s in range(3)}
    assert seats == {2} and env.seat == 2
    env = QuandoEnv(seat="random", episode="round")
    env.reset(seed=0)
    seats = {play_episode(env)[2][0]["seat"] for _ in range(20)}
    assert seats == {0, 1, 2, 3}


def test_round_episode_rewards_minus_the_round_points():
    env = QuandoEnv(episode="round")
    observations, rewards, infos, term, trunc = play_episode(env, seed=3)
    assert term and not trunc
    assert sum(rewards) == -infos[-1]["round_points"] and infos[-1]["score"] == infos[-1]["round_points"]
    assert all(r == 0 for r in rewards[:-1]) or sum(r != 0 for r in rewards) == 1


def test_win_reward_is_plus_or_minus_one_at_game_end_only():
    env = QuandoEnv(reward="win", opponents=FirstLegal())
    for seed in range(3):
        observations, rewards, infos, term, trunc = play_episode(env, seed=seed)
        assert term and all(r == 0 for r in rewards[:-1])
        totals = env.core.game.totals[0]
        assert infos[-1]["score"] == totals[infos[-1]["seat"]]
        assert rewards[-1] == (1.0 if totals[infos[-1]["seat"]] == totals.min() else -1.0)


def test_illegal_learner_action_raises_naming_the_legal_actions_and_changes_nothing():
    env = QuandoEnv()
    obs, info = env.reset(seed=2)
    legal = np.flatnonzero(info["action_mask"])
    illegal = TAKE_UP if TAKE_UP not in legal else int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError) as e:
        env.step(illegal)
    msg = str(e.value)
    assert f"action {illegal} ({action_name(illegal)}) is illegal" in msg
    assert all(f"{a} ({action_name(a)})" in msg for a in legal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(NUM_ACTIONS)
    with pytest.raises(ValueError, match="one integer"):
        env.step(1.5)
    np.testing.assert_array_equal(env.core.observe()[0], obs)   # nothing was applied
    env.step(int(legal[0]))


def test_illegal_action_random_replaces_it_and_flags_it_in_info():
    a, b = QuandoEnv(illegal_action="random"), QuandoEnv(illegal_action="random")
    oa, ia = a.reset(seed=4)
    b.reset(seed=4)
    bad = int(np.flatnonzero(ia["action_mask"] == 0)[0])
    ra, rb = a.step(bad), b.step(bad)
    assert ra[4]["illegal_action"] and rb[4]["illegal_action"]
    np.testing.assert_array_equal(ra[0], rb[0])                 # the replacement is deterministic
    legal = int(np.flatnonzero(ra[4]["action_mask"])[0])
    assert a.step(legal)[4]["illegal_action"] is False


def test_action_space_sample_draws_a_legal_action_and_pickles_as_discrete():
    env = QuandoEnv()
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(200):
        a = env.action_space.sample()
        assert env.action_masks()[a]
        _, _, term, trunc, _ = env.step(a)
        if term or trunc:
            env.reset()
    space = pickle.loads(pickle.dumps(env.action_space))
    assert type(space) is gym.spaces.Discrete and space == env.action_space


def test_step_after_the_end_needs_a_reset():
    env = QuandoEnv(episode="round")
    play_episode(env, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_opponent_pool_is_drawn_per_seat_and_episode_and_opponents_see_their_own_decisions():
    class Recorder(FirstLegal):
        def act(self, obs, masks):
            assert (section(obs, "to_move")[:, 0] == 1.0).all() and np.asarray(masks).any(axis=1).all()
            return super().act(obs, masks)

    pool = [Recorder(), Recorder(), Recorder()]
    env = QuandoEnv(opponents=pool, seat=0, episode="round")
    env.reset(seed=0)
    lineups = set()
    for _ in range(12):
        play_episode(env)
        lineups.add(tuple(int(k) for k in env.core._opp[0]))
    assert all(p.calls for p in pool)
    assert len(lineups) > 1 and all(line[0] == -1 for line in lineups)


def test_sb3_style_predict_objects_are_accepted_as_opponents():
    class Model:
        def __init__(self):
            self.seen_masks = 0

        def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
            assert deterministic and observation.ndim == 2
            self.seen_masks += action_masks is not None
            return np.asarray(action_masks, bool).argmax(axis=1), None

    model = Model()
    play_episode(QuandoEnv(opponents=model, episode="round"), seed=1)
    assert model.seen_masks > 0


def test_an_opponent_choosing_an_illegal_action_is_a_clear_error():
    class Bad:
        def act(self, obs, masks):
            return np.full(len(obs), TAKE_UP if not np.asarray(masks)[0, TAKE_UP] else 0)

    class Shapeless:
        def act(self, obs, masks):
            return np.zeros((len(obs), 1), np.int64)

    with pytest.raises(ValueError, match="opponent chose an illegal action.*legal:"):
        QuandoEnv(opponents=Bad(), seat=3).reset(seed=0)
    with pytest.raises(ValueError, match="must return 1 integer"):
        QuandoEnv(opponents=Shapeless(), seat=3).reset(seed=0)


def test_set_opponents_applies_from_the_next_episode():
    first, second = FirstLegal(), LastLegal()
    env = QuandoEnv(opponents=first, seat=0, episode="round")
    obs, info = env.reset(seed=0)
    obs, _, term, trunc, info = env.step(pick(obs, info["action_mask"]))
    calls = len(first.calls)
    env.set_opponents(second)
    while not (term or trunc):
        obs, _, term, trunc, info = env.step(pick(obs, info["action_mask"]))
    assert len(first.calls) > calls and not second.calls      # the running episode kept its opponent
    play_episode(env)
    assert second.calls and env.core.opponents == [second]


@pytest.mark.parametrize("kwargs,match", [({"seat": 4}, "seat=4"), ({"seat": "left"}, "seat="),
                                          ({"opponents": "chess"}, "unknown agent 'chess'"),
                                          ({"opponents": []}, "at least one"),
                                          ({"opponents": 3}, "act"), ({"illegal_action": "ignore"}, "illegal_action"),
                                          ({"num_players": 7}, "2 to 6"),
                                          ({"render_mode": "rgb"}, "render_mode")])
def test_bad_options_are_rejected_with_a_clear_message(kwargs, match):
    with pytest.raises(ValueError, match=match):
        QuandoEnv(**kwargs)


def test_render_ansi_shows_the_table_from_the_learners_seat():
    env = gym.make("Quando-v0", render_mode="ansi", seat=2)
    env.reset(seed=0)
    text = env.render()
    assert "view of player_2" in text and "player_2 (you)" in text


def test_episodes_ending_before_the_learners_first_decision_are_replayed():
    # One card per hand: an opponent's first discard and draw can end the round (R14) before seat 3 plays.
    env = QuandoEnv(hand_size=1, episode="round", seat=3)
    env.reset(seed=0)
    for _ in range(30):
        observations, rewards, infos, term, trunc = play_episode(env)
        assert len(rewards) >= 1 and section(observations[0], "to_move")[0] == 1.0
    # With max_steps=1 the seat-0 opponent's first move always truncates: a clear error, not a hang.
    with pytest.raises(RuntimeError, match="before the learner's first decision"):
        QuandoEnv(max_steps=1, seat=3)
