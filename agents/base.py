"""The one agent interface: `act(obs, mask)` for one observation or a batch of them.

An agent sees only the observation of the seat it plays (quando_env.observation) and the legal action mask.
Subclasses implement `act_batch(obs (B, d), masks (B, 134)) -> (B,) int64`; `act` accepts either one
observation (returns an int) or a batch (returns an array).
"""
import numpy as np

from quando_env.cards import NUM_ACTIONS
from quando_env.observation import obs_dim, offsets

_DIM_TO_PLAYERS = {obs_dim(n): n for n in range(2, 7)}


def players_from_obs_dim(d: int) -> int:
    """The number of players whose observation has length d (each player count has its own length)."""
    if d not in _DIM_TO_PLAYERS:
        raise ValueError(f"an observation of length {d} belongs to no player count: lengths are "
                         f"{sorted(_DIM_TO_PLAYERS)} for 2..6 players")
    return _DIM_TO_PLAYERS[d]


def section_starts(num_players: int) -> dict[str, int]:
    """Observation section name -> start index."""
    return {k: a for k, (a, _) in offsets(num_players).items()}


class Agent:
    """Base class: batched and single-observation `act`, with shape checks."""

    name = "agent"

    def act(self, obs, mask):
        obs = np.asarray(obs, np.float32)
        mask = np.asarray(mask).astype(bool)
        single = obs.ndim == 1
        if single:
            obs, mask = obs[None], mask[None]
        if obs.ndim != 2 or mask.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"act takes obs (B, d) and masks (B, {NUM_ACTIONS}) (or one of each); got "
                             f"{obs.shape} and {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("every action mask needs at least one legal action")
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        out = np.asarray(self.act_batch(obs, mask), np.int64)
        return int(out[0]) if single else out

    __call__ = act

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"
