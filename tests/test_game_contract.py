"""The game contract is complete: a tiny second game (examples/tiny_game.py), written against quando_env.core.Game
alone, runs through every adapter (PettingZoo AEC, Gymnasium single and vector envs, the SB3 VecEnv with
MaskablePPO, records, evaluation) with no game-specific code in any of them."""
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, seed_test
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import quando_env
import tiny_game
from quando_env.evaluation.matches import play_match
from quando_env.agents.random_agent import RandomAgent
from quando_env import record as rec
from quando_env import registry
from quando_env.adapters.gym_env import GameEnv
from quando_env.adapters.gym_vector_env import GameVectorEnv
from quando_env.adapters.training_envs import register_envs
from tiny_game import KEEP, SWAP, TinyGame

DECK = [9, 0, 5, 1, 2, 3, 4, 6, 7, 8]   # seat 0 holds 9, seat 1 holds 0; swaps take 5, then 1


@pytest.fixture
def tiny(monkeypatch):
    """'tiny' in the game registry (and its Gymnasium id "Tiny-v0") for this test only."""
    monkeypatch.setitem(registry.GAMES, "tiny", tiny_game.SPEC)
    new_id = registry.gym_id("tiny") not in gym.registry
    register_envs()
    yield "tiny"
    if new_id:
        gym.registry.pop(registry.gym_id("tiny"), None)


def random_legal(mask, r):
    """A random legal action (0 where nothing is legal: an ended env under NEXT_STEP autoreset ignores it)."""
    legal = np.flatnonzero(mask)
    return int(r.choice(legal)) if legal.size else 0


# ---------------------------------------------------------------- the rules (so these tests can fail)
def test_forced_deck_keep_against_swap_gives_the_round_to_the_higher_card():
    g = TinyGame(1, seed=0, autoreset=False)
    g.reset(deck=DECK)
    assert g.states["card"][0].tolist() == [9, 0] and g.current_player[0] == 0
    assert g.step(np.array([KEEP])).tolist() == [[0, 0]] and g.current_player[0] == 1
    assert g.step(np.array([SWAP])).tolist() == [[1, 0]]          # seat 1 swapped its 0 for the 5: 9 > 5
    assert g.round_over[0] and not g.game_over[0]
    assert g.totals[0].tolist() == [1, 0] and g.round_points[0].tolist() == [1, 0] and g.rounds_done[0] == 1
    assert g.current_player[0] == 1                                # the starter alternates


def test_two_swaps_take_the_deck_in_order_and_the_target_ends_the_game_with_win_rewards():
    g = TinyGame(1, seed=0, autoreset=False, target=1, reward="win")
    g.reset(deck=DECK)
    g.step(np.array([SWAP]))                                       # seat 0: 9 -> 5
    assert g.states["card"][0].tolist() == [5, 0]
    r = g.step(np.array([SWAP]))                                   # seat 1: 0 -> 1; 5 > 1
    assert r.tolist() == [[1, -1]] and g.game_over[0] and g.current_player[0] == -1
    assert g.winners().tolist() == [[True, False]] and not g.legal_action_mask.any()


def test_observation_shows_only_the_observers_own_card():
    g = TinyGame(1, seed=0, autoreset=False)
    g.reset(deck=DECK)
    o0, o1 = g.observe(players=0)[0], g.observe(players=1)[0]
    assert np.flatnonzero(o0[:10]).tolist() == [9] and np.flatnonzero(o1[:10]).tolist() == [0]
    other = g.states.copy()
    other["card"][0, 1] = 7                                        # seat 1's card differs: seat 0 cannot tell
    g.load_states(other)
    np.testing.assert_array_equal(g.observe(players=0)[0], o0)
    assert g.state()[0, 10 + 7] == 1 and g.state()[0, 20 + 5] == 1   # the full state has both and the next card


