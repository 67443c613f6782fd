"""Empirical audits of the private agents' mechanisms (registered with :mod:`dpbandit.privacy.audit`).

Importing this module registers:

* ``dp-pofw-selection/correct``: one report-noisy-min step of :class:`dpbandit.optim.pofw.POFWBank`
  (the DP-POFW selection of 004 Algorithm 2 line 8-9, as DP-HDB runs it) on the worst-case pair for
  non-monotone scores: with d = 1 the two vertices' scores move in opposite directions by the full
  sensitivity ``Delta_1 = r (beta D + L)``. Claimed epsilon: the step's ``eps_1 = 2 Delta_1 / b_1``.
* ``dp-pofw-selection/monotone-scale``: the same step with the Laplace scale halved (the
  monotone-query calibration ``b = Delta / eps`` of Dwork-Roth Claim 3.9) and the same claim;
  its true loss is ``2 eps``, so the audit must flag it (notes/ofw_hdb.md Section 6.4).
* ``dp-ucb-tree/correct``: DP-UCB's Gaussian tree (:class:`dpbandit.privacy.tree.TreeAggregator`
  with symmetric node noise as in ``gaussian_tree(..., symmetric=True)``, batched over runs; the
  node std of :class:`dpbandit.agents.dpucb.DPUCB` with the accountant calibration) over
  ``T = 64`` rounds; neighbours differ in round 1 by orthogonal ``[x; y]`` of norm ``Ltilde``
  (Frobenius change ``sqrt(2) Ltilde^2``, the maximum). Outputs: the released prefix sums at
  t = 1, 2, 4, ..., 64 (exactly the nodes containing round 1), summed (a post-processing that
  keeps the likelihood-ratio statistic); statistic: the Frobenius inner product with
  ``f(D') - f(D)``.
* ``dp-ucb-tree/fresh-noise-every-round``: the authors' public DP-UCB code's scheme (fresh matrix
  noise of the same std on every released ``G_t``, no tree); each of the T releases then carries the
  full change, so it must be flagged.

Use from a script (e.g. ``sims/privacy_audit.py``)::

    import dpbandit.privacy.audits_agents  # noqa: F401  (registers the cases)
    from dpbandit.privacy import audit
    for name in sorted(n for n in audit.registered() if n.startswith(("dp-pofw", "dp-ucb"))):
        print(audit.audit(audit.make_case(name), rng, n_runs=200_000).row())
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.agents.dpucb import DPUCB
from dpbandit.optim.pofw import POFWBank, POFWPrivacy, line8_scale
from dpbandit.privacy.audit import AuditCase, register
from dpbandit.privacy.noise import symmetric_gaussian
from dpbandit.privacy.tree import TreeAggregator

__all__: list[str] = []

_RADIUS, _SMOOTH, _LIP = 1.0, 1.0, 1.0
_DELTA = 1e-6
_TREE_T, _TREE_DIM = 64, 2
_CHUNK = 8192  # runs per batch (memory ~ _CHUNK * 9 * 2 * depth floats)


def _batched_symmetric(sigma: float, batch: int, dim: int):
    """Node noise for ``batch`` independent trees: one symmetric Gaussian (as in DP-UCB) per tree."""

    def noise(rng: np.random.Generator, n: int) -> np.ndarray:
        return symmetric_gaussian(rng, sigma, dim, size=(n, batch))

    return noise


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


def _ucb_pair() -> tuple[DPUCB, np.ndarray, np.ndarray, np.ndarray]:
    agent = DPUCB(
        2, _TREE_DIM, rng=np.random.default_rng(0), horizon=_TREE_T, epsilon=1.0, delta=_DELTA,
        feature_bound=1.0, reward_bound=1.0, calibration="accountant",
    )
    norm = math.sqrt(agent.sensitivity)  # ||[x; y]|| = Ltilde
    z = np.zeros(_TREE_DIM + 1)
    z[0] = norm
    z_prime = np.zeros(_TREE_DIM + 1)
    z_prime[-1] = norm
    return agent, np.outer(z, z), np.outer(z_prime, z_prime), np.eye(_TREE_DIM + 1) * 0.1


def _ucb_case(name: str, fresh: bool, expect: str, notes: str) -> AuditCase:
    agent, first, first_prime, rest = _ucb_pair()
    sigma, shape = agent.sigma_noise, first.shape
    direction = first_prime - first
    checkpoints = [2**k for k in range(_TREE_T.bit_length())] if not fresh else list(range(1, _TREE_T + 1))

    def mechanism(rng: np.random.Generator, first_item: np.ndarray, n_runs: int) -> np.ndarray:
        """Sum of the released matrices at ``checkpoints`` (a post-processing, enough for the LLR test)."""
        exact = np.cumsum(np.stack([first_item] + [rest] * (_TREE_T - 1)), axis=0)
        base = exact[np.array(checkpoints) - 1].sum(axis=0)
        if fresh:  # [C]: a fresh symmetric draw on every released Gram matrix, in chunks
            chunks = [
                symmetric_gaussian(rng, sigma, shape[0], size=(m, _TREE_T)).sum(axis=1)
                for m in np.diff(np.append(np.arange(0, n_runs, _CHUNK), n_runs))
            ]
            return base + np.concatenate(chunks)
        out = []
        for m in np.diff(np.append(np.arange(0, n_runs, _CHUNK), n_runs)):
            # m independent trees at once: the TreeAggregator DP-UCB uses, on a leading batch axis
            tree = TreeAggregator((m, *shape), noise=_batched_symmetric(sigma, m, shape[0]), rng=rng,
                                  horizon=_TREE_T)
            released = [tree.add(np.broadcast_to(first_item if t == 0 else rest, (m, *shape)))
                        for t in range(_TREE_T)]
            out.append(sum(released[c - 1] for c in checkpoints))
        return np.concatenate(out)

    return AuditCase(
        name=name,
        mechanism=mechanism,
        dataset=first,
        neighbour=first_prime,
        claimed_epsilon=1.0,
        delta=_DELTA,
        statistic=lambda outputs: np.einsum("nij,ij->n", outputs, direction),
        accountant_epsilon=agent.privacy.epsilon if not fresh else math.nan,
        accountant="rdp (tree aggregation)" if not fresh else "",
        expect=expect,
        notes=f"{notes} Node std {sigma:.4g}, Ltilde^2 {agent.sensitivity:.4g}, T={_TREE_T}.",
    )


@register("dp-ucb-tree/correct")
def _ucb_correct() -> AuditCase:
    return _ucb_case("dp-ucb-tree/correct", False, "pass", "DP-UCB tree (accountant calibration).")


@register("dp-ucb-tree/fresh-noise-every-round")
def _ucb_fresh() -> AuditCase:
    return _ucb_case(
        "dp-ucb-tree/fresh-noise-every-round", True, "flag", "Authors' code: fresh noise per round, no tree."
    )
