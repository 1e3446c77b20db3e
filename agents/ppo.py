"""PPOAgent: a trained MaskablePPO policy (a .zip saved by sb3-contrib) behind the agent interface.

A policy may take the heuristic's hint: the observation followed by a one-hot of the action HeuristicAgent
would play (a function of the same observation, so the policy still sees nothing else). PPOAgent adds the
hint when the model's input is 134 longer than the observation.
"""
from pathlib import Path

import numpy as np

from quando_env.cards import NUM_ACTIONS

from .base import Agent
from .heuristic import HeuristicAgent

_HINTER = HeuristicAgent()


def with_hint(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(B, d + 134): each observation followed by the one-hot of the heuristic's action (zeros where no
    action is legal, e.g. a terminal observation)."""
    obs = np.asarray(obs, np.float32)
    masks = np.asarray(masks, bool)
    out = np.zeros((obs.shape[0], obs.shape[1] + NUM_ACTIONS), np.float32)
    out[:, :obs.shape[1]] = obs
    ok = np.flatnonzero(masks.any(axis=1))
    if ok.size:
        out[ok, obs.shape[1] + _HINTER.act(obs[ok], masks[ok])] = 1.0
    return out

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_quando_4p.zip"


class PPOAgent(Agent):
    """Plays the policy's most likely legal action (deterministic=True) or samples from it."""

    name = "ppo"

    def __init__(self, path: str | Path | None = None, deterministic: bool = True, model=None):
        if model is None:
            from sb3_contrib import MaskablePPO

            path = Path(path) if path is not None else DEFAULT_MODEL
            if not path.exists():
                raise FileNotFoundError(f"no PPO model at {path}: train one with `python train.py` or give "
                                        "ppo:PATH to a MaskablePPO .zip")
            model = MaskablePPO.load(str(path), device="cpu")
        self.model = model
        self.path = path
        self.deterministic = deterministic
        self.obs_dim = int(np.prod(model.observation_space.shape))

    def act_batch(self, obs, masks):
        if obs.shape[1] + NUM_ACTIONS == self.obs_dim:
            obs = with_hint(obs, masks)
        if obs.shape[1] != self.obs_dim:
            raise ValueError(f"this model takes observations of length {self.obs_dim} (or that less the "
                             f"{NUM_ACTIONS} of the heuristic hint; a game with another number of players?), got "
                             f"{obs.shape[1]}")
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, np.int64)

    def __repr__(self):
        return f"PPOAgent({str(self.path)!r})"
