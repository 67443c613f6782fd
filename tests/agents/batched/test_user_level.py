"""Returning users (issue 24 item 4): user ids, ``max_rounds_per_user`` and the user-level epsilon of the
batched agents, with the noise they draw."""

from __future__ import annotations

import functools
import math
import warnings

import dp_accounting
import numpy as np
import pytest

from batched_helpers import Recorder, assert_scale, statistics
from dpbandit.agents.batched.fliphat import FLIPHAT, FLIPHATDisjoint
from dpbandit.agents.batched.frankwolfe import BatchedDPHDB
from dpbandit.agents.batched.peeling import BatchedPeeling, BatchedPeelingPerArm
from dpbandit.agents.batched.ridge import BatchedRidge, BatchedRidgePerArm
from dpbandit.agents.batched.screening import BatchedScreening, BatchedScreeningPerArm

K, D, T = 3, 5, 600
CAPPED = (BatchedScreening, BatchedScreeningPerArm, BatchedRidge, BatchedRidgePerArm, BatchedPeeling,
          BatchedPeelingPerArm, BatchedDPHDB)
EXTRA = {BatchedPeeling: {"select": 2}, BatchedPeelingPerArm: {"select": 2}}


def _stream(cls, seed: int = 0, people: int = 150, T: int = T):
    """Contexts of the agent's shape, every arm's reward, and user ids with many returning people."""
    rng = np.random.default_rng(seed)
    shape = (T, D) if cls.observation_model == "shared" else (T, K, D)
    return rng.normal(size=shape), rng.normal(size=(T, K)), rng.integers(0, people, size=T)


def _agent(cls, seed: int = 1, **kwargs):
    kwargs = {**EXTRA.get(cls, {}), **kwargs}
    return cls(K, D, rng=np.random.default_rng(seed), horizon=T, first_batch=16, **kwargs)


@functools.lru_cache(maxsize=32)
def _pld(z: float, delta: float) -> float:
    """dp-accounting's PLD epsilon of one Gaussian mechanism of noise multiplier z (typed out, no helper)."""
    acc = dp_accounting.pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
    return float(acc.compose(dp_accounting.GaussianDpEvent(z)).get_epsilon(delta))


def _expected_learned(ids: np.ndarray, m: int) -> np.ndarray:
    """Round t is learned iff fewer than m earlier rounds belong to its person (a plain loop)."""
    seen: dict[int, int] = {}
    out = np.zeros(len(ids), dtype=bool)
    for t, u in enumerate(ids.tolist()):
        out[t] = seen.get(u, 0) < m
        seen[u] = seen.get(u, 0) + 1
    return out


# -- the user-level epsilon, from the drawn noise ------------------------------------------------------------
@pytest.mark.parametrize("cls", [BatchedScreening, BatchedRidgePerArm])
def test_gaussian_user_epsilon_is_the_gaussian_at_z_over_m_of_the_drawn_noise(cls) -> None:
    """The noise drawn per unit of block sensitivity has std z (chi-square, halved/doubled rejected); the
    user-level epsilon is the exact curve of GaussianDpEvent(z / m) (dp-accounting's PLD epsilon to 1e-6), and differs from m - 1, m + 1
    and from z not divided by m; epsilon recomputed from the drawn std agrees."""
    m = 2
    X, R, ids = _stream(cls)
    agent = _agent(cls, max_rounds_per_user=m)
    rec = Recorder(agent)
    agent.play_block(X, R, user_ids=ids)
    share = dict(agent.release.shares)
    unit = np.concatenate([np.ravel(out[b] - values[b]) * math.sqrt(share[b]) / sens[b]
                           for values, sens, out, _, _ in rec.calls for b in share])
    z = agent.release.multiplier
    assert_scale(unit, z, "stacked release")
    g = agent.privacy
    assert g.max_rounds_per_user == m and g.epsilon == pytest.approx(1.0, abs=1e-3)
    # the exact Gaussian curve, which dp-accounting's PLD discretises (rounding up by at most 1e-6 here)
    assert _pld(z / m, agent.delta) * (1 - 1e-6) <= g.user_epsilon <= _pld(z / m, agent.delta) * (1 + 1e-12)
    for wrong in (_pld(z / (m - 1), agent.delta), _pld(z / (m + 1), agent.delta),
                  _pld(z / math.sqrt(m), agent.delta)):
        assert abs(g.user_epsilon - wrong) > 0.05 * g.user_epsilon
    z_hat = math.sqrt(float(np.mean(unit**2)))
    assert _pld(z_hat / m, agent.delta) == pytest.approx(g.user_epsilon, rel=0.15)
    assert "user level: epsilon=" in str(g) and f"up to {m} rounds" in str(g)


