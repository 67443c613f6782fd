"""The FLIPHAT peeling audit: the calibrated release passes, the halved-noise mutant is flagged."""

from __future__ import annotations

import numpy as np
import pytest

import dpbandit.audit.fliphat  # noqa: F401  (registers the cases)
from dpbandit.audit.core import audit, make_case

pytestmark = pytest.mark.privacy


@pytest.mark.parametrize(("name", "verdict"), [("fliphat-peeling/calibrated", "pass"),
                                               ("fliphat-peeling/noise-halved", "FLAGGED")])
def test_fliphat_peeling_audit(name: str, verdict: str) -> None:
    case = make_case(name)
    result = audit(case, np.random.default_rng(20260101), 200_000)
    assert result.verdict == verdict and result.as_expected
    assert case.accountant_epsilon == pytest.approx(1.0 if verdict == "pass" else 2.0, rel=0.05)
