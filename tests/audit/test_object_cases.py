"""Audit cases of the real agents and optimizers (test scale): the calibrated object passes, its broken twin
(noise halved) is flagged, and every family has both."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.audit import audit, load_cases, make_case, registered

pytestmark = pytest.mark.privacy

load_cases()
MODULES = ("dpbandit.audit.agents", "dpbandit.audit.optimizers")
NAMES = sorted(n for m in MODULES for n in registered(m))
#: runs per dataset: the tree replays of DP-UCB are the slowest; their margins at this scale are >= 0.1
RUNS = {"dp-ucb-tree": 100_000}


def test_every_private_object_has_a_calibrated_case_and_a_broken_twin() -> None:
    families = {name.split("/")[0] for name in NAMES}
    assert families == {
        "dp-pofw-selection",
        "dp-hdb-step",
        "dp-ucb-tree",
        "dp-tofw-tree",
        "srgd-tree",
        "kl-prox",
        "nonsmooth-single-pass",
        "nonsmooth-multi-pass",
    }
    for family in families:
        expects = {make_case(n).expect for n in NAMES if n.startswith(family + "/")}
        assert expects == {"pass", "flag"}, family


@pytest.mark.parametrize("name", NAMES)
def test_object_case_verdict(name: str) -> None:
    case = make_case(name)
    result = audit(case, np.random.default_rng(2024), RUNS.get(name.split("/")[0], 200_000))
    assert result.as_expected, result
    if case.expect == "pass":
        assert result.epsilon_lb <= case.claimed_epsilon
        assert result.epsilon_lb > 0.3 * case.claimed_epsilon  # the audit has power on the real object
        assert result.epsilon_lb <= case.accountant_epsilon
    else:
        assert result.epsilon_lb > case.claimed_epsilon
