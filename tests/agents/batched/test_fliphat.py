"""FLIPHAT: calibration inputs pinned from the formulas, the noise it actually draws, accounting recomputed
from that noise, forgetting, act/update = play_block, noise off, validation."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy import stats

import dpbandit.privacy.peeling as peeling_module
from dpbandit.agents import AGENTS, agent_class
from dpbandit.agents.batched import fliphat as fliphat_module
from dpbandit.agents.batched.fliphat import FLIPHAT, FLIPHATDisjoint
from dpbandit.harness import run
from dpbandit.privacy.budget import default_delta

ALPHA = 1e-3


def pld_epsilon(z: float, rounds: int, delta: float, shift: float = 1.0) -> float:
    """RR (REPLACE_ONE, epsilon 2 shift / z) and Laplace (multiplier z / shift), each ``rounds`` times."""
    rr = pld.from_randomized_response(2 / (1 + math.exp(2 * shift / z)), 2,
                                      neighboring_relation=pld.NeighborRel.REPLACE_ONE)
    lap = pld.from_laplace_mechanism(z, sensitivity=shift)
    return rr.self_compose(rounds).compose(lap.self_compose(rounds)).get_epsilon_for_delta(delta)


def feed(agent: FLIPHAT, X: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """act + update over rounds ``X (m, K, d)`` with every arm's reward ``(m, K)``; returns the actions."""
    actions = []
    for x, r in zip(X, rewards):
        a = agent.act(x)
        agent.update(x, a, float(r[a]))
        actions.append(a)
    return np.array(actions)


# ------------------------------------------------------------------ calibration inputs, from the formulas
def test_iteration_count_formula_is_at_least_one() -> None:
    agent = FLIPHAT(2, 5, rng=np.random.default_rng(0), horizon=10, iteration_scale=0.5)
    for n in (1, 2, 64, 4096, 10**6):
        assert agent.iterations(n) == max(1, math.floor(0.5 * math.log(1 + n)))
    assert FLIPHAT(2, 5, rng=np.random.default_rng(0), horizon=10, iteration_scale=0.0).iterations(10**9) == 1
    assert FLIPHAT(2, 5, rng=np.random.default_rng(0), horizon=10).iterations(22_026) == 2  # default 0.2


@pytest.mark.privacy
def test_defaults_and_paper_multiplier() -> None:
    agent = FLIPHAT(3, 400, rng=np.random.default_rng(0), horizon=10_000, calibration="paper", delta=0.01)
    assert agent.context_bound == pytest.approx(math.sqrt(2 * math.log(400)))
    assert agent.sparsity == 10 and agent.reward_clip == 1.0 and agent.l1_radius == 1.0
    assert FLIPHAT(3, 4, rng=np.random.default_rng(0), horizon=100).delta == default_delta(100)  # docs/privacy.md
    # peeling lemma at (eps/M, delta/M) per iteration: b / lam = 2 sqrt(3 s log(M / delta)) M / eps
    assert agent.multiplier(1) == pytest.approx(2 * math.sqrt(3 * 10 * math.log(100)))
    assert agent.multiplier(2) == pytest.approx(2 * math.sqrt(3 * 10 * math.log(200)) * 2)


def test_tight_multiplier_reaches_the_target_by_dp_accounting() -> None:
    agent = FLIPHAT(3, 50, rng=np.random.default_rng(0), epsilon=1.0, delta=0.01, sparsity=10)
    z = agent.multiplier(1)
    assert pld_epsilon(z, 10, 0.01) <= 1.0 + 1e-9
    assert pld_epsilon(z / 1.01, 10, 0.01) > 1.0  # tight: 1% less noise overshoots
    assert agent.privacy.epsilon == pytest.approx(1.0, abs=2e-3)
    assert agent.privacy.claimed_epsilon == 1.0