def test_group_shift_of_the_rescaled_release_reaches_k_and_not_more() -> None:
    """Why z / m: k rounds of one person in a batch move the rescaled stacked statistic of screening by up to
    k (brute force over random neighbours never exceeds k; same arm and opposite rewards at the clip move the
    sums block by k sensitivities), so a multiplier not divided by m would understate the user's loss."""
    agent = _agent(BatchedScreening)
    C, B = agent.clipping.context_clip, agent.clipping.reward_clip
    share = agent.release.shares
    rng = np.random.default_rng(3)

    def rescaled(rows, models, rewards):
        stats = statistics(agent, rows, models, rewards)
        sens = agent.sensitivities()
        return np.concatenate([np.ravel(stats[b]) * math.sqrt(share[b]) / sens[b] for b in share])

    n, k = 12, 3
    rows, models, rewards = rng.normal(size=(n, D)) * 3, rng.integers(0, K, n), rng.normal(size=n) * 2
    base = rescaled(rows, models, rewards)
    worst = 0.0
    for _ in range(300):
        r2, m2, w2 = rows.copy(), models.copy(), rewards.copy()
        r2[:k], m2[:k], w2[:k] = rng.normal(size=(k, D)) * 3, rng.integers(0, K, k), rng.normal(size=k) * 2
        worst = max(worst, float(np.linalg.norm(rescaled(r2, m2, w2) - base)))
    assert worst <= k + 1e-9
    # attained by the sums block: k rows of norm C on arm 0 with reward +B, replaced by the same rows with -B,
    # move it by k times its one-round sensitivity 2 C B
    x = np.zeros((k, D))
    x[:, 0] = C
    same = np.zeros(k, dtype=np.int64)
    plus, minus = (statistics(agent, x, same, np.full(k, r))["sums"] for r in (B, -B))
    assert np.linalg.norm(plus - minus) / agent.sensitivities()["sums"] == pytest.approx(k, rel=1e-12)


@pytest.mark.parametrize("cls", [BatchedPeeling, BatchedDPHDB])
def test_zcdp_agents_user_epsilon_typed_out(cls) -> None:
    """batched-peeling: RDP epsilon of m^2 rho-zCDP, rho = select eps_0^2 / 8 + 1 / (2 z^2); dphdb-batched:
    the smaller of the PLD of the choices as randomized response at m eps and the RDP of m^2 rho; typed out
    with dp-accounting; m +- 1 differ."""
    m = 3
    agent = _agent(cls, max_rounds_per_user=m)
    X, R, ids = _stream(cls)
    agent.play_block(X, R, user_ids=ids)
    delta = agent.delta

    def rdp(rho: float) -> float:
        acc = dp_accounting.rdp.RdpAccountant()
        return float(acc.compose(dp_accounting.ZCDpEvent(rho)).get_epsilon(delta))

    def rr(eps: float) -> dp_accounting.DpEvent:
        return dp_accounting.RandomizedResponseDpEvent(2.0 / (math.exp(eps) + 1.0), 2)

    def expected(k: int) -> float:
        if cls is BatchedPeeling:
            z = agent.release.multiplier
            return rdp(k**2 * (agent.select * agent.selection_epsilon**2 / 8 + 1 / (2 * z**2)))
        b = agent.budget
        pure = [rr(k * b.eps_q)] * b.quantiles + [rr(k * b.eps_s)] * b.steps
        acc = dp_accounting.pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE)
        pld = float(acc.compose(dp_accounting.ComposedDpEvent(pure)).get_epsilon(delta))
        return min(pld, rdp(k**2 * (b.quantiles * b.eps_q**2 + b.steps * b.eps_s**2) / 8))

    g = agent.privacy
    assert g.epsilon == pytest.approx(1.0, abs=1e-3) and expected(1) == pytest.approx(g.epsilon, rel=1e-3)
    assert g.user_epsilon == pytest.approx(expected(m), rel=1e-6)
    for wrong in (expected(m - 1), expected(m + 1)):
        assert abs(g.user_epsilon - wrong) > 0.05 * g.user_epsilon


def test_peeling_drawn_gaussian_blocks_carry_the_reported_rho() -> None:
    """batched-peeling's Gaussian blocks as drawn (std z Delta / sqrt(share)) have z = 1 / sqrt(2 rho_gauss),
    Gaussian part of the rho that the user-level epsilon scales by m^2."""
    cls = BatchedPeeling
    X, R, ids = _stream(cls, T=4000)
    agent = cls(K, D, rng=np.random.default_rng(2), horizon=4000, first_batch=8, batch_ratio=1.0, select=2,
                max_rounds_per_user=2)
    rec = Recorder(agent)
    agent.play_block(X, R, user_ids=ids)
    share = agent.release.shares
    unit = np.concatenate([np.ravel(out[b] - values[b]) * math.sqrt(share[b]) / sens[b]
                           for values, sens, out, _, _ in rec.calls for b in share])
    _, gaussian_rho = agent._rho()
    assert_scale(unit, 1 / math.sqrt(2 * gaussian_rho), "peeling Gaussian blocks")


