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

Returning users (issue 24, contract C4). Without user ids every round is a different person, as above. With
``user_ids`` (``update(..., user_id=u)``, ``play_block(..., user_ids=...)``) the agent counts each person's
rounds and, with ``max_rounds_per_user = m``, learns from a person's first ``m`` rounds only: later rounds are
played (greedily, as any round) but enter no statistic. A person then contributes ``k_l`` rounds to release
``l`` with ``sum_l k_l <= m``; each subclass's ``_user_epsilon(m)`` composes its releases over such a person
with dp-accounting (worst case over the ``k_l``). The neighbouring relation at user level: one person's
records replaced in every round that person has; which rounds belong to whom (the id sequence) is the same in
both streams, so the counts, the learned rounds and each batch's number of learned rounds ``batch_learned``
are functions of the id sequence alone and may be used as the batch's size (the fits and clip updates divide
by it). The arrival pattern itself is not protected. The per-person counts are never released. With user ids
and no cap a person's rounds are unbounded and so is the user-level epsilon (reported ``inf``, with a
warning).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.agents import size

if TYPE_CHECKING:  # pragma: no cover
    from dpbandit.privacy.guarantee import PrivacyGuarantee

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

    def released_batches(self, horizon: int | None) -> list[int]:
        """Sizes of the batches that end within ``horizon`` (``[]`` without one): the batches whose fit runs."""
        sizes: list[int] = []
        end = 0
        while horizon is not None and end + self.size(len(sizes)) <= horizon:
            sizes.append(self.size(len(sizes)))
            end += sizes[-1]
        return sizes


