"""VectorGame: many Quando games stepped by one call, the engine every adapter wraps."""
import numpy as np

from . import engine as E
from .cards import NUM_ACTIONS, NUM_CARDS, CARD_VALUES, action_name, deck_to_cards
from .config import make_config
from .observation import encode_kernel, obs_dim, offset_vector

_SEED_MIX = 0x5851F42D4C957F2D


def _new_seed() -> int:
    return int(np.random.SeedSequence().entropy % (2**63))


class VectorGame:
    """`num_games` independent games of one configuration, stepped together.

    Game i of a batch seeded with `seed` is the game a batch of one seeded with `seed + i` plays (the
    Gymnasium/SB3 convention), so a game does not depend on the batch size or its slot. With `autoreset`
    a game whose episode ended starts a new one inside `step`; the step's flags tell what happened.
    """

    def __init__(self, num_games: int = 1, seed: int | None = None, autoreset: bool = True, **config):
        if not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games={num_games!r} is not allowed: a positive integer")
        self.config = make_config(**config)
        self.num_games = int(num_games)
        self.num_players = self.config.num_players
        self.autoreset = bool(autoreset)
        self.obs_dim = obs_dim(self.num_players)
        self._cfg = self.config.kernel_vector(self.autoreset)
        self._off = offset_vector(self.num_players)
        b = self.num_games
        self.states = np.zeros(b, E.STATE_DTYPE)
        self._masks = np.zeros((b, NUM_ACTIONS), np.uint8)
        self._rewards = np.zeros((b, self.num_players), np.float32)
        self._flags = np.zeros((b, 4), np.uint8)
        self._action_rng = np.zeros(b, np.uint64)
        self.reset(seed)

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, games=None, deck=None, dealer: int | None = None) -> None:
        """Start new games.

        seed: an int (game i gets seed + i), a sequence of per-game seeds, or None (fresh entropy when all
        games are reset, else each listed game goes on with its own random stream). games: the slots to
        reset (default all). deck: 55 [up, down] pairs, top first (R4), dealt in every listed game's first
        round. dealer: the first round's dealer (R6), default the configured one.
        """
        b = self.num_games
        idx = np.arange(b) if games is None else self._slots(games)
        if seed is None and games is None:
            seed = _new_seed()
        if seed is not None:
            if np.ndim(seed) == 0:
                seeds = int(seed) + np.arange(idx.size, dtype=np.int64) if games is None else \
                    np.full(idx.size, int(seed), np.int64)
            else:
                seeds = np.asarray(seed, np.int64).reshape(-1)
                if seeds.size != idx.size:
                    raise ValueError(f"got {seeds.size} seeds for {idx.size} games: give one seed per game")
            sub = self.states[idx]
            E.seed_states(sub, seeds.astype(np.uint64))
            self.states[idx] = sub
            self._action_rng[idx] = seeds.astype(np.uint64) ^ np.uint64(_SEED_MIX)
        n_idx = idx.size
        decks = np.zeros((n_idx, NUM_CARDS), np.int8)
        ups = np.zeros((n_idx, NUM_CARDS), np.int8)
        use = np.zeros(n_idx, np.int8)
        if deck is not None:
            ids, up = deck_to_cards(deck)
            decks[:] = ids
            ups[:] = up
            use[:] = 1
        if dealer is None:
            dealer = self.config.dealer
        if not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < self.num_players:
            raise ValueError(f"dealer={dealer!r} is not allowed: a seat 0..{self.num_players - 1}")
        dealers = np.full(n_idx, dealer, np.int8)
        E.reset_kernel(self.states, self._cfg, idx, decks, ups, use, dealers, self._masks)
        self._flags[idx] = 0

    def load_states(self, states: np.ndarray) -> None:
        """Replace every game's state by the given records (e.g. sampled worlds, or copies for rollouts)."""
        states = np.asarray(states)
        if states.dtype != E.STATE_DTYPE or states.shape != (self.num_games,):
            raise ValueError(f"states must be {self.num_games} records of engine.STATE_DTYPE, got {states.dtype} "
                             f"{states.shape}")
        self.states[:] = states
        self._flags[:] = 0
        E.mask_kernel(self.states, self._cfg, self._masks)

    # ------------------------------------------------------------------ stepping
    @property
    def legal_action_mask(self) -> np.ndarray:
        """(B, 134) bool: the legal actions of each game's player to move (all False once a game is over)."""
        return self._masks.view(bool)

    @property
    def current_player(self) -> np.ndarray:
        """(B,) seat that decides now in each game (-1 once a game is over and not reset)."""
        return self.states["cur"].astype(np.int64)

    @property
    def round_over(self) -> np.ndarray:
        """(B,) bool: the last step ended a round."""
        return self._flags[:, E.F_ROUND_OVER].astype(bool)

    @property
    def game_over(self) -> np.ndarray:
        """(B,) bool: the last step ended the episode by the rules (game, or round with episode='round')."""
        return self._flags[:, E.F_TERMINATED].astype(bool)

    @property
    def truncated(self) -> np.ndarray:
        """(B,) bool: the last step hit max_steps (D6)."""
        return self._flags[:, E.F_TRUNCATED].astype(bool)

    def step(self, actions, games=None) -> np.ndarray:
        """Apply one action per game (by its player to move); return (B, n) rewards of this step.

        Games already over (without autoreset) ignore their action. Raises ValueError for an illegal
        action, naming the game, the action and the legal ones. games: step only these slots (then
        actions[i] is for games[i], the rewards are (len(games), n) and the other games wait, their flags
        cleared).
        """
        idx = None if games is None else self._slots(games)
        k = self.num_games if idx is None else idx.size
        a = np.asarray(actions)
        if a.shape != (k,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {k} integers (one per game), got shape {a.shape} "
                             f"dtype {a.dtype}")
        a = a.astype(np.int64)
        rows = np.arange(self.num_games) if idx is None else idx
        live = self.states["phase"][rows] != E.PH_OVER
        bad = live & ((a < 0) | (a >= NUM_ACTIONS))
        if not bad.any():
            bad = live & (self._masks[rows, np.clip(a, 0, NUM_ACTIONS - 1)] == 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(self.illegal_message(int(rows[i]), int(a[i])))
        if idx is None:
            E.step_kernel(self.states, a, self._cfg, self._rewards, self._flags, self._masks)
        else:
            self._flags[:] = 0
            E.step_games_kernel(self.states, idx, a, self._cfg, self._rewards, self._flags, self._masks)
        self._check_replay_error()
        return self._rewards.copy() if idx is None else self._rewards[idx]

    def _check_replay_error(self) -> None:
        if self._flags[:, E.F_ERROR].any():
            g = int(np.flatnonzero(self._flags[:, E.F_ERROR])[0])
            raise ValueError(f"game {g}: the forced reshuffle does not hold exactly the discard pile's cards")

    def _slots(self, games) -> np.ndarray:
        idx = np.asarray(games, np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_games):
            raise ValueError(f"games={games!r}: slots must be in 0..{self.num_games - 1}")
        return idx

    def illegal_message(self, g: int, action: int) -> str:
        """Why `action` cannot be played in game g, with the legal actions by index and name."""
        legal = np.flatnonzero(self._masks[g])
        if not 0 <= action < NUM_ACTIONS:
            what = f"action {action} is out of range 0..{NUM_ACTIONS - 1}"
        else:
            what = f"action {action} ({action_name(action)}) is illegal"
        names = ", ".join(f"{x} ({action_name(x)})" for x in legal)
        return f"game {g}, player {int(self.states[g]['cur'])} to move: {what}; legal: {names or 'none (over)'}"

    def sample_actions(self, games=None) -> np.ndarray:
        """(B,) uniformly random legal actions from per-game streams (-1 where a game is over).

        games: only these slots (one action each); the other games' streams do not move."""
        if games is None:
            out = np.empty(self.num_games, np.int64)
            E.sample_kernel(self._masks, self._action_rng, out)
            return out
        idx = self._slots(games)
        out = np.empty(idx.size, np.int64)
        rng = self._action_rng[idx]
        E.sample_kernel(self._masks[idx], rng, out)
        self._action_rng[idx] = rng
        return out

    def play_random(self, games, auto) -> np.ndarray:
        """In the listed games, play sample_actions' random legal moves (the same per-game streams) while the
        player to move is marked in auto (B, n) bool and the episode goes on: one call for what a loop of
        sample_actions/step would do. Returns the (len(games), n) rewards summed over those moves; the flags
        (round_over, game_over, truncated) tell what happened during them."""
        idx = self._slots(games)
        auto = np.ascontiguousarray(auto, bool)
        if auto.shape != (self.num_games, self.num_players):
            raise ValueError(f"auto must be a ({self.num_games}, {self.num_players}) bool array, got {auto.shape}")
        self._flags[:] = 0
        E.play_random_kernel(self.states, idx, auto, self._cfg, self._rewards, self._flags, self._masks,
                             self._action_rng)
        self._check_replay_error()
        return self._rewards[idx]

    # ------------------------------------------------------------------ views
    def observe(self, players=None, games=None) -> np.ndarray:
        """(B, obs_dim) float32 observations of the player to move (or of the given seat per game).

        games: only these slots (players, if given, then has one seat per listed game)."""
        states = self.states if games is None else self.states[self._slots(games)]
        b = states.shape[0]
        if players is None:
            p = np.full(b, -1, np.int64)
        else:
            p = np.broadcast_to(np.asarray(players, np.int64), (b,)).copy()
            if (p < 0).any() or (p >= self.num_players).any():
                raise ValueError(f"players must be seats 0..{self.num_players - 1}")
        out = np.empty((b, self.obs_dim), np.float32)
        encode_kernel(states, p, self._cfg, self._off, out)
        return out

    def hands(self, g: int) -> list[list[tuple[int, int]]]:
        """Omniscient: each seat's cards in game g as (front, back), in acquisition order."""
        s = self.states[g]
        out = []
        for p in range(self.num_players):
            cards = sorted((c for c in range(NUM_CARDS) if s["loc"][c] == p), key=lambda c: s["acq"][c])
            out.append([(int(CARD_VALUES[c, s["face"][c]]), int(CARD_VALUES[c, 1 - s["face"][c]])) for c in cards])
        return out

    def piles(self, g: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Omniscient: (draw pile, discard pile) of game g as (up, down) pairs, top first."""
        s = self.states[g]

        def pile(arr, k):
            return [(int(CARD_VALUES[c, s["face"][c]]), int(CARD_VALUES[c, 1 - s["face"][c]]))
                    for c in arr[:k][::-1]]
        return pile(s["draw"], s["ndraw"]), pile(s["disc"], s["ndisc"])

    def hand_sums(self, games=None) -> np.ndarray:
        """(B, n) sum of fronts per seat (R17); games: only these slots."""
        states = self.states if games is None else self.states[self._slots(games)]
        out = np.zeros((states.shape[0], 3, self.num_players), np.int32)
        E.info_kernel(states, self._cfg, out)
        return out[:, 0].astype(np.int64)

    @property
    def totals(self) -> np.ndarray:
        """(B, n) game totals (R19)."""
        return self.states["total"][:, : self.num_players].astype(np.int64)

    @property
    def round_points(self) -> np.ndarray:
        """(B, n) points of each game's last finished round (R17, R18)."""
        return self.states["points"][:, : self.num_players].astype(np.int64)
