"""SearchAgent: the rollout search reshaped into a fast teacher (successive halving over paired worlds).

The rollout agent plays every candidate out in every world, to the round's end. Most candidates are clearly
worse than the heuristic's choice after a few worlds, so this search spends its worlds in stages: every candidate
is played out in the first `first` worlds; after each stage the candidates worse than the heuristic's choice by
`drop_z` standard errors are dropped, and of those left the better half (by mean; the heuristic's choice always
stays) goes on to twice as many worlds, and so on up to `samples` (`knock_samples` where knocking is legal).
Every candidate of a decision sees the same worlds, sampled once from the deciding seat's observation alone
(the game's sample_states), and each world is a full state whose own random stream drives its play-out, so
candidates are compared on common random numbers. The decision is the rollout agent's rule on the survivors
(another move replaces the heuristic's choice only when it beats it by `z` standard errors in the same worlds),
taken on the worlds played after the last pruning alone: a candidate kept for its luck in the earlier worlds
would carry that luck into the comparison (the winner's curse).
Each stage is one call of the game's fused play-out kernel over every world of every decision of the batch.
Play-outs stop after `horizon` decisions (the game's own by default: as far as its unfinished points value a
cut round well), the unfinished round valued by the game's unfinished_points, except where a candidate can end
the round (knock, pass): those decisions are played out to `knock_horizon`, the round's end by default, since a
cut play-out would weigh a finished round against unfinished ones.

The worlds of a decision follow from its seed alone (its stream, or the agent's generator), so the choices and
values are the same whatever the batch size, the `max_worlds` chunking or the number of threads.

With a learned model as `prior` (agents.network_prior; agent names search:learned and search:learned:PATH) its
policy takes the heuristic's place: its best move is the one kept unless another beats it, its best-ranked moves
are the candidates, and the heuristic's choice is searched besides them. The play-outs stay the heuristic's.
"""
import numpy as np

from .rollout import RolloutAgent, SearchKit


