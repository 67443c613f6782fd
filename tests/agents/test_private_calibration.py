"""DP-UCB and DP-HDB: every calibration input pinned to its formula (written here, never through the agents'
helpers), and the noise each agent really draws tested against its stated scale (halved and doubled
rejected)."""

from __future__ import annotations

import copy
import math

import numpy as np
import privacy_reference as ref
import pytest

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb import DPUCB
from dpbandit.audit.drawn import gaussian_scale_pvalues, only_stated_scale_fits, selection_pvalues

pytestmark = pytest.mark.privacy


# ---------------------------------------------------------------- DP-UCB (Shariff and Sheffet 2018, Sec 4.2)
def _ucb_sigma(calibration: str, *, T: int, eps: float, delta: float, L: float, B: float) -> float:
    """Node std: 4 sqrt(m) Ltilde^2 ln(4/delta) / eps (paper), or the smallest tree std for (eps, delta)."""
    ltilde2 = (
        L**2 + B**2
    )  # ||[x; y]||^2 <= L^2 + B^2: a replaced round moves [x;y][x;y]^T by sqrt(2) Ltilde^2
    if calibration == "paper":
        m = 1 + math.ceil(math.log2(T))
        return 4.0 * math.sqrt(m) * ltilde2 * math.log(4.0 / delta) / eps
    # symmetric noise of std sqrt(2) sigma in Frobenius geometry vs change sqrt(2) Ltilde^2: multiplier
    # sigma/Ltilde^2
    return ltilde2 * ref.tree_multiplier(eps, delta, T)


@pytest.mark.parametrize("calibration", ["paper", "accountant"])
def test_dpucb_calibration_inputs(calibration: str) -> None:
    T, D, L, B, eps, delta = 1000, 6, 1.3, 2.0, 0.8, 1e-5
    agent = DPUCB(
        2,
        D,
        rng=np.random.default_rng(0),
        horizon=T,
        epsilon=eps,
        delta=delta,
        feature_bound=L,
        reward_bound=B,
        calibration=calibration,
    )
    assert agent.sensitivity == pytest.approx(L**2 + B**2)
    assert agent.levels == 1 + math.ceil(math.log2(T))
    assert (agent.tree.horizon, agent.tree.depth) == (T, T.bit_length())
    sigma = _ucb_sigma(calibration, T=T, eps=eps, delta=delta, L=L, B=B)
    assert agent.sigma_noise == pytest.approx(sigma, rel=1e-4)
    report = agent.privacy
    assert report.epsilon == pytest.approx(ref.tree_epsilon(sigma / (L**2 + B**2), T, delta), rel=1e-4)
    assert (report.claimed_epsilon, report.claimed_delta) == (eps, delta)
    # the multiplier the report prints is the one accounted: node std over the sensitivity
    assert f"noise multiplier {sigma / (L**2 + B**2):.4g} " in report.notes
    if calibration == "accountant":
        assert report.epsilon == pytest.approx(eps, rel=1e-4)


def test_dpucb_default_bounds() -> None:
    agent = DPUCB(2, 8, rng=np.random.default_rng(0), horizon=100, noise_std=0.1)
    assert agent.feature_bound == pytest.approx(math.sqrt(8)) and agent.reward_bound == pytest.approx(1.3)
    assert agent.delta == pytest.approx(1 / 100)


@pytest.mark.parametrize("calibration", ["paper", "accountant"])
def test_dpucb_tree_draws_its_stated_node_std(calibration: str) -> None:
    """Zero features and rewards: M_t is pure tree noise; at t = 2^k it is one node, (Z + Z^T)/sqrt 2.

    Read through the agent: V_t - 2 Upsilon I (off-diagonal: sigma, diagonal: sqrt 2 sigma) and u_t (sigma).
    """
    D, T, eps, delta = 20, 16, 1.0, 1e-5
    sigma = _ucb_sigma(calibration, T=T, eps=eps, delta=delta, L=1.0, B=1.0)
    iu = np.triu_indices(D, 1)
    off, diag = [], []
    for seed in range(10):
        agent = DPUCB(
            2,
            D,
            rng=np.random.default_rng(seed),
            horizon=T,
            epsilon=eps,
            delta=delta,
            feature_bound=1.0,
            reward_bound=1.0,
            calibration=calibration,
        )
        assert agent.sigma_noise == pytest.approx(sigma, rel=1e-4)  # the std its report states
        for t in range(1, T + 1):
            agent.update(np.zeros((2, D)), 0, 0.0)
            if t & (t - 1) == 0:
                noise = agent.gram - 2.0 * agent.upsilon * np.eye(D)
                off += [noise[iu], agent.u[0].copy()]
                diag.append(np.diag(noise))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(off), sigma))
    assert only_stated_scale_fits(gaussian_scale_pvalues(np.concatenate(diag), math.sqrt(2.0) * sigma))


