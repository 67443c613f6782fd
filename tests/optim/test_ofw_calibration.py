"""DP-POFW, DP-TOFW and the 004 baselines: calibration inputs pinned to their formulas (written here) and the
noise each optimizer really draws tested against its stated scale (halved and doubled noise rejected)."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import privacy_reference as ref
import pytest

from dpbandit.audit.drawn import (
    gamma_radius_pvalues,
    gaussian_scale_pvalues,
    only_stated_scale_fits,
    selection_pvalues,
)
from dpbandit.optim.baselines import LocalMD, NoisySFW, NoisySGD
from dpbandit.optim.losses import SquaredLoss
from dpbandit.optim.pofw import DPPOFW
from dpbandit.optim.tofw import DPTOFW

pytestmark = pytest.mark.privacy


# ---------------------------------------------------------------- DP-POFW (Algorithm 2 of 004)
def _pofw_scale_1(*, eps, delta, n, radius, beta, L) -> float:
    """b_1 of line 8 at multiplier 1: 4 D (beta D + L) sqrt(log n log(1/delta)) / eps, D = 2r."""
    D = 2 * radius
    return 4 * D * (beta * D + L) * math.sqrt(math.log(n) * math.log(1 / delta)) / eps


def _pofw_rho(*, eps, delta, n, radius, beta, L, multiplier=1.0) -> float:
    """zCDP of one stream: sum_t (2 Delta_t / b_t)^2 / 2 (pure eps_t-DP steps; non-monotone
    report-noisy-min)."""
    t = np.arange(1, n + 1, dtype=float)
    delta_t = radius * 2 * (beta * 2 * radius + L) / (t + 1)  # score sensitivity (A.6, ||v||_1 = r)
    b_t = multiplier * _pofw_scale_1(eps=eps, delta=delta, n=n, radius=radius, beta=beta, L=L) / np.sqrt(t)
    return 0.5 * float(np.sum((2 * delta_t / b_t) ** 2))


def _pofw_multiplier(*, eps, delta, n, radius, beta, L) -> float:
    """Accountant calibration, one stream: the multiplier whose zCDP is rho(eps, delta)."""
    return math.sqrt(
        _pofw_rho(eps=eps, delta=delta, n=n, radius=radius, beta=beta, L=L) / ref.rho_for(eps, delta)
    )


def _pofw(n, **kw) -> DPPOFW:
    return DPPOFW(
        1,
        horizon=n,
        rng=np.random.default_rng(kw.pop("seed", 0)),
        smoothness=0.5,
        lipschitz=2.0,
        radius=1.5,
        **kw,
    )


def test_dppofw_calibration_inputs() -> None:
    n, eps, delta = 3000, 0.7, 1e-4
    opt = _pofw(n, epsilon=eps, delta=delta)
    cal = opt._bank.privacy_calibration
    m = _pofw_multiplier(eps=eps, delta=delta, n=n, radius=1.5, beta=0.5, L=2.0)
    assert (cal.n_steps, cal.streams) == (n, 1)
    assert cal.multiplier == pytest.approx(m, rel=1e-6)
    assert opt.privacy.epsilon == pytest.approx(eps, rel=1e-5)
    paper = _pofw(n, epsilon=eps, delta=delta, calibration="paper").privacy  # multiplier 1: Thm 3.4's claim
    rho = _pofw_rho(eps=eps, delta=delta, n=n, radius=1.5, beta=0.5, L=2.0)
    assert paper.epsilon == pytest.approx(ref.zcdp_epsilon(rho, delta), rel=1e-6)


def test_dppofw_selection_noise_has_the_stated_scale() -> None:
    """Feeding grad_prev = d_{t-1} makes d_t = grad_now, so each step is a two-vertex noisy LMO with a chosen
    gap.

    The scores of +-r e_1 are +-r d_t: with d_t = -b_t / (2 r) the gap is b_t (u = 1) at every step; the
    selected vertex is read from the iterates, v_t = (t+1) theta_{t+1} - t theta_t.
    """
    n, eps, delta, r = 4000, 30.0, 1e-3, 1.5
    opt = _pofw(n, epsilon=eps, delta=delta)
    b_1 = _pofw_multiplier(eps=eps, delta=delta, n=n, radius=r, beta=0.5, L=2.0) * _pofw_scale_1(
        eps=eps, delta=delta, n=n, radius=r, beta=0.5, L=2.0
    )
    prev, wins = np.zeros(1), np.empty(n, dtype=bool)
    for t in range(1, n + 1):
        d = np.array([-b_1 / math.sqrt(t) / (2 * r)])
        theta = opt.theta
        new = opt.step_with_gradients(d, prev)
        wins[t - 1] = ((t + 1) * new[0] - t * theta[0]) > 0  # +r e_1 (the better vertex) was selected
        prev = d
    assert only_stated_scale_fits(selection_pvalues(wins, np.ones(n)))


# ---------------------------------------------------------------- DP-TOFW (Algorithm 1 of 004)
def _tofw(dim, n, p, seed=0, eps=1.0) -> DPTOFW:
    return DPTOFW(
        dim,
        p=p,
        radius=2.0,
        horizon=n,
        epsilon=eps,
        delta=1e-3,
        smoothness=2.0,
        lipschitz=1.0,
        rng=np.random.default_rng(seed),
        lr_scale=0.5,
    )


def _sigma_plus(n, kappa, eps=1.0, delta=1e-3, beta=2.0, L=1.0, D=4.0, c=0.5) -> float:
    """Eq 3.2 with the step-size scale: sqrt(8 m^2 kappa log(m / delta)) (c beta D + L) / eps, m = ceil(log2
    n)+1."""
    m = math.ceil(math.log2(n)) + 1
    return math.sqrt(8 * m**2 * kappa * math.log(m / delta)) * (c * beta * D + L) / eps


def test_dptofw_report_accounts_its_own_noise() -> None:
    """p = inf: Lemma 3.3 noise N(0, sigma_+^2 / d I); l_q = l_1 sensitivity 2(c beta D + L) moves l_2 as
    much."""
    dim, n = 10, 1000
    opt = _tofw(dim, n, math.inf)
    sigma = _sigma_plus(n, kappa=dim)
    assert opt.sigma_plus == pytest.approx(sigma)
    multiplier = sigma / math.sqrt(dim) / (2 * (0.5 * 2.0 * 4.0 + 1.0))
    assert opt.privacy.epsilon == pytest.approx(ref.tree_epsilon(multiplier, n, 1e-3), rel=1e-9)


@pytest.mark.parametrize("p,dim", [(math.inf, 12), (1.5, 40)])
def test_dptofw_tree_draws_its_stated_noise(p: float, dim: int) -> None:
    """Zero gradients: G_t is pure tree noise; at t = 2^k it is one node of G_{||.||_+}(0, sigma_+^2)."""
    n, releases = 16, []
    for seed in range(60):
        opt = _tofw(dim, n, p, seed)
        for t in range(1, n + 1):
            opt.step_with_gradients(np.zeros(dim), np.zeros(dim))
            if t & (t - 1) == 0:
                releases.append(opt.gradient_estimate * (t + 1))  # G_t = (t+1) d_t
    G = np.array(releases)
    if p == math.inf:  # Lemma 3.3: kappa = d, per-coordinate std sigma_+ / sqrt(d)
        assert only_stated_scale_fits(gaussian_scale_pvalues(G, _sigma_plus(n, dim) / math.sqrt(dim)))
    else:  # q = 3 >= 2, ln 40 < q: the smooth norm is l_3 itself, kappa = q - 1 = 2 (Lemma 3.2)
        sigma = _sigma_plus(n, kappa=2.0)
        r2 = np.linalg.norm(G, ord=3, axis=1) ** 2
        assert only_stated_scale_fits(gamma_radius_pvalues(r2, dim, sigma))


# ---------------------------------------------------------------- baselines of 004 Section 5.3
def test_noisy_sfw_draws_its_stated_noise_and_reports_it() -> None:
    """Spy on the sampler (l_2 at d = 5): sigma_0 = 4 sqrt(2 kappa log(1/delta)) L / (n eps), and sigma_t
    of Bassily et al."""
    n, d, eps, delta, beta, L, c = 400, 5, 1.0, 1e-3, 2.0, 1.0, 0.5
    kappa, D, eta = (
        d ** (1 - 2 / 3),
        4.0,
        c * math.log(n) / (2 * math.sqrt(n)),
    )  # q = 3, ln 5 < 2: kappa d^(1-2/q)
    sigma_0 = 4 * math.sqrt(2 * kappa * math.log(1 / delta)) * L / (n * eps)
    sigma_t = math.sqrt(32 * kappa * math.log(1 / delta) / n) * beta * D * eta / eps
    first, later = [], []
    X, y = np.zeros((n, d)), np.zeros(n)
    for seed in range(40):
        opt = NoisySFW(
            d,
            loss=SquaredLoss(),
            p=1.5,
            radius=2.0,
            epsilon=eps,
            delta=delta,
            smoothness=beta,
            lipschitz=L,
            rng=np.random.default_rng(seed),
            lr_scale=c,
        )
        calls: list[np.ndarray] = []
        opt._sample = lambda s, sample=opt._sample, calls=calls: calls.append(sample(s)) or calls[-1]  # spy
        res = opt.fit(X, y)
        first.append(calls[0])  # the anchor release nabla_0
        later += calls[1:]  # the sqrt(n) - 1 increments
    assert len(later) == 40 * (math.isqrt(n) - 1)
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(first), sigma_0))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(later), sigma_t))
    s0, st = (
        2 * L / (n // 2) * d ** (1 / 2 - 1 / 3),
        2 * beta * eta * D / (math.isqrt(n) // 2) * d ** (1 / 2 - 1 / 3),
    )
    worst = dp_accounting.GaussianDpEvent(
        min(sigma_0 / s0, sigma_t / st)
    )  # disjoint batches: the worse release
    assert res.privacy.epsilon == pytest.approx(ref.rdp_epsilon(worst, delta), rel=1e-9)


def test_noisy_sgd_draws_its_stated_noise_and_reports_it() -> None:
    """Zero data, no projection: W_t = W_{t-1} - eta xi_t, read from the running averages of every step."""
    d, n, steps, eps, delta, L = 24, 40, 50, 2.0, 1e-3, 1.0
    sigma = math.sqrt(8 * math.log(1 / delta)) * L / eps  # BFGT 2020: sigma^2 = 8 L^2 log(1/delta) / eps^2
    noise = []
    for seed in range(10):
        opt = NoisySGD(
            d,
            loss=SquaredLoss(),
            p=2.0,
            radius=1e6,
            epsilon=eps,
            delta=delta,
            lipschitz=L,
            rng=np.random.default_rng(seed),
            steps=steps,
        )
        res = opt.fit(np.zeros((n, d)), np.zeros(n), record=True)
        t = res.history_steps[:, None]
        W = np.vstack([np.zeros(d), t * res.history])  # running sums -> W_t = S_t - S_{t-1}
        W = np.diff(W, axis=0)
        noise.append(np.diff(np.vstack([np.zeros(d), W]), axis=0) / -res.info["eta"])
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(noise), sigma))
    sampled = dp_accounting.PoissonSampledDpEvent(1 / n, dp_accounting.GaussianDpEvent(sigma / (2 * L)))
    expected = ref.rdp_epsilon(dp_accounting.SelfComposedDpEvent(sampled, steps), delta)
    assert res.privacy.epsilon == pytest.approx(expected, rel=1e-9)


def test_local_md_draws_its_stated_noise() -> None:
    """p = 2, zero data: phase 1 is a random walk u_j = u_{j-1} - eta_1 sigma_1 xi_j (no clipping at
    these sizes), whose average (the phase output) has variance (eta_1 sigma_1)^2 (T+1)(2T+1)/(6T) per
    coordinate."""
    d, n, eps, delta, L, c = 40, 500, 100.0, 1e-3, 1.0, 1.0
    eta = (
        c
        * (2 * 1e3 / L)
        * min(1 / math.sqrt(n), eps / math.sqrt(d * math.log(1 / delta) * (1 + math.log(d))))
    )
    eps_1, n_1, eta_1 = eps / 2, n // 2, eta / 16
    b_1 = int(max(math.sqrt(n_1 / math.log(d)), math.sqrt(d / eps_1), 1.0))
    T = int(n_1**2 / b_1**2)
    sigma_1 = 100 * L * math.sqrt(math.log(1 / delta)) / (b_1 * eps_1)  # [C]'s constant 100, d^(1-2/q) = 1
    outputs = []
    for seed in range(12):
        res = LocalMD(
            d,
            loss=SquaredLoss(),
            p=2.0,
            radius=1e3,
            epsilon=eps,
            delta=delta,
            lipschitz=L,
            rng=np.random.default_rng(seed),
            lr_scale=c,
        ).fit(np.zeros((n, d)), np.zeros(n), record=True)
        assert res.info["phases"][0]["steps"] == T
        outputs.append(res.history[1])
    std = eta_1 * sigma_1 * math.sqrt((T + 1) * (2 * T + 1) / (6 * T))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(outputs), std))
