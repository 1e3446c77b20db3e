"""The adapters under bad input and failing opponents (issue 20), for every game: actions are integers only
(int or numpy integer of any width), a refused call changes nothing (every observable is snapshotted before
and compared after), a training env's step is all or nothing (opponents' moves and autoresets included, so a
retry plays as if the refused call never happened), and a copy or pickle of an env continues the same game."""
import copy
import json
import pickle
import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from quando_env import make_vec_env
from quando_env.adapters.gym_env import GameEnv
from quando_env.adapters.record import replay
from quando_env.registry import game_module, gym_id

GAMES = ["quando", "cabo", "help"]
ENGINE = ("states", "masks", "rewards", "flags", "action_streams")
LEARNER = ("seat", "terminated", "truncated", "replaced", "pending", "_rng", "_opp", "_auto")
INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


# ---------------------------------------------------------------- what is observable
def plain(x):
    """x as comparable plain data (arrays as dtype and bytes, containers recursively)."""
    if isinstance(x, np.ndarray):
        return plain(x.tolist()) if x.dtype == object else (str(x.dtype), x.shape, x.tobytes())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def engine_view(game):
    return [getattr(game, n).tobytes() for n in ENGINE]


def aec_view(env):
    """Every observable of an AEC env (raw or wrapped): selection, agents, rewards, flags, infos, every
    agent's observation and mask, the engine's states and streams, and the record."""
    raw = env.unwrapped
    return plain([raw.agent_selection, raw.agents, raw.rewards, raw._cumulative_rewards, raw.terminations,
                  raw.truncations, raw.infos, [raw.observe(a) for a in raw.possible_agents],
                  engine_view(raw.game), json.dumps(raw.game_record())])


def core_view(core):
    """Every observable of a LearnerGames batch (under the Gymnasium, vector and SB3 envs)."""
    return plain([engine_view(core.game), [getattr(core, n) for n in LEARNER], core.observe(),
                  core.action_masks(), core.info_arrays()])


def public_view(core):
    """What a LearnerGames batch shows (twins that played alike agree on it; the state records may differ in
    bytes no view reads, such as a pile's slots past its end)."""
    return plain([core.observe(), core.action_masks(), core.info_arrays(), core.game.state(), core.pending])


def refused(view, call, match):
    """call() raises a ValueError matching `match` and leaves view() as it was."""
    before = view()
    with pytest.raises(ValueError, match=match):
        call()
    assert view() == before


def legal_actions(env):
    return np.flatnonzero(env.unwrapped.game.masks[0])


def play_aec(env, rng, moves=None):
    """Random legal moves in an AEC env (raw or wrapped) for `moves` decisions or to the end."""
    while env.unwrapped.agents and (moves is None or moves > 0):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(legal_actions(env))))
        moves = None if moves is None else moves - 1


def replays(record) -> None:
    for _ in replay(record):
        pass


# ---------------------------------------------------------------- a refused reset changes nothing
@pytest.mark.parametrize("game", GAMES)
def test_aec_refused_reset_changes_nothing_and_the_game_still_replays(game):
    env = game_module(game).raw_env(num_players=3, episode="round")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    play_aec(env, rng, moves=9)
    deck = env.game.round_setup(0)["deck"]
    key = next(k for k in env.game.setup_keys if k != "deck")       # dealer or starter
    bad_resets = [(dict(seed=3, options={"deck": deck[:-1]}), "^deck"), (dict(seed=3, options={"deck": "x"}), "^deck"),
                  (dict(seed=3, options={key: 9}), f"^{key}=9 is not allowed"),
                  (dict(options=[("deck", deck)]), r"^options=.* is not allowed: None or a dict")]
    bad_resets += [(dict(seed=seed), r"^seed=.* is not allowed") for seed in (1.5, True, "5", -1, 2**63, [3])]
    for kwargs, match in bad_resets:
        refused(lambda: aec_view(env), lambda: env.reset(**kwargs), match)
    play_aec(env, rng)
    replays(env.game_record())


@pytest.mark.parametrize("game", GAMES)
def test_aec_refused_reset_of_the_wrapped_env_changes_nothing(game):
    env = game_module(game).env(num_players=3)
    env.reset(seed=1)
    play_aec(env, np.random.default_rng(1), moves=5)
    deck = env.unwrapped.game.round_setup(0)["deck"]
    refused(lambda: aec_view(env), lambda: env.reset(seed=2, options={"deck": deck[:-1]}), "deck")


