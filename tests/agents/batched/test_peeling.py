"""BatchedPeeling: the selection's epsilon_0 and sensitivity, the drawn Gaussian noise, the zCDP composition, the
sensitivities by brute force, identical play paths and learning."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import optimize, stats
from batched_helpers import Recorder, assert_scale, rounds, statistics

import dpbandit.agents.batched.peeling as peeling
from dpbandit.agents.batched.peeling import BatchedPeeling, BatchedPeelingPerArm
from dpbandit.agents.uniform import RandomAgent
from dpbandit.harness import run


def rdp_to_epsilon(rho: float, delta: float) -> float:
    """(epsilon, delta) of a rho-zCDP mechanism, minimising the conversion of Balle et al. (2020, Thm 21) /
    Canonne, Kamath and Steinke (2020) over a fine grid of orders (independent of dp-accounting's grid)."""
    alpha = np.linspace(1.001, 400, 400_000)
    return float(np.min(alpha * rho + np.log((alpha - 1) / alpha) - (np.log(delta) + np.log(alpha)) / (alpha - 1)))


class SelectionRecorder:
    """Records the (epsilon, sensitivity, k) of every selection the agent draws."""

    def __init__(self, monkeypatch) -> None:
        self.calls = []
        inner = peeling.top_k_exponential

        def record(rng, scores, k, epsilon, sensitivity):
            self.calls.append((epsilon, sensitivity, k, scores.shape))
            return inner(rng, scores, k, epsilon, sensitivity)

        monkeypatch.setattr(peeling, "top_k_exponential", record)


@pytest.mark.privacy
@pytest.mark.parametrize(("cls", "env_id", "k"), [(BatchedPeeling, "dpbandit/HDBSection54-v0", 10),
                                                  (BatchedPeelingPerArm, "dpbandit/PerArmLinearBandit-v0", 4)])
def test_selection_gaussian_noise_and_accounting(monkeypatch, cls, env_id: str, k: int) -> None:
    """Per batch the agent selects with epsilon_0 = sqrt(8 f rho / k) on scores of sensitivity 2 X B and adds to
    the values noise of std z * 2 sqrt(s_max) X B / sqrt(share): the epsilon these drawn quantities certify, by an
    independent zCDP conversion, is the reported one; halved and doubled value noise are rejected."""
    block = rounds(env_id, 4_000)
    K, d = block.rewards.shape[1], block.observations.shape[-1]
    selections = SelectionRecorder(monkeypatch)
    agent = cls(K, d, rng=np.random.default_rng(3), horizon=4_000, epsilon=1.0, first_batch=16, select=k)
    rec = Recorder(agent)
    clips = []
    inner_statistics = agent._statistics

    def statistics_with_clips():
        clips.append((agent.clipping.context_clip, agent.clipping.reward_clip))
        return inner_statistics()

    agent._statistics = statistics_with_clips
    agent.play_block(block.observations, block.rewards)
    assert len(selections.calls) == len(rec.calls) == 7
    f = 0.5
    units, rho_selection = [], None
    for (epsilon0, sensitivity, picks, shape), (values, sens, out, _, sizes), (X, B) in zip(
        selections.calls, rec.calls, clips, strict=True
    ):
        assert picks == k and shape == (agent.n_models, d)
        assert sensitivity == pytest.approx(2 * X * B)  # l_inf change of |u_kj|, same arm
        rho_selection = k * epsilon0**2 / 8
        delta_values = 2 * math.sqrt(max(sizes)) * X * B
        assert sens["values"] == pytest.approx(delta_values)
        assert sens["second_moment"] == pytest.approx((X * B) ** 2)
        units.append((out["values"] - values["values"]) * math.sqrt(0.9 * 0.9) / delta_values)
    unit = np.concatenate(units)
    z_drawn = math.sqrt(float(np.mean(unit**2)))
    rho_total = agent.rho
    assert rho_selection == pytest.approx(f * rho_total)
    assert_scale(unit, 1 / math.sqrt(2 * (1 - f) * rho_total), "values")
    eps_from_draws = rdp_to_epsilon(rho_selection + 1 / (2 * z_drawn**2), agent.delta)
    assert eps_from_draws == pytest.approx(agent.privacy.epsilon, rel=0.1)
    assert rdp_to_epsilon(rho_total, agent.delta) <= agent.privacy.epsilon <= 1.02 * rdp_to_epsilon(rho_total, agent.delta)
    assert agent.privacy.epsilon == pytest.approx(1.0, abs=1e-3)


def rho_for(epsilon: float, delta: float) -> float:
    """The rho whose zCDP conversion (rdp_to_epsilon above) is epsilon at delta, by bisection."""
    return float(optimize.brentq(lambda rho: rdp_to_epsilon(rho, delta) - epsilon, 1e-8, 100.0, xtol=1e-12))


def top2_probability(a: float, m: int) -> float:
    """P(candidate 0 is among 2 peeling rounds of the exponential mechanism), weights e^a and m - 1 ones."""
    w = math.exp(a)
    return w / (w + m - 1) + (m - 1) / (w + m - 1) * w / (w + m - 2)


@pytest.mark.privacy
@pytest.mark.parametrize("cls", [BatchedPeeling, BatchedPeelingPerArm])
def test_drawn_selections_certify_the_reported_epsilon(cls) -> None:
    """Repeated private selections of the agent's own ``_statistics`` on fixed sums: P(coordinate 0 selected)
    follows two peeling rounds of exp(eps_0 |u_j| / (2 * 2 X B)) with eps_0 = sqrt(8 f rho / 2) (typed); the epsilon
    recomputed from the drawn choices (eps_0 from their frequency, plus the Gaussian part) is the reported one;
    the law at 2 eps_0 or eps_0 / 2 (a halved or doubled sensitivity or noise) and eps_0 at k = 1 are rejected."""
    K, d, select, f = 2, 6, 2, 0.5
    agent = cls(K, d, rng=np.random.default_rng(4), horizon=1_000, epsilon=1.0, delta=1e-5, select=select)
    X, B = 0.7, 0.4
    agent.clipping.context_clip, agent.clipping.reward_clip = X, B
    rho = rho_for(1.0, 1e-5)
    eps0_typed = math.sqrt(8 * f * rho / select)
    score = 2 * (2 * X * B) / eps0_typed  # exponent a = eps_0 score / (2 Delta) = 1 at the typed eps_0
    agent._sums[:] = 0.0
    agent._sums[:, 0] = -score  # the selection scores |u_kj|
    picks = 0
    calls = 12_000 // agent.n_models
    for _ in range(calls):
        agent._statistics()
        picks += sum(int(0 in support) for support in agent._support)
    n = calls * agent.n_models
    for factor, ok in ((1.0, True), (2.0, False), (0.5, False), (math.sqrt(select), False)):
        p = top2_probability(factor, d)
        assert (stats.binomtest(picks, n, p).pvalue > 1e-3) == ok, factor
    a_hat = optimize.brentq(lambda a: top2_probability(a, d) - picks / n, 1e-6, 10.0)
    eps0_hat = a_hat * 2 * (2 * X * B) / score
    gaussian_rho = (1 - f) * rho  # the values' part, tested on drawn noise above
    eps_hat = rdp_to_epsilon(select * eps0_hat**2 / 8 + gaussian_rho, 1e-5)
    assert eps_hat == pytest.approx(agent.privacy.epsilon, rel=0.05)


@pytest.mark.privacy
@pytest.mark.parametrize("cls", [BatchedPeeling, BatchedPeelingPerArm])
def test_sensitivities_hold_and_are_attained(cls) -> None:
    """Replacing one record moves |u_kj| by at most 2 X B per coordinate (attained), the values on a given support
    (the Gaussian part is conditional on the released selection) by at most 2 sqrt(|S|) X B (attained), and the
    second moment by at most X^2 B^2 (attained)."""
    per_arm = cls.observation_model == "per_arm"
    K, d = 3, 6
    agent = cls(K, d, rng=np.random.default_rng(0), horizon=100, select=2, noise=False)
    X, B = 0.7, 0.4
    agent.clipping.context_clip, agent.clipping.reward_clip = X, B
    n_models = 1 if per_arm else K
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(20, d))
    models = rng.integers(n_models, size=20)
    rewards = rng.normal(size=20)
    rows[0], rewards[0] = 3.0, 3.0  # an extreme record: every coordinate beyond X, reward beyond B
    agent.theta[:] = 0.0
    agent.theta[:, :3] = 1.0  # a public support of 3 coordinates per model: |S| = 3 + up to 2 selected
    base = statistics(agent, rows, models, rewards)
    base_sums = agent._sums.copy()
    support = [s.copy() for s in agent._support]
    worst_scores, worst_values, worst_second = 0.0, 0.0, 0.0
    for x in [rng.normal(scale=s, size=d) for s in (0.1, 1.0, 10.0) for _ in range(20)] + [-rows[0], rows[0]]:
        for model in range(n_models):
            for r in (-5.0, -0.1, 0.2, 5.0):
                rows2, models2, rewards2 = rows.copy(), models.copy(), rewards.copy()
                rows2[0], models2[0], rewards2[0] = x, model, r
                other = statistics(agent, rows2, models2, rewards2)
                worst_scores = max(worst_scores, float(np.max(np.abs(np.abs(agent._sums) - np.abs(base_sums)))))
                worst_second = max(worst_second, abs(float(other["second_moment"] - base["second_moment"])))
                change = np.concatenate([agent._sums[m, S] - base_sums[m, S] for m, S in enumerate(support)])
                worst_values = max(worst_values, float(np.linalg.norm(change)))
    assert agent.selection_sensitivity() == pytest.approx(2 * X * B)
    assert worst_scores <= 2 * X * B * (1 + 1e-12) and worst_scores >= 0.99 * 2 * X * B
    assert worst_second <= (X * B) ** 2 * (1 + 1e-12) and worst_second >= 0.99 * (X * B) ** 2
    agent._support = support
    stated = agent._main_sensitivities()["values"]
    largest = max(len(S) for S in support)
    assert stated == pytest.approx(2 * math.sqrt(largest) * X * B)
    assert worst_values <= stated * (1 + 1e-12)
    assert worst_values >= 0.99 * 2 * math.sqrt(min(len(S) for S in support)) * X * B


