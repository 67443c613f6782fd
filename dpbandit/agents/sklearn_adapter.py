"""Third-party bandits with an sklearn-style API (``predict`` / ``partial_fit``) as dpbandit agents.

Libraries such as MABWiser expose a contextual bandit as an estimator: ``fit(decisions, rewards,
contexts)``, ``partial_fit(...)`` and ``predict(contexts) -> arms``. :class:`SklearnBandit` wraps one
for the harness:

* **Warm start** [Fill]: until its first fit a model cannot predict, so the first ``warmup`` rounds
  (default ``n_arms``: each arm once) play the arms round-robin; their rows then go to ``fit``
  (or ``partial_fit`` if the model has no ``fit``).
* **Batched updates** [Fill]: rows are buffered and handed to ``partial_fit`` once the buffer holds
  ``min(batch_size, max(1, round // STALENESS))`` rows (:data:`DEFAULT_BATCH_SIZE`,
  :data:`STALENESS`): every round at first, where learning happens, then in batches that never hold
  more than 1/STALENESS of the rows seen, up to ``batch_size``. Libraries pay a large fixed cost per
  call (one call per round is 10-15x slower). Between two updates the model does not change, so
  ``play_block`` predicts the rounds up to the next update in one call (MABWiser's LinUCB gives the
  same actions either way, ``tests/agents/test_sklearn_adapter.py``).
* **Seeding**: the library gets one integer seed drawn from the agent's ``numpy.random.Generator``
  (``rng.integers(2**31)``), so the harness's seeds decide its numbers too.
* **Pickling**: factories built by :func:`mabwiser_agent` (a ``functools.partial`` of this class
  and a :class:`MABWiserModel`) pickle, so ``run(..., n_jobs=2)`` works. For another library pass
  ``model=``, a module-level callable ``model(n_arms, seed) -> estimator``.

Five lines plug MABWiser's LinUCB in::

    from mabwiser.mab import LearningPolicy
    from dpbandit.agents.sklearn_adapter import mabwiser_agent
    from dpbandit.harness import run

    df = run("dpbandit/LinearBandit-v0", {"MABWiser LinUCB": mabwiser_agent(LearningPolicy.LinUCB())})
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent

__all__ = ["DEFAULT_BATCH_SIZE", "STALENESS", "MABWiserModel", "SklearnBandit", "mabwiser_agent"]

#: Most rows buffered between two ``partial_fit`` calls [Fill].
DEFAULT_BATCH_SIZE = 100
#: The buffer never holds more than ``round / STALENESS`` rows [Fill]: the model misses at most 5% of
#: the data it could have, so regret stays that of per-round updates (see the adapter's test).
STALENESS = 20


class SklearnBandit(Agent):
    """A ``predict`` / ``partial_fit`` bandit as an :class:`Agent` (module docstring for the rules).

    Args:
        n_arms, dim, rng: as for every agent (arms are the integers ``0 .. n_arms - 1``).
        model: ``model(n_arms, seed) -> estimator`` with ``predict(X)`` and ``partial_fit(decisions,
            rewards, X)`` (and optionally ``fit``); a picklable callable for ``n_jobs > 1``.
        batch_size: most rows buffered between two ``partial_fit`` calls (>= 1; 1: every round).
        warmup: round-robin rounds before the first fit (default ``n_arms``).
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        model: Callable[[int, int], Any],
        batch_size: int = DEFAULT_BATCH_SIZE,
        warmup: int | None = None,
    ) -> None:
        super().__init__(n_arms, dim, rng=rng)
        if not callable(model):
            raise TypeError(
                f"Expected model to be a callable model(n_arms, seed) -> estimator, got {model!r}."
            )
        self.batch_size = _validate.integer(batch_size=batch_size, minimum=1)
        self.warmup = _validate.integer(warmup=self.n_arms if warmup is None else warmup, minimum=1)
        self.model = model(self.n_arms, int(self.rng.integers(2**31)))
        for method in ("predict", "partial_fit"):
            if not callable(getattr(self.model, method, None)):
                raise TypeError(
                    f"Expected model(...) to return an estimator with {method}(), got {self.model!r}."
                )
        self.round = 0
        self._fitted = False
        self._rows: list[np.ndarray] = []
        self._actions: list[int] = []
        self._rewards: list[float] = []

    def _predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(X), dtype=np.int64).reshape(len(X))

    def act(self, observation: np.ndarray) -> int:
        """Round-robin during warm-up, then the model's prediction."""
        x = _validate.finite_array(observation=observation, shape=(self.dim,))
        if not self._fitted:
            return self.round % self.n_arms
        return self.check_action(int(self._predict(x[None, :])[0]))

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        """Buffer the row; fit at the end of warm-up, then ``partial_fit`` every ``batch_size`` rounds."""
        self._rows.append(_validate.finite_array(observation=observation, shape=(self.dim,)))
        self._actions.append(self.check_action(action))
        self._rewards.append(_validate.finite(reward=reward))
        self.round += 1
        if (len(self._rows) >= self._buffer_limit()) if self._fitted else (self.round >= self.warmup):
            self._flush()

    def _buffer_limit(self) -> int:
        """Rows to buffer before the next ``partial_fit`` (module docstring)."""
        return min(self.batch_size, max(1, self.round // STALENESS))

    def _flush(self) -> None:
        X, actions, rewards = np.stack(self._rows), np.array(self._actions), np.array(self._rewards)
        fit = self.model.partial_fit if self._fitted else getattr(self.model, "fit", self.model.partial_fit)
        fit(actions, rewards, X)
        self._fitted = True
        self._rows, self._actions, self._rewards = [], [], []

    def play_block(self, observations: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """``act`` / ``update`` over rounds, predicting each batch between two updates in one call."""
        observations = _validate.finite_array(observations=observations, shape=(len(observations), self.dim))
        actions = np.empty(len(observations), dtype=np.int64)
        s = 0
        while s < len(observations):
            if not self._fitted:
                m = 1
                actions[s] = self.act(observations[s])
            else:
                m = min(self._buffer_limit() - len(self._rows), len(observations) - s)
                actions[s : s + m] = self._predict(observations[s : s + m])
            for i in range(s, s + m):
                self.update(observations[i], int(actions[i]), float(rewards[i, actions[i]]))
            s += m
        return actions


class MABWiserModel:
    """Picklable ``model(n_arms, seed)`` building ``mabwiser.mab.MAB(arms=[0..K-1], ...)``.

    Args:
        learning_policy: e.g. ``LearningPolicy.LinUCB(alpha=1.0)``.
        neighborhood_policy: optional MABWiser neighborhood policy.
        **options: further ``MAB`` keyword arguments (not ``seed``: it comes from the agent's generator).
    """

    def __init__(self, learning_policy: Any, neighborhood_policy: Any = None, **options: Any) -> None:
        if "seed" in options:
            raise ValueError("Expected no seed in options: the seed is drawn from the agent's generator.")
        self.learning_policy = learning_policy
        self.neighborhood_policy = neighborhood_policy
        self.options = options

    def __call__(self, n_arms: int, seed: int) -> Any:
        from mabwiser.mab import MAB

        return MAB(
            list(range(n_arms)), self.learning_policy, self.neighborhood_policy, seed=seed, **self.options
        )


def mabwiser_agent(
    learning_policy: Any,
    neighborhood_policy: Any = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    warmup: int | None = None,
    **options: Any,
) -> functools.partial:
    """A picklable agent factory for ``dpbandit.harness.run``: MABWiser MAB in a :class:`SklearnBandit`."""
    model = MABWiserModel(learning_policy, neighborhood_policy, **options)
    return functools.partial(SklearnBandit, model=model, batch_size=batch_size, warmup=warmup)
