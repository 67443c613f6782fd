"""The default delta of the project's own private agents, and the warning when a delta is too large.

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

import warnings

from dpbandit import _validate

__all__ = ["DELTA_CAP", "agent_delta", "check_delta", "default_delta"]

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
