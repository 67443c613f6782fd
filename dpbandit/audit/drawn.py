"""Statistical checks of the noise an object actually draws against the scale it states.

Each check returns p-values for the hypotheses "the samples have scale ``factor * stated``" at the factors of
:data:`FACTORS`; :func:`only_stated_scale_fits` asserts the stated scale is accepted while halved and doubled
noise are both rejected, so a test that passes has shown its power against those alternatives.

* :func:`gaussian_scale_pvalues`: zero-mean Gaussian samples (two-sided chi-square on ``sum x^2 / s^2``);
* :func:`gamma_radius_pvalues`: generalized Gaussian ``G_{||.||_+}(0, s^2)`` through ``||Z||_+^2 ~
  Gamma(d/2, 2 s^2)`` (Lemma 3.1 of 004; Kolmogorov-Smirnov);
* :func:`selection_pvalues`: report-noisy-min between two candidates with ``Lap(b)`` noise, observed through
  which candidate won (z-test of the number of wins of the better one, given each draw's ``gap / b``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "FACTORS",
    "gamma_radius_pvalues",
    "gaussian_scale_pvalues",
    "only_stated_scale_fits",
    "selection_pvalues",
    "two_laplace_win_probability",
]

#: Scale factors tested: the stated scale, halved noise, doubled noise.
FACTORS = (1.0, 0.5, 2.0)


def gaussian_scale_pvalues(x: np.ndarray, sigma: np.ndarray | float) -> dict[float, float]:
    """p-values that zero-mean Gaussian samples ``x`` have std ``factor * sigma`` (``sigma`` broadcasts)."""
    x = np.asarray(x, dtype=float)
    stat = float(np.sum((x / np.broadcast_to(sigma, x.shape)) ** 2))
    out = {}
    for factor in FACTORS:
        cdf = stats.chi2.cdf(stat / factor**2, x.size)
        out[factor] = float(2.0 * min(cdf, 1.0 - cdf))
    return out


def gamma_radius_pvalues(r2: np.ndarray, dim: int, sigma: float) -> dict[float, float]:
    """p-values that ``r2 = ||Z||_+^2`` of ``G_{||.||_+}(0, s^2)`` draws, ``s = factor * sigma``, are
    Gamma(d/2, 2 s^2)."""
    return {
        f: float(stats.kstest(r2, stats.gamma(dim / 2.0, scale=2.0 * (f * sigma) ** 2).cdf).pvalue)
        for f in FACTORS
    }


def two_laplace_win_probability(u: np.ndarray) -> np.ndarray:
    """P(the candidate better by ``gap`` wins) under i.i.d. ``Lap(b)`` noise, ``u = gap / b >= 0``.

    The difference of two i.i.d. ``Lap(b)`` has CDF ``1 - exp(-u)(1 + u/2)/2`` at ``u b`` (u >= 0).
    """
    u = np.asarray(u, dtype=float)
    return 1.0 - 0.5 * np.exp(-u) * (1.0 + u / 2.0)


def selection_pvalues(better_won: np.ndarray, u: np.ndarray) -> dict[float, float]:
    """p-values that two-candidate noisy selections used scale ``factor * b`` (``u = gap / b`` per draw)."""
    wins = float(np.sum(better_won))
    out = {}
    for factor in FACTORS:
        p = two_laplace_win_probability(np.asarray(u, dtype=float) / factor)
        z = (wins - p.sum()) / np.sqrt(np.sum(p * (1.0 - p)))
        out[factor] = float(2.0 * stats.norm.sf(abs(z)))
    return out


def only_stated_scale_fits(pvalues: dict[float, float], alpha: float = 1e-3) -> bool:
    """True if the stated scale is accepted at level ``alpha`` and halved and doubled noise are rejected."""
    return pvalues[1.0] > alpha and all(p < alpha for f, p in pvalues.items() if f != 1.0)
