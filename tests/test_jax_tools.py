"""Other projects' JAX tools on the games with quando_env.jax's pieces: mctx's Gumbel MuZero search over `env.step`
(quando_env.jax.search: the value's sign following the side to move, the root seat against the rest), and one seat
as a gymnax-style environment (quando_env.jax.single_seat) inside a jitted, masked policy-gradient loop; and the
one line that says how to install the jax extra when it is missing."""
import subprocess
import sys

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from quando_env import jax as qjax
from quando_env.jax import search
from quando_env.jax.single_seat import SingleSeat, random_legal

from jax_checks import use_compilation_cache


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


@pytest.mark.parametrize("name, players", [("quando", 2), ("cabo", 2), ("help", 4)])
def test_gumbel_muzero_searches_every_game_over_env_step(name, players):
    env = qjax.make(name, num_players=players, episode="round")
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 4))

    @jax.jit
    def policy(key, state):
        return mctx.gumbel_muzero_policy(None, key, search.root(state), search.recurrent_fn(env), num_simulations=8,
                                         invalid_actions=~state.legal_action_mask)
    out = policy(jax.random.PRNGKey(1), state)
    mask, weights = np.asarray(state.legal_action_mask), np.asarray(out.action_weights)
    assert mask[np.arange(4), np.asarray(out.action)].all()
    assert (weights[~mask] == 0).all() and np.allclose(weights.sum(axis=1), 1)
    assert int(out.search_tree.num_simulations) == 8


def test_the_search_scores_the_root_seat_against_the_rest_with_the_sign_of_the_side_to_move():
    """Quando, 3 players, random play, root seat 0 and an evaluation in which seat 0 expects 6 and the others 3
    each (seat 0's side scores 3): each transition's discount is +1 between two decisions of one side (seat 0
    twice, or two other seats), -1 between sides, 0 at the end; the value 3 where seat 0 moves and -3 where another
    does; the reward seat 0's minus the others' mean, seen from the mover's side."""
    env = qjax.make("quando", num_players=3, episode="round", hand_size=3)

    def evaluate(params, state):
        return jnp.zeros(state.legal_action_mask.shape), jnp.broadcast_to(jnp.float32([6, 3, 3]),
                                                                           state.rewards.shape)
    fn = jax.jit(search.recurrent_fn(env, evaluate))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 16))
    seat = jnp.zeros(16, jnp.int32)
    root = search.root(state, evaluate)
    np.testing.assert_array_equal(root.value, 3.0)
    kinds, key = set(), jax.random.PRNGKey(1)
    for _ in range(400):
        key, k1, k2 = jax.random.split(key, 3)
        action = jax.vmap(random_legal, (0, None, 0))(jax.random.split(k1, 16), None, state.legal_action_mask)
        out, (after, _) = fn(None, k2, action, (state, seat))
        live = ~np.asarray(state.terminated)
        before_side = np.where(np.asarray(state.current_player) == 0, 1.0, -1.0)
        after_side = np.where(np.asarray(after.current_player) == 0, 1.0, -1.0)
        over = np.asarray(after.terminated | after.truncated)
        r = np.asarray(after.rewards)
        np.testing.assert_array_equal(np.asarray(out.discount)[live], np.where(over, 0, before_side * after_side)[live])
        np.testing.assert_array_equal(np.asarray(out.value)[live], np.where(over, 0, 3 * after_side)[live])
        np.testing.assert_allclose(np.asarray(out.reward)[live],
                                   (before_side * (r[:, 0] - r[:, 1:].mean(axis=1)))[live], rtol=1e-6)
        kinds |= {(d, b) for d, b in zip(np.asarray(out.discount)[live], before_side[live])}
        state = after
        if over.all():
            break
    assert over.all() and {(1, 1), (1, -1), (-1, 1), (-1, -1), (0, 1), (0, -1)} <= kinds


