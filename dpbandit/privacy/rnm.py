"""Private selection over a finite candidate set: report-noisy-max (Laplace) and the exponential mechanism.

Guarantees (Dwork & Roth 2014, Claim 3.9 and Thm 3.10; McSherry & Talwar 2007) for scores whose every entry
changes by at most ``Delta`` between neighbouring datasets:

* Report-noisy-max with ``Lap(b)`` noise is ``(2 Delta / b)``-DP in general, and ``(Delta / b)``-DP if the
  scores are *monotone* (all move in the same direction, e.g. counts). Dwork-Roth's scale ``Delta/epsilon``
  needs monotonicity; for generic scores (e.g. ``<d_t, v>`` over the 2d vertices of an l1 ball in DP-POFW,
  004 Algorithm 2 line 8) use ``b = 2 Delta / epsilon`` for an epsilon-DP choice (notes/ofw_hdb.md section 6.4).
* Exponential mechanism ``P(i) ~ exp(epsilon s_i / (2 Delta))`` is epsilon-DP in general; with
  ``monotone=True`` the exponent is ``epsilon s_i / Delta`` (also epsilon-DP for monotone scores). It is
  epsilon-bounded-range, hence ``epsilon^2 / 8``-zCDP (Cesar and Rogers 2021, "Bounding, concentrating, and
  truncating", Lemma 3.2 with Durfee and Rogers 2019), four times less than the generic pure-DP conversion
  ``epsilon^2 / 2`` (Bun and Steinke 2016).
* Top-k by one-shot Gumbel noise (:func:`top_k_exponential`) has the law of ``k`` rounds of peeling with the
  exponential mechanism (Durfee and Rogers 2019, "Practical differentially private top-k selection with
  pay-what-you-get composition", Lemma 4.2): ``k epsilon^2 / 8``-zCDP.

Every selection's output passes through :func:`dpbandit.privacy.recording.released` (recorded or replayed by
the post-processing tests; the identity otherwise).
"""

from __future__ import annotations

import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy import recording
from dpbandit.privacy.noise import laplace

__all__ = ["exponential_mechanism", "report_noisy_max", "report_noisy_min", "rnm_epsilon", "top_k_exponential"]


def _scores(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    if scores.ndim < 1 or scores.shape[-1] < 1:
        raise ValueError(f"Expected scores with a non-empty last (candidate) axis, got shape {scores.shape}.")
    if not np.all(np.isfinite(scores)):
        raise ValueError("Expected finite scores.")
    return scores


def report_noisy_max(rng: np.random.Generator, scores: np.ndarray, scale: float) -> np.ndarray:
    """Index of ``max_i (scores_i + Lap(scale))`` over the last axis, batched over leading axes.

    One fresh Laplace draw per candidate (and per batch row). Returns an int array of the leading shape
    (a 0-d array for 1-d ``scores``). Privacy: ``2 Delta / scale`` (generic), ``Delta / scale`` (monotone).
    """
    v.rng(rng=rng)
    scores = _scores(scores)
    index = np.argmax(scores + laplace(rng, scale, scores.shape), axis=-1)
    return recording.released("report_noisy_max", index)


def report_noisy_min(rng: np.random.Generator, scores: np.ndarray, scale: float) -> np.ndarray:
    """Index of ``min_i (scores_i + Lap(scale))`` (the noisy LMO of 004 Algorithm 2 line 9); same guarantee."""
    v.rng(rng=rng)
    scores = _scores(scores)
    index = np.argmin(scores + laplace(rng, scale, scores.shape), axis=-1)
    return recording.released("report_noisy_min", index)


def rnm_epsilon(scale: float, sensitivity: float, *, monotone: bool = False) -> float:
    """Pure-DP epsilon of one report-noisy-max/min call: ``Delta/scale`` (monotone) or ``2 Delta/scale``."""
    scale = v.positive(scale=scale)
    sensitivity = v.positive(sensitivity=sensitivity)
    return (1.0 if monotone else 2.0) * sensitivity / scale


def exponential_mechanism(
    rng: np.random.Generator,
    scores: np.ndarray,
    epsilon: float,
    sensitivity: float,
    *,
    monotone: bool = False,
) -> np.ndarray:
    """Exponential mechanism over the last axis (batched), sampled by the Gumbel-max trick.

    ``P(i) ~ exp(epsilon * scores_i / (2 Delta))`` (or ``/ Delta`` if ``monotone``); epsilon-DP.
    """
    v.rng(rng=rng)
    epsilon = v.positive(epsilon=epsilon)
    sensitivity = v.positive(sensitivity=sensitivity)
    scores = _scores(scores)
    factor = epsilon / ((1.0 if monotone else 2.0) * sensitivity)
    index = np.argmax(factor * scores + rng.gumbel(size=scores.shape), axis=-1)
    return recording.released("exponential_mechanism", index)


def top_k_exponential(
    rng: np.random.Generator,
    scores: np.ndarray,
    k: int,
    epsilon: float,
    sensitivity: float,
) -> np.ndarray:
    """The ``k`` indices of the largest ``epsilon s_i / (2 Delta) + Gumbel`` over the last axis (batched), best first.

    One draw of i.i.d. standard Gumbel noise per candidate (and per batch row); the law of ``k`` peeling rounds of
    the ``epsilon``-exponential mechanism on scores of sensitivity ``Delta`` (module docstring): ``k epsilon^2/8``-zCDP.
    Returns an int array of shape ``(*leading, k)``.
    """
    v.rng(rng=rng)
    epsilon = v.positive(epsilon=epsilon)
    sensitivity = v.positive(sensitivity=sensitivity)
    scores = _scores(scores)
    k = v.integer(k=k, minimum=1, maximum=scores.shape[-1])
    noisy = epsilon / (2.0 * sensitivity) * scores + rng.gumbel(size=scores.shape)
    top = np.argpartition(-noisy, k - 1, axis=-1)[..., :k]
    order = np.argsort(-np.take_along_axis(noisy, top, axis=-1), axis=-1, kind="stable")
    return recording.released("top_k_exponential", np.take_along_axis(top, order, axis=-1))
