"""Parameter presets for Algorithm 2 with the oracles of Algorithms 3/4/5 (paper 002, Thms 3.1, 4.1, 6.1).

Notation table (public name -> paper symbol): ``alpha`` -> alpha (smoothing radius; certified radius 2 alpha),
``D`` -> D (O2NC clipping radius), ``eta`` -> eta, ``M`` -> M (averaging length), ``steps`` -> T,
``period`` -> Sigma, ``B1``/``B2`` -> B1/B2, ``m`` -> m, ``epsilon``/``delta`` -> (epsilon, delta),
``lipschitz`` -> L, ``gap`` -> Phi (>= F(x0) - inf F).

* :func:`theory_preset` -- the theorems' settings with every hidden constant and log set to 1 (notes section 4):
  Thm 3.1 (zeroth order) / Thm 6.1 (first order) for the single pass; Thm 4.1 for the multi pass, with the printed
  D = alpha^2 beta^2 / L^2, T = Phi L^2 / (alpha^2 beta^3) (``thm41="printed"``) or the dimensionally consistent
  D = alpha beta^2 / L^2, T = Phi L^2 / (alpha beta^3) (``thm41="corrected"``, notes 7.10). The zeroth-order m
  is millions of evaluations per sample at moderate n (notes section 4 worked check).
* :func:`practical_preset` [Fill] -- the default. A fixed step budget T (single pass: batches
  B2 = floor(n / (2 T)), B1 = Sigma B2, so the samples are used once as in the theorems, whose B1 = Sigma, B2 = 1
  is the case T = n/2), a small m, strict clipping at the *theory's* sensitivity scale (C_a = L, C_i = 2 D L
  sqrt(d) / alpha: the smoothness bound without the deviation term), and (Sigma, D) chosen on a grid to
  minimise Prop 2.6's bound Phi/(D T) + 3 G1 / (2 sqrt(M)) + G0 with constants 1, the accountant's noise and
  G0^2 from Lemmas 3.6/4.4/6.5 (tree variance: mean popcount of the positions times sigma^2 d). Clipping is
  then active whenever the per-sample deviation exceeds the smoothness bound (small m): the bias is reported
  by the oracle's ``clipped`` counters, privacy is unaffected.

In both, eta = D / (G1 sqrt(M)) (Prop 2.6) with G1^2 = L^2 + G0^2 (G1 <~ L + G0, notes 7.11) and M = floor(alpha/(4D)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from dpbandit import _validate
from dpbandit.optim.nonsmooth.calibration import multi_pass_sigmas
from dpbandit.optim.nonsmooth.estimators import Order
from dpbandit.optim.nonsmooth.oracles import OracleParams
from dpbandit.privacy import accounting

__all__ = ["Preset", "practical_preset", "step_size", "theory_preset"]


@dataclass(frozen=True)
class Preset:
    """Everything Algorithm 2 + an oracle needs: ``params`` plus D, M, T, eta, the mode and the predicted bound."""

    params: OracleParams
    D: float
    M: int
    steps: int
    eta: float
    multi_pass: bool
    bound: float
    source: str

    def with_m(self, m: int) -> Preset:
        """The same preset with another m (e.g. a capped zeroth-order m)."""
        return replace(self, params=replace(self.params, m=_validate.integer(m=m, minimum=1)))


def _mean_popcount(period: int) -> float:
    return float(np.mean([bin(p).count("1") for p in range(1, period + 1)]))


def _g0_squared(
    *, order: Order, L: float, d: int, alpha: float, D: float, period: int, B1: float, B2: float, m: int,
    noise_var: float,
) -> float:
    """Lemma 3.6 (ZO) / 6.5 (FO) with constants 1; ``noise_var`` = E||noise||^2 of one release."""
    g0 = L**2 / B1 + L**2 * d * D**2 * period / (alpha**2 * B2) + noise_var
    if order == "zeroth":
        g0 += L**2 * d**2 / (B1 * m) + L**2 * d**2 * period / (m * B2)
    else:
        g0 += L**2 * period / (m * B2)
    return g0


def _averaging_length(alpha: float, D: float) -> int:
    """M = floor(alpha / (4 D)), at least 1 (Prop 2.6 setting)."""
    return max(1, math.floor(alpha / (4 * D)))


def _bound(*, gap: float, D: float, T: int, M: int, L: float, g0_squared: float) -> float:
    """Prop 2.6's bound with constants 1: Phi/(D T) + 3 G1 / (2 sqrt(M)) + G0 with G1^2 = L^2 + G0^2."""
    return gap / (D * T) + 1.5 * math.sqrt(L**2 + g0_squared) / math.sqrt(M) + math.sqrt(g0_squared)