def test_one_seat_learns_in_a_jitted_masked_loop_with_rewards_and_auto_reset():
    """Cabo's rounds won or lost (reward "win"), the learner's seat drawn each round, the others random: a masked
    linear softmax policy samples from the mask it is given, steps 8 games 48 times and takes a policy-gradient
    step, twice, in one jitted program. The mask given is the game's for the learner, who is always the seat to
    move (its own observation given); every finished round pays the learner +-1 at its step whoever ended it, and
    a new round follows at once."""
    env = qjax.make("cabo", num_players=3, episode="round", reward="win")
    view = SingleSeat(env)
    games, steps = 8, 48
    reset, step = jax.vmap(view.reset), jax.vmap(view.step)

    def logits(w, obs, mask):
        return jnp.where(mask, obs @ w, -jnp.inf)

    @jax.jit
    def update(w, key):
        obs, state = reset(jax.random.split(key, games))

        def one(carry, key):
            obs, state = carry
            k1, k2 = jax.random.split(key)
            mask = state.legal_action_mask
            action = jax.random.categorical(k1, logits(w, obs, mask))
            nxt_obs, nxt, reward, done, info = step(jax.random.split(k2, games), state, action)
            game = state.game
            seen = dict(obs=obs, mask=mask, action=action, reward=reward, done=done,
                        own=(game.current_player == state.seat) & (obs == jax.vmap(env.observe_seat)(game, state.seat))
                        .all(axis=1), game_mask=(mask == game.legal_action_mask).all(axis=1),
                        info_mask=(info["legal_action_mask"] == nxt.legal_action_mask).all(axis=1),
                        fresh=nxt.game._step_count, over=nxt.game.terminated | nxt.game.truncated)
            return (nxt_obs, nxt), seen
        _, seen = jax.lax.scan(one, (obs, state), jax.random.split(key, steps))

        def loss(w):
            logp = jax.nn.log_softmax(logits(w, seen["obs"], seen["mask"]))
            taken = jnp.take_along_axis(logp, seen["action"][..., None], axis=-1)[..., 0]
            to_go = jax.lax.scan(lambda g, x: ((x[0] + g * ~x[1]),) * 2, jnp.zeros(games),
                                 (seen["reward"], seen["done"]), reverse=True)[1]
            return -(taken * to_go).mean()
        return w - 0.1 * jax.grad(loss)(w), seen
    w = jnp.zeros(env.observation_shape + (env.num_actions,))
    w1, seen = update(w, jax.random.PRNGKey(0))
    w2, _ = update(w1, jax.random.PRNGKey(1))
    seen = jax.device_get(seen)
    assert seen["own"].all() and seen["game_mask"].all() and seen["info_mask"].all()
    assert np.take_along_axis(seen["mask"], seen["action"][..., None], axis=-1).all()
    done, reward = seen["done"], seen["reward"]
    assert done.sum() >= games and set(np.unique(reward[done])) == {-1.0, 1.0} and (reward[~done] == 0).all()
    assert not seen["over"].any() and (seen["fresh"][done] < seen["fresh"].max()).all()
    assert np.isfinite(np.asarray(w2)).all() and not np.allclose(w1, w) and not np.allclose(w2, w1)


def test_single_seat_refuses_a_seat_outside_the_game():
    with pytest.raises(ValueError, match=r"^seat=3 is not allowed: a seat 0\.\.2, or None"):
        SingleSeat(qjax.make("cabo", num_players=3), seat=3)


@pytest.mark.parametrize("module, missing", [("quando_env.jax", "jax"), ("quando_env.jax", "pgx"),
                                             ("quando_env.jax.search", "mctx")])
def test_a_missing_jax_extra_is_one_line_naming_the_install_from_the_clone(module, missing):
    code = f"import sys; sys.modules[{missing!r}] = None\ntry:\n    import {module}\nexcept ImportError as e:\n" \
           "    print(type(e).__name__, e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"MissingExtra {module} needs {missing}, which the jax extra installs: "
                                "pip install -c constraints.txt -e \".[jax]\" (in the clone's root folder)"]
