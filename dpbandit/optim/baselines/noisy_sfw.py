"""NoisySFW: noisy stochastic Frank-Wolfe with variance reduction (baseline of 004 Section 5.3).

Source: Bassily, Guzman & Nandi (2021b), "Non-Euclidean differentially private stochastic convex
optimization", Algorithm 3, as summarised in 004_290fd04a1e656565.txt Section 3 ("initialize d_1 with
the first n/2 samples ... mini-batch updates with batch size sqrt(n)/2 for sqrt(n) iterations") and
in notes/ofw_hdb.md Section 3.2 ([O + C]; the original was not available to re-read here):

* theta_0 = 0; B_0 = first floor(n/2) samples; nabla_0 = mean_{B_0} grad f(theta_0; z) + g_0,
  g_0 ~ G_{||.||_+}(0, sigma_0^2), sigma_0 = 4 sqrt(2 kappa log(1/delta)) L / (n eps)
  (Lemma 2.1 with l_q sensitivity 2L / |B_0| = 4L/n);  theta_1 = (1 - eta) theta_0 + eta LMO(nabla_0).
* for t = 1 .. floor(sqrt n) - 1, disjoint batches B_t of size floor(sqrt(n)/2) from the second half:
  nabla_t = nabla_{t-1} + mean_{B_t}[grad f(theta_t; z) - grad f(theta_{t-1}; z)] + g_t,
  sigma_t^2 = 32 kappa beta^2 D^2 eta^2 log(1/delta) / (n eps^2) (sensitivity 2 beta eta D / |B_t|
  with |B_t|^2 = n/4, since ||theta_t - theta_{t-1}||_p <= eta D);
  theta_{t+1} = (1 - eta) theta_t + eta LMO(nabla_t).
* output: the last iterate. Privacy: every sample enters exactly one noisy release (parallel
  composition), each (eps, delta)-DP by Lemma 2.1.
* constant step eta = c log(n) / (2 sqrt(n)) with learning-rate scale c ([C], authors' code; the
  paper tunes c on a grid). kappa and the smooth norm come from ``dpbandit.privacy.smooth_norm``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from dpbandit.optim.base import BatchOptimizer, LpBallSetup, OptimResult
from dpbandit.optim.geometry import lmo
from dpbandit.optim.losses import Loss
from dpbandit.optim.tofw import gaussian_multiplier
from dpbandit.privacy.accounting import gaussian_event
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.regularity import smooth_norm

__all__ = ["NoisySFW"]


class NoisySFW(LpBallSetup, BatchOptimizer):
    """Noisy stochastic Frank-Wolfe of Bassily, Guzman & Nandi (2021b, Algorithm 3) on an l_p ball.

    Args:
        dim: dimension d.
        loss: per-example loss (clip it with ``ClippedLoss`` so that ``lipschitz`` holds).
        p: geometry, 1 <= p <= inf (the paper uses p = 1.5).
        radius: radius r of the l_p ball (D = 2r).
        epsilon, delta: privacy target.
        smoothness, lipschitz: beta and L of the gradients (l_p -> l_q), used in the noise scales.
        rng: generator of the privacy noise.
        lr_scale: c in eta = c log(n) / (2 sqrt n), 0 < c and eta <= 1.
        noise: ``False`` removes the privacy noise (debugging).
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
        smoothness: float,
        lipschitz: float,
        rng: np.random.Generator,
        lr_scale: float = 1.0,
        noise: bool = True,
    ) -> None:
        super().__init__(dim, loss=loss, rng=rng, noise=noise)
        self._init_lp_ball(
            p=p, radius=radius, epsilon=epsilon, delta=delta, lipschitz=lipschitz, lr_scale=lr_scale,
            smoothness=smoothness,
        )
        self.norm_plus = smooth_norm(self.q, self.dim)
        self._scales: dict[str, float] = {}

    def _sample(self, sigma: float) -> np.ndarray:
        if not self.noise or sigma == 0.0:
            return np.zeros(self.dim)
        return self.norm_plus.sample(self.rng, sigma)

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        X, y = self._check_data(X, y)
        start = time.perf_counter()
        n = X.shape[0]
        if n < 4:
            raise ValueError(f"NoisySFW needs at least 4 samples, got n={n}.")
        eta = self.lr_scale * math.log(n) / (2.0 * math.sqrt(n))
        if eta > 1.0:
            raise ValueError(f"Step eta = c log(n)/(2 sqrt n) = {eta:.3g} > 1; lower lr_scale.")
        kappa, log_delta = self.norm_plus.kappa, math.log(1.0 / self.delta)
        sigma_0 = 4.0 * math.sqrt(2.0 * kappa * log_delta) * self.lipschitz / (n * self.epsilon)
        sigma_t = math.sqrt(32.0 * kappa * log_delta / n) * self.smoothness * self.diameter * eta
        sigma_t /= self.epsilon
        half, steps, batch = n // 2, math.isqrt(n), max(math.isqrt(n) // 2, 1)
        self._scales = {
            "eta": eta, "sigma_0": sigma_0, "sigma_t": sigma_t,
            "sens_0": 2.0 * self.lipschitz / half,  # l_q sensitivities of the two releases
            "sens_t": 2.0 * self.smoothness * eta * self.diameter / batch,
        }
        theta_prev = np.zeros(self.dim)
        nabla = self.loss.grad(theta_prev, X[:half], y[:half]) + self._sample(sigma_0)
        theta = (1.0 - eta) * theta_prev + eta * lmo(nabla, self.p, self.radius)
        history, seconds = [theta_prev, theta], [0.0, time.perf_counter() - start]
        n_grad = half
        for t in range(1, steps):
            lo = half + (t - 1) * batch
            Xb, yb = X[lo : lo + batch], y[lo : lo + batch]
            nabla = nabla + self.loss.grad(theta, Xb, yb) - self.loss.grad(theta_prev, Xb, yb)
            nabla = nabla + self._sample(sigma_t)
            theta_prev, theta = theta, (1.0 - eta) * theta + eta * lmo(nabla, self.p, self.radius)
            n_grad += 2 * len(yb)
            history.append(theta)
            seconds.append(time.perf_counter() - start)
        return OptimResult(
            theta=theta,
            privacy=self.privacy,
            history=np.array(history) if record else None,
            history_steps=np.arange(len(history)) if record else None,
            n_gradients=n_grad,
            info=dict(self._scales),
            history_seconds=np.array(seconds) if record else None,
        )

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Parallel composition: each sample is in one release; accountant used when the noise is Gaussian."""
        if not self.noise:
            return None
        if not self._scales:
            raise RuntimeError("NoisySFW.privacy is known after fit (the noise scales depend on n).")
        mechanism = "NoisySFW (Bassily et al. 2021b, Alg 3): generalized Gaussian, disjoint batches"
        calibration = (
            f"Lemma 2.1 of 004: sigma_0={self._scales['sigma_0']:.4g}, "
            f"sigma_t={self._scales['sigma_t']:.4g}, kappa={self.norm_plus.kappa:.4g}, "
            f"beta={self.smoothness:g}, L={self.lipschitz:g}, D={self.diameter:g}"
        )
        z0 = gaussian_multiplier(self.norm_plus, self._scales["sigma_0"], self._scales["sens_0"])
        zt = gaussian_multiplier(self.norm_plus, self._scales["sigma_t"], self._scales["sens_t"])
        if z0 is None or zt is None or zt == 0.0:
            return PrivacyGuarantee.analytic(
                mechanism, self.epsilon, self.delta, "Lemma 2.1 of 004, parallel composition",
                calibration=calibration,
            )
        # two kinds of release, each on its own samples (parallel composition): certify the worse one
        z = min(z0, zt)
        return PrivacyGuarantee.from_event(
            mechanism, gaussian_event(z), self.epsilon, self.delta,
            sensitivity="l2 bound from the l_q one", calibration=calibration,
            notes="Gaussian noise (smooth norm l_2): the worse of the two releases, accounted by RDP",
        )
