"""Per-user play among the arms still in contention, from released quantities only (issue 40 item 3).

Two rules decide which arms a user may play; the user then draws uniformly among them (the agent's own stream),
or plays the single one left, as private successive elimination does [Sajed and Sheffet 2019, Algorithm 1:
uniform play among the arms not yet eliminated; Azize and Basu 2022, AdaP-UCB: no arm is dropped without
evidence]:

* **elimination** (:func:`surviving`, opt-in ``z > 0``): arms whose upper bound ``score + z sd`` reaches the best
  lower bound ``max (score - z sd)``; with ``z = 0`` the greedy arm (ties kept);
* **uncertified arms** (:func:`uncertified`): an arm whose released count does not certify a single row,
  ``N_k - c s_N <= 0`` (``N_k`` its count summed over the releases, ``s_N`` that sum's noise std), stays in play
  for every user. Its sums are then noise (the release cannot tell whether it had rows), so its estimate is no
  evidence against it, while a confidence computed from the noisy count as if it were rows looks narrow: on the
  plain Bernoulli bandit (constant context) an arm that lost one early batch got no row again, whatever its mean.

Every input is a released quantity (the summed counts, the scores and their std) or public (the noise std, the
multipliers), so play stays a function of the user's own context, the releases and the agent's randomness.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CERTIFY", "draw_among", "surviving", "uncertified"]

#: Default ``c`` of :func:`uncertified` [Fill; measured, docs/batched_agents.md "Issue 40 item 3"]: an arm
#: stays in play while its summed released count is within one noise std of zero. Plain Bernoulli bandits at
#: epsilon 1, T = 5,000, 20 seeds, root 0 (mean / worst regret): means 0.3 / 0.5 / 0.7 93 / 411 at ``c = 1``,
#: 191 / 469 at ``c = 2``, 304 / 1,238 without; 0.2 / 0.3 / 0.4 / 0.45 / 0.6 169 / 444 and 301 / 519
#: (``c = 2`` keeps every losing arm in play for twice as many rows).
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


def draw_among(scores: np.ndarray, active: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scores for the greedy arg-max: ``-inf`` outside ``active``; among two or more active arms a uniform draw
    from ``rng`` (so the arg-max is uniform among them); a single active arm keeps its score."""
    draw = rng.random(scores.shape)
    return np.where(active, np.where(active.sum(axis=1, keepdims=True) > 1, draw, scores), -np.inf)
