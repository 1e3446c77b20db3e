"""Deterministic learners and opponents shared by test_quando_gym_env.py and test_quando_vec_env.py.

Both are functions of one (observation, mask) row, so a game's course does not depend on its batch."""
import numpy as np

from quando_env.quando.observation import offsets


class FirstLegal:
    """Opponent with the batched agent interface: the lowest legal action; counts its calls."""

    def __init__(self):
        self.calls = []      # batch size of each call

    def act(self, obs, masks):
        obs, masks = np.asarray(obs), np.asarray(masks, bool)
        if obs.ndim == 1:
            return int(masks.argmax())
        self.calls.append(obs.shape[0])
        return masks.argmax(axis=1)


class LastLegal(FirstLegal):
    """The highest legal action."""

    def act(self, obs, masks):
        masks = np.asarray(masks, bool)
        if masks.ndim == 1:
            return int(masks.shape[0] - 1 - masks[::-1].argmax())
        self.calls.append(masks.shape[0])
        return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)


def pick(obs, mask) -> int:
    """A learner action that varies with the observation: legal action number (hash of obs) mod #legal
    (0 where nothing is legal: an ended episode, whose action is ignored)."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        return 0
    return int(legal[int(np.asarray(obs, np.float64).sum() * 7919) % legal.size])


def pick_batch(obs, masks) -> np.ndarray:
    return np.array([pick(o, m) for o, m in zip(obs, masks)], np.int64)


def section(obs, name: str, num_players: int = 4):
    a, b = offsets(num_players)[name]
    return np.asarray(obs)[..., a:b]
