"""Cabo through the generic adapters: PettingZoo's api and seed tests for 2-6 players, Gymnasium's and
SB3's env checkers on gymnasium.make("Cabo-v0"), the SB3 VecEnv, invariants under long random play,
determinism per seed independent of batch size and slot, clear ValueErrors (illegal actions, bad options,
bad decks, malformed records), and game records that save and replay. Rule ids refer to
quando_env/cabo/RULES.md."""
import copy
import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import quando_env
from quando_env import cabo_v0
from quando_env import record as rec
from quando_env.cabo import VectorGame
from quando_env.cabo import engine as E
from quando_env.cabo.cards import KNOCK, NUM_ACTIONS, NUM_CARDS, NUM_SLOTS, PASS, action_name

PLAYERS = [2, 3, 4, 5, 6]


def play_random(env, seed, knock_weight=1.0):
    """Play a PettingZoo env (already reset) to its end with random legal actions; return the moves."""
    rng = np.random.default_rng(seed)
    moves = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        w = obs["action_mask"].astype(np.float64)
        w[KNOCK] *= knock_weight
        a = int(rng.choice(len(w), p=w / w.sum()))
        env.step(a)
        moves.append((int(agent.split("_")[1]), a))
    return moves


# ---------------------------------------------------------------- PettingZoo, Gymnasium, SB3
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test(n):
    api_test(cabo_v0.env(num_players=n), num_cycles=300)


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("options", [dict(episode="round", reward="win", hand_size=2),
                                     dict(max_steps=15, turn_limit=0)], ids=["round-win", "max_steps"])
@pytest.mark.quick
def test_pettingzoo_api_test_other_episode_ends(options):
    api_test(cabo_v0.env(num_players=3, **options), num_cycles=300)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed_test(n):
    seed_test(lambda: cabo_v0.env(num_players=n), num_cycles=300)


def test_registered_and_made_by_name():
    assert "cabo" in quando_env.game_names()
    assert quando_env.make("cabo", num_players=3).unwrapped.metadata["name"] == "cabo_v0"
    assert "Cabo-v0" in gym.registry


def test_gymnasium_env_checker():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(gym.make("Cabo-v0", illegal_action="random").unwrapped, skip_render_check=False)


def test_sb3_env_checker():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sb3_check_env(gym.make("Cabo-v0").unwrapped)
        sb3_check_env(gym.make("Cabo-v0", num_players=2, episode="round", reward="win").unwrapped)


def test_sb3_vec_env_steps_with_masks():
    venv = quando_env.make_vec_env(4, game="cabo", seed=3, num_players=3)
    obs = venv.reset()
    assert obs.shape == (4, VectorGame.obs_dim_of(3))
    assert "hand_total" in venv.reset_infos[0]
    ends = 0
    for _ in range(400):
        acts = np.array([np.flatnonzero(m)[-1] for m in venv.action_masks()])   # always knock or pass
        obs, rew, done, infos = venv.step(acts)
        assert obs.shape == (4, VectorGame.obs_dim_of(3))
        for i in np.flatnonzero(done):
            assert "hand_total" in infos[i] and "terminal_observation" in infos[i]
            ends += 1
    assert ends > 0


# ---------------------------------------------------------------- invariants and ends
def check_invariants(game):
    s = game.states
    n = game.num_players
    for g in range(game.num_games):
        r = s[g]
        if r["phase"] == E.PH_OVER:
            continue
        held = r["slot"][:n][r["slot"][:n] >= 0]
        cards = np.concatenate([held, r["stock"][: r["nstock"]], r["disc"][: r["ndisc"]],
                                [r["drawn"]] if r["drawn"] >= 0 else []]).astype(int)
        assert sorted(cards.tolist()) == list(range(NUM_CARDS)), g           # 52 cards, each once (R1)
        assert ((r["slot"][:n] >= 0).sum(axis=1) == r["nhand"][:n]).all(), g   # <= 8 per seat (D6)
        assert (r["nhand"][:n] <= NUM_SLOTS).all()
        assert game.legal_action_mask[g].any(), g                            # a legal action always
        for c in held:
            p, i = int(r["loc"][c]), int(r["pos"][c])
            assert r["slot"][p, i] == c
        assert r["ndisc"] >= 1 or r["drawn"] >= 0


@pytest.mark.parametrize("n", PLAYERS)
def test_invariants_under_long_random_play_and_every_episode_ends(n):
    game = VectorGame(16, seed=n, num_players=n, turn_limit=60)
    ends = 0
    for _ in range(1500):
        check_invariants(game)
        game.step(game.sample_actions())
        ends += int((game.game_over | game.truncated).sum())
        assert (game.current_player >= 0).all()            # autoreset: a decision is always waiting
    assert ends >= 4


