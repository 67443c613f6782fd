"""Joint laws of the noise (issue 39 item 2): coordinates and blocks promised independent noise.

The marginal tests (tests/privacy/test_local.py, test_vector_sum.py, tests/agents/test_trust_agents.py) check
each coordinate's own law. A mechanism that draws one number and gives it to several coordinates (or to every
arm block of a disjoint report) keeps every marginal right, but the differences between those coordinates are
then exact and epsilon is infinite. Here the noise each object draws through its public API is standardised
coordinate by coordinate and every pair must be uncorrelated: with ``N`` draws a correlation has standard
deviation ``1/sqrt(N)``, the threshold is 6 of them (Bonferroni-safe over the pairs tested: a false alarm
needs a 6-sigma event; the seeds are fixed), while a shared draw gives 1 and the helper's own check plants a
correlation of 0.99 and sees it. Where blocks are the unit (the arm blocks of a disjoint report), the
difference of two blocks must also carry ``sqrt(2) sigma`` (halved and doubled rejected).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits
from dpbandit.privacy.local import LocalGaussianRandomizer
from dpbandit.privacy.vector_sum import VectorSumRandomizer

pytestmark = pytest.mark.privacy

SIGMAS = 6.0  # correlation threshold, in standard deviations 1/sqrt(N) of a correlation of independent draws


def assert_uncorrelated(draws: np.ndarray, where: str) -> None:
    """Every pair of columns of ``draws`` (N draws x coordinates) uncorrelated within ``SIGMAS / sqrt(N)``."""
    n = draws.shape[0]
    assert np.all(draws.std(axis=0) > 0), f"{where}: a coordinate carries no noise"
    corr = np.corrcoef(draws, rowvar=False)
    off = np.abs(corr - np.diag(np.diag(corr)))
    worst = np.unravel_index(np.argmax(off), off.shape)
    assert off[worst] < SIGMAS / math.sqrt(n), (
        f"{where}: coordinates {worst} share noise (correlation {corr[worst]:.3f}, threshold "
        f"{SIGMAS / math.sqrt(n):.3f})"
    )


def test_the_check_sees_a_correlation_of_0_99() -> None:
    """The helper has power: two coordinates at correlation 0.99 (right marginals) fail it, and so does a draw
    shared by every coordinate; independent draws pass."""
    rng = np.random.default_rng(0)
    z = rng.standard_normal((2000, 6))
    assert_uncorrelated(z, "independent")
    mixed = z.copy()
    mixed[:, 3] = 0.99 * z[:, 0] + math.sqrt(1 - 0.99**2) * z[:, 3]
    with pytest.raises(AssertionError, match="share noise"):
        assert_uncorrelated(mixed, "0.99")
    with pytest.raises(AssertionError, match="share noise"):
        assert_uncorrelated(np.repeat(z[:, :1], 6, axis=1), "one draw")


def _local_noise(models: int, draws: int, seed: int
                 ) -> tuple[LocalGaussianRandomizer, np.ndarray, np.ndarray]:
    """``draws`` reports of x = 0, r = 0 (pure noise) through ``randomize``: Gram ``(N, models, d, d)``,
    vector ``(N, models, d)``."""
    rand = LocalGaussianRandomizer(dim=3, feature_bound=1.0, reward_bound=1.0, epsilon=1.0, delta=1e-4,
                                   models=models)
    rng = np.random.default_rng(seed)
    reports = [rand.randomize(rng, np.zeros(3), 0.0, model=models - 1) for _ in range(draws)]
    return rand, np.stack([g for g, _ in reports]), np.stack([u for _, u in reports])


def _coordinates(gram: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """The free coordinates of a report, one row per draw: upper triangle (with the diagonal) of every block's
    Gram, then every block's vector."""
    iu = np.triu_indices(gram.shape[-1])
    return np.concatenate([gram[..., iu[0], iu[1]].reshape(len(gram), -1), vec.reshape(len(vec), -1)], axis=1)


@pytest.mark.parametrize("models", [1, 3])
def test_coordinates_of_one_local_report_are_independent(models: int) -> None:
    """(x x^T, x r) gets one isotropic Gaussian in Frobenius geometry: every free coordinate of every block
    its own draw (the Gram's lower triangle mirrors the upper one, nothing else repeats)."""
    _, gram, vec = _local_noise(models, 1500, 1)
    assert np.array_equal(gram, np.swapaxes(gram, -1, -2))
    assert_uncorrelated(_coordinates(gram, vec), f"local report, {models} model(s)")


