"""Private nonsmooth nonconvex optimisation to Goldstein-stationary points (paper 002, Kornowski, Liu, Talwar).

Modules: ``o2nc`` (Algorithm 2 and the ``PrivateO2NC`` optimizer), ``oracles`` (Algorithms 3/4/5),
``estimators`` (two-point and first-order estimators of the smoothed loss), ``calibration`` (sensitivities and
noise), ``presets`` (theory and practical parameters), ``stationarity`` (Goldstein-stationarity upper bound),
``losses`` / ``phase_retrieval`` (per-sample losses), ``baselines`` (DP-SGD). See docs/nonsmooth.md.
"""

from dpbandit.optim.nonsmooth.baselines import DPSGD
from dpbandit.optim.nonsmooth.losses import SampleLoss, ShellLoss
from dpbandit.optim.nonsmooth.o2nc import PrivateO2NC, o2nc
from dpbandit.optim.nonsmooth.oracles import MultiPassOracle, OracleParams, SinglePassOracle
from dpbandit.optim.nonsmooth.phase_retrieval import RobustPhaseRetrieval, make_phase_retrieval
from dpbandit.optim.nonsmooth.presets import Preset, practical_preset, theory_preset
from dpbandit.optim.nonsmooth.stationarity import goldstein_estimate, min_norm_point

__all__ = [
    "DPSGD",
    "MultiPassOracle",
    "OracleParams",
    "Preset",
    "PrivateO2NC",
    "RobustPhaseRetrieval",
    "SampleLoss",
    "ShellLoss",
    "SinglePassOracle",
    "goldstein_estimate",
    "make_phase_retrieval",
    "min_norm_point",
    "o2nc",
    "practical_preset",
    "theory_preset",
]
