"""GameVecEnv: a Stable-Baselines3 VecEnv of single-agent games over one batched engine (needs the
`train` extra: stable-baselines3). Build it with quando_env.make_vec_env."""
import time

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from ..checks import as_ints, as_seed
from ..registry import game_class
from .atomic import Snapshot
from .gym_env import feature_layout, feature_shape, info_dicts, observation_at, observation_space, observations
from .single_agent import LearnerGames


class GameVecEnv(VecEnv):
    """num_envs games of a single-agent env (same options as GameEnv, action_features included), stepped by one
    engine call per decision.

    SB3 conventions: `seed(s)` makes env i's next reset use s + i (the game the single env reset with s + i
    plays); an ended episode is reset inside step_wait, its last observation in info["terminal_observation"]
    and info["TimeLimit.truncated"] telling a max_steps truncation. Each ended episode's info also has
    Monitor-style "episode" statistics (r, l, t) and the learner's seat and the AEC env's infos;
    the other steps' infos are empty (building 1000 dicts per step would cost more than the game).
    `env_method("action_masks")` returns each env's legal actions, as MaskablePPO expects.
    step_wait is all or nothing: a refused action (integers only), or an opponent that fails, changes nothing
    (the autoresets included), so a retry acts as if it never happened.
    """

    def __init__(self, num_envs: int = 1, game="quando", opponents="random", seat="random",
                 illegal_action: str = "raise", action_features: bool = False, **rules):
        self.core = LearnerGames(game_class(game), num_envs, opponents=opponents, seat=seat,
                                 illegal_action=illegal_action, **rules)
        self.config = self.core.config
        self.observation_layout = self.core.observation_layout     # one observation's named parts
        self.action_feature_layout = feature_layout(self.core.game, action_features)   # None unless asked for
        self._features = self.action_feature_layout is not None
        self.render_mode = None
        shape = feature_shape(self.core.game, self.action_feature_layout)
        super().__init__(self.core.num_games, observation_space(self.core.game, shape),
                         spaces.Discrete(self.core.num_actions))
        self._actions = None
        self._returns = np.zeros(self.num_envs, np.float64)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._t0 = time.time()

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed=None):
        """Env i's next reset uses seed + i (SB3's rule; an int 0..2^63 - num_envs, or None for a random one)."""
        return super().seed(None if seed is None else as_seed(seed, count=self.num_envs))

    def reset(self):
        self.core.reset(seed=self._seeds)
        self._reset_seeds()
        self._reset_options()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self.reset_infos = info_dicts(self.core, action_mask=False)
        return observations(self.core, self._features)

    def step_async(self, actions) -> None:
        """One integer action per env (an (num_envs, 1) array is taken as (num_envs,), as SB3 may pass)."""
        single = isinstance(actions, np.ndarray) and actions.shape == (self.num_envs, 1)
        self._actions = actions.reshape(self.num_envs) if single else actions

    def step_wait(self):
        bookkeeping = Snapshot(self, ("_returns", "_lengths"), ("reset_infos",))
        with self.core.all_or_nothing(bookkeeping):
            rewards, terminated, truncated = self.core.step(self._actions)
            self._returns += rewards
            self._lengths += 1
            done = terminated | truncated
            infos = [{} for _ in range(self.num_envs)]
            if done.any():
                idx = np.flatnonzero(done)
                now = round(time.time() - self._t0, 6)
                ended = observations(self.core, self._features, idx)
                for j, (i, info) in enumerate(zip(idx.tolist(), info_dicts(self.core, idx, action_mask=False))):
                    info["terminal_observation"] = observation_at(ended, j)
                    info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                    info["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": now}
                    infos[i] = info
                self.core.reset(games=idx)
                self._returns[idx] = 0.0
                self._lengths[idx] = 0
                for i, info in zip(idx.tolist(), info_dicts(self.core, idx, action_mask=False)):
                    self.reset_infos[i] = info
        return observations(self.core, self._features), rewards.astype(np.float32), done, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: each env's legal actions now."""
        return self.core.action_masks()

    def set_opponents(self, opponents) -> None:
        """A new opponent (pool) for each env's next episode, e.g. for self-play."""
        self.core.set_opponents(opponents)

    # The envs are rows of one engine: per-env attributes are this object's, per-env methods act on all.
    def _index_list(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return as_ints(indices, "indices", 0, self.num_envs - 1).tolist()     # no wrapping around of -1

    def get_attr(self, attr_name: str, indices=None) -> list:
        idx = self._index_list(indices)
        if attr_name == "seat":
            return self.core.seat[idx].tolist()
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        if attr_name == "seat":     # the engine's seats, drawn per episode: setting an attribute would do nothing
            raise ValueError("set_attr('seat') cannot change the learner's seat: give seat= when making the env")
        if indices is not None and self._index_list(indices) != self._index_list(None):
            raise ValueError(f"set_attr({attr_name!r}) acts on all envs at once (they share one engine)")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":   # MaskablePPO's call each step: no index list for all envs
            return list(self.core.action_masks(None if indices is None else self._index_list(indices)))
        idx = self._index_list(indices)
        if idx != self._index_list(None):
            raise ValueError(f"env_method({method_name!r}) acts on all envs at once (they share one engine); "
                             "only action_masks takes indices")
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._index_list(indices)]
