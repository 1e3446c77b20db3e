"""Help! through the generic adapters: PettingZoo's api and seed tests, Gymnasium's and SB3's checkers, the
engine's invariants under long random play, determinism per seed, clear errors, and game records (saved,
loaded, replayed, reshuffles included)."""
import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import quando_env
from quando_env import help_v0
from quando_env import record as rec
from quando_env.help import VectorGame
from quando_env.help import engine as E
from quando_env.help.cards import CODES, FULL_DECK, KIND_COUNTS, NUM_ACTIONS, NUM_KINDS

PLAYERS = [3, 4, 5]


def play_random(env, seed):
    """Play the AEC env (already reset) to its end with random legal actions; returns (returns, moves)."""
    rng = np.random.default_rng(seed)
    returns = {a: 0.0 for a in env.possible_agents}
    moves = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        moves.append((int(agent.split("_")[1]), a))
    return returns, moves


# ---------------------------------------------------------------- PettingZoo, Gymnasium, SB3
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test(n):
    api_test(help_v0.env(num_players=n), num_cycles=300)


@pytest.mark.quick
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("options", [dict(episode="round", reward="win"), dict(reshuffle="flip", max_steps=30)])
def test_pettingzoo_api_test_other_options(options):
    api_test(help_v0.env(num_players=4, **options), num_cycles=300)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed_test(n):
    seed_test(lambda: help_v0.env(num_players=n), num_cycles=300)


def test_registered_with_gymnasium_and_the_registry():
    assert "help" in quando_env.game_names()
    assert "Help-v0" in gym.registry
    assert quando_env.make("help", num_players=3).unwrapped.metadata["name"] == "help_v0"


def test_gymnasium_env_checker_passes():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        gym_check_env(gym.make("Help-v0", illegal_action="random").unwrapped, skip_render_check=False)


def test_sb3_env_checker_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gym.make("Help-v0").unwrapped)
    sb3_check_env(gym.make("Help-v0", num_players=3, episode="round", reward="win").unwrapped)


def test_sb3_vec_env_and_gym_vector_env_step():
    venv = quando_env.make_vec_env(4, game="help", seed=0, num_players=5)
    obs = venv.reset()
    assert obs.shape == (4, VectorGame.obs_dim_of(5))
    for _ in range(50):
        actions = np.array([np.flatnonzero(m)[0] for m in venv.action_masks()])
        obs, rewards, dones, infos = venv.step(actions)
        assert obs.shape == (4, VectorGame.obs_dim_of(5)) and len(infos) == 4
    env = gym.make_vec("Help-v0", num_envs=3, vectorization_mode="vector_entry_point")
    obs, info = env.reset(seed=1)
    assert obs.shape == (3, VectorGame.obs_dim_of(4))


# ---------------------------------------------------------------- invariants
def check_invariants(g, row_max, n):
    s = g.states
    for i in range(g.num_games):
        st = s[i]
        if st["cur"] < 0:
            continue
        counts = st["hand"][:n].sum(axis=0).astype(np.int64)
        counts += np.bincount(st["draw"][st["dpos"]:st["dend"]], minlength=NUM_KINDS)
        counts += np.bincount(st["disc"][: st["ndisc"]], minlength=NUM_KINDS)
        counts += np.bincount(st["row_kind"][: st["nrow"]], minlength=NUM_KINDS)
        counts[14] += (st["no"][:n] > 0).sum()
        assert (counts == KIND_COUNTS).all(), (i, counts)                    # R1: 105 cards, each once
        vals = st["row_val"][: st["nrow"]]
        assert st["nrow"] <= row_max - 1 and (np.diff(vals) > 0).all()     # R7
        assert ((vals >= 1) & (vals <= 11)).all()
        assert g.legal_action_mask[i].any()                                 # every decision has a legal action
        assert 0 <= st["cur"] < n


@pytest.mark.parametrize("n,opts", [(3, dict(row_max=2)), (4, dict(reshuffle="flip", hand_size=6, row_max=2)),
                                    (5, dict(row_max=2)), (4, dict(hand_size=3, row_max=2, open_lowest=False))])
def test_invariants_under_long_random_play_and_every_episode_ends(n, opts):
    g = VectorGame(32, seed=n, num_players=n, **opts)
    row_max = g.config.row_max
    ends = np.zeros(32, np.int64)
    refills = 0
    prev = g.states["shuffles"] + g.states["flips"]
    for t in range(1500):
        g.step(g.sample_actions())
        ends += g.game_over | g.truncated
        now = g.states["shuffles"] + g.states["flips"]
        refills += (now > prev).sum()
        prev = now
        check_invariants(g, row_max, n)
    assert (ends >= 1).all() and refills > 0