def test_aec_reset_with_a_numpy_seed_writes_a_json_record():
    env = game_module("cabo").raw_env()
    env.reset(seed=np.uint16(7))
    assert json.loads(json.dumps(env.game_record()))["seed"] == 7


# ---------------------------------------------------------------- AEC actions and calls
def refused_forms(a: int) -> list:
    """Ways of passing action `a` that are not one integer."""
    return [float(a), a + 0.7, str(a), np.float32(a), np.float64(a), [a], np.array([a]), (a,), {"action": a},
            complex(a), np.str_(a)]


@pytest.mark.parametrize("game", GAMES)
def test_aec_step_refuses_anything_but_one_integer_naming_it_and_changes_nothing(game):
    env = game_module(game).raw_env(num_players=3)
    env.reset(seed=2)
    play_aec(env, np.random.default_rng(2), moves=4)
    a = int(legal_actions(env)[-1])
    n = env.game.num_actions
    view = lambda: aec_view(env)        # noqa: E731
    for bad in [*refused_forms(a), True, False, np.bool_(True)]:
        refused(view, lambda: env.step(bad), rf"action={re.escape(repr(bad)[:20])}.* one integer 0\.\.{n - 1}")
    for bad in [-1, n, 2**70, -2**70, np.uint64(2**64 - 1), np.int8(-128)]:
        refused(view, lambda: env.step(bad), rf"action {int(bad)} is out of range 0\.\.{n - 1}; legal: ")
    refused(view, lambda: env.step(None), r"action=None is only for a terminated or truncated agent; player_\d is to ")


@pytest.mark.parametrize("width", INT_TYPES + (np.array,))
def test_aec_step_takes_numpy_integers_of_every_width_and_0d_integer_arrays(width):
    envs = [game_module("quando").raw_env(num_players=4) for _ in range(2)]
    for e in envs:
        e.reset(seed=4)
    rng = np.random.default_rng(4)
    top = np.iinfo(np.int64 if width is np.array else width).max
    given = 0
    for _ in range(40):
        a = int(rng.choice(legal_actions(envs[0])))
        envs[0].step(width(a) if a <= top else a)
        envs[1].step(a)
        given += a <= top
    assert aec_view(envs[0]) == aec_view(envs[1]) and given >= 10


