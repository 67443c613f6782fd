"""Shared privacy plumbing of the KL optimizers: turns their releases into a ``PrivacyGuarantee``.

Uses only the privacy core (``dpbandit.privacy``); there is no accountant here. The claim is the requested
rho-zCDP expressed at ``delta`` by ``zcdp_to_epsilon``; ``epsilon`` is dp_accounting's RDP value for the
releases actually made (each Gaussian release as ``gaussian_event(sigma, Delta)``, a zCDP filter as
``zcdp_event``), so the two agree exactly when the calibration spends exactly rho.
"""

from __future__ import annotations

import dp_accounting

from dpbandit.privacy.accounting import zcdp_to_epsilon
from dpbandit.privacy.guarantee import PrivacyGuarantee


def guarantee(
    *, mechanism: str, rho: float, delta: float, events: list[dp_accounting.DpEvent], sensitivity: str,
    calibration: str, notes: str,
) -> PrivacyGuarantee:
    """Guarantee claiming rho-zCDP at ``delta``, certified by RDP on the composed ``events``."""
    event = events[0] if len(events) == 1 else dp_accounting.ComposedDpEvent(events)
    return PrivacyGuarantee.from_event(
        mechanism, event, zcdp_to_epsilon(rho, delta), delta, accountant="rdp", sensitivity=sensitivity,
        calibration=calibration, notes=notes,
    )