def step_size(D: float, M: int, lipschitz: float, g0_squared: float) -> float:
    """eta = D / (G1 sqrt(M)) with G1 = sqrt(L^2 + G0^2) (Prop 2.6; notes 7.11)."""
    return D / (math.sqrt(lipschitz**2 + g0_squared) * math.sqrt(M))


def _tree_z(epsilon: float, delta: float, period: int) -> float:
    return accounting.tree_gaussian_sigma(epsilon, delta, period, 1.0)


def _single_pass_steps(n: int, period: int, B1: int, B2: int) -> int:
    """Largest T with ceil(T/Sigma) B1 + (T - ceil(T/Sigma)) B2 <= n."""
    per_period = B1 + (period - 1) * B2
    full, rest = divmod(n, per_period)
    extra = 0 if rest < B1 else 1 + min(period - 1, (rest - B1) // B2)
    return full * period + extra


def theory_preset(
    order: Order,
    *,
    n: int,
    dim: int,
    alpha: float,
    epsilon: float,
    delta: float,
    lipschitz: float = 1.0,
    gap: float = 1.0,
    multi_pass: bool = False,
    beta: float | None = None,
    thm41: str = "corrected",
) -> Preset:
    """Theorem settings with constants 1 (Thm 3.1 / 6.1 single pass; Thm 4.1 multi pass, needs ``beta``)."""
    L, d, a, eps, Phi = lipschitz, dim, alpha, epsilon, gap
    log_term = math.log(1.0 / delta)
    if multi_pass:
        beta = _validate.positive(beta=beta)
        _validate.one_of(("printed", "corrected"), thm41=thm41)
        D = (a**2 if thm41 == "printed" else a) * beta**2 / L**2
        T = max(1, math.ceil(Phi * L**2 / ((a**2 if thm41 == "printed" else a) * beta**3)))
        period = max(1, round(a / (D * math.sqrt(d))))
        M = _averaging_length(a, D)
        k1 = -(-T // period)
        s = (2 * L / n, 4 * D * L * math.sqrt(d) / (a * n))
        s1, s2 = multi_pass_sigmas(
            epsilon=eps, delta=delta, sensitivities=s, counts=(k1, T - k1), period=period, calibration="paper"
        )
        m_paper = L**2 * d * period / (n * s1**2) + (L**2 * d / (n * s2**2) if T > k1 else 0.0)
        m = max(1, math.ceil(m_paper))
        g0 = s1**2 * d + s2**2 * d * period + L**2 * d**2 * period / (m * n)
        params = OracleParams(order=order, alpha=a, period=period, m=m)
        source = f"Thm 4.1 ({thm41} D, T), constants 1"
    else:
        T = max(1, n // 2)
        D = min(
            (Phi**2 * a / (L**2 * T**2)) ** (1 / 3),
            (Phi * a * eps / (d * L * T)) ** 0.5,
            (Phi**3 * a**2 * eps / (d**1.5 * L**3 * T**3)) ** 0.2,
            (Phi**2 * a / (L**2 * T**2 * math.sqrt(d))) ** (1 / 3),
        )
        period = max(1, math.ceil((a / (eps * D)) ** (2 / 3) + a / (D * math.sqrt(d))))
        B1, B2 = period, 1
        M = _averaging_length(a, D)
        log_m = math.log(d * B2 / delta)
        if order == "zeroth":
            m = math.ceil(log_m * (d**2 * B1**2 + d * a**2 * B2**2 / D**2))  # Lemma 3.5
        else:
            m = math.ceil(log_m * B2**2 * a**2 / (D**2 * d))  # Lemma 6.4
        m = max(m, 1)
        sigma = L * math.sqrt(log_term) / (B1 * eps) + L * D * math.sqrt(d * log_term) / (a * B2 * eps)
        T = _single_pass_steps(n, period, B1, B2)
        g0 = _g0_squared(
            order=order, L=L, d=d, alpha=a, D=D, period=period, B1=B1, B2=B2, m=m,
            noise_var=sigma**2 * d * math.log(max(period, 2)),
        )
        params = OracleParams(order=order, alpha=a, period=period, m=m, B1=B1, B2=B2)
        source = f"Thm {'3.1' if order == 'zeroth' else '6.1'}, constants 1"
    T = max(T, M)
    bound = _bound(gap=Phi, D=D, T=T, M=M, L=L, g0_squared=g0)
    return Preset(params, D, M, T, step_size(D, M, L, g0), multi_pass, bound, source)


def practical_preset(
    order: Order,
    *,
    n: int,
    dim: int,
    alpha: float,
    epsilon: float,
    delta: float,
    lipschitz: float = 1.0,
    gap: float = 1.0,
    steps: int = 2000,
    m: int | None = None,
    multi_pass: bool = False,
    private: bool = True,
    periods: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
    n_grid: int = 40,
) -> Preset:
    """Default preset [Fill]: grid search of (Sigma, D) minimising Prop 2.6's bound (see module docstring).

    ``steps`` is the O2NC budget T (single pass: reduced if n < 2 T); ``m`` defaults to 8 (first order) or
    2 d (zeroth order). ``private=False`` tunes for a noise-free run (the non-private O2NC baseline; run it with
    ``noise=False``); ``epsilon`` and ``delta`` are then ignored.
    """
    L, d, a, Phi = lipschitz, dim, alpha, gap
    n = _validate.integer(n=n, minimum=2)
    m = (8 if order == "first" else 2 * d) if m is None else _validate.integer(m=m, minimum=1)
    best: tuple[float, Preset] | None = None
    for period in periods:
        if multi_pass:
            T = steps
            B1 = B2 = n
            z = None
        else:
            B2 = max(1, n // (2 * steps))
            B1 = period * B2
            T = _single_pass_steps(n, period, B1, B2)
            z = _tree_z(epsilon, delta, period) if private else 0.0
        if period > T:
            continue
        for D in np.geomspace(a / 4.0, a * 1e-5, n_grid):
            M = _averaging_length(a, D)
            if M > T:
                continue
            c_a, c_i = L, 2.0 * D * L * math.sqrt(d) / a
            if not private:
                noise_var = 0.0
            elif multi_pass:
                k1 = -(-T // period)
                s1, s2 = multi_pass_sigmas(
                    epsilon=epsilon, delta=delta, sensitivities=(2 * c_a / n, 2 * c_i / n),
                    counts=(k1, T - k1), period=period,
                )
                noise_var = d * (s1**2 + (s2**2 * (period - 1) if math.isfinite(s2) else 0.0))
            else:
                sigma = z * max(2 * c_a / B1, 2 * c_i / B2)
                noise_var = sigma**2 * d * _mean_popcount(period)
            g0 = _g0_squared(
                order=order, L=L, d=d, alpha=a, D=D, period=period, B1=B1, B2=B2, m=m, noise_var=noise_var
            )
            bound = _bound(gap=Phi, D=D, T=T, M=M, L=L, g0_squared=g0)
            if best is None or bound < best[0]:
                params = OracleParams(
                    order=order, alpha=a, period=period, m=m, B1=B1, B2=B2, clip_anchor=c_a, clip_increment=c_i
                )
                source = "practical [Fill]" + ("" if private else ", non-private tuning")
                preset = Preset(params, float(D), M, T, step_size(D, M, L, g0), multi_pass, bound, source)
                best = (bound, preset)
    if best is None:
        raise ValueError(f"No feasible practical preset for n={n}, steps={steps}.")
    return best[1]
