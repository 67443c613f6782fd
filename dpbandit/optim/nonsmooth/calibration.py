"""Sensitivities and noise calibration of the private oracles of paper 002 (Lemmas 3.4/3.5, 4.3, 6.3/6.4).

Per-sample bounds (notes 002 sections 2, 5, 7.8). A per-sample estimate of grad f_alpha(z; xi) averages m terms
of norm <= b (b = L d zeroth order, b = L first order), so its norm is <= b always and <= L + dev with
probability >= 1 - gamma (:func:`~dpbandit.optim.nonsmooth.estimators.deviation_bound`). A per-sample
increment est(z_t) - est(z_{t-1}) has mean of norm <= H ||z_t - z_{t-1}|| <= (L sqrt(d) / alpha) 2 D
(H = L sqrt(d)/alpha, Fact 2.3(iii) with the constant of the notes [ours]; ||z_t - z_{t-1}|| <= 2 D), so
C_i = min(2 D L sqrt(d)/alpha + 2 dev, 2 b). Under replacement the minibatch sensitivities are 2 C_a / B1
(anchor; Lemma 6.3 prints L / B1, the notes' correction is 2 L / B1) and 2 C_i / B2 (increment).

Strict mode ([ours], notes section 5) clips every per-sample anchor estimate to ``clip_anchor`` and every
per-sample increment to ``clip_increment``; the sensitivities are then deterministic and delta is spent on the
Gaussian mechanism only. Without strict mode nothing is clipped and the bounds hold on the event of Lemma 3.4,
whose failure probability delta_event is added to delta ([ours]: the paper spends "delta/2" on it).

Calibration. ``"accountant"`` (default): the smallest noise meeting (epsilon, delta_mech) by dp_accounting
(RDP), through the privacy core. ``"paper"``: Prop 2.5's sigma = 4 s sqrt(log Sigma log(1/delta)) / epsilon for
the tree (with log Sigma floored at 1: the printed formula gives sigma = 0 for Sigma = 1) and Thm 4.1's
sigma_k = s_k sqrt(k log(1/delta)) / epsilon for the multi-pass Gaussians (constants 1); the accountant's epsilon
for that noise is reported next to the claim either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import dp_accounting

from dpbandit.optim.nonsmooth.estimators import Order, deviation_bound
from dpbandit.privacy import accounting

__all__ = [
    "CALIBRATIONS",
    "PerSampleBounds",
    "multi_pass_sigmas",
    "multi_pass_event",
    "per_sample_bounds",
    "tree_sigma",
]

CALIBRATIONS = ("accountant", "paper")


@dataclass(frozen=True)
class PerSampleBounds:
    """Norm bounds on one sample's anchor estimate (``anchor``) and increment (``increment``).

    ``*_certain`` is True when the bound holds deterministically (it equals the worst case b or 2 b).
    """

    anchor: float
    increment: float
    anchor_certain: bool
    increment_certain: bool


def per_sample_bounds(
    *,
    order: Order,
    lipschitz: float,
    dim: int,
    alpha: float,
    D: float,
    m: int,
    m_anchor: int,
    gamma: float,
) -> PerSampleBounds:
    """C_a = min(L + dev(m_anchor), b) and C_i = min(2 D L sqrt(d) / alpha + 2 dev(m), 2 b), dev at level gamma."""
    b = lipschitz * dim if order == "zeroth" else lipschitz
    anchor = lipschitz + deviation_bound(lipschitz=lipschitz, dim=dim, m=m_anchor, order=order, gamma=gamma)
    smooth = 2.0 * D * lipschitz * math.sqrt(dim) / alpha
    increment = smooth + 2.0 * deviation_bound(lipschitz=lipschitz, dim=dim, m=m, order=order, gamma=gamma)
    return PerSampleBounds(
        anchor=min(anchor, b),
        increment=min(increment, 2.0 * b),
        anchor_certain=anchor >= b,
        increment_certain=increment >= 2.0 * b,
    )


def tree_sigma(
    *, epsilon: float, delta: float, period: int, sensitivity: float, calibration: str = "accountant"
) -> float:
    """Node noise std of one period's tree (Algorithm 1 / Prop 2.5) for per-step sensitivity ``sensitivity``.

    Each sample enters one step of one period (single pass), periods use disjoint samples and fresh trees
    (parallel composition), so one tree of ``period`` steps carries the whole guarantee.
    """
    if calibration == "paper":
        return 4.0 * sensitivity * math.sqrt(max(math.log(period), 1.0) * math.log(1.0 / delta)) / epsilon
    return accounting.tree_gaussian_sigma(epsilon, delta, period, sensitivity)


def multi_pass_sigmas(
    *,
    epsilon: float,
    delta: float,
    sensitivities: tuple[float, float],
    counts: tuple[int, int],
    period: int,
    calibration: str = "accountant",
) -> tuple[float, float]:
    """(sigma_1, sigma_2) of Algorithm 4: ``counts = (k1 anchors, k2 increments)``, replacement sensitivities.

    ``"accountant"`` [Fill]: split the RDP budget rho = sum_k k s^2/(2 sigma^2) so as to minimise the noise
    variance of one period, sigma_1^2 + (period - 1) sigma_2^2 (Lagrange: rho_k proportional to sqrt(c_k),
    c_1 = k1 s1^2, c_2 = (period - 1) k2 s2^2), then scale both to meet (epsilon, delta) with the RDP accountant.
    Composed Gaussians have the RDP curve of one Gaussian with 1/z^2 = sum_k k / z_k^2, so the scale is
    ``gaussian_sigma(..., count=1, accountant="rdp")``.
    """
    (s1, s2), (k1, k2) = sensitivities, counts
    if calibration == "paper":
        log_term = math.log(1.0 / delta)
        return (s1 * math.sqrt(k1 * log_term) / epsilon, s2 * math.sqrt(max(k2, 1) * log_term) / epsilon)
    z_eff = accounting.gaussian_sigma(epsilon, delta, 1.0, 1, accountant="rdp")
    weights = [math.sqrt(k1) * s1, math.sqrt(max(period - 1, 0) * k2) * s2]
    if k2 == 0 or weights[1] == 0.0:
        return z_eff * math.sqrt(k1) * s1, math.inf
    total = sum(weights)
    z1 = z_eff * math.sqrt(k1 * total / weights[0])
    z2 = z_eff * math.sqrt(k2 * total / weights[1])
    return z1 * s1, z2 * s2


def multi_pass_event(
    *, sigmas: tuple[float, float], sensitivities: tuple[float, float], counts: tuple[int, int]
) -> dp_accounting.DpEvent:
    """The composition of Algorithm 4's releases: k1 Gaussians (anchors) then k2 Gaussians (increments)."""
    events = [
        accounting.gaussian_event(sigma, s, k)
        for sigma, s, k in zip(sigmas, sensitivities, counts)
        if k > 0 and math.isfinite(sigma)
    ]
    return events[0] if len(events) == 1 else dp_accounting.ComposedDpEvent(events)