@pytest.mark.parametrize(("cls", "env_id"), [(BatchedPeeling, "dpbandit/HDBSection54-v0"),
                                             (BatchedPeelingPerArm, "dpbandit/PerArmLinearBandit-v0")])
def test_act_update_equals_play_block(cls, env_id: str) -> None:
    T = 1_500
    block = rounds(env_id, T)
    K, d = block.rewards.shape[1], block.observations.shape[-1]
    a = cls(K, d, rng=np.random.default_rng(9), horizon=T, delta=1 / T, first_batch=8, select=3)
    b = cls(K, d, rng=np.random.default_rng(9), horizon=T, delta=1 / T, first_batch=8, select=3)
    stepped = []
    for obs, rew in zip(block.observations, block.rewards):
        action = a.act(obs)
        a.update(obs, action, float(rew[action]))
        stepped.append(action)
    blocked = np.concatenate([b.play_block(block.observations[:600], block.rewards[:600]),
                              b.play_block(block.observations[600:], block.rewards[600:])])
    np.testing.assert_array_equal(stepped, blocked)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert a.theta.any()


def test_learns_at_epsilon_one_and_noise_off() -> None:
    agents = {"peel": functools.partial(BatchedPeeling, epsilon=1.0, delta=1 / 5_000),  # numbers pinned at 1/T
              "noise off": functools.partial(BatchedPeeling, noise=False), "random": RandomAgent}
    df = run("dpbandit/HDBSection54-v0", agents, n_seeds=3, horizon=5_000, progress=False)
    final = df[df.step == 5_000].groupby("agent")["cumulative_regret"].mean()
    assert final["peel"] < 0.7 * final["random"]
    assert final["noise off"] < 0.08 * final["random"]
    assert BatchedPeeling(2, 50, rng=np.random.default_rng(0), horizon=100, noise=False).privacy is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [(dict(select=0), "select"), (dict(select=51), "select"), (dict(selection_share=1.0), "selection_share"),
     (dict(threshold=-1.0), "threshold"), (dict(sparsity=0), "sparsity"), (dict(epsilon=0.0), "epsilon")],
)
def test_validation(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        BatchedPeeling(2, 50, rng=np.random.default_rng(0), horizon=100, **kwargs)
