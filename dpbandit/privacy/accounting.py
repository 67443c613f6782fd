"""Privacy accounting through Google's ``dp_accounting`` (no hand-written composition formulas).

Event contract (every helper returns a ``dp_accounting.DpEvent``; noise multipliers are *noise / Delta*):

* ``gaussian_event(sigma, sensitivity, count)``: ``N(0, sigma^2 I)`` added to a statistic of l2-sensitivity
  ``Delta``; ``GaussianDpEvent(sigma / Delta)`` self-composed ``count`` times.
* ``laplace_event(scale, sensitivity, count)``: ``Lap(scale)`` per coordinate, l1-sensitivity ``Delta``.
* ``pure_dp_event(epsilon, count)``: any epsilon-DP mechanism (e.g. report-noisy-max, the exponential
  mechanism), represented by binary randomized response with the same epsilon. Exact: every epsilon-DP
  mechanism is a post-processing of RR_epsilon (Kairouz, Oh & Viswanath 2015), so its RDP / PLD are dominated.
* ``tree_aggregation_event(noise_multiplier, steps)``: binary-mechanism prefix sums over ``steps`` inputs with
  ``N(0, (noise_multiplier * Delta)^2)`` node noise; ``SingleEpochTreeAggregationDpEvent`` (RDP accountant:
  ``alpha * bit_length(steps) / (2 z^2)``, i.e. Gaussian composition over the nodes containing one input).
* ``zcdp_event(rho)``: a rho-zCDP mechanism.

Neighbouring relation. Sensitivities are those of the papers' relation (datasets differing in one entry,
"replace-one"): ``Delta = sup ||f(D) - f(D')||``. Expressed this way, a neighbouring pair shifts the statistic
by at most ``Delta``, which is what dp_accounting's ``REPLACE_SPECIAL`` relation computes (and the only one
it accepts for tree aggregation and, in the PLD accountant, for both Laplace and randomized response). So
``REPLACE_SPECIAL`` is the relation used for noise-addition events. Randomized response (our stand-in for a
generic epsilon-DP selection) must instead be accounted under ``REPLACE_ONE``: under ``REPLACE_SPECIAL``
dp_accounting compares RR with a uniform output and would report only ``log((e^eps + 1)/2)``. So
:func:`default_relation` picks ``REPLACE_ONE`` for events containing randomized response and
``REPLACE_SPECIAL`` otherwise (dp_accounting supports no relation for a mix of RR and tree aggregation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import dp_accounting
from dp_accounting import NeighboringRelation

from dpbandit import _validate as v
from dpbandit.privacy import calibration_cache
from dpbandit.privacy.gaussian_curve import gaussian_epsilon, gaussian_mu

__all__ = [
    "ACCOUNTANTS",
    "MAX_PURE_EPSILON",
    "MIN_MULTIPLIER",
    "RELATION",
    "default_relation",
    "epsilon_for",
    "epsilon_to_zcdp",
    "gaussian_composition_mu",
    "gaussian_event",
    "gaussian_sigma",
    "gaussian_sigma_zcdp",
    "generalized_gaussian_sigma",
    "group_gaussian_event",
    "laplace_event",
    "make_accountant",
    "pure_dp_event",
    "tree_aggregation_event",
    "tree_gaussian_sigma",
    "zcdp_event",
    "zcdp_to_epsilon",
]

ACCOUNTANTS = ("rdp", "pld")
RELATION = NeighboringRelation.REPLACE_SPECIAL
#: Smallest noise multiplier the search of :func:`_calibrate` brackets (2^-40 from 1: 40 halvings, about 0.05 s
#: with the RDP accountant) [Fill]: RDP at 1e-12 reaches epsilon ~1e24, so no epsilon up to 1e9 is refused.
MIN_MULTIPLIER = 1e-12


def _leaves(event: dp_accounting.DpEvent):
    if isinstance(event, dp_accounting.SelfComposedDpEvent):
        yield from _leaves(event.event)
    elif isinstance(event, dp_accounting.ComposedDpEvent):
        for e in event.events:
            yield from _leaves(e)
    else:
        yield event


def _has_rr(event: dp_accounting.DpEvent) -> bool:
    return any(isinstance(e, dp_accounting.RandomizedResponseDpEvent) for e in _leaves(event))


def _unroll_rr(event: dp_accounting.DpEvent) -> dp_accounting.DpEvent:
    """Rewrite ``SelfComposed(e, n)`` containing randomized response as ``Composed([e] * n)``.

    Works around dp_accounting 0.6.0's PLD accountant, which ignores the composition count of
    ``RandomizedResponseDpEvent`` (it would report the epsilon of a single RR for ``n`` of them).
    """
    if isinstance(event, dp_accounting.SelfComposedDpEvent) and _has_rr(event.event):
        return dp_accounting.ComposedDpEvent([_unroll_rr(event.event)] * event.count)
    if isinstance(event, dp_accounting.ComposedDpEvent):
        return dp_accounting.ComposedDpEvent([_unroll_rr(e) for e in event.events])
    return event


def default_relation(event: dp_accounting.DpEvent) -> NeighboringRelation:
    """``REPLACE_ONE`` if ``event`` contains randomized response (pure-DP selection), else ``REPLACE_SPECIAL``."""
    return NeighboringRelation.REPLACE_ONE if _has_rr(event) else RELATION


def gaussian_composition_mu(event: dp_accounting.DpEvent) -> float | None:
    """``mu = sqrt(sum_i count_i / z_i^2)`` if ``event`` composes Gaussian mechanisms only (``GaussianDpEvent``,
    self-composed or composed), else ``None``: the whole event is then exactly one Gaussian mechanism of
    noise multiplier ``1 / mu`` (:mod:`dpbandit.privacy.gaussian_curve`). ``inf`` if a multiplier is 0."""
    if isinstance(event, dp_accounting.GaussianDpEvent):
        return math.inf if event.noise_multiplier == 0 else 1.0 / event.noise_multiplier
    if isinstance(event, dp_accounting.SelfComposedDpEvent):
        inner = gaussian_composition_mu(event.event)
        return None if inner is None else inner * math.sqrt(event.count)
    if isinstance(event, dp_accounting.ComposedDpEvent) and event.events:
        parts = [gaussian_composition_mu(e) for e in event.events]
        return None if any(p is None for p in parts) else math.sqrt(sum(p * p for p in parts))
    return None


def _exact_gaussian(event: dp_accounting.DpEvent, accountant: str, relation: NeighboringRelation) -> float | None:
    """The composition's ``mu`` where the PLD accountant's answer is the exact Gaussian curve (a composition of
    Gaussians under the shift relations ``REPLACE_SPECIAL`` / ``ADD_OR_REMOVE_ONE``), else ``None``."""
    shift = relation in (NeighboringRelation.REPLACE_SPECIAL, NeighboringRelation.ADD_OR_REMOVE_ONE)
    return gaussian_composition_mu(event) if accountant == "pld" and shift else None


def _count(count: int) -> int:
    return v.integer(count=count, minimum=1)


def _self_compose(event: dp_accounting.DpEvent, count: int) -> dp_accounting.DpEvent:
    return event if count == 1 else dp_accounting.SelfComposedDpEvent(event, count)


def gaussian_event(sigma: float, sensitivity: float = 1.0, count: int = 1) -> dp_accounting.DpEvent:
    """``count`` Gaussian mechanisms with noise std ``sigma`` on l2-sensitivity ``sensitivity``."""
    z = v.positive(sigma=sigma) / v.positive(sensitivity=sensitivity)
    return _self_compose(dp_accounting.GaussianDpEvent(z), _count(count))


def group_gaussian_event(multiplier: float, rounds: Sequence[int]) -> dp_accounting.DpEvent:
    """Gaussian releases of noise multiplier ``z`` that one person enters with ``rounds[i]`` rounds each.

    Release ``i`` adds ``N(0, z^2 I)`` to a (rescaled) sum over rounds whose replace-one sensitivity is 1, so
    replacing the person's ``k_i`` rounds moves it by at most ``k_i`` (triangle inequality): for that person
    it is a Gaussian mechanism of multiplier ``z / k_i``. Gaussians compose exactly into one Gaussian, also
    adaptively (Dong, Roth and Su 2022, Corollary 3.3: ``mu``-GDP composes as ``sqrt(sum mu_i^2)``, ``mu_i =
    k_i / z``):

        ``GaussianDpEvent(z / sqrt(sum_i k_i^2))``,

    the reduction dp_accounting applies to a composition of ``GaussianDpEvent``s (tested against it). With
    ``sum_i k_i <= m``, ``sum_i k_i^2 <= m^2``: the worst case is all ``m`` rounds in one release,
    ``rounds = (m,)``. Releases the person does not enter (``k_i = 0``) cost nothing.
    """
    z = v.positive(multiplier=multiplier)
    counts = [v.integer(rounds=k, minimum=0) for k in rounds]
    if not any(counts):
        raise ValueError(f"Expected rounds with at least one positive entry, got rounds={list(rounds)!r}.")
    return dp_accounting.GaussianDpEvent(z / math.sqrt(sum(k * k for k in counts)))


def laplace_event(scale: float, sensitivity: float = 1.0, count: int = 1) -> dp_accounting.DpEvent:
    """``count`` Laplace mechanisms with scale ``scale`` on l1-sensitivity ``sensitivity``."""
    z = v.positive(scale=scale) / v.positive(sensitivity=sensitivity)
    return _self_compose(dp_accounting.LaplaceDpEvent(z), _count(count))


#: Largest epsilon of :func:`pure_dp_event` [Fill]: its randomized response flips with probability
#: ``1 / (e^epsilon + 1)``, about 1e-304 at 700, still a normal float (``e^epsilon`` overflows above 709.78).
MAX_PURE_EPSILON = 700.0


def pure_dp_event(epsilon: float, count: int = 1) -> dp_accounting.DpEvent:
    """``count`` epsilon-DP mechanisms, as binary randomized response with parameter epsilon (see module doc).

    Refuses epsilon above :data:`MAX_PURE_EPSILON` (naming it): ``e^epsilon`` would overflow.
    """
    epsilon = v.positive(epsilon=epsilon)
    if epsilon > MAX_PURE_EPSILON:
        raise ValueError(
            f"Expected epsilon <= {MAX_PURE_EPSILON:g} for a pure-DP event (randomized response flips with "
            f"probability 1/(e^epsilon + 1): e^epsilon overflows above it), got epsilon={epsilon:g}."
        )
    noise = 2.0 / (math.exp(epsilon) + 1.0)  # P(keep) / P(flip) = (1 - noise/2) / (noise/2) = e^epsilon
    return _self_compose(dp_accounting.RandomizedResponseDpEvent(noise, 2), _count(count))


def tree_aggregation_event(noise_multiplier: float, steps: int) -> dp_accounting.DpEvent:
    """Binary-mechanism prefix sums over ``steps`` inputs, node noise std ``noise_multiplier * Delta``.

    Needs the RDP accountant with ``REPLACE_SPECIAL`` (the default of :func:`epsilon_for`). With an unknown
    horizon, pass the number of steps actually run (the depth, hence epsilon, grows with it).
    """
    z = v.positive(noise_multiplier=noise_multiplier)
    return dp_accounting.SingleEpochTreeAggregationDpEvent(z, v.integer(steps=steps, minimum=1))


def zcdp_event(rho: float) -> dp_accounting.DpEvent:
    """A rho-zCDP mechanism (RDP curve ``alpha * rho``)."""
    return dp_accounting.ZCDpEvent(v.positive(rho=rho))


def make_accountant(
    accountant: str = "rdp", relation: NeighboringRelation = RELATION
) -> dp_accounting.PrivacyAccountant:
    """A fresh dp_accounting accountant: ``"rdp"`` (Renyi DP) or ``"pld"`` (privacy loss distributions)."""
    v.one_of(ACCOUNTANTS, accountant=accountant)
    if accountant == "rdp":
        return dp_accounting.rdp.RdpAccountant(neighboring_relation=relation)
    return dp_accounting.pld.PLDAccountant(neighboring_relation=relation)


def epsilon_for(
    event: dp_accounting.DpEvent,
    delta: float,
    accountant: str = "rdp",
    *,
    relation: NeighboringRelation | None = None,
) -> float:
    """Epsilon at ``delta`` of ``event`` according to the chosen dp_accounting accountant.

    ``relation=None`` uses :func:`default_relation`. Under ``"pld"``, a composition of Gaussian mechanisms only
    (:func:`gaussian_composition_mu`) gets the exact curve that the PLD accountant discretises
    (:func:`dpbandit.privacy.gaussian_curve.gaussian_epsilon`, certified by dp_accounting's
    ``GaussianPrivacyLoss``): the same number up to the discretisation's round-up, in microseconds at any
    epsilon, where the discretised PLD costs seconds from epsilon 10 and hangs at 1e9.

    Raises ``ValueError`` naming the unsupported sub-event (e.g. tree aggregation under ``"pld"``).
    """
    delta = v.probability(delta=delta)
    relation = default_relation(event) if relation is None else relation
    v.one_of(ACCOUNTANTS, accountant=accountant)
    mu = _exact_gaussian(event, accountant, relation)
    if mu is not None:
        return math.inf if math.isinf(mu) else gaussian_epsilon(mu, delta)
    acc = make_accountant(accountant, relation)
    if accountant == "pld":
        event = _unroll_rr(event)
    try:
        acc.compose(event)
    except dp_accounting.UnsupportedEventError as err:
        raise ValueError(f"accountant={accountant!r} does not support this event: {err}") from err
    return float(acc.get_epsilon(delta))


def _calibrate(make_event, epsilon: float, delta: float, accountant: str, relation: NeighboringRelation) -> float:
    """Smallest noise parameter (epsilon decreasing in it) meeting (epsilon, delta), via calibrate_dp_mechanism;
    computed once per machine (:mod:`dpbandit.privacy.calibration_cache`, keyed by the event, epsilon, delta,
    the accountant and the relation).

    The bracket is found by doubling / halving from 1, down to :data:`MIN_MULTIPLIER` (the PLD accountant
    cannot evaluate tiny multipliers: its calibrations of Gaussians go through :func:`gaussian_sigma`'s
    closed form instead).
    A value read back from a file is used only after one accountant evaluation confirms that it meets
    ``epsilon`` (about 3% of a search's time): a stale or edited file can cost a search, never privacy.
    """
    text = calibration_cache.key(make_event, epsilon=float(epsilon), delta=float(delta), accountant=accountant,
                                 relation=relation.name)
    return calibration_cache.cached(
        text,
        lambda: _search(make_event, epsilon, delta, accountant, relation),
        meets=lambda z: _epsilon_at(make_event, z, delta, accountant, relation) <= epsilon,
    )


def _epsilon_at(make_event, z: float, delta: float, accountant: str, relation: NeighboringRelation) -> float:
    """Epsilon at ``delta`` of ``make_event(z)`` (one accountant evaluation)."""
    return make_accountant(accountant, relation).compose(make_event(z)).get_epsilon(delta)


def _search(make_event, epsilon: float, delta: float, accountant: str, relation: NeighboringRelation) -> float:
    """:func:`_calibrate` without the cache: dp-accounting's search."""

    def eps(z: float) -> float:
        return _epsilon_at(make_event, z, delta, accountant, relation)

    lo = hi = 1.0
    if eps(hi) > epsilon:
        while eps(hi) > epsilon:
            lo, hi = hi, 2.0 * hi
            if hi > 1e9:
                raise ValueError(f"No noise level reaches epsilon={epsilon} at delta={delta}.")
    else:
        while eps(lo) <= epsilon:
            lo, hi = lo / 2.0, lo
            if lo < MIN_MULTIPLIER:
                raise ValueError(
                    f"epsilon={epsilon:g} too large to calibrate (noise multiplier < {MIN_MULTIPLIER:g}); "
                    "for no noise use noise=False."
                )
    return float(
        dp_accounting.calibrate_dp_mechanism(
            lambda: make_accountant(accountant, relation),
            make_event,
            epsilon,
            delta,
            dp_accounting.ExplicitBracketInterval(lo, hi),
            tol=1e-6 * lo,
        )
    )


def gaussian_sigma(
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    count: int = 1,
    *,
    accountant: str = "pld",
    relation: NeighboringRelation = RELATION,
) -> float:
    """Smallest Gaussian noise std making ``count`` Gaussian mechanisms (sensitivity ``Delta``) (epsilon, delta)-DP.

    Calibrated on the single Gaussian of multiplier ``z / sqrt(count)``, which is exactly the ``count``-fold
    composition (the reduction dp_accounting's own accountants apply to ``SelfComposedDpEvent(GaussianDpEvent)``).
    ``"pld"`` (default): the exact curve the PLD accountant discretises, Balle and Wang 2018 Theorem 8
    (:func:`dpbandit.privacy.gaussian_curve.gaussian_mu`: closed form inverted by a capped bisection, under a
    millisecond at any epsilon, certified by dp_accounting's ``GaussianPrivacyLoss``); other relations and
    ``"rdp"``: ``dp_accounting.calibrate_dp_mechanism`` (cached, :func:`_calibrate`).
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    sensitivity = v.positive(sensitivity=sensitivity)
    count = _count(count)
    v.one_of(ACCOUNTANTS, accountant=accountant)
    if _exact_gaussian(dp_accounting.GaussianDpEvent(1.0), accountant, relation) is not None:
        z = 1.0 / gaussian_mu(epsilon, delta)
    else:
        z = _calibrate(dp_accounting.GaussianDpEvent, epsilon, delta, accountant, relation)
    return z * math.sqrt(count) * sensitivity


def tree_gaussian_sigma(epsilon: float, delta: float, steps: int, sensitivity: float = 1.0) -> float:
    """Node noise std of a Gaussian tree over ``steps`` inputs (sensitivity ``Delta``) for (epsilon, delta)-DP (RDP)."""
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    steps = v.integer(steps=steps, minimum=1)
    sensitivity = v.positive(sensitivity=sensitivity)
    z = _calibrate(lambda z: tree_aggregation_event(z, steps), epsilon, delta, "rdp", RELATION)
    return z * sensitivity


def gaussian_sigma_zcdp(rho: float, sensitivity: float = 1.0, count: int = 1) -> float:
    """Gaussian noise std giving rho-zCDP for ``count`` mechanisms: ``Delta * sqrt(count / (2 rho))`` (Bun-Steinke)."""
    rho = v.positive(rho=rho)
    sensitivity = v.positive(sensitivity=sensitivity)
    return sensitivity * math.sqrt(_count(count) / (2.0 * rho))


def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """Epsilon at ``delta`` of a rho-zCDP mechanism (RDP accountant's conversion of the curve ``alpha * rho``)."""
    return epsilon_for(zcdp_event(rho), delta, "rdp")


def epsilon_to_zcdp(epsilon: float, delta: float) -> float:
    """Largest rho such that rho-zCDP implies (epsilon, delta)-DP via the RDP accountant.

    Calibrates the noise multiplier ``z`` of a Gaussian event (whose RDP curve is exactly ``alpha/(2 z^2)``)
    and returns ``rho = 1 / (2 z^2)``.
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    z = _calibrate(dp_accounting.GaussianDpEvent, epsilon, delta, "rdp", RELATION)
    return 1.0 / (2.0 * z**2)


def generalized_gaussian_sigma(epsilon: float, delta: float, sensitivity: float, kappa: float) -> float:
    """Scale of the generalized Gaussian mechanism, Lemma 2.1 of 004: ``sigma^2 = 2 kappa log(1/delta) s^2 / eps^2``.

    Analytic (Bassily et al. 2021b); dp_accounting has no event for this mechanism. ``s`` is the
    ``||.||``-sensitivity and ``kappa`` the regularity constant of :func:`regularity.smooth_norm`.
    """
    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    sensitivity = v.positive(sensitivity=sensitivity)
    kappa = v.positive(kappa=kappa)
    return math.sqrt(2.0 * kappa * math.log(1.0 / delta)) * sensitivity / epsilon
