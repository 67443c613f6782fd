"""LocalMD: phased noisy mirror descent with localisation (baseline of 004 Section 5.3, p = 1.5).

Source: Asi, Feldman, Koren & Talwar (2021), "Private stochastic convex optimization: optimal rates
in l_1 geometry", Algorithm 6 (localisation) around Algorithm 5 (noisy minibatch mirror descent), as
read by the authors of 004 in their code [C] (notes/ofw_hdb.md Section 3.3; the original was not
available to re-read here, constants unverified). 004 reports that it "does not converge regardless
of the learning-rate scaling" and leaves it out of Table 5.1.

Phases i = 1..floor(log2 n), each on fresh data:
  eps_i = 2^-i eps,  n_i = floor(2^-i n),  eta_i = 2^-4i eta,
  eta = c (D / L) min{1 / sqrt((p - 1) n), eps / sqrt(d log(1/delta) (1 + ln d))},
  batch b_i = max{sqrt(n_i / ln d), sqrt(d / eps_i)},  T_i = floor(n_i^2 / b_i^2) steps (stop if T_i <= 1),
  noise std sigma_i = 100 L sqrt(d^(1 - 2/q) log(1/delta)) / (b_i eps_i)  ([C]'s constant 100).
Inside a phase (start x_0): sample b_i phase points without replacement, g = mean gradient + N(0, sigma_i^2),
  x_{j+1} = argmin_{||x - x_0||_p <= R_i} <g, x> + D_h(x, x_j) / eta_i,  h(x) = ||x - x_0||_p^2 / (2(p - 1)),
  R_i = 2 L eta_i n_i (p - 1). Phase output: the average of its iterates (the next phase's x_0).

The mirror step is closed-form [derived]: with u = x - x_0 and theta = grad h(u_j) - eta_i g, the
minimiser of h(u) - <theta, u> is u = grad h*(theta) = (p - 1) ||theta||_q^(2-q) sign(theta) |theta|^(q-1)
(h* = (p - 1) ||.||_q^2 / 2), and since h depends on u only through ||u||_p, the constraint
||u||_p <= R_i is enforced by radial shrinking (no numerical solver). Final iterates are also kept inside
the l_p ball of radius ``radius`` by radial shrinking ([Fill]; [C] does not constrain them).
"""

from __future__ import annotations

import math

import numpy as np

from dpbandit.optim.base import BatchOptimizer, LpBallSetup, OptimResult
from dpbandit.optim.geometry import lp_norm
from dpbandit.optim.losses import Loss
from dpbandit.privacy.guarantee import PrivacyGuarantee

__all__ = ["LocalMD"]


def _dual_map(u: np.ndarray, p: float) -> np.ndarray:
    """grad of ||u||_p^2 / 2: ||u||_p^(2-p) sign(u) |u|^(p-1) (0 at u = 0)."""
    norm = lp_norm(u, p)
    if norm == 0.0:
        return np.zeros_like(u)
    return norm ** (2.0 - p) * np.sign(u) * np.abs(u) ** (p - 1.0)


def _check_p(p: float) -> None:
    if not 1.0 < p <= 2.0:
        raise ValueError(f"Expected p in (1, 2] for LocalMD, got p={p}.")


def _radial(u: np.ndarray, p: float, radius: float) -> np.ndarray:
    norm = lp_norm(u, p)
    return u if norm <= radius else u * (radius / norm)


class LocalMD(LpBallSetup, BatchOptimizer):
    """Localised noisy mirror descent of Asi et al. (2021, Algorithm 6) for 1 < p <= 2.

    Args:
        dim: dimension d.
        loss: per-example loss.
        p: geometry, 1 < p <= 2.
        radius: radius r of the l_p ball (D = 2r).
        epsilon, delta: privacy target.
        lipschitz: L (l_q bound on gradients; clip with ``ClippedLoss``).
        rng: generator of sampling and noise.
        lr_scale: c in eta (the paper's grid is {1e2, 1e3, 1e4}).
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
        lipschitz: float,
        rng: np.random.Generator,
        lr_scale: float = 1.0,
        noise: bool = True,
    ) -> None:
        super().__init__(dim, loss=loss, rng=rng, noise=noise)
        self._init_lp_ball(
            p=p, radius=radius, epsilon=epsilon, delta=delta, lipschitz=lipschitz, lr_scale=lr_scale,
            check_p=_check_p,
        )

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        X, y = self._check_data(X, y)
        n, d, p = X.shape[0], self.dim, self.p
        log_delta, log_d = math.log(1.0 / self.delta), math.log(max(d, 2))
        eta = self.lr_scale * (self.diameter / self.lipschitz) * min(
            1.0 / math.sqrt((p - 1.0) * n), self.epsilon / math.sqrt(d * log_delta * (1.0 + math.log(d)))
        )
        x0 = np.zeros(d)
        history, start, n_grad, phases = [x0], 0, 0, []
        for i in range(1, int(math.log2(n)) + 1):
            eps_i, n_i, eta_i = self.epsilon * 2.0**-i, int(n * 2.0**-i), eta * 2.0 ** (-4 * i)
            b_i = int(max(math.sqrt(n_i / log_d), math.sqrt(d / eps_i), 1.0))
            steps = int(n_i**2 / b_i**2)
            if steps <= 1 or b_i > n_i:
                break
            Xi, yi = X[start : start + n_i], y[start : start + n_i]
            start += n_i
            sigma_i = 100.0 * self.lipschitz * math.sqrt(d ** (1.0 - 2.0 / self.q) * log_delta)
            sigma_i /= b_i * eps_i
            R_i = 2.0 * self.lipschitz * eta_i * n_i * (p - 1.0)
            u, usum = np.zeros(d), np.zeros(d)
            for _ in range(steps):
                batch = self.rng.choice(n_i, size=b_i, replace=False)
                g = self.loss.grad(x0 + u, Xi[batch], yi[batch])
                if self.noise:
                    g = g + sigma_i * self.rng.standard_normal(d)
                theta = _dual_map(u, p) / (p - 1.0) - eta_i * g
                u = _radial((p - 1.0) * _dual_map(theta, self.q), p, R_i)
                usum += u
            n_grad += steps * b_i
            x0 = _radial(x0 + usum / steps, p, self.radius)
            history.append(x0)
            phases.append({"eps": eps_i, "n": n_i, "batch": b_i, "steps": steps, "sigma": sigma_i})
        self._phases = phases
        return OptimResult(
            theta=x0,
            privacy=self.privacy,
            history=np.array(history) if record else None,
            history_steps=np.arange(len(history)) if record else None,
            n_gradients=n_grad,
            info={"eta": eta, "phases": phases},
        )

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Asi et al.'s claim (phase i is (eps_i, delta)-DP on its own data); not re-derived here."""
        if not self.noise:
            return None
        return PrivacyGuarantee.analytic(
            "LocalMD (Asi et al. 2021, Alg 6): phased noisy mirror descent", self.epsilon, self.delta,
            "Asi et al. 2021 Thm for Alg 6 as used by 004 [C]; constants unverified",
            notes="noise constant 100 from the authors' code; disjoint phases (parallel composition)",
        )