def test_every_hand_holds_hand_size_cards_between_turns():
    g = VectorGame(16, seed=2, num_players=4, hand_size=5)
    for _ in range(500):
        g.step(g.sample_actions())
        s = g.states
        ph = s["phase"]
        sizes = s["hand"][:, :4].sum(axis=2)
        play = ph == E.PH_PLAY
        assert (sizes[play] == 5).all()


# ---------------------------------------------------------------- determinism
def trajectory(g, i, steps):
    out = []
    for _ in range(steps):
        a = g.sample_actions()
        g.step(a)
        st = g.states[i]
        out.append((int(a[i]), st["hand"].tobytes(), st["row_val"].tobytes(), int(st["dpos"]), int(st["cur"])))
    return out


@pytest.mark.parametrize("batch,slot", [(4, 3), (70, 65)])
def test_same_seed_same_game_independent_of_batch_size_and_slot(batch, slot):
    single = trajectory(VectorGame(1, seed=10 + slot, num_players=4), 0, 400)
    batched = trajectory(VectorGame(batch, seed=10, num_players=4), slot, 400)   # 70: the parallel kernels
    assert single == batched


def test_play_random_matches_stepping_with_sample_actions():
    a = VectorGame(8, seed=5, num_players=3, autoreset=False)
    b = VectorGame(8, seed=5, num_players=3, autoreset=False)
    a.play_random(None, np.ones((8, 3), bool))
    while (b.current_player >= 0).any():
        live = np.flatnonzero(b.current_player >= 0)
        b.step(b.sample_actions(games=live), games=live)
    assert (a.states == b.states).all() and (a.totals == b.totals).all()


# ---------------------------------------------------------------- clear errors
def test_illegal_and_out_of_range_actions_raise_naming_the_legal_ones():
    g = VectorGame(1, seed=0, num_players=4)
    illegal = int(np.flatnonzero(~g.legal_action_mask[0])[0])
    with pytest.raises(ValueError, match=r"action \d+ \(.*\) is illegal; legal: "):
        g.step(np.array([illegal]))
    with pytest.raises(ValueError, match="out of range 0..104"):
        g.step(np.array([105]))
    env = help_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is illegal; legal"):
        env.step(illegal)
    with pytest.raises(ValueError, match=r"action=-1 is not allowed: an integer 0\.\.104"):
        VectorGame.action_name(-1)


@pytest.mark.parametrize("option,value,allowed", [
    ("num_players", 2, "3 to 5 players"), ("num_players", 6, "3 to 5 players"), ("num_players", 4.0, "3 to 5"),
    ("hand_size", 2, "3..6"), ("hand_size", 7, "3..6"), ("row_max", 1, "2..6"), ("row_max", 7, "2..6"),
    ("target", 0, "an integer 1..1000000000"), ("open_lowest", 1, "True or False"),
    ("reshuffle", "riffle", "choose one of"), ("episode", "match", "choose one of"),
    ("reward", "score", "choose one of"), ("max_steps", 0, "an integer 1..1000000000"),
])
def test_bad_options_raise_saying_what_is_allowed(option, value, allowed):
    with pytest.raises(ValueError, match=f"{option}=.* is not allowed: .*{allowed}"):
        VectorGame(1, **{option: value})
    with pytest.raises(ValueError, match="unknown option"):
        VectorGame(1, edition="oya")


@pytest.mark.parametrize("deck,problem", [
    (list(range(105)), "card codes are"), (["1"] * 104, "has 104 cards"), ("1" * 105, "must be a list"),
    (["1"] * 105, "holds 105 cards '1'"), ([CODES[k] for k in FULL_DECK][:-1] + ["X"], "'X'"),
])
def test_bad_decks_raise_naming_the_problem(deck, problem):
    g = VectorGame(1, seed=0)
    with pytest.raises(ValueError, match=problem):
        g.reset(deck=deck)
    env = help_v0.raw_env()
    with pytest.raises(ValueError, match=problem):
        env.reset(options={"deck": deck})


@pytest.mark.parametrize("starter", [-1, 4, 1.0, "0"])
def test_bad_starter_raises(starter):
    with pytest.raises(ValueError, match="starter=.* is not allowed: a seat 0..3"):
        VectorGame(1, seed=0).reset(starter=starter)


