"""LearnerGames: a batch of games (any game of quando_env) played by one learner seat against opponents.

The one driver under the three training adapters (gym_env.GameEnv, gym_vector_env.GameVectorEnv and
sb3_vec_env.GameVecEnv). Each game waits at a decision of the learner's seat: `step` applies the learner's
actions, then plays the other seats (one batched opponent call per decision and opponent, for all games
waiting on it) until every game is back at a learner decision or its episode ended. The learner's rewards
of all those moves are summed into the step's reward, so the learner never sees an opponent's decision.

Game i of a batch seeded s plays exactly what a batch of one seeded s + i plays: the deal, the random
opponents' moves, the learner's seat and the opponents drawn from a pool all come from per-game streams.
"""
from contextlib import contextmanager

import numpy as np

from .. import rng
from ..checks import as_actions, as_int, need, seed_list, shown
from ..core import MAX_GAMES
from .atomic import ENGINE, Snapshot, all_or_nothing
from .opponents import RANDOM, checked_actions, resolve

SEATS = "random"
ILLEGAL = ("raise", "random")
_MAX_RESTARTS = 1000


def integer_actions(actions, k: int, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """k actions from integers only (ints or numpy integers of any width, in a list or an integer array: what
    SB3 and Gymnasium pass; never bools, floats or strings), as (given, a): the values as given (for
    messages) and an int64 array in which values outside 0..num_actions-1 are -1 (illegal). ValueError
    naming the actions otherwise."""
    given = as_actions(actions, k)
    if given is None:     # (the message only when refusing: this runs on every step)
        need(False, f"actions={shown(actions)}", f"{k} integers 0..{num_actions - 1} (one per game)")
    inside = ((given >= 0) & (given < num_actions)).astype(bool)
    a = np.full(k, -1, np.int64)
    a[inside] = given[inside]
    return given, a


class LearnerGames:
    """`num_games` games of `game_class` in which the learner plays `seat` (a seat, or "random": drawn per
    episode) and the other seats are played by `opponents` (see opponents.py). rules: the game's config.

    illegal_action: "raise" (a ValueError naming the legal actions, nothing applied) or "random" (replaced
    by a uniformly random legal action from the game's stream; `replaced` tells which games).
    A bad `num_games` is refused as num_envs, the name the training envs give it.
    """

    def __init__(self, game_class, num_games: int = 1, opponents="random", seat="random",
                 illegal_action: str = "raise", seed: int | None = None, **rules):
        num_games = as_int(num_games, "num_envs", 1, MAX_GAMES)
        self.game = game_class(num_games, seed=0, autoreset=False, **rules)
        self.config = self.game.config
        self.num_games = b = self.game.num_games
        self.num_players = n = self.game.num_players
        self.obs_dim = self.game.obs_dim
        self.observation_layout = self.game.observation_layout
        self.num_actions = self.game.num_actions
        if not (seat == SEATS or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
                                  and 0 <= seat < n)):
            raise ValueError(f"seat={seat!r} is not allowed: a seat 0..{n - 1} or {SEATS!r} (drawn per episode)")
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action={illegal_action!r} is not allowed: choose one of {ILLEGAL}")
        self.seat_rule = seat
        self.rules = rules
        self.illegal_action = illegal_action
        self.seat = np.zeros(b, np.int64)                # the learner's seat in each game's episode
        self.terminated = np.zeros(b, bool)              # the episode ended by the rules ...
        self.truncated = np.zeros(b, bool)               # ... or by max_steps (D6), since its reset
        self.replaced = np.zeros(b, bool)                # the last step's learner action was illegal, replaced
        self.pending = np.zeros(b, np.float64)           # learner reward not yet handed out
        self._rng = np.zeros(b, np.uint64)               # per-game stream for seats and pool draws
        self._opp = np.full((b, n), -1, np.int64)        # registry id of the opponent in each seat
        self._auto = np.zeros((b, n), bool)              # seats played by "random" (inside the engine)
        self._registry: dict[int, object] = {}         # opponent objects by id (ids are never reused)
        self._next_id = 0
        self._pool = np.zeros(0, np.int64)
        self._guarded = False                            # inside all_or_nothing()
        self.set_opponents(opponents)
        self.reset(seed=rng.new_seed() if seed is None else seed)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents) -> None:
        """Replace the opponent pool; episodes under way keep their opponents, the next ones draw from it."""
        pool = resolve(opponents, self.game, self.rules)
        ids = []
        for x in pool:
            k = next((k for k, v in self._registry.items() if v is x), None)
            if k is None:
                k = self._next_id
                self._next_id += 1
                self._registry[k] = x
            ids.append(k)
        self._pool = np.array(ids, np.int64)
        self._random_id = next((k for k, v in self._registry.items() if v is RANDOM), -2)
        self._prune()

    @property
    def opponents(self) -> list:
        return [self._registry[k] for k in self._pool]

    def _prune(self) -> None:
        keep = set(self._pool.tolist()) | set(np.unique(self._opp).tolist())
        for k in [k for k in self._registry if k not in keep]:
            del self._registry[k]

    def _draw_seats(self, idx: np.ndarray) -> None:
        """A new episode's learner seat and opponents, from each game's own stream (n + 1 draws each)."""
        n = self.num_players
        streams = self._rng[idx]
        seat = rng.draw_below(streams, n)
        if self.seat_rule != SEATS:
            seat[:] = self.seat_rule
        opp = self._pool[np.stack([rng.draw_below(streams, self._pool.size) for _ in range(n)], axis=1)]
        self._rng[idx] = streams
        opp[np.arange(idx.size), seat] = -1
        self.seat[idx] = seat
        self._opp[idx] = opp
        self._auto[idx] = opp == self._random_id
        if len(self._registry) > self._pool.size:
            self._prune()

    def _agent_actions(self, games: np.ndarray) -> np.ndarray:
        """One batched act() per opponent object, for all listed games where it is to move."""
        who = self._opp[games, self.game.current_player[games]]
        out = np.empty(games.size, np.int64)
        keys = np.unique(who)
        for k in keys:
            sel = slice(None) if keys.size == 1 else who == k
            g = games[sel]
            opp = self._registry[int(k)]
            obs, masks = self.game.observe(games=g), self.game.legal_action_mask[g]
            if getattr(opp, "uses_action_features", False):      # a move scorer: the engine's features, cheap
                actions = opp.act(obs, masks, features=self.game.action_features(games=g))
            else:
                actions = opp.act(obs, masks)
            out[sel] = checked_actions(opp, actions, g.size)
        return out

    # ------------------------------------------------------------------ all or nothing
    _ARRAYS = ("seat", "terminated", "truncated", "replaced", "pending", "_rng", "_opp", "_auto")
    _VALUES = ("_registry", "_pool", "_next_id", "_random_id")

    @contextmanager
    def all_or_nothing(self, *extra: Snapshot):
        """A block after which either everything it did to these games (and to `extra`, the caller's own
        bookkeeping) stands, or, if it raised, nothing: an opponent failing in the middle of a step leaves
        the games, their streams, seats and opponents as they were. Nested blocks are covered by the outer one."""
        if self._guarded:
            yield
            return
        self._guarded = True
        try:
            with all_or_nothing(Snapshot(self.game, ENGINE), Snapshot(self, self._ARRAYS, self._VALUES), *extra):
                yield
        finally:
            self._guarded = False

    # ------------------------------------------------------------------ episodes
    def reset(self, seed=None, games=None) -> None:
        """Start new episodes and play the opponents up to the learner's first decision (all or nothing).

        seed: an int (game i of the listed ones gets seed + i), one seed or None per listed game, or None.
        A game reset without a seed goes on with its own random streams. games: the slots (default all).
        """
        idx = self.game.slots(games)
        seeds = [None] * idx.size if seed is None else seed_list(seed, idx.tolist())
        given = np.array([x is not None for x in seeds], bool)
        with self.all_or_nothing():
            if not given.all():
                self.game.reset(games=idx[~given])
            if given.any():
                values = np.array([x for x in seeds if x is not None], np.int64)
                self.game.reset(seed=values, games=idx[given])
                self._rng[idx[given]] = rng.streams(values, rng.SALT_SEATS)
            self._start(idx)

    def _start(self, idx: np.ndarray) -> None:
        for _ in range(_MAX_RESTARTS):
            self._draw_seats(idx)
            self.pending[idx] = 0.0
            self.terminated[idx] = False
            self.truncated[idx] = False
            self.replaced[idx] = False
            self._advance(idx)
            # An episode that ended before the learner's first decision gives it nothing to learn: replay.
            idx = idx[self.game.current_player[idx] < 0]
            if idx.size == 0:
                return
            self.game.reset(games=idx)
        raise RuntimeError(f"games {idx.tolist()} ended {_MAX_RESTARTS} episodes in a row before the learner's "
                           "first decision: check max_steps and the rules options")

    def _collect(self, rewards: np.ndarray, games: np.ndarray) -> None:
        """The learner's share of the listed games' rewards and episode ends (from the last engine call)."""
        self.pending[games] += rewards[np.arange(games.size), self.seat[games]]
        self.terminated[games] |= self.game.game_over[games]
        self.truncated[games] |= self.game.truncated[games]

    def _advance(self, games: np.ndarray) -> None:
        """Play the opponents until each listed game waits for the learner or its episode ended: the
        "random" seats inside the engine (VectorGame.play_random), the others by batched act() calls."""
        while games.size:
            if self._auto.any():
                self._collect(self.game.play_random(games, self._auto), games)
            cur = self.game.current_player[games]
            games = games[(cur >= 0) & (cur != self.seat[games])]
            if games.size == 0:
                return
            actions = self._agent_actions(games)
            try:
                rewards = self.game.step(actions, games=games)
            except ValueError as e:
                raise ValueError(f"an opponent chose an illegal action: {e}") from None
            self._collect(rewards, games)

    def step(self, actions, games=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learner's actions (integers) in the listed games (default all), then the opponents' moves up to
        its next decisions: all of it, or (a refused action, an opponent failing) nothing. Returns the
        learner's (rewards, terminated, truncated) of those games. Games whose episode is over ignore their
        action and report their end again, with no reward."""
        idx, a, bad = self.checked_actions(actions, games)
        with self.all_or_nothing():
            self.replaced[idx] = bad
            if bad.any():
                a[bad] = self.game.sample_actions(games=idx[bad])
            self._collect(self.game.step(a, games=idx), idx)
            self._advance(idx)
        rewards = self.pending[idx]
        self.pending[idx] = 0.0
        return rewards, self.terminated[idx], self.truncated[idx]

    def checked_actions(self, actions, games=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What step checks before it changes anything: (slots, int64 actions, which are illegal), or the
        ValueError step raises (a non-integer, an action outside the action space, or with illegal_action="raise"
        an illegal action)."""
        idx = self.game.slots(games)
        given, a = integer_actions(actions, idx.size, self.num_actions)
        live = self.game.current_player[idx] >= 0
        ok = a >= 0
        ok[ok] = self.game.legal_action_mask[idx[ok], a[ok]]
        bad = live & ~ok
        refused = bad if self.illegal_action == "raise" else bad & (a < 0)     # outside the space: never replaced
        if refused.any():
            i = int(np.flatnonzero(refused)[0])
            raise ValueError(self.game.illegal_message(int(idx[i]), int(given[i]), with_game=self.num_games > 1)
                             + ('; make the env with illegal_action="random" to have a random legal action played '
                                "instead (for tools that draw actions without the mask, such as Gymnasium's "
                                "check_env)" if self.illegal_action == "raise" else ""))
        return idx, a, bad

    # ------------------------------------------------------------------ views
    def observe(self, games=None) -> np.ndarray:
        """(k, obs_dim) float32: each listed game from its learner's seat (default all games)."""
        if games is None:
            return self.game.observe(players=self.seat)
        idx = self.game.slots(games)
        return self.game.observe(players=self.seat[idx], games=idx)

    def action_features(self, games=None) -> np.ndarray:
        """(k, num_actions, F) float32: the learner's legal-move features in each listed game (it is to move in
        every live one; zero where the episode is over), see VectorGame.action_features."""
        return self.game.action_features(games)

    def action_masks(self, games=None) -> np.ndarray:
        """(k, num_actions) bool: the learner's legal actions (all False where the episode is over)."""
        m = self.game.legal_action_mask
        return m.copy() if games is None else m[self.game.slots(games)]

    def info_arrays(self, games=None) -> dict[str, np.ndarray]:
        """The learner's facts per listed game, as the AEC env's infos (the game's info_arrays at the
        learner's seat: score, round_points, rounds_done, the game's own), plus seat and `replaced`."""
        idx = self.game.slots(games)
        seat = self.seat[idx]
        rows = np.arange(idx.size)
        out = {"seat": seat}
        for key, v in self.game.info_arrays(idx).items():
            out[key] = v[rows, seat]
        out["replaced"] = self.replaced[idx]
        return out