def test_options_and_decks_are_validated():
    for bad in (dict(num_players=3), dict(target=0), dict(episode="turn"), dict(reward="x"), dict(max_steps=0),
                dict(colour="red")):
        with pytest.raises(ValueError):
            TinyGame(1, **bad)
    g = TinyGame(1)
    for deck in ([0] * 10, list(range(9)), [1.0] * 10, "0123456789"):
        with pytest.raises(ValueError, match="permutation of 0..9"):
            g.reset(deck=deck)
    with pytest.raises(ValueError, match="unknown setup"):
        g.reset(dealer=1)


def test_truncation_and_autoreset_follow_the_flags():
    g = TinyGame(3, seed=0, autoreset=False, max_steps=3)
    for _ in range(3):
        g.step(g.sample_actions())
    assert g.truncated.all() and (g.current_player == -1).all()
    g = TinyGame(3, seed=0, autoreset=True, episode="round")
    g.step(g.sample_actions())
    g.step(g.sample_actions())
    assert g.game_over.all() and g.round_over.all()
    assert (g.rounds_done == 0).all() and (g.totals == 0).all() and (g.current_player == 0).all()


def test_a_batch_plays_what_batches_of_one_play():
    big = TinyGame(80, seed=10, autoreset=True)          # >= PARALLEL_MIN_GAMES: the parallel kernels' path
    one = TinyGame(1, seed=10 + 37, autoreset=True)
    for _ in range(25):
        a = big.sample_actions()
        assert a[37] == one.sample_actions()[0]
        np.testing.assert_array_equal(big.step(a)[37], one.step(a[37:38])[0])
    assert big.states[37].tobytes() == one.states[0].tobytes()


# ---------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("options", [{}, dict(episode="round", reward="win"), dict(max_steps=5)])
def test_pettingzoo_api_test(options):
    api_test(tiny_game.env(**options), num_cycles=200)
    api_test(tiny_game.raw_env(**options), num_cycles=200)


def test_pettingzoo_seed_test():
    seed_test(tiny_game.env, num_cycles=200)
    seed_test(tiny_game.raw_env, num_cycles=200)


def test_aec_env_forced_deck_rewards_and_render():
    env = tiny_game.env(render_mode="ansi")
    env.reset(seed=0, options={"deck": DECK})
    assert env.agent_selection == "player_0" and env.observe("player_1")["observation"][0] == 1
    assert "card ?" in env.render() and "card 9" in env.render()
    env.step(KEEP)
    env.step(KEEP)
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    assert env.infos["player_0"] == {"score": 1, "round_points": 1, "rounds_done": 1}
    assert env.agent_selection == "player_1"
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": [9] * 10})
    assert quando_env.make is registry.make


