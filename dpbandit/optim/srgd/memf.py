"""DP-MEMF and DP-SRG-MEMF (Algorithms 2 and 3 of 000_e95584ca0dc4dbfd.txt, Sec. 5), and DP-SGD as C = I.

Both run k epochs over b fixed batches (public order, no sampling) for n = k b steps, step ``t = i b + j``
using batch ``B_j`` (the printed index ``ik+j`` is read as ``ib+j``, notes/srgd.md 2.3). The noise rows are
``C^{-1} Z`` with ``Z ~ N(0, s^2 I_{n x p})`` drawn once up front (line 1), C from :mod:`.factorization`.

* DP-MEMF (Alg. 2):  ``g_t = (1/B) sum_{d in B_j} clip(grad l(x_t; d), G) + (C^{-1} Z)_t``.
* DP-SRG-MEMF (Alg. 3): ``Delta_t = (1/B) sum clip(grad l(x_t; d) - c grad l(x_{t-1}; d), G) + (C^{-1} Z)_t``
  and ``g_t = c g_{t-1} + Delta_t``. Line 7 prints "grad_t + (C^{-1}Z)_t", adding the noise a second time;
  we use ``g_t`` as is (the text says the noise is applied to Delta_t "rather than the gradients"). The
  first step has
  no previous iterate: ``c_0 = 0`` [Fill, notes/srgd.md 2.4]. With ``c = 0`` this is DP-MEMF exactly.
* DP-SGD (independent noise): DP-MEMF with ``workload="identity"`` (C = I / sqrt(k)).

``g_t`` feeds heavy-ball SGD, ``m_t = mu m_{t-1} + g_t``, ``x_{t+1} = x_t - lr m_t`` (the paper: "SGD with a
standard momentum of 0.9", form not given; this PyTorch-style form is [O]).

Privacy (Sec. 5 of 000). With C scaled to sensitivity 1 (``max_j ||sum_i C[:, ib+j]|| = 1``), one example
changes the rows of the clipped-gradient matrix it enters by at most ``G / B`` each, so ``C G_rows`` has L2
sensitivity ``G / B`` and the release is the Gaussian mechanism: ``s = (G / B) / sqrt(2 rho)`` gives rho-zCDP.
The printed ``Z ~ N(0, 1/(2 rho))`` omits the factor ``G / B`` (correct only for unit sensitivity). rho is
calibrated from the target (epsilon, delta) and converted back by the privacy core's accountant.
"""

from __future__ import annotations

import functools

import numpy as np

from dpbandit import _validate
from dpbandit.optim.base import BatchOptimizer, OptimResult
from dpbandit.optim.losses import Loss
from dpbandit.optim.srgd._common import as_data, batch_slices, clip_rows, project_ball
from dpbandit.optim.srgd.factorization import WORKLOADS, Factorization, factorize, identity_factorization
from dpbandit.optim.srgd.privacy import calibrate_zcdp
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import gaussian

__all__ = ["DPMEMF", "DPSRGMEMF", "PAPER_DECAY", "strategy"]

#: The decay used in the experiments of 000 (Sec. 5.1): c = e^{-5/2} ~ 1/12.
PAPER_DECAY = float(np.exp(-2.5))


@functools.lru_cache(maxsize=64)
def strategy(n: int, workload: str, *, epochs: int, momentum: float, decay: float) -> Factorization:
    """Cached strategy matrix for n steps: ``"identity"``, ``"ones"`` or ``"true"`` (see factorization)."""
    if workload == "identity":
        return identity_factorization(n, epochs=epochs)
    if workload == "ones":
        return factorize(n, "ones", epochs=epochs)
    return factorize(n, "true", epochs=epochs, momentum=momentum, decay=decay)


