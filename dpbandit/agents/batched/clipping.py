"""Adaptive clipping for batched private agents: the context norm ``C`` and the reward clip ``B``.

A batched agent clips each played row to ``||x||_2 <= C`` and each reward to ``c +- B`` (``c`` a fixed, public
centre) before summing, so its released sums have sensitivities proportional to ``C B``. Good values depend on
the data, which is private, so ``C`` and ``B`` adapt from batch to batch by the geometric update of Andrew et
al. (2021), "Differentially Private Learning with Adaptive Clipping", Algorithm 1 [O]: with ``p`` the batch's
fraction of rows inside the clip (released with noise),

    ``C <- C * exp(-rate * (p - quantile))``,

which drives ``C`` towards the ``quantile``-quantile of the norms (likewise ``B`` for ``|r - c|``). The values
used in batch ``l`` are functions of earlier batches' releases only (post-processing). Each clip stays within
``[1e-9, 1e9]`` times its first value (a guard against under/overflow when, e.g., binary rewards make the
inside fraction jump past the quantile; below 1 every clip of a {0, 1} reward is the same rescaling).

Blocks released per batch (one user changes each by at most the stated l2 sensitivity, replace-one):

* ``context_inside``: number of rows with ``||x||_2 <= C``; sensitivity 1;
* ``reward_inside``: number of rewards with ``|r - c| <= B``; sensitivity 1.

Defaults [Fill]: median (``quantile = 0.5``) for both, ``rate = 2`` (a batch moves a clip by at most a factor
``e``; the batches are few, O(log T), unlike Andrew et al.'s thousands of rounds), first values ``C = sqrt(dim)``
(the norm of a point with unit coordinates) and ``B = 1``, ``c = 0``. A centre adapted to the batch's mean reward
was measured and dropped: at the Figure 5.1 setting it raised regret from 0.29x to 0.39x random (30 seeds; the
greedy arm's users have a shifted mean context, and a pooled centre turns that shift into spurious coefficients).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from dpbandit import _validate

__all__ = ["BLOCKS", "AdaptiveClipping"]

BLOCKS = ("context_inside", "reward_inside")
_RANGE = 1e9


class AdaptiveClipping:
    """State and statistics of the adaptive clips (module docstring).

    Args:
        context_clip, reward_clip: first values of ``C`` and ``B`` (> 0).
        context_quantile, reward_quantile: target quantiles in (0, 1).
        rate: step of the geometric update (> 0).
        reward_center: the fixed centre ``c`` of the rewards.
    """

    def __init__(
        self,
        *,
        context_clip: float,
        reward_clip: float = 1.0,
        context_quantile: float = 0.5,
        reward_quantile: float = 0.5,
        rate: float = 2.0,
        reward_center: float = 0.0,
    ) -> None:
        self.context_clip = _validate.positive(context_clip=context_clip)
        self.reward_clip = _validate.positive(reward_clip=reward_clip)
        self.context_quantile = _validate.probability(context_quantile=context_quantile)
        self.reward_quantile = _validate.probability(reward_quantile=reward_quantile)
        self.rate = _validate.positive(clip_rate=rate)
        self.reward_center = _validate.finite(reward_center=reward_center)
        self._bounds = {
            "context_clip": (self.context_clip / _RANGE, self.context_clip * _RANGE),
            "reward_clip": (self.reward_clip / _RANGE, self.reward_clip * _RANGE),
        }

    def clip_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows scaled to ``||x||_2 <= C`` and the indicator of rows already inside."""
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
        inside = norms <= self.context_clip
        factor = np.where(inside, 1.0, self.context_clip / np.where(inside, 1.0, norms))
        return rows * factor[:, None], inside

    def clip_rewards(self, rewards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``clip(r - c, -B, B)`` and the indicator ``|r - c| <= B``."""
        centred = np.asarray(rewards, dtype=float) - self.reward_center
        return np.clip(centred, -self.reward_clip, self.reward_clip), np.abs(centred) <= self.reward_clip

    @staticmethod
    def sensitivities() -> dict[str, float]:
        """l2 sensitivity of each block (replace-one): one user moves each count by at most 1."""
        return {"context_inside": 1.0, "reward_inside": 1.0}

    def update(self, released: Mapping[str, np.ndarray], batch_size: int) -> None:
        """Post-process a batch's released counts into the next batch's ``C`` and ``B``.

        ``batch_size`` is public (fixed by the schedule), so the fractions need no released total.
        """
        n = _validate.integer(batch_size=batch_size, minimum=1)
        for name, quantile, attr in (
            ("context_inside", self.context_quantile, "context_clip"),
            ("reward_inside", self.reward_quantile, "reward_clip"),
        ):
            inside = float(np.clip(float(np.asarray(released[name]).sum()) / n, 0.0, 1.0))
            low, high = self._bounds[attr]
            value = getattr(self, attr) * math.exp(-self.rate * (inside - quantile))
            setattr(self, attr, float(np.clip(value, low, high)))
