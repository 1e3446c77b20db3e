"""RolloutAgent: determinized Monte-Carlo search with heuristic play-outs, on top of a game's heuristic.

For each decision with more than one legal action: take the heuristic's choice and a few other candidates
(the best-valued by the heuristic, plus the game's always-tried actions such as knock and pass), sample full
worlds consistent with the agent's observation (the game's sample_states: what it has never seen dealt at
random, the agent as seat 0), copy each world once per candidate, apply it, and play every copy forward with
the play-out agent in all seats until the round ends (or `horizon` more decisions). A world's score is the
agent's round points minus `relative` times the opponents' mean points. Every candidate sees the same
worlds, so candidates are compared by paired differences: another action replaces the heuristic's choice only
when it beats it by `z` standard errors. All worlds of all decisions in one `act` call run in one game batch,
so evaluating many games at once batches the play-outs. With a learned model as `prior`
(agents.network_prior) its policy ranks the candidates and gives the move kept unless beaten; the heuristic's
choice is searched too.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from quando_env import rng

from .base import Agent
from .network_prior import NetworkPrior


@dataclass
class SearchKit:
    """What the rollout search needs of a game (each game's agents package builds one: search_kit()).

    game_class: the batched engine (its sample_states determinizes an observation); prior: an agent with
    action_values(obs, masks) -> (actions, values) ranking the candidates (lower value is better);
    players_of_obs: the player count of an observation length; always_try: actions searched whenever
    legal; playout(game, horizon): plays every game forward to its round's end (None: step playout_agent);
    unfinished_points(game): (B, n) points of rounds cut off by the horizon; search_horizon: the decisions the
    search teacher (agents.search) plays out by default, as far as the game's unfinished points value a cut round
    well (None: to the round's end). The search minimizes the agent's points, or maximizes them where the game's
    highest total wins (game_class.higher_total_wins: Help!).
    """

    game_class: type
    prior: Agent
    players_of_obs: Callable
    always_try: tuple = ()
    playout: Callable | None = None
    playout_agent: Agent | None = None
    unfinished_points: Callable | None = None
    search_horizon: int | None = None


class RolloutAgent(Agent):
    """Determinized rollouts. Cost per decision ~ worlds x candidates x decisions left in the round.

    samples: worlds per decision; knock_samples: worlds when knocking is an option (the decision that matters most);
    max_candidates: heuristic-ranked discards or draws tried besides the heuristic's choice, knock and pass (None:
    every legal action); horizon: decisions played after the action (None: to the round's end); relative: weight of
    the opponents' mean round points; z: standard errors an action must win by; prior: a learned model
    (agents.network_prior) whose policy ranks the candidates and gives the move kept unless another beats it, in
    place of the heuristic (whose choice is then searched too); game_weight: extra cost, in points, of a round that
    ends the game with the agent not among its winners; max_worlds: worlds per game batch (bounds memory); kit: the
    game's SearchKit; config: the game's options (num_players is read from the observation).
    """

    name = "rollout"
    uses_streams = True

    def __init__(self, kit: SearchKit, samples: int = 96, knock_samples: int = 192, max_candidates: int | None = 3,
                 horizon: int | None = None, relative: float = 0.5, z: float = 1.0, game_weight: float = 0.0,
                 max_worlds: int = 8192, seed: int | None = 0, prior=None, **config):
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
        self.prior = None if prior is None else NetworkPrior(prior, str(getattr(prior, "path", None) or "learned"))
        self.config = config
        self.kit = kit
        self.game = kit.game_class.name
        self.rng = np.random.default_rng(seed)
        self._cfg = {}

    def _config(self, n):
        if n not in self._cfg:
            self._cfg[n] = self.kit.game_class(1, seed=0, autoreset=False,
                                               **{**self.config, "num_players": n, "episode": "round"}).config
        return self._cfg[n]

    def act_batch(self, obs, masks, streams=None):
        return self._decide(obs, masks, streams, None)

    def candidate_values(self, obs, masks, streams=None) -> tuple[np.ndarray, np.ndarray]:
        """(values (B, num_actions), choices (B,)): per decision, the mean score of each searched candidate over
        its worlds, oriented so that higher is better for the agent (minus the points-based score the search
        minimizes), NaN for actions not searched (every action of a decision with one legal move), and the
        action act() would choose with the same streams (advanced as act() advances them). What a search
        teaches a network (training.distill): how much better each move is, not only which one is chosen."""
        obs = np.ascontiguousarray(obs, np.float32)
        masks = np.ascontiguousarray(masks, bool)
        if obs.ndim != 2 or masks.ndim != 2 or len(obs) != len(masks) or not masks.any(axis=1).all():
            raise ValueError(f"candidate_values takes obs (B, d) and masks (B, num_actions) with a legal action "
                             f"in every row; got {obs.shape} and {masks.shape}")
        if streams is not None and (streams.shape != (len(obs),) or streams.dtype != np.uint64):
            raise ValueError(f"streams must be {len(obs)} uint64 stream states, got {streams.shape} {streams.dtype}")
        values = np.full(masks.shape, np.nan)
        return values, self._decide(obs, masks, streams, values)

    def _decide(self, obs, masks, streams, values):
        """The choices of act_batch; values (B, num_actions), if given, gets each searched candidate's value."""
        n = self.kit.players_of_obs(obs.shape[1])
        # One seed of worlds per decision: from the row's stream when given, else the agent's generator.
        seeds = rng.draw_below(streams, 2**31) if streams is not None else self.rng.integers(2**63, size=len(obs))
        heuristic, vals = self.kit.prior.action_values(obs, masks)
        prior, vals = (heuristic, vals) if self.prior is None else self.prior.action_values(obs, masks)
        out = prior.copy()
        chunk, worlds = [], 0
        for i in np.flatnonzero(masks.sum(axis=1) > 1):
            acts = self.candidates(masks[i], prior[i], vals[i], heuristic[i])
            k = self.knock_samples if masks[i, list(self.kit.always_try)].any() else self.samples
            if chunk and worlds + k * acts.size > self.max_worlds:
                self._search(obs, chunk, n, out, values)
                chunk, worlds = [], 0
            chunk.append((i, acts, k, prior[i], int(seeds[i])))
            worlds += k * acts.size
        if chunk:
            self._search(obs, chunk, n, out, values)
        return out

    def candidates(self, mask, h, vals, heuristic):
        """The prior's choice h, the heuristic's, the always-tried actions where legal, and the `max_candidates`
        best-valued others."""
        legal = np.flatnonzero(mask)
        if self.max_candidates is None or legal.size <= self.max_candidates + 1:
            return legal
        keep = set(legal[np.argsort(vals[legal], kind="stable")[:self.max_candidates]].tolist())
        keep.update((int(h), int(heuristic)))
        keep.update(a for a in self.kit.always_try if mask[a])
        return np.array(sorted(keep), np.int64)

    def worlds(self, obs, i, k, cfg, seed):
        """k worlds for row i of this act call's observations: the game's determinization of obs[i] (the
        agent as seat 0). Experiments override it to give the search other worlds, e.g. the true one to
        measure what seeing hidden cards is worth (benchmarks/help_ceiling.py)."""
        return self.kit.game_class.sample_states(obs[i], k, cfg, seed=seed)

    def _search(self, obs, chunk, n, out, values=None):
        cfg = self._config(n)
        states, first = [], []
        for i, acts, k, _, seed in chunk:
            worlds = self.worlds(obs, i, k, cfg, seed)
            states.append(np.tile(worlds, acts.size))          # candidate-major: copies of the same k worlds
            first.append(np.repeat(acts, k))
        states = np.concatenate(states)
        vg = self.kit.game_class(states.size, seed=0, autoreset=False, **cfg.to_dict())
        vg.load_states(states)
        vg.step(np.concatenate(first))
        score = self._score(vg, cfg, self.horizon)
        start = 0
        for i, acts, k, h, _ in chunk:
            s = score[start:start + acts.size * k].reshape(acts.size, k)
            start += acts.size * k
            out[i] = self._choose(s, acts, h)
            if values is not None:
                values[i, acts] = -s.mean(axis=1)

    def _score(self, vg, cfg, horizon):
        """Play every game of vg forward (to its round's end or `horizon` decisions) and score it: the agent's
        (seat 0's) points less `relative` times the opponents' mean, lower is better."""
        if self.kit.playout is not None:
            self.kit.playout(vg, horizon)
        else:
            steps = 0
            while horizon is None or steps < horizon:
                live = np.flatnonzero(vg.current_player >= 0)
                if live.size == 0:
                    break
                vg.step(self.kit.playout_agent.act(vg.observe(games=live), vg.legal_action_mask[live]), games=live)
                steps += 1
        over = vg.current_player < 0
        pts = vg.round_points if over.all() else np.where(over[:, None], vg.round_points,
                                                           self.kit.unfinished_points(vg))
        pts = pts.astype(np.float64) * (-1.0 if self.kit.game_class.higher_total_wins else 1.0)
        score = pts[:, 0] - self.relative * pts[:, 1:].mean(axis=1)
        if self.game_weight:      # a round that ends the game (R19) with the agent not a winner costs extra
            ends = over & self.kit.game_class.game_ends(vg.totals, cfg)
            score += self.game_weight * (ends & ~vg.winners()[:, 0])
        return score

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
                f"z={self.z}" + (f", prior={self.prior.name!r})" if self.prior else ")"))
