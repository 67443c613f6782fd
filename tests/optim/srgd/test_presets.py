from __future__ import annotations

import math

import pytest

from dpbandit.optim.srgd.presets import v000_theorem_4_10, v001_regime_a, v001_regime_b


def test_regime_a_is_vacuous_at_mnist_size():
    """notes/srgd.md 2.1: c_DP ~ 2.66e4 at n = 6e4, delta = 1e-6, so T = c_DP n^{1/4} > n."""
    with pytest.raises(ValueError, match="vacuous"):
        v001_regime_a(60000, 10, L=1.0, R=1.0, epsilon=1.0, delta=1e-6)


def test_regime_b_constants():
    s = v001_regime_b(10000, L=1.0, R=1.0, epsilon=1.0, delta=1e-6)
    assert (s.batch_size, s.steps) == (100, 100)
    assert s.beta == pytest.approx(24 * 10000**1.5 / 100**2)
    assert s.clip_norm == 12.0
    assert s.beta >= 2 * 1.0 * s.steps  # beta >= 2 M T with M = c_M L / R (Thm 5.12)
    expected = 24 * math.sqrt(2) * math.sqrt(math.log2(100) * math.log(2.5e6)) / (100 * s.beta)
    assert s.paper_sigma == pytest.approx(expected)
    with pytest.raises(ValueError, match="batch_size"):
        v001_regime_b(10000, L=1.0, R=1.0, epsilon=1.0, delta=1e-6, batch_size=101)


def test_v000_theorem_4_10():
    s = v000_theorem_4_10(10000, 5, L=1.0, M=1.0, R=1.0, epsilon=1.0, delta=1e-6)
    assert s.batch_size == 100 and s.steps == 100
    assert s.beta == pytest.approx(1 + 24 * 10000**1.5 / 100**2) and s.clip_norm == 12.0
    assert set(s.optimizer_kwargs()) == {"batch_size", "steps", "beta", "clip_norm"}
