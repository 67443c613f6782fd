"""Accelerated-DP-SRGD (Algorithm 1 of 000_e95584ca0dc4dbfd.txt = Algorithm 1 of 001_d660558f34d2da38.txt).

Single pass over the data in consecutive disjoint batches ``B_0..B_{T-1}`` of size B. With ``eta_t = t + 1``
(so ``eta_{-1} = 0``), ``eta_{0:t} = (t+1)(t+2)/2`` and ``tau_t = eta_t / eta_{0:t} = 2 / (t + 2)``:

    Delta_t(d) = clip(eta_t grad f(x_t, d) - eta_{t-1} grad f(x_{t-1}, d), G)     (line 3, same batch B_t)
    v_t        = (1/B) sum_{d in B_t} Delta_t(d) / beta
    S_t        = TREE(v_0..v_t)   (noisy prefix sum = sum_{i<=t} Delta_i / beta - b_t; Lemma 4.3 of 000)
    z_{t+1}    = Pi_C(z_t - S_t)                     (line 5: z_t - eta_t grad_t / beta + b_t)
    y_{t+1}    = Pi_C(x_t - S_t / eta_t)             (line 6: x_t - grad_t / beta + b_t / eta_t)
    x_{t+1}    = (1 - tau_{t+1}) y_{t+1} + tau_{t+1} z_{t+1}                      (line 7)

and the output is ``y_T`` (Theorems 4.1/4.7 of 000 bound ``F(y_T) - F(x*)``).
``eta_t grad_t = sum_{i<=t} Delta_i`` is the stochastic recursive gradient; the noiseless ``grad_t`` never
leaves the tree, and the same noise ``b_t`` enters z unscaled and y scaled by ``1/eta_t`` because both use the
one noisy release ``S_t`` (notes/srgd.md 2.1).

Privacy. Under zero-out adjacency one example lies in one batch, so only ``v_t`` changes, by at most
``C_tree = G / (B beta)`` in L2 (the clip makes this hold for any loss: Theorem 4.10 / Cor. 4.5 of 000). The
tree's node noise is ``N(0, (z C_tree)^2 I)`` and the noise multiplier ``z`` is calibrated with the privacy
core's accountant for the tree-aggregation event over T steps (not the paper's GDP formula, which is looser;
the paper's sigma is available in :mod:`.presets`). Clipping makes the TV-distance step of Cor. 4.5
unnecessary.
"""

from __future__ import annotations

import numpy as np

from dpbandit import _validate
from dpbandit.optim.base import BatchOptimizer, OptimResult
from dpbandit.optim.losses import Loss
from dpbandit.optim.srgd._common import as_data, batch_slices, clip_rows, project_ball
from dpbandit.optim.srgd.privacy import calibrate_tree
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.tree import TreeAggregator, gaussian_tree

__all__ = ["AcceleratedDPSRGD"]


