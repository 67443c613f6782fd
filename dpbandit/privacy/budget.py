"""The budget of the project's own private agents: the default delta, the warning when a delta is too large,
and the error when an epsilon is below what the accountant resolves.

delta bounds the probability that the (epsilon, delta) guarantee fails outright: the mechanism that publishes
each user's record with probability delta is (0, delta)-DP, so with ``n`` users it exposes ``n delta`` of them
in expectation (Dwork and Roth 2014, "The Algorithmic Foundations of Differential Privacy", Section 2.3).
``delta = 1/n`` therefore allows about one person's data to be published; the usual rule is ``delta << 1/n``.

Default [Fill] (docs/privacy.md, "Choosing delta"): ``delta = min(1e-5, 1 / (10 n))``: at most 0.1 users
exposed in expectation by such a failure, and never above 1e-5, the value common in practice for data sets of
tens of thousands of records (Abadi et al. 2016, n = 60,000), so short runs do not get a weak delta. The
faithful seed algorithms (DP-HDB, DP-UCB) keep their papers' ``1/T``.

``n`` is the number of users (people) whose data the agent reads; one user per round unless told otherwise,
so ``n = T`` (docs/privacy.md, "The privacy unit").
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from dpbandit import _validate

__all__ = [
    "DELTA_CAP",
    "agent_delta",
    "check_delta",
    "default_delta",
    "require_calibratable_epsilon",
    "require_reportable_epsilon",
]

#: The largest default delta [Fill]: the common choice for n of a few tens of thousands (module docstring).
DELTA_CAP = 1e-5


def default_delta(users: int) -> float:
    """``min(1e-5, 1 / (10 users))``, the default delta for ``users`` people (module docstring)."""
    users = _validate.integer(users=users, minimum=1)
    return min(DELTA_CAP, 1.0 / (10.0 * users))


def check_delta(delta: float, users: int | None, *, owner: str = "the agent") -> float:
    """Validate ``delta`` in (0, 1); warn when it exceeds ``1 / users`` (``users=None``: not known, no check).

    Above ``1/n`` the guarantee allows a failure that exposes at least one of the ``n`` users in expectation.
    """
    delta = _validate.probability(delta=delta)
    if users is not None and delta > 1.0 / _validate.integer(users=users, minimum=1):
        warnings.warn(
            f"{owner}: delta={delta:g} > 1/(number of users) = 1/{users} = {1.0 / users:.3g}: the guarantee "
            f"allows a failure that exposes about {delta * users:.3g} of the {users} users in expectation; "
            f"the usual rule is delta << 1/n (default {default_delta(users):.3g}; docs/privacy.md, "
            "'Choosing delta').",
            UserWarning,
            stacklevel=3,
        )
    return delta


def agent_delta(delta: float | None, users: int | None, *, owner: str) -> float:
    """The delta of a project agent: ``default_delta(users)`` when not given, else ``check_delta`` of it.

    ``owner`` names the agent in the errors and warnings; with neither ``delta`` nor ``users`` (the horizon)
    there is nothing to choose from, an error.
    """
    if delta is None:
        if users is None:
            raise ValueError(f"{owner} needs horizon=T (the number of users) or an explicit delta.")
        return default_delta(users)
    return check_delta(delta, users, owner=owner)


def require_reportable_epsilon(
    owner: str, epsilon: float, delta: float, accountant_epsilon: Callable[[float], float]
) -> None:
    """Raise naming ``epsilon``, before any work, when an accountant-calibrated agent's budget is too small.

    ``accountant_epsilon(e)`` is dp-accounting's epsilon at ``delta`` of the noise the agent would calibrate
    for a requested ``e``. Far below what (T, delta) resolve it comes out as 0 (the conversion bottoms out) or
    the calibration fails inside dp-accounting; a :class:`~dpbandit.privacy.guarantee.PrivacyGuarantee` cannot
    state either, and without this check the run would fail only after its rounds. The message names the
    smallest power of ten (up to 10) that resolves. (A paper calibration loose enough to be certified at
    epsilon = 0 is not an input error; callers check accountant calibrations only.)
    """

    def resolves(e: float) -> bool:
        try:
            return accountant_epsilon(e) > 0.0
        except ValueError:  # a calibration that cannot reach e at all
            return False

    try:
        if accountant_epsilon(epsilon) > 0.0:
            return
    except ValueError:
        if epsilon >= 1.0:  # not a budget too small: the calibration's own error says what is wrong
            raise
    start = math.floor(math.log10(epsilon)) + 1
    bound = next((10.0**k for k in range(start, 2) if resolves(10.0**k)), None)
    hint = f"use epsilon >= {bound:g}" if bound is not None else "no epsilon up to 10 resolves"
    raise ValueError(
        f"Expected a larger epsilon={epsilon:g} for {owner}: dp-accounting cannot certify a positive epsilon "
        f"at delta={delta:g} for the noise calibrated to it (it reports 0 or fails: the accountant does not "
        f"resolve budgets this small here), so no guarantee can be stated; {hint}."
    )


NOISE_OFF = "for no noise (and no privacy) use noise=False"


def require_calibratable_epsilon(owner: str, epsilon: float, limit: float, why: str,
                                 noise_off: str = NOISE_OFF) -> None:
    """Raise, before any work, when ``epsilon`` is above the largest ``limit`` that ``owner`` can calibrate.

    ``why`` says what stops it above the limit (an accountant that would take more than 2 s cold, a pure-DP
    parameter whose ``e^epsilon`` overflows): the message names the limit and the noise-off option
    (``noise_off``: how to run without noise, or why that option keeps the limit), so a large epsilon never
    hangs or fails inside an accountant (issue 38 item 1).
    """
    if epsilon > limit:
        raise ValueError(f"Expected epsilon <= {limit:g} for {owner}, got epsilon={epsilon:g}: {why}; {noise_off}.")