def test_arm_blocks_of_a_disjoint_local_report_are_independent_and_their_difference_has_sqrt2_sigma() -> None:
    """Disjoint form (3 arm blocks): the blocks carry independent noise, so the difference of two blocks'
    vector entries and Gram diagonals has std sqrt(2) sigma (0 if one draw served every block), the
    off-diagonal Gram entries' difference sigma (each sigma / sqrt 2)."""
    rand, gram, vec = _local_noise(3, 1500, 2)
    sigma = rand.sigma
    iu = np.triu_indices(3, 1)
    for a, b in ((0, 1), (1, 2), (0, 2)):
        diff_vec = vec[:, a] - vec[:, b]
        diff_diag = np.diagonal(gram[:, a] - gram[:, b], axis1=-2, axis2=-1)
        diff_off = (gram[:, a] - gram[:, b])[:, iu[0], iu[1]]
        assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate([diff_vec, diff_diag], axis=None),
                                                             math.sqrt(2.0) * sigma)), (a, b)
        assert only_stated_scale_fits(gaussian_scale_pvalues(diff_off, sigma)), (a, b)


def test_coordinates_of_one_vector_sum_report_are_independent() -> None:
    """P_Vec: each of the m = d(d+1)/2 + d coordinates gets its own Bin(b, p) (and rounding coin). At x = 0
    and g even every coordinate's scaled value is an integer (no rounding), so the report's deviation is the
    binomial noise alone: uncorrelated across coordinates, each of std width / g sqrt(b p (1 - p))."""
    rand = VectorSumRandomizer(3, 1.0, 1.0, batch=10, levels=8, trials=40)
    rng = np.random.default_rng(3)
    reports = [rand.randomize(rng, np.zeros(3), 0.0) for _ in range(2000)]
    coords = _coordinates(np.stack([g for g, _ in reports]), np.stack([u for _, u in reports]))
    assert coords.shape[1] == rand.coordinates
    _, width = rand.ranges()
    sd = width / rand.levels * math.sqrt(rand.trials * rand.p * (1 - rand.p))
    assert only_stated_scale_fits(gaussian_scale_pvalues(coords - coords.mean(axis=0), sd))
    assert_uncorrelated(coords, "P_Vec report")


def _batch_sum_noise(name: str, batches: int, **options) -> np.ndarray:
    """One agent plays ``batches`` shuffled batches (D = 2, K = 3); per batch, the published sums minus the
    exact ones: the batch sum's noise, free coordinates of every model's block, one row per batch."""
    K, D = 3, 2
    agent = agent_class(name)(K, D, rng=np.random.default_rng(4), horizon=10_000, feature_bound=1.0,
                              epsilon=1.0, delta=1e-5, **options)
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(batches):
        before_g, before_u = agent.gram.copy(), agent._u_published.copy()
        exact_g, exact_u = np.zeros_like(before_g), np.zeros_like(before_u)
        for _ in range(agent.batch):
            obs = rng.normal(size=(K, D) if agent.observation_model == "per_arm" else D)
            obs /= np.linalg.norm(obs, axis=-1, keepdims=True)
            action = int(rng.integers(K))
            reward = float(rng.uniform(-1, 1))
            agent.update(obs, action, reward)
            f = obs[action] if agent.observation_model == "per_arm" else obs
            exact_g[agent._model_of(action)] += np.outer(f, f)
            exact_u[agent._model_of(action)] += reward * f
        assert agent.pending == 0
        rows.append(_coordinates(agent.gram - before_g - exact_g, agent._u_published - before_u - exact_u)[0])
    return np.array(rows)


@pytest.mark.parametrize(("name", "options"), [("shuffle-linucb-disjoint", {"batch": 4}),
                                               ("shuffle-vec-linucb", {"batch": 4})])
def test_coordinates_of_a_batch_sum_are_independent(name: str, options: dict) -> None:
    """The sum of a shuffled batch's reports (what the server publishes): independent across coordinates and
    arm blocks, whatever the users played."""
    assert_uncorrelated(_batch_sum_noise(name, 1500, **options), name)
