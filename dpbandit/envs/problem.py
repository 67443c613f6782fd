"""The GLM contextual-bandit problem: validated configuration plus the vectorised round maths.

Model (004_290fd04a1e656565.txt Section 4.1): at round t a context is drawn, arm ``a`` has
expected reward ``mu_{t,a} = zeta(<x_{t,a}, theta_a>)`` and realised reward
``r_{t,a} = mu_{t,a} + std * z_{t,a}`` (Gaussian noise) or ``r_{t,a} ~ law(mu_{t,a})`` (the link's
own law, by inversion of a uniform). Two context models:

* ``"shared"`` (the disjoint model of DP-HDB, 004 Section 4): one context ``x_t in R^d``,
  one parameter per arm, ``theta`` of shape ``(K, d)``; ``mu_{t,a} = zeta(<x_t, theta_a>)``.
* ``"per_arm"`` (Shariff and Sheffet 2018): a feature matrix ``X_t in R^{K x d}`` and one
  parameter ``theta in R^d``; ``mu_{t,a} = zeta(<X_t[a], theta>)``.

All maths here is batched over leading axes ``(N replicates, m rounds)`` and computes each
round's numbers from that round's draws only (elementwise products and a reduction over the
contiguous last axis, no BLAS), so results do not depend on how rounds are batched.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from dpbandit import _validate
from dpbandit.envs import params
from dpbandit.envs.links import DISTRIBUTION_RANGES, Link, get_link, native_rewards

__all__ = ["CONTEXT_MODELS", "NOISE_MODELS", "GLMProblem"]

CONTEXT_MODELS = ("shared", "per_arm")
NOISE_MODELS = ("gaussian", "native")
#: Standard deviation of the Gaussian reward noise when none is given [Fill].
DEFAULT_NOISE_STD = 0.1
#: Problems whose :attr:`GLMProblem.round_bytes` exceed this are checked against the free memory.
MEMORY_CHECK_BYTES = 2**28


@dataclass(frozen=True, eq=False)
class GLMProblem:
    """Configuration of a GLM bandit, shared by :class:`GLMBanditEnv` and :class:`GLMBanditVectorEnv`.

    Args:
        n_arms: K >= 2.
        dim: d >= 1 (tested from 2 to 10,000).
        horizon: T >= 1 rounds per episode.
        link: ``"identity"``, ``"logistic"``, ``"exponential"`` or a custom :class:`dpbandit.envs.links.Link`.
        context_model: ``"shared"`` (x_t in R^d, theta (K, d)) or ``"per_arm"`` (X_t in R^{K x d},
            theta (d,)).
        noise: ``"gaussian"`` (``mu + noise_std * N(0, 1)``) or ``"native"`` (the link's own law:
            Bernoulli for logistic, Poisson for exponential). ``None`` [Fill]: native when the
            link has a law, else Gaussian.
        noise_std: standard deviation of the Gaussian reward noise (finite, >= 0; ``None``: 0.1
            [Fill]). Native rewards have no such parameter: giving it with ``noise="native"`` warns.
        contexts: ``"gaussian"`` (N(0, context_std^2 Sigma) rows, Sigma below) or ``"uniform"``
            (i.i.d. U[-context_bound, context_bound]).
        context_std: Gaussian context standard deviation (> 0).
        context_correlation: rho in (-1, 1): Gaussian contexts have the AR(1) covariance
            ``Sigma_ij = rho^|i-j|`` (0 = i.i.d. coordinates; FLIPHAT's simulations use 0.1 [C]),
            applied before any ``context_norm`` scaling; each arm's row is drawn independently in
            the per-arm model. Only for ``contexts="gaussian"``.
        context_bound: half-width of the uniform context cube (> 0).
        context_norm: l_p index p; each context row is scaled to unit l_p norm. ``None`` keeps
            raw draws (then observation bounds are infinite for Gaussian contexts).
        sparsity: s non-zero coordinates per parameter vector (1 <= s <= d); ``None`` = dense.
        theta_values: ``"gaussian"``, ``"ones"`` or ``"uniform-signs"`` (values of the non-zeros
            before normalisation; :func:`dpbandit.envs.params.sample_parameters`).
        theta_support: ``"random"`` (uniform support) or ``"first"`` (the first s coordinates).
        theta_norm: l_p index used to normalise each parameter vector; ``None`` keeps the drawn
            values (``theta_radius`` unused).
        theta_radius: l_p norm of each parameter vector (> 0).
        theta_seed: an integer >= 0: draw the parameter from ``numpy.random.default_rng(theta_seed)``
            instead of the replicate's parameter stream, so every replicate (seed) shares one
            parameter, as FLIPHAT's simulations fix beta* with one key [C]. ``None``: one draw per
            replicate.
        theta: a fixed parameter (shape ``(K, d)`` shared / ``(d,)`` per-arm) used instead of the
            generator, as given (no normalisation).
    """

    n_arms: int
    dim: int
    horizon: int
    link: Link | str = "identity"
    context_model: str = "shared"
    noise: str | None = None
    noise_std: float | None = None
    contexts: str = "gaussian"
    context_std: float = 1.0
    context_bound: float = 1.0
    context_norm: float | str | None = 2.0
    context_correlation: float = 0.0
    sparsity: int | None = None
    theta_values: str = "gaussian"
    theta_support: str = "random"
    theta_norm: float | str | None = 2.0
    theta_radius: float = 1.0
    theta_seed: int | None = None
    theta: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "n_arms", _validate.integer(n_arms=self.n_arms, minimum=2))
        set_(self, "dim", _validate.integer(dim=self.dim, minimum=1))
        set_(self, "horizon", _validate.integer(horizon=self.horizon, minimum=1))
        link = get_link(self.link)
        set_(self, "link", link)
        _validate.one_of(CONTEXT_MODELS, context_model=self.context_model)
        noise = self.noise
        if noise is None:
            noise = "gaussian" if link.distribution is None else "native"
        _validate.one_of(NOISE_MODELS, noise=noise)
        if noise == "native" and link.distribution is None:
            raise ValueError(f"noise='native' needs a link with a reward law; link={link.name!r} has none.")
        set_(self, "noise", noise)
        if self.noise_std is None:
            set_(self, "noise_std", DEFAULT_NOISE_STD)
        else:
            set_(self, "noise_std", _validate.nonnegative(noise_std=self.noise_std))
            if noise == "native":
                warnings.warn(
                    f"noise_std={self.noise_std} is ignored: rewards are drawn from the {link.name} link's "
                    "own law (noise='native': Bernoulli for logistic, Poisson for exponential); pass "
                    "noise='gaussian' to use it.",
                    UserWarning,
                    stacklevel=3,
                )
        _validate.one_of(params.CONTEXT_DISTRIBUTIONS, contexts=self.contexts)
        set_(self, "context_std", _validate.positive(context_std=self.context_std))
        set_(self, "context_bound", _validate.positive(context_bound=self.context_bound))
        if self.context_norm is not None:
            set_(self, "context_norm", _validate.norm_index(context_norm=self.context_norm))
        rho = _validate.finite(context_correlation=self.context_correlation)
        if not -1.0 < rho < 1.0:
            raise ValueError(f"Expected context_correlation in (-1, 1), got context_correlation={rho}.")
        if rho != 0.0 and self.contexts != "gaussian":
            raise ValueError(
                f"context_correlation={rho} needs contexts='gaussian' (got contexts={self.contexts!r})."
            )
        set_(self, "context_correlation", rho)
        if self.sparsity is not None:
            _validate.integer(sparsity=self.sparsity, minimum=1, maximum=self.dim)
        _validate.one_of(params.THETA_VALUES, theta_values=self.theta_values)
        _validate.one_of(params.THETA_SUPPORTS, theta_support=self.theta_support)
        if self.theta_norm is not None:
            set_(self, "theta_norm", _validate.norm_index(theta_norm=self.theta_norm))
        set_(self, "theta_radius", _validate.positive(theta_radius=self.theta_radius))
        if self.theta_seed is not None:
            _validate.integer(theta_seed=self.theta_seed, minimum=0)
        if self.theta is not None:
            set_(self, "theta", self._check_theta(self.theta))
        if self.round_bytes > MEMORY_CHECK_BYTES:
            _validate.fits_in_memory(self.round_bytes, because=f"dim={self.dim} x n_arms={self.n_arms}")

    def _check_theta(self, theta: Any) -> np.ndarray:
        theta = np.array(theta, dtype=np.float64)
        if theta.shape != self.theta_shape:
            raise ValueError(
                f"Expected theta of shape {self.theta_shape} for context_model={self.context_model!r}, "
                f"got shape {theta.shape}."
            )
        if not np.all(np.isfinite(theta)):
            raise ValueError("Expected theta to be finite.")
        theta.setflags(write=False)
        return theta

    @property
    def params(self) -> dict[str, Any]:
        """The configuration as a flat dict of plain values (for result columns and logs)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["link"] = self.link.name  # type: ignore[union-attr]
        values["theta"] = None if self.theta is None else "fixed"
        return values

    # ------------------------------------------------------------------ shapes and bounds
    @property
    def round_bytes(self) -> int:
        """Approximate float64 bytes of one replicate's parameter plus one round's arrays [Fill].

        The parameter, the observation with the temporaries of its draw (about 3x), the
        ``K x d`` products of :meth:`expected_rewards` and the ``K``-vectors of means, noise, rewards.
        """
        observation, theta = math.prod(self.observation_shape), math.prod(self.theta_shape)
        return 8 * (theta + 3 * observation + self.n_arms * self.dim + 3 * self.n_arms)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(d,)`` for the shared model, ``(K, d)`` for the per-arm model."""
        return (self.dim,) if self.context_model == "shared" else (self.n_arms, self.dim)

    @property
    def theta_shape(self) -> tuple[int, ...]:
        """``(K, d)`` for the shared model, ``(d,)`` for the per-arm model."""
        return (self.n_arms, self.dim) if self.context_model == "shared" else (self.dim,)

    @property
    def reward_range(self) -> tuple[float, float] | None:
        """``(low, high)``: closed bounds of every realised reward (contract C1), ``None`` if unknown.

        * ``noise="native"``: the law's values (:data:`dpbandit.envs.links.DISTRIBUTION_RANGES`): logistic /
          Bernoulli ``(0.0, 1.0)``, exponential / Poisson ``(0.0, inf)``.
        * ``noise="gaussian"`` with ``noise_std > 0`` (any link): ``(-inf, inf)``.
        * ``noise="gaussian"`` with ``noise_std = 0``: the rewards are the means, so the link's
          ``mean_range``: identity ``(-inf, inf)``, logistic ``(0.0, 1.0)``, exponential ``(0.0, inf)``;
          ``None`` for a custom link without one.

        Bounds of the law, not of one instance: a bounded context and parameter give tighter means,
        which this does not claim [Fill].
        """
        if self.noise == "native":
            return DISTRIBUTION_RANGES[self.link.distribution]  # type: ignore[union-attr, index]
        if self.noise_std > 0:  # type: ignore[operator]
            return (-math.inf, math.inf)
        return self.link.mean_range  # type: ignore[union-attr]

    @property
    def observation_bound(self) -> float:
        """A bound on every context coordinate (``inf`` for raw Gaussian contexts).

        A unit l_p-normalised row has ``|x_i| <= ||x||_p = 1``; a relative slack of 1e-12 covers
        the rounding of the division.
        """
        if self.context_norm is not None:
            return 1.0 + 1e-12
        return self.context_bound if self.contexts == "uniform" else math.inf

    # ------------------------------------------------------------------ draws and maths
    def sample_theta(self, rng: np.random.Generator) -> np.ndarray:
        """One replicate's parameter (fixed ``theta`` if given, else the configured generator).

        With ``theta_seed`` the generator draws from ``default_rng(theta_seed)``, not from ``rng``.
        """
        if self.theta is not None:
            return self.theta.copy()
        if self.theta_seed is not None:
            rng = np.random.default_rng(self.theta_seed)
        count = self.n_arms if self.context_model == "shared" else 1
        theta = params.sample_parameters(
            rng,
            count,
            self.dim,
            sparsity=self.sparsity,
            values=self.theta_values,
            support=self.theta_support,
            norm=self.theta_norm,
            radius=self.theta_radius,
        )
        return theta.reshape(self.theta_shape)

    def sample_contexts(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """The observations of ``m`` consecutive rounds, shape ``(m, *observation_shape)``."""
        return params.sample_contexts(
            rng,
            (m, *self.observation_shape),
            distribution=self.contexts,
            std=self.context_std,
            bound=self.context_bound,
            norm=self.context_norm,
            correlation=self.context_correlation,
        )

    def expected_rewards(self, observations: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``zeta(<x, theta_a>)`` for all arms: observations ``(N, m, *obs)``, theta ``(N, *theta_shape)``.

        Returns shape ``(N, m, K)``.
        """
        if self.context_model == "shared":
            products = observations[:, :, None, :] * theta[:, None, :, :]
        else:
            products = observations * theta[:, None, None, :]
        return self.link.mean(products.sum(axis=-1))

    def realise(self, means: np.ndarray, rngs: Sequence[np.random.Generator]) -> np.ndarray:
        """Realised rewards of every arm, ``(N, m, K)``, from each replicate's noise stream.

        Each round consumes exactly K draws per replicate (standard normals or uniforms),
        whatever arm is played: common random numbers.
        """
        shape = means.shape[1:]
        if self.noise == "gaussian":
            z = np.stack([rng.standard_normal(shape) for rng in rngs])
            return means + self.noise_std * z
        u = np.stack([rng.random(shape) for rng in rngs])
        return native_rewards(self.link, u, means)
