"""Reward centring and intercepts for the linear-UCB family: one mechanism for every agent that fits a line.

A ridge model through the origin fitted to {0, 1} rewards must explain their mean (about 0.5) with its slope:
on a shared parameter it tilts towards the mean feature, and on a classification bandit a disjoint model has
no base rate for its class (issue 40 item 4; issue 37 item 6: ``shared-linucb`` and ``ldp-linucb`` lock onto
a wrong direction on some Bernoulli seeds). ``centring`` chooses the remedy:

* ``"none"``: the rewards as they come (the published algorithms: Li et al. 2010, Abbasi-Yadkori et al.
  2011, Zheng et al. 2020, Chowdhury and Zhou 2022);
* ``"range"``: every reward enters as ``r - c``, ``c`` the midpoint of the environment's declared
  ``reward_range`` (contract C1): a public constant. A reward in the range then lies within the range's
  half-width ``h`` of ``c``, so a private agent's report needs the bound ``|r - c| <= h``
  (:meth:`RewardCentring.clip_bound`: 0.5 on {0, 1} rewards, where the uncentred form needs 1); the clip to
  ``[-h, h]`` is applied after centring and only cuts rewards outside the declared range [derived];
* ``"intercept"``: a constant feature 1 appended to every feature row, so each model fits its own intercept
  (a base rate per arm in the disjoint form, one common offset in the shared-parameter form), rewards centred
  as in ``"range"`` when a range is declared (the intercept's ridge then shrinks towards the midpoint). For
  the non-private references only: a private report of ``(1, x)`` has a larger feature bound, which its
  randomizer would have to be calibrated for.

Scores are compared across arms only, so adding ``c`` back never changes the arm played and is not done.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["CENTRINGS", "RewardCentring"]

#: The ``centring`` values (module docstring).
CENTRINGS = ("none", "range", "intercept")


@dataclass(frozen=True)
class RewardCentring:
    """What a linear model subtracts from each reward (``centre``), whether it appends a feature 1, and half
    the declared range's width (``half_width``, ``None`` without a range)."""

    mode: str = "none"
    centre: float = 0.0
    half_width: float | None = None

    @classmethod
    def make(cls, centring: str | None, reward_range: tuple[float, float] | None, *,
             default: str = "none") -> RewardCentring:
        """Validate ``centring`` and the declared ``reward_range`` (both bounds finite, low < high) and
        return the rule; ``centring=None`` takes ``default`` under a declared range and ``"none"`` without
        one; ``"range"`` without a declared range is an error naming both."""
        if centring is None:
            centring = default if reward_range is not None else "none"
        if centring not in CENTRINGS:
            raise ValueError(f"Expected centring in {CENTRINGS}, got {centring!r}.")
        if reward_range is None:
            if centring == "range":
                raise ValueError("Expected a reward_range=(low, high) with centring='range' (the rewards are "
                                 "centred at its midpoint), got none: declare it or use centring='none'.")
            return cls(centring, 0.0)
        low, high = (float(b) for b in reward_range)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(f"Expected reward_range (low, high), finite, low < high, got {reward_range!r}.")
        return cls(centring, 0.0 if centring == "none" else (low + high) / 2.0, (high - low) / 2.0)

    def clip_bound(self, default: float) -> float:
        """The bound ``B`` of a private report's clip ``|r - centre| <= B``: the half-width of the declared range
        when the rewards are centred at its midpoint (every reward in the range passes unclipped, and no
        smaller symmetric bound does), else ``default`` (issue 37 item 6)."""
        if self.mode == "none" or self.half_width is None:
            return default
        return self.half_width

    @property
    def intercept(self) -> bool:
        """Whether a constant feature 1 is appended."""
        return self.mode == "intercept"

    def feature_dim(self, dim: int) -> int:
        """Columns of a model's feature row: ``dim``, plus one with an intercept."""
        return dim + int(self.intercept)

    def features(self, rows: np.ndarray) -> np.ndarray:
        """Feature rows ``(..., dim)`` with a constant 1 appended when fitting an intercept."""
        if not self.intercept:
            return rows
        return np.concatenate([rows, np.ones((*rows.shape[:-1], 1))], axis=-1)

    def rewards(self, rewards: np.ndarray | float) -> np.ndarray | float:
        """Rewards as the model fits them: ``r - centre``."""
        return rewards - self.centre if self.centre else rewards
