"""Shared sweep configs for the sweep tests (tiny cells: the whole directory runs in well under 90 s)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ENV = "dpbandit/LinearBandit-v0"

SMALL: dict[str, Any] = {
    "name": "t",
    "root_seed": 3,
    "seeds": 2,
    "n_points": 12,
    "grid": {
        "agent": ["linucb:alpha=0.5", "random", "dphdb"],
        "env_id": ENV,
        "epsilon": [1.0, 2.0],
        "horizon": 150,
        "env": {"n_arms": 3},
    },
    "zip": [{"env": {"dim": [3, 4]}}],
}
"""16 cells: (linucb, random, dphdb x 2 budgets) x 2 dims x 2 seeds."""


def _small_config(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(SMALL), **changes}


def _write_yaml(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="session")
def small_config() -> Callable[..., dict[str, Any]]:
    """``small_config(**changes)``: a deep copy of :data:`SMALL` with top-level keys replaced."""
    return _small_config


@pytest.fixture(scope="session")
def write_yaml() -> Callable[[Path, dict[str, Any]], Path]:
    """``write_yaml(path, config)``: write a config as YAML; return the path."""
    return _write_yaml


@pytest.fixture
def small_yaml(tmp_path: Path) -> Path:
    """:data:`SMALL` written to a YAML file."""
    return _write_yaml(tmp_path / "small.yaml", _small_config())
