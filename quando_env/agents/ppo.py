"""PPOAgent: a trained MaskablePPO policy (a .zip saved by sb3-contrib) behind the agent interface.

A policy may take the heuristic's hint: the observation followed by a one-hot of the action the game's
heuristic would play (a function of the same observation, so the policy still sees nothing else). PPOAgent
adds the hint when the model's input is num_actions longer than the observation.

Loading a model zip runs code from it: Stable-Baselines3 unpickles parts of the file (as torch.load and pickle
do), so load only files you trust.
"""
from pathlib import Path

import numpy as np

from quando_env.extras import needs

from .base import Agent


def with_hint(obs: np.ndarray, masks: np.ndarray, hinter: Agent) -> np.ndarray:
    """(B, d + num_actions): each observation followed by the one-hot of `hinter`'s action (the game's heuristic;
    zeros where no action is legal, e.g. a terminal observation)."""
    obs = np.asarray(obs, np.float32)
    masks = np.asarray(masks, bool)
    out = np.zeros((obs.shape[0], obs.shape[1] + masks.shape[1]), np.float32)
    out[:, :obs.shape[1]] = obs
    ok = np.flatnonzero(masks.any(axis=1))
    if ok.size:
        out[ok, obs.shape[1] + hinter.act(obs[ok], masks[ok])] = 1.0
    return out

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_quando_4p.zip"


def default_model(game: str) -> Path:
    """Where the shipped 4-player model of a game lies (quando_env/agents/models/ppo_<game>_4p.zip)."""
    return DEFAULT_MODEL.with_name(f"ppo_{game}_4p.zip")


def no_ppo_model(game: str, path: Path | None = None) -> str:
    """Why `ppo` has no model (at `path`, or shipped for this game), and the command that trains one."""
    where = f"no PPO model at {path}" if path else f"no PPO model for {game} is shipped (only {DEFAULT_MODEL.name})"
    return (f"{where}: train one with `python -m quando_env train --algo sb3 --game {game}` and give "
            f"ppo:runs/ppo_{game}/best_model.zip")


class PPOAgent(Agent):
    """Plays the policy's most likely legal action (deterministic=True) or samples from it. `path`: a MaskablePPO
    .zip (default: the shipped model of `game`, which is required: the file does not say its game, and the
    hint and the check of the observation length follow from it).

    Load only files you trust: MaskablePPO.load unpickles parts of the zip (cloudpickle), so a crafted
    file runs any code it holds. The shipped models (quando_env/agents/models) are the project's own."""

    name = "ppo"

    def __init__(self, path: str | Path | None = None, deterministic: bool = True, model=None, *, game: str,
                 num_players: int | None = None):
        if model is None:
            with needs("train", "the ppo agent"):
                from sb3_contrib import MaskablePPO

            path = Path(path) if path is not None else default_model(game)
            if not path.exists():
                raise FileNotFoundError(no_ppo_model(game, None if path == default_model(game) else path))
            model = MaskablePPO.load(str(path), device="cpu")
        self.model = model
        self.path = path
        self.deterministic = deterministic
        self.obs_dim = int(np.prod(model.observation_space.shape))
        self.game = game
        self._hinter = None
        if num_players is not None:
            self.check_fits(num_players)

    def check_fits(self, num_players: int) -> None:
        """Refuse a model whose observations are not those of self.game for num_players (with or without the
        heuristic hint), naming the game and player count it was made for where one of this project fits."""
        from quando_env.registry import game_class, game_names

        def lengths(game, n):
            cls = game_class(game)
            return (cls.obs_dim_of(n), cls.obs_dim_of(n) + cls.num_actions)

        if self.obs_dim in lengths(self.game, num_players):
            return
        made_for = [f"{g} with {n} players" for g in game_names() for n in range(2, 7) if self.obs_dim in lengths(g, n)]
        raise ValueError(f"PPO model {self.path}: its observations have length {self.obs_dim} ("
                         f"{' or '.join(made_for) or 'no game here'}); it cannot play {self.game} with {num_players} "
                         f"players (length {lengths(self.game, num_players)[0]})")

    def act_batch(self, obs, masks):
        if obs.shape[1] + masks.shape[1] == self.obs_dim:
            if self._hinter is None:
                from .games import game_agents
                self._hinter = game_agents(self.game)["heuristic"]()
            obs = with_hint(obs, masks, self._hinter)
        if obs.shape[1] != self.obs_dim:
            raise ValueError(f"this model takes observations of length {self.obs_dim} (or that less the "
                             f"{masks.shape[1]} of the heuristic hint; a game with another number of players?), got "
                             f"{obs.shape[1]}")
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, np.int64)

    def __repr__(self):
        return f"PPOAgent({str(self.path)!r})"
