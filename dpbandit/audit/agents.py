"""Audit cases of the private agents, driving their own noise (registered on import).

* ``dp-pofw-selection/correct``: one report-noisy-min step of :class:`dpbandit.optim.pofw.POFWBank` (the
  DP-POFW selection of 004 Algorithm 2 lines 8-9, the numpy path of DP-HDB) on the worst-case pair for
  non-monotone scores: with d = 1 the two vertices' scores move in opposite directions by the full
  sensitivity ``Delta_1 = r (beta D + L)``. Claim: the step's ``eps_1 = 2 Delta_1 / b_1``.
  ``dp-pofw-selection/monotone-scale``: the Laplace scale halved (Dwork-Roth's monotone-query calibration
  ``b = Delta / eps``); true loss ``2 eps_1``, must be flagged (notes/ofw_hdb.md Section 6.4).
* ``dp-hdb-step/compiled``: the second DP-POFW step of every arm of a real
  :class:`dpbandit.agents.dphdb.DPHDB` (joint calibration) through its compiled ``play_block`` path
  (:mod:`dpbandit.agents.kernels.hdb`). With warm-up 2 and K arms, rounds 2a and 2a+1 step arm a only, so
  the K arms are K independent runs. Round 2a is a fixed user (``d_1 = -1/2``); the audited user of round
  2a+1 has reward -200 (D: ``d_2 = 0``, both scores 0) or +200 (D': ``d_2 = -2/3``): with
  ``x = 0.01 = feature_bound`` the clipped GLM gradient is ``-+clip_norm`` at every iterate and each score
  moves by ``r 2 L / 3``, within ``1 + beta D / L = 1.0004`` of ``Delta_2`` (A.6), the geometry of the
  DP-POFW case. Output: the vertex ``v_2 = 3 theta_3 - 2 theta_2``. Claim: the agent's
  ``eps_2 = 2 Delta_2 / b_2``. ``dp-hdb-step/noise-halved``: the agent's calibration multiplier halved
  after construction (the kernel reads it), same claim: must be flagged.
* ``dp-ucb-tree/agent-noise``: the tree of a real :class:`dpbandit.agents.dpucb.DPUCB` (accountant
  calibration, epsilon 2): its own node sampler ``agent.tree.noise``, horizon and cumulative mode,
  batched over runs (:mod:`dpbandit.audit.batched`), over ``T = 32`` rounds; neighbours differ in round 1
  by orthogonal ``[x; y]`` of norm ``Ltilde`` (Frobenius change ``sqrt(2) Ltilde^2``, the maximum).
  Statistic: the Frobenius inner product of the summed releases at t = 1, 2, 4, ..., 32 (the nodes
  containing round 1) with ``f(D') - f(D)``. ``dp-ucb-tree/noise-halved``: the agent's draws times 1/2
  (must be flagged); ``dp-ucb-tree/fresh-noise-every-round``: the authors' public code's scheme, a fresh
  draw of the agent's sampler on every released ``G_t`` (each of the T releases carries the full change:
  must be flagged).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from dpbandit.agents.dphdb import DPHDB
from dpbandit.agents.dpucb import DPUCB
from dpbandit.audit.batched import chunk_sizes, halved, power_of_two_steps, summed_releases
from dpbandit.audit.core import AuditCase, register
from dpbandit.optim.pofw import POFWBank, POFWPrivacy, line8_scale

__all__: list[str] = []

_RADIUS, _SMOOTH, _LIP = 1.0, 1.0, 1.0
_DELTA = 1e-6
_TREE_T, _TREE_DIM = 32, 2
_CHUNK = 8192  # runs per batch (memory ~ _CHUNK * 9 * 2 * depth floats)


# ---------------------------------------------------------------- DP-POFW selection (numpy path)
def _pofw_case(name: str, scale_factor: float, expect: str, notes: str) -> AuditCase:
    # epsilon=2.8 at horizon 2 gives a first-step loss eps_1 ~ 1 (large enough to measure).
    cal = POFWPrivacy(epsilon=2.8, delta=0.5, horizon=2, calibration="paper")
    eps_1 = float(cal.step_epsilons()[0])
    constants = dict(radius=_RADIUS, smoothness=_SMOOTH, lipschitz=_LIP)
    b_1 = float(line8_scale(np.array([1.0]), privacy=cal, **constants)[0])
    diameter = 2.0 * _RADIUS
    shift = _SMOOTH * diameter + _LIP  # |d_1 - d_1'| = 2(beta D + L)/2 (A.6 at t = 1)

    def mechanism(rng: np.random.Generator, d1: float, n_runs: int) -> np.ndarray:
        # scale_factor 0.5 halves line 8: the monotone-query calibration
        scaled = POFWPrivacy(epsilon=2.8, delta=0.5, horizon=2, multiplier=scale_factor)
        bank = POFWBank(n_runs, 1, rng=rng, privacy=scaled, **constants)
        g = np.full((n_runs, 1), 2.0 * d1)  # theta_0 = theta_1: d_1 = g / 2 = d1
        bank.step(g, g)
        return (bank.theta[:, 0] > 0).astype(float)  # 1 if the vertex +r e_1 was selected

    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=0.0,
        neighbour=shift,
        claimed_epsilon=eps_1,
        delta=_DELTA,
        accountant_epsilon=eps_1 / scale_factor,
        accountant="analytic: report-noisy-min, non-monotone scores (2 Delta / b)",
        expect=expect,
        notes=f"{notes} Laplace scale {scale_factor * b_1:.4g}, score sensitivity {_RADIUS * shift:.4g}.",
    )


@register("dp-pofw-selection/correct")
def _pofw_correct() -> AuditCase:
    return _pofw_case("dp-pofw-selection/correct", 1.0, "pass", "DP-POFW selection step (Alg 2 line 8-9).")


@register("dp-pofw-selection/monotone-scale")
def _pofw_monotone() -> AuditCase:
    return _pofw_case(
        "dp-pofw-selection/monotone-scale", 0.5, "flag", "Scale Delta/eps, valid only for monotone scores."
    )


# ---------------------------------------------------------------- DP-HDB through its compiled path
_HDB_ARMS = 512  # arms (= independent runs) per agent copy
# feature_bound: beta = 1e-4, so the score change r L is within 0.04% of Delta_t = r 2(beta D + L)/(t+1)
_HDB_X = 0.01
_HDB_REWARD = 200.0  # beyond clip_norm / |x| = 100: the clipped GLM gradient is -+clip_norm at every iterate


def _hdb_case(
    name: str, multiplier_factor: float, expect: str, notes: str, sampler: str = "per-vertex"
) -> AuditCase:
    template = DPHDB(
        _HDB_ARMS,
        1,
        rng=np.random.default_rng(0),
        horizon=2 * _HDB_ARMS,
        epsilon=10.0,
        delta=_DELTA,
        warmup=2,
        feature_bound=_HDB_X,
        vertex_sampler=sampler,
    )
    cal = template.bank.privacy_calibration
    eps_2 = float(cal.step_epsilons()[1])
    cal.multiplier *= multiplier_factor  # the noise the kernel draws (it reads the multiplier at play time)
    X = np.full((2 * _HDB_ARMS, 1), _HDB_X)
    arms = np.arange(_HDB_ARMS)

    def mechanism(rng: np.random.Generator, reward: float, n_runs: int) -> np.ndarray:
        out = []
        for m in chunk_sizes(n_runs, _HDB_ARMS):
            agent = copy.deepcopy(template)
            agent.bank.rng = rng
            R = np.zeros((2 * _HDB_ARMS, _HDB_ARMS))
            R[2 * arms, arms] = _HDB_REWARD  # rounds 2a, 2a+1 are arm a's forced rounds (warm-up 2)
            R[2 * arms + 1, arms] = reward  # the audited user, in every arm's second step
            agent.play_block(X, R)  # compiled path: identity link, noise on
            vertex = 3.0 * agent.bank.theta[:m, 0] - 2.0 * agent.bank.theta_prev[:m, 0]  # v_2 (eta_2 = 1/3)
            out.append(vertex > 0)
        return np.concatenate(out).astype(float)

    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=-_HDB_REWARD,
        neighbour=_HDB_REWARD,
        claimed_epsilon=eps_2,
        delta=_DELTA,
        accountant_epsilon=eps_2 / multiplier_factor,
        accountant="analytic: report-noisy-min, non-monotone scores (2 Delta / b)",
        expect=expect,
        notes=f"{notes} DP-HDB(K={_HDB_ARMS}, d=1, epsilon=10, joint, warm-up 2, {sampler}) via play_block; "
        f"scale multiplier {cal.multiplier:.4g}.",
    )


@register("dp-hdb-step/compiled")
def _hdb_compiled() -> AuditCase:
    return _hdb_case("dp-hdb-step/compiled", 1.0, "pass", "Second DP-POFW step of each arm, compiled kernel.")


@register("dp-hdb-step/noise-halved")
def _hdb_halved() -> AuditCase:
    return _hdb_case("dp-hdb-step/noise-halved", 0.5, "flag", "Calibration multiplier halved, same claim.")


@register("dp-hdb-step/compiled-topdown")
def _hdb_compiled_topdown() -> AuditCase:
    return _hdb_case("dp-hdb-step/compiled-topdown", 1.0, "pass",
                     "Second DP-POFW step of each arm, compiled kernel, noise drawn top down.", "topdown")


@register("dp-hdb-step/topdown-noise-halved")
def _hdb_topdown_halved() -> AuditCase:
    return _hdb_case("dp-hdb-step/topdown-noise-halved", 0.5, "flag",
                     "Calibration multiplier halved, same claim, noise drawn top down.", "topdown")


# ---------------------------------------------------------------- DP-UCB's own tree
def _ucb_case(name: str, variant: str, expect: str, notes: str) -> AuditCase:
    agent = DPUCB(
        2,
        _TREE_DIM,
        rng=np.random.default_rng(0),
        horizon=_TREE_T,
        epsilon=2.0,
        delta=_DELTA,
        feature_bound=1.0,
        reward_bound=1.0,
        calibration="accountant",
    )
    noise = halved(agent.tree.noise) if variant == "halved" else agent.tree.noise
    norm = math.sqrt(agent.sensitivity)  # ||[x; y]|| = Ltilde
    first, first_prime = np.zeros((2, _TREE_DIM + 1))
    first[0], first_prime[-1] = norm, norm
    rest = np.eye(_TREE_DIM + 1) * 0.1
    direction = np.outer(first_prime, first_prime) - np.outer(first, first)
    fresh = variant == "fresh"
    checkpoints = list(range(1, _TREE_T + 1)) if fresh else power_of_two_steps(_TREE_T)

    def mechanism(rng: np.random.Generator, z: np.ndarray, n_runs: int) -> np.ndarray:
        """Sum of the released matrices at ``checkpoints`` (a post-processing, enough for the LLR test)."""
        item = np.outer(z, z)
        if not fresh:
            return summed_releases(
                noise,
                item,
                rest,
                horizon=agent.tree.horizon,
                checkpoints=checkpoints,
                n_runs=n_runs,
                rng=rng,
                cumulative=agent.tree.cumulative,
                chunk=_CHUNK,
            )
        exact = np.cumsum(np.stack([item] + [rest] * (_TREE_T - 1)), axis=0).sum(axis=0)
        draws = [
            noise(rng, m * _TREE_T).reshape(m, _TREE_T, *item.shape).sum(axis=1)
            for m in chunk_sizes(n_runs, _CHUNK)
        ]  # [C]: a fresh draw on every released Gram matrix
        return exact + np.concatenate(draws)

    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=first,
        neighbour=first_prime,
        claimed_epsilon=agent.epsilon,
        delta=_DELTA,
        statistic=lambda outputs: np.einsum("nij,ij->n", outputs, direction),
        accountant_epsilon=agent.privacy.epsilon if variant == "agent" else math.nan,
        accountant="rdp (tree aggregation)" if variant == "agent" else "",
        expect=expect,
        notes=f"{notes} Node std {agent.sigma_noise:.4g}, Ltilde^2 {agent.sensitivity:.4g}, T={_TREE_T}.",
    )


@register("dp-ucb-tree/agent-noise")
def _ucb_correct() -> AuditCase:
    return _ucb_case(
        "dp-ucb-tree/agent-noise", "agent", "pass", "DPUCB's own tree sampler (accountant calibration)."
    )


@register("dp-ucb-tree/noise-halved")
def _ucb_halved() -> AuditCase:
    return _ucb_case(
        "dp-ucb-tree/noise-halved", "halved", "flag", "The agent's node draws times 1/2, same claim."
    )


@register("dp-ucb-tree/fresh-noise-every-round")
def _ucb_fresh() -> AuditCase:
    return _ucb_case(
        "dp-ucb-tree/fresh-noise-every-round",
        "fresh",
        "flag",
        "Authors' code: fresh noise per round, no tree.",
    )
