"""Adaptive clipping for batched private agents: the context norm ``C`` and the reward clip ``B``.

A batched agent clips each played row to ``||x||_2 <= C`` (or each coordinate to ``[-C, C]``) and each reward to
``c +- B`` (``c`` a fixed, public centre) before summing, so its released sums have sensitivities proportional to ``C B``. Good values depend on
the data, which is private, so ``C`` and ``B`` adapt from batch to batch by the geometric update of Andrew et
al. (2021), "Differentially Private Learning with Adaptive Clipping", Algorithm 1 [O]: with ``p`` the batch's
fraction of rows inside the clip (released with noise),

    ``C <- C * exp(-rate * (p - quantile))``,

which drives ``C`` towards the ``quantile``-quantile of the norms (likewise ``B`` for ``|r - c|``); ``rate`` halves
each time ``p - quantile`` changes sign (a bisection on the log scale [Fill]: with norms in a narrow band, e.g.
Gaussian contexts in d = 4000, a fixed rate jumps over the band every batch and never settles). The values
used in batch ``l`` are functions of earlier batches' releases only (post-processing). Each clip stays within
``[1e-9, 1e9]`` times its first value (a guard against under/overflow when, e.g., binary rewards make the
inside fraction jump past the quantile; below 1 every clip of a {0, 1} reward is the same rescaling).

Blocks released per batch (one user changes each by at most the stated l2 sensitivity, replace-one):

* ``context_inside``: number of rows with ``||x|| <= C`` (the clip's norm); sensitivity 1;
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

__all__ = ["BLOCKS", "AdaptiveClipping", "check_rewards", "reward_range_defaults", "validate_reward_range"]

BLOCKS = ("context_inside", "reward_inside")
_RANGE = 1e9


def validate_reward_range(reward_range: tuple[float, float] | None) -> tuple[float, float] | None:
    """``None``, or the declared reward range ``(low, high)`` as floats: finite, ``low < high``."""
    if reward_range is None:
        return None
    try:
        low, high = reward_range
    except (TypeError, ValueError):
        raise ValueError(f"Expected reward_range=(low, high), two numbers, got {reward_range!r}.") from None
    low, high = _validate.finite(reward_range_low=low), _validate.finite(reward_range_high=high)
    if not low < high:
        raise ValueError(f"Expected reward_range=(low, high) with low < high, got {reward_range!r}.")
    return low, high


def reward_range_defaults(
    reward_range: tuple[float, float], center: float | None = None
) -> tuple[float, float]:
    """Centre and first clip for rewards in ``[low, high]``: the midpoint (unless ``center`` is given) and the
    largest distance from the centre to an end (the half-width for the midpoint): the clip loses nothing."""
    low, high = reward_range
    c = 0.5 * (low + high) if center is None else center
    return c, max(high - c, c - low)


def check_rewards(rewards: np.ndarray, reward_range: tuple[float, float] | None) -> None:
    """Raise naming ``reward_range`` if a reward lies outside the declared range (the env broke it)."""
    if reward_range is None:
        return
    low, high = reward_range
    outside = (rewards < low) | (rewards > high)
    if np.any(outside):
        bad = float(np.asarray(rewards)[outside][0])
        raise ValueError(
            f"Got reward {bad!r} outside the declared reward_range={reward_range!r}: the environment broke "
            "its declared bounds (the centre and clips were set from them); fix the environment or its range."
        )


class AdaptiveClipping:
    """State and statistics of the adaptive clips (module docstring).

    Args:
        context_clip, reward_clip: first values of ``C`` and ``B`` (> 0).
        context_quantile, reward_quantile: target quantiles in (0, 1).
        rate: step of the geometric update (> 0).
        reward_center: the fixed centre ``c`` of the rewards.
        context_norm: ``2`` (rows scaled to ``||x||_2 <= C``) or ``math.inf`` (coordinates clipped to
            ``[-C, C]``, for statistics whose sensitivity is per coordinate).
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
        context_norm: float = 2.0,
    ) -> None:
        self.context_clip = _validate.positive(context_clip=context_clip)
        self.reward_clip = _validate.positive(reward_clip=reward_clip)
        self.context_quantile = _validate.probability(context_quantile=context_quantile)
        self.reward_quantile = _validate.probability(reward_quantile=reward_quantile)
        self.rate = _validate.positive(clip_rate=rate)
        self._rates = {"context_clip": self.rate, "reward_clip": self.rate}
        self._last_sign = {"context_clip": 0.0, "reward_clip": 0.0}
        self.reward_center = _validate.finite(reward_center=reward_center)
        self.context_norm = _validate.one_of((2.0, math.inf), context_norm=float(context_norm))
        self._bounds = {
            "context_clip": (self.context_clip / _RANGE, self.context_clip * _RANGE),
            "reward_clip": (self.reward_clip / _RANGE, self.reward_clip * _RANGE),
        }

    def clip_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows clipped to ``||x||_2 <= C`` (scaled) or ``||x||_inf <= C`` (per coordinate), and the indicator
        of rows already inside."""
        if self.context_norm == math.inf:
            inside = np.max(np.abs(rows), axis=1) <= self.context_clip
            return np.clip(rows, -self.context_clip, self.context_clip), inside
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
            sign = math.copysign(1.0, inside - quantile)
            if sign * self._last_sign[attr] < 0:
                self._rates[attr] /= 2.0
            self._last_sign[attr] = sign
            low, high = self._bounds[attr]
            value = getattr(self, attr) * math.exp(-self._rates[attr] * (inside - quantile))
            setattr(self, attr, float(np.clip(value, low, high)))
