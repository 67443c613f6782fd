"""Local-DP and shuffle-model agents: the noise each agent actually adds, batching, reports per user, the
guarantee they state, the size guard, and that without noise they are ridge LinUCB."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.privacy.accounting import epsilon_for, gaussian_event, gaussian_sigma
from dpbandit.privacy.local import report_sensitivity
from dpbandit.privacy.shuffle import gaussian_shuffle_calibration, shuffle_epsilon

NAMES = ("ldp-linucb", "ldp-linucb-disjoint", "shuffle-linucb", "shuffle-linucb-disjoint")
K, D, T = 3, 2, 400


def build(name: str, seed: int = 0, **kw):
    return agent_class(name)(K, D, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0, **kw)


def observation(agent, rng: np.random.Generator) -> np.ndarray:
    shape = (K, agent.dim) if agent.observation_model == "per_arm" else (agent.dim,)
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def expected_sigma(agent, reward_bound: float = 1.0) -> float:
    """The report std computed here, independently of the agent: PLD Gaussian calibration of the (local or
    shuffle-calibrated) budget at the sensitivity of the report (features of norm 1, rewards within
    ``reward_bound`` after centring), composed over reports per user."""
    return _expected_sigma(agent.trust_model, agent.observation_model == "shared", agent.epsilon, agent.delta,
                           agent.reports_per_user or 1, agent.batch, reward_bound)


@functools.lru_cache
def _expected_sigma(trust: str, disjoint: bool, epsilon: float, delta: float, m: int, batch: int,
                    reward_bound: float) -> float:
    sens = report_sensitivity(1.0, reward_bound, disjoint=disjoint)
    if trust == "local":
        return gaussian_sigma(epsilon, delta, sens, m)
    cal = gaussian_shuffle_calibration(epsilon / m, delta / m, batch)
    return gaussian_sigma(cal.eps0, cal.delta0, sens)


def play_and_subtract(agent, rounds: int, rng: np.random.Generator,
                      centre: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Play ``rounds`` rounds (uniform rewards); return the noise in the agent's Gram and reward sums (its
    published plus pending sums minus the exact ones, rewards entering as ``r - centre``), one row per model."""
    exact_g = np.zeros_like(agent.gram)
    exact_u = np.zeros_like(agent._pending_u)
    for _ in range(rounds):
        obs = observation(agent, rng)
        a = agent.act(obs)
        r = float(rng.uniform())
        agent.update(obs, a, r)
        f = obs[a] if agent.observation_model == "per_arm" else obs
        exact_g[agent._model_of(a)] += np.outer(f, f)
        exact_u[agent._model_of(a)] += (r - centre) * f
    return agent.gram + agent._pending_gram - exact_g, agent._u_published + agent._pending_u - exact_u


def added_noise(agent, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """The noise the agent added to its statistics over ``rounds`` rounds (its sums minus the exact ones):
    Gram diagonal, reward vector and sqrt 2 times the Gram off-diagonal, all of std sqrt(rounds) sigma."""
    noise_g, noise_u = play_and_subtract(agent, rounds, rng)
    iu = np.triu_indices(noise_g.shape[-1], 1)
    diag = np.diagonal(noise_g, axis1=-2, axis2=-1)
    return np.concatenate([diag.ravel(), noise_u.ravel(), math.sqrt(2.0) * noise_g[:, iu[0], iu[1]].ravel()])


@pytest.mark.privacy
@pytest.mark.parametrize("name", NAMES)
def test_noise_each_agent_adds_has_the_calibrated_scale(name: str) -> None:
    """40 agents (3 reports per user, D = 4), 30 rounds each: the noise in their statistics has per-entry
    std sqrt(30) sigma (sigma from this file's own calibration); halved and doubled noise rejected."""
    rng = np.random.default_rng(1)
    samples, sigmas = [], []
    for seed in range(40):
        agent = agent_class(name)(K, 4, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0,
                                  reports_per_user=3, epsilon=0.7, batch=7) if name.startswith("shuffle") else \
            agent_class(name)(K, 4, rng=np.random.default_rng(seed), horizon=T, feature_bound=1.0,
                              reports_per_user=3, epsilon=0.7)
        noise = added_noise(agent, 30, rng)
        samples.append(noise)
        sigmas.append(np.full(noise.shape, expected_sigma(agent) * math.sqrt(30)))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(samples), np.concatenate(sigmas)))


@pytest.mark.privacy
def test_the_shuffle_agent_refits_only_at_the_end_of_a_batch() -> None:
    agent = build("shuffle-linucb", batch=25)
    rng = np.random.default_rng(2)
    thetas = []
    for _ in range(75):
        obs = observation(agent, rng)
        agent.update(obs, agent.act(obs), float(rng.uniform()))
        thetas.append(agent.theta_hat.copy())
    changes = [t for t in range(1, 75) if not np.array_equal(thetas[t], thetas[t - 1])]
    assert changes == [24, 49, 74]  # after reports 25, 50 and 75
    assert agent.published == 75 and agent.pending == 0


