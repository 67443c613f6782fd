"""LDP-SGD (``ldp-sgd``, ``ldp-sgd-disjoint``) and its shuffle form (``shuffle-sgd``): the authors' constants, the
reports the agents actually draw, their guarantees, the shuffle batch and the number of reports pinned."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.agents.trust.sgd import LocalSGD, LocalSGDDisjoint, ShuffleSGD
from dpbandit.privacy.l2ball import ball_radius
from dpbandit.privacy.shuffle import largest_local_epsilon, shuffle_epsilon

pytestmark = pytest.mark.privacy


def contexts(rng: np.random.Generator, k: int = 10, d: int = 2) -> np.ndarray:
    x = rng.standard_normal((k, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def drawn_reports(agent, x: np.ndarray, action: int, reward: float, n: int) -> np.ndarray:
    """The reports the agent draws, recovered from its own steps: theta is reset before each update, so
    ``z = (theta_0 - theta_1) / eta - lambda theta_0`` with ``eta = step`` (first step)."""
    theta0 = agent.theta.copy()
    out = []
    for _ in range(n):
        agent.theta, agent.steps = theta0.copy(), 0
        agent.update(x, action, reward)
        out.append(((theta0 - agent.theta) / agent.step - agent.ridge * theta0).ravel())
    agent.theta = theta0
    return np.array(out)


def test_authors_constants_and_exact_step() -> None:
    """Start on the unit sphere, ridge 0 (identity) / 0.05 (logistic, exponential), step 5/(t+1), gradient
    (mu(clip(<x, theta>, -20, 20)) - r) x clipped to norm 1 (noise off: the step is exact)."""
    rng = np.random.default_rng(0)
    a = LocalSGD(10, 2, rng=rng, link="logistic", noise=False)
    assert np.linalg.norm(a.theta) == pytest.approx(1.0)
    assert (a.ridge, a.step, a.gradient_clip, a.linear_clip) == (0.05, 5.0, 1.0, 20.0)
    assert LocalSGD(10, 2, rng=rng).ridge == 0.0
    assert LocalSGD(10, 2, rng=rng, link="exponential").ridge == 0.05
    x = contexts(np.random.default_rng(1))
    for t in range(3):
        theta = a.theta.copy()
        arm = a.act(x)
        assert arm == int(np.argmax(x @ theta[0]))
        g = (1 / (1 + math.exp(-x[arm] @ theta[0])) - 1.0) * x[arm]
        g = g * min(1.0, 1.0 / np.linalg.norm(g))
        a.update(x, arm, 1.0)
        assert np.allclose(a.theta, theta - 5.0 / (t + 1) * (g + 0.05 * theta))


@pytest.mark.parametrize("reports", [None, 4])
def test_local_reports_drawn_have_the_calibrated_radius_and_are_unbiased(reports) -> None:
    """Every drawn report has norm C B(d, eps/m) (the clip and the per-report epsilon pinned) and averages to the
    clipped gradient; the guarantee is pure (delta 0) and its epsilon the accountant's."""
    eps, clip = 1.0, 0.5
    a = LocalSGD(10, 2, rng=np.random.default_rng(3), epsilon=eps, gradient_clip=clip,
                 reports_per_user=reports)
    m = reports or 1
    x = contexts(np.random.default_rng(4))
    z = drawn_reports(a, x, 2, 3.0, 8000)
    g = a.randomizer.clipped(a.gradient(x, 2, 3.0))
    assert np.allclose(np.linalg.norm(z, axis=1), clip * ball_radius(2, eps / m), rtol=1e-9)
    assert np.all(np.abs(z.mean(axis=0) - g) < 4 * z.std(axis=0) / math.sqrt(len(z)))
    p = a.privacy
    assert (p.trust_model, p.claimed_delta) == ("local", 0.0)
    assert p.epsilon == pytest.approx(eps, rel=1e-9) and p.holds
    assert p.local_epsilon == pytest.approx(eps, rel=1e-9)


def test_reports_per_user_cap_is_enforced() -> None:
    a = LocalSGD(10, 2, rng=np.random.default_rng(0), reports_per_user=2)
    x = contexts(np.random.default_rng(1))
    a.update(x, 0, 0.5, user_id=7)
    a.update(x, 0, 0.5, user_id=7)
    with pytest.raises(ValueError, match="reports_per_user=2"):
        a.update(x, 0, 0.5, user_id=7)


