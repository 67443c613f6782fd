"""Per-user play among the arms in contention, from released quantities only (issue 40 item 3).

Private successive elimination plays uniformly among the arms not yet eliminated and drops none without evidence
[Sajed and Sheffet 2019, Algorithm 1; Azize and Basu 2022, AdaP-UCB]. Here, per user:

* **elimination** (:func:`surviving`, opt-in ``z > 0``): the arms whose upper bound ``score + z sd`` reaches the
  best lower bound ``max (score - z sd)``; with ``z = 0`` the greedy arm (ties kept);
* **exploration among the starved arms in contention** (the default, :func:`starved`, :func:`base_rate_bounds`,
  :func:`in_contention`, :func:`exploring_shares`): an arm that the latest batch's greedy play gave no row (its
  released count, less the rows explored on it, within its noise) while its base-rate bounds, counted in the rows
  its release certifies (``N_k - c s_N``, ``s_N`` the summed count's noise std), still reach the best lower bound,
  is explored by a share of the users (drawn by the agent): as many rows as it has certified (at least the count
  noise in rows), at most its part of the share ``1 / K``. Private successive elimination restricted to the
  users who explore: an arm with a few noisy rows is no evidence against it, so it is not left behind (on the
  plain Bernoulli bandit an arm that lost one early batch otherwise got no row again, whatever its mean), and an
  arm is dropped once its upper bound falls below the best lower bound. Arms that greedy play gives rows (every
  arm of a contextual setting where each wins some users) are not explored, so contextual settings pay little.

The user then draws uniformly among the arms left, or plays the single one. Every input is a released quantity
(the summed counts and reward sums, the latest counts, the scores and their std) or public (the noise std, the
multipliers, the share, the batch sizes, the agent's earlier exploring shares), so play stays a function of the
user's own context, the releases and the agent's randomness.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CERTIFY", "base_rate_bounds", "contention_scores", "exploring_shares", "in_contention", "starved",
           "surviving"]

#: Default ``c`` of the exploration rule (the std multiplier of the base-rate bounds and of the starvation test)
#: [Fill; measured, docs/batched_agents.md "Issue 40 item 3: private successive elimination on the exploring
#: share"]: wider bounds keep the worse arms in contention longer (plain Bernoulli bandits, epsilon 1, T = 5,000,
#: 50 seeds, means 0.2 / 0.3 / 0.4 / 0.45 / 0.6, in a variant with ``starved_share = 1`` and a floor of the rows
#: that would certify an arm: mean regret 255 at ``c = 1``, 340 at 1.5, 378 at 2).
CERTIFY = 1.0


def base_rate_bounds(sums: np.ndarray, counts: np.ndarray, count_sd: float, sum_var: float, bound: float,
                     z: float, rho: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Confidence bounds ``(lo, hi)`` on each arm's mean centred reward from its released sums ``sums`` (of
    rewards in ``[-bound, bound]``) and counts ``counts`` (noise std ``count_sd``, ``sums``' released noise
    variance ``sum_var``; ``rho`` the sampling variance of a summed round, 1 for unweighted sums).

    Counted in *certified* rows: the count lies in ``[N - z s_N, N + z s_N]``, the sum within ``z`` std of its
    release (released noise plus the sampling variance ``rho N bound^2`` of rewards in ``[-bound, bound]``), and
    the bounds are the extreme ratios of the two, within ``[-bound, bound]``; an arm whose count certifies no row
    (``N - z s_N <= 0``) keeps the whole range [Sajed and Sheffet 2019, Algorithm 1: an arm is dropped only on
    evidence]."""
    counts = np.asarray(counts, dtype=float)
    low_n, high_n = np.maximum(counts - z * count_sd, 0.0), counts + z * count_sd
    width = z * np.sqrt(sum_var + rho * high_n * bound**2)
    top, bottom = np.asarray(sums) + width, np.asarray(sums) - width
    certified = low_n > 0.0
    safe_low = np.where(certified, low_n, 1.0)
    hi = np.where(top > 0.0, top / safe_low, top / high_n)
    lo = np.where(bottom > 0.0, bottom / high_n, bottom / safe_low)
    hi = np.where(certified, np.minimum(hi, bound), bound)
    lo = np.where(certified, np.maximum(lo, -bound), -bound)
    return lo, hi


def in_contention(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Arms whose upper bound reaches the best lower bound (successive elimination's survivors)."""
    return hi >= lo.max()


def starved(last_counts: np.ndarray, expected: np.ndarray, count_sd: float, multiplier: float) -> np.ndarray:
    """Arms to which the latest batch's greedy play gave no row: the released count ``last_counts`` less the
    rows ``expected`` of the exploring share (public: share, batch size and set) is at most ``multiplier`` times
    its std (the count's noise ``count_sd`` and the exploring rows' binomial spread, at most ``expected``)."""
    return np.asarray(last_counts) - expected <= multiplier * np.sqrt(count_sd**2 + expected)


def surviving(scores: np.ndarray, sd: np.ndarray | None, z: float) -> np.ndarray:
    """Per user ``(m, K)``, the arms whose ``score + z sd`` reaches the best ``score - z sd`` (``z = 0`` or
    ``sd`` ``None``: the arms of maximal score)."""
    if z == 0.0 or sd is None:
        return scores == scores.max(axis=1, keepdims=True)
    return scores + z * sd >= (scores - z * sd).max(axis=1, keepdims=True)


def exploring_shares(contending: np.ndarray, certified_rows: np.ndarray, floor_rows: float, batch: int,
                     share: float) -> np.ndarray:
    """Per arm, the probability that a user of a batch of ``batch`` users explores it: each arm in ``contending``
    gets as many rows as it has certified (``certified_rows``), at least ``floor_rows`` (the count's noise std in
    rows), and at most its equal part of the exploring ``share`` (the doubling of adaptive episodes [Azize and Basu 2022, AdaP-UCB]:
    an arm's evidence at most doubles per batch, so an arm in contention costs about twice the rows its
    elimination needs, whatever the batch size)."""
    if not contending.any():
        return np.zeros(contending.shape)
    rows = np.minimum(np.maximum(certified_rows, floor_rows), share * batch / contending.sum())
    return np.where(contending, rows / batch, 0.0)


def contention_scores(scores: np.ndarray, active: np.ndarray, explore: np.ndarray, rng: np.random.Generator
                      ) -> np.ndarray:
    """Scores whose arg-max plays per user among the arms in contention: arm ``k`` with probability
    ``explore[k]`` (``(K,)``, summing to at most 1; the agent's draw), else among ``active`` ``(m, K)``: ``-inf``
    outside them, a uniform draw among two or more, the score of a single one. One call of ``rng`` of shape
    ``(m, K + 1)`` (so a block of users draws what as many single users draw in turn)."""
    draw = rng.random((scores.shape[0], scores.shape[1] + 1))
    if explore.any():
        arm = np.searchsorted(np.cumsum(explore), draw[:, 0], side="right")  # K: no exploring arm drawn
        chosen = arm[:, None] == np.arange(scores.shape[1])
        active = np.where((arm < scores.shape[1])[:, None], chosen, active)
    uniform = draw[:, 1:]
    return np.where(active, np.where(active.sum(axis=1, keepdims=True) > 1, uniform, scores), -np.inf)
