"""Shared-context model -> per-arm model with block features.

With one context ``x in R^d`` and one parameter per arm (``theta`` of shape ``(K, d)``), the
block feature of arm ``a`` is ``e_a kron x in R^{dK}`` (``x`` in the a-th block of d columns,
zeros elsewhere), and ``<e_a kron x, vec(theta)> = <x, theta_a>`` with ``vec(theta) =
theta.ravel()`` (row-major). This is the embedding DP-UCB uses for K arms with separate
parameters (Shariff and Sheffet 2018; notes/ofw_hdb.md Section 3.5, also [C]).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from dpbandit import _validate

__all__ = ["BlockFeatures", "block_features"]


def block_features(x: np.ndarray, n_arms: int) -> np.ndarray:
    """Block features of contexts ``x`` of shape ``(..., d)``: returns ``(..., K, d * K)``.

    Row ``a`` is ``e_a kron x``. Leading axes (rounds, replicates) are kept.

    >>> block_features(np.array([1.0, 2.0]), 2)
    array([[1., 2., 0., 0.],
           [0., 0., 1., 2.]])
    """
    n_arms = _validate.integer(n_arms=n_arms, minimum=1)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 1:
        raise ValueError(f"Expected x with at least one axis (..., d), got shape {x.shape}.")
    eye = np.eye(n_arms)
    blocks = eye[:, :, None] * x[..., None, None, :]  # (..., K, K, d)
    return blocks.reshape(*x.shape[:-1], n_arms, n_arms * x.shape[-1])


class BlockFeatures(gym.ObservationWrapper):
    """Turn a ``context_model="shared"`` env into the per-arm model with block features.

    Observations become ``(K, d * K)``; the equivalent shared parameter is :attr:`theta`
    (``env.unwrapped.theta.ravel()``). Rewards, info and seeding are unchanged. For
    ``env.unwrapped.draw_rounds`` blocks, apply :func:`block_features` to the observations.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        base = env.unwrapped
        if getattr(base, "context_model", None) != "shared":
            raise ValueError(
                "BlockFeatures needs an env with context_model='shared', got "
                f"{getattr(base, 'context_model', None)!r}."
            )
        self.n_arms = int(base.n_arms)
        box = env.observation_space
        low, high = min(float(box.low.min()), 0.0), max(float(box.high.max()), 0.0)
        d = box.shape[-1]
        self.observation_space = spaces.Box(low, high, shape=(self.n_arms, d * self.n_arms), dtype=np.float64)

    @property
    def theta(self) -> np.ndarray | None:
        """The shared parameter ``vec(theta)`` of the block model, shape ``(d * K,)``."""
        theta = self.env.unwrapped.theta
        return None if theta is None else theta.ravel()

    def observation(self, observation: Any) -> np.ndarray:
        """Block features of one shared context."""
        return block_features(observation, self.n_arms)
