"""The game contract: the public surface every game offers and every adapter uses.

A game is a batched engine, a subclass of `Game`: `num_games` independent games of one configuration,
each a record of a numpy structured array, stepped together by numba kernels. Everything generic lives
here once (seeding, action checks, random legal moves, flags, infos, records' hooks); a game supplies
its rules as kernels and a few hooks. Adapters (PettingZoo, Gymnasium, SB3, records, evaluation, terminal
play) talk only to this surface, so a new game plugs into all of them.

What a game provides (the clearest complete example is `quando_env.cabo.game` with `quando_env.cabo.engine`, whose
step dispatches to functions named after the game's events; `examples/tiny_game.py` is the smallest). `Game` checks
it when the subclass is defined: a missing required attribute, hook or kernel is a TypeError naming it, at import.

Required:
- `game_info`: the game's facts as one quando_env.game_info.GameInfo (`name`, `num_actions`, `action_names`,
  `record_format`, `setup_keys`, `seat_info_keys`, `knock_action`, `higher_total_wins`), each also a class
  attribute of the game (`VectorGame.num_actions`) and set nowhere else;
- `state_dtype`, `config_class` (a frozen dataclass validated in `__post_init__`, with `num_players`, `episode`,
  `reward`, `max_steps`, `to_dict()` and `kernel_vector(autoreset)`: quando_env.options.Options derives them from its
  settings), `observation_parts` and `state_parts` (quando_env.vector_parts.Parts: the named parts of observe's and
  state's vectors; users get them per player count as `observation_layout`, `state_layout`; sizes `obs_dim_of(n)`,
  `state_dim_of(n)`);
- `kernels`: a quando_env.kernels.Kernels (see there for each kernel's signature): `step`, `masks`, `observe`, `state`,
  `infos`;
- hooks `_start(idx, setup)` (deal new games, forced setup or random), `render_text(g, seat)`,
  `round_setup(g)` and `redeal(g, **setup)` (what records store and replay).

Optional, each with the default `Game` gives:
- `kernels.play_random` (fused random play; default: a loop over sample_actions and step), `kernels.check`
  (the record checks of load_states; default: none), `parallel_kernels` (a `Kernels`, or the names to replace:
  the same kernels spread over numba's threads with prange, used for batches of PARALLEL_MIN_GAMES or more;
  default: none). Games are independent, so the results are the same either way.
- `action_feature_parts` (Parts of one legal move's feature row, every value in [0, 1]; default None: no move
  features); a game that declares them supplies `kernels.action_features(states, games, cfg, out)`, which fills
  out[i] (num_actions, F, zero on entry) for the player to move in states[games[i]].
- `state_problems` (the texts of the codes `check` gives, default ()).
- hooks `_checked_setup(setup)` (default: taken as given), `move_name(g, a)` (default: action_name),
  `table_view(g, seat)` (a `quando_env.tableview.TableView`, what pictures draw), `narrator(labels, seat,
  terminal)` (the game told to one seat or a spectator: terminal play, the browser), `step_notes(g, before)`
  (default: none), `reshuffle_record(g)` / `force_reshuffle(g, entry)` (default: no random events inside a
  round), `points_bounds`, `game_ends`, `max_decisions`, `winners`: without them the
  features that need them raise a clear error.
- `determinizer` (a function `(obs, k, config, seed) -> k state records` consistent with one player's
  observation, that player as seat 0, e.g. `quando_env.cabo.determinize.draw_states`; default None: no
  `sample_states`, which checks its arguments and records around it).
- `card_views` (a module with `move_cards(game, g, a)`, `moved_cards(game, g, before, a)` and
  `card_place(game, g, handle)`, usually the game's render module: where a move's cards lie in the table view
  and which cards a step moved in a way every seat saw, for the browser page to click and to mark; default
  None: no card is clickable or marked).

Per game the engine also offers `step_one(s, a, cfg, rew, flg, mask)`, `mask_one(s, cfg, m)` and
`observe_one(s, p, cfg, o)` (public names, for fused loops such as rollouts), and with move features
`action_features_one(s, cfg, out)`.

Shared pieces a game builds with, each in a module of its own: `quando_env.episode` (numba: the step's flags
F_*, `step_starts` / `step_ends` / `episode_ends`, the parts of a step every game has), `quando_env.state_checks`
(`shared_fields_ok`, `Problems`: what a record from outside must hold), `quando_env.vector_parts.Parts` (a vector's
named parts), `quando_env.narration.Narrator` (the terminal narrator's base), `quando_env.options` (`setting`,
`Options`, `make_config`: every option a Python int, bool or str, range-checked before any arithmetic).

A game's `<name>_v0` module (PettingZoo's convention) exposes `env()`, `raw_env` and its engine class as
`VectorGame`; its spec (quando_env.spec.GameSpec, in `quando_env/<game>/spec.py`) names that module and its other
parts, and `quando_env.registry.GAMES` maps the game's name to the spec.

State records share these fields, which the generic code reads: `cur` (seat to decide, -1 when the
episode is over), `round` (rounds finished in the episode), `total` and `points` (game totals and the last
finished round's points per seat), `shuffles` (in-round reshuffles so far), `rng` (shape (1,): the game's
stream, see quando_env.rng).
"""
from dataclasses import fields
from types import SimpleNamespace