def test_disjoint_report_spans_every_arm_block() -> None:
    """Disjoint form: the report is one l2-ball draw of length K d (radius B(K d, eps)), every block moves."""
    a = LocalSGDDisjoint(3, 4, rng=np.random.default_rng(0), epsilon=2.0)
    x = np.array([0.5, -0.5, 0.5, 0.5])
    z = drawn_reports(a, x, 1, 1.0, 50)
    assert np.allclose(np.linalg.norm(z, axis=1), ball_radius(12, 2.0))
    assert np.all(np.linalg.norm(z.reshape(50, 3, 4), axis=2) > 0)


@pytest.mark.parametrize("reports", [None, 2])
def test_shuffle_batch_and_number_of_reports_are_pinned(reports) -> None:
    """B = 400 reports per step: theta moves only at t = 400, 800 (steps = t // B), by the mean of the batch's
    reports; the local epsilon is the clone bound's at (eps/m, delta/m, B): 2.2264 (m = 1) and 1.4883 (m = 2) at
    eps = 1, delta = 1e-5; the central epsilon is the clone bound's at that local epsilon and batch."""
    eps, delta, B = 1.0, 1e-5, 400
    a = ShuffleSGD(10, 2, rng=np.random.default_rng(0), horizon=10_000, epsilon=eps, delta=delta, batch=B,
                   link="logistic", reports_per_user=reports)
    m = reports or 1
    pinned = {1: 2.2264, 2: 1.4883}[m]
    assert a.randomizer.epsilon == pytest.approx(pinned, abs=1e-3)
    assert a.randomizer.epsilon == largest_local_epsilon(eps / m, delta / m, B)
    p = a.privacy
    assert p.epsilon == pytest.approx(m * shuffle_epsilon(a.randomizer.epsilon, B, delta / m))
    assert p.epsilon <= eps and p.holds and p.trust_model == "shuffle"
    assert p.local_epsilon == pytest.approx(pinned, abs=1e-3)
    rng = np.random.default_rng(5)
    before = a.theta.copy()
    for t in range(1, 2 * B + 1):
        x = contexts(rng)
        a.update(x, a.act(x), float(rng.random() < 0.5), user_id=t)
        assert a.steps == t // B
        if t < B:
            assert np.array_equal(a.theta, before)
    # the exact batch mean (noise off): one step on the mean of B clipped gradients
    b = ShuffleSGD(10, 2, rng=np.random.default_rng(0), horizon=10_000, batch=3, noise=False, link="logistic")
    theta0, grads = b.theta.copy(), []
    for _ in range(3):
        x = contexts(rng)
        arm = b.act(x)
        grads.append(b.randomizer.clipped(b.gradient(x, arm, 1.0)))
        b.update(x, arm, 1.0)
    assert np.allclose(b.theta.ravel(), theta0.ravel() - 5.0 * (np.mean(grads, axis=0) + 0.05 * theta0.ravel()))


def test_same_seed_same_numbers() -> None:
    runs = []
    for _ in range(2):
        a = LocalSGD(10, 2, rng=np.random.default_rng(9), link="exponential")
        rng = np.random.default_rng(1)
        obs = np.array([contexts(rng) for _ in range(50)])
        runs.append(a.play_block(obs, rng.poisson(1.0, (50, 10)).astype(float)))
    assert np.array_equal(*runs)


def test_bad_inputs_are_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon"):
        LocalSGD(10, 2, rng=rng, epsilon=0.0)
    with pytest.raises(ValueError, match="link"):
        LocalSGD(10, 2, rng=rng, link="probit")
    with pytest.raises(ValueError, match="gradient_clip"):
        LocalSGD(10, 2, rng=rng, gradient_clip=0.0)
    with pytest.raises(ValueError, match="horizon"):
        ShuffleSGD(10, 2, rng=rng)
    with pytest.raises(ValueError, match="reward"):
        LocalSGD(10, 2, rng=rng).update(contexts(rng), 0, float("nan"))