# ---------------------------------------------------------------- DP-HDB (Algorithm 3 of 004, notes 6.7)
def _hdb_step_epsilons(
    *, eps: float, delta: float, horizon: int, n_steps: int, radius: float, beta: float, L: float
) -> np.ndarray:
    """eps_t = 2 Delta_t / b_t at multiplier 1: Delta_t = r 2(beta D + L)/(t+1) (A.6), b_t of line 8
    (D = 2r)."""
    D, t = 2.0 * radius, np.arange(1, n_steps + 1, dtype=float)
    b = 4.0 * D * (beta * D + L) * math.sqrt(math.log(horizon) * math.log(1.0 / delta)) / (eps * np.sqrt(t))
    return 2.0 * radius * 2.0 * (beta * D + L) / (t + 1.0) / b


def _hdb_multiplier(eps: float, delta: float, step_eps: np.ndarray) -> float:
    """Joint calibration: a user changes <= 2 arm streams; 2 x sum_t eps_t^2 / 2 (zCDP) = rho(eps, delta)."""
    return math.sqrt(2 * 0.5 * float(np.sum(step_eps**2)) / ref.rho_for(eps, delta))


@pytest.mark.parametrize("calibration", ["joint", "paper"])
def test_dphdb_calibration_inputs(calibration: str) -> None:
    K, d, T, t0, eps, delta = 3, 5, 2000, 40, 1.0, 1e-4
    agent = DPHDB(
        K,
        d,
        rng=np.random.default_rng(0),
        horizon=T,
        epsilon=eps,
        delta=delta,
        warmup=t0,
        calibration=calibration,
    )
    beta, L, r = (
        1.0,
        1.0,
        2.0,
    )  # identity link on ||x||_inf <= 1: beta = sup zeta' * 1^2; L = clip_norm; radius
    assert agent.smoothness == pytest.approx(beta)
    cal = agent.bank.privacy_calibration
    n_steps = t0 + (T - K * t0)  # forced steps of its own block, then one (real or synthetic) per round
    assert (cal.n_steps, cal.streams, cal.horizon) == (n_steps, 2, T)
    step_eps = _hdb_step_epsilons(eps=eps, delta=delta, horizon=T, n_steps=n_steps, radius=r, beta=beta, L=L)
    multiplier = _hdb_multiplier(eps, delta, step_eps) if calibration == "joint" else 1.0
    assert cal.multiplier == pytest.approx(multiplier, rel=1e-6)
    true_eps = ref.zcdp_epsilon(2 * 0.5 * float(np.sum((step_eps / cal.multiplier) ** 2)), delta)
    assert agent.privacy.epsilon == pytest.approx(true_eps, rel=1e-6)
    if calibration == "joint":
        assert true_eps == pytest.approx(eps, rel=1e-5)


def _hdb_first_steps(compiled: bool, K: int = 512, copies: int = 4) -> tuple[np.ndarray, float, float]:
    """First DP-POFW step of every arm of DP-HDB (warm-up 1: round s steps arm s only), K x copies arms.

    x = 1, reward 1: the clipped gradient is -1, d_1 = -1/2, so the vertex +e_1 scores -r/2 and -e_1 +r/2
    (gap r). Returns (did +e_1 win, gap, b_1 expected from the formula and the joint calibration).
    """
    eps, delta, radius = 60.0, 1e-6, 1.0
    template = DPHDB(
        K, 1, rng=np.random.default_rng(0), horizon=K, epsilon=eps, delta=delta, warmup=1, radius=radius
    )
    step_eps = _hdb_step_epsilons(eps=eps, delta=delta, horizon=K, n_steps=1, radius=radius, beta=1.0, L=1.0)
    b_1 = (
        _hdb_multiplier(eps, delta, step_eps)
        * 4
        * 2
        * radius
        * (2 * radius + 1.0)
        * math.sqrt(math.log(K) * math.log(1 / delta))
        / eps
    )
    wins = []
    for rng in np.random.default_rng(99).spawn(copies):
        agent = copy.deepcopy(template)
        agent.bank.rng = rng
        agent.play_block(np.ones((K, 1)), np.eye(K), compiled=compiled)
        wins.append(agent.bank.theta[:, 0] > 0)
    return np.concatenate(wins), radius, b_1


@pytest.mark.parametrize("compiled", [True, False])
def test_dphdb_selection_noise_has_the_stated_scale(compiled: bool) -> None:
    wins, gap, b_1 = _hdb_first_steps(compiled)
    pvalues = selection_pvalues(wins, np.full(wins.size, gap / b_1))
    assert only_stated_scale_fits(pvalues), pvalues