# ---------------------------------------------------------------- Gymnasium and SB3
def test_gymnasium_and_sb3_env_checkers_pass(tiny):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        gym_check_env(GameEnv(game=TinyGame, illegal_action="random", render_mode="ansi"))
        gym_check_env(GameEnv(game=tiny, illegal_action="random", episode="round", reward="win"))
        gym_check_env(gym.make("Tiny-v0", illegal_action="random").unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(GameEnv(game=TinyGame))
    sb3_check_env(GameEnv(game=tiny, seat=1, target=5))


def test_gymnasium_vector_env_with_random_legal_actions(tiny):
    venv = GameVectorEnv(num_envs=8, game=tiny, target=2)
    obs, infos = venv.reset(seed=0)
    assert obs.shape == (8, 15) and set(infos) >= {"action_mask", "seat", "score", "round_points", "rounds_done"}
    r = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        actions = np.array([random_legal(m, r) for m in infos["action_mask"]])
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert set(np.unique(rewards)) <= {0.0, 1.0} and not truncated.any()
        assert ((infos["score"] <= 2) & (obs[:, :10].sum(axis=1) == 1)).all()
        ends += int(terminated.sum())
    assert ends > 8
    vec = gym.make_vec("Tiny-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(vec.unwrapped, GameVectorEnv) and vec.reset(seed=1)[0].shape == (3, 15)


def test_maskable_ppo_trains_on_make_vec_env(tiny):
    venv = quando_env.make_vec_env(num_envs=16, game=TinyGame, opponents="random", seed=0)
    assert get_action_masks(venv).shape == (16, 2)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048 and len(model.ep_info_buffer) > 10
    assert all(0 <= ep["r"] <= 3 for ep in model.ep_info_buffer)   # points: the learner's rounds won
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
    venv.step(actions)
    # by name, with the trained model as the opponent
    venv2 = quando_env.make_vec_env(num_envs=4, game=tiny, opponents=model, seed=1, episode="round")
    _, rewards, dones, infos = venv2.step(np.zeros(4, np.int64))
    assert dones.all() and all(i["episode"]["l"] == 1 for i in infos)


# ---------------------------------------------------------------- records
def test_record_saves_loads_and_replays(tiny, tmp_path):
    env = tiny_game.env()
    env.reset(seed=4)
    r = np.random.default_rng(4)
    played = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        a = None if term or trunc else random_legal(obs["action_mask"], r)
        if a is not None:
            played.append(a)
        env.step(a)
    record = env.unwrapped.game_record()
    assert record["format"] == "tiny-record/2" and len(record["rounds"]) >= 3 and record["result"]["terminated"]
    assert max(record["result"]["totals"]) == 3
    rec.save(record, tmp_path / "game.json")
    loaded = rec.load(tmp_path / "game.json")
    steps = list(rec.replay(loaded))
    assert [a for _, _, a, _ in steps] == played == record["actions"]
    assert steps[-1][3].totals[0].tolist() == record["result"]["totals"]

    bad = rec.load(tmp_path / "game.json")
    bad["rounds"][1]["deck"] = [0] * 10
    with pytest.raises(ValueError, match="round 1 .*permutation"):
        list(rec.replay(bad))
    bad = rec.load(tmp_path / "game.json")
    bad["result"]["totals"] = [0, 0]
    with pytest.raises(ValueError, match="final totals"):
        list(rec.replay(bad))


# ---------------------------------------------------------------- evaluation
def test_play_match_with_random_agents(tiny):
    res = play_match([RandomAgent(0), RandomAgent(1)], games=100, seed=0, progress=False, game=tiny)
    s = res.pooled()["random"]
    assert s["games"] == 200 and sum(st.wins for st in res.stats) >= 100
    assert s["mean_rounds_per_game"] >= 3 and s["truncated_games"] == 0
    assert "knocks" not in s        # the tiny game has no knock (knock_action None): no knock counts
    assert (res.totals.max(axis=1) == 3).all()
    # truncated after one decision: 0-0, both seats win (ties share)
    res = play_match([RandomAgent(0), RandomAgent(1)], games=10, progress=False, game=tiny, max_steps=1)
    assert [st.wins for st in res.stats] == [10, 10] and [st.truncated for st in res.stats] == [10, 10]


def test_play_random_without_a_fused_kernel_plays_the_same_moves():
    """A game may leave out kernels.play_random: the generic loop over sample_actions and step plays exactly
    what Quando's fused kernel plays (same streams, rewards summed, flags ORed, stops at an episode end)."""
    from types import SimpleNamespace

    from quando_env import VectorGame

    class Unfused(VectorGame):
        kernels = SimpleNamespace(**{k: v for k, v in vars(VectorGame.kernels).items() if k != "play_random"})
        parallel_kernels = None

    games = [cls(96, seed=4, num_players=3, episode="round") for cls in (VectorGame, Unfused)]
    auto = np.ones((96, 3), bool)
    auto[::2, 1] = False
    for _ in range(30):
        rewards = [g.play_random(np.arange(0, 96, 3), auto) for g in games]
        np.testing.assert_array_equal(*rewards)
        np.testing.assert_array_equal(games[0].flags, games[1].flags)
        np.testing.assert_array_equal(games[0].states, games[1].states)
        for g in games:
            live = np.flatnonzero(g.current_player >= 0)
            g.step(g.sample_actions(live), games=live)


# ---------------------------------------------------------------- the contract is checked at class definition
def tiny_kernels(**change):
    """Tiny's kernels as a dict, with `change` (a None removes a kernel)."""
    return {k: v for k, v in {**TinyGame.kernels.present(), **change}.items() if v is not None}


def test_a_game_missing_a_kernel_is_refused_when_its_class_is_defined():
    with pytest.raises(TypeError, match=r"Broken.kernels lacks the required kernel\(s\) \['state'\]"):
        class Broken(TinyGame):
            kernels = tiny_kernels(state=None)
    with pytest.raises(TypeError, match=r"Broken.kernels has unknown kernel\(s\) \['stpe'\]"):
        class Broken(TinyGame):     # noqa: F811
            kernels = tiny_kernels(stpe=tiny_game.step_kernel)
    with pytest.raises(TypeError, match="declares action_feature_parts but its kernels lack action_features"):
        class Broken(TinyGame):     # noqa: F811
            kernels = tiny_kernels(action_features=None)


def test_a_game_missing_an_attribute_or_hook_is_refused_and_an_abstract_base_is_not():
    from quando_env.core import Game

    with pytest.raises(TypeError, match=r"Broken does not define \['config_class', 'redeal'\]"):
        class Broken(Game):
            game_info, state_dtype = TinyGame.game_info, tiny_game.STATE_DTYPE
            observation_parts, state_parts = tiny_game.OBSERVATION_PARTS, tiny_game.STATE_PARTS
            kernels = TinyGame.kernels
            _start, render_text, round_setup = TinyGame._start, TinyGame.render_text, TinyGame.round_setup

    class Base(Game, abstract=True):
        state_dtype = tiny_game.STATE_DTYPE

    with pytest.raises(TypeError, match=r"Partial does not define \['game_info'"):
        class Partial(Base):
            pass


def test_a_games_facts_are_one_checked_game_info_and_read_as_class_attributes():
    """The facts are declared once, in game_info: each is a class attribute too, a fact set as a loose class
    attribute is refused (it would silently disagree with game_info), and a bad fact is refused by name."""
    from dataclasses import replace

    from quando_env.game_info import GameInfo

    assert (TinyGame.name, TinyGame.num_actions, TinyGame.action_names) == ("tiny", 2, ("keep", "swap"))
    assert TinyGame.higher_total_wins is True and TinyGame.knock_action is None
    assert TinyGame(1, seed=0).info_keys == ("score", "round_points", "rounds_done")

    class Renamed(TinyGame):
        game_info = replace(TinyGame.game_info, name="renamed")

    assert Renamed.name == "renamed" and TinyGame.name == "tiny"
    with pytest.raises(TypeError, match=r"Broken sets \['name'\] as class attributes: a game's facts are its "
                                        "game_info"):
        class Broken(TinyGame):
            name = "broken"
    with pytest.raises(TypeError, match="game_info is a dict, not a quando_env.game_info.GameInfo"):
        class Broken(TinyGame):     # noqa: F811
            game_info = {"name": "broken"}
    for bad, what in [({"num_actions": 3}, "action_names=.* num_actions \\(3\\) distinct"),
                      ({"action_names": ("a", "a")}, "action_names=.*distinct"),
                      ({"knock_action": 2}, "knock_action=2 is not allowed: None or an action 0..1"),
                      ({"seat_info_keys": ("score",)}, "seat_info_keys=.*other than the shared"),
                      ({"name": ""}, "name='' is not allowed"), ({"higher_total_wins": 1}, "higher_total_wins=1")]:
        with pytest.raises(TypeError, match=what):
            GameInfo(**{**vars(TinyGame.game_info), **bad})


def test_optional_kernels_and_sizes_have_their_defaults():
    class Plain(TinyGame):
        kernels = tiny_kernels(play_random=None, action_features=None)
        action_feature_parts = None
        parallel_kernels = {"step": tiny_game.step_kernel}

    assert Plain.kernels.play_random is None and Plain.kernels.check is None
    assert Plain.obs_dim_of(2) == tiny_game.OBSERVATION_PARTS.size(2) == 15
    assert Plain.state_dim_of(2) == tiny_game.STATE_PARTS.size(2)
    assert sorted(Plain.parallel_kernels.present()) == ["infos", "masks", "observe", "state", "step"]
    g = Plain(2, seed=1, autoreset=False)
    g.play_random(None, np.ones((2, 2), bool))
    assert (g.current_player < 0).all() and g.check_states(g.states).shape == (2, 2)
