"""Every game of quando_env as an OpenSpiel Python game: "python_quando", "python_cabo", "python_help".

Written once over the game contract (quando_env.core.Game): `register()` registers one pyspiel game per name
of `quando_env.game_names()`, so `pyspiel.load_game("python_cabo", {"players": 3})` works and OpenSpiel's
algorithms (random_sim_test, its Python ISMCTS bot, ...) play our engines.

Parameters: `players` (the game's default count), the game's options whose values OpenSpiel parameters can
hold (ints, bools, strings; an int option whose default is None, "the rule's default", takes -1 for None),
and `seed`. Each is converted and range-checked before use (`check_parameters`: an int only from an int,
within the C++ int pyspiel stores it in; `seed` 0..2^31-1 or -1); `load_game(name, params)` checks a dict
before pyspiel converts it (pyspiel's own `load_game` fails on an int beyond 2^31-1 with a bare pybind11
cast error, before any game sees it).

Chance: ChanceMode.SAMPLED_STOCHASTIC, no chance nodes. Our games shuffle with the engine's own seeded
stream, kept in each game's state record (the deal, later rounds' deals, in-round reshuffles). Exposing those
as explicit chance nodes would mean one node per card dealt (decks of 52 to 105 cards, every round) and a
second dealing path beside the engine's, which then no longer matches `env.reset(seed=...)`; sampled chance
keeps one path: `seed` >= 0 deals every initial state exactly as `env.reset(seed=seed)` (so a state can be
compared with the PettingZoo env move by move), `seed` = -1 (default) deals each new game from fresh
entropy. The stream lives in the state, so clones and deserialized states continue identically. A search
over hidden information uses `resample_from_infostate`, our determinization (`VectorGame.sample_states`),
which also gives each sampled world a fresh stream for its future shuffles.

A state is one game of the game's `VectorGame` (autoreset off) stored as the bytes of its state record, with
the summed rewards and a seat offset: OpenSpiel player p is engine seat (p - offset) mod n. Sampled worlds
put the observing player at engine seat 0, so their offset is that player; ordinary states have offset 0.
The OpenSpiel game keeps one engine and loads a state's record into it when the state is read or stepped;
everything in a state is immutable (bytes, tuples, ints, strings), so OpenSpiel's clone (a deepcopy of the
Python attributes) is cheap and exact.

Serialization is a game record in JSON, never a pickle: `state.serialize()` writes the game, the deal's seed
and the actions played (and for a sampled world, how it was sampled: the player and the sampler's seed, then
its own actions), and `game.deserialize_state(text)` / `load_state` replay it, checking every field and
every action as it is applied, so a state text from anywhere can at worst be refused (ValueError). The
replayed state is the original: same history, returns, legal actions and information. pyspiel's own
serialization of a Python state (`PyState::Serialize`, and its C++ callers such as
`pyspiel.deserialize_game_and_state`) is a base64 pickle, which runs code when loaded: never give those
text you did not write. pyspiel's `serialize_game_and_state`, its pickling of games and states and
`random_sim_test(serialize=True)` want the game's RNG state (Game::GetRNGState), which OpenSpiel's Python
game API gives a sampled-chance Python game no way to provide (they stop at "GetRNGState unimplemented");
`serialize_game_and_state` / `deserialize_game_and_state` here do that job with the JSON record, and our
games and states pickle through their name and `serialize()` (unpickling is code execution as always; the
state inside is replayed from its record).

Rewards fall as the engine gives them (RewardModel.REWARDS: per round, or at the end of a game). OpenSpiel's
Python MCTS bot takes only games with terminal rewards: the parameter `terminal_rewards=True` declares
RewardModel.TERMINAL and gives every reward at the end (rewards and returns are zero before; the game is
otherwise the same). That bot searches the state it is given, hidden cards included. OpenSpiel's C++ MCTS and
ISMCTS bots (pyspiel.MCTSBot, pyspiel.ISMCTSBot) crash the process (segmentation fault) on Python games,
OpenSpiel's own included: use the Python bots (`ismcts_bot`, open_spiel.python.algorithms.mcts.MCTSBot).

The information state of a player is its observation vector (`information_state_tensor`, shape [obs_dim]):
what the engine lets a player remember, not the full action history (no perfect recall). Its string form
(`information_state_string`, `observation_string`) lists the vector's nonzero entries exactly, so ISMCTS
keys its nodes by what the player knows.
"""
import dataclasses
import json
import typing

