"""top_k_exponential: one-shot Gumbel top-k has the exponential mechanism's law (k = 1) and peeling's order."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpbandit.privacy.rnm import top_k_exponential

pytestmark = pytest.mark.privacy


def _em_probabilities(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    logits = epsilon * scores / (2.0 * sensitivity)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def test_k1_is_the_exponential_mechanism_and_mis_scaled_epsilon_is_rejected() -> None:
    scores = np.array([0.0, 1.0, 2.0, 4.0, 4.5])
    epsilon, sensitivity, n = 1.2, 1.0, 40_000
    picks = top_k_exponential(np.random.default_rng(0), np.tile(scores, (n, 1)), 1, epsilon, sensitivity)[:, 0]
    counts = np.bincount(picks, minlength=scores.size)
    for factor, should_pass in ((1.0, True), (0.5, False), (2.0, False)):
        expected = n * _em_probabilities(scores, factor * epsilon, sensitivity)
        p = stats.chisquare(counts, expected).pvalue
        assert bool(p > 1e-3) is should_pass, factor


def test_top_k_is_peeling_order_and_batched() -> None:
    """The second pick of one-shot top-2 follows the exponential mechanism on the remaining candidates."""
    scores = np.array([0.0, 1.0, 3.0, 3.5])
    epsilon, n = 2.0, 40_000
    picks = top_k_exponential(np.random.default_rng(1), np.tile(scores, (n, 1)), 2, epsilon, 1.0)
    assert picks.shape == (n, 2) and np.all(picks[:, 0] != picks[:, 1])
    first_is_3 = picks[:, 0] == 3
    second = np.bincount(picks[first_is_3, 1], minlength=4)
    expected = first_is_3.sum() * _em_probabilities(np.array([0.0, 1.0, 3.0, -np.inf]), epsilon, 1.0)
    assert stats.chisquare(second[:3], expected[:3]).pvalue > 1e-3
    assert second[3] == 0


def test_validation() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="k"):
        top_k_exponential(rng, np.zeros(3), 4, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        top_k_exponential(rng, np.zeros(3), 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        top_k_exponential(rng, np.array([0.0, np.nan]), 1, 1.0, 1.0)
