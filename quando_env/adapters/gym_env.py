"""GameEnv: the single-agent Gymnasium environment of any game ("Quando-v0", ...): one learner seat
against opponents."""
import weakref

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import bounds, picture
from ..checks import as_action, as_bool, as_seed
from ..registry import game_class
from .single_agent import LearnerGames

NO_OP = 0       # the one action policy_masks allows where no action is legal


def observation_space(game, feature_shape: tuple | None = None) -> spaces.Space:
    """The flat float32 observation of a game (a VectorGame: the AEC env's "observation", within its bounds,
    quando_env.bounds); with `feature_shape` (num_actions, F), for action_features=True, a Dict of it and the
    legal-move features."""
    box = spaces.Box(low=0.0, high=bounds.high(game, "observation"), dtype=np.float32)
    if feature_shape is None:
        return box
    return spaces.Dict({"observation": box, "action_features": features_space(feature_shape)})


def features_space(shape: tuple) -> spaces.Box:
    """The (num_actions, F) legal-move features of a game: every value in [0, 1]."""
    return spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.float32)


def feature_layout(game, action_features):
    """The game's (a VectorGame's) action_feature_layout when action_features (a bool) is True, else None;
    ValueError naming the game when it has no move features."""
    if not as_bool(action_features, "action_features"):
        return None
    return type(game).action_feature_layout_of(game.num_players)


def feature_shape(game, layout) -> tuple | None:
    return None if layout is None else (game.num_actions, layout.size)


def observations(core: LearnerGames, with_features: bool, games=None):
    """The learner's observations of the listed games: the (k, obs_dim) array, or with the move features the
    dict {"observation": (k, obs_dim), "action_features": (k, num_actions, F)}."""
    obs = core.observe(games)
    if not with_features:
        return obs
    return {"observation": obs, "action_features": core.action_features(games)}


def observation_at(batch, j: int):
    """Game j's observation out of a batch that `observations` gave (an array or a dict of arrays)."""
    return {k: v[j] for k, v in batch.items()} if isinstance(batch, dict) else batch[j]


def policy_masks(masks: np.ndarray) -> np.ndarray:
    """(k, num_actions) int8 masks that a policy's logits can take with -inf: the legal actions, and in a row with
    none (an episode's end, whose next action is ignored or refused) action NO_OP alone, so a softmax over the
    masked logits never meets a row without a finite logit (NaN)."""
    out = masks.astype(np.int8)
    out[~masks.any(axis=1), NO_OP] = 1
    return out


def info_dicts(core: LearnerGames, games=None, action_mask: bool = True) -> list[dict]:
    """Per listed game, the info dict of the single env: action_mask and policy_mask (int8; unless
    action_mask=False), seat, the AEC env's infos at the learner's seat (score, round_points, rounds_done, the
    game's own) and, with illegal_action="random", illegal_action. Every key is there from reset on."""
    arrays = {k: v.tolist() for k, v in core.info_arrays(games).items()}
    replaced = arrays.pop("replaced")
    if action_mask:
        legal = core.action_masks(games)
        masks, safe = legal.astype(np.int8), policy_masks(legal)
    out = []
    for i in range(len(arrays["seat"])):
        info = {"action_mask": masks[i], "policy_mask": safe[i]} if action_mask else {}
        info.update({k: v[i] for k, v in arrays.items()})
        if core.illegal_action == "random":
            info["illegal_action"] = replaced[i]
        out.append(info)
    return out


class LegalActionSpace(spaces.Discrete):
    """Discrete(num_actions) whose `sample()` without a mask draws a legal action of the decision now, by
    `legal_mask(*args)` (a method of its env: the legal actions, or None where any action goes), so random
    play, SB3's check_env and Gymnasium's checkers step legally. Pickles and copies as a plain Discrete with
    its generator (it would otherwise carry its env along); `again` makes that legal-sampling again."""

    def __init__(self, n, legal_mask, *args, seed=None):
        super().__init__(n, seed=seed)
        self._legal = weakref.WeakMethod(legal_mask)
        self._args = args

    @classmethod
    def again(cls, space: spaces.Discrete, legal_mask, *args) -> "LegalActionSpace":
        """A copied or unpickled LegalActionSpace (a plain Discrete) sampling legal actions again, from the
        same generator."""
        return cls(space.n, legal_mask, *args, seed=space.np_random)

    def sample(self, mask=None, probability=None):
        legal = self._legal()
        if mask is None and probability is None and legal is not None:
            mask = legal(*self._args)
            mask = None if mask is None else mask.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return plain_discrete, (self.n, self.np_random)


