"""Evaluation metrics of Section 5.2 of 004_290fd04a1e656565.txt: risk and SubOpt.

* risk(theta) = L(theta, X_test) = (1/n) sum_i (y_i - <x_i, theta>)^2 (any :class:`Loss` works);
* SubOpt(theta) = (L(theta) - L(theta_ref)) / (L(theta_0) - L(theta_ref)) with theta_0 = 0 (every
  algorithm's initial point) and theta_ref the true parameter (the paper's choice; pass the
  constrained minimiser instead if the truth is outside C).

Both accept a batch of iterates ``(k, dim)`` and are vectorised over it.
"""

from __future__ import annotations

import numpy as np

from dpbandit.optim.losses import GLMLoss, Loss, SquaredLoss

__all__ = ["risk", "subopt"]


def risk(theta: np.ndarray, X: np.ndarray, y: np.ndarray, loss: Loss | None = None) -> np.ndarray | float:
    """Mean test loss of one iterate ``(dim,)`` (float) or of each row of ``(k, dim)`` (array)."""
    loss = SquaredLoss() if loss is None else loss
    theta = np.asarray(theta, dtype=float)
    if theta.ndim == 1:
        return loss.value(theta, X, y)
    if isinstance(loss, GLMLoss):  # one matrix product for the whole batch
        z = np.asarray(X, dtype=float) @ theta.T
        return np.mean(loss.link_value(z, np.asarray(y, dtype=float)[:, None]), axis=0)
    return np.array([loss.value(th, X, y) for th in theta])


def subopt(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    theta_ref: np.ndarray,
    loss: Loss | None = None,
) -> np.ndarray | float:
    """SubOpt of Section 5.2 relative to the reference parameter and the zero initialisation."""
    ref = risk(theta_ref, X, y, loss)
    zero = risk(np.zeros_like(np.asarray(theta_ref, dtype=float)), X, y, loss)
    return (risk(theta, X, y, loss) - ref) / (zero - ref)