import numpy as np

from .. import rng
from ..checks import as_bool, as_int, as_seed, is_int, need, shown, to_int
from ..extras import needs
from ..registry import game_class, game_names

with needs("openspiel", "quando_env.integrations.openspiel"):
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

SEED_FRESH = -1         # the `seed` parameter's default: each new game dealt from fresh entropy
NONE_PARAM = -1         # an int option whose default is None takes -1 for None
INT_MAX = 2**31 - 1     # pyspiel holds int parameters (and sampler seeds) in a C++ int
TERMINAL = int(pyspiel.PlayerId.TERMINAL)     # a plain int: states keep it and pickle it
MAX_WORLDS = 16         # a serialized state is at most this many worlds sampled from worlds deep
RECORD_KEYS = ("game", "deal", "actions", "worlds")
WORLD_KEYS = ("player", "seed", "actions")


def short_name(game: str) -> str:
    """OpenSpiel's name of one of our games: "python_quando"."""
    return f"python_{game}"


def _optional_int(field) -> bool:
    return field.default is None and int in typing.get_args(field.type)


def game_parameters(game: str) -> dict:
    """The OpenSpiel parameters of a game with their defaults: players, the game's options OpenSpiel can
    hold, terminal_rewards (True: RewardModel.TERMINAL, every reward given at the end), seed."""
    cls = game_class(game)
    params = {}
    for f in dataclasses.fields(cls.config_class):
        if f.name == "num_players":
            params["players"] = f.default
        elif _optional_int(f):
            params[f.name] = NONE_PARAM
        elif isinstance(f.default, (bool, int, str)):
            params[f.name] = f.default
    params["terminal_rewards"] = False
    params["seed"] = SEED_FRESH
    return params


def check_parameters(game: str, params: dict) -> dict:
    """The game's parameters, defaults filled in, each converted and range-checked before use: an int
    parameter only from an int (or numpy integer, never a bool) that a C++ int holds, `seed` 0..2^31-1 or -1,
    a bool one only from a bool, a string one only from a string. ValueError naming the parameter; the game's
    config then checks each option's own range."""
    spec = game_parameters(game)
    unknown = sorted(set(params) - set(spec))
    need(not unknown, f"parameters {unknown} of {short_name(game)}", f"its parameters are {sorted(spec)}")
    out = dict(spec)
    for key, value in params.items():
        default = spec[key]
        if isinstance(default, bool):
            out[key] = as_bool(value, key)
        elif key == "seed":
            out[key] = as_int(value, key, SEED_FRESH, INT_MAX,
                              f"an integer 0..{INT_MAX}, or {SEED_FRESH} for fresh entropy per game")
        elif isinstance(default, int):
            out[key] = as_int(value, key, -INT_MAX - 1, INT_MAX)
        else:
            need(isinstance(value, str), f"{key}={shown(value)}", "a string")
            out[key] = value
    return out


def game_type(game: str, terminal_rewards: bool = False) -> pyspiel.GameType:
    """The pyspiel.GameType of a game (sequential, sampled chance, imperfect information, rewards as they fall or,
    with terminal_rewards, all at the end)."""
    cls = game_class(game)
    rewards = pyspiel.GameType.RewardModel.TERMINAL if terminal_rewards else pyspiel.GameType.RewardModel.REWARDS
    counts = [k for k in range(1, 11) if _valid_players(cls, k)]
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"Python {game.capitalize()} (quando_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=rewards,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=game_parameters(game),
    )


def _valid_players(cls, k: int) -> bool:
    """Whether the game's config accepts k players (its validation is the one source of the limits)."""
    try:
        cls.config_class(num_players=k)
    except ValueError:
        return False
    return True


