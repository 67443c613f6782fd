"""Empirical objectives F(w; S) = (1/n) sum_i f(w; x_i) as the KL optimizers consume them.

Paper: ``003_1cb6b915a0a92f82.txt`` (Menart et al., DP non-convex optimization under the KL condition).
All of its algorithms touch the data only through per-example gradients at a query point (mean gradients,
gradient differences, gradient norms), so an :class:`Objective` exposes exactly that:

- ``n``: the number of samples (the neighbour relation and every sensitivity are stated in terms of it);
- ``weights`` (m,): the fraction of the n samples carried by each of m stored rows (``1/n`` each for an
  ordinary data set; a data set with many repeated points is stored once per distinct point, which lets the
  experiments run n up to 1e9 at O(m d) cost per gradient);
- ``value(w)``, ``per_example_grad(w)`` (m, d) and ``grad(w)`` (the weighted mean).

:class:`EmpiricalRisk` adapts any loss of the ``dpbandit.optim.losses`` contract
(``value/grad/per_example_grad(theta, X, y)``) into an objective.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from dpbandit import _validate as v

__all__ = ["EmpiricalRisk", "Objective", "clip_rows", "clipped_mean", "mean_grad"]


@runtime_checkable
class Objective(Protocol):
    """Empirical risk over n samples stored as m weighted rows (see module docstring)."""

    n: int
    dim: int
    weights: np.ndarray

    def value(self, w: np.ndarray) -> float: ...

    def per_example_grad(self, w: np.ndarray) -> np.ndarray: ...


def clip_rows(rows: np.ndarray, clip_norm: float) -> np.ndarray:
    """Scale each row of ``rows`` (m, d) to l2 norm <= ``clip_norm`` (the Euclidean projection onto the ball,
    hence non-expansive: clipped gradients keep every difference bound of the unclipped ones)."""
    norms = np.linalg.norm(rows, axis=1)
    return rows * np.minimum(1.0, clip_norm / np.maximum(norms, np.finfo(float).tiny))[:, None]


def clipped_mean(rows: np.ndarray, weights: np.ndarray, clip_norm: float | None) -> np.ndarray:
    """Weighted mean of the rows of ``rows`` (m, d), each first clipped to l2 norm <= ``clip_norm``.

    ``clip_norm=None`` means no clipping. Clipping is the explicit, documented option of the optimizers
    that keeps the sensitivity bound unconditional (notes P3); it is a no-op where the bound already holds.
    """
    return weights @ (rows if clip_norm is None else clip_rows(rows, clip_norm))


def mean_grad(objective: Objective, w: np.ndarray, clip_norm: float | None = None) -> np.ndarray:
    """(1/n) sum_i clip(grad f(w; x_i)): the query every algorithm privatises."""
    return clipped_mean(objective.per_example_grad(w), objective.weights, clip_norm)


class EmpiricalRisk:
    """Objective view of a ``dpbandit.optim.losses`` loss on a concrete data set ``(X, y)``."""

    def __init__(self, loss: Any, X: np.ndarray, y: np.ndarray | None = None) -> None:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"Expected X to be 2-d (n, d), got shape {X.shape}.")
        self.loss, self.X, self.y = loss, X, y
        self.n = v.integer(n=X.shape[0], minimum=1)
        self.dim = X.shape[1]
        self.weights = np.full(self.n, 1.0 / self.n)

    def value(self, w: np.ndarray) -> float:
        return float(self.loss.value(w, self.X, self.y))

    def per_example_grad(self, w: np.ndarray) -> np.ndarray:
        return np.asarray(self.loss.per_example_grad(w, self.X, self.y), dtype=float)