class AcceleratedDPSRGD(BatchOptimizer):
    """Accelerated-DP-SRGD (Algorithm 1 of 000/001): one epoch, SRG differences, binary-tree noise, Nesterov.

    Args:
        loss: per-example loss (``dpbandit.optim.losses.Loss``), parameter dimension ``loss.dim`` or ``dim``.
        batch_size: B (theory: ``B <= sqrt(n)``, Thm 4.10 of 000 / Thm 5.12 of 001).
        beta: the scaling beta >= M (smoothness); the step of y is ``1 / beta``.
        clip_norm: G, the clip of the whole per-example difference ``Delta_t(d)``; ``math.inf`` only with
            ``noise=False`` (the presets give the papers' G).
        epsilon, delta: target (epsilon, delta)-DP under zero-out adjacency (required when ``noise=True``).
        rng: generator of the privacy noise.
        dim: parameter dimension (default ``loss.dim``).
        radius: R of the constraint set ``C = {||x||_2 <= R}`` (001 footnote 2); ``None`` = unconstrained.
        steps: T (default ``n // batch_size``: one full epoch; at most that).
        noise: ``False`` runs the same algorithm with exact prefix sums (no guarantee).
    """

    def __init__(
        self,
        loss: Loss,
        *,
        batch_size: int,
        beta: float,
        clip_norm: float,
        rng: np.random.Generator,
        epsilon: float | None = None,
        delta: float | None = None,
        dim: int | None = None,
        radius: float | None = None,
        steps: int | None = None,
        noise: bool = True,
    ) -> None:
        super().__init__(getattr(loss, "dim", None) if dim is None else dim, loss=loss, rng=rng, noise=noise)
        self.batch_size = _validate.integer(batch_size=batch_size, minimum=1)
        self.beta = _validate.positive(beta=beta)
        self.clip_norm = _validate.positive(clip_norm=clip_norm, allow_inf=not noise)
        self.radius = None if radius is None else _validate.positive(radius=radius)
        self.steps = None if steps is None else _validate.integer(steps=steps, minimum=1)
        if noise:
            if epsilon is None or delta is None:
                raise ValueError("Expected epsilon and delta when noise=True.")
            epsilon = _validate.positive(epsilon=epsilon)
            delta = _validate.probability(delta=delta)
        self.epsilon, self.delta = epsilon, delta
        self._privacy: PrivacyGuarantee | None = None

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Guarantee of the last ``fit`` (None before fitting or with ``noise=False``)."""
        return self._privacy

    def noise_tree(self, steps: int) -> tuple[TreeAggregator, float | None]:
        """The prefix-sum tree of a ``steps``-step run and its noise multiplier (``None`` with ``noise=False``).

        Node noise ``N(0, (z C_tree)^2 I)``: ``C_tree = G / (B beta)`` (Lemma 4.3 of 000) and the multiplier
        ``z`` from the accountant over ``steps`` steps. Sets :attr:`privacy`. ``fit`` builds its tree here; the
        empirical audit (``dpbandit.audit.optimizers``) draws from the same tree's node sampler.
        """
        if not self.noise:
            self._privacy = None
            return TreeAggregator((self.dim,), noise=None, rng=self.rng, horizon=steps), None
        sensitivity = self.clip_norm / (self.batch_size * self.beta)  # C_tree of Lemma 4.3
        multiplier, self._privacy = calibrate_tree(self.epsilon, self.delta, steps=steps)
        return gaussian_tree((self.dim,), multiplier * sensitivity, self.rng, horizon=steps), multiplier

    def fit(self, X: np.ndarray, y: np.ndarray, *, record: bool = False) -> OptimResult:
        """Run Algorithm 1 once over (X, y) in the given order; returns ``y_T`` (history: ``y_0..y_T``)."""
        X, y = as_data(X, y)
        slices = batch_slices(X.shape[0], self.batch_size)
        T = len(slices) if self.steps is None else self.steps
        if T > len(slices):
            raise ValueError(f"Expected steps <= n // batch_size = {len(slices)} (one epoch), got steps={T}.")
        tree, multiplier = self.noise_tree(T)
        x = np.zeros(self.dim)
        z = np.zeros(self.dim)
        y_out = np.zeros(self.dim)
        x_prev = x
        history = [y_out] if record else None
        clipped = 0
        for t in range(T):
            Xb, yb = X[slices[t]], y[slices[t]]
            diff = (t + 1) * self.loss.per_example_grad(x, Xb, yb)
            if t > 0:  # eta_{-1} = 0: Delta_0 is a plain batch gradient
                diff -= t * self.loss.per_example_grad(x_prev, Xb, yb)
            clipped += int(np.sum(np.linalg.norm(diff, axis=1) > self.clip_norm))
            S = tree.add(clip_rows(diff, self.clip_norm).mean(axis=0) / self.beta)
            z = project_ball(z - S, self.radius)
            y_out = project_ball(x - S / (t + 1), self.radius)
            tau = 2.0 / (t + 3)  # tau_{t+1}
            x_prev, x = x, (1.0 - tau) * y_out + tau * z
            if record:
                history.append(y_out)
        info = {
            "steps": T,
            "n_used": T * self.batch_size,
            "beta": self.beta,
            "clip_norm": self.clip_norm,
            "clipped_fraction": clipped / (T * self.batch_size),
        }
        if self.noise:
            info["noise_multiplier"] = multiplier
        return OptimResult(
            theta=y_out,
            privacy=self._privacy,
            history=np.array(history) if record else None,
            history_steps=np.arange(T + 1) if record else None,
            n_gradients=(2 * T - 1) * self.batch_size,
            info=info,
        )