def register() -> None:
    """Register "python_<game>" with pyspiel for every game (again: nothing happens)."""
    registered = set(pyspiel.registered_names())
    for game in game_names():
        if short_name(game) not in registered:
            # pyspiel keeps the factory until after Python shuts down: a class (never freed then, unlike a
            # closure, whose late release aborts the interpreter at exit)
            factory = type(f"{game.capitalize()}OpenSpielGame", (OpenSpielGame,), {"game": game,
                                                                                   "gtype": game_type(game)})
            pyspiel.register_game(factory.gtype, factory)


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS bot, which can also restart at a game under way: pyspiel.evaluate_bots calls
    restart_at for a state with a history, which the base class leaves to C++ ("RestartAt(state) not
    implemented"). The bot keeps nothing from one decision to the next (each step searches afresh), so
    restarting anywhere is dropping its last tree."""

    def restart_at(self, state):
        self.reset()


def ismcts_bot(game: pyspiel.Game, simulations: int, seed: int) -> ISMCTSBot:
    """OpenSpiel's Python ISMCTS bot for one of our games, reproducible from `seed`: one random rollout per
    leaf, its worlds drawn by `resample_from_infostate` with a seeded sampler; pyspiel.evaluate_bots plays it
    from any state."""
    simulations = as_int(simulations, "simulations", 1)
    seed = as_int(seed, "seed", 0, INT_MAX)
    rs = np.random.RandomState(seed)
    bot = ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=simulations,
                           random_state=rs)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


def load_game(name: str, params: dict | None = None) -> pyspiel.Game:
    """pyspiel.load_game after `register()` (what unpickling a game calls, in a fresh process too), with the
    parameters of our games checked first (check_parameters: pyspiel converts a dict to C++ values before any
    game sees it). ValueError for a game string pyspiel cannot load."""
    register()
    need(isinstance(name, str), f"game {shown(name)}", "a game's name or string, such as python_cabo(players=3)")
    ours = {short_name(g): g for g in game_names()}
    try:
        if params is None:
            return pyspiel.load_game(name)
        return pyspiel.load_game(name, check_parameters(ours[name], params) if name in ours else params)
    except pyspiel.SpielError as e:
        raise ValueError(f"game {shown(name)} cannot be loaded: {e}") from None


def load_state(game_text: str, serialized: str) -> pyspiel.State:
    """A state of one of our games from its game's string and `state.serialize()` (what unpickling a state
    calls): replayed from its record, never unpickled (OpenSpielGame.deserialize_state)."""
    game = load_game(game_text)
    need(isinstance(game, OpenSpielGame), f"game {shown(game_text)}", "one of quando_env's games (python_<game>)")
    return game.deserialize_state(serialized)


def serialize_game_and_state(game: pyspiel.Game, state: pyspiel.State) -> str:
    """What pyspiel.serialize_game_and_state is for, for our games: one text holding the game and the state,
    which deserialize_game_and_state reads back. pyspiel's own stops at "GetRNGState unimplemented" for every
    sampled-chance Python game (OpenSpiel's Python game API has no hook for it) and would be unpickled when read;
    this text is the state's JSON record, which names its game."""
    need(isinstance(state, OpenSpielState), f"state {shown(state)}", "a state of one of quando_env's games")
    need(isinstance(game, pyspiel.Game) and str(game) == str(state.get_game()), f"game {shown(game)}",
         f"the state's game, {state.get_game()}")
    return state.serialize()


def deserialize_game_and_state(text: str) -> tuple[pyspiel.Game, pyspiel.State]:
    """(game, state) from serialize_game_and_state's text, the state replayed from its record (load_state):
    never unpickled; ValueError for any other text."""
    try:
        name = json.loads(text)["game"]
    except (ValueError, RecursionError, TypeError, KeyError, IndexError):
        name = None
    need(isinstance(name, str), f"serialized game and state {shown(text)}",
         "the JSON text serialize_game_and_state writes (pyspiel's pickled form is never loaded: it can run code)")
    state = load_state(name, text)
    return state.get_game(), state


class OpenSpielGame(pyspiel.Game):
    """One of our games with one configuration, as a pyspiel game (`register` makes a subclass per game,
    setting `game` and `gtype`). `engine`: a one-game VectorGame (autoreset off) that states load their
    record into."""

    game = ""
    gtype = None

    def __init__(self, params: dict | None = None):
        game = self.game
        params = check_parameters(game, params or {})
        seed = params.pop("seed")
        self.terminal_rewards = terminal = params.pop("terminal_rewards")
        options = {"num_players": params.pop("players")}
        fields = {f.name: f for f in dataclasses.fields(game_class(game).config_class)}
        for key, value in params.items():
            options[key] = None if _optional_int(fields[key]) and value == NONE_PARAM else value
        self.engine = engine = game_class(game)(1, seed=0, autoreset=False, **options)
        self.seed = seed
        self.loaded = None      # the record bytes the engine holds now
        self.initial = None     # the record of the deal `seed` >= 0 gives, once made
        self.shown = (None, "")  # the last record rendered, and its text (clones share their record)
        self._raw = engine.states.view(np.uint8)     # the one record's bytes
        self._seat = np.zeros(1, np.int64)
        self.action = np.zeros(1, np.int64)        # the action a state applies, for the engine
        self._obs = np.zeros((1, engine.obs_dim), np.float32)
        lo, hi = engine.return_bounds(engine.config)
        info = pyspiel.GameInfo(num_distinct_actions=engine.num_actions, max_chance_outcomes=0,
                                num_players=engine.num_players, min_utility=lo, max_utility=hi,
                                utility_sum=None, max_game_length=engine.max_decisions(engine.config))
        super().__init__(game_type(game, True) if terminal else self.gtype, info,
                         {**params, "players": options["num_players"], "terminal_rewards": terminal, "seed": seed})

    def __reduce__(self):
        # pyspiel pickles a game through Game::Serialize, which a sampled-chance Python game cannot give
        # (it wants the game's RNG state): rebuild it from its name and parameters instead
        return load_game, (str(self),)

    def deserialize_state(self, text: str) -> "OpenSpielState":
        """The state `state.serialize()` wrote, replayed from its record: each field checked, each action
        checked legal as it is applied; nothing is unpickled. ValueError for text that is no state of this
        game (wrong game, bad JSON or fields, an illegal action)."""
        record = self._parse(text)
        state = OpenSpielState(self, record["deal"])
        state.replay(record["actions"])
        for world in record["worlds"]:
            state = state.sampled_world(world["player"], world["seed"])
            state.replay(world["actions"])
        return state

    def _parse(self, text: str) -> dict:
        """A serialized state's record, its structure and every value checked (not yet its actions' legality)."""
        what = f"serialized state {shown(text)}"
        longest = self.max_game_length()
        need(isinstance(text, str) and len(text) <= 16 * (MAX_WORLDS + 1) * (longest + 64) + 4 * len(str(self)),
             what, f"the JSON text state.serialize() writes for {self}")
        try:
            record = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise ValueError(f"{what} is not allowed: JSON written by state.serialize() (pyspiel's pickled "
                             f"form is never loaded: it can run code); {type(e).__name__}: {e}") from None
        need(isinstance(record, dict) and sorted(record) == sorted(RECORD_KEYS), what,
             f"a JSON object with the keys {list(RECORD_KEYS)}")
        need(record["game"] == str(self), f"a state of {shown(record['game'])}", f"a state of {self}")
        as_seed(record["deal"], "the state's deal")
        worlds = record["worlds"]
        need(isinstance(worlds, list) and len(worlds) <= MAX_WORLDS, f"the state's worlds {shown(worlds)}",
             f"a list of at most {MAX_WORLDS} worlds")
        players = self.num_players()
        for i, world in enumerate(worlds):
            need(isinstance(world, dict) and sorted(world) == sorted(WORLD_KEYS), f"worlds[{i}]={shown(world)}",
                 f"a JSON object with the keys {list(WORLD_KEYS)}")
            as_int(world["player"], f"worlds[{i}].player", 0, players - 1)
            as_seed(world["seed"], f"worlds[{i}].seed")
        for name, actions in [("actions", record["actions"])] + [(f"worlds[{i}].actions", w["actions"])
                                                                   for i, w in enumerate(worlds)]:
            need(isinstance(actions, list) and len(actions) <= longest and all(map(is_int, actions)),
                 f"the state's {name} {shown(actions)}", f"a list of at most {longest} actions (integers)")
        return record

    def new_initial_state(self):
        """A new game, dealt as `env.reset(seed=seed)` (or from fresh entropy with seed -1) when first read."""
        return OpenSpielState(self, self.seed if self.seed >= 0 else rng.new_seed())

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer OpenSpiel's information state and observation calls use (the player's own view)."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                         != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"only one player's own view is observable (public info and that player's private "
                             f"info), not {iig_obs_type}")
        return PlayerObserver(self.engine.obs_dim)

    def deal(self, seed: int) -> bytes:
        """The record of a new game dealt as `env.reset(seed=seed)` (the game's own seed's deal made once)."""
        if seed == self.seed and self.initial is not None:
            return self.initial
        self.engine.reset(seed=seed)
        self.loaded = record = self.engine.states.tobytes()
        if seed == self.seed:
            self.initial = record
        return record

    def observe(self, record: bytes, seat: int) -> np.ndarray:
        """Seat's observation in a state record (a buffer, valid until the next call)."""
        engine = self.load(record)
        self._seat[0] = seat
        engine.kernels.observe(engine.states, self._seat, engine.cfg, self._obs)
        return self._obs[0]

    def render(self, record: bytes) -> str:
        """The omniscient table of a state record (the game's render_text)."""
        if record is not self.shown[0]:
            self.shown = (record, self.load(record).render_text(0, None))
        return self.shown[1]

    def load(self, record: bytes):
        """Put a state's record into the engine (unless it holds it already) and return the engine. The bytes are
        checked first as load_states checks records (Game.check_states): bytes that are no state of this game
        (e.g. a tampered serialized state) raise a ValueError and the engine keeps what it held."""
        if record is not self.loaded:
            engine = self.engine
            states = np.frombuffer(record, np.uint8)
            if states.size != self._raw.size:
                raise ValueError(f"a state record of {engine.name} is {self._raw.size} bytes, got {states.size}")
            masks = engine.check_states(states.view(engine.state_dtype))
            self._raw[:] = states       # a byte copy: 5x faster than load_states' record copy
            engine.masks[:] = masks
            self.loaded = record
        return self.engine


