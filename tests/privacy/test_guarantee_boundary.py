"""The shortfall boundary of ``PrivacyGuarantee``: any overspend beyond round-off is reported (issue 24).

The comparison tolerates the accountants' numerical slack only (``1e-9`` relative, ``guarantee._REL_TOL``): a
claimed epsilon exceeded by ``1e-6``, or by 4% (what a 5% slack would hide), is a shortfall; an excess of
``1e-12`` relative is round-off and holds.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import AGENTS, agent_class
from dpbandit.privacy.guarantee import PrivacyGuarantee

pytestmark = pytest.mark.privacy


def _guarantee(claimed: float, epsilon: float) -> PrivacyGuarantee:
    return PrivacyGuarantee("test mechanism", claimed, 1e-5, epsilon, "replace-one", "pld")


@pytest.mark.parametrize("claimed", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("excess", [1e-6, 1e-8, 0.01, 0.04, 0.049])
def test_an_excess_beyond_round_off_is_a_shortfall(claimed: float, excess: float) -> None:
    g = _guarantee(claimed, claimed * (1.0 + excess))
    assert g.shortfall == pytest.approx(claimed * excess, rel=1e-6)
    assert not g.holds and "SHORTFALL" in str(g)


def test_a_claim_exceeded_by_1e_6_absolute_is_a_shortfall() -> None:
    g = _guarantee(1.0, 1.0 + 1e-6)
    assert g.shortfall > 0 and not g.holds


@pytest.mark.parametrize("excess", [0.0, 1e-12, 5e-10, -1e-3])
def test_round_off_and_conservative_claims_hold(excess: float) -> None:
    g = _guarantee(2.5, 2.5 * (1.0 + excess))
    assert g.shortfall == 0.0 and g.holds and "SHORTFALL" not in str(g)


@pytest.mark.parametrize(
    "name", sorted(n for n, target in AGENTS.items() if target.startswith("dpbandit.agents.batched."))
)
def test_batched_agents_meet_their_claim_beyond_round_off(name: str) -> None:
    """Every batched agent's accountant epsilon is at most its claim times ``1 + 1e-9``."""
    agent = agent_class(name)(3, 20, rng=np.random.default_rng(0), horizon=1000, epsilon=1.0, delta=0.01)
    g = agent.privacy
    assert g.epsilon <= g.claimed_epsilon * (1.0 + 1e-9) and g.holds
