"""Inputs that used to pass silently or crash obscurely (issue 24 item 5): each is an error or a warning
naming the parameter, before any round is played; and the default delta of our agents (issue 24 item 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpbandit.agents import agent_class
from dpbandit.agents.batched.fliphat import FLIPHAT, FLIPHATDisjoint
from dpbandit.agents.batched.frankwolfe import BatchedDPHDB
from dpbandit.agents.batched.peeling import BatchedPeeling, BatchedPeelingPerArm
from dpbandit.agents.batched.ridge import BatchedRidge, BatchedRidgePerArm
from dpbandit.agents.batched.screening import BatchedScreening, BatchedScreeningPerArm
from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb import DPUCB
from dpbandit.agents.dpucb_disjoint import DisjointDPUCB
from dpbandit.agents.linear import play_loop
from dpbandit.privacy.budget import default_delta

BATCHED = [BatchedScreening, BatchedScreeningPerArm, BatchedRidge, BatchedRidgePerArm, BatchedPeeling,
           BatchedPeelingPerArm, FLIPHAT, FLIPHATDisjoint, BatchedDPHDB]


def _make(cls, **kwargs):
    return cls(2, 4, rng=np.random.default_rng(0), **kwargs)


# -- a horizon shorter than the first batch ------------------------------------------------------------------
@pytest.mark.parametrize("cls", BATCHED)
def test_horizon_shorter_than_the_first_batch_is_an_error_naming_both(cls) -> None:
    with pytest.raises(ValueError, match=r"horizon=7 >= first_batch=8: .*never release"):
        _make(cls, horizon=7, first_batch=8)
    assert _make(cls, horizon=8, first_batch=8, noise=False).schedule.first == 8  # one whole batch is fine


def test_the_default_first_batch_is_checked_too() -> None:
    with pytest.raises(ValueError, match="horizon=20 >= first_batch=32"):
        agent_class("batched-screening")(2, 4, rng=np.random.default_rng(0), horizon=20)


# -- NaN contexts --------------------------------------------------------------------------------------------
SHARED_FAST = ["dphdb", "dpucb-disjoint", "linucb", "greedy", "dphdb-authors-code", "batched-screening"]


@pytest.mark.parametrize("name", SHARED_FAST)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_contexts_are_rejected_on_every_path(name: str, bad: float) -> None:
    cls = agent_class(name)
    X = np.full((40, 4), 0.1)
    X[37, 2] = bad
    R = np.zeros((40, 2))
    options = {"feature_bound": 2.0} if name == "dpucb-disjoint" else {}
    for compiled in (True, False):
        agent = cls(2, 4, rng=np.random.default_rng(0), horizon=100, **options)
        kwargs = {} if name in ("dphdb-authors-code", "batched-screening") else {"compiled": compiled}
        with pytest.raises(ValueError, match="observation"):
            agent.play_block(X, R, **kwargs)
    agent = cls(2, 4, rng=np.random.default_rng(0), horizon=100, **options)
    with pytest.raises(ValueError, match="observation"):
        agent.act(X[37])


def test_dphdb_compiled_path_rejects_nan_before_playing_any_round() -> None:
    agent = DPHDB(2, 4, rng=np.random.default_rng(0), horizon=100, warmup=2)
    X = np.full((10, 4), 0.1)
    X[9, 0] = np.nan
    before = agent.rng.bit_generator.state
    with pytest.raises(ValueError, match="observations to be finite, got nan at flat index 36"):
        agent.play_block(X, np.zeros((10, 2)))
    assert agent.round == 0 and agent.rng.bit_generator.state == before
    with pytest.raises(ValueError, match="rewards to be finite"):
        agent.play_block(np.full((3, 4), 0.1), np.array([[0.0, np.nan]] * 3))


# -- tiny and huge budgets -----------------------------------------------------------------------------------
@pytest.mark.privacy
def test_dphdb_tiny_epsilon_is_an_error_naming_epsilon_and_a_bound() -> None:
    """``dpbandit run --agents dphdb --epsilon 1e-9 --horizon 100`` crashed inside numba (t0 ~ 1e19 overflowed
    int64); the accountant cannot state a guarantee at that budget, so it is now an error before any round."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warm-up warning
        with pytest.raises(ValueError, match=r"larger epsilon=1e-09 for DPHDB.*use epsilon >= 1e-08"):
            DPHDB(2, 5, rng=np.random.default_rng(0), horizon=100, epsilon=1e-9)


