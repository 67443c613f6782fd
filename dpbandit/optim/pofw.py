"""DP-POFW: private polyhedral online Frank-Wolfe over an l1 ball (Algorithm 2 of 004).

References:
    004_290fd04a1e656565.txt (Han et al.), Algorithm 2, Theorem 3.4 and its proof (Appendix A.6);
    notes/ofw_hdb.md Sections 1.5, 6.2, 6.4.

Per instance and step ``t = 1, 2, ...`` (theta_0 = theta_1 = 0, rho_t = eta_t = 1/(t+1)):

* recursive gradient ``d_t = grad f(theta_t; x_t) + (1 - rho_t)(d_{t-1} - grad f(theta_{t-1}; x_t))``
  with ``d_0 = 0`` (the sum form Eq. 3.1 / A.1 that the privacy proof A.6 uses, so ``d_1`` is half
  the first gradient; Algorithm 2 line 4 prints ``d_1 = grad f``, notes Section 6.2);
* report-noisy-min over the 2d vertices ``+-r e_j`` of the l1 ball of radius ``r``: scores
  ``<d_t, v> + Lap(b_t)`` with fresh draws per vertex and step, where (Algorithm 2 line 8)
  ``b_t = multiplier * 4 D (beta D + L) sqrt(log n log(1/delta)) / (epsilon sqrt(t))``, ``D = 2r``;
* Frank-Wolfe step ``theta_{t+1} = theta_t + eta_t (v_t - theta_t)``.

Privacy accounting [derived, documented in docs/private_agents.md]. Conditional on the earlier
outputs, changing one sample changes ``d_t`` by at most ``2(beta D + L)/(t+1)`` in l_inf (A.6), so
every vertex score moves by at most ``Delta_t = r * 2(beta D + L)/(t+1)`` (``||v||_1 = r``; A.6 uses
the cruder ``D = 2r``). The scores are not monotone in the data, so report-noisy-min with
``Lap(b_t)`` is ``eps_t = 2 Delta_t / b_t``-DP (Dwork and Roth Thm 3.9 needs monotone queries;
notes Section 6.4). The factor 2 of non-monotonicity is exactly absorbed by the slack ``D = 2r``,
so at ``multiplier = 1`` ``eps_t <= epsilon / (2 sqrt(t log n log(1/delta)))`` as A.6 claims. The
accountant composes the steps as zCDP (pure ``eps``-DP implies ``eps^2/2``-zCDP, Bun and Steinke
2016) with ``dp_accounting``'s RDP accountant; ``streams`` instances touched by one user add up.

Calibrations: ``"paper"`` uses line 8 as printed (``multiplier = 1``; claim: Theorem 3.4);
``"accountant"`` (default) chooses the multiplier so that the accountant's epsilon over
``streams`` streams equals the requested epsilon at the requested delta.

Selection (a variant that keeps Algorithm 2's structure; issue 13): ``selection="laplace"``
(default, line 9) is the report-noisy-min above. ``selection="exponential"`` samples the vertex
from the exponential mechanism ``P(v) ~ exp(-<d_t, v> / b_t)`` by Gumbel-max
(:func:`dpbandit.privacy.rnm.exponential_mechanism`), with the same temperature ``b_t`` (line 8
times the multiplier). It is ``eps_t = 2 Delta_t / b_t``-DP like the Laplace selection, and moreover
``eps_t``-bounded-range (the privacy loss over the outputs spans at most ``eps_t``), hence
``eps_t^2 / 8``-zCDP (Cesar and Rogers 2021, "Bounding, concentrating, and truncating: unifying
privacy loss composition for data analytics"; Durfee and Rogers 2019) instead of the
generic ``eps_t^2 / 2`` of a pure-DP step: a quarter of the zCDP cost, so the accountant
calibration needs half the temperature. ``"paper"`` with ``"exponential"`` runs each step at A.6's
``eps_t`` (its advanced-composition claim holds for any ``eps_t``-DP step).

Vertex sampler (how the Laplace selection's noise is drawn; the law, hence the guarantee, is the same):
``"per-vertex"`` draws one ``Lap(b_t)`` per vertex, ``2d`` per step (:func:`dpbandit.privacy.rnm.report_noisy_min`);
``"topdown"`` draws the noise's largest order statistics first and stops once the winner is settled
(:mod:`dpbandit.privacy.topdown`), a few draws per step when the scores are close in noise units, as at
line 8's scale. The two give different random numbers for a seed.

:class:`POFWBank` runs K independent instances in lock-step (vectorised, no Python loop over
instances, coordinates or vertices); :class:`DPPOFW` is the single-instance streaming optimiser
of :mod:`dpbandit.optim.base` built on it. ``noise=False`` is the debugging switch: exact LMO,
``privacy`` is ``None``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np
from dpbandit import _validate
from dpbandit.optim.base import StreamingOptimizer
from dpbandit.optim.geometry import lmo
from dpbandit.optim.losses import Loss
from dpbandit.privacy import accounting
from dpbandit.privacy.rnm import exponential_mechanism, report_noisy_min
from dpbandit.privacy.topdown import report_noisy_min_topdown

__all__ = [
    "CALIBRATIONS",
    "DPPOFW",
    "POFWBank",
    "POFWPrivacy",
    "SELECTIONS",
    "VERTEX_SAMPLERS",
    "ZCDP_PER_EPSILON2",
    "private_vertex",
]

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

Calibration = Literal["accountant", "paper"]
CALIBRATIONS: tuple[str, ...] = ("accountant", "paper")
Selection = Literal["laplace", "exponential"]
SELECTIONS: tuple[str, ...] = ("laplace", "exponential")
#: zCDP of one eps-DP selection step, per eps^2: pure DP (Bun-Steinke) vs bounded range (Cesar-Rogers).
VertexSampler = Literal["per-vertex", "topdown"]
VERTEX_SAMPLERS: tuple[str, ...] = ("per-vertex", "topdown")
ZCDP_PER_EPSILON2 = {"laplace": 0.5, "exponential": 0.125}


class POFWPrivacy:
    """Noise calibration and accounting of Algorithm 2's selection steps.

    Args:
        epsilon, delta: the requested guarantee (delta in (0, 1)).
        horizon: n of line 8 (``log n`` in the scale; >= 2).
        n_steps: steps each instance takes (<= horizon); the accountant composes all of them.
        streams: number of instances one user's data can enter (once each); 1 for plain DP-POFW.
        calibration: ``"accountant"`` or ``"paper"`` (module docstring).
        multiplier: explicit scale multiplier overriding the calibration (what-if runs and audits;
            the guarantee then reports the accountant's epsilon of that noise level).
        selection: ``"laplace"`` (report-noisy-min, line 9) or ``"exponential"`` (Gumbel-max EM with
            bounded-range zCDP accounting; module docstring).
    """

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        horizon: int,
        n_steps: int | None = None,
        streams: int = 1,
        calibration: Calibration = "accountant",
        multiplier: float | None = None,
        selection: Selection = "laplace",
    ) -> None:
        self.epsilon = _validate.positive(epsilon=epsilon)
        self.delta = _validate.probability(delta=delta)
        self.horizon = _validate.integer(horizon=horizon, minimum=2)
        self.n_steps = self.horizon if n_steps is None else _validate.integer(
            n_steps=n_steps, minimum=1, maximum=self.horizon
        )
        self.streams = _validate.integer(streams=streams, minimum=1)
        self.calibration = _validate.one_of(CALIBRATIONS, calibration=calibration)
        self.selection = _validate.one_of(SELECTIONS, selection=selection)
        self.log_term = math.sqrt(math.log(self.horizon) * math.log(1.0 / self.delta))
        rho_paper = self._rho(1.0)
        if multiplier is not None:
            self.multiplier = _validate.positive(multiplier=multiplier)
            self.calibration = f"fixed multiplier {self.multiplier:g}"
        elif self.calibration == "paper":
            self.multiplier = 1.0
        else:  # smallest multiplier whose accountant epsilon is the requested one (rho ~ 1/m^2)
            rho_target = accounting.epsilon_to_zcdp(self.epsilon, self.delta)
            self.multiplier = math.sqrt(rho_paper / rho_target)

    def step_epsilons(self, multiplier: float | None = None) -> np.ndarray:
        """Pure-DP (and, for the exponential mechanism, bounded-range) ``eps_t = 2 Delta_t / b_t``, t = 1..n_steps."""
        m = self.multiplier if multiplier is None else multiplier
        t = np.arange(1, self.n_steps + 1, dtype=float)
        return self.epsilon * np.sqrt(t) / (2.0 * m * (t + 1.0) * self.log_term)

    def _rho(self, multiplier: float) -> float:
        per_eps2 = ZCDP_PER_EPSILON2[self.selection]
        return self.streams * per_eps2 * float(np.sum(self.step_epsilons(multiplier) ** 2))

    @property
    def rho(self) -> float:
        """Total zCDP parameter of the released sequence (all ``streams``)."""
        return self._rho(self.multiplier)

    def guarantee(
        self,
        mechanism: str,
        *,
        relation: str = "replace-one sample (score sensitivity r 2(beta D + L)/(t+1), A.6)",
        notes: str = "",
    ) -> PrivacyGuarantee:
        """The :class:`PrivacyGuarantee`: the claim next to the accountant's epsilon at ``delta``."""
        claim = {"paper": "Thm 3.4 of 004 (Alg 2 line 8)", "accountant": "accountant-calibrated"}.get(
            self.calibration, "none (explicit multiplier; the accountant's epsilon is the guarantee)"
        )
        if self.selection == "laplace":
            detail = (
                f"Laplace RNM over 2d vertices, scale multiplier {self.multiplier:.4g} x line 8; "
                f"{self.streams} stream(s) x {self.n_steps} steps, non-monotone RNM eps_t = 2 Delta_t/b_t, "
                f"zCDP rho={self.rho:.4g}; claim: {claim}."
            )
            accountant = "rdp (zCDP of pure-DP report-noisy-min steps)"
        else:
            detail = (
                f"exponential mechanism (Gumbel-max) over 2d vertices, temperature multiplier "
                f"{self.multiplier:.4g} x line 8; {self.streams} stream(s) x {self.n_steps} steps, "
                f"eps_t = 2 Delta_t/b_t bounded range, zCDP eps_t^2/8 each, rho={self.rho:.4g}; claim: {claim}."
            )
            accountant = "rdp (zCDP of bounded-range exponential-mechanism steps, Cesar-Rogers 2021)"

        from dpbandit.privacy.guarantee import PrivacyGuarantee

        return PrivacyGuarantee(
            mechanism=mechanism,
            claimed_epsilon=self.epsilon,
            claimed_delta=self.delta,
            epsilon=accounting.zcdp_to_epsilon(self.rho, self.delta),
            relation=relation,
            accountant=accountant,
            calibration=self.calibration,
            notes=f"{detail} {notes}".strip(),
        )


def line8_scale(
    t: np.ndarray, *, radius: float, smoothness: float, lipschitz: float, privacy: POFWPrivacy
) -> np.ndarray:
    """Laplace scale ``b_t`` of Algorithm 2 line 8 (times the calibration multiplier), ``D = 2 radius``."""
    diameter = 2.0 * radius
    base = 4.0 * diameter * (smoothness * diameter + lipschitz) * privacy.log_term / privacy.epsilon
    return privacy.multiplier * base / np.sqrt(np.asarray(t, dtype=float))


class POFWBank:
    """K independent DP-POFW instances stepped together (vectorised over instances).

    Args:
        n_instances: number of instances K (DP-HDB: one per arm).
        dim: parameter dimension d.
        radius: l1-ball radius r (diameter D = 2r).
        smoothness: beta of A2.2 in (l1, l_inf) (for a GLM loss: sup zeta' * sup ||x||_inf^2).
        lipschitz: L of A2.4, sup ||grad f||_inf (the clipping bound).
        rng: generator of the selection noise.
        privacy: the calibration (:class:`POFWPrivacy`); ignored when ``noise=False``.
        noise: ``False`` = debugging switch: exact LMO, no privacy.
        sampler: ``"per-vertex"`` (default) or ``"topdown"``: how the Laplace selection draws its noise
            (module docstring; the same law). Only with ``selection="laplace"``.
    """

    def __init__(
        self,
        n_instances: int,
        dim: int,
        *,
        radius: float,
        smoothness: float,
        lipschitz: float,
        rng: np.random.Generator,
        privacy: POFWPrivacy | None,
        noise: bool = True,
        sampler: VertexSampler = "per-vertex",
    ) -> None:
        self.n_instances = _validate.integer(n_instances=n_instances, minimum=1)
        self.dim = _validate.integer(dim=dim, minimum=1)
        self.radius = _validate.positive(radius=radius)
        self.smoothness = _validate.nonnegative(smoothness=smoothness)
        self.lipschitz = _validate.positive(lipschitz=lipschitz)
        self.rng = _validate.rng(rng=rng)
        self.noise = bool(noise)
        if self.noise and not isinstance(privacy, POFWPrivacy):
            raise TypeError("Expected privacy to be a POFWPrivacy when noise=True.")
        self.privacy_calibration = privacy if self.noise else None
        self.sampler = _validate.one_of(VERTEX_SAMPLERS, sampler=sampler)
        if self.sampler == "topdown" and self.noise and privacy.selection != "laplace":
            raise ValueError(f"sampler='topdown' draws Laplace noise; selection={privacy.selection!r} needs "
                             "sampler='per-vertex'.")
        shape = (self.n_instances, self.dim)
        self.theta = np.zeros(shape)  # theta_{t+1} after t steps
        self.theta_prev = np.zeros(shape)  # theta_t
        self.direction = np.zeros(shape)  # d_t (d_0 = 0)
        self.t = np.zeros(self.n_instances, dtype=np.int64)  # steps taken per instance

    def step(
        self, grad_now: np.ndarray, grad_prev: np.ndarray, instances: np.ndarray | None = None
    ) -> None:
        """One step of Algorithm 2 for ``instances`` (default: all), given their two gradients.

        ``grad_now[i] = grad f(theta_t; x_t)`` and ``grad_prev[i] = grad f(theta_{t-1}; x_t)`` for
        the i-th selected instance, shape ``(k, dim)``.
        """
        rows = np.arange(self.n_instances) if instances is None else np.asarray(instances, dtype=np.int64)
        grad_now = np.asarray(grad_now, dtype=float)
        grad_prev = np.asarray(grad_prev, dtype=float)
        if grad_now.shape != (rows.size, self.dim) or grad_prev.shape != grad_now.shape:
            raise ValueError(
                f"Expected grad_now and grad_prev of shape ({rows.size}, {self.dim}), "
                f"got {grad_now.shape} and {grad_prev.shape}."
            )
        cal = self.privacy_calibration
        t = self.t[rows] + 1
        if cal is not None and np.any(t > cal.n_steps):
            raise RuntimeError(f"An instance would exceed its n_steps={cal.n_steps} calibrated steps.")
        keep = (t / (t + 1.0))[:, None]  # 1 - rho_t
        direction = grad_now + keep * (self.direction[rows] - grad_prev)
        if cal is None:
            vertex = lmo(direction, 1.0, self.radius)
        else:
            vertex = self._noisy_vertex(direction, t)
        theta = self.theta[rows]
        self.theta_prev[rows] = theta
        self.theta[rows] = theta + (vertex - theta) / (t + 1.0)[:, None]  # eta_t = 1/(t+1)
        self.direction[rows] = direction
        self.t[rows] = t

    def _noisy_vertex(self, direction: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Private choice among the 2d vertices at the line-8 scale ``b_t`` (:func:`private_vertex`)."""
        scale = line8_scale(
            t,
            radius=self.radius,
            smoothness=self.smoothness,
            lipschitz=self.lipschitz,
            privacy=self.privacy_calibration,
        )
        return private_vertex(self.rng, direction, self.radius, scale, self.privacy_calibration.selection,
                              self.sampler)


def private_vertex(
    rng: np.random.Generator,
    direction: np.ndarray,
    radius: float,
    scale: np.ndarray,
    selection: str,
    sampler: VertexSampler = "per-vertex",
) -> np.ndarray:
    """Private LMO over the l1 ball: one vertex per row of ``direction`` (shape ``(k, d)``).

    The candidates are the 2d vertices ``+r e_j`` (index j) and ``-r e_j`` (index d + j) with scores
    ``s_v = <direction, v>``; row i uses the noise scale ``scale[i]``: report-noisy-min with
    ``Lap(scale)`` (``selection="laplace"``, Algorithm 2 line 9) or the exponential mechanism
    ``P(v) ~ exp(-s_v / scale)`` sampled by Gumbel-max (``"exponential"``). Either is
    ``2 Delta / scale``-DP for scores of sensitivity ``Delta`` (module docstring). ``sampler="topdown"``
    draws the Laplace selection's noise top down (the same law; module docstring).
    """
    selection = _validate.one_of(SELECTIONS, selection=selection)
    sampler = _validate.one_of(VERTEX_SAMPLERS, sampler=sampler)
    if sampler == "topdown" and selection != "laplace":
        raise ValueError(f"sampler='topdown' draws Laplace noise; selection={selection!r} needs sampler='per-vertex'.")
    if sampler == "topdown":  # the scores r d_j of +r e_j, mirrored for -r e_j (selection is Laplace, checked)
        index = report_noisy_min_topdown(rng, radius * direction, scale, mirrored=True)
    else:
        scores = radius * np.concatenate([direction, -direction], axis=1)
        if selection == "laplace":
            # argmin(s + Lap(b)) = argmin(s / b + Lap(1)): one call with per-row scales b_t
            index = report_noisy_min(rng, scores / scale[:, None], 1.0)
        else:
            # P(v) ~ exp(-s_v / b_t) is the mechanism exp(epsilon u / (2 Delta)) on u = -s / b_t at
            # epsilon = 2, Delta = 1: one Gumbel-max call with per-row temperatures b_t
            index = exponential_mechanism(rng, -scores / scale[:, None], 2.0, 1.0)
    dim = direction.shape[1]
    vertex = np.zeros_like(direction)
    sign = np.where(index < dim, radius, -radius)
    vertex[np.arange(direction.shape[0]), index % dim] = sign
    return vertex


class DPPOFW(StreamingOptimizer):
    """Algorithm 2 (DP-POFW) as a single-instance streaming optimiser over the l1 ball.

    Args:
        dim: parameter dimension d.
        horizon: number of samples n (line 8 uses ``log n``).
        rng: generator of the selection noise.
        epsilon, delta: requested guarantee of the released sequence.
        radius: l1-ball radius r, D = 2r (004 Section 5 uses radius 2 for its SCO runs).
        loss: per-example loss for :meth:`step` (e.g. ``ClippedLoss(SquaredLoss(), clip_norm=1, p=1)``).
        smoothness: beta in (l1, l_inf); default ``loss.smoothness(feature_bound)``.
        lipschitz: L = sup ||grad||_inf; default ``loss.lipschitz`` (a ClippedLoss provides it).
        feature_bound: sup ||x||_inf used for the default smoothness; :meth:`step` rejects larger x.
        calibration: ``"accountant"`` (default) or ``"paper"`` (module docstring).
        selection: ``"laplace"`` (default, line 9) or ``"exponential"`` (module docstring).
        noise: ``False`` = debugging switch (exact LMO, ``privacy`` is ``None``).

    Example:
        >>> import numpy as np
        >>> from dpbandit.optim.losses import ClippedLoss, SquaredLoss
        >>> opt = DPPOFW(3, horizon=10, rng=np.random.default_rng(0), epsilon=1.0, delta=0.1,
        ...              loss=ClippedLoss(SquaredLoss(), clip_norm=1.0, p=1))
        >>> float(np.abs(opt.step(np.array([1.0, 0.0, 0.0]), 0.5)).sum()) <= 2.0
        True
    """

    def __init__(
        self,
        dim: int,
        *,
        horizon: int,
        rng: np.random.Generator,
        epsilon: float = 1.0,
        delta: float | None = None,
        radius: float = 2.0,
        loss: Loss | None = None,
        smoothness: float | None = None,
        lipschitz: float | None = None,
        feature_bound: float = 1.0,
        calibration: Calibration = "accountant",
        selection: Selection = "laplace",
        noise: bool = True,
    ) -> None:
        super().__init__(dim, horizon=horizon, rng=rng, loss=loss, noise=noise)
        self.feature_bound = _validate.positive(feature_bound=feature_bound)
        if smoothness is None:
            if not hasattr(self.loss, "smoothness"):
                raise ValueError("Pass smoothness=... (the loss does not provide smoothness()).")
            smoothness = self.loss.smoothness(self.feature_bound)
        if lipschitz is None:
            if not hasattr(self.loss, "lipschitz"):
                raise ValueError("Pass lipschitz=... or a ClippedLoss (its clip_norm is L).")
            lipschitz = self.loss.lipschitz
        delta = 1.0 / self.horizon if delta is None else delta
        cal = (
            POFWPrivacy(epsilon=epsilon, delta=delta, horizon=horizon, calibration=calibration,
                        selection=selection)
            if self.noise
            else None
        )
        self._bank = POFWBank(
            1,
            self.dim,
            radius=radius,
            smoothness=smoothness,
            lipschitz=lipschitz,
            rng=self.rng,
            privacy=cal,
            noise=self.noise,
        )

    def step(self, x: np.ndarray, y: float) -> np.ndarray:
        """Consume (x_t, y_t); rejects ``||x||_inf > feature_bound`` (the calibration assumes it)."""
        x = np.asarray(x, dtype=float)
        if np.max(np.abs(x)) > self.feature_bound * (1.0 + 1e-12):
            raise ValueError(f"Expected ||x||_inf <= feature_bound={self.feature_bound}.")
        return super().step(x, y)

    def _update(self, grad_now: np.ndarray, grad_prev: np.ndarray) -> np.ndarray:
        self._bank.step(grad_now[None, :], grad_prev[None, :])
        return self._bank.theta[0].copy()

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """Guarantee of the released sequence (``None`` with ``noise=False``)."""
        cal = self._bank.privacy_calibration
        return None if cal is None else cal.guarantee("DP-POFW (Alg 2 of 004)")