def test_without_turn_limit_max_steps_truncates():
    game = VectorGame(8, seed=1, num_players=3, turn_limit=0, max_steps=300, autoreset=False)
    for _ in range(300):
        if (game.current_player < 0).all():
            break
        live = np.flatnonzero(game.current_player >= 0)
        game.step(game.sample_actions(live), games=live)
    assert (game.current_player < 0).all()


def test_play_random_ends_every_episode():
    game = VectorGame(32, seed=2, num_players=4, autoreset=False)
    game.play_random(game.all_games, np.ones((32, 4), bool))
    assert (game.current_player == -1).all()
    assert (game.totals.max(axis=1) > 100).all() or game.truncated.any()


# ---------------------------------------------------------------- determinism
def run(game, steps):
    for _ in range(steps):
        game.step(game.sample_actions())
    return game.states.copy()


def test_same_seed_same_game_independent_of_batch_size_and_slot():
    big = run(VectorGame(5, seed=40, num_players=4), 400)
    for i in (0, 3):
        one = run(VectorGame(1, seed=40 + i, num_players=4), 400)
        assert one[0].tobytes() == big[i].tobytes()
    again = run(VectorGame(5, seed=40, num_players=4), 400)
    assert again.tobytes() == big.tobytes()


def test_reset_of_one_slot_replays_that_game():
    a = VectorGame(3, seed=7, num_players=3, autoreset=False)
    run(a, 50)
    a.reset(seed=100, games=[1])
    b = VectorGame(1, seed=100, num_players=3, autoreset=False)
    assert a.states[1].tobytes() == b.states[0].tobytes()


# ---------------------------------------------------------------- clear errors
def test_illegal_action_raises_naming_it_and_the_legal_ones():
    game = VectorGame(2, seed=0, num_players=3)
    legal = np.flatnonzero(game.legal_action_mask[0])
    bad = KNOCK if KNOCK not in legal else 0
    with pytest.raises(ValueError, match=rf"action {bad} \({action_name(bad)}\) is illegal; legal: .*pass"):
        game.step(np.array([bad, int(np.flatnonzero(game.legal_action_mask[1])[0])]))
    with pytest.raises(ValueError, match="out of range"):
        game.step(np.array([NUM_ACTIONS, 0]))
    env = cabo_v0.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is illegal; legal"):
        env.step(0)   # R7's window: a draw is not legal
    with pytest.raises(ValueError, match="action 350 is out of range"):
        env.step(350)


@pytest.mark.parametrize("option,value,allowed", [
    ("num_players", 7, "2 to 6 players"), ("num_players", 1, "2 to 6"), ("num_players", True, "2 to 6"),
    ("hand_size", 0, "1..8"), ("hand_size", 9, "1..8"), ("peek", 5, r"0..hand_size \(4\)"), ("peek", -1, "0..hand"),
    ("knocker_final_turn", 1, "True or False"), ("tie_doubles", "yes", "True or False"),
    ("turn_limit", -1, r"0\.\.1000000000 \(0 = no limit\)"), ("target", 0, r"1\.\.1000000000"),
    ("dealer", 4, r"seat 0..3"),
    ("episode", "match", "game"), ("reward", "score", "points"), ("max_steps", 0, r"1\.\.1000000000")])
def test_bad_options_raise_saying_what_is_allowed(option, value, allowed):
    with pytest.raises(ValueError, match=rf"{option}=.* is not allowed: .*{allowed}"):
        VectorGame(1, **{option: value})
    with pytest.raises(ValueError, match=allowed):
        cabo_v0.env(**{option: value})


def test_unknown_option_raises():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['edition'\]"):
        VectorGame(1, edition="oya")


@pytest.mark.parametrize("deck,problem", [
    (list(range(51)), "51 cards"), (list(range(52)) + [0], "53 cards"), ([0] * 52, "both 0"),
    (list(range(51)) + [52], "card 51 is 52"), (list(range(51)) + [-1], "card 51 is -1"),
    (list(range(51)) + [1.5], "integer ids"), ("abc", "list of the 52"), (5, "list of the 52")])
def test_R4_malformed_deck_raises_naming_the_problem(deck, problem):
    game = VectorGame(1, num_players=3)
    with pytest.raises(ValueError, match=problem):
        game.reset(deck=deck)
    env = cabo_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match=problem):
        env.reset(seed=0, options={"deck": deck})


@pytest.mark.parametrize("dealer", [-1, 3, "0", 1.0])
def test_bad_dealer_raises(dealer):
    with pytest.raises(ValueError, match="dealer=.* is not allowed: a seat 0..2"):
        VectorGame(1, num_players=3).reset(dealer=dealer)


