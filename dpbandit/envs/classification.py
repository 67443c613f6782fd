"""Classification data sets as contextual bandits (the supervised-to-bandit reduction).

The standard protocol of Bietti, Agarwal and Langford, "A Contextual Bandit Bake-off" (JMLR 2021), also
coba's ``from_supervised`` and Open Bandit Pipeline's ``MultiClassToBanditReduction``: a K-class data
set is a K-armed bandit; each round a user (a row) arrives, the context is its features, playing arm
``a`` pays ``R[y, a]`` where ``y`` is the row's true class; ``R`` is the identity by default (reward 1
for the true class, else 0) or a cost-sensitive ``reward_matrix``. Rewards are deterministic given the
row, so ``expected_rewards = R[y]`` and both pseudo-regret and accuracy are exact.

:class:`ClassificationProblem` holds the validated data and the per-round maths, :class:`RowStream`
draws the rows of N replicates, and :class:`ClassificationBanditEnv` / :class:`ClassificationBanditVectorEnv`
are the Gymnasium views (:mod:`dpbandit.envs.base`; the scalar env is the N = 1 case). Data loading, checks and
preprocessing: :mod:`dpbandit.envs.datasets`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from dpbandit import _validate
from dpbandit.envs import datasets
from dpbandit.envs.base import BanditEnv, BanditVectorEnv
from dpbandit.envs.rounds import DEFAULT_CHUNK_ELEMENTS, MAX_CHUNK_ROUNDS, BlockStream, RoundBlock

__all__ = [
    "DEFAULT_IID_HORIZON",
    "SAMPLING",
    "ClassificationBanditEnv",
    "ClassificationBanditVectorEnv",
    "ClassificationProblem",
    "RowStream",
]

#: ``"iid"``: each round a user drawn uniformly with replacement from the rows (the population
#: model); ``"pass"``: one pass over the rows without replacement, in a random order.
SAMPLING = ("iid", "pass")
#: Rounds per episode for ``sampling="iid"`` when no horizon is given [Fill] (the issue's T = 10^4).
DEFAULT_IID_HORIZON = 10_000

_NO_DATA = (
    "A classification bandit needs data: pass X= (features, shape (rows, d)) and y= (integer labels "
    "0..K-1), or path= (a CSV file) and label= (its label column), e.g. "
    "gymnasium.make('dpbandit/Classification-v0', X=X, y=y), or from the command line dpbandit run --env "
    "dpbandit/Classification-v0 --env-kwarg path=data.csv --env-kwarg label=y. scikit-learn's bundled data sets have their "
    "own ids: dpbandit/Digits-v0, dpbandit/Wine-v0, dpbandit/BreastCancer-v0, dpbandit/Iris-v0, and a "
    "generated one: dpbandit/ImbalancedClasses-v0."
)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class ClassificationProblem:
    """Validated classification bandit: data, reward matrix, sampling, horizon, and the round maths.

    Build it with :meth:`from_source` (what the environments do).

    Attributes:
        features: the preprocessed features, ``(n, d)`` float64 (read-only).
        labels: the classes ``0..K-1``, ``(n,)`` int64 (read-only).
        reward_matrix: ``R`` of shape ``(K, K)``; ``R[y, a]`` is the reward of arm ``a`` when the true
            class is ``y`` (read-only).
        sampling: ``"iid"`` or ``"pass"`` (:data:`SAMPLING`).
        horizon: rounds per episode T.
        preprocess: ``"center-l2"`` or ``None`` (:func:`dpbandit.envs.datasets.preprocess`).
        scaling: the feature scaling applied first (:func:`dpbandit.envs.datasets.scale_features`): ``"fitted"``
            (standardised on the data set), ``"feature_scale"`` or ``"feature_bounds"`` (public constants) or
            ``"none"``.
        source: where the data came from (``"digits"``, a CSV path, ``"arrays"``), for logs.
    """

    features: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    reward_matrix: np.ndarray = field(repr=False)
    sampling: str
    horizon: int
    preprocess: str | None
    scaling: str
    source: str

    @classmethod
    def from_source(
        cls,
        X: Any = None,
        y: Any = None,
        *,
        path: str | Path | None = None,
        label: str | None = None,
        dataset: str | None = None,
        reward_matrix: Any = None,
        sampling: str = "iid",
        horizon: int | None = None,
        preprocess: str | None = "center-l2",
        standardize: bool = True,
        feature_scale: Any = None,
        feature_bounds: Any = None,
    ) -> ClassificationProblem:
        """Load, check and preprocess the data; check every option. Arguments: see the environments."""
        _validate.one_of(SAMPLING, sampling=sampling)
        if preprocess is not None:
            _validate.one_of(datasets.PREPROCESSING, preprocess=preprocess)
        if horizon is not None:
            horizon = _validate.integer(horizon=horizon, minimum=1)
        if label is not None and path is None:
            raise ValueError(f"label={label!r} names the label column of a CSV file: pass it with path=.")
        given = [name for name, value in (("X/y", X is not None or y is not None), ("path", path is not None),
                                          ("dataset", dataset is not None)) if value]
        if not given:
            raise ValueError(_NO_DATA)
        if len(given) > 1:
            raise ValueError(f"Expected one data source, got {' and '.join(given)}; pass only one of them.")
        columns = None
        if dataset is not None:
            features, labels = datasets.load_bundled(dataset)
            source = dataset
        elif path is not None:
            if label is None:
                raise ValueError(f"Expected label= the name of the label column of the CSV {str(path)!r}.")
            features, labels, columns = datasets.read_csv(path, label)
            source = str(path)
        else:
            if X is None or y is None:
                only = "X" if y is None else "y"
                raise ValueError(f"Expected both X= (features) and y= (labels), got only {only}.")
            features, labels, source = X, y, "arrays"
        features, labels, n_classes = datasets.check_data(features, labels, columns)
        scaling, _ = datasets.check_scaling(features.shape[1], standardize, feature_scale, feature_bounds)
        if reward_matrix is None:
            matrix = np.eye(n_classes)
        else:
            matrix = _validate.finite_array(reward_matrix=reward_matrix, shape=(n_classes, n_classes))
            matrix = np.array(matrix, dtype=np.float64)
        n_rows = features.shape[0]
        if horizon is None:
            horizon = DEFAULT_IID_HORIZON if sampling == "iid" else n_rows
        if sampling == "pass" and horizon > n_rows:
            raise ValueError(
                f"Expected horizon <= {n_rows} (the number of rows) for sampling='pass', which plays each "
                f"row at most once; got horizon={horizon}. Use sampling='iid' (rows drawn with replacement) "
                "for longer runs."
            )
        scaled = datasets.scale_features(features, standardize, feature_scale, feature_bounds)
        if scaling in ("feature_scale", "feature_bounds") and preprocess is not None:
            warnings.warn(
                f"{scaling}= gives public feature scales, but preprocess={preprocess!r} still centres the "
                "features with means fitted on every row (not private); pass preprocess=None for a "
                "preprocessing that uses public constants only (docs/envs.md, 'Privacy caveat').",
                stacklevel=3,
            )
        return cls(
            features=_frozen(datasets.preprocess(scaled, preprocess)),
            labels=_frozen(labels),
            reward_matrix=_frozen(matrix),
            sampling=sampling,
            horizon=horizon,
            preprocess=preprocess,
            scaling=scaling,
            source=source,
        )

    # ------------------------------------------------------------------ sizes and bounds
    @property
    def n_rows(self) -> int:
        """Number of rows (users) n."""
        return self.features.shape[0]

    @property
    def n_arms(self) -> int:
        """K, the number of classes."""
        return self.reward_matrix.shape[0]

    @property
    def dim(self) -> int:
        """Number of features d."""
        return self.features.shape[1]

    @property
    def context_model(self) -> str:
        """Always ``"shared"``: one context ``(d,)`` per round."""
        return "shared"

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(d,)``."""
        return (self.dim,)

    @property
    def reward_range(self) -> tuple[float, float]:
        """``(min R, max R)``: ``(0.0, 1.0)`` for the default one-hot rewards (contract C1)."""
        return float(self.reward_matrix.min()), float(self.reward_matrix.max())

    @property
    def round_bytes(self) -> int:
        """Approximate bytes of one round's arrays (observation, means, rewards, user id)."""
        return 8 * (self.dim + 2 * self.n_arms + 1)

    @property
    def params(self) -> dict[str, Any]:
        """The configuration as plain values (for result columns and logs)."""
        one_hot = np.array_equal(self.reward_matrix, np.eye(self.n_arms))
        return {
            "source": self.source,
            "n_rows": self.n_rows,
            "dim": self.dim,
            "n_arms": self.n_arms,
            "sampling": self.sampling,
            "horizon": self.horizon,
            "preprocess": self.preprocess,
            "scaling": self.scaling,
            "reward_matrix": "one-hot" if one_hot else "custom",
        }

    def observation_space(self) -> spaces.Box:
        """``Box(low, high, (d,))`` with ``low = min(0, min X)``, ``high = max(0, max X)`` over all entries.

        Contains every row and the all-zero observation sent at truncation; one bound for all features
        (per-feature bounds would be equal for a constant feature, which Gymnasium's checker rejects).
        """
        low = min(float(self.features.min()), 0.0)
        high = max(float(self.features.max()), 0.0)
        return spaces.Box(low, high, shape=self.observation_shape, dtype=np.float64)

    # ------------------------------------------------------------------ maths
    def rounds(self, rows: np.ndarray) -> RoundBlock:
        """The rounds of the users ``rows`` (any shape S, int64): observations ``(*S, d)``, expected
        rewards = rewards = ``R[y]`` ``(*S, K)``, user ids = the row indices ``S``."""
        means = self.reward_matrix[self.labels[rows]]
        return RoundBlock(self.features[rows], means, means.copy(), rows.copy())


