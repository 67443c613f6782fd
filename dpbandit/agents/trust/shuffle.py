"""Shuffle-model linear UCB: Chowdhury and Zhou (ICML 2022), LinUCB-SDP with the amplification protocol.

"Shuffle private linear contextual bandits" (arXiv 2202.05567), batched LinUCB [recall: their Algorithm
1] with the protocol P_Amp (the code's ``SDPLinUCBPAmp``, ``LinBanditPrivate.py`` lines 228-263 [C]; no
section or equation number checked: only the paper's opening page was reachable, package docstring): users are grouped in batches of ``B``; within a batch the policy is fixed; each user
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

P_Vec (``shuffle-vec-linucb``): the same batched LinUCB, each user's report sent through the shuffle
vector-summation protocol of :mod:`dpbandit.privacy.vector_sum` instead of a Gaussian local randomizer; the
batch's binomial count ``b`` is calibrated by dp_accounting (PLD of the shifted binomial, composed over the
report's coordinates) so the shuffled batch is ``(epsilon, delta)``-DP centrally. Shared-parameter form only
(a disjoint form would send every arm's block: ``K`` times the coordinates).

``calibration="authors"`` [C, never the default] reproduces the noise of the authors' code: P_Amp std
``sqrt(ln(2.5 B / delta)) / (epsilon sqrt(B))`` (``SDPLinUCBPAmp``, line 234), P_Vec ``b = g^2
ln(d/delta)^2 / (epsilon^2 B)``, ``p = 1/4``, ``gamma`` scaled by 1/4 (``SDPLinUCBPVec``, lines 271-276).
The guarantee then reports the authors' claimed epsilon as ``claimed_epsilon`` and, as ``epsilon``, what we
can certify for that noise (P_Vec: the PLD bound of :mod:`dpbandit.privacy.vector_sum`; P_Amp: ``inf``, as
no bound we have certifies an ``epsilon sqrt(B)`` local budget at small ``B``).

Not implemented: the shuffle agent of Garcelon, Chaudhuri, Perchet and Pirotta (ALT 2022, arXiv 2112.06008):
only its abstract was reachable in this session, so where it differs from Chowdhury and Zhou's is not known
here.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.linear import PerArmFeatures
from dpbandit.agents.trust.reports import NOISE_OFF_KEEPS_CALIBRATION, NoisyReportUCB
from dpbandit.privacy.accounting import gaussian_sigma
from dpbandit.privacy.gaussian_curve import gaussian_epsilon
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.local import LocalGaussianRandomizer, authors_local_std, local_epsilon
from dpbandit.privacy.shuffle import (
    ShuffleCalibration,
    gaussian_shuffle_calibration,
    shuffle_epsilon,
)
from dpbandit.privacy.vector_sum import (
    VectorSumRandomizer,
    calibrate_vector_sum,
    coordinate_count,
    default_levels,
)

__all__ = ["ShuffleLinUCB", "ShuffleLinUCBDisjoint", "ShuffleVecLinUCB"]


class _ShuffledReports(NoisyReportUCB):
    """Shuffle model: reports are published per shuffled batch (the protocol is the subclass's).

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
    def _per_batch(self) -> tuple[float, float, int]:
        """``(epsilon, delta)`` of one batch and the batches ``m`` one user may sit in."""
        m = self.reports_per_user or 1
        return self.epsilon / m, self.delta / m, m


class _AmplifiedReports(_ShuffledReports):
    """P_Amp: a Gaussian local randomizer whose budget shuffling amplifies (FMT21 numerical bound)."""

    max_epsilon: ClassVar[float] = 300.0
    max_epsilon_reason: ClassVar[str] = (
        "the FMT21 clone bound of its calibration evaluates e^epsilon0 at local epsilon0 up to twice epsilon, "
        "which overflows a float above 709"
    )

    @property
    def shuffle(self) -> ShuffleCalibration:
        """The batch's calibration: local ``(eps0, delta0)`` and the central epsilon it certifies."""
        eps, delta, _ = self._per_batch
        return gaussian_shuffle_calibration(eps, delta, self.batch)

    def _randomizer(self, feature_dim: int, n_models: int) -> LocalGaussianRandomizer:
        eps, delta, _ = self._per_batch
        if self.calibration == "authors":
            return LocalGaussianRandomizer(
                feature_dim, self.feature_bound, self.reward_bound, eps, delta, reports=1, models=n_models,
                scale=authors_local_std(eps, delta, self.batch),
            )
        cal = self.shuffle
        return LocalGaussianRandomizer(
            feature_dim, self.feature_bound, self.reward_bound, cal.eps0, cal.delta0, reports=1, models=n_models,
        )

    @functools.cached_property
    def _certified_authors(self) -> tuple[float, float, float]:
        """What the authors' noise certifies: ``(central epsilon, eps0, delta0)``, half of delta to the clone
        bound, half to Thm 3.8's term. For a trial central ``E`` (the claim, doubled until it holds, up to 16;
        past that ``inf`` is reported: nothing below 16 is certified):
        ``delta0 = (delta/2) / ((e^E + 1) 1.5 B)``, ``eps0`` = the PLD epsilon of one report at ``delta0``, and
        the clone bound's epsilon at ``eps0``; it holds once that epsilon is at most ``E`` [derived]."""
        eps, delta, _ = self._per_batch
        sigma, sens = self.randomizer.sigma, self.randomizer.sensitivity
        trial, delta0 = eps, math.nan  # a claim above 16 is not tried: nothing certified, no delta0
        while trial <= 16.0:
            delta0 = (delta / 2) / ((math.exp(trial) + 1.0) * 1.5 * self.batch)
            eps0 = local_epsilon(sigma, sens, delta0)
            if math.isfinite(eps0):
                central = shuffle_epsilon(eps0, self.batch, delta / 2)
                if central <= trial:
                    return central, eps0, delta0
            trial *= 2.0
        return math.inf, math.inf, delta0

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Central guarantee after shuffling (FMT21 numerical bound) and the local epsilon of one report."""
        _, _, m = self._per_batch
        if self.calibration == "authors":
            central, eps0, delta0 = self._certified_authors
            return self._guarantee(
                epsilon=m * central,
                accountant="analytic: FMT21 Thm 3.2 numerical clone bound + Thm 3.8, at the authors' noise",
                calibration=f"authors' code: report std sqrt(ln(2.5 B/delta))/(eps sqrt B) = "
                            f"{self.randomizer.sigma:.4g} at batch {self.batch}",
                notes=f"local epsilon of one report {eps0:.4g} at delta0 {delta0:.3g}.",
                local_epsilon=eps0,
            )
        cal = self.shuffle
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


class ShuffleLinUCB(PerArmFeatures, _AmplifiedReports):
    """Chowdhury and Zhou (2022) LinUCB-SDP (P_Amp): one shared parameter on per-arm features ``(K, D)``,
    shuffled Gaussian reports in batches (module docstring)."""

    mechanism = "LinUCB-SDP (Chowdhury-Zhou 2022, P_Amp): shuffled Gaussian reports of (x x^T, x r)"


class ShuffleLinUCBDisjoint(_AmplifiedReports):
    """Disjoint form on a shared context: one model per arm; every report noises every arm's block."""

    mechanism = "LinUCB-SDP disjoint (per-arm models; shuffled Gaussian reports, every block noised)"


class ShuffleVecLinUCB(PerArmFeatures, _ShuffledReports):
    """Chowdhury and Zhou (2022) LinUCB-SDP with P_Vec: one shared parameter on per-arm features, each
    report sent through the shuffle vector-summation protocol (:mod:`dpbandit.privacy.vector_sum`)."""

    mechanism = "LinUCB-SDP (Chowdhury-Zhou 2022, P_Vec): shuffle vector sum of (x x^T, x r)"

    #: Largest std of a batch's binomial noise whose PLD (:func:`~dpbandit.privacy.vector_sum.vector_sum_epsilon`)
    #: is computed [Fill] (benchmarks/calibration_time.py): its support, hence the accountant's work, grows with
    #: it; at d K = 10 (65 coordinates) a std of about 4.8e3 (epsilon 0.1) takes 2 s cold, 4.8e4 (epsilon 0.01)
    #: 74 s and 0.6 GB, and at d K = 100 (5150 coordinates) 2.4e4 (epsilon 1) more than a minute.
    max_binomial_std: ClassVar[float] = 5e3
    #: Largest ``coordinates x levels`` whose composed PLD is computed [Fill] (same benchmark): at large
    #: epsilon the calibration reaches its floor ``b = 1``, where each coordinate's privacy loss spans about
    #: ``levels log(batch)``; cold at load ~20: 2 s at 65 x 16 (d K = 10), 6 s at 230 x 20 (d K = 20), 16 s at
    #: 860 x 40 (d K = 40), more than 150 s at 5150 x 100 (d K = 100, the default environment's block features).
    max_work: ClassVar[int] = 5000

    def _check_work(self, std: float, levels: int, coordinates: int, delta: float) -> None:
        """Refuse, before the accountant runs, a composition of more than :attr:`max_work` coordinate-levels
        (the feature dimension is too large for P_Vec's accountant), or a binomial noise of std above
        :attr:`max_binomial_std`, naming the smallest epsilon that fits (the Gaussian of the same std, the
        calibration's starting point)."""
        if coordinates * levels > self.max_work:
            raise ValueError(
                f"Expected a smaller feature dimension for {type(self).__name__}: P_Vec would account "
                f"{coordinates} coordinates per report (d(d+1)/2 + d) with {levels} levels, {coordinates * levels} "
                f"> {self.max_work} coordinate-levels, whose PLD takes minutes at any epsilon; use d(d+1)/2 + d "
                f"coordinates times levels <= {self.max_work} (d <= 20 at batch 64), or shuffle-linucb (P_Amp); "
                f"{NOISE_OFF_KEEPS_CALIBRATION}."
            )
        if std <= self.max_binomial_std:
            return
        mu = levels * math.sqrt(coordinates) / self.max_binomial_std
        smallest = gaussian_epsilon(mu, delta) * self._per_batch[2]
        raise ValueError(
            f"Expected a larger epsilon={self.epsilon:g} for {type(self).__name__} at {coordinates} coordinates per "
            f"report and batch={self.batch}: each batch's binomial noise would have std {std:.3g} > "
            f"{self.max_binomial_std:g}, whose PLD takes minutes and gigabytes; use epsilon >= {smallest:.3g}, a "
            f"smaller d or batch, or shuffle-linucb (P_Amp); {NOISE_OFF_KEEPS_CALIBRATION}."
        )

    def _randomizer(self, feature_dim: int, n_models: int) -> VectorSumRandomizer:
        eps, delta, _ = self._per_batch
        levels = default_levels(self.batch, feature_dim)
        coordinates = coordinate_count(feature_dim)
        if self.calibration == "authors":  # SDPLinUCBPVec lines 271-274 [C]
            trials = max(1, round(levels**2 * math.log(feature_dim / delta) ** 2 / (eps**2 * self.batch)))
            p = 0.25
            self._check_work(math.sqrt(self.batch * trials * p * (1 - p)), levels, coordinates, delta)
        else:
            # the binomial Bin(B b, 1/2) has about the std of the Gaussian with the same guarantee
            self._check_work(gaussian_sigma(eps, delta, float(levels), coordinates), levels, coordinates, delta)
            trials = calibrate_vector_sum(eps, delta, self.batch, levels, coordinates)
            p = 0.5
        return VectorSumRandomizer(feature_dim, self.feature_bound, self.reward_bound, self.batch, levels, trials,
                                   p=p, models=n_models)

    def _gamma(self, horizon: int, feature_dim: int) -> float:
        """Ours: ``sigma sqrt(T D)``; authors': ``1/4 ln(d/delta) / (epsilon sqrt(B)) sqrt(T D)`` [C, line 276]."""
        if self.calibration == "authors":
            eps, delta, _ = self._per_batch
            noise = math.log(feature_dim / delta) / (eps * math.sqrt(self.batch))
            return 0.25 * noise * math.sqrt(horizon * feature_dim)
        return super()._gamma(horizon, feature_dim)

    @functools.cached_property
    def _epsilons(self) -> tuple[float, float]:
        """``(central epsilon of one batch, local epsilon of one user's messages)`` at the batch's delta."""
        _, delta, _ = self._per_batch
        return self.randomizer.epsilon(delta), self.randomizer.local_epsilon(delta)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Central guarantee of one shuffled batch (dp_accounting PLD of the shifted binomial, composed over
        the coordinates), times the batches a user may sit in; local: one user's messages unshuffled."""
        _, _, m = self._per_batch
        r = self.randomizer
        central, local = self._epsilons
        return self._guarantee(
            epsilon=m * central,
            accountant="pld (shifted binomial, dpbandit.privacy.vector_sum)",
            calibration=f"batch {self.batch}: g = {r.levels} levels, b = {r.trials} binomial trials, p = {r.p}; "
                        f"per-user noise std {r.sigma:.4g}",
            notes=f"{r.coordinates} coordinates per report; {m} batch(es) per user composed (basic composition).",
            local_epsilon=local,
            sensitivity=f"shift <= g = {r.levels} per coordinate, {r.coordinates} coordinates",
        )
