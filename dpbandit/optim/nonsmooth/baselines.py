"""DP-SGD baseline for the nonsmooth experiments [O] (Abadi et al. 2016; single pass, no amplification).

One pass over the data in disjoint minibatches of size B; each step adds N(0, sigma^2 I) to the mean of the
per-example (sub)gradients clipped to ``clip_norm``. Every sample enters one step, so the run is a single
Gaussian mechanism with replace-one sensitivity 2 C / B (parallel composition over the disjoint batches);
sigma is calibrated with the privacy core's accountant. Output: a uniformly drawn iterate (the standard
nonconvex SGD output), with all iterates in ``history``.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit import _validate
from dpbandit.optim.base import BatchOptimizer, OptimResult
from dpbandit.optim.nonsmooth.losses import SampleLoss
from dpbandit.privacy import accounting
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import gaussian

__all__ = ["DPSGD"]


class DPSGD(BatchOptimizer):
    """Single-pass minibatch DP-SGD.

    Args:
        dim: parameter dimension.
        loss: per-sample loss (``per_example_grad``).
        epsilon, delta: target (epsilon, delta)-DP (replace-one).
        rng: generator (privacy noise and the output draw, separate spawned streams).
        steps: number of steps T (batch size B = floor(n / T)).
        clip_norm: per-example clipping norm C (explicit; ``loss.lipschitz`` makes it a no-op for L-Lipschitz f).
        radius: distance scale R of the step size eta = R / (G sqrt(T)), G^2 = C^2 + sigma^2 d [Fill].
        x0: initial point (default zeros).
        noise: ``False`` removes the noise (non-private SGD; ``privacy`` is then ``None``).
    """

    def __init__(
        self,
        dim: int,
        *,
        loss: SampleLoss,
        epsilon: float,
        delta: float,
        rng: np.random.Generator,
        steps: int = 2000,
        clip_norm: float | None = None,
        radius: float = 1.0,
        x0: np.ndarray | None = None,
        noise: bool = True,
    ) -> None:
        super().__init__(dim, loss=loss, rng=rng, noise=noise)
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=delta)
        self.steps = _validate.integer(steps=steps, minimum=1)
        self.clip_norm = _validate.positive(clip_norm=loss.lipschitz if clip_norm is None else clip_norm)
        self.radius = _validate.positive(radius=radius)
        self.x0 = np.zeros(self.dim) if x0 is None else np.asarray(x0, dtype=float).reshape(self.dim)

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = True) -> OptimResult:
        """One pass over (X, y); returns a uniformly drawn iterate and all iterates in ``history``."""
        X, y = self._check_data(X, y)
        B = max(1, y.shape[0] // self.steps)
        T = y.shape[0] // B
        sensitivity = 2.0 * self.clip_norm / B
        sigma = accounting.gaussian_sigma(self.epsilon, self.delta, sensitivity) if self.noise else 0.0
        eta = self.radius / (math.sqrt(self.clip_norm**2 + sigma**2 * self.dim) * math.sqrt(T))
        noise_rng, out_rng = self.rng.spawn(2)
        x = self.x0.copy()
        history = np.empty((T, self.dim))
        clipped = 0
        for t in range(T):
            g = self.loss.per_example_grad(x, X[t * B : (t + 1) * B], y[t * B : (t + 1) * B])
            norms = np.linalg.norm(g, axis=1)
            clipped += int((norms > self.clip_norm).sum())
            g = (g * np.minimum(1.0, self.clip_norm / np.maximum(norms, 1e-300))[:, None]).mean(axis=0)
            if self.noise:
                g = g + gaussian(noise_rng, sigma, self.dim)
            history[t] = x
            x = x - eta * g
        privacy = (
            PrivacyGuarantee.from_event(
                "DP-SGD (single pass, disjoint batches)",
                accounting.gaussian_event(sigma, sensitivity),
                self.epsilon,
                self.delta,
                accountant="pld",
                sensitivity=f"l2 sensitivity 2C/B = {sensitivity:.4g}",
                calibration="accountant (PLD)",
                notes=f"sigma={sigma:.4g}, B={B}, T={T}, eta={eta:.4g}, clipped={clipped}",
            )
            if self.noise
            else None
        )
        k = int(out_rng.integers(T))
        return OptimResult(
            theta=history[k].copy(), privacy=privacy, history=history, history_steps=np.arange(1, T + 1),
            n_gradients=T * B, info={"sigma": sigma, "B": B, "eta": eta, "clipped": clipped},
        )
