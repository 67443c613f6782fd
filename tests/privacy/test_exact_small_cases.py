"""Accounting checked where its errors are visible (issue 39 item 3): exact small cases.

* FMT21 Theorem 3.2's clone bound (dpbandit/privacy/shuffle.py) against an exact enumeration of the two
  distributions ``P = (A + Delta, C - A + 1 - Delta)`` and ``Q = (A + 1 - Delta, C - A + Delta)`` at ``n =
  2..10``, both directions, to float precision. (At ``n = 100,000`` a one-user error in the clone count moves
  epsilon by under 1%; at ``n <= 10`` it moves delta by a large factor.)
* P_Vec's accounting (dpbandit/privacy/vector_sum.py) against a brute-force composition of ``m = 2, 3``
  coordinates on the whole product grid, with the binomial mass left out of the window charged once per
  coordinate. The window's tail fraction is raised to 5% of delta here (a module constant) so that charging it
  once instead of ``m`` times moves epsilon by 0.01-0.05, far above the PLD's discretisation (at most ``m x
  1e-3``, pessimistic).
* The calibration cache's read-back (dpbandit/privacy/calibration_cache.py) rejects a stored multiplier 0.1%
  and 0.5% below the computed one and uses one at or above it without a search.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np
import pytest
from scipy import optimize, stats

from dpbandit.privacy import accounting, calibration_cache, vector_sum
from dpbandit.privacy.shuffle import clone_delta

pytestmark = pytest.mark.privacy


# ---------------------------------------------------------------- FMT21 Theorem 3.2, exact enumeration
def clone_pair(eps0: float, n: int) -> tuple[dict, dict]:
    """The laws of P and Q of FMT21 Theorem 3.2 as dictionaries {(first, second): probability}: ``C ~ Bin(n -
    1, e^-eps0)``, ``A | C ~ Bin(C, 1/2)``, ``Delta ~ Bern(e^eps0 / (e^eps0 + 1))``."""
    p_clone, alpha = math.exp(-eps0), math.exp(eps0) / (math.exp(eps0) + 1.0)
    P: dict = defaultdict(float)
    Q: dict = defaultdict(float)
    for c in range(n):
        w_c = math.comb(n - 1, c) * p_clone**c * (1 - p_clone) ** (n - 1 - c)
        for a in range(c + 1):
            w = w_c * math.comb(c, a) * 0.5**c
            for delta, w_d in ((1, alpha), (0, 1.0 - alpha)):
                P[(a + delta, c - a + 1 - delta)] += w * w_d
                Q[(a + 1 - delta, c - a + delta)] += w * w_d
    return P, Q


def hockey_stick(P: dict, Q: dict, eps: float) -> float:
    """``D_{e^eps}(P || Q) = sum_o max(P(o) - e^eps Q(o), 0)`` over every outcome."""
    return sum(max(P[o] - math.exp(eps) * Q.get(o, 0.0), 0.0) for o in P)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0, 4.0])
def test_clone_bound_equals_exact_enumeration_at_small_n(eps0: float) -> None:
    """n = 2..10 and central epsilon from 0 to eps0: clone_delta is the larger of the two exact directions to
    float precision (relative 1e-9, absolute 1e-15); both directions are computed (they agree: Q is P with its
    two coordinates swapped, and A is symmetric)."""
    for n in range(2, 11):
        P, Q = clone_pair(eps0, n)
        assert sum(P.values()) == pytest.approx(1.0, abs=1e-14)
        for eps in (0.0, 0.05, 0.2 * eps0, 0.5 * eps0, 0.9 * eps0):
            forward, backward = hockey_stick(P, Q, eps), hockey_stick(Q, P, eps)
            assert forward == pytest.approx(backward, rel=1e-9, abs=1e-15)
            exact = max(forward, backward)
            assert clone_delta(eps0, n, eps) == pytest.approx(exact, rel=1e-9, abs=1e-15), (n, eps)


def test_a_one_user_error_in_the_clone_count_is_visible_at_small_n() -> None:
    """The enumeration separates n from n + 1 users by far more than float precision (the power of the test
    above against a clone count off by one)."""
    for n in range(2, 10):
        here, more = (hockey_stick(*clone_pair(1.0, m), 0.2) for m in (n, n + 1))
        assert abs(more - here) > 1e-4 * here


# ---------------------------------------------------------------- P_Vec, brute-force composition
TAIL = 0.05  # the window's left-out mass, as a fraction of delta, for these tests


def windowed_delta(trials: int, levels: int, coordinates: int, eps: float, delta: float
                   ) -> tuple[float, float]:
    """Brute force on the product grid: ``D_{e^eps}`` of ``m`` independent coordinates ``(X_w, X_w + g)`` with
    ``X_w`` the ``Bin(trials, 1/2)`` pmf restricted to its central window (``TAIL delta / 2`` cut from each
    side by scipy's quantiles), and the mass that window leaves out of one coordinate."""
    lo = int(stats.binom.ppf(TAIL * delta / 2, trials, 0.5))
    hi = int(stats.binom.isf(TAIL * delta / 2, trials, 0.5))
    y = np.arange(trials + levels + 1)
    a = np.where((y >= lo) & (y <= hi), stats.binom.pmf(y, trials, 0.5), 0.0)
    b = np.where((y - levels >= lo) & (y - levels <= hi), stats.binom.pmf(y - levels, trials, 0.5), 0.0)
    P, Q = a, b
    for _ in range(coordinates - 1):
        P, Q = np.multiply.outer(P, a), np.multiply.outer(Q, b)
    return float(np.maximum(P - math.exp(eps) * Q, 0.0).sum()), 1.0 - float(a.sum())


@pytest.mark.parametrize(("trials", "levels", "coordinates", "delta"),
                         [(200, 3, 2, 1e-3), (120, 2, 3, 1e-3), (60, 2, 3, 1e-2)])
def test_vector_sum_epsilon_is_the_brute_force_composition_with_the_tail_charged_per_coordinate(
    trials: int, levels: int, coordinates: int, delta: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported epsilon is the brute-force epsilon at delta minus m times the window's left-out mass, from
    above (dp_accounting's pessimistic discretisation) by at most m x 1e-3; charging the tail once would give
    0.01-0.05 less."""
    monkeypatch.setattr(vector_sum, "TAIL_FRACTION", TAIL)
    reported = vector_sum.vector_sum_epsilon(trials, 0.5, levels, coordinates, delta)
    left_out = windowed_delta(trials, levels, coordinates, 1.0, delta)[1]
    assert 0 < left_out <= TAIL * delta
    budget = delta - coordinates * left_out
    def epsilon_at(target: float) -> float:
        return optimize.brentq(lambda e: windowed_delta(trials, levels, coordinates, e, delta)[0] - target,
                               1e-6, 30.0)

    brute = epsilon_at(budget)
    assert brute - 1e-9 <= reported <= brute + coordinates * vector_sum.DISCRETIZATION
    once = epsilon_at(delta - left_out)
    assert brute - once > 3 * coordinates * vector_sum.DISCRETIZATION  # the test's power


# ---------------------------------------------------------------- the calibration cache's read-back
def _plant(factor: float, value: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Overwrite the one stored calibration with ``factor * value`` and forget the in-process memo."""
    (path,) = calibration_cache.folder().glob("*.json")
    stored = json.loads(path.read_text())
    path.write_text(json.dumps({**stored, "value": value * factor}))
    monkeypatch.setattr(calibration_cache, "_memory", {})


@pytest.mark.parametrize("factor", [0.999, 0.995])
def test_a_stored_multiplier_just_below_the_computed_one_is_rejected(cache, monkeypatch,
                                                                     factor: float) -> None:
    """A file holding 0.999x or 0.995x of the computed multiplier (it misses epsilon by about as much) is not
    used: the search runs again and returns the computed value."""
    computed = accounting.gaussian_sigma(1.0, 1e-5, accountant="rdp")
    searches = len(cache)
    _plant(factor, computed, monkeypatch)
    assert accounting.gaussian_sigma(1.0, 1e-5, accountant="rdp") == computed
    assert len(cache) == searches + 1


@pytest.mark.parametrize("factor", [1.0, 1.001, 1.05])
def test_a_stored_multiplier_at_or_above_the_computed_one_is_used_without_a_search(cache, monkeypatch,
                                                                                     factor: float) -> None:
    """More noise than needed still meets the target: the stored value is returned as stored, unsearched."""
    computed = accounting.gaussian_sigma(1.0, 1e-5, accountant="rdp")
    searches = len(cache)
    _plant(factor, computed, monkeypatch)
    assert accounting.gaussian_sigma(1.0, 1e-5, accountant="rdp") == computed * factor
    assert len(cache) == searches
