"""AR(1)-correlated Gaussian contexts and FLIPHAT-style parameters (context_correlation, theta_support,
theta_values="uniform-signs", theta_norm=None, theta_seed)."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.envs import GLMBanditEnv
from dpbandit.envs.params import ar1_filter, lp_norm, sample_parameters


def _sigma(dim: int, rho: float) -> np.ndarray:
    index = np.arange(dim)
    return rho ** np.abs(index[:, None] - index[None, :])


@pytest.mark.parametrize("rho", [0.1, 0.6, -0.4])
def test_ar1_filter_is_the_cholesky_factor_of_the_ar1_covariance(rho: float) -> None:
    """x = L z with L = chol(Sigma), Sigma_ij = rho^|i-j| (an independent dense reference)."""
    z = np.random.default_rng(0).standard_normal((7, 3, 12))
    expected = z @ np.linalg.cholesky(_sigma(12, rho)).T
    np.testing.assert_allclose(ar1_filter(z, rho), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("context_model", ["shared", "per_arm"])
def test_contexts_have_the_ar1_covariance(context_model: str) -> None:
    env = GLMBanditEnv(3, 6, 40_000, context_model=context_model, context_correlation=0.5,
                       context_norm=None, context_std=2.0)
    env.reset(seed=0)
    x = env.draw_rounds(40_000).observations.reshape(-1, 6)
    # 40k (x 3 arms) draws: the standard error of a covariance entry is about 4 * 1.25 / 200 < 0.03
    np.testing.assert_allclose(np.cov(x.T), 4.0 * _sigma(6, 0.5), atol=0.1)
    if context_model == "per_arm":  # the arms' rows are independent
        env.reset(seed=1)
        obs = env.draw_rounds(40_000).observations
        assert abs(np.corrcoef(obs[:, 0, 0], obs[:, 1, 0])[0, 1]) < 0.03


def test_correlation_is_applied_before_the_normalisation() -> None:
    common = dict(context_correlation=0.3, context_std=1.0)
    raw = GLMBanditEnv(2, 8, 50, context_norm=None, **common)
    normed = GLMBanditEnv(2, 8, 50, context_norm=2.0, **common)
    raw.reset(seed=4)
    normed.reset(seed=4)
    x = raw.draw_rounds(50).observations
    y = normed.draw_rounds(50).observations
    np.testing.assert_allclose(y, x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(lp_norm(y, 2.0), 1.0)


@pytest.mark.parametrize("chunk_rounds", [1, 7, 64])
def test_correlated_draws_do_not_depend_on_the_chunking(chunk_rounds: int) -> None:
    options = dict(context_model="per_arm", context_correlation=0.1, context_norm=None)
    whole = GLMBanditEnv(3, 40, 100, chunk_rounds=100, **options)
    chunked = GLMBanditEnv(3, 40, 100, chunk_rounds=chunk_rounds, **options)
    whole.reset(seed=9)
    chunked.reset(seed=9)
    a = whole.draw_rounds(100)
    b = chunked.draw_rounds(60)
    c = chunked.draw_rounds(40)
    np.testing.assert_array_equal(a.observations, np.concatenate([b.observations, c.observations]))
    np.testing.assert_array_equal(a.rewards, np.concatenate([b.rewards, c.rewards]))


def test_zero_correlation_leaves_the_draws_unchanged() -> None:
    a, b = GLMBanditEnv(2, 5, 20), GLMBanditEnv(2, 5, 20, context_correlation=0.0)
    np.testing.assert_array_equal(a.reset(seed=3)[0], b.reset(seed=3)[0])


def test_fliphat_parameter_first_support_uniform_signs_unnormalised() -> None:
    theta = sample_parameters(np.random.default_rng(0), 2, 50, sparsity=5, values="uniform-signs",
                              support="first", norm=None)
    assert np.all(theta[:, 5:] == 0)
    magnitude = np.abs(theta[:, :5])
    assert np.all((magnitude >= 0.5) & (magnitude <= 1.0))
    signs = np.sign(sample_parameters(np.random.default_rng(1), 4000, 10, sparsity=5,
                                      values="uniform-signs", support="first", norm=None)[:, :5])
    assert abs(signs.mean()) < 0.03  # fair signs: 20k draws, standard error 0.007


def test_theta_seed_shares_one_parameter_across_replicates_and_dimensions() -> None:
    options = dict(context_model="per_arm", sparsity=5, theta_values="uniform-signs", theta_support="first",
                   theta_norm=None, theta_seed=20)
    small, large = GLMBanditEnv(3, 400, 5, **options), GLMBanditEnv(3, 4000, 5, **options)
    small.reset(seed=0)
    first = small.theta
    small.reset(seed=1)
    np.testing.assert_array_equal(small.theta, first)
    large.reset(seed=2)
    np.testing.assert_array_equal(large.theta[:5], first[:5])
    expected = sample_parameters(np.random.default_rng(20), 1, 400, sparsity=5, values="uniform-signs",
                                 support="first", norm=None)[0]
    np.testing.assert_array_equal(first, expected)
    # the contexts still differ between seeds
    assert not np.array_equal(small.reset(seed=0)[0], small.reset(seed=1)[0])


@pytest.mark.parametrize(
    ("options", "exc", "name"),
    [
        (dict(context_correlation=1.0), ValueError, "context_correlation"),
        (dict(context_correlation=-1.5), ValueError, "context_correlation"),
        (dict(context_correlation=float("nan")), ValueError, "context_correlation"),
        (dict(context_correlation=0.2, contexts="uniform"), ValueError, "context_correlation"),
        (dict(theta_support="last"), ValueError, "theta_support"),
        (dict(theta_values="uniform"), ValueError, "theta_values"),
        (dict(theta_seed=-1), ValueError, "theta_seed"),
        (dict(theta_seed=1.5), TypeError, "theta_seed"),
    ],
)
def test_bad_options_name_the_parameter(options: dict, exc: type, name: str) -> None:
    with pytest.raises(exc, match=name):
        GLMBanditEnv(2, 4, 10, **options)


def test_docs_fliphat_setting_example_runs() -> None:
    import re
    from pathlib import Path

    import gymnasium as gym

    doc = (Path(__file__).resolve().parents[2] / "docs" / "envs.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", doc, flags=re.S) if "context_correlation" in b)
    namespace: dict = {"gym": gym}
    exec(compile(block, "docs/envs.md", "exec"), namespace)
    obs, _ = namespace["env"].reset(seed=0)
    assert obs.shape == (3, 400)
    theta = namespace["env"].unwrapped.theta
    assert np.count_nonzero(theta) == 5 and np.all(theta[5:] == 0)
