"""dpbandit: differentially private contextual bandits and private online/stochastic optimization."""

from __future__ import annotations

__version__ = "0.1.0"
