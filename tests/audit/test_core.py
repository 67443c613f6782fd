"""The audit machinery, and the privacy core's mechanism cases at test scale (each real mechanism passes, each
broken twin is flagged)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpbandit.audit.mechanisms  # noqa: F401  (registers the mechanism cases)
from dpbandit.audit import (
    AuditCase,
    audit,
    clopper_pearson,
    epsilon_lower_bound,
    gaussian_power,
    make_case,
    register,
    registered,
)

pytestmark = pytest.mark.privacy

N_RUNS = 200_000
NAMES = sorted(registered("dpbandit.audit.mechanisms"))
CASES = {name: make_case(name) for name in NAMES}  # built once (calibrations call dp_accounting)


def test_builtin_cases_cover_every_mechanism_with_a_broken_twin() -> None:
    families = {name.split("/")[0] for name in NAMES}
    assert families >= {"gaussian", "laplace", "generalized-gaussian", "tree", "gram-tree", "rnm-l1-vertices",
                        "exponential"}
    for family in families:
        expects = {CASES[n].expect for n in NAMES if n.startswith(family + "/")}
        assert expects == {"pass", "flag"}, family


@pytest.mark.parametrize("name", NAMES)
def test_registered_case_verdict(name: str) -> None:
    case = CASES[name]
    result = audit(case, np.random.default_rng(2024), N_RUNS)
    assert result.as_expected, result
    if case.expect == "pass":
        assert result.epsilon_lb <= case.claimed_epsilon
    else:
        assert result.epsilon_lb > case.claimed_epsilon
    if np.isfinite(case.accountant_epsilon):  # an empirical bound above the accountant would be a bug somewhere
        assert result.epsilon_lb <= case.accountant_epsilon


def test_clopper_pearson_matches_scipy() -> None:
    lo, up = clopper_pearson(np.array([0, 7, 50]), 50, 0.025)
    for k, lo_k, up_k in zip([0, 7, 50], lo, up):
        ci = stats.binomtest(k, 50).proportion_ci(confidence_level=0.95, method="exact")
        assert lo_k == pytest.approx(ci.low, abs=1e-9) and up_k == pytest.approx(ci.high, abs=1e-9)


def test_epsilon_lower_bound_sanity() -> None:
    assert epsilon_lower_bound(500, 500, 1000, 1e-5) == 0.0  # indistinguishable
    lb = epsilon_lower_bound(100, 1000, 10_000, 1e-5)  # ratio 10: eps >= log 10 minus CI slack
    assert 2.0 < lb < np.log(10)


def test_registry_rejects_duplicates_and_mismatched_names() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(NAMES[0])(lambda: make_case(NAMES[0]))
    register("test/mismatch")(lambda: make_case(NAMES[0]))
    with pytest.raises(ValueError, match="test/mismatch"):
        make_case("test/mismatch")


def test_statistic_shape_is_checked() -> None:
    case = AuditCase("test/bad-shape", lambda rng, x, n: np.zeros((n, 2)), 0.0, 1.0, 1.0, 1e-5)
    with pytest.raises(ValueError, match="statistic"):
        audit(case, np.random.default_rng(0), 100)


def test_audit_case_validates_claim() -> None:
    with pytest.raises(ValueError, match="claimed_epsilon"):
        AuditCase("x", lambda rng, x, n: np.zeros(n), 0.0, 1.0, 0.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        AuditCase("x", lambda rng, x, n: np.zeros(n), 0.0, 1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="expect"):
        AuditCase("x", lambda rng, x, n: np.zeros(n), 0.0, 1.0, 1.0, 1e-5, expect="maybe")


def test_gaussian_power_grows_with_the_shift_and_the_runs_and_respects_the_claim() -> None:
    z = 1.1162543228824087  # noise multiplier of one Gaussian mechanism at (2, 0.01) (PLD)
    assert gaussian_power(0.0, 10_000, 0.01) == 0.0
    low, more_runs = gaussian_power(0.85, 5_000, 0.01), gaussian_power(0.85, 20_000, 0.01)
    assert 0.0 < low < more_runs < gaussian_power(1.2, 20_000, 0.01)
    # the calibrated mechanism cannot be proven above its claim, whatever the runs; its double release can
    assert gaussian_power(1.0 / z, 10**6, 0.01) <= 2.0 < gaussian_power(math.sqrt(2.0) / z, 20_000, 0.01)
