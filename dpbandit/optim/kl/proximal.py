"""KL proximal point method: Algorithm 2 of 003_1cb6b915a0a92f82.txt (kappa >= 2, Theorem 2), with the
projected noisy gradient descent subsolver of Appendix E (Algorithm 4, Theorem 9).

Outer loop (Algorithm 2): T = (1 + 32 F0^((kappa-2)/kappa) gamma^2 L~1) [log F0 + kappa log(n sqrt(rho) /
(gamma L0 sqrt d))] rounds (``schedule.prox_rounds``; gamma, kappa are needed although the box omits them,
notes C1), each approximately minimising the L~1-strongly convex F_t(w) = F(w) + L~1 ||w - w_{t-1}||^2 with
budget rho / T and failure probability beta / T.

Subsolver (Algorithm 4, notes C3): w_1 = centre; T_in - 1 steps w_{t+1} = Proj_{B(centre, L0 / (2 L~1))}(w_t -
(grad F_t(w_t) + xi_t) / (L~1 t)); output the weighted average (2 / (T_in (T_in + 1))) sum_t t w_t. Theorem 9
sets T_in = n^2 rho log^2(2 / beta) / d (rounded up); ``inner_steps`` overrides it (the privacy calibration
uses whatever T_in is run).

Privacy: the data enter only through the mean per-example gradient, replace-one sensitivity Delta = 2 L0 / n
(the regulariser is data-independent). Theorem 9's sigma^2 = 4 L0^2 T / (n^2 rho) costs rho / 2 under the
standard Delta^2 / (2 sigma^2) charge; here sigma = Delta sqrt((T_in - 1) / (2 rho_t))
(``gaussian_sigma_zcdp``), so the T x (T_in - 1) Gaussian releases compose to **exactly the requested rho**
(notes P1). Conditional on per-example L0-Lipschitzness unless ``clip=True`` (per-example gradients clipped at
L0) [Fill].
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from dpbandit import _validate as v
from dpbandit.optim.base import OptimResult
from dpbandit.optim.kl import _privacy
from dpbandit.optim.kl.objective import Objective, clipped_mean
from dpbandit.optim.kl.schedule import prox_rounds
from dpbandit.privacy.accounting import gaussian_event, gaussian_sigma_zcdp
from dpbandit.privacy.noise import gaussian

__all__ = ["KLProximalPoint", "theorem9_steps"]


def theorem9_steps(*, n: int, dim: int, rho: float, beta: float) -> int:
    """T_in = ceil(n^2 rho log^2(2 / beta) / d) of Theorem 9 (at least 2)."""
    return max(2, math.ceil(n**2 * rho * math.log(2.0 / beta) ** 2 / dim))


class KLProximalPoint:
    """Algorithm 2 with the Algorithm 4 subsolver (module docstring).

    Args:
        rho: total zCDP budget; beta: failure probability in (0, 1).
        gamma, kappa: public KL* constants (kappa >= 2); L0: public per-example Lipschitz constant;
            weak_convexity: L~1 > 0 (F L~1-weakly convex; for a convex F any L~1 > 0 is a tuning knob);
            F0: public bound on F(w0) - F*.
        rng: generator of all privacy noise; delta: delta at which the guarantee reports epsilon.
        inner_steps: T_in per subproblem (default: Theorem 9's value). clip: clip per-example gradients at L0.
        noise: False removes the noise (convergence tests); ``privacy`` is then ``None``.
    """

    def __init__(
        self, *, rho: float, beta: float, gamma: float, kappa: float, L0: float, weak_convexity: float,
        F0: float, rng: np.random.Generator, delta: float = 1e-6, inner_steps: int | None = None,
        clip: bool = False, noise: bool = True,
    ) -> None:
        self.rho, self.beta = v.positive(rho=rho), v.probability(beta=beta)
        self.gamma, self.kappa = v.positive(gamma=gamma), v.finite(kappa=kappa)
        if self.kappa < 2.0:
            raise ValueError(f"Expected kappa >= 2, got kappa={kappa}.")
        self.L0, self.weak_convexity = v.positive(L0=L0), v.positive(weak_convexity=weak_convexity)
        self.F0 = v.positive(F0=F0)
        self.rng, self.delta = v.rng(rng=rng), v.probability(delta=delta)
        self.inner_steps = None if inner_steps is None else v.integer(inner_steps=inner_steps, minimum=2)
        self.clip, self.noise = bool(clip), bool(noise)

    def rounds(self, n: int, dim: int) -> tuple[int, int]:
        """(outer rounds T, inner steps T_in) for n samples in dimension dim."""
        T = prox_rounds(n=n, dim=dim, rho=self.rho, gamma=self.gamma, kappa=self.kappa, L0=self.L0,
                        weak_convexity=self.weak_convexity, F0=self.F0)
        if self.inner_steps is not None or T == 0:
            return T, self.inner_steps or 2
        return T, theorem9_steps(n=n, dim=dim, rho=self.rho / T, beta=self.beta / T)

    def noise_calibration(self, n: int, dim: int) -> tuple[int, int, float, float]:
        """``(T, T_in, sigma, Delta)``: rounds, inner steps, noise std of each of the ``T (T_in - 1)`` Gaussian
        releases and their replace-one sensitivity ``2 L0 / n`` (module docstring; used by ``fit`` and the audit)."""
        T, T_in = self.rounds(n, dim)
        sensitivity = 2.0 * self.L0 / n
        sigma = gaussian_sigma_zcdp(self.rho / T, sensitivity, T_in - 1) if T else 0.0
        return T, T_in, sigma, sensitivity

    def fit(self, objective: Objective, *, record: bool = False) -> OptimResult:
        """Run Algorithm 2 from w0 = 0; ``history`` (with ``record``) holds w_0..w_T."""
        n, d = objective.n, objective.dim
        T, T_in, sigma, sensitivity = self.noise_calibration(n, d)
        w = np.zeros(d)
        history = [w.copy()]
        for _ in range(T):
            w = self._subsolve(objective, w, T_in, sigma)
            history.append(w.copy())
        info = {"rounds": T, "inner_steps": T_in, "sigma": sigma,
                "max_distance": float(np.max(np.linalg.norm(history, axis=1)))}
        privacy = None
        if self.noise and T:
            privacy = _privacy.guarantee(
                mechanism="KL proximal point (003 Alg 2) + noisy GD (Alg 4)", rho=self.rho, delta=self.delta,
                events=[gaussian_event(sigma, sensitivity, T * (T_in - 1))], sensitivity="l2: 2 L0 / n",
                calibration=f"sigma = Delta sqrt((T_in - 1) / (2 rho / T)), T={T}, T_in={T_in}",
                notes="Corrected: Theorem 9's sigma is conservative (rho/2 under the standard charge); here"
                " exactly rho (notes kl.md P1)."
                + ("" if self.clip else " Conditional on per-example L0-Lipschitzness."),
            )
        return OptimResult(theta=w, privacy=privacy, history=np.array(history) if record else None, info=info)

    def _subsolve(self, objective: Objective, centre: np.ndarray, T_in: int, sigma: float) -> np.ndarray:
        """Algorithm 4 on F(w) + L~1 ||w - centre||^2 (notes C3)."""
        lam, radius = self.weak_convexity, self.L0 / (2.0 * self.weak_convexity)
        clip = self.L0 if self.clip else None
        noise = self._noise_rows(T_in - 1, centre.size, sigma)
        w, avg = centre.copy(), centre.copy()  # avg = weighted average of w_1..w_t with weights t
        for t in range(1, T_in):
            g = clipped_mean(objective.per_example_grad(w), objective.weights, clip)
            g = g + 2.0 * lam * (w - centre)
            if self.noise:
                g = g + next(noise)
            step = w - g / (lam * t) - centre
            dist = float(np.linalg.norm(step))
            w = centre + (step if dist <= radius else step * (radius / dist))
            avg += (2.0 / (t + 2)) * (w - avg)  # sum_{s<=t+1} s w_s / sum_{s<=t+1} s
        return avg

    def _noise_rows(self, count: int, dim: int, sigma: float) -> Iterator[np.ndarray]:
        """The ``count`` noise vectors xi_t, drawn in blocks of <= 2^16 numbers (bounded memory)."""
        if not self.noise:
            return
        block = max(1, (1 << 16) // dim)
        for start in range(0, count, block):
            yield from gaussian(self.rng, sigma, (min(block, count - start), dim))
