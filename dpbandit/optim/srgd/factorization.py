"""Matrix-factorisation (MF) correlated noise for DP-MEMF / DP-SRG-MEMF (000_e95584ca0dc4dbfd.txt, Sec. 5).

Algorithms 2 and 3 of 000 add ``C^{-1} Z`` to the (clipped, averaged) per-step gradients or SRG updates,
where ``C`` is lower triangular, ``C >= 0`` and ``max_j ||sum_{i<k} C[:, i b + j]||_2 <= 1`` (k epochs of b
steps; an example participates at steps ``i b + j``). The paper picks ``C`` with the code of [15]
(Choquette-Choo et al. 2022, "Multi-Epoch Matrix Factorization Mechanisms for Private Machine Learning")
to minimise ``||W C^{-1}||_F`` for the workloads (Sec. 5.1)

* ``"ones"``: ``W = A``, the lower-triangular all-ones (prefix-sum) matrix;
* ``"true"``: ``W = M A`` (DP-MEMF) or ``W = M A L`` (DP-SRG-MEMF), where the paper only says M is "some
  function of the momentum" and L "some function of the decay". [derived] For heavy-ball momentum
  ``m_s = mu m_{s-1} + g_s``, ``x_{s+1} = x_s - lr m_s`` one has ``M[s, r] = mu^{s-r}``, and the SRG recursion
  ``grad_t = c grad_{t-1} + Delta_t`` gives ``L[t, s] = c^{t-s}``.

That code base is not available offline. **Method used here [Fill]:** every workload above is a
lower-triangular Toeplitz matrix, i.e. a power series truncated at n = k b, so we search ``C`` in the same
class: ``C = Toeplitz(c_0 = 1, c_1, ..., c_{n-1})`` with ``c >= 0`` (optionally banded, ``c_j = 0`` for
``j >= bands``). The scale-free objective ``||W C^{-1}||_F^2 * sens(C)^2`` (the error once C is scaled to
sensitivity 1) and its exact gradient are computed with truncated power-series algebra in O(n^2), and
minimised by L-BFGS-B (scipy) from the square-root factorisation ``c_j = binom(2j, j) / 4^j``
(Fichtenberger, Henzinger, Upadhyay 2023, "Constant matters: fine-grained error bound on differentially
private continual observation"), which is itself a feasible point. Toeplitz / banded-Toeplitz searches of this
kind are standard in later MF work (e.g. McKenna 2024, "Scaling up the banded matrix factorization
mechanism"); they are close to, but not guaranteed to equal, the unconstrained optimum of [15].

For ``C >= 0`` the Gram matrix ``C^T C`` is entrywise non-negative, which makes
``max_j ||sum_i C[:, i b + j]||_2`` the exact multi-participation L2 sensitivity ([15], Thm 2); the function
``sensitivity`` below uses the bound ``max_j sqrt(sum_{i,i'} |(C^T C)[i b + j, i' b + j]|)``, valid for
every C
and equal to it when ``C >= 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular, toeplitz
from scipy.optimize import minimize
from scipy.special import gammaln

from dpbandit._validate import integer, nonnegative, one_of

__all__ = [
    "WORKLOADS",
    "Factorization",
    "factorize",
    "identity_factorization",
    "sensitivity",
    "workload_series",
]

WORKLOADS = ("ones", "true")


def _lower_toeplitz(coeffs: np.ndarray) -> np.ndarray:
    return toeplitz(coeffs, np.zeros_like(coeffs))


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Product of two power series truncated at len(a)."""
    return np.convolve(a, b)[: len(a)]


def _inv(c: np.ndarray) -> np.ndarray:
    """Inverse power series (first column of the inverse of the lower Toeplitz matrix)."""
    e0 = np.zeros_like(c)
    e0[0] = 1.0
    return solve_triangular(_lower_toeplitz(c), e0, lower=True)


def workload_series(
    n: int, workload: str = "ones", *, momentum: float = 0.0, decay: float = 0.0
) -> np.ndarray:
    """First column of the Toeplitz workload W (Sec. 5.1 of 000): A, or M A L for ``"true"``.

    Args:
        n: number of steps (rows of W).
        workload: ``"ones"`` (W = A) or ``"true"`` (W = M A L with M[s,r] = momentum^{s-r},
            L[t,s] = decay^{t-s};
            decay = 0 gives L = I, the DP-MEMF workload M A).
        momentum: heavy-ball momentum in [0, 1).
        decay: SRG decay c in [0, 1).
    """
    n = integer(n=n, minimum=1)
    one_of(WORKLOADS, workload=workload)
    momentum, decay = nonnegative(momentum=momentum), nonnegative(decay=decay)
    powers = np.arange(n)
    w = np.ones(n)
    if workload == "true":
        w = _mul(_mul(w, momentum**powers), decay**powers)  # 0.0**0 == 1: decay 0 gives L = I exactly
    return w


def sensitivity(C: np.ndarray, epochs: int) -> float:
    """L2 sensitivity bound of ``C G`` when each example enters rows ``i b + j`` of G, ``i < epochs``.

    ``max_j sqrt(sum_{i,i'} |(C^T C)[i b + j, i' b + j]|)``; exact ([15], Thm 2) when ``C^T C >= 0``.
    """
    n = C.shape[1]
    epochs = integer(epochs=epochs, minimum=1)
    if n % epochs:
        raise ValueError(f"Expected the number of columns of C ({n}) to be a multiple of epochs={epochs}.")
    b = n // epochs
    gram = np.abs(C.T @ C).reshape(epochs, b, epochs, b)
    return float(np.sqrt(np.einsum("ijkj->j", gram).max()))


