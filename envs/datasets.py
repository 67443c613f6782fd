"""Classification data for the bandit environments: loading, checking and preprocessing.

Three sources, each giving features ``X`` of shape ``(n, d)`` and integer labels ``y`` in ``0..K-1``:
arrays, a CSV file (:func:`read_csv`, one column of labels, every other column a numeric feature) and
scikit-learn's data sets shipped inside the package (:func:`load_bundled`; nothing is downloaded).

Checks (:func:`check_data`) run before any work and name the problem: features must be a finite
numeric 2-D array, labels one per row, integers ``0..K-1`` with every class present and K >= 2.
Labels are never re-encoded silently: labels such as ``"setosa"`` or ``{1, 2, 3}`` get an error that
says how to encode them (``numpy.unique(y, return_inverse=True)``), because the arm an agent plays is
the class index and a silent mapping would hide which arm is which class.

Feature scaling (:func:`scale_features`), first, on by default [Fill] (issue 29): each feature is
standardised to zero mean and unit variance over the data set (a constant feature becomes 0), so no feature
dominates the rows' norms merely by its unit (wine's proline is about 10^3, its other features about 1).
Public alternatives: ``feature_scale=(mean, std)`` (each ``(d,)``, ``std > 0``): ``(x - mean) / std``;
``feature_bounds=(low, high)`` (each ``(d,)``, ``high > low``): the affine map of ``[low, high]`` onto
``[-1, 1]`` (a value outside its bounds is an error, never clipped). ``standardize=False`` skips the step.

Preprocessing (:func:`preprocess`), second, [Fill] our documented default ``"center-l2"``: subtract each
feature's mean, then scale each row to unit l2 norm (the contextual-bandit bake-off of Bietti, Agarwal
and Langford, JMLR 2021, also normalises features; linear agents and the clipping bounds of the private
agents assume contexts of norm <= 1). The means are fitted on the whole data set: every row is a user
the bandit meets (a population, not a train/test split), so nothing is held out to leak into. A row
equal to the mean (all zeros after centring) stays all zeros. ``None`` leaves the rows as scaled.

Privacy caveat: the fitted means and standard deviations use every row, and an agent's guarantee does not
cover this pre-computation (a row's features shift every other row's context). Where that matters pass
public constants (``feature_scale`` or ``feature_bounds``, e.g. from a data dictionary or a previous,
public data set) and ``preprocess=None`` (centring fits means too); the row-norm scaling alone uses each
row only (docs/envs.md). ``standardize=False, preprocess=None`` keeps the raw features.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from dpbandit import _validate

__all__ = [
    "BUNDLED",
    "PREPROCESSING",
    "check_data",
    "check_scaling",
    "load_bundled",
    "preprocess",
    "read_csv",
    "scale_features",
]

#: Bundled data set name -> (scikit-learn loader, rows, features, classes) [O] sklearn.datasets.
BUNDLED: dict[str, tuple[str, int, int, int]] = {
    "digits": ("load_digits", 1797, 64, 10),
    "wine": ("load_wine", 178, 13, 3),
    "breast_cancer": ("load_breast_cancer", 569, 30, 2),
    "iris": ("load_iris", 150, 4, 3),
}
#: Preprocessing methods (``None``: rows left as scaled) [Fill].
PREPROCESSING = ("center-l2",)

_ENCODE_HINT = (
    "encode them as 0..K-1 first, e.g. classes, y = numpy.unique(y, return_inverse=True) "
    "(arm k is then the class classes[k])"
)


@functools.cache
def load_bundled(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features ``(n, d)`` float64 and labels ``(n,)`` int64 of a data set bundled with scikit-learn.

    Read-only arrays, loaded once per process. ``name``: a key of :data:`BUNDLED`.
    """
    _validate.one_of(BUNDLED, dataset=name)
    from sklearn import datasets  # imported on first use: scikit-learn takes ~1 s to import

    bunch = getattr(datasets, BUNDLED[name][0])()
    X = np.ascontiguousarray(bunch.data, dtype=np.float64)
    y = np.ascontiguousarray(bunch.target, dtype=np.int64)
    for array in (X, y):
        array.setflags(write=False)
    return X, y