@pytest.mark.privacy
def test_tight_multiplier_covers_the_s_times_m_rounds_of_an_episode() -> None:
    """An episode of M iterations peels s M times: its tight z meets the target over s M rounds (typed), not s."""
    agent = FLIPHAT(3, 50, rng=np.random.default_rng(0), epsilon=1.0, delta=0.01, sparsity=4)
    for M in (2, 3):
        z = agent.multiplier(M)
        assert pld_epsilon(z, 4 * M, 0.01) <= 1.0 + 1e-9
        assert pld_epsilon(z / 1.01, 4 * M, 0.01) > 1.0


@pytest.mark.privacy
def test_multi_iteration_episodes_draw_noise_for_all_their_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Zero data, M = floor(log(1 + n)) iterations: the scale the first iteration hands to the sampler, over the
    typed lam = 2 eta x_max R / n, is a multiplier whose epsilon over s M rounds is the target (and the report)."""
    used: list[float] = []
    original = peeling_module.peel

    def spy(rng, vector, count, scale):
        used.append(scale)
        return original(rng, vector, count, scale)

    monkeypatch.setattr(peeling_module, "peel", spy)
    agent = _zero_data_agent(0, iteration_scale=1.0)
    feed(agent, np.zeros((63, 2, 6)), np.zeros((63, 2)))
    checked = 0
    for r in agent.releases:
        M = max(1, math.floor(math.log(1 + r.size)))
        assert r.iterations == M
        first = used.pop(0)  # iteration 0 of model 0 (theta_0 = 0); skip the episode's other peels
        del used[: M - 1]
        z_used = first / (2 * 0.25 * 2.0 * 0.5 / r.size)
        assert pld_epsilon(z_used, 6 * M, 0.01) == pytest.approx(1.0, abs=5e-3)
        checked += M >= 2
    assert checked == 3 and not used  # episodes of 8, 16 and 32 rounds have M = 2, 2, 3
    assert agent.privacy.epsilon == pytest.approx(1.0, abs=5e-3)


def _zero_data_agent(seed: int, **kwargs) -> FLIPHAT:
    return FLIPHAT(2, 6, rng=np.random.default_rng(seed), horizon=63, delta=0.01, sparsity=6,
                   context_bound=2.0, reward_clip=0.5, step_size=0.25, l1_radius=1e9, **kwargs)


@pytest.mark.privacy
def test_laplace_scale_is_multiplier_times_the_typed_sensitivity() -> None:
    agent = _zero_data_agent(0)
    feed(agent, np.zeros((63, 2, 6)), np.zeros((63, 2)))
    z = agent.multiplier(1)
    assert [r.size for r in agent.releases] == [1, 2, 4, 8, 16, 32]
    for r in agent.releases:
        # lam = 2 eta x_max (x_max ||theta_0||_1 + R) / n with theta_0 = 0: 2 * 0.25 * 2 * 0.5 / n
        assert r.iterations == 1 and r.multiplier == z
        np.testing.assert_allclose(r.scales, [[z * 0.5 / r.size]])


@pytest.mark.privacy
def test_drawn_noise_has_the_stated_scale_and_gives_the_stated_epsilon() -> None:
    """Zero data: v = 0, every coordinate selected (s = d), so theta after an episode is the drawn noise."""
    samples, scales = [], []
    for seed in range(40):
        agent = _zero_data_agent(seed)
        X, R = np.zeros((63, 2, 6)), np.zeros((63, 2))
        for start, stop in ((0, 1), (1, 3), (3, 7), (7, 15), (15, 31), (31, 63)):
            feed(agent, X[start:stop], R[start:stop])
            samples.append(agent.theta[0].copy())
            scales.append(agent.releases[-1].scales[0, 0])
    stated = np.repeat(scales, 6)
    u = np.concatenate(samples) / stated
    assert stats.kstest(u, stats.laplace.cdf).pvalue > ALPHA
    for wrong in (0.5, 2.0):
        assert stats.kstest(u / wrong, stats.laplace.cdf).pvalue < ALPHA
    # epsilon recomputed from the drawn noise: b_hat = mean |u| (Laplace MLE), lam typed as above
    lam = 0.5 / np.repeat([1, 2, 4, 8, 16, 32] * 40, 6)
    z_hat = float(np.mean(np.abs(np.concatenate(samples)) / lam))
    agent = _zero_data_agent(0)
    eps_hat = pld_epsilon(z_hat, 6, 0.01)
    assert eps_hat == pytest.approx(agent.privacy.epsilon, rel=0.1)
    assert pld_epsilon(z_hat / 2, 6, 0.01) > 1.5 * agent.privacy.epsilon  # halved noise: detectable


@pytest.mark.privacy
def test_selection_noise_law_on_a_known_episode() -> None:
    """One-round episode, x = (1, 0) on both arms, reward 1: v = eta x clip(r) = (0.5, 0); P(select 0)
    follows the Laplace-difference law at the stated scale, not at half or twice it."""
    n_agents, picks, scale = 3_000, 0, None
    X, R = np.array([[[1.0, 0.0], [1.0, 0.0]]]), np.ones((1, 2))
    for seed in range(n_agents):
        agent = FLIPHAT(2, 2, rng=np.random.default_rng(seed), horizon=1, delta=0.01, sparsity=1,
                        context_bound=1.0, reward_clip=1.0, step_size=0.5, epsilon=2.0)
        feed(agent, X, R)
        picks += int(agent.theta[0, 0] != 0.0)
        scale = agent.releases[0].scales[0, 0]
    assert scale == pytest.approx(agent.multiplier(1) * 2 * 0.5 * 1.0 * 1.0 / 1)  # z * lam
    for factor, ok in ((1.0, True), (0.5, False), (2.0, False)):
        u = 0.5 / (factor * scale)
        p = 1 - 0.5 * math.exp(-u) * (1 + u / 2)
        assert (stats.binomtest(picks, n_agents, p).pvalue > ALPHA) == ok, factor


def test_number_of_peeling_rounds_is_s_times_m(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    original = peeling_module.report_noisy_max

    def counting(rng, scores, scale):
        calls.append(scale)
        return original(rng, scores, scale)

    monkeypatch.setattr(peeling_module, "report_noisy_max", counting)
    agent = FLIPHAT(2, 20, rng=np.random.default_rng(0), horizon=64, delta=0.01, sparsity=3,
                    iteration_scale=1.0, l1_radius=5.0)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((63, 2, 20))
    feed(agent, X, X[:, :, 0] + 0.1 * rng.standard_normal((63, 2)))
    for r in agent.releases:
        assert r.iterations == max(1, math.floor(math.log(1 + r.size)))
    assert len(calls) == sum(3 * r.iterations for r in agent.releases)
    # scale of every selection round = the iteration's stated scale; later iterations use ||theta_m||_1
    stated = np.concatenate([np.repeat(r.scales[:, 0], 3) for r in agent.releases])
    np.testing.assert_allclose(calls, stated)
    last = agent.releases[-1]
    assert last.iterations >= 2 and last.scales[1, 0] > last.scales[0, 0]


@pytest.mark.privacy
def test_privacy_composes_each_episode_not_across_episodes() -> None:
    agent = FLIPHAT(2, 20, rng=np.random.default_rng(0), horizon=10**5, delta=0.01, sparsity=3,
                    iteration_scale=0.3, calibration="paper")
    # episodes ending by T = 1e5 have n = 1 ... 32768: M = max(1, floor(0.3 log(1 + n))) in {1, 2, 3}
    counts = sorted({max(1, math.floor(0.3 * math.log(1 + 2**k))) for k in range(16)})
    expected = max(pld_epsilon(2 * math.sqrt(9 * math.log(M / 0.01)) * M, 3 * M, 0.01) for M in counts)
    assert agent.privacy.epsilon == pytest.approx(expected, abs=5e-3)
    assert agent.privacy.epsilon < 1.0  # the paper's calibration is conservative (basic composition)


def test_disjoint_model_accounts_for_the_arm_switch() -> None:
    agent = FLIPHATDisjoint(3, 20, rng=np.random.default_rng(0), horizon=100, delta=0.01, sparsity=2,
                            calibration="paper", epsilon=0.3)
    z = agent.multiplier(1)
    expected = max(pld_epsilon(z, 2, 0.01), pld_epsilon(z, 4, 0.01, shift=0.5))
    assert agent.privacy.epsilon == pytest.approx(expected, abs=2e-3)
    tight = FLIPHATDisjoint(3, 20, rng=np.random.default_rng(0), horizon=100, delta=0.01, sparsity=2)
    zt = tight.multiplier(1)
    assert max(pld_epsilon(zt, 2, 0.01), pld_epsilon(zt, 4, 0.01, shift=0.5)) <= 1.0 + 1e-9


# ------------------------------------------------------------------ algorithm behaviour
def _linear_rounds(seed: int, m: int, dim: int, n_arms: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    beta = np.zeros(dim)
    beta[:3] = [1.0, -0.8, 0.6]
    X = rng.standard_normal((m, n_arms, dim))
    return X, X @ beta + 0.1 * rng.standard_normal((m, n_arms)), beta


def test_noise_off_recovers_the_support_and_draws_no_noise() -> None:
    X, R, beta = _linear_rounds(0, 1023, 30)
    a = FLIPHAT(3, 30, rng=np.random.default_rng(1), horizon=1023, noise=False, sparsity=3)
    b = FLIPHAT(3, 30, rng=np.random.default_rng(2), horizon=1023, noise=False, sparsity=3)
    actions = a.play_block(X, R)
    assert a.privacy is None and b.privacy is None
    np.testing.assert_array_equal(np.flatnonzero(a.theta[0]), [0, 1, 2])
    assert np.corrcoef(a.theta[0], beta)[0, 1] > 0.99
    np.testing.assert_array_equal(b.play_block(X, R)[1:], actions[1:])  # only the tie at theta = 0 differs
    best = (X @ beta).argmax(axis=1)
    assert np.mean(actions[511:] == best[511:]) > 0.9


@pytest.mark.parametrize("cls", [FLIPHAT, FLIPHATDisjoint])
def test_act_update_and_play_block_are_identical(cls: type) -> None:
    X, R, _ = _linear_rounds(3, 300, 12)
    obs = X if cls is FLIPHAT else X[:, 0, :]
    one = cls(3, 12, rng=np.random.default_rng(5), horizon=300, sparsity=4)
    two = cls(3, 12, rng=np.random.default_rng(5), horizon=300, sparsity=4)
    actions = []
    for x, r in zip(obs, R):
        a = one.act(x)
        one.update(x, a, float(r[a]))
        actions.append(a)
    blocks = [two.play_block(obs[s:s + 37], R[s:s + 37]) for s in range(0, 300, 37)]
    np.testing.assert_array_equal(np.concatenate(blocks), actions)
    np.testing.assert_array_equal(one.theta, two.theta)


def test_forgetting_an_episode_uses_only_its_own_rounds() -> None:
    """Same seed, different rounds before episode 3 (rounds 7..14); identical rows on every arm in episode 3
    (so the action does not matter): the estimate after episode 3 is the same, noise included."""
    _, R, _ = _linear_rounds(4, 15, 8)
    X = np.random.default_rng(6).standard_normal((15, 3, 8))
    X[7:] = X[7:, :1]  # every arm shows the same row
    R[7:] = R[7:, :1]
    other = X.copy()
    other[:7] = np.random.default_rng(7).standard_normal((7, 3, 8))
    a = FLIPHAT(3, 8, rng=np.random.default_rng(8), horizon=15, sparsity=2)
    b = FLIPHAT(3, 8, rng=np.random.default_rng(8), horizon=15, sparsity=2)
    a.play_block(X, R)
    b.play_block(other, R)
    assert len(a.releases) == 4
    np.testing.assert_array_equal(a.theta, b.theta)


def test_gram_statistics_equal_row_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    X, R, _ = _linear_rounds(9, 255, 10)
    rows = FLIPHATDisjoint(3, 10, rng=np.random.default_rng(1), horizon=255, sparsity=3, iteration_scale=0.6)
    rows.play_block(X[:, 0], R)
    monkeypatch.setattr(fliphat_module, "ROW_ELEMENTS", 10)
    gram = FLIPHATDisjoint(3, 10, rng=np.random.default_rng(1), horizon=255, sparsity=3, iteration_scale=0.6)
    gram.play_block(X[:, 0], R)
    np.testing.assert_allclose(gram.theta, rows.theta, rtol=1e-9, atol=1e-12)


def test_episodes_ending_after_the_horizon_store_nothing_and_are_not_accounted() -> None:
    agent = FLIPHAT(2, 4, rng=np.random.default_rng(0), horizon=10, iteration_scale=2.0)
    X = np.random.default_rng(1).standard_normal((10, 2, 4))
    agent.play_block(X, X[:, :, 0])
    assert [r.size for r in agent.releases] == [1, 2, 4]
    assert agent._data is not None and not agent._data.keep  # episode 3 (8 rounds) would end at 15
    # M_l = floor(2 log(1 + n)): 1, 2, 3 for n = 1, 2, 4; the unfinished episode (n = 8) would have M = 4
    assert "M=3" in agent.privacy.calibration and "M=4" not in agent.privacy.calibration


def test_registry_and_harness() -> None:
    assert agent_class("fliphat") is FLIPHAT and agent_class("fliphat-disjoint") is FLIPHATDisjoint
    assert "fliphat" in AGENTS
    df = run("dpbandit/PerArmLinearBandit-v0", {"fliphat": functools.partial(FLIPHAT, epsilon=2.0)},
             n_seeds=1, horizon=200, progress=False)
    assert df["epsilon"].iloc[-1] == pytest.approx(2.0, abs=5e-3)


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        (dict(epsilon=0.0), ValueError, "epsilon"),
        (dict(delta=1.0), ValueError, "delta"),
        (dict(sparsity=9), ValueError, "sparsity"),
        (dict(sparsity=0), ValueError, "sparsity"),
        (dict(context_bound=-1.0), ValueError, "context_bound"),
        (dict(reward_clip=0.0), ValueError, "reward_clip"),
        (dict(l1_radius=float("inf")), ValueError, "l1_radius"),
        (dict(step_size=0.0), ValueError, "step_size"),
        (dict(iteration_scale=-0.1), ValueError, "iteration_scale"),
        (dict(calibration="loose"), ValueError, "calibration"),
        (dict(first_batch=0), ValueError, "first_batch"),
        (dict(batch_ratio=0.5), ValueError, "batch_ratio"),
    ],
)
def test_validation_names_the_parameter(kwargs: dict, exc: type, name: str) -> None:
    with pytest.raises(exc, match=name):
        FLIPHAT(2, 8, rng=np.random.default_rng(0), horizon=10, **kwargs)


def test_missing_horizon_and_delta_is_an_error() -> None:
    with pytest.raises(ValueError, match="horizon"):
        FLIPHAT(2, 8, rng=np.random.default_rng(0))


def test_playing_beyond_the_horizon_is_an_error() -> None:
    agent = FLIPHAT(2, 3, rng=np.random.default_rng(0), horizon=5)
    X = np.random.default_rng(1).standard_normal((6, 2, 3))
    agent.play_block(X[:5], X[:5, :, 0])
    with pytest.raises(RuntimeError, match="horizon=5"):
        agent.update(X[5], 0, 0.1)
    unbounded = FLIPHAT(2, 3, rng=np.random.default_rng(0), delta=0.01)
    unbounded.play_block(X, X[:, :, 0])  # no horizon: every episode is stored and accounted
    assert [r.size for r in unbounded.releases] == [1, 2]


def test_random_perarm_reference_runs_on_per_arm_envs() -> None:
    df = run("dpbandit/PerArmLinearBandit-v0", {"random-perarm": agent_class("random-perarm")}, n_seeds=1,
             horizon=50, progress=False)
    assert df["cumulative_regret"].iloc[-1] > 0


# ------------------------------------------------------------------ adaptive clipping
def _adaptive_zero_agent(seed: int, **kwargs) -> FLIPHAT:
    # c = 2 / (count_share epsilon) = 1: counts released from episodes of n >= 4 rounds on
    return FLIPHAT(2, 3, rng=np.random.default_rng(seed), horizon=127, delta=0.01, sparsity=3, epsilon=4.0,
                   adaptive_clipping=True, count_share=0.5, **kwargs)


@pytest.mark.privacy
def test_adaptive_clipping_count_noise_has_the_stated_scale_and_is_accounted() -> None:
    noise = []
    for seed in range(60):
        agent = _adaptive_zero_agent(seed)
        agent.play_block(np.zeros((127, 2, 3)), np.zeros((127, 2)))
        assert [r.counts is not None for r in agent.releases] == [False, False, True, True, True, True, True]
        noise += [r.counts - r.size for r in agent.releases if r.counts is not None]  # all rows inside
    u = np.concatenate(noise)
    assert agent.counts == (1.0, 1.0)
    assert stats.kstest(u, stats.laplace.cdf).pvalue > ALPHA
    for wrong in (0.5, 2.0):
        assert stats.kstest(u / wrong, stats.laplace.cdf).pvalue < ALPHA
    # the PLD of each episode: 3 peeling rounds and two Laplace counts of multiplier 1
    z = agent.multiplier(1)
    with_counts = pld.from_laplace_mechanism(1.0).compose(pld.from_laplace_mechanism(1.0))
    rr = pld.from_randomized_response(2 / (1 + math.exp(2 / z)), 2,
                                      neighboring_relation=pld.NeighborRel.REPLACE_ONE)
    total = rr.self_compose(3).compose(pld.from_laplace_mechanism(z).self_compose(3)).compose(with_counts)
    assert total.get_epsilon_for_delta(0.01) == pytest.approx(agent.privacy.epsilon, abs=1e-9)
    assert agent.privacy.epsilon == pytest.approx(4.0, abs=0.01)
    assert z > FLIPHAT(2, 3, rng=np.random.default_rng(0), horizon=127, delta=0.01, sparsity=3,
                       epsilon=4.0).multiplier(1)  # the counts' budget leaves less for the peeling


def test_adaptive_clips_follow_the_geometric_update() -> None:
    agent = _adaptive_zero_agent(0, noise=False, clip_quantile=0.25, clip_rate=1.0, context_bound=2.0,
                                 reward_clip=0.5)
    agent.play_block(np.zeros((127, 2, 3)), np.zeros((127, 2)))
    bounds = [r.context_bound for r in agent.releases]
    clips = [r.reward_clip for r in agent.releases]
    # every row and reward is inside: fraction 1, factor exp(-rate (1 - q)) = exp(-0.75) after episodes n >= 4
    factor = [1, 1, 1] + [math.exp(-0.75) ** k for k in range(1, 5)]
    np.testing.assert_allclose(bounds, 2.0 * np.array(factor))
    np.testing.assert_allclose(clips, 0.5 * np.array(factor))
    # the sensitivity uses the clips of the moment: lam = 2 eta x_max (x_max * 0 + R) / n, eta = 0.5
    x_now, r_now = agent.clipping.context_clip, agent.clipping.reward_clip
    assert x_now == pytest.approx(bounds[-1] * math.exp(-0.75))
    np.testing.assert_allclose(agent.sensitivity(np.zeros((1, 3)), 64), [2 * 0.5 * x_now * r_now / 64])


def test_adaptive_clipping_validation() -> None:
    with pytest.raises(ValueError, match="adaptive_clipping"):
        FLIPHAT(2, 3, rng=np.random.default_rng(0), horizon=10, adaptive_clipping=True, calibration="paper")
    with pytest.raises(ValueError, match="count_share"):
        FLIPHAT(2, 3, rng=np.random.default_rng(0), horizon=10, adaptive_clipping=True, count_share=1.0)
    with pytest.raises(ValueError, match="clip_rate"):
        FLIPHAT(2, 3, rng=np.random.default_rng(0), horizon=10, adaptive_clipping=True, clip_rate=0.0)
