"""User-level fields of PrivacyGuarantee and the group Gaussian event (issue 24 item 4, contract C4)."""

from __future__ import annotations

import math

import dp_accounting
import pytest

from dpbandit.privacy import accounting
from dpbandit.privacy.guarantee import PrivacyGuarantee

pytestmark = pytest.mark.privacy

DELTA = 1e-5


def _pld(event: dp_accounting.DpEvent) -> float:
    acc = dp_accounting.pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
    return float(acc.compose(event).get_epsilon(DELTA))


def test_group_gaussian_event_is_the_composition_of_gaussians_at_z_over_k() -> None:
    """A person in releases with k = 2, 3, 1 rounds: z / sqrt(14), equal (PLD) to dp-accounting's composition
    of GaussianDpEvent(z / k_i); releases the person skips cost nothing; all in one release is the worst."""
    z = 6.0
    event = accounting.group_gaussian_event(z, (2, 0, 3, 1))
    assert event == dp_accounting.GaussianDpEvent(z / math.sqrt(14))
    composed = dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(z / k) for k in (2, 3, 1)])
    assert _pld(event) == pytest.approx(_pld(composed), rel=1e-3)
    worst = _pld(accounting.group_gaussian_event(z, (6,)))
    assert worst == pytest.approx(_pld(dp_accounting.GaussianDpEvent(z / 6)), rel=1e-12)
    for split in ((5, 1), (3, 3), (1,) * 6):
        assert _pld(accounting.group_gaussian_event(z, split)) < worst


@pytest.mark.parametrize(("rounds", "error"), [((), ValueError), ((0, 0), ValueError), ((2, -1), ValueError),
                                               ((1.5,), TypeError)])
def test_group_gaussian_event_rejects_bad_rounds(rounds, error) -> None:
    with pytest.raises(error, match="rounds"):
        accounting.group_gaussian_event(2.0, rounds)
    with pytest.raises(ValueError, match="multiplier"):
        accounting.group_gaussian_event(0.0, (1,))


def _guarantee(**kwargs) -> PrivacyGuarantee:
    return PrivacyGuarantee("m", 1.0, DELTA, 1.0, "replace-one", "pld", **kwargs)


def test_user_fields_default_to_none_and_print_when_set() -> None:
    plain = _guarantee()
    assert plain.user_epsilon is None and plain.max_rounds_per_user is None
    assert "user level" not in str(plain)
    capped = _guarantee(user_epsilon=6.56, max_rounds_per_user=5)
    assert "user level: epsilon=6.56 at delta=1e-05 for a person with up to 5 rounds" in str(capped)
    assert capped.holds  # the round-level claim is unaffected
    unbounded = _guarantee(user_epsilon=math.inf)
    assert "user level: epsilon=inf" in str(unbounded) and "unbounded rounds" in str(unbounded)


def test_user_fields_validated() -> None:
    with pytest.raises(ValueError, match="user_epsilon"):
        _guarantee(user_epsilon=0.0)
    with pytest.raises(ValueError, match="max_rounds_per_user"):
        _guarantee(user_epsilon=2.0, max_rounds_per_user=0)
    with pytest.raises(TypeError, match="max_rounds_per_user"):
        _guarantee(user_epsilon=2.0, max_rounds_per_user=2.5)
    with pytest.raises(ValueError, match="user_epsilon"):
        _guarantee(max_rounds_per_user=3)
