"""dpbandit: differentially private contextual bandits and private online/stochastic optimization.

Importing the package registers its Gymnasium ids (``gymnasium.make("dpbandit/Digits-v0")`` works after
``import dpbandit``); the environment classes themselves load on first use (:mod:`dpbandit.envs`).
"""

from __future__ import annotations

__version__ = "0.1.0"


from dpbandit import envs  # noqa: E402, F401  (registers the dpbandit/ ids: the one import the package root makes)
