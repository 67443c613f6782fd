"""Must show 3: every public constructor / function rejects bad parameters and names the parameter."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit import privacy as P

pytestmark = pytest.mark.privacy

RNG = np.random.default_rng(0)
S = np.zeros((2, 3))

CASES = [
    # (callable, kwargs, name of the wrong parameter)
    (P.gaussian, dict(rng=RNG, sigma=0.0, size=3), "sigma"),
    (P.gaussian, dict(rng=None, sigma=1.0, size=3), "rng"),
    (P.gaussian, dict(rng=RNG, sigma=1.0, size=(2, -1)), "size"),
    (P.laplace, dict(rng=RNG, scale=-1.0, size=3), "scale"),
    (P.symmetric_gaussian, dict(rng=RNG, sigma=float("nan"), dim=2), "sigma"),
    (P.symmetric_gaussian, dict(rng=RNG, sigma=1.0, dim=0), "dim"),
    (P.generalized_gaussian, dict(rng=RNG, sigma=-2.0, dim=3, r=2.0), "sigma"),
    (P.generalized_gaussian, dict(rng=RNG, sigma=1.0, dim=0, r=2.0), "dim"),
    (P.generalized_gaussian, dict(rng=RNG, sigma=1.0, dim=3, r=0.5), "r"),
    (P.smooth_norm, dict(q=0.9, dim=3), "q"),
    (P.smooth_norm, dict(q=2.0, dim=0), "dim"),
    (P.dual_index, dict(p=0.0), "p"),
    (P.smooth_norm(2.0, 3).sample, dict(rng=RNG, sigma=0.0), "sigma"),
    (P.TreeAggregator, dict(shape=(0,), noise=None, rng=RNG), "shape"),
    (P.TreeAggregator, dict(shape=(2,), noise=None, rng=RNG, horizon=0), "horizon"),
    (P.TreeAggregator, dict(shape=(2,), noise=1.0, rng=RNG), "noise"),
    (P.TreeAggregator, dict(shape=(2,), noise=None, rng=42), "rng"),
    (P.gaussian_tree, dict(shape=(2,), sigma=0.0, rng=RNG, horizon=4), "sigma"),
    (P.gaussian_tree, dict(shape=(2, 3), sigma=1.0, rng=RNG, horizon=4, symmetric=True), "shape"),
    (P.nodes_in_prefix, dict(t=0), "t"),
    (P.binary_tree_matrix, dict(horizon=0), "horizon"),
    (P.report_noisy_max, dict(rng=RNG, scores=S, scale=0.0), "scale"),
    (P.report_noisy_min, dict(rng=RNG, scores=np.zeros((2, 0)), scale=1.0), "scores"),
    (P.exponential_mechanism, dict(rng=RNG, scores=S, epsilon=0.0, sensitivity=1.0), "epsilon"),
    (P.exponential_mechanism, dict(rng=RNG, scores=S, epsilon=1.0, sensitivity=-1.0), "sensitivity"),
    (P.rnm_epsilon, dict(scale=1.0, sensitivity=0.0), "sensitivity"),
    (P.gaussian_event, dict(sigma=0.0), "sigma"),
    (P.gaussian_event, dict(sigma=1.0, count=0), "count"),
    (P.laplace_event, dict(scale=1.0, sensitivity=0.0), "sensitivity"),
    (P.pure_dp_event, dict(epsilon=-1.0), "epsilon"),
    (P.tree_aggregation_event, dict(noise_multiplier=0.0, steps=4), "noise_multiplier"),
    (P.tree_aggregation_event, dict(noise_multiplier=1.0, steps=0), "steps"),
    (P.zcdp_event, dict(rho=0.0), "rho"),
    (P.make_accountant, dict(accountant="moments"), "accountant"),
    (P.epsilon_for, dict(event=P.gaussian_event(1.0), delta=1.0), "delta"),
    (P.epsilon_for, dict(event=P.gaussian_event(1.0), delta=0.0), "delta"),
    (P.gaussian_sigma, dict(epsilon=0.0, delta=1e-5), "epsilon"),
    (P.gaussian_sigma, dict(epsilon=1.0, delta=1.5), "delta"),
    (P.gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=0.0), "sensitivity"),
    (P.tree_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, steps=0), "steps"),
    (P.gaussian_sigma_zcdp, dict(rho=-0.1), "rho"),
    (P.zcdp_to_epsilon, dict(rho=0.5, delta=-1e-5), "delta"),
    (P.epsilon_to_zcdp, dict(epsilon=float("inf"), delta=1e-5), "epsilon"),
    (P.generalized_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=1.0, kappa=0.0), "kappa"),
    (P.PrivacyGuarantee, dict(mechanism="m", claimed_epsilon=0.0, claimed_delta=1e-5, epsilon=1.0,
                              relation="r", accountant="rdp"), "claimed_epsilon"),
    (P.PrivacyGuarantee, dict(mechanism="m", claimed_epsilon=1.0, claimed_delta=1.0, epsilon=1.0,
                              relation="r", accountant="rdp"), "claimed_delta"),
]


@pytest.mark.parametrize("fn,kwargs,name", CASES, ids=[f"{c[0].__name__ if hasattr(c[0], '__name__') else c[0]}-{c[2]}" for c in CASES])
def test_bad_parameter_is_named(fn, kwargs, name: str) -> None:
    with pytest.raises((ValueError, TypeError), match=name.replace("[", r"\[")):
        fn(**kwargs)
