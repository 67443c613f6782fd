"""Replica of the authors' DP-TOFW code (``OFW_ple2`` / ``OFW_pge2``), a NON-PRIVATE reference variant.

It reproduces the noise calibration and sampler of liangzp/DP-Streaming-SCO (``algo.py``,
``utils.py``) inside dpbandit's :class:`~dpbandit.optim.tofw.DPTOFW` (same recursion Eq 3.1, same
binary tree with one draw per node, same LMO and step ``c/(t+1)``: those parts of the authors' code
agree with Algorithm 1), so that Table 5.1 can be run on the same data next to the faithful
optimiser. Its :attr:`privacy` certifies nothing (``epsilon = inf``); every table must label it
"replica of the authors' code — not private".

Two versions of the authors' code (``code_version``): ``"615a971"`` (HEAD, 2023-02-26) and
``"302d221"`` (2022-07-12). Their calibration choices, file:line at that commit:

* smoothness beta in sigma_+: ``L1 = 1`` in both (utils.py:35 / :34), although the loss
  ``(y - x^T theta)^2`` with ``||x||_q = 1`` has beta = 2.
* Lipschitz L and clipping: 615a971 ``L0 = lip = 1`` (main.py:28, 89) with the gradients projected
  onto the l_q ball (utils.py:43-56; algo.py:250-251, 529-530); 302d221 ``L0 = 4`` (utils.py:33)
  and no clipping (added in 11e8567).
* sensitivity term of sigma_+: 615a971 ``L1 2r (t+1) eta_t + L0 = c beta D + L`` (algo.py:182-183,
  458-459); 302d221 ``L1 2r + L0`` (algo.py:172, 446), without the learning-rate scale c.
* kappa_q for 1 < p <= 2: ``min(q-1, e^2 (ln d - 1))`` in both (algo.py:168).
* p > 2: 615a971 ``kappa_q = d^(1-2/p)`` (algo.py:444) and node sigma ``sigma_+ / d^(1/2-1/p)``
  (algo.py:461-462); 302d221 neither (algo.py:445-447).
* sampler norm index: ``min(q-1, ln d - 1)`` for p <= 2 in both (algo.py:169, 191; 0.61 at d = 5,
  not a norm; Algorithm 4 / Section 5.1 as printed), 2 for p > 2 (algo.py:470).
* direction coordinates: ``gennorm(index) + 1/index`` times a random sign in both (utils.py:15-17),
  not the cone measure of Lemma 5.1.
* Gamma scale of ``||Z||^2``: 615a971 ``2 sigma^2`` (utils.py:13); 302d221 ``2 sigma`` (utils.py:13
  at 302d221, the typo of Lemma 3.1 / Algorithm 4), fixed in 4cc3ffd.

Both use ``m = ceil(log2 T) + 1`` and ``log(m / delta)`` as Eq 3.2, radius 2 (algo.py:164, 438),
rho_t = 1/(t+1) in the recursion (the code's ``rhot`` scaled by c is never used) and the data of
dpbandit's sims (the authors' ``env.py`` sets theta = first five coordinates, see
notes/ofw_hdb.md Section 4.1). Why ``302d221``: the authors' ``summarize_table.ipynb`` (last changed
in 302d221, 2022-07-12) stores OFW numbers close to Table 5.1, produced before the fixes 4cc3ffd
(Gamma scale), a85eeb6 (kappa_q) and 11e8567 (clipping); run unchanged at HEAD, the same code
gives SubOpt ~1 (results/table5_1.md, "Replica" section).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpbandit import _validate
from dpbandit.optim.losses import ClippedLoss, Loss, SquaredLoss
from dpbandit.optim.tofw import DPTOFW, tofw_sigma
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import _unit_gennorm

__all__ = ["AUTHORS_SMOOTHNESS", "CODE_VERSIONS", "AuthorsCodeTOFW", "AuthorsVersion", "authors_ggplus"]

CodeVersion = Literal["615a971", "302d221"]

#: Node noises drawn per call of the sampler (the tree uses one per step; speed only, same law).
_NODE_CHUNK = 1024

#: beta the authors' code uses for every loss (``self.L1 = 1``, utils.py:35).
AUTHORS_SMOOTHNESS = 1.0


@dataclass(frozen=True)
class AuthorsVersion:
    """The calibration choices of one commit of the authors' code (module docstring table)."""

    commit: str
    lipschitz: float  # L0
    clip: bool  # gradients projected onto the l_q ball of radius L0
    lr_in_sensitivity: bool  # sigma_+ uses c beta D + L (else beta D + L)
    kappa_above_2: bool  # p > 2: kappa_q = d^(1-2/p) and sigma_+ / d^(1/2-1/p) (else neither)
    gamma_scale_squared: bool  # r^2 ~ Gamma(d/2, 2 sigma^2) (else 2 sigma)


CODE_VERSIONS: dict[str, AuthorsVersion] = {
    "615a971": AuthorsVersion("615a971", 1.0, True, True, True, True),
    "302d221": AuthorsVersion("302d221", 4.0, False, False, False, False),
}