class LegalBatchSpace(spaces.MultiDiscrete):
    """The vector env's actions, MultiDiscrete([num_actions] * num_envs), whose `sample()` without a mask
    draws each env's legal action by `legal_masks()` (a method of the env), through policy_masks: NO_OP where an
    episode just ended (the next step ignores that env's action). Pickles as a plain MultiDiscrete."""

    def __init__(self, n: int, num_envs: int, legal_masks, seed=None):
        super().__init__(np.full(num_envs, n), seed=seed)
        self._legal = weakref.WeakMethod(legal_masks)

    def sample(self, mask=None, probability=None):
        legal = self._legal()
        if mask is None and probability is None and legal is not None:
            mask = tuple(policy_masks(legal()))
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return spaces.MultiDiscrete, (self.nvec,)


def plain_discrete(n: int, generator) -> spaces.Discrete:
    """Discrete(n) drawing from `generator` (what a LegalActionSpace pickles as)."""
    return spaces.Discrete(n, seed=generator)


class GameEnv(gym.Env):
    """A game (`game`: a name such as "quando", or a game class) from one seat: the other seats are played
    inside `step` by `opponents`.

    opponents: "random" (default), another agent name of the command lines ("heuristic", "ppo:PATH",
    "my_agents.py:MyAgent", ...), an object with the batched agent interface act(obs, masks), an object with an
    SB3-style predict, or a list of these to draw from per seat and episode (an opponent pool); see opponents.py.
    seat: the learner's seat, or "random" (default): drawn per episode from the game's stream.
    illegal_action: "raise" (default: ValueError naming the legal actions) or "random" (replaced by a random
    legal action, info["illegal_action"] = True). rules: the game's config (num_players, episode="game"|"round",
    reward="points"|"win", ...).

    Rewards are the learner's, as the AEC env gives them, summed over the opponents' moves up to its next
    decision.
    `action_masks()` (sb3-contrib's convention) and info["action_mask"] give the legal actions (none once the
    episode is over); info["policy_mask"] is the mask for a policy's logits, never all zero (policy_masks).

    A step is all or nothing: a refused action, or an opponent that fails, changes nothing. A copy
    (copy.deepcopy, pickle) continues the same episode; its action_space samples its own legal actions.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(self, game="quando", opponents="random", seat="random", illegal_action: str = "raise",
                 render_mode: str | None = None, action_features: bool = False, **rules):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not allowed: choose one of "
                             f"{self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_modes": picture.render_modes()}     # those that work here
        self.core = LearnerGames(game_class(game), 1, opponents=opponents, seat=seat, illegal_action=illegal_action,
                                 **rules)
        self.config = self.core.config
        self.renderer = picture.Renderer(render_mode, self.core.game.name, self.metadata["render_fps"])
        self.action_feature_layout = feature_layout(self.core.game, action_features)   # None unless asked for
        self._features = self.action_feature_layout is not None
        self.observation_space = observation_space(self.core.game,
                                                   feature_shape(self.core.game, self.action_feature_layout))
        self.observation_layout = self.core.observation_layout     # the observation's named parts
        self.action_space = LegalActionSpace(self.core.num_actions, self.action_masks)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode; seed None goes on with the game's own random streams (seeded by the last seed)."""
        seed = None if seed is None else as_seed(seed)
        self.core.reset(seed=seed)
        super().reset(seed=seed)
        return self._observation(), info_dicts(self.core)[0]

    def step(self, action):
        """The learner's action (an int or numpy integer), then the opponents' moves up to its next decision."""
        a = as_action(action, self.core.num_actions)
        if self.core.game.current_player[0] < 0:
            raise RuntimeError("the episode is over: call reset() before step()")
        rewards, terminated, truncated = self.core.step([a])
        if self.render_mode == "human":
            self.render()
        return (self._observation(), float(rewards[0]), bool(terminated[0]), bool(truncated[0]),
                info_dicts(self.core)[0])

    def _observation(self):
        return observation_at(observations(self.core, self._features), 0)

    def action_masks(self) -> np.ndarray:
        """(num_actions,) bool: the learner's legal actions now (all False once the episode is over)."""
        return self.core.action_masks()[0]

    def set_opponents(self, opponents) -> None:
        """A new opponent (pool) from the next episode on, e.g. for self-play."""
        self.core.set_opponents(opponents)

    @property
    def seat(self) -> int:
        """The learner's seat in this episode."""
        return int(self.core.seat[0])

    def render(self):
        """The table as the learner sees it: text ("ansi"), an (H, W, 3) uint8 picture ("rgb_array", what
        RecordVideo records), or the picture in a window ("human"; the text is printed where no display exists)."""
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self.renderer.render(self.core.game, 0, self.seat)

    def close(self):
        self.renderer.close()

    def __getstate__(self):
        """A copy continues the episode; its action space follows the copy's own legal actions."""
        state = self.__dict__.copy()
        del state["renderer"]                                   # a window
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.renderer = picture.Renderer(self.render_mode, self.core.game.name, self.metadata["render_fps"])
        if type(self.action_space) is spaces.Discrete:        # a LegalActionSpace copies as a plain one
            self.action_space = LegalActionSpace.again(self.action_space, self.action_masks)