@pytest.mark.privacy
@pytest.mark.parametrize("name", NAMES)
def test_a_user_above_reports_per_user_is_an_error(name: str) -> None:
    agent = build(name, reports_per_user=2)
    rng = np.random.default_rng(3)
    obs = observation(agent, rng)
    agent.update(obs, 0, 0.5, user_id=7)
    agent.update(obs, 1, 0.5, user_id=7)
    agent.update(obs, 1, 0.5, user_id=8)
    with pytest.raises(ValueError, match="reports_per_user"):
        agent.update(obs, 0, 0.5, user_id=7)


@pytest.mark.privacy
def test_by_default_a_returning_user_is_several_reports_and_user_epsilon_is_inf() -> None:
    agent = build("ldp-linucb")
    obs = observation(agent, np.random.default_rng(5))
    for _ in range(3):
        agent.update(obs, 0, 0.5, user_id=1)
    assert agent.privacy.user_epsilon == math.inf and agent.privacy.max_rounds_per_user is None
    capped = build("ldp-linucb", reports_per_user=3).privacy
    assert capped.user_epsilon == capped.epsilon and capped.max_rounds_per_user == 3


@pytest.mark.privacy
def test_stated_guarantees() -> None:
    """Local: the PLD epsilon at the drawn sigma is the claim, trust model local. Shuffle: the central epsilon
    is the numerical clone bound at the drawn local epsilon, below the local epsilon of a report."""
    local = build("ldp-linucb", epsilon=0.5).privacy
    assert local.trust_model == "local" and local.holds
    assert local.epsilon == pytest.approx(0.5, rel=1e-4) and local.local_epsilon == local.epsilon
    agent = build("shuffle-linucb", epsilon=0.5, batch=400)
    shuffled = agent.privacy
    assert shuffled.trust_model == "shuffle" and shuffled.holds
    cal = agent.shuffle
    assert shuffled.local_epsilon == pytest.approx(cal.eps0, rel=1e-4) and shuffled.local_epsilon > 0.5
    assert shuffle_epsilon(shuffled.local_epsilon, 400, cal.delta_clone) <= 0.5 + 1e-6


def test_without_noise_the_local_agent_is_ridge_regression_on_its_reports() -> None:
    agent = build("ldp-linucb", noise=False)
    rng = np.random.default_rng(4)
    X, y = [], []
    for _ in range(50):
        obs = observation(agent, rng)
        a = agent.act(obs)
        r = float(rng.uniform())
        agent.update(obs, a, r)
        X.append(obs[a])
        y.append(r)
    X, y = np.array(X), np.array(y)
    ridge = np.linalg.solve(X.T @ X + agent.regularization * np.eye(D), X.T @ y)
    assert np.allclose(agent.theta_hat[0], ridge)
    assert agent.privacy is None


def test_huge_dimension_refuses_at_construction_with_the_memory() -> None:
    with pytest.raises(ValueError, match="GB"):
        agent_class("ldp-linucb-disjoint")(10, 5000, rng=np.random.default_rng(0), horizon=100)


@pytest.mark.privacy
def test_horizon_is_required_and_rows_above_the_feature_bound_are_errors() -> None:
    with pytest.raises(ValueError, match="horizon"):
        agent_class("ldp-linucb")(K, D, rng=np.random.default_rng(0))
    agent = build("ldp-linucb")
    with pytest.raises(ValueError, match="feature_bound"):
        agent.update(np.full((K, D), 2.0), 0, 0.5)


# ---------------------------------------------------------------- P_Vec and the authors' calibration
def vec_noise_in_units(agent, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """The P_Vec agent's added noise over ``rounds`` rounds, each coordinate divided by its range width
    (1 for Gram entries at L = 1, 2 for the reward vector at L = R = 1): all of std sqrt(rounds b / 4) / g."""
    noise_g, noise_u = play_and_subtract(agent, rounds, rng)
    iu = np.triu_indices(noise_g.shape[-1])
    return np.concatenate([noise_g[0][iu], noise_u[0] / 2.0])


@pytest.mark.privacy
def test_vector_sum_noise_the_agent_adds_has_the_calibrated_scale() -> None:
    """40 agents (D = 3, batch 10, 3 reports per user): b calibrated here for (epsilon/3, delta/3) at
    g = ceil(max(2 sqrt 10, 3, 4)) = 7 and 3*4/2 + 3 = 9 coordinates; the drawn noise has std
    sqrt(30 b / 4) / g per coordinate, halved and doubled rejected."""
    from dpbandit.privacy.vector_sum import calibrate_vector_sum

    b = calibrate_vector_sum(0.7 / 3, 1e-4 / 3, 10, 7, 9)
    rng = np.random.default_rng(1)
    samples = []
    for seed in range(40):
        agent = agent_class("shuffle-vec-linucb")(K, 3, rng=np.random.default_rng(seed), horizon=T,
                                                  feature_bound=1.0, reports_per_user=3, epsilon=0.7,
                                                  delta=1e-4, batch=10)
        assert agent.randomizer.trials == b
        samples.append(vec_noise_in_units(agent, 30, rng))
    sigma = math.sqrt(30 * b / 4) / 7
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(samples), sigma))