import numba
import numpy as np

from . import rng, threads
from .checks import as_actions, as_bool, as_int, as_ints, as_seed, as_slots, need, seed_list, shown
from .episode import F_ROUND_OVER, F_TERMINATED, F_TRUNCATED, NUM_FLAGS, first_illegal
from .game_info import GameInfo
from .kernels import Kernels
from .options import make_config
from .state_checks import check_records, checked_observation
# re-exported: the pieces a game builds with, where games written against the contract import them from
from .episode import F_ERROR as F_ERROR, episode_ends as episode_ends, first_error as first_error, \
    step_ends as step_ends, step_starts as step_starts
from .narration import Narrator as Narrator, sentence as sentence
from .options import EPISODE_OPTIONS as EPISODE_OPTIONS, MAX_STEPS as MAX_STEPS, MAX_TARGET as MAX_TARGET, \
    check_episode_options as check_episode_options, option as option
from .state_checks import COUNT_MAX as COUNT_MAX, SHARED_PROBLEM as SHARED_PROBLEM, Problems as Problems, \
    shared_fields_ok as shared_fields_ok

MAX_GAMES = 2**26          # slots in one batch (about 80 GB of state records for Quando)
PARALLEL_MIN_GAMES = 64   # smaller batches run serially: starting threads costs more than it gives


# What a game class must define itself (Game's own values are placeholders), and the hooks it must override.
REQUIRED_ATTRIBUTES = ("game_info", "state_dtype", "config_class", "observation_parts", "state_parts", "kernels")
REQUIRED_HOOKS = ("_start", "render_text", "round_setup", "redeal")
FACTS = tuple(f.name for f in fields(GameInfo))     # game_info's facts, also class attributes of the game


