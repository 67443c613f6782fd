"""DP-TOFW: private tree-based online Frank-Wolfe (Algorithm 1 of 004_290fd04a1e656565.txt).

For 1 < p <= inf on the l_p ball C = {||theta||_p <= r} (diameter D = 2r), step t = 1..n:

1. g_t = (t+1) grad f(theta_t; x_t) - t grad f(theta_{t-1}; x_t)              (Eq 3.1)
2. G_t = noisy prefix sum of g_1..g_t from the tree mechanism (Algorithm 5), each
   completed node noised once with G_{||.||_{q,+}}(0, sigma_+^2)                (Eq 3.2)
3. d_t = G_t / (t+1);  v_t = LMO_C(d_t);  theta_{t+1} = theta_t + eta_t (v_t - theta_t).

Conventions (notes/ofw_hdb.md Sections 1.2 and 6.1-6.3):

* theta_0 = theta_1 = 0 and **d_0 = 0**: Eq 3.1 unrolls d_t = grad f(theta_t; x_t) +
  (1 - rho_t)(d_{t-1} - grad f(theta_{t-1}; x_t)) with rho_t = 1/(t+1) from d_0 = 0, so
  d_1 = grad f(theta_1; x_1) / 2 (the text's "d_1 = grad f(theta_1; x_1)" would need g_1 doubled;
  the difference is O(1/t)). This is the convention of Eq 3.1 and of the authors' code [C].
* Learning-rate scale c (Section 5.3 "scale their default learning rate"): eta_t = c/(t+1),
  rho_t = 1/(t+1) unchanged. Then t ||theta_t - theta_{t-1}|| <= c D and the l_q sensitivity of
  g_t (proof of Thm 3.1, A.1) is 2(c beta D + L); sigma_+ uses c beta D + L in place of
  beta D + L. c <= 2 keeps eta_1 = c/2 <= 1, so every iterate stays in C.
* sigma_+^2 = 8 m^2 kappa_q log(m / delta) (c beta D + L)^2 / epsilon^2 with
  m = ceil(log2 n) + 1 fixed from the horizon n (Eq 3.2): Lemma 2.1 with sensitivity
  2(c beta D + L) per node at (epsilon/m, delta/m), basic composition over the <= m nodes that
  contain one sample. kappa_q and the smooth norm come from ``dpbandit.privacy.smooth_norm``.
* beta and L must hold for the gradients the optimiser actually sees: with unbounded data
  use :class:`dpbandit.optim.losses.ClippedLoss` and pass its ``smoothness`` / ``lipschitz``.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.optim.base import LpBallSetup, StreamingOptimizer
from dpbandit.optim.geometry import _lmo
from dpbandit.optim.losses import Loss
from dpbandit.privacy.accounting import tree_aggregation_event
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.regularity import SmoothNorm, smooth_norm
from dpbandit.privacy.tree import TreeAggregator

__all__ = ["DPTOFW", "gaussian_multiplier", "tofw_sigma"]


def _check_p(p: float) -> None:
    if p == 1.0:
        raise ValueError("Expected p in (1, inf] for DP-TOFW, got p=1.0 (use DP-POFW, Algorithm 2).")


def gaussian_multiplier(norm_plus: SmoothNorm, sigma: float, sensitivity: float) -> float | None:
    """Noise multiplier (std / l2-sensitivity) when G_{||.||_+}(0, sigma^2) is a Gaussian, else ``None``.

    ``norm_plus`` smooths l_q; a statistic of l_q-sensitivity s has l2-sensitivity at most
    d^max(0, 1/2 - 1/q) s. When the smooth norm is a scaled l_2 (r = 2: Lemma 3.3, or Lemma 3.2
    with ln d <= 2) the noise is N(0, (sigma / scale)^2 I) and dp_accounting can account for it.
    """
    if norm_plus.r != 2.0:
        return None
    l2_sensitivity = sensitivity * norm_plus.dim ** max(0.0, 0.5 - 1.0 / norm_plus.q)
    return (sigma / norm_plus.scale) / l2_sensitivity


def tofw_sigma(
    *, horizon: int, epsilon: float, delta: float, kappa: float, smoothness: float, lipschitz: float,
    diameter: float, lr_scale: float = 1.0,
) -> float:
    """sigma_+ of Eq 3.2 with learning-rate scale c: sqrt(8 m^2 kappa log(m/delta)) (c beta D + L) / eps."""
    m = (horizon - 1).bit_length() + 1  # ceil(log2 n) + 1
    return math.sqrt(8.0 * m**2 * kappa * math.log(m / delta)) * (
        lr_scale * smoothness * diameter + lipschitz
    ) / epsilon


class DPTOFW(LpBallSetup, StreamingOptimizer):
    """Private tree-based online Frank-Wolfe (Algorithm 1 of 004), continual release of theta_t.

    Args:
        dim: dimension d.
        p: geometry, 1 < p <= inf (p = 1 is DP-POFW, Algorithm 2).
        radius: radius r of the l_p ball C (diameter D = 2r); Section 5.3 uses 2.
        horizon: number of steps n (fixes the tree depth and sigma_+).
        epsilon, delta: target (epsilon, delta)-DP of the whole released sequence.
        smoothness: beta of Assumption 2.2 in (l_p, l_q) for the gradients fed in.
        lipschitz: L of Assumption 2.4 (l_q bound on every gradient fed in).
        rng: generator of the tree noise.
        loss: loss used by :meth:`step` (optional with :meth:`step_with_gradients`).
        lr_scale: c in eta_t = c/(t+1), 0 < c <= 2 (1 = Algorithm 1).
        noise: ``False`` runs the identical recursion with exact prefix sums (no privacy).
    """

    def __init__(
        self,
        dim: int,
        *,
        p: float,
        radius: float,
        horizon: int,
        epsilon: float,
        delta: float,
        smoothness: float,
        lipschitz: float,
        rng: np.random.Generator,
        loss: Loss | None = None,
        lr_scale: float = 1.0,
        noise: bool = True,
    ) -> None:
        super().__init__(dim, horizon=horizon, rng=rng, loss=loss, noise=noise)
        self._init_lp_ball(
            p=p, radius=radius, epsilon=epsilon, delta=delta, lipschitz=lipschitz, lr_scale=lr_scale,
            smoothness=smoothness, check_p=_check_p,
        )
        if self.lr_scale > 2.0:
            raise ValueError(f"Expected lr_scale <= 2 (eta_1 = c/2 <= 1), got lr_scale={self.lr_scale}.")
        self.depth = (self.horizon - 1).bit_length() + 1
        self.norm_plus = smooth_norm(self.q, self.dim)
        self.sensitivity = 2.0 * (self.lr_scale * self.smoothness * self.diameter + self.lipschitz)
        self.sigma_plus = tofw_sigma(
            horizon=self.horizon, epsilon=self.epsilon, delta=self.delta, kappa=self.norm_plus.kappa,
            smoothness=self.smoothness, lipschitz=self.lipschitz, diameter=self.diameter,
            lr_scale=self.lr_scale,
        )
        self._tree = TreeAggregator(
            (self.dim,), noise=self.node_noise if self.noise else None, rng=self.rng, horizon=self.horizon
        )
        self._d = np.zeros(self.dim)

    def node_noise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` i.i.d. node draws of G_{||.||_+}(0, sigma_+^2), shape ``(n, dim)`` (the tree's sampler; audits use it)."""
        return self.norm_plus.sample(rng, self.sigma_plus, size=(n,))

    @property
    def gradient_estimate(self) -> np.ndarray:
        """d_t = G_t / (t+1) used in the last LMO (zeros before the first step)."""
        return self._d.copy()

    def _update(self, grad_now: np.ndarray, grad_prev: np.ndarray) -> np.ndarray:
        t = self.t
        g = (t + 1) * grad_now - t * grad_prev  # Eq 3.1 (theta_0 = theta_1 makes g_1 = grad f(theta_1))
        self._d = self._tree.add(g) / (t + 1)
        v = _lmo(self._d, self.p, self.radius)
        eta = self.lr_scale / (t + 1)
        return self._theta + eta * (v - self._theta)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        if not self.noise:
            return None
        calibration = (
            f"Eq 3.2: sigma_+={self.sigma_plus:.4g}, l_q sensitivity 2(c beta D + L)={self.sensitivity:.4g} "
            f"(c={self.lr_scale:g}, beta={self.smoothness:g}, D={self.diameter:g}, L={self.lipschitz:g}), "
            f"m={self.depth}, kappa_q={self.norm_plus.kappa:.4g}, smooth norm l_{self.norm_plus.r:.3g}"
        )
        mechanism = "DP-TOFW (Algorithm 1 of 004): tree aggregation with generalized Gaussian node noise"
        z = gaussian_multiplier(self.norm_plus, self.sigma_plus, self.sensitivity)
        if z is None:
            return PrivacyGuarantee.analytic(
                mechanism, self.epsilon, self.delta, "Thm 3.1 of 004 (Lemma 2.1 per node, basic composition)",
                calibration=calibration,
            )
        return PrivacyGuarantee.from_event(
            mechanism, tree_aggregation_event(z, self.horizon), self.epsilon, self.delta,
            sensitivity="l2 sensitivity bound from the l_q one", calibration=calibration,
            notes="node noise is Gaussian here (smooth norm l_2), so the RDP tree accountant applies",
        )