class RowStream(BlockStream):
    """Which rows N replicates meet, from one child stream of each root (``root.spawn(1)``).

    ``"iid"``: ``rng.integers(n, size=m)`` per chunk (numpy's bounded integers consume the bit stream
    in order, so the rows do not depend on the chunking; tested). ``"pass"``: ``rng.permutation(n)`` at
    reset, played in order. The rows never depend on the actions (common random numbers).
    """

    def __init__(
        self, problem: ClassificationProblem, num_envs: int, chunk_rounds: int | None = None
    ) -> None:
        if chunk_rounds is None:
            per_round = _validate.integer(num_envs=num_envs, minimum=1) * (problem.dim + 2 * problem.n_arms)
            chunk_rounds = max(1, min(MAX_CHUNK_ROUNDS, DEFAULT_CHUNK_ELEMENTS // per_round))
        super().__init__(problem, num_envs, chunk_rounds)
        self._row_rngs: list[np.random.Generator] = []
        self._orders: np.ndarray | None = None
        self._drawn = 0

    def _start(self, roots: Sequence[np.random.Generator]) -> None:
        self._row_rngs = [root.spawn(1)[0] for root in roots]
        self._drawn = 0
        if self.problem.sampling == "pass":
            self._orders = np.stack([rng.permutation(self.problem.n_rows) for rng in self._row_rngs])

    def _draw(self, m: int) -> RoundBlock:
        if self.problem.sampling == "iid":
            n = self.problem.n_rows
            rows = np.stack([rng.integers(n, size=m, dtype=np.int64) for rng in self._row_rngs])
        else:
            rows = self._orders[:, self._drawn : self._drawn + m]  # type: ignore[index]
        self._drawn += m
        return self.problem.rounds(rows)


class _DataAttributes:
    """Data attributes of ``self.problem`` (others: :class:`dpbandit.envs.base.ProblemAttributes`)."""

    problem: ClassificationProblem

    @property
    def n_rows(self) -> int:
        """Number of rows (users) n."""
        return self.problem.n_rows

    @property
    def sampling(self) -> str:
        """``"iid"`` or ``"pass"``."""
        return self.problem.sampling

    @property
    def reward_matrix(self) -> np.ndarray:
        """``R`` (K, K), read-only: ``R[y, a]`` = reward of arm ``a`` for true class ``y``."""
        return self.problem.reward_matrix

    @property
    def features(self) -> np.ndarray:
        """The preprocessed features (n, d), read-only: the contexts are its rows."""
        return self.problem.features

    @property
    def labels(self) -> np.ndarray:
        """The classes (n,), read-only."""
        return self.problem.labels


class ClassificationBanditEnv(_DataAttributes, BanditEnv):
    """A K-class data set as a K-armed contextual bandit (one replicate).

    ## Data (exactly one source)
    ``X=`` (features ``(n, d)``) and ``y=`` (labels ``0..K-1``); or ``path=`` (a CSV file with a
    header) and ``label=`` (the column holding the classes; every other column is a feature); or
    ``dataset=`` one of ``"digits"``, ``"wine"``, ``"breast_cancer"``, ``"iris"`` (bundled with
    scikit-learn, nothing downloaded; the registered ids ``dpbandit/Digits-v0`` ... pass it) or
    ``"imbalanced"`` (generated by scikit-learn's ``make_classification`` with fixed arguments, 4 classes,
    majority share 0.55: ``dpbandit/ImbalancedClasses-v0``). Labels must
    already be ``0..K-1`` with every class present (the error says how to encode others); NaN or
    infinite features, X/y length mismatch and a single class are errors (:mod:`dpbandit.envs.datasets`).

    ## Action space
    ``Discrete(K)``, K = number of classes: arm ``a`` is the guess "class a".

    ## Observation space
    ``Box(low, high, (d,))`` float64, the range of all preprocessed feature values (and 0).
    First, feature scaling (default ``standardize=True``, [Fill], issue 29): each feature standardised to
    zero mean and unit variance over the whole data set (a constant feature becomes 0); or public constants
    ``feature_scale=(mean, std)`` or ``feature_bounds=(low, high)`` (mapped onto [-1, 1]);
    ``standardize=False`` skips it. Then preprocessing ``"center-l2"`` (default, [Fill]): features centred
    by their mean over the whole data set, then each row scaled to unit l2 norm (so every context has norm
    1, or 0 for a row equal to the mean); ``preprocess=None`` skips it. ``standardize=False,
    preprocess=None`` keeps the raw features. Privacy caveat: fitted means and scales use every row and are
    not covered by an agent's guarantee; pass public ``feature_scale`` / ``feature_bounds`` (and
    ``preprocess=None``) where that matters (:mod:`dpbandit.envs.datasets`).

    ## Rewards
    ``R[y, a]`` for true class ``y``: ``reward_matrix=None`` (default) is the identity, reward 1 for the
    true class, else 0; a finite ``(K, K)`` matrix makes it cost-sensitive. Rewards are deterministic
    given the row: the realised reward of every arm equals its expected reward ``R[y]``.
    ``env.unwrapped.reward_range = (min R, max R)`` (``(0.0, 1.0)`` by default).

    ## Sampling and horizon
    ``sampling="iid"`` (default): each round a new user drawn uniformly *with replacement* from the
    rows (the population model), any horizon; default ``horizon`` 10,000 [Fill]. A row drawn k times
    is one person in k rounds: ``info["user_id"]`` (the row index) says which, so agents can bound a
    person's contribution (user-level privacy). ``sampling="pass"``: one pass over the rows without
    replacement in a random order, ``horizon <= n`` (default n).

    ## Info
    ``reset`` and ``step``: ``expected_rewards`` (``R[y]``, shape ``(K,)``), ``optimal_action``
    (``argmax R[y]``, the true class by default) and ``user_id``; ``step``'s info describes the round just
    played and adds ``regret`` (``max R[y] - R[y, a]``).

    ## Episode end, randomness, block access, rendering
    As :class:`dpbandit.envs.glm.GLMBanditEnv`: continuing (``terminated`` False, ``truncated`` at T, the
    observation then all zeros); rows come only from ``self.np_random`` through one spawned child
    stream per reset, whatever the actions (same seed, same rounds for every agent); ``draw_rounds(m)``
    returns a :class:`dpbandit.envs.rounds.RoundBlock` with ``user_ids``, bit-identical to stepping;
    ``render_mode="ansi"`` shows the rounds as text.

    Args:
        X, y, path, label, dataset: the data (above).
        reward_matrix: ``(K, K)`` rewards, ``None`` = identity.
        sampling: ``"iid"`` or ``"pass"``.
        horizon: rounds per episode (``None``: 10,000 for iid, n for pass).
        preprocess: ``"center-l2"`` or ``None``.
        standardize: standardise each feature first (default ``True``); ``False`` skips feature scaling.
        feature_scale: public ``(mean, std)``, each ``(d,)``, ``std > 0``, used instead of the fitted ones.
        feature_bounds: public ``(low, high)``, each ``(d,)``, ``high > low``: features mapped onto [-1, 1].
        chunk_rounds: rounds drawn per internal chunk (``None``: fit a memory budget); never changes
            the numbers.
        render_mode: ``None`` or ``"ansi"``.

    Example:
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> env = ClassificationBanditEnv(X, y, horizon=100)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, env.n_arms, env.reward_range
        ((4,), 3, (0.0, 1.0))
        >>> int(y[info["user_id"]]) == info["optimal_action"]
        True
        >>> _, reward, terminated, truncated, info = env.step(info["optimal_action"])
        >>> reward, info["regret"], terminated, truncated
        (1.0, 0.0, False, False)
    """

    def __init__(
        self,
        X: Any = None,
        y: Any = None,
        *,
        path: str | Path | None = None,
        label: str | None = None,
        dataset: str | None = None,
        reward_matrix: Any = None,
        sampling: str = "iid",
        horizon: int | None = None,
        preprocess: str | None = "center-l2",
        standardize: bool = True,
        feature_scale: Any = None,
        feature_bounds: Any = None,
        chunk_rounds: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self._set_render_mode(render_mode)
        self.problem = ClassificationProblem.from_source(
            X, y, path=path, label=label, dataset=dataset, reward_matrix=reward_matrix,
            sampling=sampling, horizon=horizon, preprocess=preprocess, standardize=standardize,
            feature_scale=feature_scale, feature_bounds=feature_bounds,
        )
        self._stream = RowStream(self.problem, 1, chunk_rounds)
        self.observation_space = self.problem.observation_space()
        self.action_space = spaces.Discrete(self.problem.n_arms)


class ClassificationBanditVectorEnv(_DataAttributes, BanditVectorEnv):
    """``num_envs`` independent replicates of :class:`ClassificationBanditEnv`, batched natively.

    Replicate ``i`` is exactly the scalar env reset with seed ``replicate_seeds(seed, num_envs)[i]`` (or
    ``seed[i]``): the same rows in the same order. All replicates share the data, the horizon and run in
    lockstep. Arrays lead with ``num_envs``; info holds ``expected_rewards (N, K)``, ``optimal_action
    (N,)``, ``user_id (N,)`` and, after ``step``, ``regret (N,)``, each with Gymnasium's ``_key`` mask.
    Autoreset: ``AutoresetMode.NEXT_STEP`` (as :class:`dpbandit.envs.glm.GLMBanditVectorEnv`).

    Args:
        num_envs: number of replicates N >= 1.
        X, y, **options: as :class:`ClassificationBanditEnv`.
    """

    def __init__(
        self,
        num_envs: int,
        X: Any = None,
        y: Any = None,
        *,
        path: str | Path | None = None,
        label: str | None = None,
        dataset: str | None = None,
        reward_matrix: Any = None,
        sampling: str = "iid",
        horizon: int | None = None,
        preprocess: str | None = "center-l2",
        standardize: bool = True,
        feature_scale: Any = None,
        feature_bounds: Any = None,
        chunk_rounds: int | None = None,
    ) -> None:
        self.problem = ClassificationProblem.from_source(
            X, y, path=path, label=label, dataset=dataset, reward_matrix=reward_matrix,
            sampling=sampling, horizon=horizon, preprocess=preprocess, standardize=standardize,
            feature_scale=feature_scale, feature_bounds=feature_bounds,
        )
        self._set_replicates(num_envs, self.problem.observation_space())
        self._stream = RowStream(self.problem, self.num_envs, chunk_rounds)
