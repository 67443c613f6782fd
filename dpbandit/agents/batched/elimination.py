"""Per-user play among the arms in contention, from released quantities only (issue 40 item 3).

Private successive elimination plays uniformly among the arms not yet eliminated and drops none without evidence
[Sajed and Sheffet 2019, Algorithm 1; Azize and Basu 2022, AdaP-UCB]. Here, per user:

* **elimination** (:func:`surviving`, opt-in ``z > 0``): the arms whose upper bound ``score + z sd`` reaches the
  best lower bound ``max (score - z sd)``; with ``z = 0`` the greedy arm (ties kept);
* **uncertified arms** (:func:`uncertified`): an arm whose summed released count does not certify a single row,
  ``N_k - c s_N <= 0`` (``s_N`` that sum's noise std), has sums that are noise (the release cannot tell whether it
  had rows), so its estimate is no evidence against it, while a confidence computed from the noisy count as if it
  were rows looks narrow: on the plain Bernoulli bandit (constant context) an arm that lost one early batch got no
  row again, whatever its mean. While there are such arms, a share of the users (drawn by the agent) plays
  uniformly among them instead (:func:`contention_scores`).

The user then draws uniformly among the arms left, or plays the single one. Every input is a released quantity
(the summed counts, the scores and their std) or public (the noise std, the multipliers, the share), so play stays
a function of the user's own context, the releases and the agent's randomness.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CERTIFY", "contention_scores", "surviving", "uncertified"]

#: Default ``c`` of :func:`uncertified` [Fill; measured, docs/batched_agents.md "Issue 40 item 3"]: at ``c = 2``
#: and 3 the arms that lost stay in play for more rows (plain Bernoulli bandits, epsilon 1, T = 5,000, 50 seeds,
#: every user among the uncertified arms: means 0.3 / 0.5 / 0.7 mean regret 162 at ``c = 1``, 202 at 2, 283 at 3;
#: 0.2 / 0.3 / 0.4 / 0.45 / 0.6 233, 344, 486); at ``c = 0`` an arm keeps the rows of its first batch and none is
#: ever uncertified (217 and 259, as without the rule).
CERTIFY = 1.0


def uncertified(counts: np.ndarray, count_sd: float, multiplier: float) -> np.ndarray:
    """Arms whose summed released count ``counts`` is at most ``multiplier`` times its noise std ``count_sd``
    (``multiplier = 0``: only arms with a count of 0 or less, e.g. never played with noise off)."""
    return np.asarray(counts) - multiplier * count_sd <= 0.0


def surviving(scores: np.ndarray, sd: np.ndarray | None, z: float) -> np.ndarray:
    """Per user ``(m, K)``, the arms whose ``score + z sd`` reaches the best ``score - z sd`` (``z = 0`` or
    ``sd`` ``None``: the arms of maximal score)."""
    if z == 0.0 or sd is None:
        return scores == scores.max(axis=1, keepdims=True)
    return scores + z * sd >= (scores - z * sd).max(axis=1, keepdims=True)


def contention_scores(scores: np.ndarray, active: np.ndarray, starved: np.ndarray, share: float,
                      rng: np.random.Generator) -> np.ndarray:
    """Scores whose arg-max plays per user among the arms in contention: ``starved`` (``(K,)``, possibly none)
    for a share ``share`` of the users, ``active`` ``(m, K)`` for the rest; ``-inf`` outside them, a uniform
    draw among two or more, the score of a single one. One call of ``rng`` of shape ``(m, K + 1)`` (so a block of
    users draws what as many single users draw in turn)."""
    draw = rng.random((scores.shape[0], scores.shape[1] + 1))
    if starved.any():
        active = np.where(draw[:, :1] < share, starved, active)
    uniform = draw[:, 1:]
    return np.where(active, np.where(active.sum(axis=1, keepdims=True) > 1, uniform, scores), -np.inf)
