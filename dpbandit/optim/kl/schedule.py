"""Data-independent schedules and budget splits of the KL algorithms (paper 003, corrected accounting).

Neighbouring data sets differ by **replacing** one sample (Defs. 2-3 say "differing in one data point"). A
Gaussian release of l2-sensitivity ``Delta`` with noise ``N(0, sigma^2 I)`` is charged the standard
``Delta^2 / (2 sigma^2)`` zCDP [O] (Bun & Steinke 2016, Prop. 1.6); the mean of per-example vectors of norm
<= C has ``Delta = 2 C / n``. The paper instead charges ``(Delta / sigma)^2`` with ``Delta = C / n`` (half the
true replace-one cost), which is why Lemma 8 ends at 2 rho. Notes ``kl.md`` P1/P2 (checked against the paper:
Lemma 8, B.1, D.2). Every function here depends only on public inputs (n, d, rho, beta, gamma, kappa, L0,
L1, F0), never on data (notes P4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SpiderSchedule", "gaussian_charge", "prox_rounds", "spider_schedule", "SPIDER_WORST_FACTOR"]

#: Worst-case total of Algorithm 1's charges in units of its schedule budget rho_s: K anchor gradients at
#: 2 rho_s / K plus < T_k differences per round at rho_s / (8 K T_k)  (< 2 + 1/8, notes P1).
SPIDER_WORST_FACTOR = 2.125


def gaussian_charge(sensitivity: float, sigma: float) -> float:
    """zCDP cost ``Delta^2 / (2 sigma^2)`` of one Gaussian release [O]."""
    return sensitivity**2 / (2.0 * sigma**2)


@dataclass(frozen=True)
class SpiderSchedule:
    """Algorithm 1 lines 2-7, precomputed (all arrays have length K; K = 0 means "return w0").

    Attributes:
        K: number of rounds, ``max(1, ceil(K))`` (notes A4), 0 if the log bracket is <= 0.
        phi: targets Phi_k; steps: T_k = ceil((F0 / Phi_k)^((2-kappa)/kappa)); floor: the floor of line 6.
        sigma_anchor: std of b_{k,0}; sigma_diff: std of b_{k,t} (t >= 1), both already rescaled so that the
            worst-case composition is exactly the requested rho (see ``spider_schedule``).
        step: normalised step length Phi_k^(1/kappa) / (4 gamma L1) (line 11); threshold: the stopping test
            (7 / (8 gamma)) Phi_k^(1/kappa) (line 10).
        anchor_sensitivity, diff_sensitivity: replace-one l2 sensitivities 2 L0 / n and 2 L1 step / n.
        beta_prime, rho_schedule: beta' of line 3 and the budget rho_s plugged into the paper's formulas.
    """

    K: int
    phi: np.ndarray
    steps: np.ndarray
    floor: float
    sigma_anchor: float
    sigma_diff: np.ndarray
    step: np.ndarray
    threshold: np.ndarray
    anchor_sensitivity: float
    diff_sensitivity: np.ndarray
    beta_prime: float
    rho_schedule: float

    def charges(self) -> tuple[float, np.ndarray]:
        """(zCDP charge of one anchor gradient, per-round charge of one difference)."""
        return (
            gaussian_charge(self.anchor_sensitivity, self.sigma_anchor),
            gaussian_charge(self.diff_sensitivity, self.sigma_diff),
        )

    def worst_case_rho(self) -> float:
        """Total zCDP if every round runs to length: K anchors + sum_k (T_k - 1) differences."""
        anchor, diff = self.charges()
        return float(self.K * anchor + np.sum((self.steps - 1) * diff))


def spider_schedule(
    *, n: int, dim: int, rho: float, beta: float, gamma: float, kappa: float, L0: float, L1: float, F0: float,
    floor_const: float = 32.0,
) -> SpiderSchedule:
    """Algorithm 1's schedule with the corrected accounting (notes P1, P2, A2-A5).

    The paper's formulas are evaluated with ``rho_s = rho / 2.125``; then every noise std is multiplied by
    ``sqrt(total(rho_s) / rho) <= 1`` so that the exact worst-case composition of the true charges equals
    ``rho`` (the noise is never larger than the schedule's, so Lemma 2 keeps holding with rho_s).
    Each round releases at most ``T_k - 1`` differences: with the loop ``while t < T_k`` (notes A3) the
    difference after the last step would only feed a test that cannot pass, so it is not computed [Fill].
    """
    rho_s = rho / SPIDER_WORST_FACTOR
    nrs = n * math.sqrt(rho_s)
    expo = (2.0 - kappa) / kappa
    bracket = math.log(F0) + kappa * math.log(nrs / (gamma * L0 * math.sqrt(dim)))
    K_real = (1.0 + 64.0 * F0 ** (-expo) * gamma**2 * L1) * bracket
    K = max(1, math.ceil(K_real)) if bracket > 0 else 0
    Kc = max(K, 1)
    beta_prime = beta / Kc * (gamma * L0 * math.sqrt(Kc * dim) / (nrs * F0 ** (1.0 / kappa))) ** (2.0 - kappa)
    c = 1.0 + F0**expo / (64.0 * gamma**2 * L1)
    floor = (floor_const * gamma * L0 * math.sqrt(Kc * dim * math.log(1.0 / beta_prime)) / nrs) ** kappa
    floor = min(floor, F0)
    phi = np.maximum(F0 * c ** -np.arange(1.0, K + 1.0), floor)
    steps = np.ceil((F0 / phi) ** expo - 1e-12).astype(int)
    root = phi ** (1.0 / kappa)
    sigma_anchor = L0 * math.sqrt(Kc) / nrs
    sigma_diff = root * np.sqrt(steps * Kc) / (gamma * nrs)
    step = root / (4.0 * gamma * L1)
    sched = SpiderSchedule(
        K=K, phi=phi, steps=steps, floor=floor, sigma_anchor=sigma_anchor, sigma_diff=sigma_diff, step=step,
        threshold=7.0 * root / (8.0 * gamma), anchor_sensitivity=2.0 * L0 / n,
        diff_sensitivity=2.0 * L1 * step / n, beta_prime=beta_prime, rho_schedule=rho_s,
    )
    scale = math.sqrt(sched.worst_case_rho() / rho) if K else 1.0
    return SpiderSchedule(
        **{**sched.__dict__, "sigma_anchor": sigma_anchor * scale, "sigma_diff": sigma_diff * scale}
    )


def prox_rounds(*, n: int, dim: int, rho: float, gamma: float, kappa: float, L0: float, weak_convexity: float,
                F0: float) -> int:
    """Algorithm 2 line 1, rounded up (notes C1); 0 if the bracket is <= 0 (then w0 is returned):
    T = (1 + 32 F0^((kappa-2)/kappa) gamma^2 L~1) [log F0 + kappa log(n sqrt(rho) / (gamma L0 sqrt d))]."""
    bracket = math.log(F0) + kappa * math.log(n * math.sqrt(rho) / (gamma * L0 * math.sqrt(dim)))
    if bracket <= 0:
        return 0
    factor = 1.0 + 32.0 * F0 ** ((kappa - 2.0) / kappa) * gamma**2 * weak_convexity
    return max(1, math.ceil(factor * bracket))
