"""The batched-agent skeleton: a geometric batch schedule, greedy play within a batch, one fit per batch.

Subclasses provide two hooks and keep ``theta`` (the greedy policy's coefficients) up to date:

* ``_observe(rows, models, rewards)``: accumulate the played rounds of the current batch (vectorised);
  ``rows`` are the played feature rows (the shared context, or the chosen arm's feature row), ``models`` the
  index of the regression model each row belongs to (the arm in the disjoint model, 0 with one shared
  parameter);
* ``_end_batch()``: release the batch's statistics privately and update ``theta``.

Privacy argument shared by every subclass (joint DP, replace-one user record): batch ``l``'s release is a
function of batch ``l``'s users and of the public releases before it; users of other batches enter only through
those releases. So a change of one user's record changes one release, and everything later is post-processing
of it and of independent data: the run is as private as one release (parallel composition). A user's own
action depends on their context and the public releases only, so actions are jointly DP (billboard lemma).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent

__all__ = ["BatchSchedule", "BatchedAgent"]


@dataclass(frozen=True)
class BatchSchedule:
    """Geometric batches: batch ``l`` has ``max(1, floor(first * ratio**l))`` rounds [Fill: doubling as FLIPHAT].

    ``ratio = 1`` gives batches of equal size. The sizes are public (they depend on nothing but the schedule).
    """

    first: int = 32
    ratio: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "first", _validate.integer(first_batch=self.first, minimum=1))
        ratio = _validate.finite(batch_ratio=self.ratio)
        if ratio < 1.0:
            raise ValueError(f"Expected batch_ratio={ratio!r} >= 1.")
        object.__setattr__(self, "ratio", ratio)

    def size(self, batch: int) -> int:
        """Number of rounds of batch ``batch`` (0-based)."""
        return max(1, math.floor(self.first * self.ratio**batch))


class BatchedAgent(Agent):
    """Greedy play on ``theta`` within a batch; ``_end_batch`` refits once per batch (module docstring).

    Args:
        n_arms, dim, rng, horizon: the :class:`~dpbandit.agents.base.Agent` contract.
        first_batch: rounds in the first batch (>= 1, <= ``horizon`` when the horizon is known).
        batch_ratio: growth factor of the batch sizes (>= 1; 2 = doubling).

    ``theta`` has shape ``(n_models, dim)``: one row per arm for ``observation_model = "shared"`` (the
    disjoint model: arm ``k`` scores ``<x_t, theta_k>``), one row for ``"per_arm"`` (arm ``k`` scores
    ``<X_t[k], theta_0>``). The greedy arm maximises the score; exact ties (e.g. before the first fit, when
    ``theta = 0``) are broken uniformly with the agent's tie-breaking stream, identically in ``act`` and
    ``play_block``.
    """

    observation_model: ClassVar[str] = "shared"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        first_batch: int = 32,
        batch_ratio: float = 2.0,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.schedule = BatchSchedule(first_batch, batch_ratio)
        if self.horizon is not None and self.horizon < self.schedule.first:
            raise ValueError(
                f"Expected horizon={self.horizon} >= first_batch={self.schedule.first}: "
                f"{type(self).__name__} learns only from its end-of-batch releases, so a run shorter "
                "than the first batch would never release, learn nothing and play at random; pass "
                f"first_batch <= {self.horizon} or a longer horizon."
            )
        self.n_models = self.n_arms if self.observation_model == "shared" else 1
        self.theta = np.zeros((self.n_models, self.dim))
        self.noise_rng, self._tie_rng = self.rng.spawn(2)
        self.round = 0  #: rounds played
        self.batch = 0  #: index of the current batch
        self.batch_start = 0  #: first round of the current batch
        self._batch_end = self.schedule.size(0)

    # -- hooks -----------------------------------------------------------------------------------
    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        raise NotImplementedError

    def _end_batch(self) -> None:
        raise NotImplementedError

    # -- helpers ---------------------------------------------------------------------------------
    @property
    def batch_size(self) -> int:
        """Rounds of the current batch."""
        return self._batch_end - self.batch_start

    def _observations(self, observations: np.ndarray) -> np.ndarray:
        """Validate a block of observations: ``(m, dim)`` shared or ``(m, n_arms, dim)`` per-arm, finite."""
        X = np.asarray(observations, dtype=float)
        shape = (self.dim,) if self.observation_model == "shared" else (self.n_arms, self.dim)
        if X.shape[1:] != shape:
            raise ValueError(f"Expected observations of shape (m, {', '.join(map(str, shape))}), got {X.shape}.")
        if not np.all(np.isfinite(X)):
            raise ValueError("Expected finite observations.")
        return X

    def scores(self, observations: np.ndarray) -> np.ndarray:
        """Greedy scores of every arm, shape ``(m, n_arms)``, for a validated block of observations."""
        if self.observation_model == "shared":
            return observations @ self.theta.T
        return observations @ self.theta[0]

    def _greedy(self, scores: np.ndarray) -> np.ndarray:
        """Arg-max per row; rows with tied maxima draw uniformly among them (in row order)."""
        actions = scores.argmax(axis=1)
        tied = np.flatnonzero((scores == scores.max(axis=1, keepdims=True)).sum(axis=1) > 1)
        for row in tied:
            best = np.flatnonzero(scores[row] == scores[row].max())
            actions[row] = self._tie_rng.choice(best)
        return actions

    def _played(self, X: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Feature rows the played rounds contribute and their model indices."""
        if self.observation_model == "shared":
            return X, actions
        return X[np.arange(len(actions)), actions], np.zeros(len(actions), dtype=np.int64)

    def _advance(self, X: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> None:
        rows, models = self._played(X, actions)
        self._observe(rows, models, rewards)
        self.round += len(actions)
        if self.round == self._batch_end:
            self._end_batch()
            self.batch += 1
            self.batch_start = self.round
            self._batch_end = self.round + self.schedule.size(self.batch)

    # -- contract --------------------------------------------------------------------------------
    def act(self, observation: np.ndarray) -> int:
        """The greedy arm under the current batch's policy."""
        X = self._observations(np.asarray(observation, dtype=float)[None])
        return int(self._greedy(self.scores(X))[0])

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Record the round; at the end of a batch, release and refit (``_end_batch``)."""
        X = self._observations(np.asarray(observation, dtype=float)[None])
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        self._advance(X, np.array([action]), np.array([reward]))

    def play_block(self, observations: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Play consecutive rounds (every arm's reward ``(m, K)``); identical to ``act`` + ``update``.

        The policy is fixed within a batch, so each batch's rounds are scored at once.
        """
        X = self._observations(observations)
        R = np.asarray(rewards, dtype=float)
        if R.shape != (X.shape[0], self.n_arms):
            raise ValueError(f"Expected rewards of shape ({X.shape[0]}, {self.n_arms}), got {R.shape}.")
        if not np.all(np.isfinite(R)):
            raise ValueError("Expected finite rewards.")
        actions = np.empty(X.shape[0], dtype=np.int64)
        start = 0
        while start < X.shape[0]:
            stop = min(X.shape[0], start + self._batch_end - self.round)
            chosen = self._greedy(self.scores(X[start:stop]))
            actions[start:stop] = chosen
            self._advance(X[start:stop], chosen, R[np.arange(start, stop), chosen])
            start = stop
        return actions

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {**super().params, "first_batch": self.schedule.first, "batch_ratio": self.schedule.ratio}
