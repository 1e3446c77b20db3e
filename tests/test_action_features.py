"""Legal-move features (VectorGame.action_features): for every game with them and every player count, the rows
have the layout's size, are zero exactly for illegal moves, tell the legal moves apart, stay in [0, 1], and
depend only on what the mover has seen: unchanged over worlds sampled from the mover's observation (the game's
sample_states), while a planted leak (a feature reading a hidden side) fails that same check."""
from dataclasses import replace

import numpy as np
import pytest

from quando_env.cabo import action_features as CAF
from quando_env.cabo.cards import DRAW_STOCK
from quando_env.help import action_features as HAF
from quando_env.help.cards import FULL_DECK, K_SWITCH, NO, PLAY, WILD, codes_of
from quando_env.quando import action_features as QAF
from quando_env.quando.cards import TAKE_DOWN
from quando_env.registry import game_class
from tiny_game import TinyGame

CASES = [("quando", n, {"edition": e}) for n, e in ((2, "kendi"), (3, "oya"), (4, "kendi"), (5, "oya"),
                                                     (6, "kendi"), (4, "oya"))] + \
    [("cabo", n, {}) for n in range(2, 7)] + \
    [("help", n, {}) for n in range(3, 6)] + [("help", 4, {"hand_size": 5, "row_max": 4, "reshuffle": "flip"})]


def random_positions(name, n, rules, games=48, steps=240, every=6):
    """A batch of games along random play, yielded every `every` steps (advanced in place)."""
    g = (TinyGame if name == "tiny" else game_class(name))(games, seed=n, num_players=n, **rules)
    for t in range(steps):
        if t % every == 0:
            yield g
        g.step(g.sample_actions())


@pytest.mark.parametrize("name,n,rules", CASES + [("tiny", 2, {})])
def test_rows_have_the_layout_size_are_zero_exactly_when_illegal_and_tell_legal_moves_apart(name, n, rules):
    cls = TinyGame if name == "tiny" else game_class(name)
    layout = cls.action_feature_layout_of(n)
    checked = 0
    for g in random_positions(name, n, rules):
        f = g.action_features()
        assert f.dtype == np.float32 and f.shape == (g.num_games, g.num_actions, layout.size)
        assert g.action_feature_dim == layout.size and dict(g.action_feature_layout) == dict(layout)
        assert f.min() >= 0.0 and f.max() <= 1.0
        m = g.legal_action_mask
        assert np.array_equal(f.any(axis=2), m)
        for i in range(g.num_games):
            rows = f[i][m[i]]
            assert np.unique(rows, axis=0).shape[0] == rows.shape[0]
            checked += rows.shape[0] > 1
    assert checked > 80


@pytest.mark.parametrize("name", ["quando", "cabo", "help"])
def test_listed_games_get_their_own_rows_and_a_finished_game_gets_zeros(name):
    g = game_class(name)(8, seed=3, autoreset=False, episode="round")
    for _ in range(30):
        g.step(g.sample_actions())
    full = g.action_features()
    assert np.array_equal(g.action_features(games=[5, 2]), full[[5, 2]])
    assert np.array_equal(g.action_features(games=np.array([7], np.int8)), full[[7]])
    while (g.current_player >= 0).any():
        live = np.flatnonzero(g.current_player >= 0)
        g.step(g.sample_actions(live), games=live)
    assert not g.action_features().any()
    for bad in ([8], [1, 1], [-1], "0", [0.5]):
        with pytest.raises(ValueError, match="games"):
            g.action_features(games=bad)


class Featureless(TinyGame):
    game_info = replace(TinyGame.game_info, name="featureless")
    action_feature_parts = None


def test_a_game_without_move_features_says_so():
    g = Featureless(2, seed=0)
    for call in (g.action_features, lambda: Featureless.action_feature_layout_of(2)):
        with pytest.raises(ValueError, match="'featureless' has no legal-move features"):
            call()
    assert g.action_feature_layout is None and g.action_feature_dim == 0


def honest(game):
    return game.action_features()


def quando_leak(game):
    """A planted leak: every legal take-the-hidden-side row also says what that hidden side is."""
    f = game.action_features()
    s = game.states
    for i in range(game.num_games):
        if f[i, TAKE_DOWN].any() and s[i]["ndraw"] > 0:
            top = s[i]["draw"][s[i]["ndraw"] - 1]
            f[i, TAKE_DOWN, QAF.A_GAIN] = QAF.CARD_VALUES[top, 1 - s[i]["face"][top]] / 10.0
    return f