@pytest.mark.parametrize("game", GAMES)
def test_aec_env_before_reset_says_to_call_reset(game):
    env = game_module(game).raw_env()
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), lambda: env.game_record()):
        with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) first"):
            call()
    for call in (lambda: env.last(), lambda: env.agent_selection):
        with pytest.raises(AttributeError, match=r"agent_selection before reset\(\): call reset\(\) first"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_aec_observe_and_render_refuse_unknown_agents_and_seats_naming_them(game):
    env = game_module(game).raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    for agent in ("player_9", 0, None):
        with pytest.raises(ValueError, match=r"agent=.* is not allowed: one of \['player_0', 'player_1', 'player_2'\]"):
            env.observe(agent)
    for seat in (9, -1, 1.0, "1", True):
        with pytest.raises(ValueError, match=r"seat=.* is not allowed: an integer 0\.\.2"):
            env.render(seat=seat)
    assert env.render(seat=np.int8(2)) == env.game.render_text(0, 2)


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_aec_env_asserts_on_actions_outside_the_space_naming_them(game):
    env = game_module(game).env(num_players=3)
    env.reset(seed=0)
    n = env.unwrapped.game.num_actions
    for bad in (True, 1.0, "1", None, n, -1, np.float32(1)):
        before = aec_view(env)
        with pytest.raises(AssertionError, match=rf"action .* is not in the action space: one integer 0\.\.{n - 1}"):
            env.step(bad)
        assert aec_view(env) == before, bad


# ---------------------------------------------------------------- copies continue the game
def step_both(a, b, rng, moves=None):
    """Play the same random legal moves (by a's masks) in two AEC envs, `moves` decisions or to the end."""
    while a.unwrapped.agents and (moves is None or moves > 0):
        agent = a.agent_selection
        dead = a.terminations[agent] or a.truncations[agent]
        action = None if dead else int(rng.choice(legal_actions(a)))
        a.step(action)
        b.step(action)
        moves = None if moves is None else moves - 1


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
@pytest.mark.parametrize("game", GAMES)
def test_aec_copy_mid_game_continues_the_same_game(game, wrapped, how):
    module = game_module(game)
    env = (module.env if wrapped else module.raw_env)(num_players=3)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    play_aec(env, rng, moves=25)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert aec_view(twin) == aec_view(env)
    assert twin.unwrapped.game is not env.unwrapped.game
    step_both(env, twin, rng)
    assert aec_view(twin) == aec_view(env)
    assert twin.unwrapped.game_record() == env.unwrapped.game_record()
    replays(twin.unwrapped.game_record())
    # The copy's later games come from the same random stream.
    env.reset()
    twin.reset()
    assert aec_view(twin) == aec_view(env)


def test_aec_copy_is_independent_of_the_original():
    env = game_module("quando").raw_env()
    env.reset(seed=0)
    twin = copy.deepcopy(env)
    before = aec_view(env)
    play_aec(twin, np.random.default_rng(0), moves=10)
    assert aec_view(env) == before and aec_view(twin) != before


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("game", GAMES)
def test_gym_env_copy_mid_episode_continues_it_and_samples_its_own_legal_actions(game, how):
    env = gym.make(gym_id(game), num_players=3, episode="round")
    env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(6):
        env.step(env.action_space.sample())
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert core_view(twin.unwrapped.core) == core_view(env.unwrapped.core)     # a copy: byte for byte
    for _ in range(300):
        a, b = env.action_space.sample(), twin.action_space.sample()
        assert a == b and twin.unwrapped.action_masks()[b]     # the same draws, legal in the copy
        ra, rb = env.step(a), twin.step(b)
        assert plain(ra) == plain(rb)
        if ra[2] or ra[3]:
            assert plain(env.reset()) == plain(twin.reset())
    assert core_view(twin.unwrapped.core) == core_view(env.unwrapped.core)


# ---------------------------------------------------------------- training envs: all or nothing
class Flaky:
    """A stateless opponent (a legal action chosen by a hash of the observation) whose calls numbered in
    `fail_at` fail once `armed`: they raise, or answer an illegal action."""

    def __init__(self, fail_at=(), how="illegal"):
        self.fail_at, self.how, self.calls, self.armed = set(fail_at), how, 0, False

    def act(self, obs, masks):
        self.calls += 1
        masks = np.asarray(masks)
        if self.armed and self.calls in self.fail_at:
            if self.how == "raise":
                raise RuntimeError("the opponent crashed")
            return masks.argmin(axis=1)
        out = []
        for o, m in zip(np.asarray(obs), masks):
            legal = np.flatnonzero(m)
            out.append(legal[int(np.abs(o).sum() * 7919) % legal.size])
        return np.array(out)


FAILURES = range(2, 2000, 7)


def retrying(view, call):
    """call() until it goes through; every refusal must leave view() as it was. Returns (result, refusals)."""
    refusals = 0
    while True:
        before = view()
        try:
            return call(), refusals
        except (ValueError, RuntimeError):
            assert view() == before
            refusals += 1


@pytest.mark.parametrize("how", ["illegal", "raise"])
@pytest.mark.parametrize("game", GAMES)
def test_gym_env_step_is_all_or_nothing_when_an_opponent_fails(game, how):
    """A step whose opponent fails changes nothing: the retry plays what an env whose opponent never failed plays."""
    runs = []
    for opponent in (Flaky(FAILURES, how), Flaky()):
        env = GameEnv(game, opponents=opponent, seat=0, num_players=3, episode="round")
        opponent.armed = True
        view = lambda: core_view(env.core)              # noqa: E731
        rng = np.random.default_rng(5)
        out, refusals = [retrying(view, lambda: env.reset(seed=5))[0]], 0
        for _ in range(120):
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            result, r = retrying(view, lambda: env.step(a))
            out.append(result)
            refusals += r
            if result[2] or result[3]:
                out.append(retrying(view, env.reset)[0])
        runs.append((plain(out), refusals))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] >= 5 and runs[1][1] == 0


def vector_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def an_illegal_step(actions, masks):
    """The actions with one live env's replaced by an illegal one (None if no env is live)."""
    live = np.flatnonzero(masks.any(axis=1))
    if live.size == 0:
        return None
    bad = actions.copy()
    bad[live[0]] = int(np.flatnonzero(~masks[live[0]])[0])
    return bad


