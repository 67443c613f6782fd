"""Private gradient oracles of the smoothed loss for Algorithm 2 (paper 002, Algorithms 3, 4 and 5).

Each oracle is stateful and is called once per O2NC step with z_t, in order. Step t (1-based) has position
p = ((t - 1) mod Sigma) + 1 in its period (notes 002 section 7.6a: the printed ``t mod Sigma`` gives TREE(0), an
empty sum, at the last step of each period, which would release it **without noise**). p = 1 is an *anchor*
(a fresh minibatch estimate of grad F_alpha), p > 1 an *increment* g_t = g_{t-1} + mean(est(z_t) - est(z_{t-1})),
with independent directions for the two points and the same samples at both (section 7.4, 7.13).

* :class:`SinglePassOracle` -- Algorithm 3 (``order="zeroth"``) and Algorithm 5 (``order="first"``): fresh
  samples every step (B1 per anchor, B2 per increment), the clean running sum g_t, and the release
  g~_t = g_t + TREE(p) through the privacy core's :class:`~dpbandit.privacy.tree.TreeAggregator`, a **fresh
  tree per period** (section 7.6). The zeroth-order anchor averages m sphere directions per sample; the
  first-order anchor uses **one** ball perturbation per sample (Algorithm 5, line 4).
* :class:`MultiPassOracle` -- Algorithm 4 (ERM): the whole data set every step, the **noisy** running sum
  g~_t = g~_{t-1} + increment + N(0, sigma_2^2 I) and g~_t = g_t + N(0, sigma_1^2 I) at anchors (section 7.5).

Privacy (``privacy`` property): see :mod:`~dpbandit.optim.nonsmooth.calibration`. ``strict=True`` clips the
per-sample estimates (``clip_anchor``, ``clip_increment``; defaults: the high-probability bounds) so the
sensitivity is deterministic; ``strict=False`` clips nothing and adds the event probability delta_event = delta/2
to the guarantee (Lemmas 3.4/6.3). Counters: ``clipped`` (strict) and ``exceeded`` (estimates beyond the bound,
i.e. how often the w.h.p. event failed in non-strict mode) per kind, and ``evaluations``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from dpbandit import _validate
from dpbandit.optim.nonsmooth.calibration import (
    CALIBRATIONS,
    PerSampleBounds,
    multi_pass_event,
    multi_pass_sigmas,
    per_sample_bounds,
    tree_sigma,
)
from dpbandit.optim.nonsmooth.estimators import Order, per_sample_estimates
from dpbandit.optim.nonsmooth.losses import SampleLoss
from dpbandit.privacy import accounting
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import gaussian
from dpbandit.privacy.tree import TreeAggregator, gaussian_tree

if TYPE_CHECKING:  # pragma: no cover
    import dp_accounting

__all__ = ["MultiPassOracle", "OracleParams", "SinglePassOracle"]

_CHUNK = 4096


@dataclass(frozen=True)
class OracleParams:
    """Parameters of Algorithms 3/4/5 (paper symbols in brackets).

    Attributes:
        order: ``"zeroth"`` (Algs 3/4, two-point sphere estimator) or ``"first"`` (Alg 5, gradients in the ball).
        alpha: smoothing radius [alpha]; the certified Goldstein radius on F is 2 alpha (Lemma 2.4).
        period: steps per tree period / between anchors [Sigma].
        m: directions per sample per point [m].
        B1, B2: anchor and increment minibatch sizes (single pass only) [B1, B2].
        clip_anchor, clip_increment: strict-mode per-sample clip norms; ``None`` = the high-probability bounds
            C_a, C_i of :func:`~dpbandit.optim.nonsmooth.calibration.per_sample_bounds`.
    """

    order: Order
    alpha: float
    period: int
    m: int
    B1: int = 1
    B2: int = 1
    clip_anchor: float | None = None
    clip_increment: float | None = None

    def __post_init__(self) -> None:
        _validate.one_of(("zeroth", "first"), order=self.order)
        _validate.positive(alpha=self.alpha)
        _validate.integer(period=self.period, minimum=1)
        _validate.integer(m=self.m, minimum=1)
        _validate.integer(B1=self.B1, minimum=1)
        _validate.integer(B2=self.B2, minimum=1)
        if self.clip_anchor is not None:
            _validate.positive(clip_anchor=self.clip_anchor)
        if self.clip_increment is not None:
            _validate.positive(clip_increment=self.clip_increment)

    @property
    def m_anchor(self) -> int:
        """Directions per sample at an anchor: m (Alg 3/4), one perturbation (Alg 5, line 4)."""
        return self.m if self.order == "zeroth" else 1


@dataclass
class OracleCounters:
    """Run statistics: per-sample estimates clipped / beyond their bound, and function or gradient evaluations."""

    anchors: int = 0
    increments: int = 0
    clipped: dict[str, int] = field(default_factory=lambda: {"anchor": 0, "increment": 0})
    exceeded: dict[str, int] = field(default_factory=lambda: {"anchor": 0, "increment": 0})
    evaluations: int = 0


def _anchor_count(steps: int, period: int) -> int:
    return -(-steps // period)


class _Oracle(abc.ABC):
    """Shared set-up: validation, per-sample bounds, clipping and the step/period bookkeeping.

    Subclasses give :meth:`_uses_per_sample` (how often one sample enters the releases, for the union bound
    of the per-sample event) and :meth:`_setup` (their own calibration, run at the end of ``__init__``).
    """

    mechanism = ""

    def __init__(
        self,
        loss: SampleLoss,
        X: np.ndarray,
        y: np.ndarray,
        params: OracleParams,
        *,
        steps: int,
        D: float,
        epsilon: float,
        delta: float,
        rng: np.random.Generator,
        noise: bool = True,
        strict: bool = True,
        calibration: str = "accountant",
    ) -> None:
        if not isinstance(loss, SampleLoss):
            raise TypeError(f"Expected loss to be a SampleLoss, got {type(loss).__name__}.")
        self.loss, self.params = loss, params
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        if self.X.ndim != 2 or self.y.shape != (self.X.shape[0],):
            raise ValueError(f"Expected X of shape (n, p) and y of shape (n,), got {self.X.shape} and {self.y.shape}.")
        self.steps = _validate.integer(steps=steps, minimum=1)
        self.D = _validate.positive(D=D)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=delta)
        self.calibration = _validate.one_of(CALIBRATIONS, calibration=calibration)
        self.noise, self.strict = bool(noise), bool(strict)
        if not self.strict and (params.clip_anchor is not None or params.clip_increment is not None):
            raise ValueError(
                "clip_anchor / clip_increment are strict-mode parameters; use strict=True or OracleParams "
                "without clip norms (strict=False clips nothing)."
            )
        self._dir_rng, self._noise_rng = _validate.rng(rng=rng).spawn(2)
        self.delta_event = 0.0 if strict else self.delta / 2.0
        # level of the deviation bound: the event's share (non-strict) or, as a default clip scale, delta/2 (strict)
        gamma = (self.delta / 2.0 if strict else self.delta_event) / (4 * self._uses_per_sample())
        self.bounds: PerSampleBounds = per_sample_bounds(
            order=params.order,
            lipschitz=loss.lipschitz,
            dim=self.X.shape[1],
            alpha=params.alpha,
            D=self.D,
            m=params.m,
            m_anchor=params.m_anchor,
            gamma=gamma,
        )
        if not strict and self.bounds.anchor_certain and self.bounds.increment_certain:
            self.delta_event = 0.0
        self.clip_anchor = (params.clip_anchor or self.bounds.anchor) if strict else self.bounds.anchor
        self.clip_increment = (params.clip_increment or self.bounds.increment) if strict else self.bounds.increment
        self.counters = OracleCounters()
        self.t = 0
        self._z_prev: np.ndarray | None = None
        self._setup()

    @abc.abstractmethod
    def _uses_per_sample(self) -> int:
        """Releases one sample enters (union bound of the per-sample event; ``self.steps`` is set)."""

    @abc.abstractmethod
    def _setup(self) -> None:
        """Oracle-specific checks and noise calibration, after the shared set-up."""

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    def _estimates(self, z: np.ndarray, idx: slice | np.ndarray, m: int) -> np.ndarray:
        p = self.params
        self.counters.evaluations += (2 * m if p.order == "zeroth" else m) * len(self.y[idx])
        return per_sample_estimates(
            self.loss, z, self.X[idx], self.y[idx], alpha=p.alpha, m=m, order=p.order, rng=self._dir_rng
        )

    def _bounded_sum(self, rows: np.ndarray, kind: str) -> np.ndarray:
        """Sum of per-sample rows, clipped to the kind's norm in strict mode; counts clips / bound violations."""
        bound = self.clip_anchor if kind == "anchor" else self.clip_increment
        norms = np.linalg.norm(rows, axis=1)
        over = norms > bound * (1.0 + 1e-12)  # rounding of ||a|| = 1 is not a clip
        if self.strict:
            self.counters.clipped[kind] += int(over.sum())
            rows = rows * np.minimum(1.0, bound / np.maximum(norms, 1e-300))[:, None]
        else:
            self.counters.exceeded[kind] += int(over.sum())
        return rows.sum(axis=0)

    def _anchor_sum(self, z: np.ndarray, idx: slice) -> np.ndarray:
        return self._bounded_sum(self._estimates(z, idx, self.params.m_anchor), "anchor")

    def _increment_sum(self, z: np.ndarray, idx: slice) -> np.ndarray:
        inc = self._estimates(z, idx, self.params.m) - self._estimates(self._z_prev, idx, self.params.m)
        return self._bounded_sum(inc, "increment")

    def _guarantee(
        self, event: dp_accounting.DpEvent, delta_mech: float, *, accountant: str, notes: str
    ) -> PrivacyGuarantee:
        """RDP epsilon of the releases' ``event`` at ``delta_mech``; the claimed delta adds delta_event."""
        return PrivacyGuarantee(
            mechanism=self.mechanism,
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=accounting.epsilon_for(event, delta_mech, "rdp"),
            relation="replace-one",
            accountant=f"{accountant} + delta_event={self.delta_event:.3g}",
            calibration=self.calibration,
            notes=f"{notes}; " + self._sensitivity_notes(),
        )

    def _sensitivity_notes(self) -> str:
        mode = "strict (per-sample clipping)" if self.strict else f"w.h.p. bounds, delta_event={self.delta_event:.3g}"
        return (
            f"{mode}; C_a={self.clip_anchor:.4g}, C_i={self.clip_increment:.4g}; "
            f"clipped={self.counters.clipped}, exceeded={self.counters.exceeded}"
        )

    def __call__(self, z: np.ndarray) -> np.ndarray:
        """Release g~_t for the query point z_t (the oracle of line 7 of Algorithm 2)."""
        z = np.asarray(z, dtype=float)
        if z.shape != (self.dim,):
            raise ValueError(f"Expected z of shape ({self.dim},), got {z.shape}.")
        if self.t >= self.steps:
            raise RuntimeError(f"All steps={self.steps} oracle calls have been made.")
        self.t += 1
        position = (self.t - 1) % self.params.period + 1
        out = self._anchor(z) if position == 1 else self._increment(z)
        self._z_prev = z
        return out


