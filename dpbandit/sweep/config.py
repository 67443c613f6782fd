"""Sweep configuration: read TOML / YAML, validate every entry, expand into cells.

Everything is checked before any work starts, and every error names the offending key
(``grid.epsilon[1]``, ``zip[0].horizon``, ``seeds``, ...). The format (docs/sweeps.md)::

    name = "small"            # names the default store directory
    root_seed = 0             # every seed derives from it
    seeds = 4                 # seed indices 0..3, or an explicit list [0, 5, 9]
    n_points = 200            # recorded steps per run (harness default 1000)
    spacing = "log"

    [grid]                    # Cartesian axes; a scalar is a one-value axis
    agent = ["linucb:alpha=0.5", {agent = "dphdb", label = "DP-HDB", calibration = "paper"}]
    env_id = "dpbandit/LinearBandit-v0"
    epsilon = [0.5, 1.0, 2.0] # passed only to agents that accept it
    env.n_arms = 5            # environment keyword arguments, one axis each

    [[zip]]                   # axes that advance together (equal lengths)
    env.dim = [5, 10, 20]
    horizon = [1000, 2000, 4000]

Execution settings (``backend``, ``workers``, ``scheduler``) may also appear at the top level; they
do not change results, so they are not part of the config hash.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dpbandit import _validate
from dpbandit.agents.specs import agent_factory
from dpbandit.sweep.grid import Cell, combinations, digest

__all__ = ["BACKENDS", "Execution", "Sweep", "SweepConfigError", "read_config"]

BACKENDS = ("processes", "inprocess", "dask")
_SETTINGS = ("name", "root_seed", "seeds", "n_points", "spacing", "grid", "zip", "backend", "workers", "scheduler")
_AXES = ("agent", "env_id", "env", "epsilon", "delta", "horizon")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class SweepConfigError(ValueError):
    """A sweep configuration is malformed or invalid; the message names the key."""


class _Loader(yaml.SafeLoader):
    """YAML loader that reads ``1e-5`` as a float (YAML 1.2; PyYAML's 1.1 default reads a string)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def read_config(path: str | Path) -> dict[str, Any]:
    """Read a ``.toml``, ``.yaml`` or ``.yml`` sweep file into a dict (no validation)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise SweepConfigError(f"{path}: unsupported config format {suffix!r}; use .toml, .yaml or .yml.")
    try:
        text = path.read_text()
    except OSError as err:
        raise SweepConfigError(f"{path}: cannot read the config: {err}") from err
    toml = _tomllib() if suffix == ".toml" else None
    try:
        data = toml.loads(text) if toml else yaml.load(text, Loader=_Loader)
    except (ValueError, yaml.YAMLError) as err:  # TOMLDecodeError is a ValueError
        kind = "TOML" if suffix == ".toml" else "YAML"
        raise SweepConfigError(f"{path}: malformed {kind}: {err}") from err
    if not isinstance(data, Mapping):
        raise SweepConfigError(f"{path}: expected a mapping of settings at the top level, got {type(data).__name__}.")
    return dict(data)


def _tomllib() -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser as the tomli package
        try:
            import tomli as tomllib
        except ModuleNotFoundError as err:
            raise SweepConfigError("reading TOML on Python 3.10 needs tomli: pip install tomli (or use YAML)") from err
    return tomllib


@dataclass(frozen=True)
class Execution:
    """Where cells run; never changes results. ``None`` fields defer to the caller's defaults."""

    backend: str | None = None
    workers: int | None = None
    scheduler: str | None = None


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: its cells (seed index outermost, then the grid in declared order).

    Build with :meth:`from_dict` or :meth:`from_file`.
    """

    name: str
    cells: tuple[Cell, ...]
    config: dict[str, Any]
    execution: Execution

    @property
    def config_hash(self) -> str:
        """Hash of the set of cell keys: two configs that expand to the same cells share it."""
        return digest(sorted(cell.key for cell in self.cells), length=64)

    @classmethod
    def from_file(cls, path: str | Path) -> Sweep:
        """Read and validate a TOML / YAML sweep file."""
        return cls.from_dict(read_config(path), source=str(path))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "config") -> Sweep:
        """Validate a config mapping (the file's structure) and expand it into cells."""
        try:
            return _build(data)
        except SweepConfigError as err:
            raise SweepConfigError(f"{source}: {err}") from None


def _fail(key: str, message: str) -> SweepConfigError:
    return SweepConfigError(f"{key}: {message}")


def _checked(key: str, check: Any, value: Any, **options: Any) -> Any:
    """Run a ``dpbandit._validate`` helper on ``value``; re-raise its error prefixed with ``key``."""
    name = key.rsplit(".", 1)[-1].split("[")[0]
    try:
        return check(**{name: value}, **options)
    except (TypeError, ValueError) as err:
        raise _fail(key, str(err)) from None


def _unknown(key: str, given: str, known: Sequence[str]) -> SweepConfigError:
    close = difflib.get_close_matches(given, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return _fail(key, f"unknown key {given!r}; expected one of {', '.join(known)}.{hint}")


def _build(data: Mapping[str, Any]) -> Sweep:
    if not isinstance(data, Mapping):
        raise _fail("config", f"expected a mapping, got {type(data).__name__}.")
    for key in data:
        if key not in _SETTINGS:
            raise _unknown(str(key), str(key), _SETTINGS)
    name = data.get("name", "sweep")
    if not isinstance(name, str) or not _NAME.match(name):
        raise _fail("name", f"expected letters, digits, '_', '.' or '-', got {name!r}.")
    settings = {
        "root_seed": _checked("root_seed", _validate.integer, data.get("root_seed", 0), minimum=0),
        "seeds": _seeds(data.get("seeds")),
        "n_points": _checked("n_points", _validate.integer, data.get("n_points", 1000), minimum=2),
        "spacing": _checked("spacing", _validate.one_of, data.get("spacing", "log"), choices=("log", "linear")),
    }
    groups = _groups(data.get("grid"), data.get("zip", []))
    cells = _expand(groups, settings)
    _check_environments(cells)
    config = {"name": name, **settings, "groups": groups}
    return Sweep(name=name, cells=tuple(cells), config=config, execution=_execution(data))


def _seeds(value: Any) -> list[int]:
    if value is None:
        raise _fail("seeds", "required: a number of seeds (indices 0..n-1) or a list of seed indices.")
    if isinstance(value, list):
        if not value:
            raise _fail("seeds", "the list of seed indices is empty.")
        seeds = [_checked(f"seeds[{i}]", _validate.integer, s, minimum=0) for i, s in enumerate(value)]
        if len(set(seeds)) != len(seeds):
            raise _fail("seeds", f"seed indices repeat: {seeds}.")
        return seeds
    return list(range(_checked("seeds", _validate.integer, value, minimum=1)))


def _groups(grid: Any, zipped: Any) -> list[dict[str, list[Any]]]:
    """Axis groups: one per ``grid`` axis, one per ``[[zip]]`` table; values validated."""
    if grid is None:
        raise _fail("grid", "required: a table of axes with at least 'agent' and 'env_id'.")
    if not isinstance(zipped, list):
        raise _fail("zip", f"expected a list of tables ([[zip]] in TOML), got {type(zipped).__name__}.")
    axes: dict[str, str] = {}  # axis -> where it was declared
    groups = [{axis: values} for axis, values in _axes("grid", grid, axes, zipped=False).items()]
    for i, table in enumerate(zipped):
        group = _axes(f"zip[{i}]", table, axes, zipped=True)
        lengths = {axis: len(values) for axis, values in group.items()}
        if len(set(lengths.values())) > 1:
            raise _fail(f"zip[{i}]", f"zipped axes need equal lengths, got {lengths}.")
        groups.append(group)
    for required in ("agent", "env_id"):
        if required not in axes:
            raise _fail(f"grid.{required}", "required axis is missing.")
    return groups


def _axes(where: str, table: Any, seen: dict[str, str], *, zipped: bool) -> dict[str, list[Any]]:
    if not isinstance(table, Mapping):
        raise _fail(where, f"expected a table of axes, got {type(table).__name__}.")
    if not table:
        raise _fail(where, "the table is empty.")
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _AXES:
            raise _unknown(f"{where}.{key}", str(key), _AXES)
        if key != "env":
            flat[key] = value
            continue
        if not isinstance(value, Mapping) or not value:
            raise _fail(f"{where}.env", "expected a non-empty table of environment keyword arguments.")
        for kwarg, kwarg_value in value.items():
            if kwarg in ("horizon", "id"):
                raise _fail(f"{where}.env.{kwarg}", "set it with the 'horizon' / 'env_id' axis.")
            flat[f"env.{kwarg}"] = kwarg_value
    out = {}
    for axis, value in flat.items():
        key = f"{where}.{axis}"
        if axis in seen:
            raise _fail(key, f"axis {axis!r} is already set in {seen[axis]}; an axis appears once.")
        seen[axis] = where
        if zipped and not isinstance(value, list):
            raise _fail(key, f"zipped axes are lists, got {value!r}.")
        values = value if isinstance(value, list) else [value]
        if not values:
            raise _fail(key, "the axis is empty, so the grid has no cells.")
        out[axis] = [_value(f"{key}[{j}]" if isinstance(value, list) else key, axis, v) for j, v in enumerate(values)]
        if axis == "agent" and not zipped:  # zipped entries may share a name (one agent across settings)
            names = [entry["agent"] for entry in out[axis]]
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise _fail(key, f"agent names repeat: {repeated}; give the entries distinct 'label's.")
    return out


def _value(key: str, axis: str, value: Any) -> Any:
    """Validate one axis value; return it normalised (floats for budgets)."""
    if axis == "agent":
        return _agent_entry(key, value)
    if axis == "env_id":
        if not isinstance(value, str):
            raise _fail(key, f"expected an environment id string, got {value!r}.")
        return _env_id(key, value)
    if axis == "epsilon":
        return _checked(key, _validate.positive, value)
    if axis == "delta":
        return _checked(key, _validate.probability, value)
    if axis == "horizon":
        return _checked(key, _validate.integer, value, minimum=1)
    try:  # environment keyword argument: any JSON value
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise _fail(key, f"expected a JSON-like value (number, string, bool, list, table), got {value!r}.") from None
    return value


def _agent(key: str, entry: Mapping[str, Any], budget: dict[str, Any]) -> tuple[str, Any]:
    """``(display, factory)`` of a normalised agent entry; errors (unknown agent or option) name ``key``."""
    try:
        return agent_factory(entry["spec"], entry["options"], budget)
    except ImportError as err:
        raise _fail(key, f"agent {entry['spec']!r} cannot be imported: {err}") from None
    except (TypeError, ValueError) as err:
        raise _fail(key, str(err)) from None


def _agent_entry(key: str, value: Any) -> dict[str, Any]:
    """Normalise ``"spec"`` or ``{agent = "spec", label = "...", **options}`` to ``{agent, spec, options}``.

    ``agent`` is the display name: the label if given, else the spec with the options appended
    (``{agent = "linucb", alpha = 0.5}`` displays as ``"linucb:alpha=0.5"``, like that spec string).
    """
    if isinstance(value, str):
        spec, options, label = value.strip(), {}, None
    elif isinstance(value, Mapping) and isinstance(value.get("agent"), str):
        options = {k: v for k, v in value.items() if k not in ("agent", "label")}
        spec, label = value["agent"].strip(), value.get("label")
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise _fail(f"{key}.label", f"expected a non-empty string, got {label!r}.")
        for name, option in options.items():
            _value(f"{key}.{name}", "option", option)
    else:
        raise _fail(key, f"expected an agent spec 'name[:key=value,...]' or a table with 'agent', got {value!r}.")
    entry = {"spec": spec, "options": options}
    display = _agent(key, entry, {})[0]
    if label is None and options:
        sep = "," if ":" in display else ":"
        label = display + sep + ",".join(f"{k}={v}" for k, v in options.items())
    return {"agent": (label or display).strip(), **entry}


def _env_id(key: str, env_id: str) -> str:
    """A registered id, or ``"module:EnvId-v0"`` / ``"package.module:ClassName"`` (as ``run --env``)."""
    import gymnasium

    if isinstance(env_id, str) and ":" in env_id:
        from dpbandit.harness.environments import check_env_source

        try:
            check_env_source(env_id, n_jobs=1)
        except (TypeError, ValueError) as err:
            raise _fail(key, str(err)) from None
        return env_id
    if env_id not in gymnasium.registry:
        close = difflib.get_close_matches(env_id, list(gymnasium.registry), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise _fail(key, f"unknown env_id={env_id!r}.{hint}")
    return env_id


def _expand(groups: list[dict[str, list[Any]]], settings: dict[str, Any]) -> list[Cell]:
    """Cells for every seed and grid point, budgets kept only for agents that accept them; unique."""
    cells: dict[str, Cell] = {}
    takes: dict[str, set[str]] = {}  # agent spec -> the budget keywords its factory receives
    for seed in settings["seeds"]:
        for point in combinations(groups):
            budget = {k: point[k] for k in ("epsilon", "delta") if k in point}
            entry = point["agent"]
            given = getattr(_agent("grid.agent", entry, budget)[1], "keywords", {})
            takes.setdefault(entry["agent"], set()).update(k for k in budget if k in given)
            cell = Cell(
                agent=entry["agent"],
                spec=entry["spec"],
                options=tuple(sorted(entry["options"].items())),
                env_id=point["env_id"],
                env_kwargs=tuple(sorted((k[4:], v) for k, v in point.items() if k.startswith("env."))),
                epsilon=None if given.get("epsilon") is None else float(given["epsilon"]),
                delta=None if given.get("delta") is None else float(given["delta"]),
                horizon=point.get("horizon"),
                seed=seed,
                root_seed=settings["root_seed"],
                n_points=settings["n_points"],
                spacing=settings["spacing"],
            )
            cells.setdefault(cell.key, cell)
    for budget in ("epsilon", "delta"):
        if any(budget in group for group in groups) and not any(budget in t for t in takes.values()):
            raise _fail(budget, f"no agent in {sorted(takes)} accepts {budget}, so the axis has no effect.")
    return list(cells.values())


def _check_environments(cells: Sequence[Cell]) -> None:
    """Build each distinct environment once, so bad keyword arguments fail before any work."""
    from dpbandit.harness.run import make_env

    for env_id, env_kwargs, horizon in dict.fromkeys((c.env_id, c.env_kwargs, c.horizon) for c in cells):
        try:
            make_env(env_id, horizon, dict(env_kwargs)).close()
        except (TypeError, ValueError, KeyError) as err:
            options = {**dict(env_kwargs), **({"horizon": horizon} if horizon is not None else {})}
            raise _fail("grid.env", f"{env_id} with {options} cannot be built: {err}") from None


def _execution(data: Mapping[str, Any]) -> Execution:
    backend, workers, scheduler = data.get("backend"), data.get("workers"), data.get("scheduler")
    if backend is not None:
        _checked("backend", _validate.one_of, backend, choices=BACKENDS)
    if workers is not None:
        workers = _checked("workers", _validate.integer, workers, minimum=1)
    if scheduler is not None and not isinstance(scheduler, str):
        raise _fail("scheduler", f"expected a Dask scheduler address like 'tcp://host:8786', got {scheduler!r}.")
    return Execution(backend=backend, workers=workers, scheduler=scheduler)