class SearchAgent(RolloutAgent):
    """Successive halving over the rollout search's candidates, on the same worlds (see the module's docstring).

    samples / knock_samples: worlds of a decision's last stage (where knocking is legal: the latter); first:
    worlds every candidate is played out in; max_candidates: heuristic-ranked moves besides its choice and the
    always-tried ones (None: every legal move); horizon: decisions played after the move (None: to the round's
    end; "game": the game's SearchKit.search_horizon: 16 in Quando, 48 in Cabo, None in Help!); knock_horizon: the
    same where an always-tried move (knock, pass) is a candidate, a move that can end the round, which a cut
    play-out would compare with unfinished ones; drop_z: a candidate worse than the heuristic's choice by this
    many standard errors after a stage is dropped (the search of a decision stops once the heuristic's choice is
    alone); z: standard errors by which another move must beat the heuristic's choice (2: with a third of the
    rollout search's worlds, its 1 let slightly worse moves through; Quando won 0.335 [0.296, 0.375] over 550 games
    against three heuristic players with 1, 0.400 [0.335, 0.469] over 200 with 2). The other options are
    RolloutAgent's."""

    name = "search"

    def __init__(self, kit: SearchKit, samples: int = 32, knock_samples: int = 64, first: int = 8,
                 max_candidates: int | None = 3, horizon: int | None | str = "game",
                 knock_horizon: int | None = None, drop_z: float = 2.0, z: float = 2.0, **options):
        super().__init__(kit, samples=samples, knock_samples=knock_samples, max_candidates=max_candidates,
                         horizon=kit.search_horizon if horizon == "game" else horizon, z=z, **options)
        if not 2 <= first <= min(self.samples, self.knock_samples):
            raise ValueError(f"first={first!r}: give 2..{min(self.samples, self.knock_samples)} (worlds every "
                             "candidate is played out in, at most samples and knock_samples)")
        self.first = int(first)
        self.knock_horizon = knock_horizon
        self.drop_z = float(drop_z)

    def candidate_values(self, obs, masks, streams=None) -> tuple[np.ndarray, np.ndarray]:
        """RolloutAgent.candidate_values: a searched candidate's value is its mean over the worlds it was played
        out in (fewer for those dropped early); `visits` holds how many (see candidate_stats)."""
        values, choice, _ = self.candidate_stats(obs, masks, streams)
        return values, choice

    def candidate_stats(self, obs, masks, streams=None):
        """(values, choices, visits (B, num_actions) int32: worlds each candidate was played out in, 0 for moves
        not searched): what a label shard stores."""
        self._visits = np.zeros(np.shape(masks), np.int32)
        values, choice = super().candidate_values(obs, masks, streams)
        visits, self._visits = self._visits, None
        return values, choice, visits

    def _search(self, obs, chunk, n, out, values=None):
        cfg = self._config(n)
        worlds = [self.worlds(obs, i, k, cfg, seed) for i, _, k, _, seed in chunk]
        base = np.cumsum([0] + [len(w) for w in worlds])      # where each decision's worlds start in `every`
        every = np.concatenate(worlds)
        alive = [np.ones(acts.size, bool) for _, acts, _, _, _ in chunk]
        scores = [np.full((acts.size, k), np.nan) for _, acts, k, _, _ in chunk]
        lo = [0] * len(chunk)
        hi = [min(self.first, k) for _, _, k, _, _ in chunk]
        knock = [bool(np.isin(acts, self.kit.always_try).any()) for _, acts, _, _, _ in chunk]
        since = [0] * len(chunk)      # the worlds after the last pruning: those the decision is taken on
        while True:
            jobs = [(j, a) for j in range(len(chunk)) if hi[j] > lo[j] for a in np.flatnonzero(alive[j])]
            if not jobs:
                break
            for horizon in (self.horizon, self.knock_horizon):    # one kernel call each
                part = [(j, a) for j, a in jobs if (self.knock_horizon if knock[j] else self.horizon) == horizon]
                if not part:
                    continue
                states = every[np.concatenate([np.arange(base[j] + lo[j], base[j] + hi[j]) for j, _ in part])]
                first = np.concatenate([np.full(hi[j] - lo[j], chunk[j][1][a]) for j, a in part])
                score = self._play(states, first, n, cfg, horizon)
                start = 0
                for j, a in part:
                    scores[j][a, lo[j]:hi[j]] = score[start:start + hi[j] - lo[j]]
                    start += hi[j] - lo[j]
                if self.horizon == self.knock_horizon:
                    break
            for j, (_, acts, k, h, _) in enumerate(chunk):
                if lo[j] < hi[j] < k:
                    before = alive[j].sum()
                    self._prune(scores[j][:, :hi[j]], alive[j], int(np.flatnonzero(acts == h)[0]))
                    since[j] = hi[j] if alive[j].sum() < before else since[j]
                lo[j], hi[j] = hi[j], (min(k, 2 * hi[j]) if alive[j].sum() > 1 else hi[j])
        for (i, acts, k, h, _), s, live, done, fresh in zip(chunk, scores, alive, hi, since):
            # Survivors were kept for doing well in the worlds before `fresh`: the choice is taken on the later
            # ones alone, where their luck there does not count (no winner's curse).
            out[i] = self._choose(s[live, fresh:done], acts[live], h) if live.sum() > 1 else int(h)
            if values is not None:
                values[i, acts] = -np.nanmean(s, axis=1)
                if self._visits is not None:
                    self._visits[i, acts] = (~np.isnan(s)).sum(axis=1)

    def _prune(self, s, alive, hpos):
        """After a stage (s: the scores so far, candidates by worlds): drop the candidates worse than the
        prior's choice (row hpos, always kept) by `drop_z` standard errors of the paired differences, then
        keep the better half by mean of those left where more than two are."""
        live = np.flatnonzero(alive)
        d = s[live] - s[hpos]
        se = d.std(axis=1, ddof=1) / np.sqrt(s.shape[1]) + 1e-9
        live = live[(d.mean(axis=1) <= self.drop_z * se) | (live == hpos)]
        if live.size > 2:
            order = live[np.argsort(s[live].mean(axis=1), kind="stable")]
            live = np.union1d(order[:(live.size + 1) // 2], [hpos])
        alive[:] = False
        alive[live] = True

    def _play(self, states, first, n, cfg, horizon):
        """Each state after its first move, played out for `horizon` decisions: the score the search minimizes
        (RolloutAgent's)."""
        vg = self.kit.game_class(states.size, seed=0, autoreset=False, **cfg.to_dict())
        vg.load_states(states)
        vg.step(first)
        return self._score(vg, cfg, horizon)

    _visits = None

    def __repr__(self):
        return (f"SearchAgent(samples={self.samples}, knock_samples={self.knock_samples}, first={self.first}, "
                f"max_candidates={self.max_candidates}, horizon={self.horizon}, knock_horizon={self.knock_horizon}, "
                f"relative={self.relative}, z={self.z}" + (f", prior={self.prior.name!r})" if self.prior else ")"))
