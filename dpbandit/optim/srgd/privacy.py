"""Noise calibration and guarantees of this subpackage, all through the privacy core's accountant.

* Binary tree (Accelerated-DP-SRGD): node noise ``z * C_tree`` with the multiplier ``z`` calibrated by
  ``accounting.tree_gaussian_sigma`` (RDP accountant, ``SingleEpochTreeAggregationDpEvent`` over T steps); the
  reported epsilon is recomputed by ``accounting.epsilon_for`` on that event. The papers instead use
  ``mu``-GDP with ``mu = eps / sqrt(2 ln(2.5/delta))`` (000 Cor. 4.5 / Lemma 4.3), kept in ``notes``.
* Matrix factorisation (DP-MEMF / DP-SRG-MEMF): rho-zCDP (000 Sec. 5), ``rho = accounting.epsilon_to_zcdp``
  and the reported epsilon is the RDP accountant's on ``zcdp_event(rho)``. The paper's
  conversion ``rho + 2 sqrt(rho ln(1/delta))`` is looser; its value at the same rho is kept in ``notes``.

Adjacency: zero-out (000 Sec. 2), which the core accounts as dp_accounting's ``REPLACE_SPECIAL`` with the
sensitivity of one example's contribution (clip / B, divided by beta for the tree).
"""

from __future__ import annotations

import math

from dpbandit.privacy.accounting import (
    epsilon_to_zcdp,
    tree_aggregation_event,
    tree_gaussian_sigma,
    zcdp_event,
)
from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["calibrate_tree", "calibrate_zcdp"]


def calibrate_tree(epsilon: float, delta: float, *, steps: int) -> tuple[float, PrivacyGuarantee]:
    """Noise multiplier (node std / C_tree) of a T-step Gaussian tree for (epsilon, delta), and guarantee."""
    z = tree_gaussian_sigma(epsilon, delta, steps)
    depth = steps.bit_length()
    mu_paper = epsilon / math.sqrt(2.0 * math.log(2.5 / delta))
    guarantee = PrivacyGuarantee.from_event(
        "Accelerated-DP-SRGD (binary-tree Gaussian noise, Alg. 1 of 000/001)",
        tree_aggregation_event(z, steps),
        epsilon,
        delta,
        accountant="rdp",
        sensitivity="zero-out adjacency of 000 Sec. 2; l2 sensitivity clip_norm / (B beta) of one tree input",
        calibration=f"tree_gaussian_sigma: noise multiplier {z:.6g} over T={steps} steps (depth {depth})",
        notes=(
            "paper (000 Lemma 4.3 / Cor. 4.5): multiplier sqrt(depth)/mu = "
            f"{math.sqrt(depth) / mu_paper:.6g} "
            f"with mu = eps/sqrt(2 ln(2.5/delta))"
        ),
    )
    return z, guarantee


def calibrate_zcdp(epsilon: float, delta: float, *, mechanism: str) -> tuple[float, PrivacyGuarantee]:
    """rho-zCDP level meeting (epsilon, delta) by the accountant's conversion, and guarantee (000 Sec. 5)."""
    rho = epsilon_to_zcdp(epsilon, delta)
    paper_eps = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    guarantee = PrivacyGuarantee.from_event(
        f"{mechanism} (matrix-factorisation Gaussian noise, rho-zCDP, Alg. 2/3 of 000)",
        zcdp_event(rho),
        epsilon,
        delta,
        accountant="rdp",
        sensitivity="zero-out adjacency of 000 Sec. 2; l2 sensitivity clip_norm / B of C G, sens(C) = 1",
        calibration=f"epsilon_to_zcdp: rho = {rho:.6g}",
        notes=f"paper's conversion rho + 2 sqrt(rho ln(1/delta)) gives epsilon = {paper_eps:.6g} at this rho",
    )
    return rho, guarantee