class BatchedAgent(Agent):
    """Greedy play on ``theta`` within a batch; ``_end_batch`` refits once per batch (module docstring).

    Args:
        n_arms, dim, rng, horizon: the :class:`~dpbandit.agents.base.Agent` contract.
        first_batch: rounds in the first batch (>= 1, <= ``horizon`` when the horizon is known).
        batch_ratio: growth factor of the batch sizes (>= 1; 2 = doubling).
        max_rounds_per_user: with user ids, learn from at most this many rounds of each person (>= 1); later
            rounds of that person are played but not learned from. ``None``: no cap (module docstring).

    ``theta`` has shape ``(n_models, dim)``: one row per arm for ``observation_model = "shared"`` (the
    disjoint model: arm ``k`` scores ``<x_t, theta_k>``), one row for ``"per_arm"`` (arm ``k`` scores
    ``<X_t[k], theta_0>``). The greedy arm maximises the score; exact ties (e.g. before the first fit, when
    ``theta = 0``) are broken uniformly with the agent's tie-breaking stream, identically in ``act`` and
    ``play_block``.
    """

    observation_model: ClassVar[str] = "shared"
    trust_model: ClassVar[str | None] = "central"
    #: The agents a refused size points to (:mod:`~dpbandit.agents.size`).
    instead: ClassVar[str] = "batched-screening or private"

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        first_batch: int = 32,
        batch_ratio: float = 2.0,
        max_rounds_per_user: int | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.schedule = BatchSchedule(first_batch, batch_ratio)
        self.max_rounds_per_user = (
            None if max_rounds_per_user is None
            else _validate.integer(max_rounds_per_user=max_rounds_per_user, minimum=1)
        )
        if self.horizon is not None and self.horizon < self.schedule.first:
            raise ValueError(
                f"Expected horizon={self.horizon} >= first_batch={self.schedule.first}: "
                f"{type(self).__name__} learns only from its end-of-batch releases, so a run shorter "
                "than the first batch would never release, learn nothing and play at random; pass "
                f"first_batch <= {self.horizon} or a longer horizon."
            )
        self.n_models = self.n_arms if self.observation_model == "shared" else 1
        size.check(type(self).__name__, self.footprint(), n_arms=self.n_arms, dim=self.dim,
                   per_arm=self.observation_model == "per_arm", instead=self.instead)
        self.theta = np.zeros((self.n_models, self.dim))
        self.noise_rng, self._tie_rng = self.rng.spawn(2)
        self.round = 0  #: rounds played
        self.batch = 0  #: index of the current batch
        self.batch_start = 0  #: first round of the current batch
        self._batch_end = self.schedule.size(0)
        self.batch_capped = 0  #: rounds of the current batch past their person's max_rounds_per_user
        self.rounds_capped = 0  #: rounds past their person's cap so far (played, not learned from)
        self._user_rounds: dict[int, int] = {}  # person -> rounds seen (own bookkeeping, never released)
        self._users_seen = False

    # -- size ------------------------------------------------------------------------------------
    @property
    def input_per_round(self) -> int:
        """Floats of one round's observation: ``dim`` (shared context) or ``n_arms * dim`` (per-arm)."""
        return self.dim if self.observation_model == "shared" else self.n_arms * self.dim

    def footprint(self) -> size.Footprint:
        """Size of a run (checked at construction, :mod:`~dpbandit.agents.size`); linear agents:

        state: a few ``(n_models, dim)`` float64 arrays (``theta``, the batch's sums, the running averages),
        ``4 * 8 n_models dim`` bytes; work per round: the scores (``n_arms * dim``) and the played row's
        clipping and sums (``4 dim``). Subclasses with larger state or per-batch fits override it, reading
        only the constructor's arguments and the schedule (called before anything is allocated).
        """
        work = self.n_arms * self.dim + 4 * self.dim
        return size.Footprint(4 * size.FLOAT * self.n_models * self.dim, work, self.input_per_round)

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

    @property
    def batch_learned(self) -> int:
        """Rounds of the current (finished) batch learned from: its size less the rounds past their cap."""
        return self.batch_size - self.batch_capped

    @property
    def rounds_learned(self) -> int:
        """Rounds learned from so far."""
        return self.round - self.rounds_capped

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

    def _user_ids(self, user_ids: Any, length: int) -> np.ndarray | None:
        """Validate a block's user ids: ``None`` or integers of shape ``(length,)``."""
        if user_ids is None:
            return None
        ids = np.asarray(user_ids)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"Expected integer user_ids, got dtype {ids.dtype}.")
        if ids.shape != (length,):
            raise ValueError(f"Expected user_ids of shape ({length},), got {ids.shape}.")
        return ids.astype(np.int64)

    def _learned(self, ids: np.ndarray | None) -> np.ndarray | None:
        """Count the block's rounds per person; the mask of rounds within the cap (``None``: all rounds).

        The ``j``-th round of a person (over the whole run, 0-based) is learned from iff
        ``j < max_rounds_per_user``.
        """
        if ids is None:
            return None
        if not self._users_seen and self.max_rounds_per_user is None:
            warnings.warn(
                f"{type(self).__name__} received user ids with max_rounds_per_user=None: every round of a "
                "returning person is learned from, so the user-level epsilon is unbounded (reported as inf). "
                "Pass max_rounds_per_user=m to bound it.",
                stacklevel=4,
            )
        self._users_seen = True
        people, inverse = np.unique(ids, return_inverse=True)
        before = np.array([self._user_rounds.get(p, 0) for p in people.tolist()], dtype=np.int64)
        order = np.argsort(inverse, kind="stable")
        first = np.searchsorted(inverse[order], np.arange(len(people)))  # start of each person's run in order
        occurrence = np.empty(len(ids), dtype=np.int64)
        occurrence[order] = np.arange(len(ids)) - first[inverse[order]]
        for person, total in zip(people.tolist(), (before + np.bincount(inverse)).tolist(), strict=True):
            self._user_rounds[person] = total
        if self.max_rounds_per_user is None:
            return None
        return before[inverse] + occurrence < self.max_rounds_per_user

    def _advance(
        self, X: np.ndarray, actions: np.ndarray, rewards: np.ndarray, ids: np.ndarray | None = None
    ) -> None:
        rows, models = self._played(X, actions)
        learned = self._learned(ids)
        if learned is not None:
            rows, models, rewards = rows[learned], models[learned], rewards[learned]
        if len(rewards):
            self._observe(rows, models, rewards)
        self.batch_capped += len(actions) - len(rewards)
        self.rounds_capped += len(actions) - len(rewards)
        self.round += len(actions)
        if self.round == self._batch_end:
            self._end_batch()
            self.batch += 1
            self.batch_start = self.round
            self._batch_end = self.round + self.schedule.size(self.batch)
            self.batch_capped = 0

    # -- contract --------------------------------------------------------------------------------
    def act(self, observation: np.ndarray) -> int:
        """The greedy arm under the current batch's policy."""
        X = self._observations(np.asarray(observation, dtype=float)[None])
        return int(self._greedy(self.scores(X))[0])

    def update(
        self, observation: np.ndarray, action: int, reward: float, *, user_id: int | None = None
    ) -> None:
        """Record the round (of person ``user_id``, if given); at the end of a batch, release and refit."""
        X = self._observations(np.asarray(observation, dtype=float)[None])
        action = self.check_action(action)
        reward = _validate.finite(reward=reward)
        ids = None if user_id is None else np.array([_validate.integer(user_id=user_id)], dtype=np.int64)
        self._advance(X, np.array([action]), np.array([reward]), ids)

    def play_block(
        self, observations: np.ndarray, rewards: np.ndarray, *, user_ids: np.ndarray | None = None
    ) -> np.ndarray:
        """Play consecutive rounds (every arm's reward ``(m, K)``, ``user_ids`` ``(m,)``); identical to
        ``act`` + ``update``.

        The policy is fixed within a batch, so each batch's rounds are scored at once.
        """
        X = self._observations(observations)
        R = np.asarray(rewards, dtype=float)
        if R.shape != (X.shape[0], self.n_arms):
            raise ValueError(f"Expected rewards of shape ({X.shape[0]}, {self.n_arms}), got {R.shape}.")
        if not np.all(np.isfinite(R)):
            raise ValueError("Expected finite rewards.")
        ids = self._user_ids(user_ids, X.shape[0])
        actions = np.empty(X.shape[0], dtype=np.int64)
        start = 0
        while start < X.shape[0]:
            stop = min(X.shape[0], start + self._batch_end - self.round)
            chosen = self._greedy(self.scores(X[start:stop]))
            actions[start:stop] = chosen
            self._advance(X[start:stop], chosen, R[np.arange(start, stop), chosen],
                          None if ids is None else ids[start:stop])
            start = stop
        return actions

    # -- user-level privacy ----------------------------------------------------------------------
    def _user_epsilon(self, max_rounds: int) -> float:
        """Epsilon at ``delta`` of a person with at most ``max_rounds`` learned rounds; per subclass."""
        raise NotImplementedError

    def _user_level(self, guarantee: PrivacyGuarantee) -> PrivacyGuarantee:
        """``guarantee`` with the user-level fields (contract C4): ``None`` without user ids and without a
        cap; ``inf`` with user ids and no cap (a person's rounds are unbounded); else ``_user_epsilon(m)``."""
        m = self.max_rounds_per_user
        if m is None and not self._users_seen:
            return guarantee
        seen = ("user ids received" if self._users_seen
                else "no user ids received (each round taken as a different person)")
        if m is None:
            note = f"user level: {seen}; no max_rounds_per_user, so a person's epsilon is unbounded"
            user_epsilon = math.inf
        else:
            note = (f"user level: {seen}; rounds past max_rounds_per_user={m} are played but not learned "
                    "from; arrival pattern (which rounds belong to whom) not protected")
            user_epsilon = self._user_epsilon(m)
        notes = f"{guarantee.notes.rstrip('.')}; {note}" if guarantee.notes else note
        return dataclasses.replace(guarantee, user_epsilon=user_epsilon, max_rounds_per_user=m, notes=notes)

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        out = {**super().params, "first_batch": self.schedule.first, "batch_ratio": self.schedule.ratio}
        if self.max_rounds_per_user is not None:
            out["max_rounds_per_user"] = self.max_rounds_per_user
        return out
