"""Every registered agent states its trust model on the class (read by ``dpbandit list`` without building
it), and every instance's ``privacy.trust_model`` agrees with it (issue 30)."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import AGENTS, agent_class
from dpbandit.privacy.guarantee import TRUST_MODELS, PrivacyGuarantee


@pytest.mark.privacy
@pytest.mark.parametrize("name", sorted(AGENTS))
def test_class_trust_model_matches_the_instance_guarantee(name: str) -> None:
    cls = agent_class(name)
    agent = cls(2, 20, rng=np.random.default_rng(0), horizon=1_000)
    guarantee = agent.privacy
    if cls.trust_model is None:  # not private: no guarantee, or one labelled as not private
        assert guarantee is None or not guarantee.holds or "not private" in guarantee.notes + guarantee.mechanism
    else:
        assert cls.trust_model in TRUST_MODELS
        assert guarantee is not None and guarantee.trust_model == cls.trust_model


@pytest.mark.privacy
def test_guarantee_refuses_an_unknown_trust_model() -> None:
    with pytest.raises(ValueError, match="trust_model='curator'"):
        PrivacyGuarantee("m", 1.0, 1e-5, 1.0, "replace-one", "pld", trust_model="curator")
