"""The JAX engines as Pgx environments: Pgx's own API test passes on every game (shimmed only where Pgx's test fails
on Pgx's own games), an illegal action ends the episode as Pgx's step has it, `state.save_svg` draws the table the
numba engine draws from the same state, and concrete JAX scalars are options like Python ints."""
import importlib
import xml.etree.ElementTree as ET
from typing import Literal, get_args

import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from quando_env import jax as qjax
from quando_env.registry import game_class
from quando_env.svg import svg

from jax_checks import use_compilation_cache

pgx_api_test = importlib.import_module("pgx._src.api_test")
CONFIG = dict(num_players=3, episode="round")


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


@pytest.fixture
def pgx_shims(monkeypatch):
    """The two places where Pgx's api_test fails on any env but its own listed ones, Pgx's own faults: (1)
    `_validate_state` asserts `state.env_id` is in Pgx's closed list of ids (`pgx.core.EnvId`), so an env of
    another package can never pass: the list gets our three ids added; (2) `api_test_single` calls
    `act_randomly` (pgx.experimental.utils), which samples along axis 1, with one game's unbatched mask (an
    IndexError for Pgx's own tic_tac_toe): a single mask gets a batch axis of one. Nothing else is changed."""
    monkeypatch.setattr(pgx_api_test, "EnvId", Literal[get_args(pgx.EnvId) + tuple(qjax.games())])
    batched = pgx_api_test.act_randomly
    monkeypatch.setattr(pgx_api_test, "act_randomly",
                        lambda rng, mask: batched(rng, mask[None])[0] if mask.ndim == 1 else batched(rng, mask))


def test_the_shims_only_mend_pgx_for_its_own_games(pgx_shims):
    pgx_api_test.api_test(pgx.make("tic_tac_toe"), num=2)


@pytest.mark.parametrize("name", list(qjax.games()))
def test_pgx_api_test_passes(name, pgx_shims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pgx_api_test.api_test(qjax.make(name, **CONFIG), num=2)


def play(name, seed: int, decisions: int | None = None):
    """The JAX env and the numba engine from the numba engine's deal, stepped with its random legal actions:
    yields (JAX state, numba game) after init and after each decision, `decisions` of them or to the end."""
    env = qjax.make(name, **CONFIG)
    game = game_class(name)(num_games=1, seed=seed, autoreset=False, **CONFIG)
    state = jax.jit(lambda k: env.init(k, options=game.round_setup(0)))(jax.random.PRNGKey(seed))
    step = jax.jit(env.step)
    yield state, game
    t = 0
    while not game.game_over[0] and t != decisions:
        action = game.sample_actions()
        state = step(state, jnp.int32(action[0]), jax.random.PRNGKey(t))
        game.step(action)
        t += 1
        yield state, game


@pytest.mark.parametrize("name", list(qjax.games()))
def test_an_illegal_action_ends_the_episode_as_pgx_has_it(name):
    """Not played (the table as it was), terminated, Pgx's penalty (-1 to the mover, n-1 to each other seat), the
    mover still current_player and seeing the table over, any action legal; a further step changes nothing."""
    *_, (state, _) = play(name, seed=1, decisions=3)
    env = qjax.make(name, **CONFIG)
    mover = int(state.current_player)
    action = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    after = jax.jit(env.step)(state, action, jax.random.PRNGKey(0))
    assert bool(after.terminated) and not bool(after.truncated)
    np.testing.assert_array_equal(after.rewards, np.where(np.arange(3) == mover, -1.0, 2.0))
    assert int(after.current_player) == mover and np.asarray(after.legal_action_mask).all()
    assert int(after._phase) == env.over_phase
    for field in ("_loc", "_hand", "_slot", "_seen", "_total"):
        if hasattr(state, field):
            np.testing.assert_array_equal(getattr(after, field), getattr(state, field), err_msg=field)
    np.testing.assert_array_equal(after.observation, env.observe_seat(after, mover))
    again = jax.jit(env.step)(after, 0, jax.random.PRNGKey(1))
    assert not np.asarray(again.rewards).any() and int(again._step_count) == int(after._step_count)


@pytest.mark.parametrize("name", list(qjax.games()))
def test_save_svg_draws_the_table_the_numba_engine_draws(name, tmp_path):
    """The omniscient picture of the same table, every 8th decision and at the end; a batch is drawn game after
    game; save_svg writes it as an SVG file."""
    for t, (state, game) in enumerate(play(name, seed=2)):
        if t % 8 == 0 or game.game_over[0]:
            assert state.to_svg() == svg(game.table_view(0)), f"decision {t}"
    assert game.game_over[0] and bool(state.terminated)
    state.save_svg(tmp_path / "one.svg")
    batch = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), state)
    batch.save_svg(tmp_path / "two.svg")
    for path, tables in (("one.svg", 1), ("two.svg", 2)):
        root = ET.parse(tmp_path / path).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert len(root.findall(".//{http://www.w3.org/2000/svg}title")) == tables
    assert batch._repr_html_() == (tmp_path / "two.svg").read_text()


def test_concrete_jax_scalars_are_options_and_bad_ones_are_refused():
    env = qjax.make("quando", num_players=jnp.int32(3), episode="round")
    assert env.num_players == 3 and type(env.config.num_players) is int
    for dealer in (jnp.int32(2), jnp.asarray(1), np.int64(0)):
        state = env.init(jax.random.PRNGKey(0), options={"dealer": dealer})
        assert int(state._dealer) == int(dealer) and int(state.current_player) == (int(dealer) + 1) % 3
    for call, message in [(lambda: qjax.make("quando", num_players=jnp.int32(9)), "num_players=9 is not allowed"),
                          (lambda: qjax.make("cabo", num_players=jnp.float32(3)), "num_players=3.0 is not allowed"),
                          (lambda: env.init(jax.random.PRNGKey(0), options={"dealer": jnp.int32(3)}),
                           "dealer=3 is not allowed"),
                          (lambda: env.init(jax.random.PRNGKey(0), options={"dealer": jnp.arange(2)}), "dealer=")]:
        with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
            call()


def test_the_pgx_base_keeps_its_former_name():
    from quando_env.jax.env import GameEnv, PgxGameEnv

    assert GameEnv is PgxGameEnv and isinstance(qjax.make("cabo"), GameEnv)
