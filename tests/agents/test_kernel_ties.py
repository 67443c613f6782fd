"""The kernels' shared arg-max helpers (dpbandit/agents/kernels/ties.py) against NumPy."""

import numpy as np
import pytest

from dpbandit.agents.kernels.ties import array_max, best_arms


@pytest.mark.parametrize("size", [1, 2, 5, 17])
def test_array_max_is_ndarray_max(size: int) -> None:
    rng = np.random.default_rng(size)
    for _ in range(50):
        values = rng.integers(-3, 4, size).astype(float)  # small integers: repeated maxima
        values[rng.random(size) < 0.1] = rng.choice([np.inf, -np.inf, -0.0])
        assert array_max(values) == values.max()


@pytest.mark.parametrize("where", [0, 2, 4])
def test_array_max_propagates_nan_like_numpy(where: int) -> None:
    values = np.array([1.0, 5.0, -2.0, 7.0, 3.0])
    values[where] = np.nan
    assert np.isnan(values.max()) and np.isnan(array_max(values))


def test_best_arms_lists_every_maximum_in_order() -> None:
    ties = np.empty(6, dtype=np.int64)
    scores = np.array([0.5, 2.0, -1.0, 2.0, 1.0, 2.0])
    n = best_arms(scores, ties)
    assert n == 3 and ties[:n].tolist() == np.flatnonzero(scores == scores.max()).tolist()
    assert best_arms(np.array([0.0, 3.0, 1.0]), ties) == 1 and ties[0] == 1
