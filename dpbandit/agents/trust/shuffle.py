"""Shuffle-model linear UCB: Chowdhury and Zhou (ICML 2022), LinUCB-SDP with the amplification protocol.

"Shuffle private linear contextual bandits", Algorithm 1 (batched LinUCB) with the protocol P_Amp
(the paper's Section 4; section and equation numbers from the authors' code
and abstract, the paper's text was not available in this session) [P]: users are grouped in batches of ``B``; within a batch the policy is fixed; each user
sends a locally randomised ``(x x^T, x r)`` report; a trusted shuffler permutes the batch's reports; the
server adds them up at the end of the batch and refits (:mod:`dpbandit.agents.trust.reports`). Each user
is in one batch, so the central guarantee of one batch is the guarantee of the run [P, parallel
composition over disjoint users; the policy of later batches is post-processing].

Calibration (ours, [O] FMT21): the local budget ``eps0`` is the largest whose shuffled batch of ``B``
reports is ``(epsilon, delta)``-DP by the numerical clone bound of Feldman, McMillan and Talwar (2021),
:func:`dpbandit.privacy.shuffle.gaussian_shuffle_calibration` (half of delta to the clone bound, half to
the Gaussian's own ``delta0``). The paper instead sets the local noise from the closed-form amplification
bound it proves [P], and the authors' code (``SDPLinUCBPAmp``) uses the std
``sqrt(ln(2.5 B / delta)) / (epsilon sqrt(B))`` with no sensitivity factor [C]: an ``epsilon sqrt(B)``
local budget that the numerical bound does not certify for a batch as small as their ``B = 20``
(:func:`~dpbandit.privacy.shuffle.gaussian_shuffle_calibration` gives ``eps0 = 1.003`` for ``epsilon = 1,
delta = 1e-4, B = 20``: almost no amplification). Default ``batch`` [Fill]: ``ceil(T^(3/5))`` (379 at
T = 20,000), large enough for the bound to amplify; the paper's analysis picks ``B`` to balance the
amplification against the staleness of a batch.

Not implemented: the vector-sum protocol P_Vec (the code's ``SDPLinUCBPVec``) and the shuffle
agent of Garcelon, Chaudhuri, Perchet and Pirotta (ALT 2022), whose paper was not read in this session.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.linear import PerArmFeatures
from dpbandit.agents.trust.reports import NoisyReportUCB
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.local import LocalGaussianRandomizer
from dpbandit.privacy.shuffle import ShuffleCalibration, gaussian_shuffle_calibration

__all__ = ["ShuffleLinUCB", "ShuffleLinUCBDisjoint"]


class _ShuffledReports(NoisyReportUCB):
    """Shuffle model: the randomizer spends the amplified local budget; reports are published per batch.

    Extra args: ``batch`` (users shuffled together, default ``ceil(T^(3/5))`` [Fill]).
    With ``reports_per_user = m`` (``None``: one report per privacy unit) a user may sit in ``m`` batches:
    each batch gets ``(epsilon/m, delta/m)`` (basic composition [O]).
    """

    trust_model = "shuffle"

    def __init__(self, n_arms: int, dim: int, *, rng: np.random.Generator, horizon: int | None = None,
                 batch: int | None = None, **kwargs: Any) -> None:
        if horizon is not None and batch is None:
            batch = math.ceil(horizon ** 0.6)
        self.batch = _validate.integer(batch=1 if batch is None else batch, minimum=1)
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, **kwargs)

    @property
    def shuffle(self) -> ShuffleCalibration:
        """The batch's calibration: local ``(eps0, delta0)`` and the central epsilon it certifies."""
        m = self.reports_per_user or 1
        return gaussian_shuffle_calibration(self.epsilon / m, self.delta / m, self.batch)

    def _randomizer(self, feature_dim: int, n_models: int) -> LocalGaussianRandomizer:
        cal = self.shuffle
        return LocalGaussianRandomizer(
            feature_dim, self.feature_bound, self.reward_bound, cal.eps0, cal.delta0, reports=1, models=n_models,
        )

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Central guarantee after shuffling (FMT21 numerical bound) and the local epsilon of one report."""
        cal = self.shuffle
        m = self.reports_per_user or 1
        local = self.randomizer.achieved_epsilon
        total_eps = m * cal.epsilon if local <= cal.eps0 * (1 + 1e-9) else math.inf
        return self._guarantee(
            epsilon=total_eps,
            accountant="analytic: FMT21 Thm 3.2 numerical clone bound + Thm 3.8 (approximate local DP)",
            calibration=f"batch {self.batch}: local ({cal.eps0:.4g}, {cal.delta0:.3g}) per report, report std "
                        f"{self.randomizer.sigma:.4g}; central ({cal.epsilon:.4g}, {cal.delta:.3g}) per batch",
            notes=f"local epsilon of one report {local:.4g} (pld) at delta0 {cal.delta0:.3g}; {m} batch(es) "
                  "per user composed (basic composition).",
            local_epsilon=local,
        )


class ShuffleLinUCB(PerArmFeatures, _ShuffledReports):
    """Chowdhury and Zhou (2022) LinUCB-SDP (P_Amp): one shared parameter on per-arm features ``(K, D)``,
    shuffled Gaussian reports in batches (module docstring)."""

    mechanism = "LinUCB-SDP (Chowdhury-Zhou 2022, P_Amp): shuffled Gaussian reports of (x x^T, x r)"


class ShuffleLinUCBDisjoint(_ShuffledReports):
    """Disjoint form on a shared context: one model per arm; every report noises every arm's block."""

    mechanism = "LinUCB-SDP disjoint (per-arm models; shuffled Gaussian reports, every block noised)"
