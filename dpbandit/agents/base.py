"""The agent contract shared by built-in and user agents.

An agent is constructed with the number of arms, the feature dimension and a
``numpy.random.Generator`` (plus ``horizon`` when it needs one for calibration), then
alternates ``act`` and ``update``: it acts on the observation, the environment
returns the reward, and the agent learns from ``(observation, action, reward)``.

Observations come in two context models (see ``envs``):

* ``"shared"``: one context ``x_t`` of shape ``(dim,)``; arm ``k`` has its own parameter
  (the disjoint model of DP-HDB, 004_290fd04a1e656565.txt Section 4).
* ``"per_arm"``: a feature matrix ``X_t`` of shape ``(n_arms, dim)`` with one shared
  parameter (the model of Shariff and Sheffet 2018).

An agent states which it consumes in ``observation_model``; the harness converts a
shared context into per-arm block features (``dim * n_arms`` columns) when needed.

Optional keywords the harness hands over, only to an agent that accepts them (a parameter of
that name, or ``**kwargs`` the base ``__init__`` accepts; see docs/architecture.md):

* constructor ``horizon=T``;
* constructor ``reward_range=(low, high)``, when the environment declares both bounds finite
  (e.g. ``(0.0, 1.0)`` for Bernoulli rewards), so an agent that centres or clips rewards gets
  the right numbers;
* ``update(observation, action, reward, user_id=...)`` when the round has ``info["user_id"]``
  (the person the round belongs to), and ``play_block(observations, rewards, user_ids=...)``
  on the harness's block path.

An agent without these keywords behaves as before.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from dpbandit import _validate

if TYPE_CHECKING:  # pragma: no cover
    import gymnasium

    from dpbandit.privacy.guarantee import PrivacyGuarantee

ObservationModel = Literal["shared", "per_arm"]


class Agent(abc.ABC):
    """Base class for bandit agents: ``act(observation) -> action``, then ``update(...)``.

    Args:
        n_arms: number of arms K (>= 2).
        dim: feature dimension of one observation row (>= 1).
        rng: the agent's own generator; all of its randomness comes from here.
        horizon: number of rounds T, if known (private agents need it to calibrate noise).
    """

    #: Which observation the agent consumes: ``"shared"`` (shape ``(dim,)``) or ``"per_arm"``.
    observation_model: ClassVar[ObservationModel] = "shared"
    #: Who is trusted with the raw data when the agent is private: ``"central"``, ``"shuffle"`` or ``"local"``
    #: (:data:`dpbandit.privacy.guarantee.TRUST_MODELS`); ``None`` for an agent that is not private. Read from
    #: the class (``dpbandit list``) and equal to ``privacy.trust_model`` of every instance.
    trust_model: ClassVar[str | None] = None

    def __init__(
        self, n_arms: int, dim: int, *, rng: np.random.Generator, horizon: int | None = None
    ) -> None:
        self.n_arms = _validate.integer(n_arms=n_arms, minimum=2)
        self.dim = _validate.integer(dim=dim, minimum=1)
        self.rng = _validate.rng(rng=rng)
        self.horizon = None if horizon is None else _validate.integer(horizon=horizon, minimum=1)

    @classmethod
    def from_spaces(
        cls,
        observation_space: gymnasium.spaces.Box,
        action_space: gymnasium.spaces.Discrete,
        *,
        rng: np.random.Generator,
        **kwargs: Any,
    ) -> Agent:
        """Build the agent from Gymnasium spaces (``Discrete(K)`` actions, ``Box`` observations)."""
        n_arms = int(action_space.n)
        dim = int(observation_space.shape[-1])
        return cls(n_arms, dim, rng=rng, **kwargs)

    @abc.abstractmethod
    def act(self, observation: np.ndarray) -> int:
        """Return the arm to pull, an ``int`` in ``[0, n_arms)``."""

    @abc.abstractmethod
    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Learn from the round just played."""

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """The agent's privacy guarantee, or ``None`` for a non-private agent."""
        return None

    @property
    def params(self) -> dict[str, Any]:
        """Hyper-parameters that identify this agent in results (becomes result columns)."""
        return {"agent": type(self).__name__, "n_arms": self.n_arms, "dim": self.dim}

    def check_action(self, action: Any) -> int:
        """Validate an action index (used by agents and the harness)."""
        return _validate.integer(action=action, minimum=0, maximum=self.n_arms - 1)