def test_dphdb_warm_up_filling_the_horizon_warns_and_runs_identically_on_both_paths() -> None:
    """A t0 beyond int64 (explicit here) plays on the compiled path as on the numpy path."""
    with pytest.warns(UserWarning, match=r"warmup=10{20} rounds per arm; pass warmup < 50"):
        a = DPHDB(2, 5, rng=np.random.default_rng(1), horizon=100, warmup=10**20)
    with pytest.warns(UserWarning, match=r"epsilon=0\.01; the greedy phase starts before T=100 only"):
        DPHDB(2, 5, rng=np.random.default_rng(1), horizon=100, epsilon=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = DPHDB(2, 5, rng=np.random.default_rng(1), horizon=100, warmup=10**20)
    X = np.random.default_rng(2).uniform(-1, 1, (100, 5))
    R = np.random.default_rng(3).normal(size=(100, 2))
    compiled, stepped = a.play_block(X, R), play_loop(b, X, R)
    np.testing.assert_array_equal(compiled, stepped)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert set(compiled) == {0}  # forced sampling of arm 0 for the whole horizon


@pytest.mark.privacy
def test_accountant_calibrated_agents_reject_an_unresolvable_epsilon_before_any_round() -> None:
    with pytest.raises(ValueError, match=r"larger epsilon=0\.001 for BatchedPeeling.*use epsilon >= 0\.01"):
        BatchedPeeling(2, 50, rng=np.random.default_rng(0), horizon=10_000, epsilon=1e-3)
    with pytest.raises(ValueError, match=r"larger epsilon=1e-09 for DisjointDPUCB"):
        DisjointDPUCB(2, 4, rng=np.random.default_rng(0), horizon=100, epsilon=1e-9, calibration="accountant")
    # a resolvable small budget still runs and reports its accountant epsilon
    agent = DPHDB(2, 5, rng=np.random.default_rng(0), horizon=100, epsilon=1e-6, warmup=3)
    assert agent.privacy.epsilon == pytest.approx(1e-6, rel=1e-3)


# -- delta ---------------------------------------------------------------------------------------------------
@pytest.mark.privacy
def test_default_delta_is_below_one_over_the_number_of_users() -> None:
    assert default_delta(100) == 1e-5 and default_delta(10_000) == 1e-5 and default_delta(10**5) == 1e-6
    for T in (2, 100, 10**4, 10**6):
        assert default_delta(T) < 1 / T
    with pytest.raises(ValueError, match="users"):
        default_delta(0)


@pytest.mark.privacy
@pytest.mark.parametrize("cls", BATCHED)
def test_batched_agents_use_the_shared_default_and_warn_above_one_over_T(cls) -> None:
    """(``noise=False`` skips the calibration, not the delta; the default is checked calibrated as well.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default never warns
        assert _make(cls, horizon=10**5, noise=False).delta == default_delta(10**5) == 1e-6
        assert _make(cls, horizon=1_000).delta == 1e-5 == _make(cls, horizon=1_000).privacy.claimed_delta
        assert _make(cls, horizon=100, delta=1 / 100, noise=False).delta == 0.01  # 1/T exactly: no warning
    with pytest.warns(UserWarning, match=r"delta=0\.02 > 1/\(number of users\) = 1/100 .*about 2 of the 100"):
        _make(cls, horizon=100, delta=0.02, noise=False)
    with pytest.raises(ValueError, match="horizon=T .*or an explicit delta"):
        _make(cls)
    with pytest.raises(ValueError, match="delta"):
        _make(cls, horizon=100, delta=1.0)


@pytest.mark.privacy
@pytest.mark.parametrize(("cls", "options"), [(DPHDB, {"warmup": 3}), (DPUCB, {}), (DisjointDPUCB, {})])
def test_faithful_agents_keep_their_papers_delta_and_warn_above_one_over_T(cls, options) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cls(2, 4, rng=np.random.default_rng(0), horizon=100, **options).delta == 1 / 100
    with pytest.warns(UserWarning, match="delta=0.05 > 1/"):
        cls(2, 4, rng=np.random.default_rng(0), horizon=100, delta=0.05, **options)
