"""The batched agents' audits: the calibrated release and selection pass, their halved-noise twins are flagged."""

from __future__ import annotations

import numpy as np
import pytest

import dpbandit.audit.batched_agents  # noqa: F401  (registers the cases)
from dpbandit.audit.core import audit, make_case, registered

pytestmark = pytest.mark.privacy


def test_every_case_is_tested() -> None:
    assert sorted(registered("dpbandit.audit.batched_agents")) == [
        "batched-gaussian-release/calibrated", "batched-gaussian-release/noise-halved",
        "batched-peeling-selection/calibrated", "batched-peeling-selection/noise-halved",
    ]


@pytest.mark.parametrize("mechanism", ["batched-gaussian-release", "batched-peeling-selection"])
def test_calibrated_passes_and_halved_noise_is_flagged(mechanism: str) -> None:
    correct = make_case(f"{mechanism}/calibrated")
    halved = make_case(f"{mechanism}/noise-halved")
    ok = audit(correct, np.random.default_rng(20260101), 200_000)
    bad = audit(halved, np.random.default_rng(20260101), 200_000)
    assert ok.verdict == "pass" and ok.epsilon_lb > 0.3 * ok.claimed_epsilon  # the audit has power
    assert ok.epsilon_lb <= correct.accountant_epsilon
    assert bad.verdict == "FLAGGED" and bad.as_expected
    # the claim is the calibrated agent's report; the twin's true epsilon (as run) is about twice it or more
    assert correct.accountant_epsilon == pytest.approx(correct.claimed_epsilon, rel=1e-9)
    assert halved.claimed_epsilon == correct.claimed_epsilon
    assert halved.accountant_epsilon >= 1.9 * halved.claimed_epsilon


def test_gaussian_release_claims_the_target_epsilon() -> None:
    """The audited agent is calibrated to (1, 1e-5): its accountant epsilon is the target, not a drifted report."""
    assert make_case("batched-gaussian-release/calibrated").claimed_epsilon == pytest.approx(1.0, abs=1e-3)