def cabo_leak(game):
    """A planted leak: a legal draw from the stock also says what the stock's top card is worth."""
    f = game.action_features()
    s = game.states
    for i in range(game.num_games):
        if f[i, DRAW_STOCK].any():
            f[i, DRAW_STOCK, CAF.A_OTHER] = CAF.CARD_VALUES[s[i]["stock"][s[i]["nstock"] - 1]] / 13.0
    return f


def help_leak(game):
    """A planted leak: every legal move also says how many Switches the seat after the mover holds."""
    f = game.action_features()
    s = game.states
    for i in range(game.num_games):
        nxt = (s[i]["cur"] + 1) % game.num_players
        f[i, game.legal_action_mask[i], HAF.A_NEXT] = s[i]["hand"][nxt, K_SWITCH] / 4.0
    return f


LEAKS = {"quando": quando_leak, "cabo": cabo_leak, "help": help_leak}


def same_over_worlds(name, n, rules, features, worlds=6, max_positions=60):
    """(positions checked, positions whose features differ in some world sampled from the mover's observation)."""
    cls = game_class(name)
    probe = cls(worlds, seed=0, autoreset=False, num_players=n, **rules)
    checked = differ = 0
    for g in random_positions(name, n, rules, games=12, every=4):
        f = features(g)
        obs = g.observe()
        for i in range(g.num_games):
            if g.current_player[i] < 0 or checked >= max_positions:
                continue
            probe.load_states(cls.sample_states(obs[i], worlds, g.config, seed=checked))
            assert (probe.current_player == 0).all()
            checked += 1
            differ += not (features(probe) == f[i]).all()
    return checked, differ


@pytest.mark.parametrize("name,n,rules", CASES)
def test_features_are_the_same_in_every_world_the_mover_cannot_tell_apart(name, n, rules):
    checked, differ = same_over_worlds(name, n, rules, honest)
    assert checked == 60 and differ == 0


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_a_planted_leak_fails_the_same_check(name):
    checked, differ = same_over_worlds(name, 4, {}, LEAKS[name], max_positions=200)
    assert checked == 200 and differ > 0


def test_help_features_of_a_dealt_hand_say_what_each_play_does():
    """Seat 0 starts on an empty row holding 3, 7, a Wild and a No! (4 players, direction +1)."""
    mine = [2, 6, 11, 14]
    rest = list(FULL_DECK)
    for k in mine:
        rest.remove(k)
    g = game_class("help")(1, seed=0, num_players=4)
    g.reset(seed=0, deck=codes_of(mine + rest), starter=0)
    f = g.action_features()[0]
    legal = np.flatnonzero(g.legal_action_mask[0])
    three, seven, wild, no = PLAY + 2, PLAY + 6, WILD, NO
    assert legal.tolist() == [three, seven, wild, no]
    part = g.action_feature_layout.decode(f)
    assert part["placed"][three].tolist() == pytest.approx([3 / 11, 0.2, 1.0])        # my lowest number that fits
    assert part["placed"][seven].tolist() == pytest.approx([7 / 11, 0.6, 0.0])
    assert part["placed"][wild][0] == pytest.approx(1 / 11)
    # playing the 3 keeps 7, Wild, No!: sum 7, all three playable on the row 3
    assert part["kept"][three].tolist() == pytest.approx([7 / 44, 7 / 11, 0.5, 0.75])
    assert part["row_after"][seven].tolist() == pytest.approx([7 / 11, 1 / 6])
    nxt = part["next"]
    assert 0 < nxt[three, 0] < nxt[seven, 0] < 1           # a higher row strands the next player likelier
    assert nxt[three, 1] == nxt[three, 0] and nxt[no, 1] == 0.0     # it asks me, unless my No! lies in front
    assert (nxt[:, 3] == 0).all() and (part["ask"] == 0).all()     # I keep something givable


# ---------------------------------------------------------------- the envs' opt-in observation key
def test_aec_env_offers_the_features_of_the_agent_to_move_and_passes_the_api_test():
    import warnings

    from pettingzoo.test import api_test

    import quando_env

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        api_test(quando_env.env(num_players=3, action_features=True), num_cycles=200)
    env = quando_env.env(num_players=3, action_features=True)
    env.reset(seed=4)
    raw = env.unwrapped
    assert raw.action_feature_layout == raw.game.action_feature_layout
    for _ in range(60):
        agent = env.agent_selection
        for other in env.agents:
            obs = env.observe(other)
            assert env.observation_space(other).contains(obs)
            want = raw.game.action_features()[0] if other == agent else 0.0
            assert np.array_equal(obs["action_features"], np.broadcast_to(want, obs["action_features"].shape))
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert set(quando_env.env().observation_space("player_0").spaces) == {"observation", "action_mask"}


