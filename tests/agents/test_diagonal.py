"""DiagonalLinUCB (``linucb-diag``): LinUCB exactly when the Gram matrices are diagonal, small at d = 5000, learns."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents.diagonal import DiagonalLinUCB
from dpbandit.agents.linear import LinUCB
from dpbandit.harness import run


def _play(agent, contexts: np.ndarray, rewards: np.ndarray) -> list[int]:
    actions = []
    for x, r in zip(contexts, rewards, strict=True):
        a = agent.act(x)
        agent.update(x, a, float(r[a]))
        actions.append(a)
    return actions


def test_equals_linucb_on_one_hot_contexts() -> None:
    """One-hot contexts keep every Gram diagonal: the same scores, actions and estimates as LinUCB."""
    rng = np.random.default_rng(3)
    d, K, T = 6, 3, 400
    contexts = np.eye(d)[rng.integers(d, size=T)] * rng.uniform(0.5, 2.0, size=(T, 1))
    rewards = rng.normal(size=(T, K))
    diag = DiagonalLinUCB(K, d, rng=np.random.default_rng(0), alpha=0.7)
    full = LinUCB(K, d, rng=np.random.default_rng(0), alpha=0.7)
    assert _play(diag, contexts, rewards) == _play(full, contexts, rewards)
    np.testing.assert_allclose(diag.theta_hat, full.theta_hat, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(1.0 / diag.v_diag, np.diagonal(full.v_inv, axis1=1, axis2=2), rtol=1e-12)


def test_differs_from_linucb_on_correlated_contexts() -> None:
    """On dense contexts it is an approximation (the estimates differ from LinUCB's ridge solution)."""
    rng = np.random.default_rng(4)
    contexts, rewards = rng.normal(size=(200, 5)), rng.normal(size=(200, 2))
    diag, full = DiagonalLinUCB(2, 5, rng=np.random.default_rng(0)), LinUCB(2, 5, rng=np.random.default_rng(0))
    _play(diag, contexts, rewards)
    _play(full, contexts, rewards)
    assert not np.allclose(diag.theta_hat, full.theta_hat)


def test_small_at_d_5000() -> None:
    agent = DiagonalLinUCB(10, 5000, rng=np.random.default_rng(0))
    assert agent.footprint().state_bytes == 8 * 4 * 10 * 5000
    arrays = (agent.v_diag, agent.v_inv_diag, agent.u, agent.theta_hat)
    assert sum(a.nbytes for a in arrays) == agent.footprint().state_bytes
    with pytest.raises(ValueError, match="linucb-diag"):
        LinUCB(10, 5000, rng=np.random.default_rng(0))


def test_learns_on_a_linear_bandit() -> None:
    """Half of random's regret or less on the 5-arm, d = 10 linear bandit (same seeds, same rounds)."""
    from dpbandit.agents.uniform import RandomAgent

    df = run("dpbandit/LinearBandit-v0", {"diag": DiagonalLinUCB, "random": RandomAgent}, n_seeds=2, horizon=2000,
             progress=False, n_points=10)
    final = df[df["step"] == 2000].groupby("agent")["cumulative_regret"].mean()
    assert final["diag"] < 0.5 * final["random"]
