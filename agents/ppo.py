"""PPOAgent: a trained MaskablePPO policy (a .zip saved by sb3-contrib) behind the agent interface."""
from pathlib import Path

import numpy as np

from .base import Agent

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
        if obs.shape[1] != self.obs_dim:
            raise ValueError(f"this model takes observations of length {self.obs_dim} (a game with another "
                             f"number of players?), got {obs.shape[1]}")
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, np.int64)

    def __repr__(self):
        return f"PPOAgent({str(self.path)!r})"
