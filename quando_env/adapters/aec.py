"""The PettingZoo AEC environment of any game: a thin adapter over one game of its batched engine.

A game's `_v0` module subclasses `GameAECEnv` as its `raw_env` (setting `game_class` and `metadata`) and
wraps it with `wrap`, as PettingZoo's classic environments do.
"""
import copy

import numba
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import bounds, picture
from ..checks import as_action, as_int, as_seed, need, shown
from ..episode import F_TERMINATED, F_TRUNCATED
from .atomic import ENGINE, Snapshot, all_or_nothing, hold, release
from .gym_env import LegalActionSpace, feature_layout, feature_shape, features_space
from .record import Recorder


ILLEGAL = ("terminate", "raise", "random")     # env()'s illegal_action: what an illegal move does


def wrap(raw, terminate: bool = True):
    """PettingZoo's classic wrappers: an illegal move ends the game with -1 for the mover
    (TerminateIllegalWrapper; unless not `terminate`: the raw env's illegal_action rules), actions outside the
    action space assert, and call order is enforced."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1) if terminate else raw
    e = AssertActionWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class AssertActionWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, which also refuses what Discrete.contains lets through
    (True as 1) and names the action and the range."""

    def step(self, action):
        agent = self.agent_selection
        dead = self.terminations[agent] or self.truncations[agent]
        if not (action is None and dead):
            n = self.action_space(agent).n
            try:
                ok = 0 <= as_action(action, n) < n
            except ValueError:
                ok = False
            assert ok, f"action {shown(action)} is not in the action space: one integer 0..{n - 1}"
        wrappers.BaseWrapper.step(self, action)


REWARDED, ENDED = 1 << 16, 1 << 17     # step_news's bits beside the seats'


@numba.njit(cache=True)
def step_news(info_now, info_before, rewards, flags):
    """What a step changed, in one call where reading it in Python costs a few microseconds: bit i where column i
    (seat i's info values) of `info_now` differs from `info_before` (which becomes `info_now`), REWARDED where
    someone got a reward, ENDED where the episode ended (terminated or truncated)."""
    bits = 0
    for k in range(info_now.shape[0]):
        for i in range(info_now.shape[1]):
            if info_now[k, i] != info_before[k, i]:
                bits |= 1 << i
                info_before[k, i] = info_now[k, i]
    for i in range(rewards.shape[0]):
        if rewards[i] != 0.0:
            bits |= REWARDED
    if flags[F_TERMINATED] or flags[F_TRUNCATED]:
        bits |= ENDED
    return bits


def compiled(kernel, *args):
    """The machine code numba runs for `kernel` (a dispatcher) given arguments of exactly these types, to
    call directly: numba's per-call dispatch on the types costs about a microsecond with a structured array,
    a third of a one-game kernel call. The kernel itself where it is not a numba dispatcher."""
    if not isinstance(kernel, numba.core.registry.CPUDispatcher):
        return kernel
    return kernel.compile(tuple(numba.typeof(a) for a in args))


def pettingzoo_pair(game_class, module: str, doc: str):
    """`raw_env` (a GameAECEnv class of `game_class`) and `env()` (it, wrapped) for a game's `<name>_v0`
    module, whose name `module` is (PettingZoo's metadata name is its last part)."""
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": module.rsplit(".", 1)[-1],
                "is_parallelizable": False, "render_fps": 2}
    raw = type("raw_env", (GameAECEnv,), {"__doc__": doc, "__module__": module, "game_class": game_class,
                                           "metadata": metadata})

    def env(illegal_action: str = "terminate", **kwargs):
        """raw_env with PettingZoo's classic wrappers. illegal_action: "terminate" (PettingZoo's classic rule: an
        illegal move ends the game, -1 for the mover), "raise" (a ValueError naming the legal actions, nothing
        played) or "random" (a random legal action is played instead, flagged in infos[agent]["illegal_action"])."""
        need(illegal_action in ILLEGAL, f"illegal_action={shown(illegal_action)}", f"one of {list(ILLEGAL)}")
        if illegal_action == "terminate":
            return wrap(raw(**kwargs))
        return wrap(raw(illegal_action=illegal_action, **kwargs), terminate=False)
    env.__module__ = module
    return raw, env


