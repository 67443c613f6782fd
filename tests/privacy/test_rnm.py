"""Selection mechanisms: output frequencies match the exact laws (chi-square), mis-scaled variants rejected."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpbandit import privacy as P

pytestmark = pytest.mark.privacy

ALPHA = 1e-3
N = 40_000


def _chi2(counts: np.ndarray, probs: np.ndarray) -> float:
    return float(stats.chisquare(counts, counts.sum() * probs).pvalue)


def _rnm_two_probs(gap: float, scale: float) -> np.ndarray:
    """P(argmax = 1) for scores (0, gap) with Lap(scale) noise: L0 - L1 < gap, L0 - L1 has a known CDF."""
    u = abs(gap) / scale
    p_less = 1 - 0.5 * np.exp(-u) * (1 + u / 2)  # CDF of the difference of two i.i.d. Laplace at |gap|
    p1 = p_less if gap >= 0 else 1 - p_less
    return np.array([1 - p1, p1])


def test_report_noisy_max_two_candidates_law() -> None:
    gap, scale = 0.7, 0.5
    idx = P.report_noisy_max(np.random.default_rng(0), np.tile([0.0, gap], (N, 1)), scale)
    counts = np.bincount(idx, minlength=2)
    assert _chi2(counts, _rnm_two_probs(gap, scale)) > ALPHA
    assert _chi2(counts, _rnm_two_probs(gap, scale / 2)) < ALPHA  # halved noise is detected
    idx_min = P.report_noisy_min(np.random.default_rng(1), np.tile([0.0, gap], (N, 1)), scale)
    assert _chi2(np.bincount(idx_min, minlength=2), _rnm_two_probs(gap, scale)[::-1]) > ALPHA


@pytest.mark.parametrize("monotone", [False, True])
def test_exponential_mechanism_law(monotone: bool) -> None:
    scores, eps, sens = np.array([0.0, 1.0, 2.5, -1.0]), 1.2, 1.5
    idx = P.exponential_mechanism(np.random.default_rng(2), np.tile(scores, (N, 1)), eps, sens, monotone=monotone)
    counts = np.bincount(idx, minlength=4)
    factor = eps / ((1 if monotone else 2) * sens)
    probs = np.exp(factor * scores) / np.exp(factor * scores).sum()
    wrong = np.exp(2 * factor * scores) / np.exp(2 * factor * scores).sum()
    assert _chi2(counts, probs) > ALPHA
    assert _chi2(counts, wrong) < ALPHA


def test_rnm_epsilon_generic_is_twice_monotone() -> None:
    assert P.rnm_epsilon(2.0, 1.0) == pytest.approx(1.0)
    assert P.rnm_epsilon(2.0, 1.0, monotone=True) == pytest.approx(0.5)
