"""The whole-agent audits (issue 24): registry coverage, the broken copies, a fast run of each case.

The full cases (``python sims/privacy_audit.py --only whole-agent/``, results/privacy_audit.md) use 2,000 runs
per side; here each case runs ``FAST_RUNS`` per side (a few seconds): a calibrated agent must pass (its lower
bound at or below its claim) and its copy with the noise divided by 4 must give a larger lower bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import AGENTS
from dpbandit.audit import whole_agents as W
from dpbandit.audit.core import audit, make_case, registered

FAST_RUNS = 300


def test_every_batched_agent_has_every_variant() -> None:
    batched = sorted(n for n, target in AGENTS.items() if target.startswith("dpbandit.agents.batched."))
    assert list(W.AGENT_NAMES) == batched
    assert sorted(registered("dpbandit.audit.whole_agents")) == sorted(
        f"whole-agent/{n}/{v}" for n in batched for v in W.VARIANTS
    )


@pytest.mark.parametrize("name", W.AGENT_NAMES)
def test_noise_divided_by_4_divides_every_noise_scale(name: str) -> None:
    calibrated = W._agent(name, np.random.default_rng(0), 1.0)
    broken = W._agent(name, np.random.default_rng(0), 4.0)
    scales = 0
    if hasattr(calibrated, "release"):
        assert broken.release.multiplier == pytest.approx(calibrated.release.multiplier / 4.0)
        scales += 1
    if hasattr(calibrated, "selection_epsilon"):
        assert broken.selection_epsilon == pytest.approx(4.0 * calibrated.selection_epsilon)
    if hasattr(calibrated, "budget"):
        assert broken.budget.eps_s == pytest.approx(4.0 * calibrated.budget.eps_s)
        assert broken.budget.eps_q == pytest.approx(4.0 * calibrated.budget.eps_q)
        scales += 1
    if hasattr(calibrated, "sensitivity"):
        assert broken.multiplier(1) == pytest.approx(calibrated.multiplier(1) / 4.0)
        scales += 1
    assert scales == 1


@pytest.mark.parametrize("per_arm", [False, True])
def test_neighbouring_streams_differ_in_the_audited_user_only(per_arm: bool) -> None:
    X, R = W._streams(per_arm, 1.0, twice=False)
    X2, R2 = W._streams(per_arm, -1.0, twice=False)
    assert len(R) == 2 * W.BATCH and np.array_equal(X, X2)
    differ = np.flatnonzero(np.any(R != R2, axis=1))
    assert differ.tolist() == [W.BATCH]  # the first user of batch 1, reward +B vs -B (both beyond the clip)
    assert np.all(np.abs(R[W.BATCH]) == 10.0)
    Xt, Rt = W._streams(per_arm, 1.0, twice=True)
    assert np.flatnonzero(np.any(Rt != R, axis=1)).tolist() == [0]  # also counted in batch 0
    assert np.array_equal(Xt[0], X[W.BATCH]) and np.array_equal(Rt[0], R[W.BATCH])


def test_calibrated_claims_are_the_agents_reports() -> None:
    for name in W.AGENT_NAMES:
        case = make_case(f"whole-agent/{name}/calibrated")
        assert case.claimed_epsilon == pytest.approx(W.EPSILON, rel=1e-3) and case.delta == W.DELTA


@pytest.mark.parametrize("name", W.AGENT_NAMES)
def test_fast_audit_calibrated_passes_and_a_quarter_of_the_noise_shows(name: str) -> None:
    calibrated = audit(make_case(f"whole-agent/{name}/calibrated"), np.random.default_rng(11), FAST_RUNS)
    broken = audit(make_case(f"whole-agent/{name}/noise-divided-by-4"), np.random.default_rng(11), FAST_RUNS)
    assert calibrated.verdict == "pass" and calibrated.epsilon_lb <= calibrated.claimed_epsilon
    assert broken.epsilon_lb > calibrated.epsilon_lb