def test_gymnasium_env_with_features_passes_the_checkers_and_gives_them_each_step():
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from quando_env.adapters.gym_env import GameEnv

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        check_env(gym.make("Quando-v0", illegal_action="random", action_features=True).unwrapped)
    env = GameEnv(num_players=4, action_features=True)
    obs, info = env.reset(seed=2)
    for _ in range(40):
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs["action_features"].any(axis=1), info["action_mask"].astype(bool))
        assert np.array_equal(obs["observation"], env.core.observe()[0])
        obs, _, done, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if done or trunc:
            obs, info = env.reset()
    plain = GameEnv(num_players=4)
    assert isinstance(plain.observation_space, gym.spaces.Box) and isinstance(plain.reset(seed=2)[0], np.ndarray)


def test_sb3_vec_env_with_features_gives_dict_observations_terminal_ones_included():
    from quando_env import make_vec_env

    venv = make_vec_env(3, seed=1, action_features=True, num_players=2, episode="round")
    obs = venv.reset()
    ended = 0
    for _ in range(300):
        masks = venv.action_masks()
        assert obs["observation"].shape == (3, venv.core.obs_dim)
        assert np.array_equal(obs["action_features"].any(axis=2), masks)
        obs, _, done, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        for i in np.flatnonzero(done):
            term = infos[i]["terminal_observation"]
            assert venv.observation_space["action_features"].contains(term["action_features"])
            ended += 1
    assert ended > 0
    assert isinstance(make_vec_env(2, num_players=2).reset(), np.ndarray)


def test_help_envs_offer_the_features_of_the_mover():
    from quando_env import help_v0
    from quando_env.adapters.gym_env import GameEnv

    env = help_v0.env(num_players=5, action_features=True)
    env.reset(seed=3)
    for _ in range(40):
        agent = env.agent_selection
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert np.array_equal(obs["action_features"], env.unwrapped.game.action_features()[0])
        env.step(None if env.terminations[agent] or env.truncations[agent] else
                 int(np.flatnonzero(obs["action_mask"])[0]))
    single = GameEnv("help", num_players=3, action_features=True)
    obs, info = single.reset(seed=1)
    assert single.observation_space.contains(obs) and obs["action_features"].shape == (105, HAF.FEATURE_DIM)
    assert np.array_equal(obs["action_features"].any(axis=1), info["action_mask"].astype(bool))


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_gymnasium_vector_env_with_features_gives_dict_observations(mode):
    import gymnasium as gym

    venv = gym.make_vec("Help-v0", num_envs=3, vectorization_mode="vector_entry_point", action_features=True,
                        episode="round", autoreset_mode=mode)
    assert venv.unwrapped.action_feature_layout == game_class("help").action_feature_layout_of(4)
    obs, info = venv.reset(seed=2)
    ended = 0
    for _ in range(200):
        assert venv.observation_space.contains(obs)
        assert np.array_equal(obs["action_features"].any(axis=2), info["action_mask"].astype(bool))
        obs, _, term, trunc, info = venv.step(np.array([np.flatnonzero(m)[0] if m.any() else 0
                                                        for m in info["action_mask"]]))
        if mode == "SameStep" and (term | trunc).any():
            final = info["final_obs"][int(np.flatnonzero(term | trunc)[0])]     # one env's observation, as Gymnasium's
            assert venv.single_observation_space.contains(final)
            assert not final["action_features"].any()      # the episode is over: no legal move
            ended += 1
    assert ended > 0 or mode == "NextStep"
    plain = gym.make_vec("Help-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert isinstance(plain.reset(seed=0)[0], np.ndarray)


def test_envs_refuse_features_that_are_not_there_or_not_a_bool():
    from quando_env.adapters.gym_env import GameEnv
    from quando_env.adapters.gym_vector_env import GameVectorEnv

    with pytest.raises(ValueError, match="'featureless' has no legal-move features"):
        GameEnv(Featureless, action_features=True)
    with pytest.raises(ValueError, match="action_features"):
        GameEnv(action_features="yes")
    with pytest.raises(ValueError, match="action_features"):
        GameVectorEnv(2, action_features="yes")