# -- rounds past the cap are played, not learned from --------------------------------------------------------
@pytest.mark.parametrize("cls", CAPPED)
def test_rounds_past_the_cap_do_not_change_any_release(cls) -> None:
    """Change the data of every round past its person's cap: every release (same noise draws), every fit and
    every action is unchanged. The contexts are scaled by 4 (exact in floating point, so the capped rounds'
    greedy choices and the tie-breaking draws stay the same; DP-HDB clips its contexts, so only rewards change
    there) and the rewards replaced."""
    m = 2
    X, R, ids = _stream(cls)
    capped = ~_expected_learned(ids, m)
    assert 100 < capped.sum() < T - 100
    X2, R2 = X.copy(), R.copy()
    if cls is not BatchedDPHDB:
        X2[capped] *= 4.0
    R2[capped] = np.random.default_rng(9).normal(size=R2[capped].shape) * 5 + 3
    runs = []
    for data in ((X, R), (X2, R2)):
        agent = _agent(cls, max_rounds_per_user=m)
        rec = Recorder(agent) if hasattr(agent, "release") else None
        actions = agent.play_block(*data, user_ids=ids)
        runs.append((agent, actions, rec))
    (a, acts, rec_a), (b, acts2, rec_b) = runs
    np.testing.assert_array_equal(acts, acts2)
    np.testing.assert_array_equal(a.theta, b.theta)
    if rec_a is not None:
        assert len(rec_a.calls) == len(rec_b.calls) == 5
        for (values, _, out, _, _), (values2, _, out2, _, _) in zip(rec_a.calls, rec_b.calls, strict=True):
            for name in values:
                np.testing.assert_array_equal(values[name], values2[name])
                np.testing.assert_array_equal(out[name], out2[name])
    assert a.rounds_capped == b.rounds_capped == capped.sum() and a.rounds_learned == T - capped.sum()
    # the same change with the cap lifted changes the last release's statistics (DP-HDB: the fit)
    lifted = [_agent(cls, max_rounds_per_user=T) for _ in range(2)]
    recs = [Recorder(agent) if rec_a is not None else None for agent in lifted]
    for agent, data in zip(lifted, ((X, R), (X2, R2)), strict=True):
        agent.play_block(*data, user_ids=ids)
    if rec_a is None:
        assert not np.array_equal(lifted[0].theta, lifted[1].theta)
    else:
        first, second = (rec.calls[-1][0] for rec in recs)
        assert not np.array_equal(first["context_inside"], second["context_inside"])


@pytest.mark.parametrize("cls", [BatchedScreening, BatchedRidge])
def test_released_statistics_are_those_of_the_learned_rounds(cls) -> None:
    """Noise off: each batch's exact statistics equal those of the batch's rounds with the capped ones removed
    (and differ from those of all its rounds)."""
    m = 2
    X, R, ids = _stream(cls)
    agent = _agent(cls, max_rounds_per_user=m, noise=False)
    rec = Recorder(agent)
    actions = agent.play_block(X, R, user_ids=ids)
    learned = _expected_learned(ids, m)
    reward = R[np.arange(T), actions]
    calls, start, differs = iter(rec.calls), 0, 0
    for batch in range(5):  # batches of 16, 32, 64, 128, 256 rounds end before round 600
        stop = start + agent.schedule.size(batch)
        keep = np.arange(start, stop)[learned[start:stop]]
        if not len(keep):  # every round past its cap: no release
            start = stop
            continue
        values, _, _, (C, B), _ = next(calls)
        fresh = _agent(cls, noise=False)
        fresh.clipping.context_clip, fresh.clipping.reward_clip = C, B
        want = statistics(fresh, X[keep], actions[keep], reward[keep])
        for name, value in values.items():
            np.testing.assert_allclose(value, want[name], rtol=1e-12, atol=1e-12, err_msg=f"{name}, {batch}")
        whole = statistics(fresh, X[start:stop], actions[start:stop], reward[start:stop])
        differs += not np.allclose(whole["counts"], values["counts"])
        start = stop
    assert next(calls, None) is None and differs >= 3