@pytest.mark.privacy
def test_vector_sum_agent_refits_per_batch_and_states_a_central_guarantee() -> None:
    agent = build("shuffle-vec-linucb", batch=25, epsilon=1.0, delta=1e-4)
    rng = np.random.default_rng(2)
    thetas = []
    for _ in range(50):
        obs = observation(agent, rng)
        agent.update(obs, agent.act(obs), float(rng.uniform()))
        thetas.append(agent.theta_hat.copy())
    assert [t for t in range(1, 50) if not np.array_equal(thetas[t], thetas[t - 1])] == [24, 49]
    g = agent.privacy
    assert g.trust_model == "shuffle" and g.holds and 0.9 < g.epsilon <= 1.0
    assert g.local_epsilon > 5 * g.epsilon  # one user's messages unshuffled: the privacy is the batch's
    with pytest.raises(ValueError, match="model=0"):
        agent_class("shuffle-vec-linucb")(K, D, rng=np.random.default_rng(0), horizon=T, batch=5).randomizer \
            .randomize(np.random.default_rng(0), np.zeros(D), 0.0, model=1)


@pytest.mark.privacy
def test_authors_calibration_is_opt_in_draws_their_noise_and_reports_their_claim_apart() -> None:
    """Default is certified. 'authors': the local report std is sqrt(ln(2.5/delta))/epsilon (8.97 at their
    eps 0.2, delta 0.1), which is what the agent draws; claimed_epsilon keeps their 0.2 while epsilon is what
    the PLD certifies for that noise at ||x|| <= 1 (below 0.2 there; 4.3 at eps 1, delta 5e-5, L = sqrt 2)."""
    assert build("ldp-linucb").calibration == "certified"
    with pytest.raises(ValueError, match="calibration"):
        build("ldp-linucb", calibration="paper")
    theirs = math.sqrt(math.log(2.5 / 1e-3)) / 0.7
    rng = np.random.default_rng(3)
    samples = []
    for seed in range(30):
        agent = build("ldp-linucb", seed, calibration="authors", epsilon=0.7, delta=1e-3)
        assert agent.randomizer.sigma == pytest.approx(theirs)
        samples.append(added_noise(agent, 20, rng))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(samples), theirs * math.sqrt(20)))
    g = agent.privacy
    assert g.claimed_epsilon == 0.7 and "authors" in g.notes and "authors" in g.mechanism
    assert g.epsilon == pytest.approx(epsilon_for(gaussian_event(theirs, report_sensitivity(1.0, 1.0)), 1e-3, "pld"))
    wide = agent_class("ldp-linucb")(K, D, rng=np.random.default_rng(0), horizon=T, feature_bound=math.sqrt(2),
                                     calibration="authors", epsilon=1.0, delta=5e-5).privacy
    assert not wide.holds and wide.epsilon > 4


@pytest.mark.privacy
def test_authors_shuffle_calibrations_are_not_certified_at_their_claim() -> None:
    """Their P_Amp noise at B = 20 (eps 0.2, delta 0.1, L = sqrt 2): the FMT21 bound certifies only ~6;
    their P_Vec count b = g^2 ln(d/delta)^2 / (eps^2 B) with p = 1/4: ~0.34 (our PLD), not 0.2."""
    kw = dict(rng=np.random.default_rng(0), horizon=20_000, feature_bound=math.sqrt(2), epsilon=0.2, delta=0.1,
              batch=20, calibration="authors")
    with pytest.warns(UserWarning, match="delta"):
        amp = agent_class("shuffle-linucb")(100, 5, **kw)
        vec = agent_class("shuffle-vec-linucb")(100, 5, **kw)
    assert amp.randomizer.sigma == pytest.approx(math.sqrt(math.log(2.5 * 20 / 0.1)) / (0.2 * math.sqrt(20)))
    assert vec.randomizer.trials == round(9**2 * math.log(5 / 0.1) ** 2 / (0.2**2 * 20)) and vec.randomizer.p == 0.25
    assert amp.privacy.claimed_epsilon == 0.2 and 5 < amp.privacy.epsilon < 7
    assert 0.3 < vec.privacy.epsilon < 0.4 and not vec.privacy.holds


