"""Audit cases of the DP-HDB variants: calibrated mechanisms pass, halved-noise mutants are flagged."""

from __future__ import annotations

import numpy as np
import pytest

import dpbandit.audit.dphdb_variants  # noqa: F401  (registers the cases)
from dpbandit.audit import core as audit

pytestmark = pytest.mark.privacy


@pytest.mark.parametrize("mechanism", ["dphdb-em-selection", "dphdb-batched-vertex", "dphdb-batched-quantile"])
def test_calibrated_passes_and_halved_noise_is_flagged(mechanism):
    names = sorted(n for n in audit.registered() if n.startswith(mechanism + "/"))
    assert len(names) == 2
    results = {n.split("/")[1]: audit.audit(audit.make_case(n), np.random.default_rng(0), 200_000) for n in names}
    correct = results.pop("correct")
    (mutant,) = results.values()
    assert correct.verdict == "pass" and correct.epsilon_lb > 0.5 * correct.claimed_epsilon  # the audit has power
    assert mutant.verdict == "FLAGGED" and mutant.as_expected
