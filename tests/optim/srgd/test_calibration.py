"""Accelerated-DP-SRGD, DP-MEMF, DP-SRG-MEMF: calibration inputs pinned to their formulas (written here) and
the noise each optimizer really draws, read back from a run on zero data, against halved and doubled
scales."""

from __future__ import annotations

import math

import numpy as np
import privacy_reference as ref
import pytest

from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.optim.losses import SquaredLoss
from dpbandit.optim.srgd.memf import DPMEMF, DPSRGMEMF, strategy
from dpbandit.optim.srgd.srgd import AcceleratedDPSRGD

pytestmark = pytest.mark.privacy

EPS, DELTA = 2.0, 1e-6


def _srgd(seed: int, *, d: int, B: int, beta: float, G: float) -> AcceleratedDPSRGD:
    return AcceleratedDPSRGD(
        SquaredLoss(),
        dim=d,
        batch_size=B,
        beta=beta,
        clip_norm=G,
        epsilon=EPS,
        delta=DELTA,
        rng=np.random.default_rng(seed),
    )


@pytest.mark.parametrize("T", [1, 7, 16])
def test_srgd_calibration_inputs(T: int) -> None:
    """The tree is calibrated over the T steps actually run: multiplier z with tree_epsilon(z, T) = eps."""
    d, B = 3, 4
    res = _srgd(0, d=d, B=B, beta=2.0, G=1.0).fit(np.ones((B * T, d)), np.ones(B * T))
    z = ref.tree_multiplier(EPS, DELTA, T)
    assert res.info["steps"] == T
    assert res.info["noise_multiplier"] == pytest.approx(z, rel=1e-4)
    assert res.privacy.epsilon == pytest.approx(ref.tree_epsilon(z, T, DELTA), rel=1e-4)


def test_srgd_tree_draws_its_stated_noise() -> None:
    """Zero data: v_t = 0, so S_t (the tree's release) is pure noise. Replay lines 5-7 from the y-history:
    y_{t+1} = x_t - S_t/(t+1), z_{t+1} = z_t - S_t, x_{t+1} = (1 - tau) y_{t+1} + tau z_{t+1}. At t + 1 = 2^k,
    S_t is one node: N(0, (z C_tree)^2 I) with C_tree = G / (B beta) (Lemma 4.3 of 000)."""
    d, B, beta, G, T = 20, 5, 3.0, 1.5, 16
    std = ref.tree_multiplier(EPS, DELTA, T) * G / (B * beta)
    nodes = []
    for seed in range(25):
        res = _srgd(seed, d=d, B=B, beta=beta, G=G).fit(np.zeros((B * T, d)), np.zeros(B * T), record=True)
        x = z = np.zeros(d)
        for t in range(T):
            y_next = res.history[t + 1]
            S = (t + 1) * (x - y_next)
            z = z - S
            tau = 2.0 / (t + 3)
            x = (1 - tau) * y_next + tau * z
            if (t + 1) & t == 0:
                nodes.append(S)
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(nodes), std))


def _memf(cls, seed: int, **kw):
    base = dict(
        batch_size=4,
        learning_rate=0.5,
        clip_norm=0.8,
        epsilon=EPS,
        delta=DELTA,
        epochs=2,
        momentum=0.0,
        workload="ones",
        dim=6,
    )
    return cls(SquaredLoss(), rng=np.random.default_rng(seed), **{**base, **kw})


def test_memf_calibration_inputs() -> None:
    """rho-zCDP at (eps, delta); Z ~ N(0, s^2), s = (G / B) / sqrt(2 rho) (the printed 1/(2 rho) omits G / B);
    C has multi-participation sensitivity max_j ||sum_i C[:, i b + j]||_2 = 1."""
    opt = _memf(DPMEMF, 0)
    rho = ref.rho_for(EPS, DELTA)
    assert opt.rho == pytest.approx(rho, rel=1e-6)
    assert opt.privacy.epsilon == pytest.approx(ref.zcdp_epsilon(rho, DELTA), rel=1e-9)
    C = strategy(10, "ones", epochs=2, momentum=0.0, decay=0.0).matrix  # 2 epochs of b = 5 steps
    worst = max(np.linalg.norm(C[:, [j, 5 + j]].sum(axis=1)) for j in range(5))
    assert worst == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("cls", [DPMEMF, DPSRGMEMF])
def test_memf_draws_its_stated_noise(cls) -> None:
    """Zero data, momentum 0: g_t = (x_t - x_{t+1}) / lr; the SRG recursion g_t = c g_{t-1} + Delta_t is
    undone;
    the noise rows are C^{-1} Z, so Z = C (rows) must be N(0, s^2)."""
    n_steps, B, G, lr = 10, 4, 0.8, 0.5
    s = (G / B) / math.sqrt(2 * ref.rho_for(EPS, DELTA))
    decay = 0.3 if cls is DPSRGMEMF else 0.0
    C = strategy(n_steps, "ones", epochs=2, momentum=0.0, decay=decay).matrix
    Z = []
    for seed in range(60):
        kw = {"decay": decay} if cls is DPSRGMEMF else {}
        res = _memf(cls, seed, **kw).fit(np.zeros((5 * B, 6)), np.zeros(5 * B), record=True)
        g = -np.diff(res.history, axis=0) / lr
        rows = g - decay * np.vstack([np.zeros(6), g[:-1]])
        Z.append(C @ rows)
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(Z), s))
