"""Private non-convex optimisation under the (gamma, kappa)-KL condition (paper 003, Menart et al.).

- :class:`KLSpider` (Algorithm 1, kappa in [1, 2]), :class:`KLProximalPoint` (Algorithm 2 + Algorithm 4,
  kappa >= 2), :class:`AdaptiveNoisyGD` (Algorithm 3, no gamma / kappa / F0; ``select=True`` for Theorem 5);
- :func:`kl_instance`: synthetic (gamma, kappa)-KL losses with exactly known minimum;
- objectives (:class:`EmpiricalRisk` wraps a ``dpbandit.optim.losses`` loss) and the public schedules.

Every algorithm's guarantee is the requested rho-zCDP (corrected accounting; see each module and docs/kl.md).
"""

from __future__ import annotations

from dpbandit.optim.kl.adaptive import AdaptiveNoisyGD
from dpbandit.optim.kl.losses import KLInstance, kl_instance
from dpbandit.optim.kl.objective import EmpiricalRisk, Objective
from dpbandit.optim.kl.proximal import KLProximalPoint
from dpbandit.optim.kl.spider import KLSpider

__all__ = [
    "AdaptiveNoisyGD",
    "EmpiricalRisk",
    "KLInstance",
    "KLProximalPoint",
    "KLSpider",
    "Objective",
    "kl_instance",
]
