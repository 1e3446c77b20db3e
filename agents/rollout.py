"""RolloutAgent: determinized Monte-Carlo search over the legal actions, with heuristic play-outs.

For each decision with more than one legal action: sample `samples` full worlds consistent with the agent's
observation (quando_env.determinize: the hidden sides dealt at random over what it has never seen, the
agent as seat 0), copy each world once per legal action, apply the action, and play every copy forward with
HeuristicAgent for all seats until the round ends (or `horizon` more decisions). An action's value is the
agent's round points minus `relative` times the opponents' mean points, averaged over the worlds (each
action sees the same worlds); the lowest wins. All worlds of all decisions in one `act` call run in one
VectorGame, so evaluating many games at once batches the play-outs.
"""
import numpy as np

from quando_env import VectorGame
from quando_env.config import make_config
from quando_env.determinize import sample_states

from .base import Agent, players_from_obs_dim
from .heuristic import HeuristicAgent


class RolloutAgent(Agent):
    """Determinized rollouts. Cost per decision ~ samples x legal actions x (decisions left in the round).

    samples: worlds per decision; horizon: decisions to play after the action (None: to the round's end);
    relative: weight of the opponents' mean round points against the agent's own; max_worlds: worlds per
    VectorGame batch (bounds memory); config: the game's options (num_players is read from the observation).
    """

    name = "rollout"

    def __init__(self, samples: int = 16, horizon: int | None = None, relative: float = 0.5, z: float = 1.5,
                 max_worlds: int = 8192, seed: int | None = 0, playout: Agent | None = None, **config):
        if samples < 1:
            raise ValueError(f"samples={samples!r} is not allowed: at least 1")
        self.samples = int(samples)
        self.horizon = horizon
        self.relative = float(relative)
        self.z = float(z)
        self.max_worlds = int(max_worlds)
        self.config = config
        self.playout = playout or HeuristicAgent(knock_samples=16)
        self.heuristic = HeuristicAgent()
        self.rng = np.random.default_rng(seed)
        self._cfg = {}

    def _config(self, n):
        if n not in self._cfg:
            self._cfg[n] = make_config(**{**self.config, "num_players": n, "episode": "round"})
        return self._cfg[n]

    def act_batch(self, obs, masks):
        n = players_from_obs_dim(obs.shape[1])
        out = np.asarray(masks.argmax(axis=1), np.int64)
        todo = np.flatnonzero(masks.sum(axis=1) > 1)
        chunk, worlds = [], 0
        for i in todo:
            w = self.samples * int(masks[i].sum())
            if chunk and worlds + w > self.max_worlds:
                self._search(obs, masks, chunk, n, out)
                chunk, worlds = [], 0
            chunk.append(i)
            worlds += w
        if chunk:
            self._search(obs, masks, chunk, n, out)
        return out

    def _search(self, obs, masks, rows, n, out):
        cfg = self._config(n)
        k = self.samples
        states, first, groups = [], [], []
        for i in rows:
            acts = np.flatnonzero(masks[i])
            worlds = sample_states(obs[i], k, cfg, seed=int(self.rng.integers(2**63)))
            states.append(np.tile(worlds, acts.size))          # action-major: copies of the same k worlds
            first.append(np.repeat(acts, k))
            groups.append(acts)
        states = np.concatenate(states)
        first = np.concatenate(first)
        vg = VectorGame(states.size, seed=0, autoreset=False, **cfg.to_dict())
        vg.load_states(states)
        vg.step(first)
        steps = 0
        while self.horizon is None or steps < self.horizon:
            live = np.flatnonzero(vg.current_player >= 0)
            if live.size == 0:
                break
            a = self.playout.act(vg.observe(games=live), vg.legal_action_mask[live])
            vg.step(a, games=live)
            steps += 1
        over = vg.current_player < 0
        pts = np.where(over[:, None], vg.round_points, vg.hand_sums()).astype(np.float64)
        score = pts[:, 0] - self.relative * pts[:, 1:].mean(axis=1)
        prior = self.heuristic.act(obs[rows], masks[rows])
        start = 0
        for i, acts, h in zip(rows, groups, prior):
            s = score[start:start + acts.size * k].reshape(acts.size, k)
            start += acts.size * k
            out[i] = self._choose(s, acts, h)

    def _choose(self, s, acts, h):
        """The heuristic's action h unless another beats it in the same worlds by `z` standard errors."""
        j = int(np.flatnonzero(acts == h)[0])
        d = s - s[j]                                  # paired differences (same worlds)
        mean = d.mean(axis=1)
        if s.shape[1] > 1:
            se = d.std(axis=1, ddof=1) / np.sqrt(s.shape[1]) + 1e-9
            ok = mean < -self.z * se
        else:
            ok = mean < 0
        if not ok.any():
            return int(h)
        return int(acts[np.argmin(np.where(ok, mean, np.inf))])

    def __repr__(self):
        return f"RolloutAgent(samples={self.samples}, horizon={self.horizon}, relative={self.relative})"