def authors_ggplus(
    rng: np.random.Generator,
    sigma: float,
    dim: int,
    index: float,
    size: int,
    *,
    gamma_scale_squared: bool = True,
) -> np.ndarray:
    """``GGPlus`` of the authors' utils.py (lines 8-19), ``size`` draws of shape ``(size, dim)``.

    ``r = sqrt(Gamma(d/2, scale))`` with scale ``2 sigma^2`` (or ``2 sigma`` at 302d221),
    ``x_i = s_i (g_i + 1/index)`` with ``g_i`` generalized normal of shape ``index`` and ``s_i`` a
    random sign, output ``r x / (sum_i |x_i|^index)^(1/index)``. ``index`` may be below 1 (then the
    last step divides by a quasi-norm), as in the authors' calls.
    """
    sigma = _validate.positive(sigma=sigma)
    index = _validate.positive(index=index)
    scale = 2.0 * sigma**2 if gamma_scale_squared else 2.0 * sigma
    radius = np.sqrt(rng.gamma(dim / 2.0, scale, size))
    shifted = _unit_gennorm(rng, index, (size, dim)) + 1.0 / index
    x = np.where(rng.random((size, dim)) < 0.5, -shifted, shifted)
    norm = np.sum(np.abs(x) ** index, axis=-1, keepdims=True) ** (1.0 / index)
    return radius[:, None] * x / norm


class AuthorsCodeTOFW(DPTOFW):
    """DP-TOFW with the authors' calibration and sampler (``OFW_ple2`` / ``OFW_pge2``); NOT private.

    Args:
        dim: dimension d (> e for 1 < p <= 2: the sampler index ``ln d - 1`` must be positive).
        p: geometry, 1 < p <= inf.
        horizon: n.
        epsilon, delta: the nominal budget the code is run with (not a guarantee, see :attr:`privacy`).
        rng: generator of the tree noise.
        lr_scale: c in eta_t = c/(t+1) (the authors' grid scales it), 0 < c <= 2.
        radius: l_p-ball radius (``self.r = 2`` in algo.py).
        code_version: ``"615a971"`` (HEAD) or ``"302d221"`` (the code behind the stored table).
    """

    def __init__(
        self,
        dim: int,
        *,
        p: float,
        horizon: int,
        epsilon: float,
        delta: float,
        rng: np.random.Generator,
        lr_scale: float = 1.0,
        radius: float = 2.0,
        code_version: CodeVersion = "615a971",
    ) -> None:
        self.version = CODE_VERSIONS[_validate.one_of(CODE_VERSIONS, code_version=code_version)]
        p = _validate.norm_index(p=p)
        lipschitz = self.version.lipschitz
        loss: Loss = SquaredLoss()
        if self.version.clip:
            loss = ClippedLoss(loss, clip_norm=lipschitz, p=p)
        super().__init__(
            dim, p=p, radius=radius, horizon=horizon, epsilon=epsilon, delta=delta,
            smoothness=AUTHORS_SMOOTHNESS, lipschitz=lipschitz, rng=rng, loss=loss, lr_scale=lr_scale,
        )
        self.noise_index, kappa, divisor = self._geometry()
        self.sigma_plus = tofw_sigma(
            horizon=self.horizon, epsilon=self.epsilon, delta=self.delta, kappa=kappa,
            smoothness=self.smoothness, lipschitz=self.lipschitz, diameter=self.diameter,
            lr_scale=self.lr_scale if self.version.lr_in_sensitivity else 1.0,
        ) / divisor
        self._pending = np.empty((0, self.dim))

    def _geometry(self) -> tuple[float, float, float]:
        """(sampler index, kappa_q, divisor of sigma_+) of the authors' code for this p and d."""
        if self.p <= 2.0:  # OFW_ple2, algo.py:168-169
            index = min(self.q - 1.0, math.log(self.dim) - 1.0)
            if index <= 0:
                raise ValueError(f"Expected dim >= 3 for p <= 2 (index ln d - 1 > 0), got dim={self.dim}.")
            return index, min(self.q - 1.0, math.e**2 * (math.log(self.dim) - 1.0)), 1.0
        if not self.version.kappa_above_2:  # 302d221 OFW_pge2
            return 2.0, 1.0, 1.0
        exponent = 1.0 - 2.0 / self.p  # OFW_pge2 at HEAD, algo.py:444, 461-462
        return 2.0, self.dim**exponent, self.dim ** (exponent / 2.0)

    def node_noise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` node draws, served from draws of ``_NODE_CHUNK`` nodes at a time (one per step in total)."""
        if self._pending.shape[0] < n:
            fresh = authors_ggplus(
                rng, self.sigma_plus, self.dim, self.noise_index, max(n, _NODE_CHUNK),
                gamma_scale_squared=self.version.gamma_scale_squared,
            )
            self._pending = np.concatenate([self._pending, fresh])
        out, self._pending = self._pending[:n], self._pending[n:]
        return out

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """``epsilon = inf`` next to the nominal epsilon: no guarantee is certified."""
        if not self.noise:
            return None
        reasons = [
            "beta = 1 for the squared loss, whose beta is 2 ||x||_q^2 = 2 (utils.py L1 = 1)",
            f"the node noise is not G_+ of Lemma 2.1 (norm index {self.noise_index:.3g}, "
            "+1/index shift, utils.py:15)",
        ]
        if not self.version.gamma_scale_squared:
            reasons.append("||Z||^2 ~ Gamma(d/2, 2 sigma) instead of 2 sigma^2 (Lemma 3.1's typo)")
        if not self.version.clip:
            reasons.append("the gradients are not clipped, so no Lipschitz bound holds")
        return PrivacyGuarantee.not_private(
            f"DP-TOFW as in the authors' code (liangzp/DP-Streaming-SCO@{self.version.commit} algo.py)",
            self.epsilon,
            self.delta,
            calibration=f"sigma_+={self.sigma_plus:.4g} (Eq 3.2, the code's constants), c={self.lr_scale:g}",
            reason="Theorem 3.1's calibration does not hold: " + "; ".join(reasons) + ".",
        )
