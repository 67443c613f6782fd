"""Audit cases of the private optimizers, drawing from each object's own noise (registered on import).

Every case builds the real object and audits the releases that carry one user's data with the object's own
sampler and calibration; the neighbouring shift is written here from the paper's sensitivity, never read
from the object, so a wrong sensitivity or step count in the object shows up as too little noise. The
claim is the epsilon the object reports: the accountant's (dp_accounting) for the noise as run. Each case
has a broken twin whose draws are halved (same claim), which must be flagged.

* ``dp-tofw-tree``: DP-TOFW (Algorithm 1 of 004) at p = inf, whose node noise ``DPTOFW.node_noise`` is the
  Gaussian of Lemma 3.3 (so the RDP tree accountant applies; Eq. 3.2's claim is conservative, the report's
  accountant epsilon is audited). Step 1's input ``g_1`` moves by the l_q sensitivity ``2(c beta D + L)``
  (proof of Thm 3.1, A.1) along ``e_1``; releases at t = 1, 2, 4, ..., n.
* ``srgd-tree``: Accelerated-DP-SRGD's tree (``AcceleratedDPSRGD.noise_tree``, Algorithm 1 of 000): under
  zero-out adjacency one example moves ``v_0`` by ``C_tree = G / (B beta)`` (Lemma 4.3 of 000).
* ``kl-prox``: KL proximal point (Algorithm 2 + 4 of 003): ``T (T_in - 1)`` Gaussian releases of the mean
  gradient (``KLProximalPoint.noise_calibration``, drawn by its own ``_noise_rows``), replace-one sensitivity
  ``2 L0 / n`` each; statistic: their sum (the likelihood-ratio statistic of a common shift).
* ``nonsmooth-single-pass``: the tree of one period of the single-pass oracle (Algorithms 3/5 of 002,
  ``SinglePassOracle.new_tree``); replacing one anchor sample moves the anchor by ``2 C_a / B1``.
* ``nonsmooth-multi-pass``: the multi-pass oracle (Algorithm 4 of 002): ``k1`` anchors with noise ``sigma_1``
  and ``k2`` increments with ``sigma_2`` (``MultiPassOracle.sigmas``, ``.counts``), replace-one sensitivities
  ``2 C_a / n`` and ``2 C_i / n``; statistic: the likelihood-ratio weighting of the releases.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.audit.batched import NoiseFn, chunk_sizes, halved, power_of_two_steps, summed_releases
from dpbandit.audit.core import AuditCase, register
from dpbandit.optim.kl import KLProximalPoint
from dpbandit.optim.losses import SquaredLoss
from dpbandit.optim.nonsmooth.losses import ShellLoss
from dpbandit.optim.nonsmooth.oracles import MultiPassOracle, OracleParams, SinglePassOracle
from dpbandit.optim.srgd.srgd import AcceleratedDPSRGD
from dpbandit.optim.tofw import DPTOFW
from dpbandit.privacy.noise import gaussian

__all__: list[str] = []

DELTA = 1e-5
_CHUNK = 8192
_VARIANTS = {
    "calibrated": ("pass", "the object's own draws"),
    "noise-halved": ("flag", "its draws times 1/2"),
}


def _tree_case(
    name: str,
    noise: NoiseFn,
    horizon: int,
    shift: np.ndarray,
    *,
    claim: float,
    accountant_epsilon: float,
    notes: str,
) -> AuditCase:
    """Step 1's input is 0 (D) or ``shift`` (D'), later inputs 0; statistic: releases containing step 1."""
    checkpoints = power_of_two_steps(horizon)
    direction = shift / np.linalg.norm(shift)

    def mechanism(rng: np.random.Generator, first: np.ndarray, n_runs: int) -> np.ndarray:
        return summed_releases(
            noise,
            first,
            np.zeros_like(first),
            horizon=horizon,
            checkpoints=checkpoints,
            n_runs=n_runs,
            rng=rng,
            chunk=_CHUNK,
        )

    expect, what = _VARIANTS[name.split("/")[1]]
    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=np.zeros_like(shift),
        neighbour=shift,
        claimed_epsilon=claim,
        delta=DELTA,
        statistic=lambda out: out @ direction,
        accountant_epsilon=accountant_epsilon,
        accountant="rdp (report)",
        expect=expect,
        notes=f"{notes}; {what}; releases at t = {checkpoints}",
    )


def _variant(noise: NoiseFn, name: str) -> NoiseFn:
    return halved(noise) if name.endswith("/noise-halved") else noise


# ---------------------------------------------------------------- DP-TOFW (Algorithm 1 of 004)
def _tofw(name: str) -> AuditCase:
    opt = DPTOFW(
        2,
        p=math.inf,
        radius=1.0,
        horizon=16,
        epsilon=6.0,
        delta=DELTA,
        smoothness=1.0,
        lipschitz=1.0,
        rng=np.random.default_rng(0),
    )
    sensitivity = 2.0 * (opt.lr_scale * opt.smoothness * opt.diameter + opt.lipschitz)  # A.1: 2(c beta D + L)
    report = opt.privacy.epsilon
    return _tree_case(
        name,
        _variant(opt.node_noise, name),
        opt.horizon,
        np.array([sensitivity, 0.0]),
        claim=report,
        accountant_epsilon=report,
        notes=f"DPTOFW(d=2, p=inf, n=16, paper epsilon 6): report epsilon {report:.3g}, "
        f"l_q sensitivity {sensitivity:g}",
    )


for _name in ("dp-tofw-tree/calibrated", "dp-tofw-tree/noise-halved"):
    register(_name)(lambda name=_name: _tofw(name))


# ---------------------------------------------------------------- Accelerated-DP-SRGD (Algorithm 1 of 000)
def _srgd(name: str) -> AuditCase:
    batch, beta, clip, steps = 10, 2.0, 1.0, 16
    opt = AcceleratedDPSRGD(
        SquaredLoss(),
        dim=2,
        batch_size=batch,
        beta=beta,
        clip_norm=clip,
        epsilon=2.0,
        delta=DELTA,
        rng=np.random.default_rng(0),
    )
    tree, multiplier = opt.noise_tree(steps)
    c_tree = clip / (batch * beta)  # Lemma 4.3 of 000: one example's clipped difference, averaged, over beta
    return _tree_case(
        name,
        _variant(tree.noise, name),
        steps,
        np.array([c_tree, 0.0]),
        claim=opt.epsilon,
        accountant_epsilon=opt.privacy.epsilon,
        notes=f"AcceleratedDPSRGD(B={batch}, beta={beta}, G={clip}), T={steps}: multiplier "
        f"{multiplier:.4g}, C_tree {c_tree:g}",
    )


for _name in ("srgd-tree/calibrated", "srgd-tree/noise-halved"):
    register(_name)(lambda name=_name: _srgd(name))


# -------------------------------------------------------- nonsmooth single-pass oracle (Algs 3/5 of 002)
def _single_pass(name: str) -> AuditCase:
    period = 8
    params = OracleParams(
        order="first", alpha=0.1, period=period, m=1, B1=1, B2=1, clip_anchor=1.0, clip_increment=0.5
    )  # the anchor carries the largest sensitivity, and the most nodes
    oracle = SinglePassOracle(
        ShellLoss(),
        np.ones((period, 2)),
        np.zeros(period),
        params,
        steps=period,
        D=0.01,
        epsilon=2.0,
        delta=DELTA,
        rng=np.random.default_rng(0),
    )
    shift = 2.0 * oracle.clip_anchor / params.B1  # replace one of the B1 anchor samples (each clipped to C_a)
    return _tree_case(
        name,
        _variant(oracle.new_tree().noise, name),
        period,
        np.array([shift, 0.0]),
        claim=oracle.epsilon,
        accountant_epsilon=oracle.privacy.epsilon,
        notes=f"SinglePassOracle(first order, Sigma={period}, B1=1, C_a=1): sigma "
        f"{oracle.sigma:.4g}, anchor shift 2 C_a / B1 = {shift:g}",
    )


for _name in ("nonsmooth-single-pass/calibrated", "nonsmooth-single-pass/noise-halved"):
    register(_name)(lambda name=_name: _single_pass(name))


# -------------------------------------------------------- Gaussian compositions: KL prox, multi-pass oracle
def _composition_case(
    name: str,
    sigmas: np.ndarray,
    shifts: np.ndarray,
    sampler,
    *,
    claim: float,
    accountant_epsilon: float,
    notes: str,
) -> AuditCase:
    """Independent Gaussian releases ``shift_j + N(0, sigma_j^2)`` (D') vs ``N(0, sigma_j^2)`` (D).

    ``sampler(rng, sigma, m)`` draws the object's noise for ``m`` runs, shape ``(m,)``. Statistic: the
    likelihood ratio ``sum_j shift_j x_j / sigma_j^2`` (a post-processing of the releases).
    """
    factor = 0.5 if name.endswith("/noise-halved") else 1.0
    weights = shifts / sigmas**2

    def mechanism(rng: np.random.Generator, scale: float, n_runs: int) -> np.ndarray:
        out = []
        for m in chunk_sizes(n_runs, _CHUNK):
            releases = np.stack(
                [scale * s + factor * sampler(rng, sigma, m) for s, sigma in zip(shifts, sigmas, strict=True)]
            )
            out.append(weights @ releases)
        return np.concatenate(out)

    expect, what = _VARIANTS[name.split("/")[1]]
    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=0.0,
        neighbour=1.0,
        claimed_epsilon=claim,
        delta=DELTA,
        accountant_epsilon=accountant_epsilon,
        accountant="rdp (report)",
        expect=expect,
        notes=f"{notes}; {what}",
    )


def _kl_prox(name: str) -> AuditCase:
    n, rho = 1000, 0.08
    alg = KLProximalPoint(
        rho=rho,
        beta=0.05,
        gamma=1.0,
        kappa=3.0,
        L0=1.0,
        weak_convexity=0.01,
        F0=1.0,
        rng=np.random.default_rng(0),
        delta=DELTA,
        inner_steps=3,
    )
    T, T_in, sigma, _ = alg.noise_calibration(n, 1)
    k = T * (T_in - 1)  # noisy gradient releases of one fit (Algorithm 4 inside Algorithm 2)
    shift = 2.0 * alg.L0 / n  # replace-one sensitivity of the mean gradient (per-example norm <= L0)

    def sampler(rng: np.random.Generator, sd: float, m: int) -> np.ndarray:
        alg.rng = rng
        return next(alg._noise_rows(1, m, sd))  # the optimizer's own noise rows: one release for m runs

    privacy = alg.fit(_ZeroObjective(n)).privacy
    return _composition_case(
        name,
        np.full(k, sigma),
        np.full(k, shift),
        sampler,
        claim=privacy.claimed_epsilon,
        accountant_epsilon=privacy.epsilon,
        notes=f"KLProximalPoint(rho={rho}, n={n}): {k} releases, sigma {sigma:.4g}, "
        f"Delta 2 L0 / n = {shift:g}",
    )


class _ZeroObjective:
    """An objective with zero gradients (only used to obtain the optimizer's guarantee for ``n`` samples)."""

    dim = 1

    def __init__(self, n: int) -> None:
        self.n, self.weights = n, np.full(n, 1.0 / n)

    def value(self, w: np.ndarray) -> float:
        return 0.0

    def per_example_grad(self, w: np.ndarray) -> np.ndarray:
        return np.zeros((self.n, 1))


for _name in ("kl-prox/calibrated", "kl-prox/noise-halved"):
    register(_name)(lambda name=_name: _kl_prox(name))


def _multi_pass(name: str) -> AuditCase:
    n, steps, period = 50, 8, 4
    params = OracleParams(order="first", alpha=0.1, period=period, m=1, clip_anchor=1.0, clip_increment=0.5)
    oracle = MultiPassOracle(
        ShellLoss(),
        np.ones((n, 2)),
        np.zeros(n),
        params,
        steps=steps,
        D=0.01,
        epsilon=2.0,
        delta=DELTA,
        rng=np.random.default_rng(0),
    )
    (k1, k2), (s1, s2) = oracle.counts, oracle.sigmas
    shifts = np.array([2.0 * oracle.clip_anchor / n] * k1 + [2.0 * oracle.clip_increment / n] * k2)

    def sampler(rng: np.random.Generator, sd: float, m: int) -> np.ndarray:
        return gaussian(rng, sd, m)  # the oracle's noise: privacy.noise.gaussian on its own stream

    return _composition_case(
        name,
        np.array([s1] * k1 + [s2] * k2),
        shifts,
        sampler,
        claim=oracle.epsilon,
        accountant_epsilon=oracle.privacy.epsilon,
        notes=f"MultiPassOracle(n={n}, T={steps}, Sigma={period}): {k1} anchors (sigma "
        f"{s1:.3g}), {k2} increments (sigma {s2:.3g}); shifts 2 C / n",
    )


for _name in ("nonsmooth-multi-pass/calibrated", "nonsmooth-multi-pass/noise-halved"):
    register(_name)(lambda name=_name: _multi_pass(name))
