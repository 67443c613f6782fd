"""Small helpers shared by the optimizers of this subpackage: explicit clipping, projection, batches."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["as_data", "batch_slices", "clip_rows", "project_ball"]


def clip_rows(G: np.ndarray, clip_norm: float) -> np.ndarray:
    """``clip(v, C) = v min{1, C / ||v||_2}`` applied to each row (the papers' clip, Sec. 2 of 001)."""
    if math.isinf(clip_norm):
        return G
    norms = np.linalg.norm(G, axis=1, keepdims=True)
    return G * np.minimum(1.0, clip_norm / np.where(norms > 0, norms, 1.0))


def project_ball(x: np.ndarray, radius: float | None) -> np.ndarray:
    """Euclidean projection onto ``{||x||_2 <= radius}`` (001 footnote 2); ``None`` means no constraint."""
    if radius is None:
        return x
    norm = float(np.linalg.norm(x))
    return x if norm <= radius else x * (radius / norm)


def batch_slices(n: int, batch_size: int) -> list[slice]:
    """Consecutive disjoint batches ``B_0, ..., B_{b-1}`` of the data in its given (public) order.

    ``b = n // batch_size``; the last ``n mod batch_size`` examples are not used (they are reported as
    ``n_used`` in the result, and touching no data costs no privacy).
    """
    if batch_size > n:
        raise ValueError(f"Expected batch_size <= number of examples ({n}), got batch_size={batch_size}.")
    return [slice(j * batch_size, (j + 1) * batch_size) for j in range(n // batch_size)]


def as_data(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a data set: ``X`` of shape (n, features), ``y`` of shape (n,) (labels kept in their dtype)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"Expected X of shape (n, features) and y of shape (n,), got X {X.shape}, y {y.shape}."
        )
    return X, y
