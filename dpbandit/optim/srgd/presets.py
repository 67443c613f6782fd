"""Parameter settings of the papers for Accelerated-DP-SRGD, and the experiment setup of 000 Sec. 5.

Theory presets (``log`` = log2 for tree depths, ``ln`` natural; notes/srgd.md 2.1):

* :func:`v000_theorem_4_10` (000 Thm 4.10 / Cor. 4.5): ``B <= min{sqrt n, (L+2MR) n^1.5 eps /
  (4 sqrt2 R sqrt p log^1.5 T sqrt(ln(4T/delta) ln(2.5/delta)))}`` (printed "ln(2.5)/delta", read
  ``ln(2.5/delta)``), ``T = n/B``, ``beta = M + (8L + 16MR) n^1.5 / (R B^2)``, clip ``G = 4L + 8MR``,
  ``sigma = (8 sqrt2 L + 16 sqrt2 MR) sqrt(log T ln(2.5/delta)) / (eps B beta)``.
* :func:`v001_regime_b` (001 Thm 5.12, Cor. 5.10/5.11): ``B <= sqrt n``, ``T = n/B``,
  ``beta = (16 c_M + 8) L n^1.5 / (R B^2)``, ``G = (8 c_M + 4) L``,
  ``sigma = (16 sqrt2 c_M + 8 sqrt2) L sqrt(log T ln(2.5/delta)) / (eps B beta)``.
* :func:`v001_regime_a` (001 Eq. (19), Thm 5.8; needs ``x_dagger in C``): ``c_DP = 4 sqrt2 log^1.5(n)
  sqrt(ln(2n/delta)) ln(2.5/delta)``, ``T = c_DP n^{1/4}``, ``B = n/T``, ``beta = c_DP^2 L max{1, sqrt p /
  (eps sqrt n)} / R``, ``G = c_DP L``, ``sigma = c_DP L sqrt(log T ln(2.5/delta)) / (eps B beta)`` (Cor. 5.7).
  At practical n it is vacuous (T > n, B < 1) and raises.

``paper_sigma`` is the papers' node noise (GDP analysis); the optimizer instead calibrates the noise with the
accountant (:mod:`.privacy`), which is tighter. The theory's beta makes steps tiny at real n (the constants
are worst case), so every field is also user-settable in :class:`~.srgd.AcceleratedDPSRGD`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from dpbandit import _validate

__all__ = ["PAPER_EXPERIMENTS", "SRGDSettings", "v000_theorem_4_10", "v001_regime_a", "v001_regime_b"]


@dataclass(frozen=True)
class SRGDSettings:
    """Hyper-parameters of Algorithm 1 from a theorem; ``optimizer_kwargs()`` feeds ``AcceleratedDPSRGD``."""

    batch_size: int
    steps: int
    beta: float
    clip_norm: float
    paper_sigma: float
    source: str

    def optimizer_kwargs(self) -> dict[str, float | int]:
        """``batch_size``, ``steps``, ``beta``, ``clip_norm``."""
        d = asdict(self)
        return {k: d[k] for k in ("batch_size", "steps", "beta", "clip_norm")}


def _check(
    n: int, L: float, R: float, epsilon: float, delta: float
) -> tuple[int, float, float, float, float]:
    return (
        _validate.integer(n=n, minimum=4),
        _validate.positive(L=L),
        _validate.positive(R=R),
        _validate.positive(epsilon=epsilon),
        _validate.probability(delta=delta),
    )


def _batch(n: int, bound: float, batch_size: int | None) -> int:
    if batch_size is None:
        batch_size = int(math.floor(bound))
    elif batch_size > bound:
        raise ValueError(
            f"Expected batch_size <= {bound:.4g} (the theorem's bound), got batch_size={batch_size}."
        )
    if batch_size < 1:
        raise ValueError(
            f"The theorem's batch-size bound {bound:.4g} is < 1 at n={n}: the preset is vacuous."
        )
    return batch_size


def _log2(x: float) -> float:
    return math.log2(max(x, 2.0))


def v000_theorem_4_10(
    n: int,
    dim: int,
    *,
    L: float,
    M: float,
    R: float,
    epsilon: float,
    delta: float,
    batch_size: int | None = None,
) -> SRGDSettings:
    """Theorem 4.10 of 000 (``||C||_2`` read as R); ``batch_size`` defaults to the largest allowed."""
    n, L, R, epsilon, delta = _check(n, L, R, epsilon, delta)
    dim = _validate.integer(dim=dim, minimum=1)
    M = _validate.positive(M=M)
    T0 = n / math.sqrt(n)  # T at B = sqrt n, used inside the (weakly T-dependent) bound
    bound = min(
        math.sqrt(n),
        (L + 2 * M * R)
        * n**1.5
        * epsilon
        / (
            4
            * math.sqrt(2)
            * R
            * math.sqrt(dim)
            * _log2(T0) ** 1.5
            * math.sqrt(math.log(4 * T0 / delta) * math.log(2.5 / delta))
        ),
    )
    B = _batch(n, bound, batch_size)
    T = n // B
    beta = M + (8 * L + 16 * M * R) * n**1.5 / (R * B**2)
    sigma = (
        (8 * math.sqrt(2) * L + 16 * math.sqrt(2) * M * R)
        * math.sqrt(_log2(T) * math.log(2.5 / delta))
        / (epsilon * B * beta)
    )
    return SRGDSettings(B, T, beta, 4 * L + 8 * M * R, sigma, "000 Theorem 4.10")


def v001_regime_b(
    n: int,
    *,
    L: float,
    R: float,
    epsilon: float,
    delta: float,
    c_M: float = 1.0,
    batch_size: int | None = None,
) -> SRGDSettings:
    """Theorem 5.12 of 001 (no assumption on x_dagger; needs ``M <= c_M L / R``); B defaults to sqrt n."""
    n, L, R, epsilon, delta = _check(n, L, R, epsilon, delta)
    c_M = _validate.positive(c_M=c_M)
    B = _batch(n, math.sqrt(n), batch_size)
    T = n // B
    beta = (16 * c_M + 8) * L * n**1.5 / (R * B**2)
    sigma = (
        (16 * math.sqrt(2) * c_M + 8 * math.sqrt(2))
        * L
        * math.sqrt(_log2(T) * math.log(2.5 / delta))
        / (epsilon * B * beta)
    )
    return SRGDSettings(B, T, beta, (8 * c_M + 4) * L, sigma, "001 Theorem 5.12")


def v001_regime_a(n: int, dim: int, *, L: float, R: float, epsilon: float, delta: float) -> SRGDSettings:
    """Eq. (19) of 001 (assumes ``x_dagger in C``); raises when ``T = c_DP n^{1/4}`` exceeds n (B < 1)."""
    n, L, R, epsilon, delta = _check(n, L, R, epsilon, delta)
    dim = _validate.integer(dim=dim, minimum=1)
    c_dp = 4 * math.sqrt(2) * math.log2(n) ** 1.5 * math.sqrt(math.log(2 * n / delta)) * math.log(2.5 / delta)
    T = int(math.ceil(c_dp * n**0.25))
    B = _batch(n, n / T, None)
    T = n // B
    beta = c_dp**2 * L * max(1.0, math.sqrt(dim) / (epsilon * math.sqrt(n))) / R
    sigma = c_dp * L * math.sqrt(_log2(T) * math.log(2.5 / delta)) / (epsilon * B * beta)
    return SRGDSettings(B, T, beta, c_dp * L, sigma, "001 Eq. (19)")


#: Sec. 5.1 of 000: batch 500, SGD with momentum 0.9, decay c = e^{-5/2}; lr and clip swept (grids not given).
PAPER_EXPERIMENTS = {
    "mnist": {
        "batch_size": 500,
        "epochs": 1,
        "epsilon": 0.1,
        "delta": 1e-6,
        "momentum": 0.9,
        "decay": math.exp(-2.5),
    },
    "cifar10": {
        "batch_size": 500,
        "epochs": 6,
        "epsilon": 2.0,
        "delta": 1e-6,
        "momentum": 0.9,
        "decay": math.exp(-2.5),
    },
}
