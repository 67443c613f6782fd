"""Sweep configs: grid expansion with zipped axes, cell keys, TOML = YAML, and bad configs failing early."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from dpbandit.cli import main
from dpbandit.sweep import Cell, Sweep, SweepConfigError
from dpbandit.sweep.grid import combinations

ENV = "dpbandit/LinearBandit-v0"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_grid_is_cartesian_with_zipped_groups_and_budgets_only_for_private_agents(small_config):
    sweep = Sweep.from_dict(small_config())
    assert len(sweep.cells) == 16  # (linucb, random, dphdb@1, dphdb@2) x dim {3, 4} x seeds {0, 1}
    by_agent = {a: [c for c in sweep.cells if c.agent == a] for a in ("linucb:alpha=0.5", "random", "dphdb")}
    assert {c.epsilon for c in by_agent["random"]} == {None}  # random takes no budget: no duplicate cells
    assert sorted({c.epsilon for c in by_agent["dphdb"]}) == [1.0, 2.0]
    assert {c.env_kwargs for c in sweep.cells} == {(("dim", 3), ("n_arms", 3)), (("dim", 4), ("n_arms", 3))}
    assert [c.seed for c in sweep.cells] == [0] * 8 + [1] * 8  # seed index outermost
    assert len({c.key for c in sweep.cells}) == 16

    zipped = small_config(zip=[{"env": {"dim": [3, 4]}, "horizon": [100, 200]}])
    zipped["grid"].pop("horizon")
    pairs = {(dict(c.env_kwargs)["dim"], c.horizon) for c in Sweep.from_dict(zipped).cells}
    assert pairs == {(3, 100), (4, 200)}  # advanced together, not crossed


def test_agent_tables_take_options_and_labels(small_config):
    config = small_config(seeds=1)
    config["grid"]["agent"] = [
        {"agent": "linucb", "alpha": 0.5},
        {"agent": "dphdb", "label": "DP-HDB paper", "calibration": "paper", "epsilon": 3.0},
        {"agent": "dphdb", "label": "DP-HDB"},
    ]
    cells = Sweep.from_dict(config).cells
    assert [c.agent for c in cells if c.env_kwargs[0] == ("dim", 3)] == [
        "linucb:alpha=0.5", "DP-HDB paper", "DP-HDB", "DP-HDB"
    ]
    paper = next(c for c in cells if c.agent == "DP-HDB paper")
    assert paper.epsilon == 3.0  # an explicit option overrides the epsilon axis: one cell, not two
    name, factory = paper.factory()
    assert name == "DP-HDB paper" and factory.keywords == {"epsilon": 3.0, "calibration": "paper"}


def test_combinations_first_group_slowest():
    rows = list(combinations([{"a": [1, 2]}, {"b": ["x", "y"], "c": [10, 20]}]))
    assert rows == [
        {"a": 1, "b": "x", "c": 10},
        {"a": 1, "b": "y", "c": 20},
        {"a": 2, "b": "x", "c": 10},
        {"a": 2, "b": "y", "c": 20},
    ]


def test_cell_keys_depend_on_parameters_not_position(small_config):
    sweep = Sweep.from_dict(small_config())
    reordered = small_config()
    reordered["grid"]["agent"] = ["dphdb", "random", "linucb:alpha=0.5"]
    reordered["grid"]["epsilon"] = [2.0, 1.0]
    other = Sweep.from_dict(reordered)
    assert [c.key for c in other.cells] != [c.key for c in sweep.cells]  # order differs ...
    assert {c.key for c in other.cells} == {c.key for c in sweep.cells}  # ... same cells, same keys
    assert other.config_hash == sweep.config_hash
    root = Sweep.from_dict(small_config(root_seed=4))
    assert not {c.key for c in root.cells} & {c.key for c in sweep.cells}
    cell = sweep.cells[5]
    assert Cell.from_params(cell.params()) == cell and Cell.from_params(cell.params()).key == cell.key


def test_toml_and_yaml_examples_expand_to_the_same_sweep():
    toml = Sweep.from_file(EXAMPLES / "sweep_small.toml")
    yaml_ = Sweep.from_file(EXAMPLES / "sweep_small.yaml")
    assert len(toml.cells) == 30
    assert toml.config_hash == yaml_.config_hash
    assert [c.key for c in toml.cells] == [c.key for c in yaml_.cells]


def test_guide_config_blocks_are_the_example_sweep():
    guide = (EXAMPLES.parent / "docs" / "sweeps.md").read_text()
    toml_block = re.search(r"```toml\n(.*?)```", guide, flags=re.S).group(1)
    yaml_block = re.search(r"```yaml\n(.*?)```", guide, flags=re.S).group(1)
    example = Sweep.from_file(EXAMPLES / "sweep_small.toml").config_hash
    assert Sweep.from_dict(tomllib.loads(toml_block)).config_hash == example
    assert Sweep.from_dict(yaml.safe_load(yaml_block)).config_hash == example


def test_yaml_reads_exponent_floats(tmp_path):
    path = tmp_path / "c.yaml"  # PyYAML alone reads 1e-1 and 1e-5 as strings (YAML 1.1)
    path.write_text(f"seeds: 1\ngrid: {{agent: dphdb, env_id: {ENV}, epsilon: 1e-1, delta: 1e-5}}\n")
    (cell,) = Sweep.from_file(path).cells
    assert (cell.epsilon, cell.delta) == (0.1, 1e-5)


def _mutate(config, path, value):
    node = config
    for part in path[:-1]:
        node = node[part]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return config


_DELETE = object()

BAD = {
    "unknown agent": (("grid", "agent"), ["linucb", "linucbb"], r"grid\.agent\[1\]: Unknown agent='linucbb'.*'linucb'"),
    "unknown agent option": (("grid", "agent"), ["linucb:gamma=1"], r"grid\.agent\[0\]: Unknown option"),
    "unknown table option": (("grid", "agent"), [{"agent": "linucb", "gamma": 1}], r"grid\.agent\[0\]: Unknown option.*gamma"),
    "table without agent": (("grid", "agent"), [{"label": "x"}], r"grid\.agent\[0\]: expected an agent spec"),
    "repeated names": (("grid", "agent"), ["random", {"agent": "linucb", "label": "random"}], r"grid\.agent: agent names repeat"),
    "unknown env id": (("grid", "env_id"), "dpbandit/LinearBandid-v0", r"grid\.env_id: unknown env_id.*LinearBandit"),
    "negative epsilon": (("grid", "epsilon"), [1.0, -0.5], r"grid\.epsilon\[1\]: Expected epsilon .*> 0"),
    "delta above one": (("grid", "delta"), 1.5, r"grid\.delta: Expected delta in \(0, 1\)"),
    "empty axis": (("grid", "agent"), [], r"grid\.agent: the axis is empty"),
    "empty grid": (("grid",), {}, r"grid: the table is empty"),
    "missing grid": (("grid",), _DELETE, r"grid: required"),
    "missing env id": (("grid", "env_id"), _DELETE, r"grid\.env_id: required"),
    "zero seeds": (("seeds",), 0, r"seeds: Expected seeds >= 1"),
    "missing seeds": (("seeds",), _DELETE, r"seeds: required"),
    "unknown key": (("seed",), 3, r"seed: unknown key 'seed'.*Did you mean 'seeds'"),
    "unknown axis": (("grid", "epsilons"), [1.0], r"grid\.epsilons: unknown key.*'epsilon'"),
    "zip lengths": (("zip",), [{"env": {"dim": [3, 4]}, "delta": [0.1]}], r"zip\[0\]: zipped axes need equal lengths"),
    "axis twice": (("zip",), [{"horizon": [10, 20]}], r"zip\[0\]\.horizon: axis 'horizon' is already set in grid"),
    "bad horizon": (("grid", "horizon"), 0, r"grid\.horizon: Expected horizon >= 1"),
    "bad env kwarg": (("grid", "env", "n_arms"), 1, r"grid\.env: dpbandit/LinearBandit-v0 with .*n_arms"),
    "horizon as env kwarg": (("grid", "env", "horizon"), 5, r"grid\.env\.horizon: set it with the 'horizon'"),
    "bad backend": (("backend",), "threads", r"backend: Unknown backend='threads'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_names_the_key(case, small_config):
    path, value, message = BAD[case]
    with pytest.raises(SweepConfigError, match=message):
        Sweep.from_dict(_mutate(small_config(), path, value))


def test_budget_axis_without_private_agent_is_an_error(small_config):
    config = small_config()
    config["grid"]["agent"] = ["linucb", "random"]
    with pytest.raises(SweepConfigError, match=r"epsilon: no agent .* accepts epsilon"):
        Sweep.from_dict(config)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.toml", "seeds = 2\n[grid\nagent = 'linucb'\n", r"bad\.toml: malformed TOML: .*line 2"),
        ("bad.yaml", "seeds: 2\ngrid: {agent: [linucb\n", r"bad\.yaml: malformed YAML"),
        ("list.yaml", "- 1\n- 2\n", r"list\.yaml: expected a mapping of settings"),
        ("sweep.json", "{}", r"unsupported config format '\.json'"),
    ],
)
def test_malformed_files_fail_with_the_file_name(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SweepConfigError, match=message):
        Sweep.from_file(path)


def test_cli_rejects_bad_configs_before_any_work(tmp_path, capsys, small_config, write_yaml):
    bad = small_config()
    bad["grid"]["epsilon"] = [-1.0]
    out = tmp_path / "store"
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(write_yaml(tmp_path / "bad.yaml", bad)), "--out", str(out), "--no-progress"])
    assert exc.value.code == 2
    assert "grid.epsilon[0]" in capsys.readouterr().err
    assert not out.exists()  # no store, no cell ran
