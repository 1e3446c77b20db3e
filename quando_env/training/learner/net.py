"""The network and the masked policy it defines: what a decision is computed by, and what the losses read.

`Net` is a ReLU MLP trunk with a policy head and a value head, and optionally a move scorer that reads each legal
move's features (`Legal` then holds the legal moves' outputs alone); the functions turn its outputs into the masked
softmax the learner acts by and learns from (illegal moves get probability 0).
"""
import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .. import sparse


class Net(nn.Module):
    """A ReLU MLP trunk with a policy head (one output per action) and a value head; with `move` = (F, (h1, h2)),
    a move scorer adds to each legal move's output a score of the trunk's output and the move's features (the
    candidate move as an input of the network, as in DouZero; agents.learned has the formula)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: tuple, move: tuple | None = None):
        super().__init__()
        layers, width = [], obs_dim
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)
        self.has_move = bool(move)
        if move:
            features, (h1, h2) = move
            self.move_state = nn.Linear(width, h1, bias=False)
            self.move_feat = nn.Linear(features, h1)
            self.move_hidden = nn.Linear(h1, h2)
            self.move_out = nn.Linear(h2, 1)
        for layer in self.modules():
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, 0.01 if layer is self.policy else 2 ** 0.5)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        if move:        # scores start at 0: a model given as init plays as it did until the scorer learns
            nn.init.zeros_(self.move_out.weight)

    def forward(self, x, moves=None):
        """x: a tensor of observations, or their nonzeros (training.sparse: the same result, faster); moves: the
        legal moves (rows, actions, features (L, F)) for a model with a move scorer. Returns (policy outputs,
        values): outputs (B, num_actions), or with a scorer `Legal`: the legal moves' outputs alone (Cabo has about
        6 legal of 350 actions, and the scorer's rows are most of the work)."""
        z = self.trunk(x) if torch.is_tensor(x) else self.trunk[1:](sparse.linear(x, self.trunk[0]))
        value = self.value(z).squeeze(-1)
        logits = self.policy(z)
        if not self.has_move:
            return logits, value
        rows, acts, feats = moves
        size = logits.shape[1]
        state = torch.index_select(self.move_state(z) + self.move_feat.bias, 0, rows)
        h = torch.relu(torch.addmm(state, feats, self.move_feat.weight.t()))     # move_state(z) + move_feat(feats)
        score = torch.index_select(logits.reshape(-1), 0, rows * size + acts) \
            + self.move_out(torch.relu(self.move_hidden(h))).squeeze(-1)
        return Legal(score, rows, acts, len(z), size), value


@dataclass
class Legal:
    """A policy's outputs of the legal moves alone: `score[i]` is row rows[i]'s output of action acts[i], row by
    row in action order (legal_moves' order). The masked softmax and its loss terms are computed on these L
    numbers rather than on (B, num_actions) outputs that are -1e9 but for them."""

    score: torch.Tensor
    rows: torch.Tensor
    acts: torch.Tensor
    num_rows: int
    num_actions: int

    def index(self, actions: torch.Tensor) -> torch.Tensor:
        """Where each row's action (a legal one) is in `score`."""
        rows = torch.arange(self.num_rows, device=actions.device)
        return torch.searchsorted(self.rows * self.num_actions + self.acts, rows * self.num_actions + actions)

    def add(self, actions: torch.Tensor, weight: float) -> "Legal":
        """The same outputs with `weight` added to each row's action (a legal one)."""
        return dataclasses.replace(self, score=self.score.index_add(0, self.index(actions),
                                                                    self.score.new_full((len(actions),), weight)))

    def dense(self) -> torch.Tensor:
        """(B, num_actions) outputs, -1e9 for the illegal ones (as `masked_log_probs` makes them)."""
        size = self.num_actions
        out = self.score.new_full((self.num_rows * size,), -1e9)
        return out.index_copy(0, self.rows * size + self.acts, self.score).view(self.num_rows, size)

    def per_row(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) sums of x (L,) over each row's legal moves."""
        return x.new_zeros(self.num_rows).index_add(0, self.rows, x)

    def row_max(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) maxima of x (L,) over each row's legal moves (no gradient)."""
        return x.new_full((self.num_rows,), -torch.inf).scatter_reduce(0, self.rows, x.detach(), "amax")

    def log_probs(self) -> torch.Tensor:
        """(L,) log-softmax of each row's legal outputs."""
        shifted = self.score - self.row_max(self.score)[self.rows]
        return shifted - self.per_row(shifted.exp()).log()[self.rows]


def legal_moves(masks: np.ndarray, feats: np.ndarray, device="cpu") -> tuple:
    """(rows, actions, features) tensors of the legal moves of a batch, row by row: feats holds their feature rows
    in that order (L, F)."""
    return as_tensors((*np.nonzero(masks), feats), device)


def anchored(logits, anchor, weight: float):
    """The policy's outputs: the network's `logits` (dense or Legal), plus `weight` on the heuristic's moves
    `anchor` (a tensor of actions; None: the logits as they are), as agents.learned plays an anchored model."""
    if anchor is None:
        return logits
    if isinstance(logits, Legal):
        return logits.add(anchor, weight)
    rows = torch.arange(len(anchor), device=logits.device)
    return logits.index_put((rows, anchor), logits.new_tensor(weight), accumulate=True)


def as_tensors(moves: tuple | None, device="cpu") -> tuple | None:
    """(rows, actions, features) arrays as tensors on the device (None stays None)."""
    return None if moves is None else tuple(torch.from_numpy(np.ascontiguousarray(x)).to(device) for x in moves)


def masked_log_probs(logits, masks):
    """log-softmax over the legal actions (illegal ones get -1e9: probability 0, no NaN in p * log p)."""
    return torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)


def masked_probs(logp_all, masks):
    """exp(masked_log_probs), 0 where illegal, without exp(-1e9) (an underflow that makes exp ~15x slower)."""
    return torch.where(masks, logp_all, 0.0).exp() * masks


def dense(logits) -> torch.Tensor:
    """(B, num_actions) policy outputs, from the network's (dense, or `Legal`)."""
    return logits.dense() if isinstance(logits, Legal) else logits


def policy_terms(logits, masks, acts) -> tuple:
    """(log-probability of each row's action, mean entropy, whether the action is the likeliest legal one) of the
    masked softmax, from dense outputs or `Legal` ones."""
    if isinstance(logits, Legal):
        logp_legal = logits.log_probs()
        logp = logp_legal[logits.index(acts)]
        entropy = -logits.per_row(logp_legal.exp() * logp_legal).mean()
        return logp, entropy, logp.detach() >= logits.row_max(logp_legal)
    logp_all = masked_log_probs(logits, masks)
    logp = logp_all.gather(1, acts[:, None]).squeeze(1)
    entropy = -(masked_probs(logp_all, masks) * logp_all).sum(1).mean()
    return logp, entropy, logp_all.argmax(1) == acts
