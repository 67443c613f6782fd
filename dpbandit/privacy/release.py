"""One Gaussian release of several statistics ("blocks"), each with its own sensitivity and budget share.

A batched private agent releases, once per batch, a few statistics of that batch's users (e.g. a per-arm
sum of clipped ``x r``, per-arm counts, histograms). :class:`BlockGaussianRelease` adds to block ``b`` the
noise ``N(0, sigma_b^2 I)`` with

    ``sigma_b = z * Delta_b / sqrt(share_b)``,  ``sum_b share_b = 1``,

where ``Delta_b`` is the block's l2 sensitivity (replace-one: ``sup ||f_b(D) - f_b(D')||_2`` over
neighbouring ``D, D'``; the caller derives it) and ``z`` is the noise multiplier of one Gaussian mechanism
meeting ``(epsilon, delta)``. Guarantee [O]: scale block ``b`` by ``sqrt(share_b) / Delta_b``; the stacked,
rescaled statistic has l2 sensitivity ``sqrt(sum_b share_b Delta_b^2 / Delta_b^2) <= 1`` (each block moves by at
most its own ``Delta_b``), and the noise on it is ``N(0, z^2 I)``, so the whole release is one Gaussian mechanism
with noise multiplier ``z``: ``GaussianDpEvent(z)``. ``z`` is calibrated by ``dp_accounting``'s PLD accountant
(tight for the Gaussian; :func:`dpbandit.privacy.accounting.gaussian_sigma`).

Releasing a fresh batch of users each time (every user in exactly one release) composes in parallel: the
whole sequence of releases is ``(epsilon, delta)``-DP, not ``L`` times that, even though later batches are
chosen adaptively from earlier releases (the releases of other batches are post-processing of independent
data given the earlier releases). That argument belongs to the agent that batches the users
(:mod:`dpbandit.agents.batched`); this module provides the mechanism and its event.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import dp_accounting
import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy import accounting, recording

__all__ = ["BlockGaussianRelease", "gaussian_multiplier"]

_SHARE_TOL = 1e-9


@functools.lru_cache(maxsize=256)
def gaussian_multiplier(epsilon: float, delta: float) -> float:
    """Noise multiplier (std / l2 sensitivity) of one Gaussian mechanism meeting (epsilon, delta), PLD-calibrated.

    Memoised: the calibration takes seconds and agents of a sweep share a few (epsilon, delta) pairs.
    """
    return accounting.gaussian_sigma(epsilon, delta)


@functools.lru_cache(maxsize=256)
def _pld_epsilon(multiplier: float, delta: float) -> float:
    return accounting.epsilon_for(dp_accounting.GaussianDpEvent(multiplier), delta, "pld")


class BlockGaussianRelease:
    """A calibrated Gaussian mechanism over named blocks with budget shares (module docstring).

    Args:
        epsilon, delta: target guarantee of one release (``delta`` in (0, 1)).
        shares: block name -> share of the budget (positive, summing to 1): block ``b``'s noise std is
            ``z * Delta_b / sqrt(share_b)``.
        rho: calibrate to ``rho``-zCDP instead (``z = 1 / sqrt(2 rho)``: the Gaussian mechanism with noise
            multiplier ``z`` is ``1/(2 z^2)``-zCDP, Bun and Steinke 2016), for releases composed with other
            zCDP mechanisms; ``epsilon, delta`` are then the target the caller derived ``rho`` from.
        noise: ``False`` = debugging switch: no noise (``z = 0``), no guarantee.

    Example:
        >>> import numpy as np
        >>> rel = BlockGaussianRelease(1.0, 1e-4, {"sums": 0.9, "counts": 0.1})
        >>> out = rel.release(np.random.default_rng(0), {"sums": np.zeros(3), "counts": np.zeros(2)},
        ...                   {"sums": 2.0, "counts": math.sqrt(2)})
        >>> round(float(rel.sigma("sums", 2.0) / (2.0 / math.sqrt(0.9))), 4) == round(rel.multiplier, 4)
        True
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        shares: Mapping[str, float],
        *,
        rho: float | None = None,
        noise: bool = True,
    ) -> None:
        self.epsilon = v.positive(epsilon=epsilon)
        self.delta = v.probability(delta=delta)
        if not shares:
            raise ValueError("Expected at least one block in shares={}.")
        self.shares = {str(name): v.positive(**{f"shares[{name!r}]": share}) for name, share in shares.items()}
        total = sum(self.shares.values())
        if abs(total - 1.0) > _SHARE_TOL:
            raise ValueError(f"Expected shares summing to 1, got {total!r} from shares={dict(shares)!r}.")
        self.noise = bool(noise)
        self.rho = None if rho is None else v.positive(rho=rho)
        #: Noise multiplier z of the stacked release (std / sensitivity); 0 with noise off.
        if not self.noise:
            self.multiplier = 0.0
        elif self.rho is not None:
            self.multiplier = 1.0 / math.sqrt(2.0 * self.rho)
        else:
            self.multiplier = gaussian_multiplier(self.epsilon, self.delta)

    def sigma(self, block: str, sensitivity: float) -> float:
        """Noise std of ``block`` when its l2 sensitivity is ``sensitivity``: ``z Delta / sqrt(share)``."""
        if block not in self.shares:
            raise ValueError(f"Unknown block={block!r}; blocks: {', '.join(self.shares)}.")
        sensitivity = v.positive(sensitivity=sensitivity)
        return self.multiplier * sensitivity / math.sqrt(self.shares[block])

    def release(
        self,
        rng: np.random.Generator,
        values: Mapping[str, np.ndarray],
        sensitivities: Mapping[str, float],
    ) -> dict[str, np.ndarray]:
        """Return every block plus its noise (one fresh draw per coordinate, blocks in ``shares`` order).

        The output passes through :func:`dpbandit.privacy.recording.released` (recorded or replayed by the
        post-processing tests; the identity otherwise).

        ``values`` and ``sensitivities`` must name exactly the blocks of ``shares``: a block left out of a
        release would not change the guarantee but would signal a bookkeeping error, so it is refused.
        """
        v.rng(rng=rng)
        for what, given in (("values", values), ("sensitivities", sensitivities)):
            if set(given) != set(self.shares):
                raise ValueError(
                    f"Expected {what} for exactly the blocks {sorted(self.shares)}, got {sorted(given)}."
                )
        out = {}
        for name in self.shares:
            value = np.array(values[name], dtype=float)
            if not np.all(np.isfinite(value)):
                raise ValueError(f"Expected finite values for block {name!r}.")
            sigma = self.sigma(name, sensitivities[name])
            out[name] = value + sigma * rng.standard_normal(value.shape) if sigma > 0 else value
        return recording.released("block_gaussian", out)

    @property
    def event(self) -> dp_accounting.DpEvent:
        """``GaussianDpEvent(z)``: the whole release (noise multiplier of the rescaled stacked statistic)."""
        if not self.noise:
            raise ValueError("A release with noise=False has no privacy event.")
        return dp_accounting.GaussianDpEvent(self.multiplier)

    def accountant_epsilon(self) -> float:
        """Epsilon at ``delta`` of one release according to dp_accounting's PLD accountant."""
        if not self.noise:
            raise ValueError("A release with noise=False has no privacy event.")
        return _pld_epsilon(self.multiplier, self.delta)