# ---------------------------------------------------------------- records
def recorded(seed, **config):
    env = help_v0.env(**config)
    env.reset(seed=seed)
    play_random(env, seed)
    return env.unwrapped.game_record(), env.unwrapped.game.totals[0].tolist()


def test_record_save_load_replay_with_reshuffles_and_several_rounds(tmp_path):
    found = 0
    for seed in range(40):
        record, totals = recorded(seed, num_players=5, hand_size=6, row_max=2, target=2)
        path = tmp_path / "g.json"
        rec.save(record, path)
        loaded = rec.load(path)
        assert loaded == json.loads(json.dumps(record)) and loaded["format"] == "help-record/2"
        steps = list(rec.replay(loaded))
        game = steps[-1][3]
        assert [a for _, _, a, _ in steps] == record["actions"] and game.totals[0].tolist() == totals
        if record["reshuffles"] and len(record["rounds"]) > 1:
            found += 1
            bad = json.loads(json.dumps(loaded))
            pile = bad["reshuffles"][0]["pile"]
            pile[pile.index("N") if "N" in pile else 0] = "1" if pile[0] != "1" else "2"
            with pytest.raises(ValueError, match="reshuffle"):
                list(rec.replay(bad))
            bad["reshuffles"][0]["pile"] = "nonsense"
            with pytest.raises(ValueError, match="reshuffle 0 of the record is malformed"):
                list(rec.replay(bad))
            if found >= 2:
                break
    assert found >= 2


def test_record_with_a_given_deck_and_starter_and_flip_replays(tmp_path):
    deck = [CODES[k] for k in FULL_DECK]
    env = help_v0.env(num_players=3, reshuffle="flip")
    env.reset(seed=3, options={"deck": deck, "starter": 2})
    assert env.unwrapped.game.current_player[0] == 2
    play_random(env, 3)
    record = env.unwrapped.game_record()
    assert record["rounds"][0] == {"deck": deck, "starter": 2} and record["reshuffles"] == []
    assert [a for _, _, a, _ in rec.replay(record)] == record["actions"]
    bad = json.loads(json.dumps(record))
    if len(bad["rounds"]) > 1:
        bad["rounds"][1]["starter"] = (int(env.unwrapped.game.states[0]["starter"]) + 1) % 3
        bad["rounds"][1]["deck"] = bad["rounds"][1]["deck"]
    bad["rounds"][0]["deck"] = bad["rounds"][0]["deck"][:-1]
    with pytest.raises(ValueError, match="round 0 of the record: deck has 104 cards"):
        list(rec.replay(bad))


def test_truncated_game_is_recorded_and_replays():
    record, _ = recorded(1, num_players=4, max_steps=5)
    assert record["result"]["truncated"] and len(record["actions"]) == 5
    assert [a for _, _, a, _ in rec.replay(record)] == record["actions"]


def test_action_names_are_readable():
    from quando_env.help.cards import action_name, switch_action
    assert [action_name(a) for a in (6, 13, switch_action(1, 6), 72, 73, 74, 75 + 8, 90 + 2)] == [
        "play 7", "Wild at slot 2", "Switch: take slot 1, put a 6", "Zap", "No!", "ask for help", "give a 9",
        "give back a 3"]
    assert len(set(VectorGame.action_names)) == NUM_ACTIONS


def test_a_redeal_refused_for_its_starter_changes_nothing():
    """R5 names the starter only once the cards are dealt: a record whose starter differs is refused and the
    game is put back as it was (validate, or undo, before anything shows)."""
    g = VectorGame(2, seed=4, num_players=4)
    g.step(g.sample_actions())
    setup = g.round_setup(1)
    other = VectorGame(1, seed=9, num_players=4)
    deck = other.round_setup(0)["deck"]
    made = int(other.states[0]["starter"])
    states, masks = g.states.copy(), g.masks.copy()
    with pytest.raises(ValueError, match=rf"the record's starter is {(made + 1) % 4}, the rules make it {made} "
                                         r"\(chosen from the deal among the callers, rule R5 of "
                                         r"quando_env/help/RULES.md\)"):
        g.redeal(1, deck, starter=(made + 1) % 4)
    assert g.states.tobytes() == states.tobytes() and np.array_equal(g.masks, masks)
    g.redeal(1, deck, starter=made)
    assert g.round_setup(1)["deck"] == deck and setup["deck"] != deck
