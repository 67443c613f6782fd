"""Empirical audits of the batched private agents' releases (registered with :mod:`dpbandit.audit` on import).

Cases, each with a halved-noise twin that must be flagged:

* ``batched-gaussian-release/calibrated``: the end-of-batch Gaussian release of a real
  :class:`dpbandit.agents.batched.screening.BatchedScreening` (K = 2 arms, d = 2, epsilon = 1, delta = 1e-5,
  first clips ``C = sqrt 2``, ``B = 1``), drawn by the agent's own ``release`` object with the agent's own
  ``sensitivities()``, vectorised over runs (a leading run axis on every block). The two batches are user
  records fed through the agent's own clipping and accumulation (``_observe``/``_statistics``): a fixed user
  ``x = (C, 0)/2``, arm 0, ``r = B/2``, and the audited user, arm 0, ``x = (C, 0)``, ``r = B`` (inside both
  clips) vs ``x' = (-2C, 0)``, ``r' = 2B`` (outside both: clipped to ``(-C, 0)`` and ``B``). The change is the
  maximal ``2 C B`` in ``sums`` and 1 in each clipping count, with the counts unchanged (a same-arm change;
  an arm switch moves the counts by ``sqrt 2`` but ``sums`` by at most ``sqrt 2 C B``, a smaller total). In
  units of the stacked release's sensitivity the pair is ``sqrt(0.9 + 2 (0.1/3)) = 0.983`` of the maximum 1.
  Statistic: the Gaussian log-likelihood ratio ``sum_b <y_b - f_b(D), f_b(D') - f_b(D)> / sigma_b^2``.
  Claimed: the agent's accountant epsilon (PLD of ``GaussianDpEvent(z)``).
* ``batched-gaussian-release/noise-halved``: the same agent with its release multiplier halved after
  construction (every block's noise halved, the report of the calibrated agent kept as the claim).
* ``batched-peeling-selection/calibrated``: the private top-``s`` selection of a real
  :class:`dpbandit.agents.batched.peeling.BatchedPeeling` (``select = 1``, d = 8, epsilon = 8, delta = 1e-5,
  first clips ``X = 1``, ``B = 1``) through the agent's own ``_observe`` and ``_statistics`` (its
  ``top_k_exponential`` call with its ``selection_epsilon`` and ``selection_sensitivity()``); one arm per
  run (the disjoint model's arms select independently), all arms fed the same batch. Batch: a fixed user
  ``x = X (1, -1, ..., -1)``, ``r = B`` and the audited user ``x = X (1, ..., 1)`` vs ``x' = -X (1, ..., 1)``,
  ``r = B``: scores ``|u| = (2XB, 0, ..., 0)`` vs ``(0, 2XB, ..., 2XB)``, every coordinate moved by the
  sensitivity ``Delta_inf = 2 X B``, one up and the rest down (the exponential mechanism's worst case).
  Output: 1 if coordinate 0 was selected; its likelihood ratio ``e^{eps_0 / 2} (1 + 7 e^{eps_0 / 2}) /
  (e^{eps_0 / 2} + 7)`` tends to ``e^{eps_0}`` as d grows. Claimed: the agent's ``eps_0`` (pure DP of one
  exponential-mechanism round; its zCDP accounting charges ``eps_0^2 / 8`` per round).
* ``batched-peeling-selection/noise-halved``: the agent with ``selection_epsilon`` doubled after construction
  (the Gumbel noise at half its scale relative to the scores), claim unchanged.

Use: ``python sims/privacy_audit.py --only batched-``.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.agents.batched.peeling import BatchedPeeling
from dpbandit.agents.batched.screening import BatchedScreening
from dpbandit.audit.core import AuditCase, register

__all__: list[str] = []

_DELTA = 1e-5
_RELEASE_EPSILON, _RELEASE_DIM = 1.0, 2
_SELECTION_EPSILON, _SELECTION_DIM = 8.0, 8


# ---------------------------------------------------------------- Gaussian release (BatchedScreening)
def _screening(rng: np.random.Generator, noise_factor: float = 1.0) -> BatchedScreening:
    agent = BatchedScreening(2, _RELEASE_DIM, rng=rng, horizon=1000, epsilon=_RELEASE_EPSILON, delta=_DELTA,
                             initial_context_clip=math.sqrt(2.0), initial_reward_clip=1.0)
    agent.release.multiplier *= noise_factor
    return agent


def _batch_statistics(agent: BatchedScreening, audited: tuple[np.ndarray, float]) -> dict[str, np.ndarray]:
    """Every released block's exact value for the batch (fixed user, audited user), via the agent's own hooks."""
    C, B = agent.clipping.context_clip, agent.clipping.reward_clip
    x, r = audited
    rows = np.array([[C / 2, 0.0], x])
    agent._reset_batch()
    agent._observe(rows, np.zeros(2, dtype=np.int64), np.array([B / 2, r]))
    values = {**agent._statistics(), "counts": agent._counts, "context_inside": agent._context_inside,
              "reward_inside": agent._reward_inside}
    return {name: np.array(values[name], dtype=float) for name in agent.release.shares}


def _release_case(name: str, noise_factor: float, expect: str, notes: str) -> AuditCase:
    reference = _screening(np.random.default_rng(0))
    C, B = reference.clipping.context_clip, reference.clipping.reward_clip
    D = _batch_statistics(reference, (np.array([C, 0.0]), B))
    D_prime = _batch_statistics(reference, (np.array([-2.0 * C, 0.0]), 2.0 * B))
    sens = reference.sensitivities()
    blocks = list(reference.release.shares)
    weight = np.concatenate(
        [np.ravel(D_prime[b] - D[b]) / reference.release.sigma(b, sens[b]) ** 2 for b in blocks]
    )
    offset = float(np.concatenate([np.ravel(D[b]) for b in blocks]) @ weight)
    as_run = _screening(np.random.default_rng(0), noise_factor)

    def mechanism(rng: np.random.Generator, values: dict[str, np.ndarray], n_runs: int) -> np.ndarray:
        agent = _screening(rng, noise_factor)  # the agent's own release object and sensitivities
        stacked = {b: np.broadcast_to(values[b], (n_runs, *np.shape(values[b]))) for b in blocks}
        out = agent.release.release(agent.noise_rng, stacked, agent.sensitivities())
        return np.concatenate([out[b].reshape(n_runs, -1) for b in blocks], axis=1)

    return AuditCase(
        name=name, mechanism=mechanism, dataset=D, neighbour=D_prime,
        claimed_epsilon=reference.privacy.epsilon, delta=_DELTA, statistic=lambda y: y @ weight - offset,
        accountant_epsilon=as_run.release.accountant_epsilon(), accountant="pld (GaussianDpEvent(z) as run)",
        expect=expect,
        notes=f"{notes} z = {as_run.release.multiplier:.4g}; sensitivities "
        + ", ".join(f"{b} {sens[b]:.3g}" for b in blocks) + "; one user changed (same arm).",
    )


@register("batched-gaussian-release/calibrated")
def _release_calibrated() -> AuditCase:
    return _release_case("batched-gaussian-release/calibrated", 1.0, "pass",
                         "BatchedScreening's end-of-batch release.")


@register("batched-gaussian-release/noise-halved")
def _release_halved() -> AuditCase:
    return _release_case("batched-gaussian-release/noise-halved", 0.5, "flag",
                         "Release multiplier halved, same claim.")


# ---------------------------------------------------------------- exponential top-k (BatchedPeeling)
def _peeling(n_arms: int, rng: np.random.Generator, epsilon_factor: float = 1.0) -> BatchedPeeling:
    agent = BatchedPeeling(n_arms, _SELECTION_DIM, rng=rng, horizon=1000, epsilon=_SELECTION_EPSILON,
                           delta=_DELTA, select=1, initial_context_clip=1.0, initial_reward_clip=1.0)
    agent.selection_epsilon *= epsilon_factor
    return agent


def _selection_case(name: str, epsilon_factor: float, expect: str, notes: str) -> AuditCase:
    reference = _peeling(2, np.random.default_rng(0))
    eps_0 = reference.selection_epsilon
    X, B = reference.clipping.context_clip, reference.clipping.reward_clip
    ones = np.ones(_SELECTION_DIM)
    fixed = X * np.where(np.arange(_SELECTION_DIM) == 0, 1.0, -1.0)

    def mechanism(rng: np.random.Generator, audited_sign: float, n_runs: int) -> np.ndarray:
        agent = _peeling(n_runs, rng, epsilon_factor)  # one arm per run, every arm fed the same batch
        rows = np.concatenate([np.tile(fixed, (n_runs, 1)), np.tile(audited_sign * X * ones, (n_runs, 1))])
        arms = np.tile(np.arange(n_runs), 2)
        agent._observe(rows, arms, np.full(2 * n_runs, B))
        agent._statistics()  # the private selection; theta = 0, so the support is the selected coordinate
        return np.array([support[0] == 0 for support in agent._support], dtype=float)

    return AuditCase(
        name=name, mechanism=mechanism, dataset=1.0, neighbour=-1.0, claimed_epsilon=eps_0, delta=_DELTA,
        accountant_epsilon=epsilon_factor * eps_0, accountant="analytic: exponential mechanism, pure eps_0",
        expect=expect,
        notes=f"{notes} select 1 of d = {_SELECTION_DIM}, score sensitivity 2 X B = "
        f"{reference.selection_sensitivity():.3g}, eps_0 = {eps_0:.4g} (BatchedPeeling at epsilon "
        f"{_SELECTION_EPSILON:g}).",
    )


@register("batched-peeling-selection/calibrated")
def _selection_calibrated() -> AuditCase:
    return _selection_case("batched-peeling-selection/calibrated", 1.0, "pass",
                           "BatchedPeeling's exponential top-k selection.")


@register("batched-peeling-selection/noise-halved")
def _selection_halved() -> AuditCase:
    return _selection_case("batched-peeling-selection/noise-halved", 2.0, "flag",
                           "selection_epsilon doubled (Gumbel noise halved), same claim.")
