"""Shared pieces of the JAX engines' tests: one compilation cache per test session, and the decision-by-decision
comparison of a vmapped JAX env with the numba engine (VectorGame) from the same deals, every seat's observation
included (a hidden card shown to a seat that has not seen it differs from the numba engine's view)."""
import jax
import jax.numpy as jnp
import numpy as np
import pgx


def use_compilation_cache(request) -> None:
    """Keep jitted programs in pytest's cache between test sessions (a cold session compiles each config once);
    with pytest's cache off (`-p no:cacheprovider`, a read-only checkout), in the session's temporary folder."""
    cache = getattr(request.config, "cache", None)
    path = cache.mkdir("jax-compilation") if cache is not None else \
        request.getfixturevalue("tmp_path_factory").getbasetemp() / "jax-compilation"
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


class Pair:
    """A JAX env vmapped over `num_games` games beside a numba VectorGame of the same config, started from the
    same deals (`options`: per-game arrays of the AEC env's reset options), stepped with the same actions. Each
    jitted init and step also returns every seat's observation (`seats`: num_games, num_players, obs_dim)."""

    def __init__(self, env, game, options: dict, seed: int = 0, numba_options=None):
        self.env, self.game = env, game
        b = game.num_games

        def with_seats(state):
            return state, env.observe_seats(state)
        init = jax.jit(jax.vmap(lambda k, o: with_seats(env.init(k, options=o))))
        self.step_fn = jax.jit(jax.vmap(lambda s, a, k: with_seats(env.step(s, a, k))))
        self.state, self.seats = init(jax.random.split(jax.random.PRNGKey(seed), b),
                                      {k: jnp.asarray(v) for k, v in options.items()})
        for g in range(b):      # numba_options(g): game g's reset options where they are written otherwise
            game.reset(games=[g], **(numba_options(g) if numba_options else
                                     {k: np.asarray(v[g]).tolist() for k, v in options.items()}))
        self.live = np.ones(b, bool)
        self.truncated = np.zeros(b, bool)      # games that ended by max_steps
        self.movers = game.current_player.copy()    # who made the last decision, per game
        self.key = jax.random.PRNGKey(seed + 1)

    def step(self, actions, sync=None, after=None):
        """One decision in every live game; `sync(pair, before)` may tell the numba engine what the JAX one drew at
        random in this step (a reshuffle) before it steps, `after(pair, before)` what it drew after (a new round's
        deal, given to the numba engine's `redeal`)."""
        before = self.state
        self.key, sub = jax.random.split(self.key)
        self.state, self.seats = self.step_fn(before, jnp.asarray(np.maximum(actions, 0)),
                                              jax.random.split(sub, self.game.num_games))
        if sync is not None:
            sync(self, before)
        self.movers = self.game.current_player.copy()
        rewards = self.game.step(actions)
        if after is not None:
            after(self, before)
        return rewards

    def check(self, rewards, where: str) -> None:
        """Rewards, termination and truncation equal in the games live before this decision; in those, the player
        to move, the legal mask, the observation of the player to move and of every seat equal too, the games
        that just ended included: there (Pgx's end) the JAX current_player is the seat that made the last
        decision, its observation that seat's view of the final table, and its legal mask all True."""
        s, g, live = self.state, self.game, self.live
        assert_rows(np.asarray(s.rewards), rewards, live, f"rewards {where}")
        assert_rows(np.asarray(s.terminated), g.game_over, live, f"terminated {where}")
        assert_rows(np.asarray(s.truncated), g.truncated, live, f"truncated {where}")
        self.truncated |= live & g.truncated
        self.live = live & ~g.game_over & ~g.truncated
        ended = live & ~self.live
        player = np.where(ended, self.movers, g.current_player)
        assert_rows(np.asarray(s.current_player), player, live, f"player to move {where}")
        assert_rows(np.asarray(s.legal_action_mask), g.legal_action_mask | ended[:, None], live, f"legal mask {where}")
        assert_rows(np.asarray(s.observation), g.observe(players=np.maximum(player, 0)), live,
                    f"observation {where}", g.observation_layout)
        seats = np.asarray(self.seats)
        for p in range(g.num_players):
            assert_rows(seats[:, p], g.observe(players=p), live, f"seat {p}'s observation {where}",
                        g.observation_layout)

    def play(self, sync=None, policy=None, after=None, max_decisions: int = 100_000) -> int:
        """Play until every game ended: random legal moves (the numba engine's sample_actions), or `policy(game)`'s
        actions. Returns the decisions taken."""
        self.check(np.zeros((self.game.num_games, self.game.num_players), np.float32), "after init")
        done = 0
        for t in range(max_decisions):
            if not self.live.any():
                return done
            done += int(self.live.sum())
            actions = self.game.sample_actions() if policy is None else policy(self.game)
            self.check(self.step(actions, sync, after), f"after decision {t + 1}")
        raise AssertionError(f"games still going after {max_decisions} decisions")

    def new_rounds(self, before) -> np.ndarray:
        """The games in which this step dealt a new round (the episode going on)."""
        s = self.state
        return np.flatnonzero((np.asarray(s._round) > np.asarray(before._round)) & ~np.asarray(s.terminated))


def assert_rows(jax_rows, numba_rows, live, what: str, layout=None) -> None:
    """Equal rows where `live`; the first differing game named, with the differing parts of a layout."""
    a, b = np.asarray(jax_rows), np.asarray(numba_rows)
    diff = (a != b).reshape(a.shape[0], -1).any(axis=1) & live
    if diff.any():
        g = int(np.flatnonzero(diff)[0])
        detail = ""
        if layout is not None:
            parts = [name for name, (lo, hi) in layout.items() if (a[g, lo:hi] != b[g, lo:hi]).any()]
            detail = f" in parts {parts}"
        raise AssertionError(f"{what}: game {g} differs{detail}: jax {a[g].ravel()[:40]} numba {b[g].ravel()[:40]}")


def check_pgx_conventions(env, game_class, name: str) -> None:
    """`env` (3 players) is a pgx.Env whose state is a pgx.State with Pgx's fields, shaped as the numba engine's."""
    assert isinstance(env, pgx.Env) and env.id == name and env.num_players == 3
    assert env.num_actions == game_class.num_actions and env.observation_shape == (game_class.obs_dim_of(3),)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    assert isinstance(state, pgx.State) and state.env_id == name and state.rewards.shape == (3,)
    assert state.observation.shape == env.observation_shape and state.legal_action_mask.any()
    assert not state.terminated and int(state.current_player) in range(3)
