"""One seat of a JAX game as a single-agent environment in gymnax's style, for PureJaxRL-style learners: the
learner plays one seat, the other seats are played by a given policy inside the same jitted program, and every
reward of the learner's seat (those of the other seats' moves included) reaches it at its next step."""
import jax
import jax.numpy as jnp
import pgx.core


def random_legal(key, observation, mask):
    """An opponent policy: a uniformly random legal action."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))


@pgx.core.dataclass
class SeatState:
    """The game (the learner's seat to move, unless the game ended before its first decision) and the learner's
    seat in it, with the rewards that seat received before its first decision (returned at its first step)."""

    game: pgx.core.State
    seat: jax.Array
    pending: jax.Array

    @property
    def legal_action_mask(self):
        """The learner's legal actions now."""
        return self.game.legal_action_mask


class SingleSeat:
    """`env` (a quando_env.jax env) from one seat: `reset(key) -> (obs, state)` and `step(key, state, action) ->
    (obs, state, reward, done, info)`, as gymnax's envs (an optional `params` is accepted and ignored, so
    PureJaxRL's wrappers call them as they are), one game: vmap them for a batch. `obs` is the learner's
    observation and `state.legal_action_mask` (after a step also `info["legal_action_mask"]`) its legal actions
    there. `reward` is everything the learner's seat received since its last decision; `done` ends the episode
    (terminated or truncated, `info["truncated"]` telling which), and the step then already returns the first
    observation of a new game (auto-reset; a game that ends before the learner's first decision, which Help!'s
    failed first help can do, is over at once: the learner's next step, whatever its action, returns that game's
    rewards with `done`). `opponent(key, observation, mask) -> action` plays every other seat from
    its own observation (default: random legal moves); `seat` is the learner's (default: drawn anew each game)."""

    def __init__(self, env, opponent=random_legal, seat: int | None = None):
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < env.num_players):
            raise ValueError(f"seat={seat!r} is not allowed: a seat 0..{env.num_players - 1}, or None to draw one "
                             "each game")
        self.env, self.opponent, self.seat = env, opponent, seat

    @property
    def num_actions(self) -> int:
        return self.env.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self.env.observation_shape

    def reset(self, key, params=None):
        k1, k2, k3 = jax.random.split(key, 3)
        seat = jnp.int32(self.seat) if self.seat is not None else jax.random.randint(k2, (), 0, self.env.num_players)
        game, pending = self._others(k3, self.env.init(k1), seat)
        return self.env.observe_seat(game, seat), SeatState(game=game, seat=seat, pending=pending)

    def step(self, key, state, action, params=None):
        k1, k2, k3 = jax.random.split(key, 3)
        game = self.env.step(state.game, action, k1)
        game, reward = self._others(k2, game, state.seat)
        reward = reward + state.pending
        done = game.terminated | game.truncated
        fresh_obs, fresh = self.reset(k3)
        obs = jnp.where(done, fresh_obs, self.env.observe_seat(game, state.seat))
        going = SeatState(game=game, seat=state.seat, pending=jnp.float32(0))
        new = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), fresh, going)
        info = {"legal_action_mask": new.legal_action_mask, "truncated": game.truncated}
        return obs, new, reward, done, info

    def _others(self, key, game, seat):
        """The other seats' decisions until the learner's seat decides or the game is over, and the learner's
        rewards over them (its own last step's included: `game.rewards` on entry)."""
        def go(carry):
            _, game, _ = carry
            return ~(game.terminated | game.truncated) & (game.current_player != seat)

        def one(carry):
            key, game, total = carry
            key, k1, k2 = jax.random.split(key, 3)
            game = self.env.step(game, self.opponent(k1, game.observation, game.legal_action_mask), k2)
            return key, game, total + game.rewards[seat]
        _, game, total = jax.lax.while_loop(go, one, (key, game, game.rewards[seat]))
        return game, total
