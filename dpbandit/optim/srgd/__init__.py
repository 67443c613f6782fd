"""Single-epoch private optimization with correlated noise.

Papers: 000_e95584ca0dc4dbfd.txt and 001_d660558f34d2da38.txt (two versions of one paper).

* :class:`AcceleratedDPSRGD` (Algorithm 1): one pass, SRG differences, binary-tree noise, Nesterov coupling.
* :class:`DPMEMF`, :class:`DPSRGMEMF` (Algorithms 2 and 3 of 000): multi-epoch matrix-factorisation noise;
  DP-SGD with independent noise is ``DPMEMF(workload="identity")``.
* :class:`SoftmaxRegression`: multi-class logistic loss with vectorised per-example gradients.
* :mod:`.factorization` (MF strategy matrices), :mod:`.presets` (the papers' parameter settings).
See docs/srgd.md.
"""

from __future__ import annotations

from dpbandit.optim.srgd.factorization import Factorization, factorize, identity_factorization
from dpbandit.optim.srgd.logreg import SoftmaxRegression
from dpbandit.optim.srgd.memf import DPMEMF, DPSRGMEMF, PAPER_DECAY
from dpbandit.optim.srgd.presets import PAPER_EXPERIMENTS, v000_theorem_4_10, v001_regime_a, v001_regime_b
from dpbandit.optim.srgd.srgd import AcceleratedDPSRGD

__all__ = [
    "DPMEMF",
    "DPSRGMEMF",
    "PAPER_DECAY",
    "PAPER_EXPERIMENTS",
    "AcceleratedDPSRGD",
    "Factorization",
    "SoftmaxRegression",
    "factorize",
    "identity_factorization",
    "v000_theorem_4_10",
    "v001_regime_a",
    "v001_regime_b",
]