class OpenSpielState(pyspiel.State):
    """One game: its state record's bytes (dealt on first use from `_deal_seed`), the seat offset, the player
    to move (kept, as search asks it at every step), and the summed and last rewards per OpenSpiel player."""

    def __init__(self, game: OpenSpielGame, deal_seed: int, world: bytes | None = None, offset: int = 0,
                 returns: tuple | None = None, rewards: tuple | None = None, sampled_from: tuple | None = None,
                 depth: int = 0):
        """A new game dealt from `deal_seed`, or (resample_from_infostate) a sampled `world` record whose
        engine seat 0 is OpenSpiel player `offset`, carrying the rewards so far; `sampled_from` (the serialized
        state it was sampled from, player, seed) and `depth` (worlds sampled from worlds to reach it: serialize
        writes one entry each) say where a world came from."""
        super().__init__(game)
        n = game.engine.num_players
        self._deal_seed = deal_seed
        self._record = None
        self._player = None
        self._offset = offset
        self._returns = returns or (0.0,) * n
        self._rewards = rewards or (0.0,) * n
        self.sampled_from = sampled_from
        self.depth = depth
        if world is not None:
            self._hold(world)

    def _engine(self):
        """The game's engine holding this state."""
        game = self.get_game()
        if self._record is None:
            self._hold(game.deal(self._deal_seed))
        return game.load(self._record)

    def _hold(self, record: bytes) -> None:
        """Make `record` this state's record (the engine holds it now) and note who is to move."""
        engine = self.get_game().load(record)
        self._record = record
        seat = int(engine.states["cur"][0])
        self._player = TERMINAL if seat < 0 else (seat + self._offset) % engine.num_players

    def _seat(self, player: int) -> int:
        return (player - self._offset) % self.get_game().engine.num_players

    def _player_id(self, player, name: str = "player") -> int:
        """player as an int 0..n-1, or ValueError naming it."""
        return as_int(player, name, 0, self.num_players() - 1)

    def current_player(self):
        if self._record is None:
            self._engine()
        return self._player

    def is_terminal(self):
        return self.current_player() == TERMINAL

    def _legal_actions(self, player):
        return np.flatnonzero(self._engine().masks[0]).tolist()

    def _apply_action(self, action):
        engine = self._engine()
        game = self.get_game()
        a = int(action)
        if not (0 <= a < engine.num_actions and engine.masks[0, a]):
            raise ValueError(engine.illegal_message(0, a, with_game=False))
        game.action[0] = a
        r = engine.step(game.action, checked=True)[0].tolist()    # per engine seat
        k = self._offset
        r = r[-k:] + r[:-k] if k else r                             # per player
        game.loaded = engine.states.tobytes()
        self._hold(game.loaded)
        self._rewards = tuple(r)
        self._returns = tuple(x + y for x, y in zip(self._returns, r))

    def _action_to_string(self, player, action):
        player = self._player_id(player)
        engine = self._engine()
        name = engine.move_name(0, action) if self.current_player() == player else engine.action_name(action)
        return f"player_{player}: {name}"

    def returns(self):
        if self.get_game().terminal_rewards and not self.is_terminal():
            return [0.0] * len(self._returns)
        return list(self._returns)

    def rewards(self):
        if self.get_game().terminal_rewards:
            return self.returns()       # all at the end: zero before
        return list(self._rewards)

    def observation_vector(self, player: int) -> np.ndarray:
        """The player's observation (the env's `observe(agent)["observation"]`), float32 [obs_dim]."""
        seat = self._seat(self._player_id(player))
        self._engine()
        return self.get_game().observe(self._record, seat).copy()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A world consistent with what `player_id` (0..n-1) knows (our determinization), with a fresh stream
        for its future shuffles; the sampler (OpenSpiel's UniformProbabilitySampler: a number in [0, 1]) seeds
        it."""
        player = self._player_id(player_id, "player_id")
        u = probability_sampler()
        need(isinstance(u, (float, int, np.floating, np.integer)) and not isinstance(u, (bool, np.bool_))
             and 0 <= u <= 1, f"probability_sampler() returned {shown(u)}, which", "a number in [0, 1]")
        return self.sampled_world(player, int(u * 2 ** 53))

    def sampled_world(self, player: int, seed: int) -> "OpenSpielState":
        """The world the determinization samples for `player` from `seed`: the same for the same state."""
        need(self.depth < MAX_WORLDS, f"a world sampled from a world sampled {MAX_WORLDS} deep",
             f"at most {MAX_WORLDS} deep (what deserialize_state reads back)")
        game = self.get_game()
        engine = game.engine
        record = engine.sample_states(self.observation_vector(player), 1, engine.config, seed)
        return OpenSpielState(game, self._deal_seed, record.tobytes(), player, self._returns, self._rewards,
                              (self.serialize(), player, seed), self.depth + 1)

    def replay(self, actions) -> None:
        """Apply `actions` in order, each checked legal (ValueError naming the first that is not)."""
        for i, action in enumerate(actions):
            a = to_int(action)      # pyspiel would refuse -1 or 2**70 with a SpielError or TypeError
            if a is None or not 0 <= a < self.get_game().num_distinct_actions():
                raise ValueError(f"the serialized state's action {i} is {shown(action)}: actions are integers "
                                 f"0..{self.get_game().num_distinct_actions() - 1}")
            try:
                self.apply_action(a)
            except (ValueError, pyspiel.SpielError) as e:
                raise ValueError(f"the serialized state's action {i}: {e}") from None

    def serialize(self) -> str:
        """This state as a game record in JSON: the game, the deal's seed and the actions played, and for a
        sampled world each sampling (player, seed) with the actions after it. deserialize_state replays it."""
        if self.sampled_from is None:
            record = {"game": str(self.get_game()), "deal": self._deal_seed, "actions": self.history(), "worlds": []}
        else:
            source, player, seed = self.sampled_from
            record = json.loads(source)
            record["worlds"].append({"player": player, "seed": seed, "actions": self.history()})
        return json.dumps(record, separators=(",", ":"))

    def __reduce__(self):
        # as for the game: pyspiel's own pickling wants Game::GetRNGState (and unpickles its serialization);
        # this state's is a record that load_state replays
        return load_state, (str(self.get_game()), self.serialize())

    def __str__(self):
        self._engine()
        text = self.get_game().render(self._record)
        if self._offset:
            text = f"(a sampled world: player p sits at seat (p - {self._offset}) mod n)\n" + text
        return text


class PlayerObserver:
    """OpenSpiel's Python observer (open_spiel.python.observation): a player's observation vector as the
    tensor, and as a string its nonzero entries ("index:value", every float32 told apart)."""

    def __init__(self, obs_dim: int):
        self.tensor = np.zeros(obs_dim, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state, player):
        obs = state.observation_vector(player)
        idx = np.flatnonzero(obs)
        # 9 significant digits tell every float32 apart
        return f"p{player} " + " ".join(map("%d:%.9g".__mod__, zip(idx.tolist(), obs[idx].tolist())))
