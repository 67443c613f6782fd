"""``PrivacyGuarantee``: what a private algorithm claims and what an accountant certifies.

Every private agent / optimizer exposes ``privacy -> PrivacyGuarantee``. It holds the paper's claimed
``(epsilon, delta)`` and the epsilon that the named accountant computes *at the claimed delta*. When the two
differ both are kept and printed; ``shortfall > 0`` means the paper's calibration is weaker than claimed
according to the accountant (never hidden, never rounded away).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import dp_accounting

from dpbandit import _validate as v
from dpbandit.privacy.accounting import default_relation, epsilon_for

__all__ = ["NOT_PRIVATE_LABEL", "TRUST_MODELS", "PrivacyGuarantee"]

#: Who must be trusted with the raw data (issue 30). ``central``: the agent (a curator) sees every record and
#: protects what the other users see (joint DP); ``shuffle``: each user's report is randomised locally and a
#: trusted shuffler hides who sent it (central DP after shuffling); ``local``: nobody is trusted, each user's
#: report is DP on its own (which implies joint DP at the same epsilon).
TRUST_MODELS = ("central", "shuffle", "local")

#: The label every table must carry next to a replica of an authors' (non-private) calibration.
NOT_PRIVATE_LABEL = "replica of the authors' code — not private"

#: Relative tolerance of :attr:`PrivacyGuarantee.shortfall`: the accountants' own numerical slack, no more.
#: A calibration that meets its target (PLD-calibrated Gaussian multipliers, bisections kept on the feasible
#: side, zCDP round trips) reports an epsilon at or below the claim up to floating-point round-off (well
#: under 1e-9 relative; the batched agents land 1e-10 to 4e-4 below it), so an accountant epsilon above
#: ``claimed * (1 + 1e-9)`` is a real overspend and is reported, however small
#: (a claim exceeded by 1e-6 is a shortfall; tests/privacy/test_guarantee_boundary.py). A tolerance
#: relative to the claim such as 5% would report a 4% overspend as holding.
_REL_TOL = 1e-9


@dataclass(frozen=True)
class PrivacyGuarantee:
    """A privacy guarantee with its provenance.

    Attributes:
        mechanism: short description, e.g. ``"DP-UCB Gram tree (Gaussian)"``.
        claimed_epsilon: the paper's (or the user's target) epsilon.
        claimed_delta: the paper's delta (``0 <= delta < 1``; 0 for a pure-DP claim).
        epsilon: epsilon at ``claimed_delta`` computed by ``accountant`` (``inf`` if the accountant certifies
            nothing; 0 if it certifies ``(0, claimed_delta)``, e.g. DP-UCB's paper noise at epsilon 1e-3).
        relation: neighbouring relation, e.g. ``"replace-one (l2 sensitivity 2.0)"``.
        accountant: who computed ``epsilon``: ``"rdp"``, ``"pld"`` (dp_accounting) or ``"analytic: <lemma>"``
            when dp_accounting does not support the mechanism (e.g. Lemma 2.1 of 004).
        calibration: how the noise was set (formula, paper equation).
        notes: caveats (known paper errors, flags such as ``paper_exact``).
        user_epsilon: epsilon at ``claimed_delta`` of one person who contributes up to ``max_rounds_per_user``
            rounds, composed over the releases such a person can enter (``inf``: rounds per person unbounded);
            ``None`` when the algorithm does not track people (every round a different person).
        max_rounds_per_user: the cap behind ``user_epsilon`` (``None``: no cap).
        trust_model: who is trusted with the raw data, one of :data:`TRUST_MODELS` (``"central"`` by default).
        local_epsilon: epsilon of one user's randomised report on its own (local and shuffle models: what a
            user is guaranteed even against the server and, in the shuffle model, the shuffler; ``None`` for
            the central model).
    """

    mechanism: str
    claimed_epsilon: float
    claimed_delta: float
    epsilon: float
    relation: str
    accountant: str
    calibration: str = ""
    notes: str = ""
    user_epsilon: float | None = None
    max_rounds_per_user: int | None = None
    trust_model: str = "central"
    local_epsilon: float | None = None

    def __post_init__(self) -> None:
        v.one_of(TRUST_MODELS, trust_model=self.trust_model)
        if self.local_epsilon is not None:
            v.positive(local_epsilon=self.local_epsilon, allow_inf=True)
        v.positive(claimed_epsilon=self.claimed_epsilon)
        if v.probability(claimed_delta=self.claimed_delta, open_interval=False) == 1.0:  # 0: pure DP
            raise ValueError(f"Expected claimed_delta in [0, 1), got claimed_delta={self.claimed_delta}.")
        if self.epsilon != math.inf:
            v.nonnegative(epsilon=self.epsilon)
        if self.user_epsilon is not None:
            v.positive(user_epsilon=self.user_epsilon, allow_inf=True)
        if self.max_rounds_per_user is not None:
            v.integer(max_rounds_per_user=self.max_rounds_per_user, minimum=1)
            if self.user_epsilon is None:
                raise ValueError(
                    f"Expected user_epsilon with max_rounds_per_user={self.max_rounds_per_user} (the epsilon "
                    "of a person with that many rounds)."
                )

    @property
    def shortfall(self) -> float:
        """``epsilon - claimed_epsilon`` if it exceeds ``1e-9 * claimed_epsilon`` (the accountants' numerical
        slack, ``_REL_TOL``), else 0: how far the accountant's epsilon exceeds the claim."""
        gap = self.epsilon - self.claimed_epsilon
        return gap if gap > _REL_TOL * self.claimed_epsilon else 0.0

    @property
    def holds(self) -> bool:
        """True if the accountant certifies the claimed (epsilon, delta)."""
        return self.shortfall == 0.0

    @classmethod
    def from_event(
        cls,
        mechanism: str,
        event: dp_accounting.DpEvent,
        claimed_epsilon: float,
        claimed_delta: float,
        *,
        accountant: str = "rdp",
        sensitivity: str = "",
        calibration: str = "",
        notes: str = "",
    ) -> PrivacyGuarantee:
        """Account ``event`` with dp_accounting at ``claimed_delta`` (relation from ``default_relation``)."""
        claimed_delta = v.probability(claimed_delta=claimed_delta)
        eps = epsilon_for(event, claimed_delta, accountant)
        relation = f"replace-one ({sensitivity})" if sensitivity else "replace-one"
        relation += f"; dp_accounting {default_relation(event).name}"
        return cls(mechanism, claimed_epsilon, claimed_delta, eps, relation, accountant, calibration, notes)

    @classmethod
    def analytic(
        cls,
        mechanism: str,
        claimed_epsilon: float,
        claimed_delta: float,
        source: str,
        *,
        epsilon: float | None = None,
        relation: str = "replace-one",
        calibration: str = "",
        notes: str = "",
    ) -> PrivacyGuarantee:
        """Guarantee from a paper's lemma for mechanisms dp_accounting does not support.

        ``epsilon`` defaults to ``claimed_epsilon`` (the lemma's bound); ``accountant`` reads
        ``"analytic: <source>"``.
        """
        eps = claimed_epsilon if epsilon is None else epsilon
        return cls(mechanism, claimed_epsilon, claimed_delta, eps, relation, f"analytic: {source}", calibration, notes)

    @classmethod
    def not_private(
        cls,
        mechanism: str,
        claimed_epsilon: float,
        claimed_delta: float,
        *,
        reason: str,
        calibration: str = "",
    ) -> PrivacyGuarantee:
        """A guarantee that certifies nothing: ``epsilon = inf`` next to the nominal ``claimed_epsilon``.

        For reference variants that reproduce a published but non-private calibration (the replicas of
        the authors' code): the harness then records ``epsilon = inf`` (not NaN, as for non-private
        baselines), so a table shows both the nominal epsilon and that it does not hold. The mechanism
        name carries :data:`NOT_PRIVATE_LABEL`; ``reason`` says why it is not private.
        """
        return cls(
            mechanism=f"{mechanism} [{NOT_PRIVATE_LABEL}]",
            claimed_epsilon=claimed_epsilon,
            claimed_delta=claimed_delta,
            epsilon=math.inf,
            relation="none (not differentially private)",
            accountant="none: not differentially private",
            calibration=calibration,
            notes=f"NOT differentially private as claimed (no guarantee is certified): {reason}",
        )

    def __str__(self) -> str:
        lines = [
            f"{self.mechanism}: claimed ({self.claimed_epsilon:.4g}, {self.claimed_delta:.3g})-DP; "
            f"{self.accountant} gives epsilon={self.epsilon:.4g} at delta={self.claimed_delta:.3g}",
            f"  relation: {self.relation}",
        ]
        if self.shortfall > 0:
            lines.append(
                f"  SHORTFALL: accountant epsilon exceeds the claim by {self.shortfall:.4g} "
                f"({self.epsilon / self.claimed_epsilon if math.isfinite(self.epsilon) else math.inf:.3g}x)"
            )
        elif self.epsilon < self.claimed_epsilon * (1 - 1e-6):
            lines.append(f"  (claim is conservative: accountant is tighter by {self.claimed_epsilon - self.epsilon:.4g})")
        if self.user_epsilon is not None:
            cap = (f"up to {self.max_rounds_per_user} rounds" if self.max_rounds_per_user is not None
                   else "unbounded rounds (no max_rounds_per_user)")
            lines.append(
                f"  user level: epsilon={self.user_epsilon:.4g} at delta={self.claimed_delta:.3g} for a "
                f"person with {cap}"
            )
        if self.trust_model != "central":
            local = "" if self.local_epsilon is None else f"; each report is {self.local_epsilon:.4g}-DP locally"
            lines.append(f"  trust model: {self.trust_model}{local}")
        if self.calibration:
            lines.append(f"  calibration: {self.calibration}")
        if self.notes:
            lines.append(f"  notes: {self.notes}")
        return "\n".join(lines)