def test_no_in_round_randomness_hooks_raise():
    game = VectorGame(1)
    with pytest.raises(ValueError, match="no random events inside a round"):
        game.force_reshuffle(0, {"pile": []})
    with pytest.raises(ValueError, match="vector of"):    # determinization exists: it checks the observation
        VectorGame.sample_states(None, 1, game.config)


# ---------------------------------------------------------------- records
def recorded_game(seed, options=None, knock_weight=1.0, **config):
    env = cabo_v0.env(**config)
    env.reset(seed=seed, options=options)
    moves = play_random(env, seed, knock_weight)
    return env.unwrapped.game_record(), moves, env.unwrapped.game.totals[0].tolist()


RECORDED = {"4p-game": dict(seed=0, num_players=4),
            "2p-long": dict(seed=3, num_players=2, knock_weight=0.05),
            "6p-truncated": dict(seed=4, num_players=6, max_steps=20),
            "3p-given-deck": dict(seed=6, num_players=3, options={"deck": list(range(51, -1, -1)), "dealer": 0})}


@pytest.fixture(scope="module")
def records():
    return {name: recorded_game(**kw) for name, kw in RECORDED.items()}


@pytest.mark.parametrize("name", RECORDED)
def test_record_saves_and_replays_the_same_game(records, name, tmp_path):
    record, moves, totals = records[name]
    assert record["format"] == "cabo-record/2"
    path = tmp_path / "game.json"
    rec.save(record, path)
    loaded = rec.load(path)
    assert loaded == json.loads(json.dumps(record))
    replayed, game = [], None
    for _, seat, a, game in rec.replay(loaded):
        replayed.append((seat, a))
    assert replayed == moves
    assert game.totals[0].tolist() == totals


def test_records_reach_several_rounds_and_a_given_deck(records):
    assert len(records["4p-game"][0]["rounds"]) > 1
    assert records["3p-given-deck"][0]["rounds"][0] == {"dealer": 0, "deck": list(range(51, -1, -1))}
    assert records["6p-truncated"][0]["result"]["truncated"]


def test_malformed_records_fail_where_they_break(records):
    record = records["4p-game"][0]
    bad = copy.deepcopy(record)
    k = next(i for i, a in enumerate(bad["actions"]) if a == PASS)
    bad["actions"][k] = KNOCK
    with pytest.raises(ValueError, match=rf"step {k}: action {KNOCK} of player_\d is illegal"):
        list(rec.replay(bad))
    bad = copy.deepcopy(record)
    bad["rounds"][1]["deck"] = bad["rounds"][1]["deck"][:-1]
    with pytest.raises(ValueError, match="round 1 of the record: deck has 51 cards"):
        list(rec.replay(bad))
    bad = copy.deepcopy(record)
    bad["rounds"][1]["dealer"] = (bad["rounds"][1]["dealer"] + 1) % 4
    with pytest.raises(ValueError, match="round 1: the record's dealer is"):
        list(rec.replay(bad))
    bad = copy.deepcopy(record)
    bad["result"]["totals"][0] += 1
    with pytest.raises(ValueError, match="final totals"):
        list(rec.replay(bad))
    bad = copy.deepcopy(record)
    bad["reshuffles"] = [{"step": 0, "pile": []}]
    with pytest.raises(ValueError, match="reshuffle 0 of the record is .*no random events"):
        list(rec.replay(bad))


# ---------------------------------------------------------------- infos, rewards, state, render
def test_points_reward_sums_to_minus_the_final_totals_and_infos_have_every_key():
    env = cabo_v0.env(num_players=3)
    env.reset(seed=11)
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        assert set(info) == {"score", "round_points", "hand_total", "rounds_done"}
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    totals = env.unwrapped.game.totals[0].tolist()
    assert [returns[a] for a in env.possible_agents] == [-t for t in totals]


def test_win_reward_plus_one_to_the_lowest_total():
    game = VectorGame(8, seed=5, num_players=3, reward="win", autoreset=False)
    rew = game.play_random(game.all_games, np.ones((8, 3), bool))
    low = game.totals == game.totals.min(axis=1, keepdims=True)
    assert (rew == np.where(low, 1.0, -1.0)).all()


def test_state_matches_state_space():
    env = cabo_v0.raw_env(num_players=4)
    env.reset(seed=0)
    st = env.state()
    assert st.shape == env.state_space.shape and st.dtype == np.float32 and env.state_space.contains(st)


def test_render_modes_and_views():
    env = cabo_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "view of player_" in text and "??" in text
    assert "??" not in env.render_omniscient().split("stock")[0]