@pytest.mark.privacy
@pytest.mark.parametrize("name", NAMES)
def test_centring_on_the_declared_range_clips_at_its_half_width(name: str) -> None:
    """Issue 37 item 6: under a declared range (0, 1) rewards enter as ``r - 0.5`` (the default) and the report's
    reward bound is the range's half-width 0.5, where the uncentred form needs 1: sensitivity and drawn std are
    those of ``(L, 0.5)``. Uncentred (``centring="none"``) the bound stays 1; an explicit bound wins."""
    plain, centred = build(name), build(name, reward_range=(0.0, 1.0))
    assert centred.centring.mode == "range" and centred.centring.centre == 0.5 and plain.centring.mode == "none"
    disjoint = centred.observation_model == "shared"
    assert centred.reward_bound == 0.5 and plain.reward_bound == 1.0
    assert centred.randomizer.sensitivity == pytest.approx(report_sensitivity(1.0, 0.5, disjoint=disjoint))
    assert centred.randomizer.sigma == pytest.approx(expected_sigma(centred, 0.5), rel=1e-9)
    assert centred.randomizer.sigma < 0.8 * plain.randomizer.sigma
    assert plain.randomizer.sigma == pytest.approx(expected_sigma(plain, 1.0), rel=1e-9)
    assert build(name, reward_range=(0.0, 1.0), centring="none").reward_bound == 1.0
    assert build(name, reward_range=(0.0, 1.0), reward_bound=1.0).reward_bound == 1.0
    assert build(name, reward_range=(-2.0, 4.0)).reward_bound == 3.0


@pytest.mark.privacy
@pytest.mark.parametrize("centring", ("range", "none"))
def test_every_reward_reaches_the_randomizer_within_its_bound(centring: str) -> None:
    """Brute force over rewards inside and outside the declared range (0, 1): the reward each report carries is
    ``r - c`` clipped to ``[-B, B]``, never above the bound the randomizer is calibrated for, and no reward inside
    the declared range is cut (``B`` = 0.5 centred, 1 uncentred)."""
    agent = build("ldp-linucb", reward_range=(0.0, 1.0), centring=centring, noise=False)
    centre, bound = (0.5, 0.5) if centring == "range" else (0.0, 1.0)
    assert agent.randomizer.reward_bound == bound
    rng = np.random.default_rng(11)
    for r in np.linspace(-1.5, 2.5, 81):
        obs = observation(agent, rng)
        before = agent._u_published + agent._pending_u
        agent.update(obs, 0, float(r))
        carried = (agent._u_published + agent._pending_u - before)[0] @ obs[0]
        assert carried == pytest.approx(np.clip(r - centre, -bound, bound), abs=1e-12)
        if 0.0 <= r <= 1.0:
            assert carried == pytest.approx(r - centre, abs=1e-12)


def test_centred_reports_carry_the_calibrated_noise_around_the_centred_reward() -> None:
    """``ldp-linucb`` (every agent here centres in the one ``NoisyReportUCB.update``): the noise in the sums with the exact ``(r - 0.5) x`` subtracted has the calibrated std; subtracting the
    uncentred ``r x`` instead is rejected (epsilon 50: noise small beside the centre's ``0.5 sum x``)."""
    samples, wrong, name = [], [], "ldp-linucb"
    for seed in range(15):
        agent = build(name, seed=seed, reward_range=(0.0, 1.0), epsilon=50.0)
        scale = expected_sigma(agent, 0.5) * math.sqrt(40)
        samples.append(play_and_subtract(agent, 40, np.random.default_rng(seed + 100), centre=0.5)[1].ravel() / scale)
        fresh = build(name, seed=seed, reward_range=(0.0, 1.0), epsilon=50.0)
        wrong.append(play_and_subtract(fresh, 40, np.random.default_rng(seed + 100))[1].ravel() / scale)
    units, off = np.concatenate(samples), np.concatenate(wrong)
    assert only_stated_scale_fits(gaussian_scale_pvalues(units, np.ones_like(units)))
    assert not only_stated_scale_fits(gaussian_scale_pvalues(off, np.ones_like(off)))


def test_centring_is_refused_where_it_would_change_the_report() -> None:
    with pytest.raises(ValueError, match="intercept"):
        build("ldp-linucb", reward_range=(0.0, 1.0), centring="intercept")
    with pytest.raises(ValueError, match="reward_range"):
        build("shuffle-linucb", centring="range")
    assert build("ldp-linucb", reward_range=(0.0, 1.0), centring="none").centring.centre == 0.0