class Game:
    """`num_games` independent games of one configuration, stepped together.

    Game i of a batch seeded with `seed` plays the game a batch of one seeded with `seed + i` plays, so a
    game depends neither on the batch size nor on its slot. With `autoreset`, a game whose episode ended
    starts a new one inside `step`; the step's flags tell what happened.
    """

    # required (REQUIRED_ATTRIBUTES): these placeholders fail the check at class definition
    game_info: GameInfo = None     # the game's facts; each is a class attribute too (name, num_actions, ...)
    state_dtype = None
    config_class = None
    observation_parts = None
    state_parts = None
    kernels = None
    # optional, with their defaults
    state_problems: tuple = ()     # what each problem code of kernels.check means
    parallel_kernels = None
    action_feature_parts = None     # a game with legal-move features declares their Parts
    determinizer = None     # draw_states(obs, k, config, seed) -> k records (sample_states checks around it)
    card_views = None       # the module with the game's move_cards, moved_cards and card_place (its render module)
    round_ends = None       # each game's record as its latest round ended, once keep_round_ends() is called

    def __init_subclass__(cls, abstract: bool = False, **kwargs):
        """Check a game class as it is defined (abstract=True: a base for games, checked in its subclasses)."""
        super().__init_subclass__(**kwargs)
        loose = [f for f in FACTS if f in cls.__dict__]
        if loose:
            raise TypeError(f"game class {cls.__name__} sets {loose} as class attributes: a game's facts are its "
                            "game_info (a quando_env.game_info.GameInfo; a subclass changes one with "
                            "dataclasses.replace(Base.game_info, ...))")
        if abstract:
            return
        missing = [a for a in REQUIRED_ATTRIBUTES if getattr(cls, a) is None]
        missing += [h for h in REQUIRED_HOOKS if getattr(cls, h) is getattr(Game, h)]
        if missing:
            raise TypeError(f"game class {cls.__name__} does not define {missing} (see quando_env.core)")
        if not isinstance(cls.game_info, GameInfo):
            raise TypeError(f"game class {cls.__name__}'s game_info is a {type(cls.game_info).__name__}, not a "
                            "quando_env.game_info.GameInfo")
        for fact in FACTS:
            setattr(cls, fact, getattr(cls.game_info, fact))
        if "kernels" in cls.__dict__:
            cls.kernels = Kernels.of(cls.kernels, cls.__name__)
        if cls.action_feature_parts is not None and cls.kernels.action_features is None:
            raise TypeError(f"game class {cls.__name__} declares action_feature_parts but its kernels lack "
                            "action_features")
        if cls.__dict__.get("parallel_kernels") is not None:    # one launch at a time (quando_env.threads)
            given = cls.parallel_kernels if isinstance(cls.parallel_kernels, dict) else vars(cls.parallel_kernels)
            own = Kernels.of(given, cls.__name__, "parallel_kernels", base=cls.kernels).present()
            cls.parallel_kernels = Kernels(**vars(threads.serialized(SimpleNamespace(**own))))

    def __init__(self, num_games: int = 1, seed: int | None = None, autoreset: bool = True, **config):
        b = as_int(num_games, "num_games", 1, MAX_GAMES)
        self.config = make_config(self.config_class, **config)
        self.num_games = b
        self.num_players = n = self.config.num_players
        self.autoreset = as_bool(autoreset, "autoreset")
        self.obs_dim = self.obs_dim_of(n)
        self.state_dim = self.state_dim_of(n)
        self.observation_layout = self.observation_layout_of(n)    # observe()'s parts by name
        self.state_layout = self.state_layout_of(n)                # state()'s parts by name
        has_features = self.action_feature_parts is not None
        self.action_feature_layout = self.action_feature_layout_of(n) if has_features else None
        self.action_feature_dim = self.action_feature_layout.size if has_features else 0     # F
        self.cfg = self.config.kernel_vector(self.autoreset)   # what the kernels read
        self.states = np.zeros(b, self.state_dtype)
        self.masks = np.zeros((b, self.num_actions), np.uint8)
        self.rewards = np.zeros((b, n), np.float32)
        self.flags = np.zeros((b, NUM_FLAGS), np.uint8)
        self.action_streams = np.zeros(b, np.uint64)           # sample_actions' per-game streams
        self.all_games = np.arange(b)
        self.min_parallel = threads.min_parallel_games(PARALLEL_MIN_GAMES)    # (the threading layer's)
        self.info_keys = self.game_info.info_keys
        self.reset(seed)

    # ------------------------------------------------------------------ what a game supplies
    @classmethod
    def obs_dim_of(cls, num_players: int) -> int:
        """The length of a `num_players`-player observation (the size of observation_parts)."""
        return cls.observation_parts.size(num_players)

    @classmethod
    def state_dim_of(cls, num_players: int) -> int:
        """The length of a `num_players`-player perfect-information state (the size of state_parts)."""
        return cls.state_parts.size(num_players)

    @classmethod
    def observation_layout_of(cls, num_players: int):
        """The named parts (a quando_env.vector_parts.Layout) of a `num_players`-player observation (observe())."""
        return cls.observation_parts.layout(cls.config_class(num_players=num_players).num_players)

    @classmethod
    def state_layout_of(cls, num_players: int):
        """The named parts (a quando_env.vector_parts.Layout) of a `num_players`-player perfect-information state
        (state())."""
        return cls.state_parts.layout(cls.config_class(num_players=num_players).num_players)

    @classmethod
    def action_feature_layout_of(cls, num_players: int):
        """The named parts (a quando_env.vector_parts.Layout) of one legal move's feature row (action_features()) for
        `num_players` players; ValueError for a game without move features."""
        if cls.action_feature_parts is None:
            raise ValueError(cls._no_features())
        return cls.action_feature_parts.layout(cls.config_class(num_players=num_players).num_players)

    @classmethod
    def _no_features(cls) -> str:
        return f"the game {cls.name!r} has no legal-move features (its engine declares no action_feature_parts)"

    @classmethod
    def action_name(cls, a: int) -> str:
        """A short readable name of action `a`."""
        return cls.action_names[as_int(a, "action", 0, cls.num_actions - 1)]

    def move_name(self, g: int, a: int) -> str:
        """The name of legal move `a` in game g's current decision (action_name unless the context renames it)."""
        self.game_index(g)
        return self.action_name(a)

    def step_notes(self, g: int, before) -> list[str]:
        """What game g's last step did besides its move, as every seat saw it, for a replay to tell (Help!'s
        refill); `before`: game g's state record before the step. None by default."""
        return []

    def kernels_for(self, k: int):
        """The kernels for a batch of k games: spread over the threads when that pays."""
        if k >= self.min_parallel and self.parallel_kernels is not None and numba.get_num_threads() > 1:
            return self.parallel_kernels
        return self.kernels

    def _start(self, idx: np.ndarray, setup: dict) -> None:
        """Required: start new games in slots idx (their streams are seeded), with the forced setup if given."""
        raise NotImplementedError

    def render_text(self, g: int = 0, seat: int | None = None) -> str:
        """Required: game g's table as `seat` sees it (only what it has seen), or everything when seat is None."""
        raise NotImplementedError

    def table_view(self, g: int = 0, seat: int | None = None):
        """Game g's table as `seat` sees it, as a `quando_env.tableview.TableView` (what render_mode="rgb_array"
        and "human" draw, with quando_env.picture), or everything when seat is None."""
        raise NotImplementedError(f"{self.name} has no table view")

    def move_cards(self, g: int, a: int) -> tuple[str, ...]:
        """Where the cards that legal move `a` of game g's deciding seat plays, takes or looks at lie in that
        seat's table view (as quando_env.tableview.place writes places), so that a page can make the move by
        clicking them; () for a move of no card (a knock). Decided only by what the deciding seat has seen."""
        return () if self.card_views is None else self.card_views.move_cards(self, self.game_index(g), a)

    def moved_cards(self, g: int, before, a: int) -> tuple:
        """The cards that the step from state record `before` by action `a` moved or looked at in a way every
        seat saw (a discard, a draw, a card placed into a slot), as handles `card_place` finds again after
        later steps of the round. None by default."""
        return () if self.card_views is None else self.card_views.moved_cards(self, self.game_index(g), before, a)

    def card_place(self, g: int, handle) -> str | None:
        """Where a handle of `moved_cards` lies in game g's table views now (the same place in every seat's
        view), or None where no view shows it or its place would tell something unseen (a shuffled pile)."""
        return None if self.card_views is None else self.card_views.card_place(self, self.game_index(g), handle)

    def narrator(self, labels: list, seat: int | None = 0, terminal: bool = True):
        """The story teller of game 0 for the person at `seat` (None: a spectator), told only what that viewer
        may know: the terminal's (quando_env.cli.play) for seat 0, the browser's for every seat (terminal=False:
        no help hints or text tables)."""
        raise NotImplementedError(f"{self.name} has no narrator for terminal play")

    def round_setup(self, g: int) -> dict:
        """Required: the current round's setup of game g as JSON-ready keyword arguments (what a record stores)."""
        raise NotImplementedError

    def redeal(self, g: int, **setup) -> None:
        """Required: replace game g's current round's deal by a forced one (replaying a record's later rounds)."""
        raise NotImplementedError

    def reshuffle_record(self, g: int) -> dict:
        """The last in-round reshuffle of game g as JSON (what a record needs to replay it)."""
        raise ValueError(f"{self.name} has no random events inside a round")

    def force_reshuffle(self, g: int, entry: dict) -> None:
        """Make game g's next in-round reshuffle the recorded one (ValueError if malformed)."""
        raise ValueError(f"{self.name} has no random events inside a round")

    @classmethod
    def sample_states(cls, obs, num_samples: int, config, seed: int | None = None) -> np.ndarray:
        """Determinization: `num_samples` state records consistent with one player's observation `obs` of a
        game with `config`, that player as seat 0 (for search agents such as the rollout agent): the game's
        `determinizer` between the checks of its arguments (sample_args) and of its records (checked_samples)."""
        if cls.determinizer is None:
            raise NotImplementedError(f"{cls.name} has no determinization")
        obs, num_samples, seed = cls.sample_args(obs, num_samples, config, seed)
        return cls.checked_samples(cls.determinizer(obs, num_samples, config, seed), config)

    @classmethod
    def sample_worlds(cls, obs, num_samples: int, seed: int | None = None, **config):
        """A game (no autoreset) of `num_samples` worlds consistent with `obs`, ready to step forward. config:
        the game's options (num_players, ...); episode defaults to "round"."""
        config.setdefault("episode", "round")
        game = cls(num_samples, seed=0, autoreset=False, **config)
        game.load_states(cls.sample_states(obs, num_samples, game.config, seed))
        return game

    @classmethod
    def return_bounds(cls, config) -> tuple[float, float]:
        """(lowest, highest) return one seat can get in an episode of a game with `config` (what frameworks
        such as OpenSpiel declare): -1 and +1 with reward="win" (0 when truncated), else `points_bounds`."""
        return (-1.0, 1.0) if config.reward == "win" else cls.points_bounds(config)

    @classmethod
    def points_bounds(cls, config) -> tuple[float, float]:
        """(lowest, highest) episode return with reward="points", from the rules' limits."""
        raise NotImplementedError(f"{cls.name} does not bound its points")

    @classmethod
    def max_decisions(cls, config) -> int:
        """The most decisions one episode can take (max_steps truncates an episode)."""
        return int(config.max_steps)

    @classmethod
    def game_ends(cls, totals, config) -> np.ndarray:
        """(k,) bool: whether a round that leaves these (k, n) game totals ends the game by the game's target
        rule (what search agents ask of rounds they play out with episode="round")."""
        raise NotImplementedError(f"{cls.name} does not say when totals end its game")

    def winners(self, games=None) -> np.ndarray:
        """(k, n) bool: the seats that win each listed game by its final totals (the best total: the highest
        when `higher_total_wins`, else the lowest)."""
        tot = self.totals[self.slots(games)]
        best = tot.max(axis=1, keepdims=True) if self.higher_total_wins else tot.min(axis=1, keepdims=True)
        return tot == best

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, games=None, **setup) -> None:
        """Start new games.

        seed: an int (game i gets seed + i), a sequence of per-game seeds, or None (fresh entropy when all
        games are reset, else each listed game goes on with its own random stream). games: the slots to
        reset (default all). setup: the game's forced setup (its `setup_keys`, e.g. deck and dealer), used
        for the first round of every listed game.
        """
        unknown = sorted(set(setup) - set(self.setup_keys))
        if unknown:
            raise ValueError(f"unknown setup {unknown} for {self.name}: it takes {list(self.setup_keys)}")
        idx = self.all_games if games is None else self.slots(games)
        if seed is None and games is None:
            seed = rng.new_seed()
        seeds = None
        if seed is not None and games is not None and np.ndim(seed) == 0 and not isinstance(seed, (str, bytes)):
            seeds = np.full(idx.size, as_seed(seed), np.int64)     # one int for listed games: each gets it
        elif seed is not None:
            seeds = np.array(seed_list(seed, idx, allow_none=False), np.int64)
        setup = self._checked_setup({k: v for k, v in setup.items() if v is not None})
        before = self.states[idx], self.masks[idx], self.action_streams[idx]      # copies (fancy indexing)
        if seeds is not None:
            self.states["rng"][idx, 0] = rng.streams(seeds, rng.SALT_GAME)
            self.action_streams[idx] = rng.streams(seeds, rng.SALT_ACTIONS)
        try:
            self._start(idx, setup)
        except BaseException:       # a deal that fails anyway (or Ctrl-C): the games stay as they were
            self.states[idx], self.masks[idx], self.action_streams[idx] = before
            raise
        self.flags[idx] = 0

    def _checked_setup(self, setup: dict) -> dict:
        """The forced setup, validated before anything changes (ValueError naming what is wrong); a game
        converts its values here (e.g. a deck to an int array)."""
        return setup

    def load_states(self, states: np.ndarray) -> None:
        """Replace every game's state by the given records (e.g. sampled worlds, or copies for rollouts).

        The records are checked first (`check_states`, about 1-3 microseconds a record): one the kernels
        cannot safely run on raises a ValueError naming the first bad game and what is wrong, and nothing
        changes."""
        states = np.asarray(states)
        if states.dtype != self.state_dtype or states.shape != (self.num_games,):
            raise ValueError(f"states must be {self.num_games} records of {type(self).__name__}.state_dtype, got "
                             f"{states.dtype} {states.shape}")
        masks = self.check_states(states)
        self.states[:] = states
        self.masks[:] = masks
        self.flags[:] = 0

    def check_states(self, states: np.ndarray) -> np.ndarray:
        """The legal-action masks of state records from outside, after checking that the kernels can run on
        them: every index and count in range, each card exactly once, seats in the game, what the phase needs
        (the game's `check` kernel), and a legal action exactly while the game is live. ValueError naming the
        first bad record and what is wrong."""
        return self.check_records(states, self.cfg)

    @classmethod
    def check_records(cls, states: np.ndarray, cfg: np.ndarray) -> np.ndarray:
        """check_states for a configuration's kernel vector `cfg` (config.kernel_vector)."""
        return check_records(cls, states, cfg)

    @classmethod
    def sample_args(cls, obs, num_samples, config, seed) -> tuple[np.ndarray, int, int | None]:
        """sample_states' arguments, checked before any work: config one of this game's configs, obs a vector
        of obs_dim_of(config.num_players) finite numbers (its type and length checked before it is converted),
        num_samples 1..MAX_GAMES, seed None or 0..2**63-1. Returns (obs as float32, num_samples, seed)."""
        obs = checked_observation(cls, obs, config)
        k = as_int(num_samples, "num_samples", 1, MAX_GAMES)
        return obs, k, None if seed is None else as_seed(seed)

    @classmethod
    def checked_samples(cls, states: np.ndarray, config) -> np.ndarray:
        """Worlds a determinization sampled, checked as load_states checks records (ValueError when the
        observation, e.g. a tampered one, admits no consistent state)."""
        try:
            cls.check_records(states, config.kernel_vector(False))
        except ValueError as e:
            raise ValueError(f"the observation gives no consistent state: {e}") from None
        return states

    def checked_seat(self, name: str, seat) -> int:
        """A seat given as an argument (a forced dealer or starter, a viewer), or ValueError naming `name`."""
        return as_int(seat, name, 0, self.num_players - 1, f"a seat 0..{self.num_players - 1}")

    def game_index(self, g, name: str = "g") -> int:
        """One game's slot given as an argument, or ValueError naming `name` and the slots."""
        return as_int(g, name, 0, self.num_games - 1, f"a game slot 0..{self.num_games - 1}")

    def view_args(self, g, seat) -> tuple[int, int | None]:
        """(game slot, viewing seat or None for everything) of render_text and table_view, checked."""
        return self.game_index(g), None if seat is None else self.checked_seat("seat", seat)

    def slots(self, games) -> np.ndarray:
        """The slot indices `games` names (all games for None), checked."""
        if games is None or games is self.all_games:
            return self.all_games
        return as_slots(games, self.num_games)

    # ------------------------------------------------------------------ stepping
    @property
    def legal_action_mask(self) -> np.ndarray:
        """(B, num_actions) bool: the legal actions of each game's player to move (all False once over)."""
        return self.masks.view(bool)

    @property
    def current_player(self) -> np.ndarray:
        """(B,) seat that decides now in each game (-1 once a game is over and not reset)."""
        return self.states["cur"].astype(np.int64)

    @property
    def round_over(self) -> np.ndarray:
        """(B,) bool: the last step ended a round."""
        return self.flags[:, F_ROUND_OVER].astype(bool)

    @property
    def game_over(self) -> np.ndarray:
        """(B,) bool: the last step ended the episode by the rules (game, or round with episode='round')."""
        return self.flags[:, F_TERMINATED].astype(bool)

    @property
    def truncated(self) -> np.ndarray:
        """(B,) bool: the last step hit max_steps."""
        return self.flags[:, F_TRUNCATED].astype(bool)

    def step(self, actions, games=None, checked: bool = False) -> np.ndarray:
        """Apply one action per game (by its player to move); return (B, n) rewards of this step.

        Games already over (without autoreset) ignore their action. Raises ValueError for an illegal
        action, naming the game, the action and the legal ones. games: step only these slots (then
        actions[i] is for games[i], the rewards are (len(games), n) and the other games wait, their flags
        cleared). checked: the caller passes an int64 array of all games' actions that it has checked
        against legal_action_mask itself (the one-game adapters do, to word their own errors), so the
        check is skipped, and gets the engine's own rewards buffer back (valid until the next step).
        """
        if self.round_ends is not None:
            return self._step_keeping_round_ends(actions, games, checked)
        if checked and games is None:
            self.check_error(self.kernels_for(self.num_games).step(self.states, self.all_games, actions, self.cfg,
                                                                 self.rewards, self.flags, self.masks))
            return self.rewards
        idx = self.slots(games)
        a = self._checked_actions(actions, idx)
        bad = first_illegal(self.states["cur"], idx, a, self.masks)
        if bad >= 0:
            raise ValueError(self.illegal_message(int(idx[bad]), int(a[bad])))
        if games is not None:
            self.flags[:] = 0
        self.check_error(self.kernels_for(idx.size).step(self.states, idx, a, self.cfg, self.rewards, self.flags,
                                                      self.masks))
        return self.rewards.copy() if games is None else self.rewards[idx]

    def keep_round_ends(self) -> None:
        """From now on, step() keeps in `round_ends[g]` game g's state record as the step that ended its latest
        round left it, before the engine dealt the next round (or a new game) in that same step: the table the
        rules reveal at a round's end, which `at_round_end` shows (before a game's first round ends, its record
        as this was called). Off by default, and free then; on, a step that ends a round is played once more
        from a copy (at_round_end_of)."""
        if self.round_ends is None:
            self.round_ends = self.states.copy()

    def at_round_end_of(self, records: np.ndarray, actions) -> np.ndarray:
        """Records (one per game, before a step) after `actions` with the round as the episode: before the next deal."""
        cfg = make_config(self.config_class, **{**self.config.to_dict(), "episode": "round"}).kernel_vector(False)
        out, k = records.copy(), len(records)
        self.kernels.step(out, np.arange(k), np.asarray(actions, np.int64), cfg, np.zeros((k, self.num_players),
                          np.float32), np.zeros((k, NUM_FLAGS), np.uint8), np.zeros((k, self.num_actions), np.uint8))
        return out

    def _step_keeping_round_ends(self, actions, games, checked: bool) -> np.ndarray:
        before, kept = self.states.copy(), self.round_ends
        self.round_ends = None
        try:
            rewards = self.step(actions, games, checked)
        finally:
            self.round_ends = kept
        idx = self.slots(games)
        ended = np.flatnonzero(self.flags[idx, F_ROUND_OVER])
        if ended.size:
            self.round_ends[idx[ended]] = self.at_round_end_of(before[idx[ended]],
                                                               self._checked_actions(actions, idx)[ended])
        return rewards

    def at_round_end(self, g: int = 0) -> "Game":
        """Game g as its latest round ended (keep_round_ends), as a one-game game of this configuration whose
        views (table_view, render_text, moved_cards, card_place) show that table."""
        if self.round_ends is None:
            raise ValueError("at_round_end needs keep_round_ends() before the steps")
        g = self.game_index(g)
        view = type(self)(1, seed=0, autoreset=False, **self.config.to_dict())
        view.load_states(self.round_ends[g:g + 1])
        return view

    def _checked_actions(self, actions, idx: np.ndarray) -> np.ndarray:
        """One int64 action per listed game, from integers only (checks.as_actions). ValueError otherwise; an
        integer beyond int64 is named as out of range."""
        a = as_actions(actions, idx.size)
        if a is None:
            got = f"shape {actions.shape} dtype {actions.dtype}" if isinstance(actions, np.ndarray) else shown(actions)
            raise ValueError(f"actions must be {idx.size} integers (one per game), got {got}")
        if a.dtype == object:
            out = next(i for i, v in enumerate(a.tolist()) if not -2**63 <= v < 2**63)
            raise ValueError(self.illegal_message(int(idx[out]), int(a[out])))
        return a.astype(np.int64, copy=False)

    @staticmethod
    def check_error(g: int) -> None:
        """Raise the error a kernel flagged in game g (>= 0): a forced reshuffle that does not fit (replays)."""
        if g >= 0:
            raise ValueError(f"game {g}: the forced reshuffle does not hold exactly the discard pile's cards")

    def illegal_message(self, g: int, action: int, with_game: bool = True) -> str:
        """Why `action` cannot be played in game g, with the legal actions by index and name (without naming the
        game when not `with_game`: for adapters of one game)."""
        legal = np.flatnonzero(self.masks[g])
        if not 0 <= action < self.num_actions:
            what = f"action {action} is out of range 0..{self.num_actions - 1}"
        else:
            what = f"action {action} ({self.action_name(action)}) is illegal"
        names = ", ".join(f"{x} ({self.action_name(x)})" for x in legal)
        where = f"game {g}, " if with_game else ""
        return f"{where}player {int(self.states[g]['cur'])} to move: {what}; legal: {names or 'none (over)'}"

    def sample_actions(self, games=None) -> np.ndarray:
        """(B,) uniformly random legal actions from per-game streams (-1 where a game is over).

        games: only these slots (one action each); the other games' streams do not move."""
        idx = self.slots(games)
        out = np.empty(idx.size, np.int64)
        parallel = self.kernels_for(idx.size) is self.parallel_kernels
        sample = self._sample_parallel if parallel else rng.sample_kernel
        if games is None:
            sample(self.masks, self.action_streams, out)
            return out
        streams = self.action_streams[idx]
        sample(self.masks[idx], streams, out)
        self.action_streams[idx] = streams
        return out

    @staticmethod
    def _sample_parallel(masks, streams, out):
        with threads.LOCK:
            rng.sample_kernel_parallel(masks, streams, out)

    def play_random(self, games, auto) -> np.ndarray:
        """In the listed games, play sample_actions' random legal moves (the same per-game streams) while the
        player to move is marked in auto (B, n) bool and the episode goes on: one call for what a loop of
        sample_actions/step would do. Returns the (len(games), n) rewards summed over those moves; the flags
        (round_over, game_over, truncated) tell what happened during them."""
        idx = self.slots(games)
        auto = np.asarray(auto)
        if auto.shape != (self.num_games, self.num_players) or not (
                auto.dtype == bool or (auto.dtype.kind in "iu" and ((auto == 0) | (auto == 1)).all())):
            raise ValueError(f"auto must be a ({self.num_games}, {self.num_players}) array of bools (or 0/1), got "
                             f"shape {auto.shape} dtype {auto.dtype}")
        auto = np.ascontiguousarray(auto, bool)
        self.flags[:] = 0
        kernels = self.kernels_for(idx.size)
        if kernels.play_random is not None:
            self.check_error(kernels.play_random(self.states, idx, auto, self.cfg, self.rewards, self.flags,
                                                 self.masks, self.action_streams))
            return self.rewards[idx]
        total = np.zeros((idx.size, self.num_players), np.float32)
        flags = np.zeros((idx.size, NUM_FLAGS), np.uint8)
        rows = np.arange(idx.size)
        while True:
            cur = self.states["cur"][idx]
            go = (cur >= 0) & auto[idx, np.maximum(cur, 0)] & ~(flags[:, F_TERMINATED] | flags[:, F_TRUNCATED]
                                                                 ).astype(bool)
            if not go.any():
                break
            total[go] += self.step(self.sample_actions(idx[go]), games=idx[go])
            flags[rows[go]] |= self.flags[idx[go]]
        self.flags[idx] = flags
        self.rewards[idx] = total
        return total

    # ------------------------------------------------------------------ views
    def observe(self, players=None, games=None) -> np.ndarray:
        """(B, obs_dim) float32 observations of the player to move (or of the given seat per game).

        games: only these slots (players, if given, then has one seat per listed game)."""
        states = self.states if games is None else self.states[self.slots(games)]
        b = states.shape[0]
        if players is None:
            p = np.full(b, -1, np.int64)
        else:
            p = as_ints(players, "players", 0, self.num_players - 1)
            if p.size not in (1, b):
                need(False, f"{p.size} players", f"one seat, or one per game ({b})")
            p = np.broadcast_to(p, (b,)).copy()
        out = np.empty((b, self.obs_dim), np.float32)
        self.kernels_for(b).observe(states, p, self.cfg, out)
        return out

    def action_features(self, games=None) -> np.ndarray:
        """(k, num_actions, action_feature_dim) float32: per listed game (all for None) and action, the features
        of that move for the player to move, from that player's view (only what it has seen; seats relative to
        it), every value in [0, 1]; rows of illegal moves, and every row of a game that is over, are zero. The
        parts are `action_feature_layout`. ValueError for a game without move features."""
        if self.action_feature_parts is None:
            raise ValueError(self._no_features())
        idx = self.slots(games)
        out = np.zeros((idx.size, self.num_actions, self.action_feature_dim), np.float32)
        self.kernels_for(idx.size).action_features(self.states, np.ascontiguousarray(idx, np.int64), self.cfg, out)
        return out

    @classmethod
    def action_features_of(cls, obs: np.ndarray, config, seed: int = 0) -> np.ndarray:
        """(B, num_actions, F) move features of the player each observation (B, obs_dim) belongs to, for callers
        that hold observations, not games (agents): each from one world sampled from that observation, which gives
        the features the real game would (they depend only on what the player has seen; tests check it over
        sampled worlds). Slower than `action_features` (a determinization per row)."""
        if cls.action_feature_parts is None:
            raise ValueError(f"{cls.name} has no legal-move features")
        obs = np.asarray(obs, np.float32)
        worlds = [cls.sample_states(o, 1, config, seed) for o in obs.reshape(-1, obs.shape[-1])]
        game = cls(max(len(worlds), 1), autoreset=False, **config.to_dict())
        if not worlds:
            return np.zeros((0, cls.num_actions, game.action_feature_dim), np.float32)
        game.load_states(np.concatenate(worlds))
        return game.action_features()

    def state(self, games=None) -> np.ndarray:
        """(k, state_dim) float32 perfect-information states (for centralised critics and debugging)."""
        states = self.states if games is None else self.states[self.slots(games)]
        out = np.empty((states.shape[0], self.state_dim), np.float32)
        self.kernels.state(states, self.cfg, out)
        return out

    @property
    def totals(self) -> np.ndarray:
        """(B, n) game totals."""
        return self.states["total"][:, : self.num_players].astype(np.int64)

    @property
    def round_points(self) -> np.ndarray:
        """(B, n) points of each game's last finished round."""
        return self.states["points"][:, : self.num_players].astype(np.int64)

    @property
    def rounds_done(self) -> np.ndarray:
        """(B,) rounds finished in each game's episode (round_points mean something once it is > 0)."""
        return self.states["round"].astype(np.int64)

    def info_table(self, out: np.ndarray | None = None) -> np.ndarray:
        """(B, len(info_keys), n) int32: per game and seat the values of `info_keys` (score, round_points,
        the game's seat_info_keys, rounds_done), written into `out` if given (one-game adapters keep one)."""
        if out is None:
            out = np.empty((self.num_games, len(self.info_keys), self.num_players), np.int32)
        self.kernels.infos(self.states, self.cfg, out)
        return out

    def info_arrays(self, games=None) -> dict:
        """Per listed game and seat, (k, n) arrays of the facts infos carry (`info_keys`): `score`,
        `round_points` (0 until `rounds_done` > 0), the game's own, `rounds_done`. Every key is there from
        the first reset on."""
        states = self.states if games is None else self.states[self.slots(games)]     # only the listed games
        table = np.empty((states.shape[0], len(self.info_keys), self.num_players), np.int32)
        self.kernels.infos(states, self.cfg, table)
        table = table.astype(np.int64)
        return {key: table[:, j] for j, key in enumerate(self.info_keys)}

    # ------------------------------------------------------------------ records
    def reshuffles(self, g: int) -> int:
        """In-round reshuffles of game g so far in its episode (the only randomness inside a round)."""
        return int(self.states["shuffles"][self.game_index(g)])
