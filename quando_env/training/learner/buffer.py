"""The rollout buffer: the decisions one rollout collected, their legal moves, and how they were collected.

(The rollout search agent is another module, quando_env.agents.rollout.) A `Rollout` is filled by
`Collector.collect`; decisions still waiting for their rewards when it ends are carried to the front of the next one.
"""
from dataclasses import dataclass, fields

import numpy as np

from .. import sparse


@dataclass(slots=True)
class Transition:
    """The learner seats' decisions of a rollout, one row each, as typed arrays (PureJaxRL's `Transition`).
    `buf[name]` reads a field too, as the dict of arrays it replaces did."""

    obs: np.ndarray         # (cap, obs_dim) float32: what the deciding seat observed
    mask: np.ndarray        # (cap, num_actions) bool: its legal actions
    act: np.ndarray         # (cap,) int64: the action taken
    logp: np.ndarray        # (cap,) float32: its log-probability under the policy that acted
    val: np.ndarray         # (cap,) float32: the value estimate
    rew: np.ndarray         # (cap,) float32: the reward until the seat's next decision
    nxt: np.ndarray         # (cap,) int64: the row of the same seat's next decision, -1 until there is one
    fstart: np.ndarray      # (cap,) int64: its first legal move's row of Rollout.feats
    nlegal: np.ndarray      # (cap,) int64: its legal moves (rows of feats from fstart)
    anchor: np.ndarray      # (cap,) int64: the heuristic's move (anchored runs)

    @classmethod
    def zeros(cls, cap: int, obs_dim: int, num_actions: int) -> "Transition":
        return cls(obs=np.zeros((cap, obs_dim), np.float32), mask=np.zeros((cap, num_actions), bool),
                   act=np.zeros(cap, np.int64), logp=np.zeros(cap, np.float32), val=np.zeros(cap, np.float32),
                   rew=np.zeros(cap, np.float32), nxt=np.full(cap, -1, np.int64), fstart=np.zeros(cap, np.int64),
                   nlegal=np.zeros(cap, np.int64), anchor=np.zeros(cap, np.int64))

    def items(self) -> list[tuple[str, np.ndarray]]:
        """(name, array) of every field."""
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def __getitem__(self, name: str) -> np.ndarray:
        return getattr(self, name)


class Rollout:
    """One rollout's decisions (`buf`, a Transition: rows 0..count-1, the carried ones first), their legal moves'
    feature rows (decision i's from buf.fstart[i], in order), and how it was collected: `segments` (row ranges, one
    per step), `ready` (rows whose rewards are complete), `imitating` (the warm start's), `tally` (episodes ended,
    learner seats in them, their wins)."""

    def __init__(self, cap: int, obs_dim: int, num_actions: int, num_features: int):
        self.buf = Transition.zeros(cap, obs_dim, num_actions)
        self.count = 0
        self.moves = num_features > 0
        self.feats = np.zeros((cap * 8 if self.moves else 0, num_features), np.float32)
        self.lacts = np.zeros(len(self.feats), np.int64)     # their actions
        self.fcount = 0
        self.segments, self.ready, self.imitating = [], np.zeros(0, bool), False
        self.batches = None                 # its minibatches, once prepared (Learner.prepare), and the ready
        self.returns = self.values = np.zeros(0, np.float32)    # decisions' returns and values
        self.tally = {"episodes": 0, "learner_seats": 0, "learner_wins": 0}

    def store_moves(self, ids: np.ndarray, moves: tuple) -> None:
        """Keep the legal moves (rows 0.., actions, features: `Collector.legal_features`) of decisions ids
        (consecutive, in order)."""
        if not self.moves:
            return
        rows, acts, feats = moves
        counts = np.bincount(rows, minlength=len(ids))
        end = self.fcount + len(feats)
        if end > len(self.feats):
            size = max(2 * len(self.feats), end)
            self.feats = np.concatenate([self.feats[:self.fcount], np.zeros((size - self.fcount, feats.shape[1]),
                                                                            np.float32)])
            self.lacts = np.concatenate([self.lacts[:self.fcount], np.zeros(size - self.fcount, np.int64)])
        self.buf.fstart[ids] = self.fcount + np.cumsum(counts) - counts
        self.buf.nlegal[ids] = counts
        self.feats[self.fcount:end], self.lacts[self.fcount:end] = feats, acts
        self.fcount = end

    def stored_moves(self, ids: np.ndarray) -> tuple:
        """The legal moves (rows 0..len(ids)-1, actions, features) of decisions ids (any order)."""
        counts = self.buf.nlegal[ids]
        at = sparse.runs(self.buf.fstart[ids], counts)
        return np.repeat(np.arange(len(ids)), counts), self.lacts[at], self.feats[at]

    def start(self, src: "Rollout", held: np.ndarray, imitating: bool) -> None:
        """Begin a rollout: src's decisions held (still waiting for rewards) become rows 0..k-1 (src may be this
        rollout)."""
        k = held.size
        kept = src.stored_moves(held) if self.moves and k else None
        for name, arr in self.buf.items():
            arr[:k] = src.buf[name][held]
        self.buf.rew[k:] = 0.0
        self.buf.nxt[:] = -1
        self.count, self.fcount = k, 0
        if kept is not None:
            self.store_moves(np.arange(k), kept)
        self.segments, self.imitating, self.batches = [(0, k)], imitating, None
        self.tally = dict.fromkeys(self.tally, 0)