class SinglePassOracle(_Oracle):
    """Algorithms 3 (zeroth order) and 5 (first order): single pass over (X, y), tree-aggregated noise.

    Args:
        loss, X, y: per-sample loss and the samples, used in order, each once (they must be i.i.d./shuffled).
        params: :class:`OracleParams`.
        steps: number of oracle calls T (needs ceil(T/Sigma) B1 + (T - ceil(T/Sigma)) B2 <= n samples).
        D: O2NC clipping radius (enters the increment sensitivity via ||z_t - z_{t-1}|| <= 2 D).
        epsilon, delta: target (epsilon, delta)-DP under replace-one neighbours.
        rng: generator; spawned into the direction stream and the privacy-noise stream.
        noise: ``False`` removes the tree noise (``privacy`` is then ``None``).
        strict: clip per-sample estimates so privacy never rests on a high-probability event.
        calibration: ``"accountant"`` or ``"paper"`` (see :mod:`~dpbandit.optim.nonsmooth.calibration`).
    """

    def _uses_per_sample(self) -> int:
        return 1

    def _setup(self) -> None:
        params = self.params
        k1 = _anchor_count(self.steps, params.period)
        needed = k1 * params.B1 + (self.steps - k1) * params.B2
        if needed > self.y.shape[0]:
            raise ValueError(f"steps={self.steps} need {needed} samples (single pass), got n={self.y.shape[0]}.")
        self.mechanism = "Alg 2+3 (single-pass ZO, tree)" if params.order == "zeroth" else "Alg 2+5 (single-pass FO, tree)"
        self.sensitivities = (2.0 * self.clip_anchor / params.B1, 2.0 * self.clip_increment / params.B2)
        self.sensitivity = max(self.sensitivities)  # one sigma for all nodes (Prop 2.5)
        self.delta_tree = self.delta - self.delta_event
        self.sigma = (
            tree_sigma(
                epsilon=self.epsilon, delta=self.delta_tree, period=params.period,
                sensitivity=self.sensitivity, calibration=self.calibration,
            )
            if self.noise
            else 0.0
        )
        self._pointer = 0
        self._g = np.zeros(self.dim)
        self._tree: TreeAggregator | None = None

    def _take(self, count: int) -> slice:
        idx = slice(self._pointer, self._pointer + count)
        self._pointer += count
        return idx

    def new_tree(self) -> TreeAggregator:
        """A fresh tree for one period (noise ``N(0, sigma^2 I)`` per node); audits draw from its sampler."""
        horizon = self.params.period
        if self.noise:
            return gaussian_tree((self.dim,), self.sigma, self._noise_rng, horizon)
        return TreeAggregator((self.dim,), noise=None, rng=self._noise_rng, horizon=horizon)

    def _anchor(self, z: np.ndarray) -> np.ndarray:
        self.counters.anchors += 1
        self._tree = self.new_tree()  # fresh tree per period (notes 7.6)
        self._g = self._anchor_sum(z, self._take(self.params.B1)) / self.params.B1
        return self._tree.add(self._g)

    def _increment(self, z: np.ndarray) -> np.ndarray:
        self.counters.increments += 1
        step = self._increment_sum(z, self._take(self.params.B2)) / self.params.B2
        self._g = self._g + step  # clean running sum (Alg 3 line 16 / Alg 5)
        return self._tree.add(step)

    @property
    def clean(self) -> np.ndarray:
        """The clean running estimate g_t of the last call (g~_t minus the tree noise), for diagnostics."""
        return self._g.copy()

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Guarantee of all T releases: one tree (parallel composition over periods) plus delta_event."""
        if not self.noise:
            return None
        return self._guarantee(
            accounting.tree_aggregation_event(self.sigma / self.sensitivity, self.params.period),
            self.delta_tree,
            accountant=f"rdp (tree, delta_tree={self.delta_tree:.3g})",
            notes=f"sigma={self.sigma:.4g}, sensitivity={self.sensitivity:.4g}, Sigma={self.params.period}",
        )


class MultiPassOracle(_Oracle):
    """Algorithm 4 (ERM, multi-pass): every step uses all n samples; Gaussian noise composed over T steps.

    Same arguments as :class:`SinglePassOracle` (B1, B2 unused: batches are the full data, footnote 2 of the
    paper). The paper states Algorithm 4 for zeroth order; ``order="first"`` applies eq. (10) instead
    (Section 6: "the same analysis can be applied to the multi-pass oracle"). The per-sample event must hold for
    all T uses of the changed sample (union bound, notes section 5).
    """

    def _uses_per_sample(self) -> int:
        return self.steps

    def _setup(self) -> None:
        params = self.params
        n = self.y.shape[0]
        self.mechanism = f"Alg 2+4 (multi-pass {params.order}-order, Gaussian composition)"
        k1 = _anchor_count(self.steps, params.period)
        self.counts = (k1, self.steps - k1)
        self.sensitivities = (2.0 * self.clip_anchor / n, 2.0 * self.clip_increment / n)
        self.delta_mech = self.delta - self.delta_event
        self.sigmas = (
            multi_pass_sigmas(
                epsilon=self.epsilon, delta=self.delta_mech, sensitivities=self.sensitivities,
                counts=self.counts, period=params.period, calibration=self.calibration,
            )
            if self.noise
            else (0.0, 0.0)
        )
        self._g_noisy = np.zeros(self.dim)

    def _full_sum(self, fn, z: np.ndarray) -> np.ndarray:
        n = self.y.shape[0]
        return sum(fn(z, slice(s, min(s + _CHUNK, n))) for s in range(0, n, _CHUNK)) / n

    def _noise(self, sigma: float) -> np.ndarray:
        return gaussian(self._noise_rng, sigma, self.dim) if self.noise else np.zeros(self.dim)

    def _anchor(self, z: np.ndarray) -> np.ndarray:
        self.counters.anchors += 1
        self._g_noisy = self._full_sum(self._anchor_sum, z) + self._noise(self.sigmas[0])
        return self._g_noisy.copy()

    def _increment(self, z: np.ndarray) -> np.ndarray:
        self.counters.increments += 1
        # noisy running sum g~_{t-1} (Alg 4 line 14), fresh noise every step (notes 7.5)
        self._g_noisy = self._g_noisy + self._full_sum(self._increment_sum, z) + self._noise(self.sigmas[1])
        return self._g_noisy.copy()

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Guarantee of the T adaptive Gaussian releases (k1 anchors, k2 increments) plus delta_event."""
        if not self.noise:
            return None
        return self._guarantee(
            multi_pass_event(sigmas=self.sigmas, sensitivities=self.sensitivities, counts=self.counts),
            self.delta_mech,
            accountant=f"rdp (composition, delta={self.delta_mech:.3g})",
            notes=f"sigma1={self.sigmas[0]:.4g}, sigma2={self.sigmas[1]:.4g}, s={self.sensitivities}, "
            f"counts={self.counts}",
        )

