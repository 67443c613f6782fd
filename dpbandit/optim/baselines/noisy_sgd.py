"""NoisySGD: multi-pass noisy projected SGD with n^2 steps (baseline of 004 Section 5.3, p = inf).

Source: Bassily, Feldman, Guzman & Talwar (2020), "Stability of stochastic gradient descent on
nonsmooth convex losses", noisy SGD (cited by 004 as "Algorithm 2"; the authors' code [C] calls it
"Algorithm 2" too), used by 004 for 2 < p <= inf through the reduction to l_2 (Bassily et al. 2021b).
As in notes/ofw_hdb.md Section 3.4 ([O + C]; the original was not available to re-read here):

* w_0 = 0; for t = 1..n^2: i_t ~ Unif[n] (with replacement),
  w_t = Pi_C(w_{t-1} - eta (grad f(w_{t-1}; z_{i_t}) + xi_t)),  xi_t ~ N(0, sigma^2 I_d),
  sigma^2 = 8 L^2 log(1/delta) / eps^2 (batch size 1: m = max(n sqrt(eps / 4T), 1) = 1 at T = n^2);
* output: the average of w_1..w_{n^2};
* eta = c (r / (L n)) min{1/sqrt(n), eps / sqrt(d log(1/delta))} (r = radius of C; [C] writes
  r / (L n max{sqrt n, sqrt(d log(1/delta)) / eps})), with learning-rate scale c;
* Pi_C is the Euclidean projection onto the l_p ball (p = inf: coordinate clipping).
  [C] uses radius ||theta*||_inf = 1 here; we use the paper's radius 2 (notes Section 6.10).
* Privacy: amplification by subsampling over n^2 Gaussian steps (BFGT 2020); accounted here with
  dp_accounting's RDP accountant (Poisson-subsampled Gaussian with rate 1/n as the standard
  stand-in for one uniform index per step, l2 sensitivity 2L under replace-one).

Speed (Table 5.1 reports 3,030 s for one run at n = 10,000). The n^2 loop runs in a numba kernel
when the loss is the (clipped) squared loss and p in {2, inf}; its Gaussian draws come from the
caller's ``numpy.random.Generator`` inside the kernel (~3.5 ns per draw, no n^2 x d array in memory).
:meth:`NoisySGD.fit_scales` runs several learning-rate scales on the *same* sample indices and noise
draws (common random numbers): one noise stream serves the whole scale grid, so a grid costs
one noise generation, and the scales are compared on identical randomness. Any other loss or p
uses a pure-numpy reference loop (slow; meant for small n).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpbandit import _validate
from dpbandit.optim.base import BatchOptimizer, LpBallSetup, OptimResult
from dpbandit.optim.geometry import lp_norm, project_lp_ball
from dpbandit.optim.losses import ClippedLoss, Loss, SquaredLoss
from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["NoisySGD"]

#: Steps per kernel call (bounds the index array; progress granularity).
_CHUNK = 1 << 20


@numba.njit(cache=True)
def _sgd_kernel(rng, W, Wsum, X, y, clip, idx, etas, sigma, radius, box, noise, hist, hist_every, t0):
    """Noisy SGD on (clipped) squared loss for each row of W (one learning rate per row).

    f = (y - x^T w)^2, grad = clip_i(2 (x^T w - y)) x with clip_i = C / ||x_i||_q (radial l_q clip of a
    GLM gradient); projection: box (clip to [-r, r]) or l_2 ball. Shared xi_t for all rows.
    """
    S, d = W.shape
    xi = np.zeros(d)
    for k in range(idx.shape[0]):
        i = idx[k]
        if noise:
            for j in range(d):
                xi[j] = sigma * rng.standard_normal()
        for s in range(S):
            z = 0.0
            for j in range(d):
                z += X[i, j] * W[s, j]
            r = 2.0 * (z - y[i])
            if r > clip[i]:
                r = clip[i]
            elif r < -clip[i]:
                r = -clip[i]
            eta = etas[s]
            if box:
                for j in range(d):
                    w = W[s, j] - eta * (r * X[i, j] + xi[j])
                    if w > radius:
                        w = radius
                    elif w < -radius:
                        w = -radius
                    W[s, j] = w
                    Wsum[s, j] += w
            else:
                nrm = 0.0
                for j in range(d):
                    W[s, j] -= eta * (r * X[i, j] + xi[j])
                    nrm += W[s, j] * W[s, j]
                nrm = math.sqrt(nrm)
                shrink = radius / nrm if nrm > radius else 1.0
                for j in range(d):
                    W[s, j] *= shrink
                    Wsum[s, j] += W[s, j]
        t = t0 + k + 1
        if hist_every > 0 and t % hist_every == 0:
            h = t // hist_every - 1
            for s in range(S):
                for j in range(d):
                    hist[h, s, j] = Wsum[s, j] / t


class NoisySGD(LpBallSetup, BatchOptimizer):
    """Noisy projected SGD with n^2 steps and iterate averaging (BFGT 2020), on an l_p ball.

    Args:
        dim: dimension d.
        loss: per-example loss; ``ClippedLoss(SquaredLoss(), ...)`` / ``SquaredLoss()`` use the fast kernel.
        p: the l_p ball of the constraint set (the paper: p = inf).
        radius: its radius r.
        epsilon, delta: privacy target.
        lipschitz: L, the l_2 bound on every gradient (an l_q clip at L with q <= 2 implies it).
        rng: generator of sample indices and privacy noise.
        lr_scale: c in the step size (see module docstring).
        noise: ``False`` removes the privacy noise (debugging).
        steps: number of SGD steps; default n^2 (BFGT). Only for tests / quick runs.
    """

    def __init__(
        self,
        dim: int,
        *,
        loss: Loss,
        p: float,
        radius: float,
        epsilon: float,
        delta: float,
        lipschitz: float,
        rng: np.random.Generator,
        lr_scale: float = 1.0,
        noise: bool = True,
        steps: int | None = None,
    ) -> None:
        super().__init__(dim, loss=loss, rng=rng, noise=noise)
        self._init_lp_ball(
            p=p, radius=radius, epsilon=epsilon, delta=delta, lipschitz=lipschitz, lr_scale=lr_scale
        )
        self.steps = None if steps is None else _validate.integer(steps=steps, minimum=1)
        self.sigma = math.sqrt(8.0 * math.log(1.0 / self.delta)) * self.lipschitz / self.epsilon
        self._n: int | None = None

    def step_size(self, n: int, lr_scale: float | None = None) -> float:
        """eta = c (r / (L n)) min{1/sqrt n, eps / sqrt(d log(1/delta))}."""
        c = self.lr_scale if lr_scale is None else lr_scale
        rate = min(1.0 / math.sqrt(n), self.epsilon / math.sqrt(self.dim * math.log(1.0 / self.delta)))
        return c * self.radius / (self.lipschitz * n) * rate

    def _fast_clip(self) -> float | None:
        """l_q clip norm for the kernel (inf = no clip), or None if the kernel does not apply."""
        if self.p not in (2.0, math.inf):
            return None
        if type(self.loss) is SquaredLoss:
            return math.inf
        loss = self.loss
        if isinstance(loss, ClippedLoss) and type(loss.base) is SquaredLoss and loss.p == self.p:
            return loss.clip_norm
        return None

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        return self.fit_scales(X, y, [self.lr_scale], record=record)[0]

    def fit_scales(
        self, X: np.ndarray, y: np.ndarray, lr_scales: list[float], *, record: bool = False,
        record_points: int = 50,
    ) -> list[OptimResult]:
        """Run one trajectory per learning-rate scale on shared indices and noise (see module doc).

        With ``record=True`` the running iterate average (the output if stopped there) is kept at
        ``record_points`` evenly spaced steps.
        """
        X, y = self._check_data(X, y)
        n = X.shape[0]
        self._n = n
        total = n * n if self.steps is None else self.steps
        etas = np.array([self.step_size(n, _validate.positive(lr_scale=c)) for c in lr_scales])
        every = max(total // record_points, 1) if record else 0
        S = len(etas)
        hist = np.zeros((total // every if record else 0, S, self.dim))
        W, Wsum = np.zeros((S, self.dim)), np.zeros((S, self.dim))
        clip_norm = self._fast_clip()
        if clip_norm is not None:
            norms = lp_norm(X, self.q)
            clip = np.where(norms > 0, clip_norm / np.where(norms > 0, norms, 1.0), math.inf)
            done = 0
            while done < total:
                m = min(_CHUNK, total - done)
                idx = self.rng.integers(0, n, size=m)
                _sgd_kernel(self.rng, W, Wsum, X, y, clip, idx, etas, self.sigma, self.radius,
                            math.isinf(self.p), self.noise, hist, every, done)
                done += m
        else:
            self._reference_loop(X, y, etas, W, Wsum, hist, every, total)
        results = []
        for s, c in enumerate(lr_scales):
            results.append(OptimResult(
                theta=Wsum[s] / total,
                privacy=self.privacy,
                history=hist[:, s].copy() if record else None,
                history_steps=every * np.arange(1, hist.shape[0] + 1) if record else None,
                n_gradients=total,
                info={"eta": float(etas[s]), "sigma": self.sigma, "steps": total, "lr_scale": c},
            ))
        return results

    def _reference_loop(self, X, y, etas, W, Wsum, hist, every, total) -> None:
        """Plain numpy loop for any loss / p: the same algorithm and the same draws as the kernel (slow)."""
        n, done = X.shape[0], 0
        while done < total:
            idx = self.rng.integers(0, n, size=min(_CHUNK, total - done))
            for i in idx:
                xi = 0.0
                if self.noise:  # scalar draws, in the kernel's order
                    xi = self.sigma * np.array([self.rng.standard_normal() for _ in range(self.dim)])
                g = np.array([self.loss.per_example_grad(w, X[i], y[i])[0] for w in W])
                W[:] = project_lp_ball(W - etas[:, None] * (g + xi), self.p, self.radius)
                Wsum += W
                done += 1
                if every and done % every == 0:
                    hist[done // every - 1] = Wsum / done

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """RDP accounting of n^2 subsampled Gaussian steps (rate 1/n, l2 sensitivity 2L)."""
        if not self.noise:
            return None
        if self._n is None:
            raise RuntimeError("NoisySGD.privacy is known after fit (it depends on n).")
        import dp_accounting

        n = self._n
        total = n * n if self.steps is None else self.steps
        z = self.sigma / (2.0 * self.lipschitz)
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(1.0 / n, dp_accounting.GaussianDpEvent(z)), total
        )
        return PrivacyGuarantee.from_event(
            "NoisySGD (BFGT 2020): subsampled Gaussian SGD", event, self.epsilon, self.delta,
            sensitivity=f"l2 {2 * self.lipschitz:g}",
            calibration=f"sigma^2 = 8 L^2 log(1/delta)/eps^2 = {self.sigma**2:.4g}, {total} steps, rate 1/n",
            notes="Poisson sampling at rate 1/n stands in for one uniform index per step",
        )