def test_counting_per_person_across_calls() -> None:
    """The j-th round of a person (over the run) is learned iff j < m, however the rounds arrive."""
    ids = np.array([5, 5, 7, 5, 7, 7, 7, 5, 9, -1, 5, 9])
    agent = _agent(BatchedScreening, max_rounds_per_user=2)
    X, R, _ = _stream(BatchedScreening, T=len(ids))
    agent.play_block(X[:3], R[:3], user_ids=ids[:3])
    for t in range(3, 6):
        agent.update(X[t], agent.act(X[t]), R[t, 0], user_id=int(ids[t]))
    agent.play_block(X[6:], R[6:], user_ids=ids[6:])
    expected = _expected_learned(ids, 2)
    assert expected.tolist() == [True, True, True, False, True, False, False, False, True, True, False, True]
    assert agent.rounds_capped == (~expected).sum() and agent.rounds_learned == expected.sum()


# -- both play paths --------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [*CAPPED, FLIPHAT])
def test_act_update_equals_play_block_with_user_ids(cls) -> None:
    cap = {} if cls is FLIPHAT else {"max_rounds_per_user": 3}
    X, R, ids = _stream(cls, T=400)
    a, b = _agent(cls, **cap), _agent(cls, **cap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FLIPHAT: user ids without a cap
        cuts = [0, 7, 50, 51, 230, 400]
        blocks = np.concatenate([a.play_block(X[i:j], R[i:j], user_ids=ids[i:j])
                                 for i, j in zip(cuts[:-1], cuts[1:], strict=True)])
        stepped = []
        for t in range(400):
            action = b.act(X[t])
            stepped.append(action)
            b.update(X[t], action, R[t, action], user_id=int(ids[t]))
    np.testing.assert_array_equal(blocks, stepped)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert a.privacy.user_epsilon == b.privacy.user_epsilon


# -- without user ids, and without a cap -------------------------------------------------------------------
@pytest.mark.parametrize("cls", [BatchedScreening, BatchedDPHDB])
def test_without_user_ids_the_cap_changes_nothing(cls) -> None:
    """No ids: every round a different person, exactly today's run; the cap's epsilon is reported."""
    X, R, _ = _stream(cls)
    plain, capped = _agent(cls), _agent(cls, max_rounds_per_user=2)
    np.testing.assert_array_equal(plain.play_block(X, R), capped.play_block(X, R))
    np.testing.assert_array_equal(plain.theta, capped.theta)
    assert plain.privacy.user_epsilon is None and plain.privacy.max_rounds_per_user is None
    assert "user level" not in str(plain.privacy)
    g = capped.privacy
    assert g.user_epsilon > g.epsilon and "no user ids received" in g.notes


@pytest.mark.parametrize("cls", [BatchedRidge, FLIPHATDisjoint])
def test_user_ids_without_a_cap_warn_and_report_inf(cls) -> None:
    X, R, ids = _stream(cls)
    plain, tracked = _agent(cls), _agent(cls)
    plain.play_block(X, R)
    with pytest.warns(UserWarning, match="max_rounds_per_user"):
        tracked.play_block(X, R, user_ids=ids)
    np.testing.assert_array_equal(plain.theta, tracked.theta)  # every round learned, as without ids
    g = tracked.privacy
    assert g.user_epsilon == math.inf and g.max_rounds_per_user is None and g.epsilon == plain.privacy.epsilon
    assert "unbounded" in str(g)


# -- bad inputs ----------------------------------------------------------------------------------------------
def test_bad_inputs_are_named() -> None:
    with pytest.raises(ValueError, match="max_rounds_per_user"):
        _agent(BatchedScreening, max_rounds_per_user=0)
    with pytest.raises(TypeError, match="max_rounds_per_user"):
        _agent(BatchedRidge, max_rounds_per_user=2.5)
    with pytest.raises(ValueError, match="max_rounds_per_user=2 is not supported by FLIPHAT"):
        _agent(FLIPHAT, max_rounds_per_user=2)
    X, R, ids = _stream(BatchedScreening, T=20)
    agent = _agent(BatchedScreening, max_rounds_per_user=2)
    with pytest.raises(TypeError, match="user_ids"):
        agent.play_block(X, R, user_ids=ids.astype(float))
    with pytest.raises(ValueError, match="user_ids of shape"):
        agent.play_block(X, R, user_ids=ids[:-1])
    with pytest.raises(TypeError, match="user_id"):
        agent.update(X[0], 0, 0.0, user_id=1.0)
    with pytest.raises(TypeError, match="user_id"):
        agent.update(X[0], 0, 0.0, user_id=True)
    assert agent.round == 0 and agent.rounds_capped == 0 and not agent._user_rounds  # refused before any work
