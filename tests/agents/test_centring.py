"""One centring / intercept rule for the linear-UCB family (issue 40 item 4): validation, what the ridge fits,
the compiled path, and the constant feature."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.centring import RewardCentring

REFERENCES = ("linucb", "greedy", "linucb-diag", "shared-linucb", "oful")


def test_rule_validates_its_inputs_and_names_them() -> None:
    with pytest.raises(ValueError, match="centring"):
        RewardCentring.make("middle", (0.0, 1.0))
    with pytest.raises(ValueError, match="reward_range"):
        RewardCentring.make("range", None)
    with pytest.raises(ValueError, match="reward_range"):
        RewardCentring.make("range", (1.0, 0.0))
    assert RewardCentring.make("range", (0.0, 2.0)).centre == 1.0
    assert RewardCentring.make("none", (0.0, 2.0)).centre == 0.0
    rule = RewardCentring.make("intercept", None)
    assert rule.centre == 0.0 and rule.feature_dim(3) == 4
    assert np.array_equal(rule.features(np.zeros((2, 5, 3)))[..., -1], np.ones((2, 5)))


def _observation(agent, rng):
    return rng.normal(size=(agent.n_arms, agent.dim) if agent.observation_model == "per_arm" else agent.dim)


@pytest.mark.parametrize("name", REFERENCES)
def test_references_default_to_the_published_form_and_fit_centred_rewards_on_request(name: str) -> None:
    """Default: rewards as they come, even under a declared range. ``range``: the ridge statistics are those
    of ``r - 0.5`` exactly (the uncentred agent fed ``r - 0.5`` plays and fits the same)."""
    cls = agent_class(name)
    assert cls(3, 2, rng=np.random.default_rng(0), reward_range=(0.0, 1.0)).centring.mode == "none"
    centred = cls(3, 2, rng=np.random.default_rng(0), reward_range=(0.0, 1.0), centring="range")
    shifted = cls(3, 2, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(60):
        x = _observation(centred, rng)
        a, b = centred.act(x), shifted.act(x)
        assert a == b
        r = float(rng.random() < 0.5)
        centred.update(x, a, r)
        shifted.update(x, b, r - 0.5)
    assert np.allclose(centred.theta_hat, shifted.theta_hat)


@pytest.mark.parametrize("name", REFERENCES)
def test_an_intercept_is_a_constant_feature(name: str) -> None:
    """``intercept``: each model has ``dim + 1`` coefficients, the last on a constant 1; an agent built on
    contexts with a 1 appended (and rewards centred at the midpoint) fits the same."""
    cls = agent_class(name)
    agent = cls(3, 2, rng=np.random.default_rng(0), reward_range=(0.0, 1.0), centring="intercept")
    widened = cls(3, 3, rng=np.random.default_rng(0))
    assert agent.theta_hat.shape[-1] == 3
    rng = np.random.default_rng(2)
    for _ in range(60):
        x = _observation(agent, rng)
        w = np.concatenate([x, np.ones((*x.shape[:-1], 1))], axis=-1)
        a = agent.act(x)
        assert a == widened.act(w)
        r = float(rng.random() < 0.3)
        agent.update(x, a, r)
        widened.update(w, a, r - 0.5)
    assert np.allclose(agent.theta_hat, widened.theta_hat)


@pytest.mark.parametrize("centring", ("range", "intercept"))
def test_compiled_block_path_matches_the_round_loop(centring: str) -> None:
    rng = np.random.default_rng(3)
    X, R = rng.normal(size=(300, 4)), (rng.random((300, 3)) < 0.4).astype(float)
    actions = [agent_class("linucb")(3, 4, rng=np.random.default_rng(9), reward_range=(0.0, 1.0),
                                     centring=centring).play_block(X, R, compiled=compiled)
               for compiled in (True, False)]
    assert np.array_equal(*actions)
