"""Epoch-batched DP-HDB (dphdb-batched): sensitivity, calibration, drawn noise, one batch per user, learning.

Expected values are typed from the derivation in dpbandit/agents/batched/frankwolfe.py's docstring (temperature
``4 r B C / (n eps_s)``, ``eps_s^2 = (1 - share) E^2 / steps``) and recomputed with dp_accounting directly.
"""

from __future__ import annotations

import math

import dp_accounting
import gymnasium
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from scipy import stats

from dpbandit.agents import agent_class
from dpbandit.agents.batched.frankwolfe import BatchedDPHDB
from dpbandit.agents.specs import parse_agent


def _rounds(horizon: int, seed: int):
    env = gymnasium.make("dpbandit/HDBSection54-v0", disable_env_checker=True, horizon=horizon)
    env.reset(seed=seed)
    rounds = env.unwrapped.draw_rounds(horizon)
    return rounds.observations, rounds.rewards, rounds.expected_rewards


def _epsilon(eps_q: float, n_q: int, eps_s: float, steps: int, delta: float) -> float:
    """min(PLD of the composed randomized responses, RDP of (n_q eps_q^2 + steps eps_s^2)/8-zCDP), by hand."""
    def rr(eps: float) -> dp_accounting.DpEvent:
        return dp_accounting.RandomizedResponseDpEvent(2.0 / (math.exp(eps) + 1.0), 2)

    pld = dp_accounting.pld.PLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    for _ in range(steps):
        pld.compose(rr(eps_s))
    for _ in range(n_q):
        pld.compose(rr(eps_q))
    rho = (n_q * eps_q**2 + steps * eps_s**2) / 8.0
    rdp = dp_accounting.rdp.RdpAccountant().compose(dp_accounting.ZCDpEvent(rho))
    return min(pld.get_epsilon(delta), rdp.get_epsilon(delta))


@pytest.mark.privacy
@pytest.mark.parametrize(("steps", "quantiles"), [(1, 0), (4, 2)])
def test_calibration_inputs_pinned(steps, quantiles):
    T, eps, share = 10_000, 1.0, 0.1
    kw = {} if quantiles else {"residual_quantile": None, "context_quantile": None}
    agent = BatchedDPHDB(2, 50, rng=np.random.default_rng(0), horizon=T, epsilon=eps, delta=1 / T,
                         steps_per_batch=steps, **kw)
    b = agent.budget
    E = b.scale
    s = share if quantiles else 0.0
    assert (b.steps, b.quantiles, b.delta) == (steps, quantiles, 1 / T)
    assert b.eps_s == pytest.approx(math.sqrt((1 - s) / steps) * E, rel=1e-12)
    if quantiles:
        assert b.eps_q == pytest.approx(math.sqrt(share / quantiles) * E, rel=1e-12)
    # E is the largest scale within the budget: the epsilon recomputed by hand is eps at E and above it at 1.001 E
    assert _epsilon(b.eps_q, quantiles, b.eps_s, steps, 1 / T) <= eps + 1e-9
    assert _epsilon(1.001 * b.eps_q, quantiles, 1.001 * b.eps_s, steps, 1 / T) > eps
    assert agent.privacy.epsilon == pytest.approx(eps, rel=1e-3) and agent.privacy.epsilon <= eps
    # temperature of a batch: tau = 4 r B C / (n eps_s)
    assert agent.temperature(512, 0.25) == pytest.approx(4 * 2.0 * 0.25 * 1.0 / (512 * b.eps_s), rel=1e-12)


@pytest.mark.privacy
def test_sensitivity_of_the_averaged_gradient_brute_force():
    """Replace one user: same arm moves g_k by <= 2 B C / n in l_inf; a switch moves two arms by <= B C / n."""
    rng = np.random.default_rng(3)
    n, d, C = 64, 6, 0.5
    X = rng.uniform(-1, 1, (n, d))
    arms = rng.integers(0, 2, n)
    r = rng.normal(0, 1, n)
    worst_same, worst_switch = 0.0, 0.0
    for trial in range(200):
        X2, arms2, r2 = X.copy(), arms.copy(), r.copy()
        X2[0] = rng.choice([-1.0, 1.0], d) * rng.uniform(0.5, 2, d)
        r2[0] = rng.normal(0, 5)
        arms2[0] = arms[0] if trial % 2 else 1 - arms[0]
        sums = []
        for data in ((X, arms, r), (X2, arms2, r2)):
            agent = BatchedDPHDB(2, d, rng=np.random.default_rng(0), horizon=1000, first_batch=n, context_clip=C,
                                 context_quantile=None)
            agent.theta = np.array([[0.3, -0.2, 0, 0, 0, 0.1], [0, 0.4, 0, -0.3, 0, 0]])
            agent._observe(*data)
            sums.append(agent._sums / n)
        change = np.max(np.abs(sums[0] - sums[1]), axis=2)  # (arm, clip candidate)
        B = agent.residual_candidates
        ratio = change / (B * C / n)
        if arms2[0] == arms[0]:
            worst_same = max(worst_same, ratio.max())
        else:
            assert np.all(ratio <= 1 + 1e-12)  # each arm loses or gains one summand of l_inf <= B C
            worst_switch = max(worst_switch, ratio.max())
    assert worst_same <= 2 + 1e-12 and worst_same > 1.9  # bound 2 B C / n, attained
    assert worst_switch > 0.99


def _batch_agent(n_arms: int, **kwargs) -> BatchedDPHDB:
    return BatchedDPHDB(n_arms, 2, rng=np.random.default_rng(11), horizon=10_000, epsilon=2.0, first_batch=64,
                        steps_per_batch=1, residual_quantile=None, context_quantile=None, **kwargs)


