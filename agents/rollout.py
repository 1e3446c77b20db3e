"""RolloutAgent: determinized Monte-Carlo search with heuristic play-outs, on top of the heuristic.

For each decision with more than one legal action: take the heuristic's choice and a few other candidates
(the best-valued by the heuristic, plus knock and pass where legal), sample full worlds consistent with the
agent's observation (quando_env.determinize: the hidden sides dealt at random over what it has never seen,
the agent as seat 0), copy each world once per candidate, apply it, and play every copy forward with
HeuristicAgent in all seats until the round ends (or `horizon` more decisions). A world's score is the
agent's round points minus `relative` times the opponents' mean points. Every candidate sees the same
worlds, so candidates are compared by paired differences: another action replaces the heuristic's choice only
when it beats it by `z` standard errors. All worlds of all decisions in one `act` call run in one VectorGame,
so evaluating many games at once batches the play-outs.
"""
import numpy as np
from numba import njit, prange

from quando_env import VectorGame
from quando_env.cards import KNOCK, NUM_ACTIONS, NUM_CARDS, PASS
from quando_env.config import make_config
from quando_env.determinize import sample_states
from quando_env.engine import _mask, _step_game
from quando_env.observation import _encode

from .base import Agent, players_from_obs_dim
from .features import starts_vector
from .heuristic import HeuristicAgent, _decide


@njit(cache=True, parallel=True)
def playout_kernel(states, cfg, off, obs_dim, st, n, prm, horizon):
    """HeuristicAgent (parameters prm) in every seat of every game until its round ends, or for `horizon`
    decisions per game (< 0: no limit). The same play as stepping a VectorGame with HeuristicAgent's
    actions, fused into one call that spreads the games over the cores."""
    for g in prange(states.shape[0]):
        o = np.empty(obs_dim, np.float32)
        m = np.zeros(NUM_ACTIONS, np.bool_)
        rew = np.zeros(n, np.float32)
        flg = np.zeros(4, np.uint8)
        vals = np.empty(NUM_ACTIONS)
        dummy = np.zeros(NUM_CARDS, np.int8)
        _mask(states[g], cfg, m)
        k = 0
        while states[g].cur >= 0 and (horizon < 0 or k < horizon):
            _encode(states[g], states[g].cur, cfg, off, o)
            _step_game(states[g], _decide(o, m, st, n, prm, vals), cfg, rew, flg, m, dummy)
            k += 1


class RolloutAgent(Agent):
    """Determinized rollouts. Cost per decision ~ worlds x candidates x decisions left in the round.

    samples: worlds per decision; knock_samples: worlds when knocking is an option (the decision that
    matters most); max_candidates: heuristic-ranked discards or draws tried besides the heuristic's choice,
    knock and pass (None: every legal action); horizon: decisions played after the action (None: to the
    round's end); relative: weight of the opponents' mean round points; z: standard errors an action must
    win by; game_weight: extra cost, in points, of a round that ends the game with the agent not lowest;
    max_worlds: worlds per VectorGame batch (bounds memory); config: the game's options (num_players is read
    from the observation).
    """

    name = "rollout"

    def __init__(self, samples: int = 96, knock_samples: int = 192, max_candidates: int | None = 3,
                 horizon: int | None = None, relative: float = 0.5, z: float = 1.0, game_weight: float = 0.0,
                 max_worlds: int = 8192,
                 seed: int | None = 0, playout: Agent | None = None, **config):
        if samples < 2 or knock_samples < 2:
            raise ValueError(f"samples={samples!r}, knock_samples={knock_samples!r}: at least 2 worlds each")
        self.samples = int(samples)
        self.knock_samples = int(knock_samples)
        self.max_candidates = max_candidates
        self.horizon = horizon
        self.relative = float(relative)
        self.z = float(z)
        self.game_weight = float(game_weight)
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
        prior, vals = self.heuristic.action_values(obs, masks)
        out = prior.copy()
        chunk, worlds = [], 0
        for i in np.flatnonzero(masks.sum(axis=1) > 1):
            acts = self._candidates(masks[i], prior[i], vals[i])
            k = self.knock_samples if masks[i, KNOCK] else self.samples
            if chunk and worlds + k * acts.size > self.max_worlds:
                self._search(obs, chunk, n, out)
                chunk, worlds = [], 0
            chunk.append((i, acts, k, prior[i]))
            worlds += k * acts.size
        if chunk:
            self._search(obs, chunk, n, out)
        return out

    def _candidates(self, mask, h, vals):
        """The heuristic's choice, knock and pass where legal, and the `max_candidates` best-valued others."""
        legal = np.flatnonzero(mask)
        if self.max_candidates is None or legal.size <= self.max_candidates + 1:
            return legal
        keep = set(legal[np.argsort(vals[legal], kind="stable")[:self.max_candidates]].tolist())
        keep.add(int(h))
        keep.update(a for a in (KNOCK, PASS) if mask[a])
        return np.array(sorted(keep), np.int64)

    def _search(self, obs, chunk, n, out):
        cfg = self._config(n)
        states, first = [], []
        for i, acts, k, _ in chunk:
            worlds = sample_states(obs[i], k, cfg, seed=int(self.rng.integers(2**63)))
            states.append(np.tile(worlds, acts.size))          # candidate-major: copies of the same k worlds
            first.append(np.repeat(acts, k))
        states = np.concatenate(states)
        vg = VectorGame(states.size, seed=0, autoreset=False, **cfg.to_dict())
        vg.load_states(states)
        vg.step(np.concatenate(first))
        if type(self.playout) is HeuristicAgent:
            playout_kernel(vg.states, vg._cfg, vg._off, vg.obs_dim, starts_vector(n), n, self.playout._prm,
                           -1 if self.horizon is None else self.horizon)
        else:
            steps = 0
            while self.horizon is None or steps < self.horizon:
                live = np.flatnonzero(vg.current_player >= 0)
                if live.size == 0:
                    break
                vg.step(self.playout.act(vg.observe(games=live), vg.legal_action_mask[live]), games=live)
                steps += 1
        over = vg.current_player < 0
        pts = np.where(over[:, None], vg.round_points, vg.hand_sums()).astype(np.float64)
        score = pts[:, 0] - self.relative * pts[:, 1:].mean(axis=1)
        if self.game_weight:      # a round that ends the game (R19) with the agent not lowest costs extra
            tot = vg.totals
            ends = over & (tot.max(axis=1) >= cfg.target_score)
            score += self.game_weight * (ends & (tot[:, 0] > tot.min(axis=1)))
        start = 0
        for i, acts, k, h in chunk:
            s = score[start:start + acts.size * k].reshape(acts.size, k)
            start += acts.size * k
            out[i] = self._choose(s, acts, h)

    def _choose(self, s, acts, h):
        """The heuristic's action h unless another beats it in the same worlds by `z` standard errors."""
        d = s - s[int(np.flatnonzero(acts == h)[0])]        # paired differences
        mean = d.mean(axis=1)
        se = d.std(axis=1, ddof=1) / np.sqrt(s.shape[1]) + 1e-9
        ok = mean < -self.z * se
        return int(acts[np.argmin(np.where(ok, mean, np.inf))]) if ok.any() else int(h)

    def __repr__(self):
        return (f"RolloutAgent(samples={self.samples}, knock_samples={self.knock_samples}, "
                f"max_candidates={self.max_candidates}, horizon={self.horizon}, relative={self.relative}, "
                f"z={self.z})")
