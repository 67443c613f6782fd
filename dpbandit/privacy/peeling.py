"""Private top-s release by peeling, and its accounting (the release inside FLIPHAT's N-IHT).

Mechanism (Cai, Wang & Zhang 2021, "The cost of privacy", Algorithm "Peeling" [O]; FLIPHAT's ``peel`` [C]):
for a vector ``v`` in R^d whose every coordinate moves by at most ``lam`` between neighbouring datasets,

1. select ``S`` by ``s`` rounds of report-noisy-max on the scores ``|v_j|`` over the coordinates not yet
   selected, with fresh ``Lap(b)`` noise on every candidate in every round (:func:`report_noisy_top`, each
   round one :func:`dpbandit.privacy.rnm.report_noisy_max`);
2. release ``u_S = v_S + Lap(b)^s`` and ``u_j = 0`` off ``S`` (:func:`peel`).

Privacy of one peel (replace-one; ``z = b / lam`` the noise multiplier). A score ``|v_j|`` moves by at most
``lam``, in either direction, so one selection round is ``eps0 = 2 lam / b = 2 / z`` pure DP
(:func:`dpbandit.privacy.rnm.rnm_epsilon`, generic scores); a released value is a Laplace mechanism with
shift ``<= lam``. Dominating pairs: every ``eps0``-DP mechanism is a post-processing of binary randomized
response ``RR_eps0`` (Kairouz, Oh & Viswanath 2015), and ``Lap(0, z)`` vs ``Lap(1, z)`` for a value. The
rounds are adaptive; by the composition theorem of f-DP (Dong, Roth & Su 2022, Theorem 3.2) ``R`` rounds are
dominated by ``RR_eps0^R (x) Lap(z)^R``, whose privacy loss distribution (PLD) gives the tight
``(epsilon, delta)`` curve.

Accounting route [derived]. ``dp_accounting``'s ``PLDAccountant`` cannot compose this pair: randomized
response must be read under ``REPLACE_ONE`` (under ``REPLACE_SPECIAL`` it is compared with a uniform output,
which under-reports; :mod:`dpbandit.privacy.accounting`) and it accepts Laplace only under
``REPLACE_SPECIAL``. So :func:`peeling_pld` builds the two PLD objects directly,
``privacy_loss_distribution.from_randomized_response(..., REPLACE_ONE)`` and ``from_laplace_mechanism``
(both symmetric, the same discretisation, pessimistic rounding) and composes them (``self_compose``,
``compose``). Tested against an independent grid convolution of the exact privacy losses.

Neighbour *cases*. A mechanism may run several peelings whose inputs one user moves together (FLIPHAT's
disjoint model: a user whose played arm switches leaves one arm's data and joins another's, moving each by
at most ``lam / 2``). A case ``(count, shift)`` says that ``count`` peelings each see a shift of
``shift * lam`` (round epsilon ``2 shift / z``, Laplace multiplier ``z / shift``); :func:`peeling_epsilon`
returns the largest epsilon over the cases.

Extra Laplace releases (``counts``): multipliers of further Laplace mechanisms of sensitivity 1 released
once per neighbour case (e.g. FLIPHAT's adaptive-clipping counts, which pool all models); they are composed
into every case's PLD.

Calibrations of ``z`` for a target ``(epsilon, delta)`` and ``R`` rounds:

* ``"tight"`` (:func:`tight_multiplier`): the smallest ``z`` (to a relative ``1e-3``) whose PLD epsilon is
  ``<= epsilon``, by bisection;
* ``"paper"`` (:func:`paper_multiplier`): the peeling lemma at ``(epsilon/M, delta/M)`` per call,
  ``b = lam 2 sqrt(3 s log(M/delta)) / (epsilon/M)``, with basic composition over the ``M`` calls of one
  episode (FLIPHAT's ``utils.NIHT`` / ``peel`` [C]).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld

from dpbandit import _validate as v
from dpbandit.privacy import recording
from dpbandit.privacy.noise import laplace
from dpbandit.privacy.rnm import report_noisy_max, rnm_epsilon

__all__ = [
    "CALIBRATIONS",
    "DISCRETIZATION",
    "SINGLE",
    "paper_multiplier",
    "peel",
    "peeling_epsilon",
    "peeling_pld",
    "report_noisy_top",
    "tight_multiplier",
]

CALIBRATIONS = ("tight", "paper")
#: PLD value discretisation (dp_accounting's default): pessimistic rounding keeps epsilon an upper bound.
DISCRETIZATION = 1e-4
#: The neighbour case of a single peeling per round: one vector moved by up to ``lam``.
SINGLE: tuple[tuple[int, float], ...] = ((1, 1.0),)
_TOLERANCE = 1e-3


def report_noisy_top(rng: np.random.Generator, scores: np.ndarray, count: int, scale: float) -> np.ndarray:
    """Peeling selection: ``count`` rounds of report-noisy-max without replacement (batched over rows).

    Round ``i`` calls :func:`~dpbandit.privacy.rnm.report_noisy_max` on the ``d - i`` candidates not yet
    selected (fresh ``Lap(scale)`` on each, in increasing index order). Returns the selected indices in
    selection order, shape ``(*scores.shape[:-1], count)``.
    """
    v.rng(rng=rng)
    scores = np.asarray(scores, dtype=float)
    dim = scores.shape[-1]
    count = v.integer(count=count, minimum=1, maximum=dim)
    lead = scores.shape[:-1]
    remaining = np.broadcast_to(np.arange(dim), (*lead, dim))
    chosen = np.empty((*lead, count), dtype=np.int64)
    for i in range(count):
        pick = report_noisy_max(rng, np.take_along_axis(scores, remaining, axis=-1), scale)
        chosen[..., i] = np.take_along_axis(remaining, pick[..., None], axis=-1)[..., 0]
        keep = np.arange(dim - i) != pick[..., None]
        remaining = remaining[keep].reshape(*lead, dim - i - 1)
    return chosen


def peel(rng: np.random.Generator, vector: np.ndarray, count: int, scale: float | None) -> np.ndarray:
    """The peeling release of ``vector`` (last axis; batched): noisy top-``count`` of ``|v|``, noisy values.

    ``scale=None`` is the noiseless debugging path: the exact top ``count`` of ``|v|`` (lowest index first
    among ties) with exact values. The noisy output passes through
    :func:`dpbandit.privacy.recording.released` (recorded or replayed by the post-processing tests).
    """
    vector = np.asarray(vector, dtype=float)
    if scale is None:
        count = v.integer(count=count, minimum=1, maximum=vector.shape[-1])
        support = np.argsort(-np.abs(vector), axis=-1, kind="stable")[..., :count]
        values = np.take_along_axis(vector, support, axis=-1)
    else:
        support = report_noisy_top(rng, np.abs(vector), count, scale)
        values = np.take_along_axis(vector, support, axis=-1) + laplace(rng, scale, support.shape)
    out = np.zeros_like(vector)
    np.put_along_axis(out, support, values, axis=-1)
    return out if scale is None else recording.released("peel", out)


def _cases(cases: Sequence[tuple[int, float]]) -> tuple[tuple[int, float], ...]:
    out = []
    for count, shift in cases:
        count = v.integer(case_count=count, minimum=1)
        shift = v.positive(case_shift=shift)
        if shift > 1.0:
            raise ValueError(f"Expected case_shift <= 1 (a fraction of the sensitivity), got {shift}.")
        out.append((count, shift))
    if not out:
        raise ValueError("Expected at least one neighbour case.")
    return tuple(out)


def peeling_pld(
    multiplier: float, rounds: int, shift: float = 1.0, counts: Sequence[float] = ()
) -> pld.PrivacyLossDistribution:
    """PLD of ``rounds`` peeling rounds (one noisy max + one noisy value each) at ``z = multiplier``.

    Each score and value moves by ``shift * lam``: ``RR`` with epsilon ``2 shift / z`` (REPLACE_ONE) and
    ``Lap`` with multiplier ``z / shift``, each self-composed ``rounds`` times, then composed, and composed
    with one Laplace mechanism of multiplier ``c`` (sensitivity 1) for each ``c`` in ``counts``.
    """
    z = v.positive(multiplier=multiplier)
    rounds = v.integer(rounds=rounds, minimum=1)
    shift = v.positive(shift=shift)
    eps0 = rnm_epsilon(z, shift)  # 2 shift / z
    rr = pld.from_randomized_response(
        2.0 / (1.0 + math.exp(eps0)), 2, value_discretization_interval=DISCRETIZATION,
        neighboring_relation=pld.NeighborRel.REPLACE_ONE,
    )
    lap = pld.from_laplace_mechanism(z, sensitivity=shift, value_discretization_interval=DISCRETIZATION)
    out = rr.self_compose(rounds).compose(lap.self_compose(rounds)) if rounds > 1 else rr.compose(lap)
    for c in counts:
        out = out.compose(
            pld.from_laplace_mechanism(v.positive(count_multiplier=c),
                                       value_discretization_interval=DISCRETIZATION)
        )
    return out


@functools.lru_cache(maxsize=1024)
def _epsilon(
    multiplier: float,
    rounds: int,
    delta: float,
    cases: tuple[tuple[int, float], ...],
    counts: tuple[float, ...],
) -> float:
    return max(
        float(peeling_pld(multiplier, count * rounds, shift, counts).get_epsilon_for_delta(delta))
        for count, shift in cases
    )


def peeling_epsilon(
    multiplier: float,
    rounds: int,
    delta: float,
    cases: Sequence[tuple[int, float]] = SINGLE,
    counts: Sequence[float] = (),
) -> float:
    """Epsilon at ``delta`` of ``rounds`` peeling rounds at multiplier ``z`` (plus the ``counts`` Laplace
    releases): the largest over ``cases``."""
    z = v.positive(multiplier=multiplier)
    rounds = v.integer(rounds=rounds, minimum=1)
    delta = v.probability(delta=delta)
    return _epsilon(z, rounds, delta, _cases(cases), tuple(v.positive(count_multiplier=c) for c in counts))


@functools.lru_cache(maxsize=256)
def _tight(
    epsilon: float, delta: float, rounds: int, cases: tuple[tuple[int, float], ...], counts: tuple[float, ...]
) -> float:
    # pure-DP composition: every round costs 3 shift / z over count peelings and a count 1 / c
    room = epsilon - sum(1.0 / c for c in counts)
    if room <= 0:
        raise ValueError(f"The count releases alone cost {epsilon - room:.4g} >= epsilon={epsilon} (pure).")
    hi = 3.0 * rounds * max(count * shift for count, shift in cases) / room
    while _epsilon(hi, rounds, delta, cases, counts) > epsilon:  # only through the PLD's pessimistic rounding
        hi *= 2.0
    lo = hi / 2.0
    while _epsilon(lo, rounds, delta, cases, counts) <= epsilon:
        lo, hi = lo / 2.0, lo
    while hi / lo > 1.0 + _TOLERANCE:
        mid = math.sqrt(lo * hi)
        if _epsilon(mid, rounds, delta, cases, counts) <= epsilon:
            hi = mid
        else:
            lo = mid
    return hi


def tight_multiplier(
    epsilon: float,
    delta: float,
    rounds: int,
    cases: Sequence[tuple[int, float]] = SINGLE,
    counts: Sequence[float] = (),
) -> float:
    """Smallest ``z`` (relative tolerance 1e-3, from above) with PLD epsilon ``<= epsilon`` at ``delta``.

    Memoised: a bisection takes about a second and an agent needs one per distinct round count.
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    rounds = v.integer(rounds=rounds, minimum=1)
    counts = tuple(v.positive(count_multiplier=c) for c in counts)
    return _tight(epsilon, delta, rounds, _cases(cases), counts)


def paper_multiplier(epsilon: float, delta: float, sparsity: int, iterations: int) -> float:
    """FLIPHAT's calibration ``z = 2 sqrt(3 s log(M / delta)) M / epsilon`` (peel at ``(eps/M, delta/M)``)."""
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    s = v.integer(sparsity=sparsity, minimum=1)
    M = v.integer(iterations=iterations, minimum=1)
    return 2.0 * math.sqrt(3.0 * s * math.log(M / delta)) * M / epsilon
