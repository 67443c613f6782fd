"""Common interfaces of the private optimisers: streaming (continual release) and batch.

Streaming (one sample per step, the setting of 004_290fd04a1e656565.txt Section 2): an
optimiser holds the released iterate theta_t and the previous one theta_{t-1}. At step t it
receives x_t and needs grad f(theta_t; x_t) and grad f(theta_{t-1}; x_t) (the recursive
gradient of Eq 3.1 / Algorithm 2 uses both), then releases theta_{t+1}. Two entry points:

* ``step(x, y)``: evaluates both gradients with the optimiser's ``loss``;
* ``step_with_gradients(grad_now, grad_prev)``: the caller supplies them (e.g. DP-HDB feeds
  GLM gradients, or zeros for its synthetic (0, zeta(0)) updates). Both advance the step
  counter by one and return the new iterate.

Initialisation follows Algorithm 1/2: theta_0 = theta_1 = 0, so before the first step
``theta == theta_prev == 0``.

Batch: ``fit(X, y) -> OptimResult``.

Every optimiser takes an explicit ``rng`` (all of its privacy noise comes from it) and a
``noise`` switch: ``noise=False`` is a debugging mode that runs the same algorithm with the
privacy noise removed; ``privacy`` then returns ``None`` (no guarantee).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.optim.geometry import dual_exponent
from dpbandit.optim.losses import Loss

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["BatchOptimizer", "LpBallSetup", "OptimResult", "StreamingOptimizer"]


@dataclass(frozen=True)
class OptimResult:
    """Outcome of an optimiser run.

    Attributes:
        theta: final iterate (the algorithm's output), shape ``(dim,)``.
        privacy: the run's guarantee, ``None`` if run with ``noise=False``.
        history: recorded iterates, shape ``(k, dim)``, or ``None``.
        history_steps: for each recorded iterate, the number of samples processed (streaming)
            or iterations done (batch) when it was released, shape ``(k,)``.
        n_gradients: number of per-example gradient evaluations.
        info: algorithm-specific extras (noise scales, step sizes, ...).
        history_seconds: wall-clock seconds since the start of the run at each recorded iterate
            (for SubOpt-vs-time plots), or ``None``.
    """

    theta: np.ndarray
    privacy: PrivacyGuarantee | None
    history: np.ndarray | None = None
    history_steps: np.ndarray | None = None
    n_gradients: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    history_seconds: np.ndarray | None = None


def _check_loss(loss: Loss | None, *, required: bool) -> Loss | None:
    if loss is None and not required:
        return None
    if not isinstance(loss, Loss):
        raise TypeError(f"Expected loss to be a dpbandit.optim.losses.Loss, got {type(loss).__name__}.")
    return loss


#: ``smoothness`` not taken by the optimiser (no ``smoothness`` attribute is set).
_ABSENT: Any = object()


class LpBallSetup:
    """Mixin: the validated set-up shared by the l_p-ball optimisers of 004 Section 5.3.

    DP-TOFW (Algorithm 1) and the baselines NoisySFW, LocalMD and NoisySGD all take the geometry p,
    the ball radius r, the privacy target (epsilon, delta), the gradient bounds (beta, L) and a
    learning-rate scale c; :meth:`_init_lp_ball` validates them in that order and sets the attributes
    ``p``, ``q`` (dual exponent), ``radius``, ``diameter`` (D = 2r), ``epsilon``, ``delta``,
    ``smoothness`` (only when given), ``lipschitz`` and ``lr_scale``.
    """

    def _init_lp_ball(
        self,
        *,
        p: float,
        radius: float,
        epsilon: float,
        delta: float,
        lipschitz: float,
        lr_scale: float,
        smoothness: float = _ABSENT,
        check_p: Callable[[float], None] | None = None,
    ) -> None:
        """Validate and set the shared attributes; ``check_p`` restricts p (raises) right after validation."""
        self.p = _validate.norm_index(p=p)
        if check_p is not None:
            check_p(self.p)
        self.q = dual_exponent(self.p)
        self.radius = _validate.positive(radius=radius)
        self.diameter = 2.0 * self.radius
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=delta)
        if smoothness is not _ABSENT:
            self.smoothness = _validate.nonnegative(smoothness=smoothness)
        self.lipschitz = _validate.positive(lipschitz=lipschitz)
        self.lr_scale = _validate.positive(lr_scale=lr_scale)


class StreamingOptimizer(abc.ABC):
    """One sample per step, releasing every iterate (continual release).

    Args:
        dim: parameter dimension.
        horizon: total number of steps n (private algorithms calibrate their noise with it);
            stepping past it raises.
        rng: generator for all privacy noise.
        loss: per-example loss used by :meth:`step`; may be ``None`` if the caller only uses
            :meth:`step_with_gradients`.
        noise: ``False`` switches privacy noise off (debugging / convergence tests).
    """

    def __init__(
        self,
        dim: int,
        *,
        horizon: int,
        rng: np.random.Generator,
        loss: Loss | None = None,
        noise: bool = True,
    ) -> None:
        self.dim = _validate.integer(dim=dim, minimum=1)
        self.horizon = _validate.integer(horizon=horizon, minimum=1)
        self.rng = _validate.rng(rng=rng)
        self.loss = _check_loss(loss, required=False)
        self.noise = bool(noise)
        self.t = 0
        self._theta = np.zeros(self.dim)
        self._theta_prev = np.zeros(self.dim)

    @property
    def theta(self) -> np.ndarray:
        """The currently released iterate theta_{t+1} after t steps (a copy)."""
        return self._theta.copy()

    @property
    def theta_prev(self) -> np.ndarray:
        """The iterate released one step earlier, theta_t (a copy)."""
        return self._theta_prev.copy()

    def step(self, x: np.ndarray, y: float) -> np.ndarray:
        """Consume sample (x_t, y_t) with ``loss`` and return theta_{t+1}."""
        if self.loss is None:
            raise ValueError("step(x, y) needs a loss; pass loss=... or use step_with_gradients.")
        thetas = np.stack([self._theta, self._theta_prev])
        grads = self.loss.grads_at(thetas, np.reshape(x, self.dim), float(np.squeeze(y)))
        return self.step_with_gradients(grads[0], grads[1])

    def step_with_gradients(self, grad_now: np.ndarray, grad_prev: np.ndarray) -> np.ndarray:
        """Advance one step given grad f(theta_t; x_t) and grad f(theta_{t-1}; x_t)."""
        if self.t >= self.horizon:
            raise RuntimeError(f"All horizon={self.horizon} steps have been taken.")
        grad_now = np.asarray(grad_now, dtype=float)
        grad_prev = np.asarray(grad_prev, dtype=float)
        if grad_now.shape != (self.dim,) or grad_prev.shape != (self.dim,):
            raise ValueError(
                f"Expected grad_now and grad_prev of shape ({self.dim},), "
                f"got {grad_now.shape} and {grad_prev.shape}."
            )
        self.t += 1
        theta_next = self._update(grad_now, grad_prev)
        self._theta_prev, self._theta = self._theta, theta_next
        return self.theta

    @abc.abstractmethod
    def _update(self, grad_now: np.ndarray, grad_prev: np.ndarray) -> np.ndarray:
        """Algorithm step ``self.t`` (1-based, already incremented): return theta_{t+1}."""

    def run(self, X: np.ndarray, y: np.ndarray, *, record_every: int | None = None) -> OptimResult:
        """Stream the rows of (X, y) through :meth:`step`; optionally record every k-th iterate."""
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim or y.shape != (X.shape[0],):
            raise ValueError(f"Expected X of shape (n, {self.dim}) and y of shape (n,).")
        if record_every is not None:
            record_every = _validate.integer(record_every=record_every, minimum=1)
        history, steps, seconds = [], [], []
        start = time.perf_counter()
        for i in range(X.shape[0]):
            theta = self.step(X[i], y[i])
            if record_every is not None and (self.t % record_every == 0 or i == X.shape[0] - 1):
                history.append(theta)
                steps.append(self.t)
                seconds.append(time.perf_counter() - start)
        recorded = record_every is not None
        return OptimResult(
            theta=self.theta,
            privacy=self.privacy,
            history=np.array(history) if recorded else None,
            history_steps=np.array(steps) if recorded else None,
            n_gradients=2 * X.shape[0],
            history_seconds=np.array(seconds) if recorded else None,
        )

    @property
    @abc.abstractmethod
    def privacy(self) -> PrivacyGuarantee | None:
        """The guarantee of the released sequence, ``None`` when ``noise=False``."""


class BatchOptimizer(abc.ABC):
    """Sees the whole data set, outputs one iterate: ``fit(X, y) -> OptimResult``.

    Args:
        dim: parameter dimension.
        loss: per-example loss.
        rng: generator for all randomness (privacy noise, sampling).
        noise: ``False`` switches privacy noise off (debugging / convergence tests).
    """

    def __init__(self, dim: int, *, loss: Loss, rng: np.random.Generator, noise: bool = True) -> None:
        self.dim = _validate.integer(dim=dim, minimum=1)
        self.loss = _check_loss(loss, required=True)
        self.rng = _validate.rng(rng=rng)
        self.noise = bool(noise)

    def _check_data(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim or y.shape != (X.shape[0],):
            raise ValueError(f"Expected X of shape (n, {self.dim}) and y of shape (n,).")
        return X, y

    @abc.abstractmethod
    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        """Run on the data set; ``record=True`` keeps the iterates in ``OptimResult.history``."""