class DPMEMF(BatchOptimizer):
    """DP-MEMF (Algorithm 2 of 000): multi-epoch SGD with momentum and matrix-factorisation noise.

    Args:
        loss: per-example loss; parameter dimension ``loss.dim`` (or ``dim``).
        batch_size: B; the data give ``b = n // B`` batches, used in order every epoch.
        learning_rate: lr of heavy-ball SGD.
        clip_norm: G, per-example L2 clip (``math.inf`` only with ``noise=False``).
        rng: generator of the privacy noise Z.
        epsilon, delta: target (epsilon, delta); rho-zCDP is calibrated to it (required when ``noise=True``).
        epochs: k.
        momentum: mu in [0, 1) (paper: 0.9).
        workload: ``"ones"`` | ``"true"`` | ``"identity"`` (DP-SGD, independent noise).
        dim: parameter dimension (default ``loss.dim``).
        radius: optional L2-ball constraint (projection after each step); ``None`` = unconstrained (paper).
        noise: ``False`` switches the privacy noise off (no guarantee).
    """

    #: SRG decay c; 0 for DP-MEMF (Algorithm 2 has no SRG recursion).
    decay: float = 0.0
    mechanism = "DP-MEMF"

    def __init__(
        self,
        loss: Loss,
        *,
        batch_size: int,
        learning_rate: float,
        clip_norm: float,
        rng: np.random.Generator,
        epsilon: float | None = None,
        delta: float | None = None,
        epochs: int = 1,
        momentum: float = 0.9,
        workload: str = "ones",
        dim: int | None = None,
        radius: float | None = None,
        noise: bool = True,
    ) -> None:
        super().__init__(getattr(loss, "dim", None) if dim is None else dim, loss=loss, rng=rng, noise=noise)
        self.batch_size = _validate.integer(batch_size=batch_size, minimum=1)
        self.learning_rate = _validate.positive(learning_rate=learning_rate)
        self.clip_norm = _validate.positive(clip_norm=clip_norm, allow_inf=not noise)
        self.epochs = _validate.integer(epochs=epochs, minimum=1)
        self.momentum = _validate.nonnegative(momentum=momentum)
        if self.momentum >= 1.0:
            raise ValueError(f"Expected momentum < 1, got momentum={momentum}.")
        self.workload = _validate.one_of((*WORKLOADS, "identity"), workload=workload)
        self.radius = None if radius is None else _validate.positive(radius=radius)
        self._privacy: PrivacyGuarantee | None = None
        self.rho = None
        if noise:
            if epsilon is None or delta is None:
                raise ValueError("Expected epsilon and delta when noise=True.")
            self.rho, self._privacy = calibrate_zcdp(
                _validate.positive(epsilon=epsilon),
                _validate.probability(delta=delta),
                mechanism=self.mechanism,
            )

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """rho-zCDP converted to (epsilon, delta) by the accountant; None with ``noise=False``."""
        return self._privacy

    def _direction(
        self,
        t: int,
        x: np.ndarray,
        x_prev: np.ndarray,
        g_prev: np.ndarray,
        Xb: np.ndarray,
        yb: np.ndarray,
        noise_row: np.ndarray,
    ) -> tuple[np.ndarray, int]:
        """Clipped mean of the per-example rows plus the noise row, then the recursion; and #clipped rows."""
        rows = self._rows(t, x, x_prev, Xb, yb)
        clipped = int(np.sum(np.linalg.norm(rows, axis=1) > self.clip_norm))
        return self._recursion(g_prev, clip_rows(rows, self.clip_norm).mean(axis=0) + noise_row), clipped

    def _rows(self, t: int, x: np.ndarray, x_prev: np.ndarray, Xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
        """Algorithm 2 line 4: the per-example gradients at x_t (clipped and noised by ``_direction``)."""
        return self.loss.per_example_grad(x, Xb, yb)

    def _recursion(self, g_prev: np.ndarray, step: np.ndarray) -> np.ndarray:
        """DP-MEMF: g_t is the noisy clipped mean itself."""
        return step

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        """Run k epochs over (X, y) in the given order; returns the last iterate."""
        X, y = as_data(X, y)
        slices = batch_slices(X.shape[0], self.batch_size)
        b = len(slices)
        n_steps = self.epochs * b
        C = strategy(n_steps, self.workload, epochs=self.epochs, momentum=self.momentum, decay=self.decay)
        if self.noise:
            sigma = self.clip_norm / (self.batch_size * np.sqrt(2.0 * self.rho))
            noise_rows = C.correlate(gaussian(self.rng, sigma, (n_steps, self.dim)))
        else:
            noise_rows = np.zeros((n_steps, self.dim))
        x = np.zeros(self.dim)
        x_prev, m, g = x, np.zeros(self.dim), np.zeros(self.dim)
        history = [x] if record else None
        clipped = 0
        for t in range(n_steps):
            j = slices[t % b]
            g, k = self._direction(t, x, x_prev, g, X[j], y[j], noise_rows[t])
            clipped += k
            m = self.momentum * m + g
            x_prev, x = x, project_ball(x - self.learning_rate * m, self.radius)
            if record:
                history.append(x)
        info = {
            "steps": n_steps,
            "n_used": b * self.batch_size,
            "workload": self.workload,
            "decay": self.decay,
            "strategy_error": C.error,
            "rho": self.rho,
            "clipped_fraction": clipped / (n_steps * self.batch_size),
        }
        return OptimResult(
            theta=x,
            privacy=self._privacy,
            history=np.array(history) if record else None,
            history_steps=np.arange(n_steps + 1) if record else None,
            n_gradients=self._gradient_count(n_steps),
            info=info,
        )

    def _gradient_count(self, n_steps: int) -> int:
        return n_steps * self.batch_size


class DPSRGMEMF(DPMEMF):
    """DP-SRG-MEMF (Algorithm 3 of 000): DP-MEMF with the noise on SRG differences and decay c.

    Args:
        decay: constant decay ``c_t = c`` in [0, 1) (paper: ``e^{-5/2}``, :data:`PAPER_DECAY`);
            ``c = 0`` is DP-MEMF.
        **kwargs: as :class:`DPMEMF`; the ``"true"`` workload becomes ``M A L``.
    """

    mechanism = "DP-SRG-MEMF"

    def __init__(self, loss: Loss, *, decay: float = PAPER_DECAY, **kwargs) -> None:
        self.decay = _validate.nonnegative(decay=decay)
        if self.decay >= 1.0:
            raise ValueError(f"Expected decay < 1, got decay={decay}.")
        super().__init__(loss, **kwargs)

    def _rows(self, t: int, x: np.ndarray, x_prev: np.ndarray, Xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
        """Algorithm 3 line 4: per-example grad l(x_t) - c grad l(x_{t-1}) (clipped, noised: Delta_t)."""
        diff = self.loss.per_example_grad(x, Xb, yb)
        if t > 0:  # c_0 = 0: no previous iterate at the first step
            diff = diff - self.decay * self.loss.per_example_grad(x_prev, Xb, yb)
        return diff

    def _recursion(self, g_prev: np.ndarray, step: np.ndarray) -> np.ndarray:
        """Algorithm 3 line 6: g_t = c g_{t-1} + Delta_t."""
        return self.decay * g_prev + step

    def _gradient_count(self, n_steps: int) -> int:
        return (2 * n_steps - 1) * self.batch_size