def refuse_bad_steps(step, view, actions, masks, t):
    """Before step t's real actions: every third step one illegal learner action, the first steps actions
    that are not integers (every one refused, changing nothing)."""
    bad = an_illegal_step(actions, masks) if t % 3 == 0 else None
    if bad is not None:
        refused(view, lambda: step(bad), "is illegal")
    for wrong in ([0.5] * 3, actions.astype(np.float32), [True, 0, 0], actions[:2], None) if t < 3 else ():
        refused(view, lambda: step(wrong), r"actions=.* is not allowed: 3 integers")


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=["next", "same"])
@pytest.mark.parametrize("game", GAMES)
def test_make_vec_step_is_all_or_nothing_autoresets_included(game, mode):
    """Refused steps (an illegal learner action, a failing opponent) change nothing, also where envs wait for
    their autoreset: the retried run equals a run that was never refused."""
    runs = []
    for opponent, inject in ((Flaky(FAILURES, "raise"), True), (Flaky(), False)):
        envs = gym.make_vec(gym_id(game), num_envs=3, vectorization_mode="vector_entry_point", opponents=opponent,
                            seat="random", num_players=3, episode="round", autoreset_mode=mode, illegal_action="raise")
        opponent.armed = True
        venv = envs.unwrapped
        view = lambda: core_view(venv.core) + plain([venv._ended])      # noqa: E731
        rng = np.random.default_rng(7)
        out, refusals, ends = [retrying(view, lambda: envs.reset(seed=7))[0]], 0, 0
        for t in range(100):
            masks = venv.action_masks()
            actions = vector_actions(masks, rng)
            if inject:
                refuse_bad_steps(envs.step, view, actions, masks, t)
            result, r = retrying(view, lambda: envs.step(actions))
            out.append(result)
            refusals += r
            ends += int(np.sum(result[2] | result[3]))
        runs.append((plain(out), refusals, ends))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] >= 5 and runs[0][2] >= 3


@pytest.mark.parametrize("game", GAMES)
def test_sb3_vec_env_step_is_all_or_nothing_autoresets_included(game):
    runs = []
    for opponent, inject in ((Flaky(FAILURES, "illegal"), True), (Flaky(), False)):
        venv = make_vec_env(3, opponents=opponent, seat="random", game=game, num_players=3, episode="round", seed=9)
        opponent.armed = True
        view = lambda: core_view(venv.core) + plain([venv._returns, venv._lengths, venv.reset_infos])  # noqa: E731
        rng = np.random.default_rng(9)
        out, refusals = [retrying(view, venv.reset)[0]], 0
        for t in range(100):
            masks = venv.action_masks()
            actions = vector_actions(masks, rng)
            if inject:
                refuse_bad_steps(venv.step, view, actions, masks, t)
            (obs, rewards, dones, infos), r = retrying(view, lambda: venv.step(actions.astype(np.int64)))
            for info in infos:
                info.get("episode", {}).pop("t", None)          # wall time
            out.append((obs, rewards, dones, infos))
            refusals += r
        runs.append((plain(out), refusals))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] >= 5


@pytest.mark.parametrize("game", GAMES)
def test_gym_env_refuses_non_integer_actions_and_bad_seeds_naming_them_and_changes_nothing(game):
    env = gym.make(gym_id(game), num_players=3)
    env.reset(seed=0)
    core = env.unwrapped.core
    a = int(np.flatnonzero(core.action_masks()[0])[0])
    n = core.num_actions
    view = lambda: core_view(core)      # noqa: E731
    for bad in [*refused_forms(a), True, np.bool_(False), None]:
        refused(view, lambda: env.step(bad), rf"action={re.escape(repr(bad)[:20])}.* one integer 0\.\.{n - 1}")
    for bad in (n, -1, 2**70, np.uint64(2**64 - 1)):
        refused(view, lambda: env.step(bad), rf"action {int(bad)} is out of range 0\.\.{n - 1}; legal: ")
    for seed in (1.5, True, "3", -1, 2**63):
        refused(view, lambda: env.reset(seed=seed), "seed")
    env.step(np.uint16(a))


def test_vector_env_reset_refuses_bad_seeds_and_options_and_changes_nothing():
    envs = gym.make_vec("Cabo-v0", num_envs=3)
    envs.reset(seed=0)
    core = envs.unwrapped.core
    for seed in (1.5, True, "3", -1, 2**63 - 2, [1, 2], [1, 2, 2.5], [1, True, 3], {"a": 1}):
        refused(lambda: core_view(core), lambda: envs.reset(seed=seed), "seed")
    for options in ([("reset_mask", None)], {"reset_mask": [True, False, True]}):
        refused(lambda: core_view(core), lambda: envs.reset(seed=1, options=options), "options")
    envs.reset(seed=np.int64(4))       # a numpy seed is an int
    mask = np.array([False, True, True])            # a partial reset names a bad seed by its env, not its rank
    refused(lambda: core_view(core), lambda: envs.reset(seed=[0, 5, -1], options={"reset_mask": mask}),
            r"the seed of game 2=-1 is not allowed")