class GameAECEnv(AECEnv):
    """One game as a PettingZoo AEC env. Options: the game's config fields plus render_mode, action_features
    (True adds "action_features" to each observation: the (num_actions, F) float32 legal-move features of the
    agent to move, VectorGame.action_features; zero for the others) and illegal_action: "raise" (default: a
    ValueError naming the legal actions) or "random" (a random legal action from the game's stream is played
    instead; every agent's info then holds "illegal_action": whether its last action was replaced).
    `action_space(agent).sample()` draws a legal action for the agent to move (any action for the others).

    reset(seed, options={...the game's forced setup, e.g. "deck", "dealer"}) fixes the first round; other
    option keys are ignored, as Gymnasium envs do. Rewards come from the engine (per seat, when they fall).
    infos[agent] holds the same keys from reset() on: score, round_points, rounds_done and the game's own.

    A refused call (a bad action, a setup the game refuses) changes nothing. A copy (copy.deepcopy, pickle)
    continues the same game, random streams and record included.
    """

    _VIEWS = ("_cur", "_flags", "_mask", "_mask_int8", "_rewards_row", "_obs_row", "_info_seats", "_step_args",
              "_observe_args", "_infos_args", "_news_args", "_step_kernel", "_observe_kernel", "_infos_kernel",
              "_news_kernel")
    _MADE_BY_RESET = frozenset({"agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations",
                                "infos"})

    game_class = None
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "game_v0", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, render_mode: str | None = None, action_features: bool = False, illegal_action: str = "raise",
                 **config):
        super().__init__()
        need(illegal_action in ILLEGAL[1:], f"illegal_action={shown(illegal_action)}",
             f"one of {list(ILLEGAL[1:])} (env() also takes 'terminate')")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not allowed: choose one of "
                             f"{self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.game = g = self.game_class(1, seed=None, autoreset=False, **config)   # fresh entropy
        self.renderer = picture.Renderer(render_mode, self.metadata["name"], self.metadata["render_fps"])
        self.config = g.config
        n = g.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_box = spaces.Box(low=0.0, high=bounds.high(g, "observation"), dtype=np.float32)
        mask_box = spaces.Box(0, 1, (g.num_actions,), np.int8)
        parts = {"observation": obs_box, "action_mask": mask_box}
        self.action_feature_layout = feature_layout(g, action_features)     # None unless asked for
        if self.action_feature_layout is not None:
            parts["action_features"] = features_space(feature_shape(g, self.action_feature_layout))
            self._features_buf = np.zeros((1, g.num_actions, g.action_feature_dim), np.float32)
        self.observation_spaces = {a: spaces.Dict(parts) for a in self.possible_agents}
        self.action_spaces = {a: LegalActionSpace(g.num_actions, self._legal_of, a) for a in self.possible_agents}
        self._replaced = {} if illegal_action == "random" else None    # agent: its last action was replaced
        self._replacing = False     # the step now replaces its action (illegal_action="random")
        self.state_space = spaces.Box(low=0.0, high=bounds.high(g, "state"), dtype=np.float32)
        self.observation_layout = g.observation_layout      # the named parts of obs["observation"] ...
        self.state_layout = g.state_layout                  # ... and of state() (quando_env.vector_parts.Layout)
        self._seats = [np.full(1, i, np.int64) for i in range(n)]     # observe's argument per seat
        self._zero = np.zeros(1, np.int64)     # game slot 0, as the kernels take it
        self._action = np.zeros(1, np.int64)
        self._num_actions = g.num_actions
        self._obs_buf = np.zeros((1, g.obs_dim), np.float32)
        self._no_moves = np.zeros(g.num_actions, np.int8)
        self._info_keys = g.info_keys
        self._info_buf = np.zeros((1, len(g.info_keys), n), np.int32)
        self._info_before = np.zeros((len(g.info_keys), n), np.int32)     # the values infos hold
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)
        self.recorder = None
        self._views()

    def _views(self) -> None:
        """Views of game 0 and the serial kernels' compiled code for its arrays, read or called at every step
        (made again for a copy: a view or compiled code does not copy or pickle)."""
        g = self.game
        self._cur = g.states["cur"]          # who decides now
        self._flags = g.flags[0]
        self._mask = g.masks[0]
        self._mask_int8 = self._mask.view(np.int8)      # the observation's dtype (0/1 read the same)
        self._rewards_row = g.rewards[0]
        self._obs_row = self._obs_buf[0]
        self._info_seats = [self._info_buf[0, :, i] for i in range(len(self._seats))]   # per seat: its info values
        self._step_args = (g.states, g.all_games, self._action, g.cfg, g.rewards, g.flags, g.masks)
        self._observe_args = [(g.states, seat, g.cfg, self._obs_buf) for seat in self._seats]
        self._infos_args = (g.states, g.cfg, self._info_buf)
        self._news_args = (self._info_buf[0], self._info_before, self._rewards_row, self._flags)
        self._step_kernel = compiled(g.kernels.step, *self._step_args)
        self._observe_kernel = compiled(g.kernels.observe, *self._observe_args[0])
        self._infos_kernel = compiled(g.kernels.infos, *self._infos_args)
        self._news_kernel = compiled(step_news, *self._news_args)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None, options=None):
        """A new game; options may fix the first round (the game's setup keys, e.g. deck and dealer). Without a
        seed the game goes on with the random stream the last seed started (fresh entropy if never seeded), as
        Gymnasium's and PettingZoo's classic envs do: libraries that seed once and then reset unseeded (Tianshou,
        TorchRL) replay the same games from the same seed."""
        if not (options is None or isinstance(options, dict)):
            need(False, f"options={shown(options)}",
                 f"None or a dict (of the game's setup: {list(self.game.setup_keys)})")
        seed = None if seed is None else as_seed(seed)
        options = options or {}
        setup = {k: options[k] for k in self.game.setup_keys if k in options}
        if seed is None:
            self.game.reset(games=[0], **setup)     # all or nothing by itself
        else:
            with all_or_nothing(Snapshot(self.game, ENGINE)):   # a setup refused after the seeded deal
                self.game.reset(seed=seed)
                if setup:
                    self.game.reset(games=[0], **setup)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {}
        self._infos_kernel(*self._infos_args)
        self._news_kernel(*self._news_args)
        self._new_infos(-1)
        if self._replaced is not None:
            self._replaced = dict.fromkeys(self.agents, False)
            self._mark_replaced()
        self.agent_selection = self.possible_agents[int(self._cur[0])]
        self.recorder = Recorder(self.game, seed=seed)

    def step(self, action):
        """Play `action` (an int or numpy integer) for the agent to move; ValueError, naming the legal actions,
        if it is anything else (None only for a terminated or truncated agent); a refused action changes nothing."""
        if self.recorder is None:
            self._need_reset("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        n = self._num_actions
        if type(action) is int:
            a = action
        elif action is None:
            raise ValueError(f"action=None is only for a terminated or truncated agent; {agent} is to move: give "
                             f"one integer 0..{n - 1}, a legal one by its action_mask")
        else:
            a = as_action(action, n)
        if not 0 <= a < n or not self._mask[a]:
            a = self._replacement(a)      # raises, or (illegal_action="random") a legal action, noted in _replacing
        holding = hold()      # Ctrl-C waits until the step and its record are both done
        try:
            self._cumulative_rewards[agent] = 0.0
            self._action[0] = a
            error = self._step_kernel(*self._step_args)
            if error >= 0:
                self.game.check_error(error)
            self.recorder.after_step(a)     # (an int)
            self._infos_kernel(*self._infos_args)
            news = self._news_kernel(*self._news_args)
            self.rewards = dict(zip(self.possible_agents, self._rewards_row.tolist())) if news & REWARDED \
                else self._zeros.copy()     # most steps reward no one
            seats = news & (REWARDED - 1)       # those whose infos changed: most steps one seat (inlined) or none
            if seats & (seats - 1):
                self._new_infos(seats)
            elif seats:
                i = seats.bit_length() - 1
                self.infos[self.possible_agents[i]] = dict(zip(self._info_keys, self._info_seats[i].tolist()))
            if news & ENDED:
                done = {ag: True for ag in self.agents}
                if self._flags[F_TERMINATED]:
                    self.terminations = done
                else:
                    self.truncations = done
                self.agent_selection = self.possible_agents[(self._index[agent] + 1) % len(self.possible_agents)]
            else:
                self.agent_selection = self.possible_agents[self._cur.item(0)]
        except BaseException:
            release(holding, interrupt=False)
            self._replacing = False
            raise
        release(holding)
        if news & REWARDED:
            self._accumulate_rewards()
        if self._replaced is not None:      # illegal_action="random" (None otherwise: the one check a step pays)
            self._mark_replaced(agent, self._replacing)
            self._replacing = False
        if self.render_mode == "human":
            self.render()

    def _replacement(self, a: int) -> int:
        """What an illegal action `a` becomes: a ValueError naming the legal actions, or with
        illegal_action="random" a random legal action from the game's stream (step marks it replaced)."""
        if self._replaced is None:
            raise ValueError(self.game.illegal_message(0, a, with_game=False) + '; raw_env(illegal_action="random") '
                             "or env(illegal_action=\"random\") plays a random legal action instead (for tools that "
                             "draw actions without the mask)")
        self._replacing = True
        return int(self.game.sample_actions(games=self._zero)[0])

    def _mark_replaced(self, agent=None, replaced: bool = False) -> None:
        """illegal_action="random": every agent's info says whether its last action was replaced (a new dict
        where that changed, as for the other keys)."""
        if agent is not None:
            self._replaced[agent] = replaced
        for a, info in self.infos.items():
            if info.get("illegal_action") is not self._replaced[a]:
                self.infos[a] = {**info, "illegal_action": self._replaced[a]}

    def _new_infos(self, seats: int):
        """A new info dict for each agent whose bit is set in `seats` (their values changed: the others keep theirs,
        none is mutated)."""
        keys, infos, agents, values = self._info_keys, self.infos, self.possible_agents, self._info_seats
        for i in range(len(agents)):
            if seats >> i & 1:
                infos[agents[i]] = dict(zip(keys, values[i].tolist()))

    # ------------------------------------------------------------------ views
    def _legal_of(self, agent):
        """The agent's legal actions if it is to move now, else None (its action space samples any action)."""
        if self.recorder is None or agent != self.agent_selection or self.terminations[agent] \
                or self.truncations[agent]:
            return None
        return self._mask_int8

    def observe(self, agent):
        """The agent's observation vector, and its action mask (all zero unless it is to move; any of
        possible_agents, also once it has left the game)."""
        seat = self._index.get(agent) if type(agent) is str else None
        if seat is None or self.recorder is None:
            self._need_reset("observe()")
            seat = self._index.get(agent) if isinstance(agent, str) else None     # (a list is unhashable)
            if seat is None:
                raise ValueError(f"agent={shown(agent)} is not allowed: one of {self.possible_agents}")
        self._observe_kernel(*self._observe_args[seat])
        to_move = (agent == self.agent_selection and agent in self.agents
                   and not (self.terminations[agent] or self.truncations[agent]))
        out = {"observation": self._obs_row.copy(),
               "action_mask": self._mask_int8.copy() if to_move else self._no_moves.copy()}
        if self.action_feature_layout is not None:
            out["action_features"] = self._move_features(to_move)
        return out

    def _move_features(self, to_move: bool) -> np.ndarray:
        """The legal-move features of the agent to move (zero for any other agent)."""
        buf = self._features_buf
        buf[:] = 0.0
        if to_move:
            g = self.game
            g.kernels.action_features(g.states, self._zero, g.cfg, buf)
        return buf[0].copy()

    def state(self) -> np.ndarray:
        """The full perfect-information state, for centralised critics."""
        return self.game.state()[0]

    def render(self, seat: int | None = None):
        """The table as one seat sees it (default: the player to move; only what that seat has seen): text
        ("ansi"), an (H, W, 3) uint8 picture ("rgb_array"), or the picture in a window ("human"; the text is
        printed where no display exists). render_omniscient() is the debugging view with everything shown."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if seat is None:
            cur = int(self.game.states["cur"][0])
            seat = cur if cur >= 0 else 0
        seat = as_int(seat, "seat", 0, self.game.num_players - 1)
        return self.renderer.render(self.game, 0, seat)

    def render_omniscient(self) -> str:
        """Everything on the table: for debugging only, never for an agent."""
        return self.game.render_text(0, None)

    def game_record(self) -> dict:
        """The JSON-ready record of the game so far (see quando_env.adapters.record): a snapshot, which later
        steps do not change and whose changes do not reach the env's own record."""
        self._need_reset("game_record()")
        return copy.deepcopy(self.recorder.record)

    def close(self):
        self.renderer.close()

    # ------------------------------------------------------------------ before reset, copies
    def _need_reset(self, call: str) -> None:
        if self.recorder is None:
            raise RuntimeError(f"{call} before reset(): call reset() first (it deals the game)")

    def __getattr__(self, name):
        """Only for attributes not found: those reset() makes get an error that says so."""
        if name in type(self)._MADE_BY_RESET:
            raise AttributeError(f"{type(self).__name__} has no {name} before reset(): call reset() first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self):
        """The game as it stands (not a fresh env of the same options): a copy or a pickle continues it."""
        state = self.__dict__.copy()
        for name in ("renderer", *self._VIEWS):     # a window; views of the game and compiled code (_views)
            del state[name]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.renderer = picture.Renderer(self.render_mode, self.metadata["name"], self.metadata["render_fps"])
        self._views()
        self.action_spaces = {a: LegalActionSpace.again(space, self._legal_of, a)
                              for a, space in self.action_spaces.items()}
