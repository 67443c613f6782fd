"""KL optimizers (paper 003, corrected accounting): calibration inputs pinned to their formulas (written here)
and the noise each one really draws against its stated scale (halved and doubled noise rejected)."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import privacy_reference as ref
import pytest

import dpbandit.optim.kl.adaptive as adaptive_module
import dpbandit.optim.kl.spider as spider_module
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.optim.kl import AdaptiveNoisyGD, KLProximalPoint, KLSpider
from dpbandit.privacy.noise import gaussian

pytestmark = pytest.mark.privacy

DELTA = 1e-6


class LinearObjective:
    """n equal samples of f(w) = <a, w>, ||a|| = ``norm`` (one weighted row): the gradient is a constant."""

    def __init__(self, n: int, dim: int, norm: float) -> None:
        self.n, self.dim, self.weights = n, dim, np.full(1, 1.0)
        self.a = np.full((1, dim), norm / math.sqrt(dim))

    def value(self, w: np.ndarray) -> float:
        return float(self.a[0] @ w)

    def per_example_grad(self, w: np.ndarray) -> np.ndarray:
        return self.a


def zero_objective(n: int, dim: int) -> LinearObjective:
    """Zero gradients: every release is pure noise."""
    return LinearObjective(n, dim, 0.0)


@pytest.fixture
def recorded_gaussian(monkeypatch):
    """Spy on the privacy-core sampler as the KL modules call it: a list of (sigma, draw) per call."""
    calls: list[tuple[float, np.ndarray]] = []

    def spy(rng, sigma, size):
        draw = gaussian(rng, sigma, size)
        calls.append((sigma, np.asarray(draw)))
        return draw

    for module in (spider_module, adaptive_module):
        monkeypatch.setattr(module, "gaussian", spy)
    return calls


# ---------------------------------------------------------------- proximal point (Algorithm 2 + 4)
def _prox(seed: int, *, rho=1.0, lam=0.01, inner=2) -> KLProximalPoint:
    return KLProximalPoint(
        rho=rho,
        beta=0.05,
        gamma=1.0,
        kappa=3.0,
        L0=1.0,
        weak_convexity=lam,
        F0=1.0,
        rng=np.random.default_rng(seed),
        delta=DELTA,
        inner_steps=inner,
    )


def _prox_rounds(n, d, rho=1.0, lam=0.01, gamma=1.0, kappa=3.0, L0=1.0, F0=1.0) -> int:
    """Algorithm 2 line 1 (rounded up): (1 + 32 F0^((k-2)/k) gamma^2 L~1) [log F0 + k log(n sqrt rho/(gamma
    L0 sqrt d))]."""
    bracket = math.log(F0) + kappa * math.log(n * math.sqrt(rho) / (gamma * L0 * math.sqrt(d)))
    return math.ceil((1 + 32 * F0 ** ((kappa - 2) / kappa) * gamma**2 * lam) * bracket)


def test_prox_calibration_inputs() -> None:
    n, d, inner, rho = 10_000, 20, 5, 1.0
    T = _prox_rounds(n, d)
    res = _prox(0, inner=inner).fit(zero_objective(n, d))
    sens = 2.0 / n  # replace-one: the mean of per-example gradients of norm <= L0 = 1
    sigma = sens * math.sqrt((inner - 1) * T / (2 * rho))  # T (T_in - 1) releases compose to exactly rho
    assert (res.info["rounds"], res.info["inner_steps"]) == (T, inner)
    assert res.info["sigma"] == pytest.approx(sigma, rel=1e-12)
    releases = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma / sens), T * (inner - 1))
    assert res.privacy.epsilon == pytest.approx(ref.rdp_epsilon(releases, DELTA), rel=1e-9)
    assert res.privacy.epsilon == pytest.approx(ref.zcdp_epsilon(rho, DELTA), rel=1e-6)


def test_prox_draws_its_stated_noise() -> None:
    """T_in = 2, zero gradients: each round w_2 = c - xi / L~1 and avg = c + (2/3)(w_2 - c), so
    xi = -1.5 L~1 (avg - c)."""
    n, d, lam = 10_000, 20, 0.01
    sigma = (2.0 / n) * math.sqrt(_prox_rounds(n, d, lam=lam) / 2.0)
    xi = []
    for seed in range(6):
        res = _prox(seed, lam=lam).fit(zero_objective(n, d), record=True)
        xi.append(-1.5 * lam * np.diff(res.history, axis=0))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(xi), sigma))


# ---------------------------------------------------------------- Spider (Algorithm 1)
def _spider_schedule(*, n, d, rho, beta, gamma, kappa, L0, L1, F0) -> dict:
    """Algorithm 1 lines 2-7 with the corrected accounting (notes kl.md P1, P2, A2-A5), written out."""
    rho_s = rho / 2.125
    nrs, expo = n * math.sqrt(rho_s), (2 - kappa) / kappa
    K = max(
        1,
        math.ceil(
            (1 + 64 * F0 ** (-expo) * gamma**2 * L1)
            * (math.log(F0) + kappa * math.log(nrs / (gamma * L0 * math.sqrt(d))))
        ),
    )
    beta_p = beta / K * (gamma * L0 * math.sqrt(K * d) / (nrs * F0 ** (1 / kappa))) ** (2 - kappa)
    floor = min((32 * gamma * L0 * math.sqrt(K * d * math.log(1 / beta_p)) / nrs) ** kappa, F0)
    phi = np.maximum(F0 * (1 + F0**expo / (64 * gamma**2 * L1)) ** -np.arange(1.0, K + 1), floor)
    steps = np.ceil((F0 / phi) ** expo - 1e-12).astype(int)
    sens_a, sens_d = 2 * L0 / n, phi ** (1 / kappa) / (2 * gamma * n)  # 2 L0/n; 2 L1 (step length)/n
    sig_a, sig_d = L0 * math.sqrt(K) / nrs, phi ** (1 / kappa) * np.sqrt(steps * K) / (gamma * nrs)
    total = K * sens_a**2 / (2 * sig_a**2) + float(np.sum((steps - 1) * sens_d**2 / (2 * sig_d**2)))
    scale = math.sqrt(total / rho)  # rescale so the worst-case composition is exactly rho
    return dict(K=K, steps=steps, sens_a=sens_a, sens_d=sens_d, sig_a=scale * sig_a, sig_d=scale * sig_d)


SPIDER = dict(rho=1.0, beta=0.05, gamma=1.0, kappa=1.5, L0=1.0, L1=0.1, F0=1.0)  # F0 <= (L0 gamma)^kappa


def _spider(seed: int) -> KLSpider:
    return KLSpider(**SPIDER, rng=np.random.default_rng(seed), delta=DELTA)


def test_spider_calibration_inputs() -> None:
    n, d = 10**8, 30
    want = _spider_schedule(n=n, d=d, **SPIDER)
    s = _spider(0).schedule(n, d)
    assert s.K == want["K"] and s.steps.tolist() == want["steps"].tolist() and s.steps.max() > 1
    assert s.anchor_sensitivity == pytest.approx(want["sens_a"], rel=1e-12)
    np.testing.assert_allclose(s.diff_sensitivity, want["sens_d"], rtol=1e-12)
    assert s.sigma_anchor == pytest.approx(want["sig_a"], rel=1e-9)
    np.testing.assert_allclose(s.sigma_diff, want["sig_d"], rtol=1e-9)
    res = _spider(0).fit(LinearObjective(n, d, 1.0))
    assert res.privacy.epsilon == pytest.approx(ref.zcdp_epsilon(1.0, DELTA), rel=1e-6)


def test_spider_draws_its_stated_noise(recorded_gaussian) -> None:
    """A linear loss with ||grad|| = L0 > (7/8) Phi_k^(1/kappa) / gamma never stops a round early, so every
    round k releases its anchor (sigma_anchor) then T_k - 1 differences (sigma_diff[k]), in that order."""
    n, d = 10**8, 30
    want = _spider_schedule(n=n, d=d, **SPIDER)
    expected = np.concatenate(
        [[want["sig_a"]] + [sd] * (T - 1) for sd, T in zip(want["sig_d"], want["steps"], strict=True)]
    )
    draws, stds = [], []
    for seed in range(2):
        recorded_gaussian.clear()
        res = _spider(seed).fit(LinearObjective(n, d, 1.0))
        assert res.info["early_exits"] == 0 and len(recorded_gaussian) == expected.size
        draws += [draw for _, draw in recorded_gaussian]
        stds += [np.full(d, sd) for sd in expected]
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(draws), np.array(stds)))


# ---------------------------------------------------------------- adaptive noisy GD (Algorithm 3)
def test_adaptive_calibration_inputs_and_spent_budget() -> None:
    """Charges Delta^2 / (2 sigma^2) with Delta = 2 L0 / n, sigma_hat = L0 / (sqrt(n) rho_in^(1/4)) and the
    step sigmas, re-added here: they equal the reported spend, stay within rho, and the loop starts a step
    only while the spend is <= rho / 2."""
    n, d, rho, L0 = 1000, 5, 1.0, 2.0
    res = AdaptiveNoisyGD(rho=rho, beta=0.1, L0=L0, L1=1.0, rng=np.random.default_rng(0), delta=DELTA).fit(
        LinearObjective(n, d, L0)
    )
    rho_in, sens = rho / 2, 2 * L0 / n
    sigma_hat, floor = L0 / (math.sqrt(n) * rho_in**0.25), 2 * L0 / (n * math.sqrt(rho_in))
    charges = sens**2 / (2 * sigma_hat**2) + sens**2 / (2 * res.info["sigmas"] ** 2)
    assert res.info["ell"] == pytest.approx(math.log(n * math.sqrt(rho_in) / 0.1))
    assert np.all(res.info["sigmas"] >= floor * (1 - 1e-12))
    assert res.info["spent"] == pytest.approx(float(np.sum(charges)), rel=1e-12)
    assert np.sum(charges[:-1]) <= rho / 2 < np.sum(charges) <= rho
    assert res.privacy.epsilon == pytest.approx(ref.zcdp_epsilon(rho, DELTA), rel=1e-6)


def test_adaptive_draws_its_stated_noise(recorded_gaussian) -> None:
    """Each step draws the norm noise N(0, sigma_hat^2), then the gradient noise with
    sigma_t = max((||g|| + that draw) / sqrt(d l), floor) (formulas written here)."""
    n, d, rho, L0, beta = 1000, 5, 1.0, 2.0, 0.1
    rho_in = rho / 2
    sigma_hat, floor = L0 / (math.sqrt(n) * rho_in**0.25), 2 * L0 / (n * math.sqrt(rho_in))
    ell = math.log(n * math.sqrt(rho_in) / beta)
    norm_noise, grad_noise, grad_std = [], [], []
    for seed in range(3):
        recorded_gaussian.clear()
        AdaptiveNoisyGD(rho=rho, beta=beta, L0=L0, L1=1.0, rng=np.random.default_rng(seed), delta=DELTA).fit(
            LinearObjective(n, d, L0)
        )
        for (_, n_draw), (_, g_draw) in zip(recorded_gaussian[::2], recorded_gaussian[1::2], strict=True):
            norm_noise.append(float(n_draw))
            grad_noise.append(g_draw)
            grad_std.append(np.full(d, max((L0 + float(n_draw)) / math.sqrt(d * ell), floor)))
    assert len(norm_noise) > 300
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(norm_noise), sigma_hat))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.array(grad_noise), np.array(grad_std)))