@pytest.mark.privacy
def test_drawn_vertex_choices_match_the_reported_temperature():
    """One batch of an agent with 20,000 identical arms: the vertices it draws vs P(v) ~ exp(-<g, v> / tau)."""
    K, n = 20_000, 64
    agent = _batch_agent(K)
    eps_s = agent.budget.eps_s
    tau = 4 * 2.0 * 1.0 * 1.0 / (n * eps_s)  # typed: 4 r B C / (n eps_s)
    g = np.array([0.4, -0.1]) * tau  # averaged gradient, scores +-r g_j of order tau
    agent._sums[:, 0, :] = n * g
    agent._end_batch()  # one Frank-Wolfe step, eta = 2 / (1 + 1) = 1: theta_k = v_k
    index = np.argmax(np.abs(agent.theta), axis=1) + 2 * (agent.theta.min(axis=1) < 0)
    counts = np.bincount(index, minlength=4)
    scores = 2.0 * np.concatenate([g, -g])
    expected = np.exp(-(scores - scores.min()) / tau)
    assert stats.chisquare(counts, K * expected / expected.sum()).pvalue > 1e-3
    for wrong in (tau / 2, 2 * tau):
        p = np.exp(-(scores - scores.min()) / wrong)
        assert stats.chisquare(counts, K * p / p.sum()).pvalue < 1e-6
    # epsilon recomputed from the drawn noise: tau from the extreme vertices' log-odds, then eps_s = 4 r B C/(n tau)
    tau_hat = (scores.max() - scores.min()) / math.log(counts[np.argmin(scores)] / counts[np.argmax(scores)])
    eps_hat = 4 * 2.0 / (n * tau_hat)
    assert _epsilon(0.0, 0, eps_hat, 1, 1e-4) == pytest.approx(agent.privacy.epsilon, rel=0.1)


@pytest.mark.privacy
def test_drawn_quantile_choices_match_eps_q():
    agent = BatchedDPHDB(2, 2, rng=np.random.default_rng(2), horizon=10_000, epsilon=3.0)
    eps_q = agent.budget.eps_q
    assert agent.budget.quantiles == 2
    inside = np.array([50.0, 49.0, 47.0, 44.0])  # n = 100, median target 50: utilities 0, -1, -3, -6
    draws = agent._choose(np.tile(inside, (20_000, 1)), 0.5, 100)  # 20,000 independent choices
    counts = np.bincount(draws, minlength=4)
    utility = -np.abs(inside - 50.0)
    for factor, ok in ((1.0, True), (2.0, False), (0.5, False)):
        p = np.exp(factor * eps_q * utility / 2)  # exp(eps u / (2 * sensitivity 1))
        pvalue = stats.chisquare(counts, 20_000 * p / p.sum()).pvalue
        assert (pvalue > 1e-3) if ok else (pvalue < 1e-6)


@pytest.mark.privacy
def test_each_user_enters_one_batch_and_play_block_equals_act_update():
    X, R, _ = _rounds(700, 1)
    a = BatchedDPHDB(2, 50, rng=np.random.default_rng(7), horizon=700, steps_per_batch=3)
    b = BatchedDPHDB(2, 50, rng=np.random.default_rng(7), horizon=700, steps_per_batch=3)
    actions = a.play_block(X, R)
    for t in range(700):
        action = b.act(X[t])
        assert action == actions[t]
        b.update(X[t], action, float(R[t, action]))
    np.testing.assert_array_equal(a.theta, b.theta)
    # batches 32, 64, 128, 256 finished (480 rounds): 4 x 3 Frank-Wolfe steps, one set of clips per batch
    assert a.fw_steps == 12 and len(a.clips) == 4


def test_noise_off_learns_and_has_no_guarantee():
    X, R, means = _rounds(4000, 0)
    agent = BatchedDPHDB(2, 50, rng=np.random.default_rng(0), horizon=4000, noise=False)
    actions = agent.play_block(X, R)
    regret = means.max(axis=1) - means[np.arange(4000), actions]
    assert agent.privacy is None
    random_regret = (means.max(axis=1) - means.mean(axis=1)).sum()  # uniform play, in expectation
    assert regret.sum() < 0.1 * random_regret and regret[2000:].sum() < regret[:2000].sum()


@pytest.mark.privacy
def test_registry_cli_and_guarantee():
    assert agent_class("dphdb-batched") is BatchedDPHDB
    name, factory = parse_agent("dphdb-batched:steps_per_batch=2", {"epsilon": 0.5, "delta": 1e-5})
    agent = factory(n_arms=2, dim=3, rng=np.random.default_rng(0), horizon=100)
    assert name == "dphdb-batched:steps_per_batch=2" and agent.steps_per_batch == 2
    g = agent.privacy
    assert (g.claimed_epsilon, g.claimed_delta) == (0.5, 1e-5) and g.epsilon <= 0.5 and "JDP" in g.relation


def test_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="horizon"):
        BatchedDPHDB(2, 3, rng=rng)
    with pytest.raises(ValueError, match="residual_quantile"):
        BatchedDPHDB(2, 3, rng=rng, horizon=100, residual_quantile=1.5)
    with pytest.raises(ValueError, match="steps_per_batch"):
        BatchedDPHDB(2, 3, rng=rng, horizon=100, steps_per_batch=0)
    with pytest.raises(ValueError, match="step_rule"):
        BatchedDPHDB(2, 3, rng=rng, horizon=100, step_rule="adam")
    with pytest.raises(ValueError, match="context_clip"):
        BatchedDPHDB(2, 3, rng=rng, horizon=100, context_clip=0.0)
