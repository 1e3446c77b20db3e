"""PettingZoo AEC environment: a thin adapter over a VectorGame of one game."""
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import engine as E
from .cards import NUM_ACTIONS
from .observation import encode_kernel
from .record import Recorder
from .render import render_text
from .vector import VectorGame


def env(**kwargs):
    """The wrapped environment, as PettingZoo's classic envs: an illegal move ends the game with -1 for
    the mover (TerminateIllegalWrapper), out-of-range actions assert, and call order is enforced."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Quando for 2-6 players. Options: the fields of quando_env.Config plus render_mode.

    reset(seed, options={"deck": 55 [up, down] pairs top first, "dealer": seat}) fixes the first round.
    Rewards: minus each round's points when it ends (reward="points"), or +1/-1 at game end ("win").
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "quando_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, **config):
        EzPickle.__init__(self, render_mode=render_mode, **config)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not allowed: choose one of "
                             f"{self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.game = VectorGame(1, seed=0, autoreset=False, **config)
        self.config = self.game.config
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_box = spaces.Box(low=0.0, high=np.inf, shape=(self.game.obs_dim,), dtype=np.float32)
        self.observation_spaces = {a: spaces.Dict({"observation": obs_box,
                                                   "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(low=0.0, high=np.inf, shape=(E.state_dim(n),), dtype=np.float32)
        # Preallocated buffers: the adapter calls the engine's kernels directly on its one game.
        g = self.game
        self._seat = np.zeros(1, np.int64)
        self._action = np.zeros(1, np.int64)
        self._obs_buf = np.zeros((1, g.obs_dim), np.float32)
        self._info_buf = np.zeros((1, 3, n), np.int32)
        self._state_buf = np.zeros((1, E.state_dim(n)), np.float32)
        self._mask = g.legal_action_mask[0]
        self.recorder = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None, options=None):
        """A new game; options may fix the first round's deck (55 [up, down] pairs) and dealer."""
        options = options or {}  # other keys are ignored, as Gymnasium envs do (PettingZoo's api_test passes one)
        self.game.reset(seed=seed)
        if "deck" in options or "dealer" in options:
            self.game.reset(games=[0], deck=options.get("deck"), dealer=options.get("dealer"))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._update_infos()
        self.agent_selection = self.possible_agents[int(self.game.current_player[0])]
        self.recorder = Recorder(self.game, seed=seed)

    def step(self, action):
        """Play `action` for the agent to move; ValueError, naming the legal actions, if it is illegal."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        a = int(action)
        if not 0 <= a < NUM_ACTIONS or not self._mask[a]:
            raise ValueError(self.game.illegal_message(0, a).replace("game 0, ", ""))
        self._cumulative_rewards[agent] = 0.0
        g = self.game
        self._action[0] = a
        E.step_kernel(g.states, self._action, g._cfg, g._rewards, g._flags, g._masks)
        if g._flags[0, E.F_ERROR]:
            g._check_replay_error()
        self.recorder.after_step(a)
        r = g._rewards[0]
        self.rewards = {ag: float(r[i]) for i, ag in enumerate(self.possible_agents)}
        self._update_infos()
        flags = g._flags[0]
        if flags[E.F_TERMINATED] or flags[E.F_TRUNCATED]:
            done = {ag: True for ag in self.agents}
            if flags[E.F_TERMINATED]:
                self.terminations = done
            else:
                self.truncations = done
            self.agent_selection = self.possible_agents[(self._index[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[int(g.states["cur"][0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _update_infos(self):
        E.info_kernel(self.game.states, self.game._cfg, self._info_buf)
        sums, totals, points = self._info_buf[0].tolist()
        round_done = self.game.states["round"][0] > 0
        for i, ag in enumerate(self.possible_agents):
            info = {"hand_sum": sums[i], "score": totals[i]}
            if round_done:
                info["round_points"] = points[i]
            self.infos[ag] = info

    # ------------------------------------------------------------------ views
    def observe(self, agent):
        """The agent's observation vector, and its action mask (all zero unless it is to move)."""
        self._seat[0] = self._index[agent]
        g = self.game
        encode_kernel(g.states, self._seat, g._cfg, g._off, self._obs_buf)
        to_move = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
        mask = g._masks[0].astype(np.int8) if to_move else np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": self._obs_buf[0].copy(), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full perfect-information state (see engine.state_kernel), for centralised critics."""
        E.state_kernel(self.game.states, self.game._cfg, self._state_buf)
        return self._state_buf[0].copy()

    def render(self, seat: int | None = None):
        """The table as one seat sees it (default: the player to move; only sides that seat has seen).
        render_omniscient() is the debugging view with every side shown."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if seat is None:
            cur = int(self.game.current_player[0])
            seat = cur if cur >= 0 else 0
        text = render_text(self.game, 0, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_omniscient(self) -> str:
        """Every side of every card: for debugging only, never for an agent."""
        return render_text(self.game, 0, None)

    def game_record(self) -> dict:
        """The JSON-ready record of the game so far (see quando_env.record)."""
        return self.recorder.record

    def close(self):
        pass
