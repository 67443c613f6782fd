"""Online-to-nonconvex conversion, Algorithm 2 of paper 002 (O2NC of Cutkosky et al. 2023).

Clipped online gradient descent over increments Delta (linear losses <g_t, .>, projection on the ball of
radius D), with oracle queries at the random points z_t = x_{t-1} + s_t Delta_t on each segment, s_t ~ U[0, 1].
Delta_1 = 0 (so z_1 = x_0), Delta is never reset, and the outputs are the block averages
xbar_k = (1/M) sum_{m=1}^M z_{(k-1)M+m}, k = 1..K = floor(T/M), with x_out drawn uniformly among them
(notes 002 section 7.12). Prop 2.6: with eta = D / (G1 sqrt(M)) and M D <= alpha,
E||dbar_alpha h(x_out)|| <= (h(x0) - inf h)/(D T) + 3 G1 / (2 sqrt(M)) + G0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from dpbandit import _validate
from dpbandit.optim.base import BatchOptimizer, OptimResult
from dpbandit.optim.nonsmooth.losses import SampleLoss
from dpbandit.optim.nonsmooth.oracles import MultiPassOracle, SinglePassOracle
from dpbandit.optim.nonsmooth.presets import Preset

__all__ = ["O2NCTrace", "PrivateO2NC", "o2nc"]


@dataclass(frozen=True)
class O2NCTrace:
    """Outputs of Algorithm 2: ``x_out`` (d,), all block averages ``block_means`` (K, d), its index ``k_out``."""

    x_out: np.ndarray
    block_means: np.ndarray
    k_out: int


def o2nc(
    oracle: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    *,
    D: float,
    eta: float,
    M: int,
    T: int,
    rng: np.random.Generator,
) -> O2NCTrace:
    """Run Algorithm 2 with a stateful gradient oracle ``oracle(z_t) -> g~_t`` called once per step, in order.

    Args:
        oracle: the (private) gradient oracle of the smoothed objective (Algorithms 3/4/5).
        x0: initial point, shape ``(d,)``.
        D: clipping radius of the increments (> 0).
        eta: online-GD step size (> 0); Prop 2.6 uses D / (G1 sqrt(M)).
        M: averaging length (>= 1); the analysis needs M D <= alpha.
        T: number of oracle calls (>= M, so that K = floor(T/M) >= 1).
        rng: stream for the s_t and the choice of x_out (post-processing, no privacy role).
    """
    D = _validate.positive(D=D)
    eta = _validate.positive(eta=eta)
    M = _validate.integer(M=M, minimum=1)
    T = _validate.integer(T=T, minimum=M)
    rng = _validate.rng(rng=rng)
    x = np.array(x0, dtype=float)
    delta = np.zeros_like(x)
    s = rng.random(T)
    K = T // M
    sums = np.zeros((K, x.shape[0]))
    for t in range(T):
        z = x + s[t] * delta
        x = x + delta
        g = oracle(z)
        if t < K * M:
            sums[t // M] += z
        step = delta - eta * g
        norm = np.linalg.norm(step)
        delta = step if norm <= D else step * (D / norm)
    means = sums / M
    k_out = int(rng.integers(K))
    return O2NCTrace(x_out=means[k_out].copy(), block_means=means, k_out=k_out)


class PrivateO2NC(BatchOptimizer):
    """Algorithm 2 with a private oracle (Algorithm 3, 4 or 5) as a batch optimizer: ``fit(X, y) -> OptimResult``.

    Args:
        dim: parameter dimension d.
        loss: a :class:`~dpbandit.optim.nonsmooth.losses.SampleLoss`.
        preset: a :class:`~dpbandit.optim.nonsmooth.presets.Preset` (oracle parameters, D, M, T, eta; single or
            multi pass).
        epsilon, delta: target (epsilon, delta)-DP (replace-one).
        x0: initial point (default: zeros).
        rng: generator; spawned into the O2NC stream (s_t, x_out) and the oracle's direction and noise streams.
        noise: ``False`` removes the privacy noise (``privacy`` is then ``None``): the non-private O2NC.
        strict: per-sample clipping so privacy never rests on a high-probability event (default True);
            ``strict=False`` drops the preset's clip norms and spends delta/2 on the event of Lemmas 3.4/6.3.
        calibration: ``"accountant"`` (default) or ``"paper"``.

    ``OptimResult.theta`` is x_out; ``history`` holds all block averages xbar_1..xbar_K (x_out is uniform among
    them, so averages over ``history`` estimate expectations over x_out); ``info`` has the oracle counters and the
    preset. ``n_gradients`` counts function (ZO) or gradient (FO) evaluations.
    """

    def __init__(
        self,
        dim: int,
        *,
        loss: SampleLoss,
        preset: Preset,
        epsilon: float,
        delta: float,
        rng: np.random.Generator,
        x0: np.ndarray | None = None,
        noise: bool = True,
        strict: bool = True,
        calibration: str = "accountant",
    ) -> None:
        super().__init__(dim, loss=loss, rng=rng, noise=noise)
        self.preset, self.epsilon, self.delta = preset, epsilon, delta
        self.strict, self.calibration = bool(strict), calibration
        self.x0 = np.zeros(self.dim) if x0 is None else np.asarray(x0, dtype=float).reshape(self.dim)
        self.oracle: SinglePassOracle | MultiPassOracle | None = None

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = True) -> OptimResult:
        """Run Algorithm 2 on (X, y); ``record`` is accepted for the contract (block averages are always kept)."""
        X, y = self._check_data(X, y)
        loop_rng, oracle_rng = self.rng.spawn(2)
        p = self.preset
        params = p.params if self.strict else replace(p.params, clip_anchor=None, clip_increment=None)
        cls = MultiPassOracle if p.multi_pass else SinglePassOracle
        self.oracle = cls(
            self.loss, X, y, params, steps=p.steps, D=p.D, epsilon=self.epsilon, delta=self.delta,
            rng=oracle_rng, noise=self.noise, strict=self.strict, calibration=self.calibration,
        )
        trace = o2nc(self.oracle, self.x0, D=p.D, eta=p.eta, M=p.M, T=p.steps, rng=loop_rng)
        c = self.oracle.counters
        return OptimResult(
            theta=trace.x_out,
            privacy=self.oracle.privacy,
            history=trace.block_means,
            history_steps=np.arange(1, trace.block_means.shape[0] + 1) * p.M,
            n_gradients=c.evaluations,
            info={"preset": p, "counters": c, "k_out": trace.k_out},
        )
