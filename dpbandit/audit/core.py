"""Empirical privacy audits: Monte Carlo distinguishers and Clopper-Pearson lower bounds on epsilon.

A mechanism is audited on one pair of neighbouring datasets ``(D, D')`` (Jagielski et al. 2020; Nasr et al.
2021). For any rejection region ``S`` of the outputs, ``(epsilon, delta)``-DP implies, with
``a = P_D(S)`` and ``b = P_D'(S)``::

    b <= e^eps a + delta,  a <= e^eps b + delta,  1-b <= e^eps (1-a) + delta,  1-a <= e^eps (1-b) + delta.

The distinguisher thresholds a scalar statistic of each run's output (``S = {stat > tau}``; e.g. a
log-likelihood ratio or a projection on ``f(D') - f(D)``). Half of the runs choose ``tau`` and the inequality
(the one with the largest Bonferroni-corrected bound); the other half estimate ``a`` and ``b`` with Clopper-Pearson
intervals (each at level ``alpha/2``), giving a lower bound ``epsilon_lb`` that holds with probability
``>= 1 - alpha``. A correct mechanism has ``epsilon_lb <= epsilon`` (w.p. ``>= 1 - alpha``); ``epsilon_lb >
claimed`` proves a violation.

Registering an audit (see docs/privacy.md)::

    @register("my-mechanism/correct")
    def _case() -> AuditCase:
        return AuditCase(name="my-mechanism/correct", mechanism=run, dataset=D, neighbour=D2,
                         claimed_epsilon=1.0, delta=1e-5, statistic=stat, accountant_epsilon=...)

where ``run(rng, dataset, n_runs)`` returns ``n_runs`` outputs (leading axis) and ``stat(outputs)`` maps them
to ``n_runs`` scalars (omit it if the outputs already are scalars).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from dpbandit import _validate as v

__all__ = [
    "AuditCase",
    "AuditResult",
    "Mechanism",
    "audit",
    "audit_many",
    "clopper_pearson",
    "epsilon_lower_bound",
    "gaussian_power",
    "make_case",
    "register",
    "registered",
]

Mechanism = Callable[[np.random.Generator, Any, int], np.ndarray]
Statistic = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class AuditCase:
    """One audit: a mechanism, a neighbouring pair, the claim, and what to expect.

    Attributes:
        name: unique id, conventionally ``"<mechanism>/<variant>"``.
        mechanism: ``mechanism(rng, dataset, n_runs) -> outputs`` with leading axis ``n_runs``.
        dataset, neighbour: the neighbouring pair ``(D, D')`` (any objects the mechanism accepts).
        claimed_epsilon, delta: the guarantee under test.
        statistic: ``outputs -> (n_runs,)`` scalar per run; ``None`` if outputs are already scalars.
        accountant_epsilon: epsilon at ``delta`` of the mechanism *as run* (dp_accounting or a lemma), for
            the report; ``nan`` if unknown.
        accountant: who computed ``accountant_epsilon`` (e.g. ``"pld"``, ``"analytic: Lemma 2.1 (004)"``).
        expect: ``"pass"`` for a correctly calibrated mechanism, ``"flag"`` for a deliberately broken one.
        notes: what the variant is.
    """

    name: str
    mechanism: Mechanism
    dataset: Any
    neighbour: Any
    claimed_epsilon: float
    delta: float
    statistic: Statistic | None = None
    accountant_epsilon: float = math.nan
    accountant: str = ""
    expect: str = "pass"
    notes: str = ""

    def __post_init__(self) -> None:
        v.positive(claimed_epsilon=self.claimed_epsilon)
        v.probability(delta=self.delta)
        v.one_of(("pass", "flag"), expect=self.expect)
        if not callable(self.mechanism):
            raise TypeError(f"Expected mechanism to be callable, got {type(self.mechanism).__name__}.")


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit` (``verdict``: ``"pass"`` if ``epsilon_lb <= claimed``, else ``"FLAGGED"``)."""

    name: str
    claimed_epsilon: float
    delta: float
    accountant_epsilon: float
    accountant: str
    epsilon_lb: float
    verdict: str
    expect: str
    n_runs: int
    alpha: float
    threshold: float
    inequality: str
    rates: tuple[float, float] = field(default=(math.nan, math.nan))
    notes: str = ""

    @property
    def as_expected(self) -> bool:
        """True if a correct mechanism passed or a broken one was flagged."""
        return (self.verdict == "pass") == (self.expect == "pass")

    def row(self) -> dict[str, Any]:
        """Flat dict for a results table."""
        return {
            "mechanism": self.name,
            "claimed_epsilon": self.claimed_epsilon,
            "delta": self.delta,
            "accountant_epsilon": self.accountant_epsilon,
            "accountant": self.accountant,
            "empirical_epsilon_lb": self.epsilon_lb,
            "verdict": self.verdict,
            "expected": self.expect,
            "as_expected": self.as_expected,
            "n_runs_per_dataset": self.n_runs,
            "confidence": 1 - self.alpha,
            "P_D(S)": self.rates[0],
            "P_D'(S)": self.rates[1],
            "notes": self.notes,
        }


_REGISTRY: dict[str, Callable[[], AuditCase]] = {}


def register(name: str) -> Callable[[Callable[[], AuditCase]], Callable[[], AuditCase]]:
    """Decorator registering a zero-argument factory that builds the :class:`AuditCase` ``name``."""

    def wrap(factory: Callable[[], AuditCase]) -> Callable[[], AuditCase]:
        if name in _REGISTRY:
            raise ValueError(f"Audit case name={name!r} is already registered.")
        _REGISTRY[name] = factory
        return factory

    return wrap


def registered(module: str | None = None) -> dict[str, Callable[[], AuditCase]]:
    """Copy of the registry ``{name: factory}`` (import the modules defining cases first).

    ``module``: only the factories defined in that module (e.g. ``"dpbandit.audit.agents"``).
    """
    return {k: f for k, f in _REGISTRY.items() if module is None or f.__module__ == module}


def make_case(name: str) -> AuditCase:
    """Build the registered case ``name``."""
    v.one_of(sorted(_REGISTRY), name=name)
    case = _REGISTRY[name]()
    if case.name != name:
        raise ValueError(f"Factory registered as {name!r} built a case named {case.name!r}.")
    return case


def clopper_pearson(k: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Two one-sided ``1 - alpha`` Clopper-Pearson bounds ``(lower, upper)`` of a binomial rate ``k / n``."""
    k = np.asarray(k, dtype=float)
    lower = np.where(k > 0, stats.beta.ppf(alpha, np.maximum(k, 1), n - k + 1), 0.0)
    upper = np.where(k < n, stats.beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


_INEQUALITIES = ("P_D'(S) <= e^eps P_D(S) + delta", "P_D(S) <= e^eps P_D'(S) + delta",
                 "P_D'(S^c) <= e^eps P_D(S^c) + delta", "P_D(S^c) <= e^eps P_D'(S^c) + delta")


def _bounds(k0: np.ndarray, k1: np.ndarray, n: int, delta: float, alpha: float) -> np.ndarray:
    """Lower bounds on epsilon from the four DP inequalities; shape ``(4, *k0.shape)``.

    ``k0``/``k1``: number of runs in ``S`` under ``D``/``D'`` out of ``n`` each. Each bound combines a lower
    confidence bound of the larger side and an upper bound of the other (each at ``alpha / 2``).
    """
    lo0, up0 = clopper_pearson(k0, n, alpha / 2)
    lo1, up1 = clopper_pearson(k1, n, alpha / 2)
    pairs = [(lo1, up0), (lo0, up1), (1 - up1, 1 - lo0), (1 - up0, 1 - lo1)]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = [np.log(np.maximum(num - delta, 0.0) / den) for num, den in pairs]
    return np.nan_to_num(np.array(out), nan=-np.inf, neginf=-np.inf)


def epsilon_lower_bound(k0: int, k1: int, n: int, delta: float, alpha: float = 0.05) -> float:
    """Clopper-Pearson lower bound on epsilon from one fixed region ``S`` (``k0``, ``k1`` hits out of ``n``).

    Valid with probability ``>= 1 - alpha`` if ``S`` was chosen independently of these counts. Clipped at 0.
    """
    n = v.integer(n=n, minimum=1)
    delta = v.probability(delta=delta)
    alpha = v.probability(alpha=alpha)
    return max(0.0, float(np.max(_bounds(np.asarray(k0), np.asarray(k1), n, delta, alpha))))


def gaussian_power(
    mu: float, n_runs: int, delta: float, alpha: float = 0.05, n_thresholds: int = 2001
) -> float:
    """The lower bound an optimal statistic reaches on a Gaussian shift ``mu`` (shift / noise std) with
    ``n_runs`` per side, as :func:`audit` runs it: the best threshold ``S = {X > t}`` given (not paid from the
    runs), ``n_runs - n_runs // 2`` test runs per side with their expected counts, Clopper-Pearson at
    ``alpha``. What "not flagged" means: below the claim even for the optimal test, no statistic can flag.
    """
    mu = v.nonnegative(mu=mu)
    n_runs = v.integer(n_runs=n_runs, minimum=4)
    n = n_runs - n_runs // 2
    t = np.linspace(-4.0, 4.0 + mu, n_thresholds)
    k0, k1 = n * stats.norm.sf(t), n * stats.norm.sf(t - mu)  # D' centred at 0, D at mu
    lo1 = np.where(k1 > 0, stats.beta.ppf(alpha / 2, np.maximum(k1, 1e-12), n - k1 + 1), 0.0)
    up0 = stats.beta.ppf(1 - alpha / 2, k0 + 1, np.maximum(n - k0, 1e-12))
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds = np.log(np.maximum(lo1 - v.probability(delta=delta), 0.0) / up0)
    return max(0.0, float(np.max(np.nan_to_num(bounds, nan=-np.inf, neginf=-np.inf))))


def _statistic(case: AuditCase, outputs: np.ndarray, n_runs: int) -> np.ndarray:
    stat = np.asarray(outputs if case.statistic is None else case.statistic(outputs), dtype=float)
    if stat.shape != (n_runs,):
        raise ValueError(f"{case.name}: the statistic must have shape ({n_runs},), got {stat.shape}.")
    return stat


def _candidate_thresholds(train: np.ndarray, n_thresholds: int) -> np.ndarray:
    """Pooled quantiles, denser in both tails (where small-rate regions, hence large bounds, live)."""
    u = np.linspace(-8.0, 8.0, n_thresholds)
    levels = 1.0 / (1.0 + np.exp(-u))  # logistic grid: tails down to ~3e-4
    values = np.unique(train)
    extra = values if values.size <= 64 else values[:0]  # discrete statistics: every cut between values
    return np.unique(np.concatenate([np.quantile(train, levels), extra]))


def audit(
    case: AuditCase, rng: np.random.Generator, n_runs: int, *, alpha: float = 0.05, n_thresholds: int = 400
) -> AuditResult:
    """Run ``case`` ``n_runs`` times on each dataset and return the Clopper-Pearson epsilon lower bound.

    Args:
        case: the audit case.
        rng: generator; independent child streams are spawned for ``D`` and ``D'``.
        n_runs: runs per dataset (half select the threshold, half estimate the rates).
        alpha: the bound holds with probability ``>= 1 - alpha``.
        n_thresholds: size of the candidate threshold grid.
    """
    v.rng(rng=rng)
    n_runs = v.integer(n_runs=n_runs, minimum=4)
    alpha = v.probability(alpha=alpha)
    n_thresholds = v.integer(n_thresholds=n_thresholds, minimum=2)
    rng_d, rng_n = rng.spawn(2)
    s0 = _statistic(case, case.mechanism(rng_d, case.dataset, n_runs), n_runs)
    s1 = _statistic(case, case.mechanism(rng_n, case.neighbour, n_runs), n_runs)
    half = n_runs // 2
    n_test = n_runs - half
    taus = _candidate_thresholds(np.concatenate([s0[:half], s1[:half]]), n_thresholds)
    k0 = half - np.searchsorted(np.sort(s0[:half]), taus, side="right")  # #{runs with stat > tau}
    k1 = half - np.searchsorted(np.sort(s1[:half]), taus, side="right")
    # selection criterion: the bound at a Bonferroni-corrected level, which discounts lucky sparse tails
    train = _bounds(k0, k1, half, case.delta, alpha / taus.size)
    which, j = np.unravel_index(int(np.argmax(train)), train.shape)
    tau = float(taus[j])
    t0, t1 = int(np.sum(s0[half:] > tau)), int(np.sum(s1[half:] > tau))
    eps_lb = max(0.0, float(_bounds(np.asarray(t0), np.asarray(t1), n_test, case.delta, alpha)[which]))
    verdict = "pass" if eps_lb <= case.claimed_epsilon else "FLAGGED"
    return AuditResult(
        name=case.name,
        claimed_epsilon=case.claimed_epsilon,
        delta=case.delta,
        accountant_epsilon=case.accountant_epsilon,
        accountant=case.accountant,
        epsilon_lb=eps_lb,
        verdict=verdict,
        expect=case.expect,
        n_runs=n_runs,
        alpha=alpha,
        threshold=tau,
        inequality=_INEQUALITIES[which],
        rates=(t0 / n_test, t1 / n_test),
        notes=case.notes,
    )


def audit_many(
    cases: Iterable[AuditCase], rng: np.random.Generator, n_runs: int, **kwargs: Any
) -> list[AuditResult]:
    """Audit several cases with independent child streams of ``rng`` (one per case, in order)."""
    cases = list(cases)
    return [audit(c, g, n_runs, **kwargs) for c, g in zip(cases, v.rng(rng=rng).spawn(len(cases)))]

