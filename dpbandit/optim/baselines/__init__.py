"""Baselines of 004 Section 5.3: NoisySFW (p = 1.5), LocalMD (p = 1.5), NoisySGD (p = inf)."""

from __future__ import annotations

from dpbandit.optim.baselines.local_md import LocalMD
from dpbandit.optim.baselines.noisy_sfw import NoisySFW
from dpbandit.optim.baselines.noisy_sgd import NoisySGD

__all__ = ["LocalMD", "NoisySFW", "NoisySGD"]
