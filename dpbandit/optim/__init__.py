"""Private optimisers: l_p geometry, losses, DP-TOFW / DP-POFW and baselines (004), and others.

Layout: ``geometry`` (norms, LMOs, projections), ``losses`` (value / gradients, clipping),
``base`` (streaming and batch interfaces, ``OptimResult``), ``metrics`` (risk, SubOpt),
``tofw`` (DP-TOFW, Algorithm 1 of 004), ``tofw_replica`` (the authors' DP-TOFW calibration, not
private), ``baselines`` (NoisySFW, LocalMD, NoisySGD).
Submodules are imported explicitly (``from dpbandit.optim.tofw import DPTOFW``) so that
importing this package stays light.
"""
