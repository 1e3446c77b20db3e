"""GameVectorEnv: `gymnasium.make_vec("Quando-v0", num_envs=N)` (any game's id), N games in one batched
engine."""
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..checks import as_seed, is_int, need, seed_list, shown
from ..registry import game_class
from .atomic import Snapshot
from .gym_env import (LegalBatchSpace, feature_layout, feature_shape, info_dicts, observation_at, observation_space,
                      observations, policy_masks)
from .single_agent import LearnerGames, integer_actions


class GameVectorEnv(VectorEnv):
    """N games of a single-agent env stepped together (same options as GameEnv, action_features included, plus
    num_envs and autoreset_mode); `action_space.sample()` draws each env's legal action (LegalBatchSpace). With
    action_features=True the observations are a dict of "observation" and "action_features" (each env's legal-move
    features, VectorGame.action_features).

    Env i reset with seed s plays the game of the single env reset with seed s + i. Autoreset follows Gymnasium
    (metadata["autoreset_mode"]): NEXT_STEP (default: the step after an episode's end returns the new
    episode's first observation, reward 0, and ignores that env's action), SAME_STEP (the new episode starts
    in the same step; info["final_obs"], info["final_info"] hold the end) or DISABLED (reset ended envs
    with reset(options={"reset_mask": mask})). Infos are Gymnasium's dict of arrays, every key from reset on:
    action_mask (int8; all zero in an env whose episode just ended), policy_mask (gym_env.policy_masks: never
    all zero, for masking logits with -inf), seat, score, round_points (0 until rounds_done > 0), rounds_done,
    the game's own. reset and step are all or nothing: a refused action (integers only), or an opponent that
    fails, changes nothing, autoresets included, so a retry acts as if the refused call never happened.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, game="quando", opponents="random", seat="random",
                 illegal_action: str = "raise", autoreset_mode=AutoresetMode.NEXT_STEP, action_features: bool = False,
                 **rules):
        self.core = LearnerGames(game_class(game), num_envs, opponents=opponents, seat=seat,
                                 illegal_action=illegal_action, **rules)
        self.config = self.core.config
        self.num_envs = self.core.num_games
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.action_feature_layout = feature_layout(self.core.game, action_features)   # None unless asked for
        self._features = self.action_feature_layout is not None
        self.single_observation_space = observation_space(self.core.game,
                                                          feature_shape(self.core.game, self.action_feature_layout))
        self.observation_layout = self.core.observation_layout     # one observation's named parts
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(self.core.num_actions)
        self.action_space = LegalBatchSpace(self.core.num_actions, self.num_envs, self.action_masks)
        self._ended = np.zeros(self.num_envs, bool)

    def reset(self, *, seed=None, options: dict | None = None):
        """seed: None (each env goes on with its own streams), an int (env i gets seed + i) or one per env
        (None entries go on). options["reset_mask"]: reset only these envs."""
        if not (options is None or isinstance(options, dict)):
            need(False, f"options={shown(options)}", "None or a dict")
        mask = (options or {}).get("reset_mask")
        if mask is None:
            mask = np.ones(self.num_envs, bool)
        elif not isinstance(mask, np.ndarray) or mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        one = as_seed(seed, count=self.num_envs) if is_int(seed) else None
        if seed is not None:
            seed = seed_list(seed, range(self.num_envs), unit="env")
        idx = np.flatnonzero(mask)
        self.core.reset(seed=None if seed is None else [seed[i] for i in idx], games=idx)
        super().reset(seed=one)
        self._ended[mask] = False
        return observations(self.core, self._features), self._infos()

    def step(self, actions):
        """One integer action per env (those of envs that autoreset in this step are ignored)."""
        given, _ = integer_actions(actions, self.num_envs, self.core.num_actions)
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        final = {}
        if self.autoreset_mode == AutoresetMode.DISABLED and self._ended.any():
            raise ValueError(f"envs {np.flatnonzero(self._ended).tolist()} ended: reset them with "
                             "reset(options={'reset_mask': mask}) before stepping (autoreset_mode=DISABLED)")
        idx = np.flatnonzero(~self._ended)
        self.core.checked_actions(given[idx], games=idx)     # before the autoresets
        with self.core.all_or_nothing(Snapshot(self, ("_ended",))):
            if self.autoreset_mode == AutoresetMode.NEXT_STEP and self._ended.any():
                self.core.reset(games=np.flatnonzero(self._ended))
            if idx.size:
                rewards[idx], terminated[idx], truncated[idx] = self.core.step(given[idx], games=idx)
            self._ended[:] = terminated | truncated
            if self.autoreset_mode == AutoresetMode.SAME_STEP and self._ended.any():
                done = np.flatnonzero(self._ended)
                ended = observations(self.core, self._features, done)
                for j, (i, info) in enumerate(zip(done, info_dicts(self.core, done))):
                    final = self._add_info(final, {"final_obs": observation_at(ended, j), "final_info": info}, int(i))
                self.core.reset(games=done)
                self._ended[:] = False
        return observations(self.core, self._features), rewards, terminated, truncated, {**self._infos(), **final}

    def _infos(self) -> dict:
        arrays = self.core.info_arrays()
        replaced = arrays.pop("replaced")
        every = np.ones(self.num_envs, bool)
        legal = self.core.action_masks()
        infos = {"action_mask": legal.astype(np.int8), "_action_mask": every,
                 "policy_mask": policy_masks(legal), "_policy_mask": every.copy()}
        for key, v in arrays.items():
            infos[key] = v
            infos["_" + key] = every.copy()
        if self.core.illegal_action == "random":
            infos["illegal_action"] = replaced
            infos["_illegal_action"] = every.copy()
        return infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: each env's legal actions now."""
        return self.core.action_masks()

    def set_opponents(self, opponents) -> None:
        """A new opponent (pool) for each env's next episode, e.g. for self-play."""
        self.core.set_opponents(opponents)