def read_csv(path: str | Path, label: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(X, y, feature_names)`` from a CSV file with a header: column ``label`` holds the classes.

    Every other column is a feature and must be numeric (missing values become NaN and are rejected
    by :func:`check_data`). ``y`` is returned as read (checked by :func:`check_data`).
    """
    import pandas as pd  # imported where used (startup time)

    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"Expected path to name a CSV file, got path={str(path)!r} (no such file).")
    if not isinstance(label, str):
        raise TypeError(f"Expected label to be the name of the CSV's label column, got label={label!r}.")
    frame = pd.read_csv(file)
    columns = [str(c) for c in frame.columns]
    if label not in columns:
        raise ValueError(
            f"The CSV file {str(path)!r} has no label column {label!r}; its columns are {columns}. "
            "Pass label= the name of the column that holds the classes."
        )
    features = frame.drop(columns=label)
    if features.shape[1] == 0:
        raise ValueError(f"The CSV file {str(path)!r} has only the label column {label!r}, no features.")
    text = [str(c) for c, kind in features.dtypes.items() if kind.kind not in "biuf"]
    if text:
        raise ValueError(
            f"Expected numeric feature columns in {str(path)!r}; columns {text} are not numeric. "
            "Encode them (e.g. pandas.get_dummies) or drop them before loading."
        )
    return features.to_numpy(dtype=np.float64), frame[label].to_numpy(), [str(c) for c in features.columns]


def _check_features(X: Any, columns: list[str] | None) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Expected X to be a 2-D array (rows, features), got shape {X.shape}.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"Expected X to hold numbers, got dtype {X.dtype}.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    bad = ~np.isfinite(X)
    if bad.any():
        rows, cols = np.nonzero(bad)
        where = f"column {columns[cols[0]]!r}" if columns else f"column {cols[0]}"
        raise ValueError(
            f"Expected X (the features) to be finite: {bad.sum()} entries are NaN or infinite, the first at "
            f"row {rows[0]}, {where} ({X[rows[0], cols[0]]}). Impute or drop them before loading."
        )
    return X


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for messages: ``'setosa'``, not ``np.str_('setosa')``)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_labels(y: Any, n_rows: int) -> tuple[np.ndarray, int]:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"Expected y to be a 1-D array of labels, got shape {y.shape}.")
    if y.shape[0] != n_rows:
        raise ValueError(f"Expected one label per row of X: X has {n_rows} rows, y has {y.shape[0]} labels.")
    if y.dtype.kind not in "iuf":
        example = _plain(y[0]) if y.size else None
        raise ValueError(
            f"Expected y to hold integer class labels 0..K-1, got dtype {y.dtype} (e.g. {example!r}); "
            + _ENCODE_HINT
            + "."
        )
    if y.dtype.kind == "f" and not (np.all(np.isfinite(y)) and np.all(y == np.round(y))):
        raise ValueError("Expected y to hold integer class labels 0..K-1, got non-integer or NaN values; "
                         + _ENCODE_HINT + ".")
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            "Expected at least 2 classes in y (a bandit needs K >= 2 arms), "
            f"got one class {_plain(classes[0])!r}."
        )
    n_classes = int(classes.max()) + 1
    if classes.min() != 0 or classes.size != n_classes:
        missing = sorted(set(range(n_classes)) - set(classes.astype(np.int64).tolist()))
        detail = f"got labels {classes[:10].tolist()}{' ...' if classes.size > 10 else ''}"
        if classes.min() >= 0:
            detail += f": classes {missing} are absent"
        raise ValueError(
            f"Expected y to hold the class labels 0..K-1 with every class present ({detail}); "
            + _ENCODE_HINT
            + "."
        )
    return np.ascontiguousarray(y, dtype=np.int64), n_classes


def check_data(X: Any, y: Any, columns: list[str] | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Checked ``(X float64 (n, d), y int64 (n,), K)``; raises naming the problem (see the module doc).

    ``columns``: feature names used in the messages (a CSV's header).
    """
    X = _check_features(X, columns)
    y, n_classes = _check_labels(y, X.shape[0])
    return X, y, n_classes


def preprocess(X: np.ndarray, method: str | None) -> np.ndarray:
    """Preprocessed copy of ``X`` (n, d): ``"center-l2"`` (centre features, unit-l2 rows) or ``None`` (as given).

    [Fill] fitted on the whole data set (module doc). Rows that are zero after centring stay zero.
    """
    if method is None:
        return np.array(X, dtype=np.float64)
    _validate.one_of(PREPROCESSING, preprocess=method)
    centred = X - X.mean(axis=0)
    norms = np.sqrt((centred * centred).sum(axis=1))
    return centred / np.where(norms > 0.0, norms, 1.0)[:, None]


def _pair(name: str, value: Any, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``value`` as two finite ``(dim,)`` float64 arrays; errors name ``name``."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"Expected {name} to be a pair of arrays of shape ({dim},), got {type(value).__name__}.")
    first, second = (_validate.finite_array(**{f"{name}[{i}]": part}, shape=(dim,)) for i, part in enumerate(value))
    return first, second


def check_scaling(
    dim: int, standardize: bool, feature_scale: Any = None, feature_bounds: Any = None
) -> tuple[str, tuple[np.ndarray, np.ndarray] | None]:
    """Validated feature scaling: ``(kind, constants)`` with ``kind`` one of ``"fitted"``, ``"feature_scale"``,
    ``"feature_bounds"`` or ``"none"``, ``constants`` the public pair (or ``None``).

    ``feature_scale = (mean, std)``: two finite ``(dim,)`` arrays, ``std > 0``; ``feature_bounds = (low, high)``:
    two finite ``(dim,)`` arrays, ``high > low``. At most one of them, and neither with ``standardize=False``.
    """
    if not isinstance(standardize, (bool, np.bool_)):
        raise TypeError(f"Expected standardize to be True or False, got {standardize!r}.")
    given = [n for n, value in (("feature_scale", feature_scale), ("feature_bounds", feature_bounds))
             if value is not None]
    if len(given) == 2:
        raise ValueError("Expected at most one of feature_scale and feature_bounds, got both.")
    if given and not standardize:
        raise ValueError(f"{given[0]}= scales the features: it contradicts standardize=False; pass only one.")
    if not standardize:
        return "none", None
    if feature_scale is not None:
        mean, std = _pair("feature_scale", feature_scale, dim)
        if not np.all(std > 0):
            bad = int(np.flatnonzero(~(std > 0))[0])
            raise ValueError(f"Expected feature_scale[1] (std) > 0 everywhere, got {std[bad]} at feature {bad}.")
        return "feature_scale", (mean, std)
    if feature_bounds is not None:
        low, high = _pair("feature_bounds", feature_bounds, dim)
        if not np.all(high > low):
            bad = int(np.flatnonzero(~(high > low))[0])
            raise ValueError(
                f"Expected feature_bounds high > low everywhere, got low={low[bad]}, high={high[bad]} at feature {bad}."
            )
        return "feature_bounds", (low, high)
    return "fitted", None


def scale_features(
    X: np.ndarray, standardize: bool = True, feature_scale: Any = None, feature_bounds: Any = None
) -> np.ndarray:
    """Feature-scaled copy of ``X`` (n, d) (module doc): fitted standardisation (default), public
    ``feature_scale=(mean, std)``, public ``feature_bounds=(low, high)`` onto [-1, 1], or none.

    Fitted: ``(x - mean) / std`` with the data set's mean and (population) std per feature; a constant feature
    (std 0) becomes 0. Bounds: ``2 (x - low) / (high - low) - 1``; a value outside ``[low, high]`` is an error
    naming the feature (never clipped).
    """
    kind, constants = check_scaling(X.shape[1], standardize, feature_scale, feature_bounds)
    if kind == "none":
        return np.array(X, dtype=np.float64)
    if kind == "feature_bounds":
        low, high = constants  # type: ignore[misc]
        outside = (X < low) | (X > high)
        if outside.any():
            rows, cols = np.nonzero(outside)
            raise ValueError(
                f"Expected every feature inside feature_bounds: {outside.sum()} values are outside, the first "
                f"at row {rows[0]}, feature {cols[0]} ({X[rows[0], cols[0]]} not in "
                f"[{low[cols[0]]}, {high[cols[0]]}]). Widen the bounds (nothing is clipped)."
            )
        return 2.0 * (X - low) / (high - low) - 1.0
    if kind == "feature_scale":
        mean, std = constants  # type: ignore[misc]
        return (X - mean) / std
    constant = X.max(axis=0) == X.min(axis=0)  # std would be 0 up to rounding: the feature becomes 0
    std = np.where(constant, 1.0, X.std(axis=0))
    return np.where(constant, 0.0, (X - X.mean(axis=0)) / std)
