"""What mctx's search (Gumbel MuZero, MuZero) needs to search over a game's own `env.step`: the root and the
`recurrent_fn`, batched. mctx searches a two-player zero-sum game whose value changes sign at each change of
player; in these games a seat often decides several times in a row, and Help! (and Quando or Cabo with more than
two players) has 3 to 6 seats. So the search is two-sided: the seat to move at the root against the rest. A
node's score is the root seat's reward (or value) minus the mean of the other seats', its sign following the side
to move: + where the root seat moves, - where another seat does, the discount +1 between two decisions of one side
and -1 between sides (0 once over). With two players this is exactly "the value's sign follows the player".

The search steps the true state: it sees every hidden card (a perfect-information search), unless the states it
is given are determinized (hidden cards sampled from what the seat has seen). A step that draws at random (a
reshuffle, a new round's deal) is drawn once per node, from the search's key."""
import jax
import jax.numpy as jnp

from ..extras import needs

with needs("jax", "quando_env.jax.search"):
    import mctx


def uniform(params, state):
    """An evaluation with no network: equal prior logits, and every seat's value 0 (the search then rests on the
    rewards it reaches)."""
    batch = state.rewards.shape
    return jnp.zeros(state.legal_action_mask.shape, jnp.float32), jnp.zeros(batch, jnp.float32)


def two_sided(values, seat):
    """(B,) seat's value (B, n) minus the mean of the other seats': the root seat's side against the rest."""
    n = values.shape[-1]
    mine = jnp.take_along_axis(values, seat[:, None], axis=1)[:, 0]
    return mine - (values.sum(axis=-1) - mine) / (n - 1)


def root(state, evaluate=uniform, params=None):
    """mctx's RootFnOutput for a batch of states (the seat to move there is the root seat of each).
    `evaluate(params, state) -> (prior_logits (B, num_actions), values (B, num_players))`: each seat's value, the
    rewards it expects from here on (a network with one value head, for the player to move, gives it at that
    seat and zeros elsewhere)."""
    logits, values = _evaluated(evaluate, params, state)
    seat = state.current_player
    return mctx.RootFnOutput(prior_logits=logits, value=two_sided(values, seat), embedding=(state, seat))


def recurrent_fn(env, evaluate=uniform):
    """mctx's recurrent_fn(params, key, action, embedding) over `env.step` (batched), scoring for each search's
    root seat against the rest."""
    step = jax.vmap(env.step)

    def fn(params, key, action, embedding):
        state, seat = embedding
        after = step(state, action, jax.random.split(key, action.shape[0]))
        logits, values = _evaluated(evaluate, params, after)
        before_side, after_side = _side(state, seat), _side(after, seat)
        over = after.terminated | after.truncated
        out = mctx.RecurrentFnOutput(reward=before_side * two_sided(after.rewards, seat),
                                     discount=jnp.where(over, 0.0, before_side * after_side), prior_logits=logits,
                                     value=jnp.where(over, 0.0, after_side * two_sided(values, seat)))
        return out, (after, seat)
    return fn


def _side(state, seat):
    return jnp.where(state.current_player == seat, 1.0, -1.0)


def _evaluated(evaluate, params, state):
    """The evaluation, its illegal actions' logits at the lowest float (never searched)."""
    logits, values = evaluate(params, state)
    logits = logits - logits.max(axis=-1, keepdims=True)
    return jnp.where(state.legal_action_mask, logits, jnp.finfo(jnp.float32).min), values