def test_sb3_vec_env_refuses_bad_seeds_naming_them_and_changes_nothing():
    for seed in (1.5, True, "3", -1, 2**63 - 2):
        with pytest.raises(ValueError, match=r"^seed=.* is not allowed"):
            make_vec_env(3, seed=seed)
    venv = make_vec_env(3, seed=0)
    venv.reset()
    for seed in (1.5, True, np.float64(2)):
        refused(lambda: core_view(venv.core), lambda: venv.seed(seed), r"^seed=.* is not allowed")
    assert venv.seed(np.int64(5)) == [5, 6, 7]


# ---------------------------------------------------------------- property: any value, any time
NUMPY_INTS = st.sampled_from(INT_TYPES).flatmap(
    lambda t: st.integers(int(np.iinfo(t).min), int(np.iinfo(t).max)).map(t))
VALUES = st.one_of(st.integers(-5, 400), st.integers(-2**80, 2**80), NUMPY_INTS, st.floats(), st.booleans(),
                   st.text(max_size=4), st.none(), st.integers(0, 400).map(float), st.integers(0, 400).map(str),
                   st.integers(0, 400).map(np.float32), st.integers(0, 400).map(lambda a: [a]))


def integer_value(v):
    """v as an int if it is one (int or numpy integer, not a bool), else None."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        return None
    return int(v)


def named(v, msg: str) -> bool:
    return repr(v)[:40] in msg or str(v)[:40] in msg or (integer_value(v) is not None and str(int(v)) in msg)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES), wrapped=st.booleans(), seed=st.integers(0, 2**32),
       episode=st.sampled_from(["round", "game"]), n=st.integers(3, 4))
def test_property_aec_any_action_value_is_played_or_refused_unchanged_and_the_record_replays(
        data, game, wrapped, seed, episode, n):
    module = game_module(game)
    env = (module.env if wrapped else module.raw_env)(num_players=n, episode=episode, max_steps=400)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(data.draw(st.integers(1, 10))):
        play_aec(env, rng, moves=data.draw(st.integers(0, 30)))
        raw = env.unwrapped
        if not raw.agents:
            break
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            env.step(None)                       # PettingZoo's step of a finished agent
            continue
        legal = legal_actions(env)
        value = data.draw(st.sampled_from(legal) if data.draw(st.booleans()) else VALUES)
        a = integer_value(value)
        before, played = aec_view(env), len(raw.game_record()["actions"])
        if a is not None and a in legal:
            event("played")
            env.step(value)
            assert raw.game_record()["actions"][played:] == [a]
        elif wrapped and a is not None and 0 <= a < raw.game.num_actions:
            event("illegal: the wrapper ends the game")
            env.step(value)                      # PettingZoo's TerminateIllegalWrapper: the mover loses
            assert all(raw.terminations.values()) and len(raw.game_record()["actions"]) == played
        else:
            event("refused")
            with pytest.raises(AssertionError if wrapped else ValueError) as err:
                env.step(value)
            assert aec_view(env) == before and named(value, str(err.value)), str(err.value)
    play_aec(env, rng)
    replays(env.unwrapped.game_record())


@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES), seed=st.integers(0, 2**32))
def test_property_gym_env_any_action_value_is_played_or_refused_unchanged(data, game, seed):
    """The env fed random values plays exactly what a twin fed only the legal ones plays."""
    env, twin = (GameEnv(game, num_players=3, episode="round", max_steps=300) for _ in range(2))
    for e in (env, twin):
        e.reset(seed=seed)
    for _ in range(data.draw(st.integers(5, 40))):
        legal = np.flatnonzero(env.action_masks())
        value = data.draw(st.sampled_from(legal) if data.draw(st.booleans()) else VALUES)
        a = integer_value(value)
        if a is not None and a in legal:
            result = env.step(value)
            assert plain(result) == plain(twin.step(a))
            if result[2] or result[3]:
                assert plain(env.reset()) == plain(twin.reset())
        else:
            before = core_view(env.core)
            with pytest.raises(ValueError) as err:
                env.step(value)
            assert core_view(env.core) == before and named(value, str(err.value)), str(err.value)
        assert public_view(env.core) == public_view(twin.core)
