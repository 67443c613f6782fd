"""The whole-agent audits (issue 24): registry coverage, the broken copies, a fast run of each case.

The full cases (``python sims/privacy_audit.py --only whole-agent/ --merge --agent-runs 5000``,
results/privacy_audit.md) use 5,000 runs per side; here each case runs ``FAST_RUNS`` per side (a few
seconds): every calibrated agent must pass (its lower bound at or below its claim), and the copies with the
noise divided by 4 that 1,000 runs per side can flag must be flagged.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import AGENTS
from dpbandit.audit import whole_agents as W
from dpbandit.audit.core import audit, make_case, registered

FAST_RUNS = 300
#: The agents whose copy with a quarter of the noise 1,000 runs per side already flag (the others need the
#: full run's 5,000 or more: results/privacy_audit.md).
FAST_FLAGGED = ("batched-screening", "batched-screening-perarm")
FLAG_RUNS = 1000


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
    assert len(R) == W.BATCH and np.array_equal(X, X2)
    assert np.flatnonzero(np.any(R != R2, axis=1)).tolist() == [0]  # reward +B vs -B, beyond the clip
    assert np.all(np.abs(R[0]) == 10.0) and np.all(np.abs(R[1:]) == 1.0)
    Xt, Rt = W._streams(per_arm, 1.0, twice=True)  # the same batch twice: the user in two releases
    assert np.array_equal(Xt, np.concatenate([X, X])) and np.array_equal(Rt, np.concatenate([R, R]))


def test_calibrated_claims_are_the_agents_reports() -> None:
    for name in W.AGENT_NAMES:
        case = make_case(f"whole-agent/{name}/calibrated")
        assert case.claimed_epsilon == pytest.approx(W.EPSILON, rel=1e-3) and case.delta == W.DELTA


@pytest.mark.parametrize("name", W.AGENT_NAMES)
def test_fast_audit_calibrated_agent_passes(name: str) -> None:
    result = audit(make_case(f"whole-agent/{name}/calibrated"), np.random.default_rng(11), FAST_RUNS)
    assert result.verdict == "pass" and result.epsilon_lb <= result.claimed_epsilon


@pytest.mark.parametrize("name", FAST_FLAGGED)
def test_fast_audit_flags_a_quarter_of_the_noise(name: str) -> None:
    result = audit(make_case(f"whole-agent/{name}/noise-divided-by-4"), np.random.default_rng(11), FLAG_RUNS)
    assert result.verdict == "FLAGGED" and result.epsilon_lb > result.claimed_epsilon
