"""LDP-GLOC's report (``ldp-gloc``): the projected form's sensitivity against a brute-force search, the projection
holding on the agent's own estimate, the noise the agent draws, its guarantee; the authors' calibration pinned
and certified as nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.agents.trust.gloc import LocalGLOC, authors_sigmas, gloc_sensitivity
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.envs.links import get_link
from dpbandit.privacy.accounting import gaussian_sigma

pytestmark = pytest.mark.privacy


def report_means(x: np.ndarray, theta: np.ndarray, r: np.ndarray, link) -> np.ndarray:
    """Report means of rows ``x`` (n, d) at ``theta`` (n, d) and rewards ``r`` (n,): (x x^T, <x, theta> x, g)."""
    pred = np.einsum("nd,nd->n", x, theta)
    grad = (link.mean(np.clip(pred, -5, 5)) - r)[:, None] * x
    return np.concatenate([np.einsum("ni,nj->nij", x, x).reshape(len(x), -1), pred[:, None] * x, grad], axis=1)


def brute_force(L: float, S: float, R: float, link, rng: np.random.Generator) -> float:
    """Largest distance of two users' report means (same server state theta): angles of x, y and theta on a
    grid in the plane (the distance depends only on norms and angles), norms and rewards at their extremes,
    plus random points in R^3."""
    ang = np.linspace(0, 2 * math.pi, 61)
    a, b, c = (g.ravel() for g in np.meshgrid(ang, ang, ang, indexing="ij"))
    unit = lambda t: np.stack([np.cos(t), np.sin(t)], axis=1)  # noqa: E731
    best = 0.0
    for ny in (L, 0.5 * L):
        for r, s in ((R, -R), (-R, R), (R, R)):
            th, x, y = S * unit(a), L * unit(b), ny * unit(c)
            gap = report_means(x, th, np.full(len(a), r), link) - report_means(y, th, np.full(len(a), s), link)
            best = max(best, float(np.linalg.norm(gap, axis=1).max()))
    pts = rng.standard_normal((3, 20_000, 3))
    x, y, th = (p / np.linalg.norm(p, axis=1, keepdims=True) for p in pts)
    r, s = rng.uniform(-R, R, (2, 20_000))
    gap = report_means(L * x, S * th, r, link) - report_means(L * y, S * th, s, link)
    return max(best, float(np.linalg.norm(gap, axis=1).max()))


@pytest.mark.parametrize("link", ["identity", "logistic", "exponential"])
@pytest.mark.parametrize("L,S,R", [(1.0, 1.0, 1.0), (1.0, 2.0, 3.0)])
def test_sensitivity_bounds_the_brute_force_supremum(link: str, L: float, S: float, R: float) -> None:
    """The stated sensitivity is at least the brute-force supremum and within a factor 1.7 of it (it bounds each
    part alone, so it is not tight: measured 1.19x to 1.66x); at S = 2 the reports of an unprojected estimate at
    ||theta|| = 8 exceed it."""
    lk = get_link(link)
    stated = gloc_sensitivity(L, S, R, lk)
    found = brute_force(L, S, R, lk, np.random.default_rng(0))
    assert found <= stated * (1 + 1e-9)
    assert found >= stated / 1.7
    if S == 2.0:
        assert brute_force(L, 4 * S, R, lk, np.random.default_rng(1)) > stated


def test_projection_holds_on_the_agents_estimate() -> None:
    """Rewards at the bound's extremes push theta_h as far as they can: its norm never exceeds param_bound (the
    stated sensitivity's premise); rewards beyond the bound are clipped to it (stated, as ldp-linucb)."""
    a = LocalGLOC(10, 2, rng=np.random.default_rng(0), horizon=400, epsilon=4.0, link="logistic",
                  param_bound=0.5, reward_bound=1.0)
    rng = np.random.default_rng(1)
    for t in range(400):
        x = rng.standard_normal((10, 2))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        a.update(x, a.act(x), 50.0 if t % 2 else -50.0)
        assert np.linalg.norm(a.theta_h) <= 0.5 * (1 + 1e-12)
    assert a.max_theta_h <= 0.5 * (1 + 1e-12)


def test_drawn_report_noise_has_the_calibrated_std_and_the_guarantee_holds() -> None:
    """The agent's own reports minus their means: every part has std sigma in Frobenius geometry (Gram
    off-diagonals sigma / sqrt 2 each), sigma is the PLD calibration at the stated sensitivity, and the
    accountant certifies the claim."""
    eps, delta = 1.0, 1e-4
    a = LocalGLOC(10, 2, rng=np.random.default_rng(2), horizon=1000, epsilon=eps, delta=delta, link="logistic")
    assert a.sigma == pytest.approx(gaussian_sigma(eps, delta, a.sensitivity), rel=1e-12)
    x = np.array([0.6, 0.8])
    mean = report_means(x[None], a.theta_h[None], np.array([1.0]), a.link)[0]
    draws = np.array([np.concatenate([g.ravel(), u, v]) for g, u, v in (a.report(x, 1.0) for _ in range(4000))])
    noise = draws - mean
    assert only_stated_scale_fits(gaussian_scale_pvalues(noise[:, [0, 3, 4, 5, 6, 7]].ravel(), a.sigma))
    assert only_stated_scale_fits(gaussian_scale_pvalues(noise[:, 1].ravel(), a.sigma / math.sqrt(2)))
    assert np.allclose(noise[:, 1], noise[:, 2])
    p = a.privacy
    assert p.trust_model == "local" and p.holds and p.epsilon == pytest.approx(eps, rel=1e-3)


def test_authors_calibration_is_pinned_and_certifies_nothing() -> None:
    """Per-entry std 6 sqrt(2 ln(2.5/delta))/eps = 19.94 at their (1, 0.01) (LDP.py:72), server sigma with 3.75
    (LDP_servers.py:219); no epsilon is certified; its ex-post epsilon is in the notes."""
    report, server = authors_sigmas(1.0, 0.01)
    assert report == pytest.approx(19.94, abs=5e-3)
    assert server == pytest.approx(6 * math.sqrt(2 * math.log(375.0)), rel=1e-12)
    with pytest.warns(UserWarning, match="delta"):
        a = LocalGLOC(10, 2, rng=np.random.default_rng(0), horizon=2000, delta=0.01, calibration="authors")
    p = a.privacy
    assert math.isinf(p.epsilon) and not p.holds and "ex post" in p.notes and p.trust_model == "local"


def test_bad_inputs_are_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="horizon"):
        LocalGLOC(10, 2, rng=rng)
    with pytest.raises(ValueError, match="calibration"):
        LocalGLOC(10, 2, rng=rng, horizon=10, calibration="paper")
    a = LocalGLOC(3, 2, rng=rng, horizon=10)
    with pytest.raises(ValueError, match="feature_bound"):
        a.update(np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), 0, 0.5)
