"""The learner's first layer on the nonzeros of the observations.

Observations are mostly zeros (one-hot parts: about 3% of Cabo's 2,015 numbers are nonzero, 10% of Quando's
1,152), and the first layer's dense products (forward, and the weights' gradient) were most of a training step.
`linear(x, layer)` computes the same `x @ W.T + b` from the nonzeros alone: the forward pass and the weights'
gradient are each one `embedding_bag` (a sum of weighted rows), by row and by column. Same numbers up to the
order of float additions; the model file and LearnedAgent are unchanged.
"""
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F


@dataclass
class SparseRows:
    """The nonzeros of a (rows, width) batch, row by row: x[rows[i], cols[i]] = vals[i]; row r's run starts at
    offsets[r]."""

    num_rows: int
    width: int
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    offsets: np.ndarray
    columns: tuple | None = None        # by_column's result, once found (`with_columns`)

    def by_column(self) -> tuple:
        """(row indices, offsets, values) of the same nonzeros in column order: the transposed batch (a stable
        radix sort of 16-bit column numbers when the width allows it)."""
        if self.columns is not None:
            return self.columns
        key = self.cols.astype(np.uint16) if self.width <= 1 << 16 else self.cols
        order = np.argsort(key, kind="stable")
        counts = np.bincount(self.cols, minlength=self.width)
        return self.rows[order], np.cumsum(counts) - counts, self.vals[order]

    def with_columns(self) -> "SparseRows":
        """This batch with its transpose found now (for a backward pass run later, or in another thread)."""
        self.columns = self.by_column()
        return self

    def take(self, ids: np.ndarray) -> "SparseRows":
        """The rows ids of this batch (any order), as a batch of their own: a minibatch of a rollout whose
        nonzeros were found once."""
        counts = np.diff(self.offsets, append=len(self.cols))[ids]
        at = runs(self.offsets[ids], counts)
        return SparseRows(len(ids), self.width, np.repeat(np.arange(len(ids)), counts), self.cols[at], self.vals[at],
                          np.cumsum(counts) - counts)


def runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices of runs of counts[i] consecutive items from starts[i], concatenated in order (a ragged
    gather: the nonzeros of chosen rows, the legal moves' feature rows of chosen decisions)."""
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if len(ends) else 0) + np.repeat(starts - (ends - counts), counts)


def sparse_rows(x: np.ndarray) -> SparseRows:
    """The nonzeros of a 2-D float array."""
    x = np.ascontiguousarray(x, np.float32)
    n, d = x.shape
    flat = np.flatnonzero(x != 0)
    rows, cols = np.divmod(flat, d)
    counts = np.bincount(rows, minlength=n)
    return SparseRows(n, d, rows, cols, x.ravel()[flat], np.cumsum(counts) - counts)


def _bag(index, table, offsets, weights):
    """sum over each run of index (starting at offsets) of weights * table[index]."""
    dev = table.device
    return F.embedding_bag(torch.from_numpy(index).to(dev), table, torch.from_numpy(offsets).to(dev),
                           per_sample_weights=torch.from_numpy(weights).to(dev), mode="sum")


class _SparseLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, bias, x: SparseRows):
        ctx.x = x
        return _bag(x.cols, weight.t().contiguous(), x.offsets, x.vals) + bias

    @staticmethod
    def backward(ctx, grad):
        rows, offsets, vals = ctx.x.by_column()
        grad_weight_t = _bag(rows, grad.contiguous(), offsets, vals)       # (width, out) = x.T @ grad
        return grad_weight_t.t(), grad.sum(0), None


def linear(x: SparseRows, layer: torch.nn.Linear) -> torch.Tensor:
    """layer(x) for a batch given by its nonzeros, with gradients for the layer's weight and bias."""
    return _SparseLinear.apply(layer.weight, layer.bias, x)
