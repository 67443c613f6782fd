"""Sweep cells and grid expansion: Cartesian axes, zipped groups, cells keyed by a hash of their parameters.

A *cell* is one unit of work: one agent configuration on one environment configuration, with one
privacy budget, one horizon and one seed index. It is a frozen record of plain JSON values, so it
pickles to any worker and hashes the same on every machine. Its key is a hash of its parameters
(never its position in the grid), so reordering or extending a grid never renames a finished cell
(coba's restartable results, STYLE.md practice 9).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from dpbandit.agents.specs import agent_factory

__all__ = ["Cell", "canonical_json", "combinations", "digest"]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal values give equal text (the input of every hash)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def digest(value: Any, length: int = 16) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``canonical_json(value)``."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:length]


@dataclass(frozen=True)
class Cell:
    """One sweep cell; everything :func:`dpbandit.sweep.backends.execute_cell` needs to run it.

    Attributes:
        agent: the agent's display name (the ``agent`` column of the results); it keys the agent's
            generator (:func:`dpbandit.harness.seeding.agent_rng`), as in ``dpbandit.harness.run``.
        spec: registered agent spec as parsed by :func:`dpbandit.agents.specs.parse_agent`
            (``"name"`` or ``"name:key=value,..."``).
        options: further constructor keyword arguments as sorted ``(name, value)`` pairs.
        env_id: registered environment id.
        env_kwargs: environment keyword arguments as sorted ``(name, value)`` pairs.
        epsilon: privacy budget passed to the agent, ``None`` if the agent takes none.
        delta: likewise for delta.
        horizon: rounds T (``None``: the environment's default).
        seed: seed index; the run's seed is ``seeding.seed_sequence(root_seed, seed)``.
        root_seed: root of every seed of the sweep.
        n_points: approximate number of recorded steps.
        spacing: ``"log"`` or ``"linear"`` recording grid.
    """

    agent: str
    spec: str
    options: tuple[tuple[str, Any], ...]
    env_id: str
    env_kwargs: tuple[tuple[str, Any], ...]
    epsilon: float | None
    delta: float | None
    horizon: int | None
    seed: int
    root_seed: int
    n_points: int
    spacing: str

    def params(self) -> dict[str, Any]:
        """The cell as a JSON-able dict (``env_kwargs`` as a mapping)."""
        out = asdict(self)
        out["options"] = dict(self.options)
        out["env_kwargs"] = dict(self.env_kwargs)
        return out

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Cell:
        """Inverse of :meth:`params`."""
        fields = dict(params)
        for name in ("options", "env_kwargs"):
            fields[name] = tuple(sorted(fields[name].items()))
        return cls(**fields)

    @functools.cached_property
    def key(self) -> str:
        """Hash of :meth:`params`: the cell's file name in the store."""
        return digest(self.params())

    def factory(self) -> tuple[str, Any]:
        """``(display name, factory)`` of the cell's agent, with its budget and options."""
        budget = {k: v for k, v in (("epsilon", self.epsilon), ("delta", self.delta)) if v is not None}
        return self.agent, agent_factory(self.spec, dict(self.options), budget)[1]

    def describe(self) -> str:
        """A short description, e.g. ``dphdb on dpbandit/X-v0 {dim=5} eps=1 T=1000 seed 3``."""
        parts = [self.agent, "on", self.env_id]
        if self.env_kwargs:
            parts.append("{" + ", ".join(f"{k}={v!r}" for k, v in self.env_kwargs) + "}")
        for name, value in (("eps", self.epsilon), ("delta", self.delta), ("T", self.horizon)):
            if value is not None:
                parts.append(f"{name}={value:g}")
        parts.append(f"seed {self.seed}")
        return " ".join(parts)


def combinations(groups: Sequence[Mapping[str, Sequence[Any]]]) -> Iterator[dict[str, Any]]:
    """Cartesian product of groups; inside a group the axes advance together (zipped).

    Each group maps axis names to equally long value lists. The first group varies slowest.

    >>> list(combinations([{"a": [1, 2]}, {"b": ["x", "y"], "c": [10, 20]}]))  # doctest: +NORMALIZE_WHITESPACE
    [{'a': 1, 'b': 'x', 'c': 10}, {'a': 1, 'b': 'y', 'c': 20},
     {'a': 2, 'b': 'x', 'c': 10}, {'a': 2, 'b': 'y', 'c': 20}]
    """
    rows = [[dict(zip(group, values)) for values in zip(*group.values())] for group in groups]
    for choice in itertools.product(*rows):
        yield {name: value for row in choice for name, value in row.items()}