@dataclass(frozen=True)
class Factorization:
    """A lower-triangular Toeplitz strategy matrix scaled to sensitivity 1.

    Attributes:
        coeffs: first column of C (length n = epochs * steps_per_epoch).
        epochs: number of participations k of each example.
        workload: workload name it was optimised for (``"identity"`` for C = I / sqrt(k)).
        error: ``||W C^{-1}||_F`` for that workload (total noise std for unit-variance Z).
    """

    coeffs: np.ndarray
    epochs: int
    workload: str
    error: float

    @property
    def matrix(self) -> np.ndarray:
        """The n x n strategy matrix C."""
        return _lower_toeplitz(self.coeffs)

    @property
    def inverse_series(self) -> np.ndarray:
        """First column of C^{-1} (also lower Toeplitz)."""
        return _inv(self.coeffs)

    def correlate(self, Z: np.ndarray) -> np.ndarray:
        """``C^{-1} Z`` for Z of shape (n, p): the correlated noise rows of Algorithms 2-3."""
        return _lower_toeplitz(self.inverse_series) @ Z


def _objective(free: np.ndarray, w: np.ndarray, epochs: int) -> tuple[float, np.ndarray]:
    """Scale-free error ``||W C^{-1}||_F^2 * ||sum_i C[:, i b]||^2`` and its gradient in c_1.. (c_0 = 1)."""
    n = len(w)
    c = np.concatenate([[1.0], free])
    cinv = _inv(c)
    y = _mul(w, cinv)  # W C^{-1}
    weights = np.arange(n, 0, -1)  # entry y_j appears (n - j) times in the matrix
    f1 = float(weights @ y**2)
    # d y = -(y * cinv) * dc  =>  d f1 / d c_m = -2 sum_j (n - j) y_j h_{j - m}
    h = _mul(y, cinv)
    g1 = -2.0 * np.correlate(weights * y, h, mode="full")[n - 1 :]
    b = n // epochs
    u = np.zeros(n)
    for i in range(epochs):  # column sum over participations (j = 0 is the largest for C >= 0)
        u[i * b :] += c[: n - i * b]
    f2 = float(u @ u)
    g2 = np.zeros(n)
    for i in range(epochs):
        g2[: n - i * b] += 2.0 * u[i * b :]
    grad = g1 * f2 + f1 * g2
    return f1 * f2, grad[1:]


def factorize(
    n: int,
    workload: str = "ones",
    *,
    epochs: int = 1,
    momentum: float = 0.0,
    decay: float = 0.0,
    bands: int | None = None,
    maxiter: int = 500,
) -> Factorization:
    """Optimised non-negative Toeplitz factorisation for a workload (see the module docstring).

    Args:
        n: total steps (epochs * steps per epoch).
        workload: ``"ones"`` or ``"true"`` (Sec. 5.1 of 000).
        epochs: participations per example k (n must be a multiple of k).
        momentum, decay: parameters of the ``"true"`` workload M A L.
        bands: if given, ``c_j = 0`` for ``j >= bands`` (banded C); default full lower triangle.
        maxiter: L-BFGS-B iterations.
    """
    w = workload_series(n, workload, momentum=momentum, decay=decay)
    epochs = integer(epochs=epochs, minimum=1)
    if n % epochs:
        raise ValueError(f"Expected n={n} to be a multiple of epochs={epochs}.")
    bands = n if bands is None else integer(bands=bands, minimum=1, maximum=n)
    j = np.arange(1, n)
    start = np.exp(gammaln(2 * j + 1) - 2 * gammaln(j + 1) - 2 * j * np.log(2.0))  # binom(2j, j) / 4^j
    upper = np.where(j < bands, None, 0.0)
    start[j >= bands] = 0.0
    res = minimize(
        _objective,
        start,
        args=(w, epochs),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, ub) for ub in upper],
        options={"maxiter": integer(maxiter=maxiter, minimum=1)},
    )
    c = np.concatenate([[1.0], res.x])
    c /= sensitivity(_lower_toeplitz(c), epochs)
    error = float(np.linalg.norm(_lower_toeplitz(w) @ _lower_toeplitz(_inv(c))))
    return Factorization(coeffs=c, epochs=epochs, workload=workload, error=error)


def identity_factorization(
    n: int, *, epochs: int = 1, workload: str = "ones", momentum: float = 0.0, decay: float = 0.0
) -> Factorization:
    """``C = I / sqrt(k)``: independent noise, i.e. DP-SGD under k-fold zCDP composition (Alg. 2, C = I)."""
    epochs = integer(epochs=epochs, minimum=1)
    c = np.zeros(integer(n=n, minimum=1))
    c[0] = 1.0 / np.sqrt(epochs)
    w = workload_series(n, workload, momentum=momentum, decay=decay)
    error = float(np.linalg.norm(_lower_toeplitz(w)) * np.sqrt(epochs))
    return Factorization(coeffs=c, epochs=epochs, workload="identity", error=error)
