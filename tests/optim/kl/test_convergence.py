"""Noise off: each algorithm drives the excess risk of a PL least-squares instance below 1e-8."""

from __future__ import annotations

import numpy as np

from dpbandit.optim.kl import AdaptiveNoisyGD, KLProximalPoint, KLSpider

# A huge rho makes the data-independent schedules run deep (the floor of Algorithm 1 ~ 1/(n^2 rho)).
RHO = 1e16


def test_spider_converges_without_noise(pl_ls) -> None:
    alg = KLSpider(rho=RHO, beta=0.1, gamma=pl_ls.gamma, kappa=2.0, L0=pl_ls.L0, L1=pl_ls.L1, F0=pl_ls.F0,
                   rng=np.random.default_rng(0), noise=False)
    res = alg.fit(pl_ls.objective)
    assert res.privacy is None
    assert res.info["steps"] > 10
    assert pl_ls.excess(res.theta) < 1e-8


def test_spider_kappa_below_two_converges_without_noise(pl_ls) -> None:
    # the kappa = 1.5 schedule exercises rounds with T_k > 1 (gradient differences) and difference clipping
    alg = KLSpider(rho=RHO, beta=0.1, gamma=pl_ls.gamma, kappa=1.5, L0=pl_ls.L0, L1=pl_ls.L1, F0=pl_ls.F0,
                   rng=np.random.default_rng(0), noise=False, clip=True)
    res = alg.fit(pl_ls.objective)
    assert alg.schedule(pl_ls.objective.n, pl_ls.objective.dim).steps.max() > 1
    assert pl_ls.excess(res.theta) < 1e-8


def test_proximal_point_converges_without_noise(pl_ls) -> None:
    alg = KLProximalPoint(rho=RHO, beta=0.1, gamma=pl_ls.gamma, kappa=2.0, L0=pl_ls.L0, weak_convexity=1.0,
                          F0=pl_ls.F0, rng=np.random.default_rng(0), inner_steps=60, noise=False)
    res = alg.fit(pl_ls.objective)
    assert res.privacy is None
    assert pl_ls.excess(res.theta) < 1e-8


def test_adaptive_gd_converges_without_noise(pl_ls) -> None:
    for select in (False, True):
        alg = AdaptiveNoisyGD(rho=RHO, beta=0.1, L0=pl_ls.L0, L1=pl_ls.L1, rng=np.random.default_rng(0),
                              noise=False, select=select)
        res = alg.fit(pl_ls.objective)
        assert pl_ls.excess(res.theta) < 1e-8
