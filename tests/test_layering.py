"""Dependencies point down (docs/architecture.md): every import of every module, read with ``ast``.

Layers, bottom to top: the package root, ``_validate`` and ``_numba_cache``; ``privacy`` and ``envs``; ``optim``; ``agents``;
``audit`` and ``harness``; ``sweep``; ``cli``. A module may import its own subpackage and lower layers only
(imports inside functions and under ``TYPE_CHECKING`` count too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "dpbandit": 0,
    "dpbandit._validate": 0,
    "dpbandit._numba_cache": 0,
    "dpbandit.privacy": 1,
    "dpbandit.envs": 1,
    "dpbandit.optim": 2,
    "dpbandit.agents": 3,
    "dpbandit.audit": 4,
    "dpbandit.harness": 4,
    "dpbandit.sweep": 5,
    "dpbandit.cli": 6,
}


#: The one upward import allowed: the package root registers the Gymnasium ids, so that
#: ``gymnasium.make("dpbandit/...")`` works after ``import dpbandit`` (issue 38 item 2), once Gymnasium loads.
ROOT_REGISTRATION = {("dpbandit", "dpbandit.envs.registration")}


def _unit(module: str) -> str:
    """The layer unit of a module: its subpackage of dpbandit (``dpbandit.optim``, ``dpbandit.envs``) or the root."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else "dpbandit"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(module: str, source: str, *, is_package: bool = False) -> set[str]:
    """Absolute names of the project modules that ``source`` (module ``module``) imports, relative ones
    resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            names = [".".join([*base, node.module] if node.module else base)]
        else:
            continue
        found.update(n for n in names if n.split(".")[0] == "dpbandit")
    return found


MODULES = sorted((ROOT / "dpbandit").rglob("*.py"))


def _edges(paths) -> set[tuple[str, str]]:
    return {
        (_module_name(p), imported)
        for p in paths
        for imported in _imports(_module_name(p), p.read_text(), is_package=p.name == "__init__.py")
    }


def _upward(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    bad = set()
    for importer, imported in edges:
        a, b = _unit(importer), _unit(imported)
        if (importer, imported) in ROOT_REGISTRATION:
            continue
        if a != b and LAYERS[b] >= LAYERS[a]:
            bad.add((importer, imported))
    return bad


def test_every_module_is_in_a_layer() -> None:
    assert {_unit(_module_name(p)) for p in MODULES} <= set(LAYERS)


def test_privacy_imports_nothing_from_agents_optim_harness_or_sweep() -> None:
    privacy = [p for p in MODULES if _unit(_module_name(p)) == "dpbandit.privacy"]
    assert len(privacy) >= 7
    for importer, imported in _edges(privacy):
        allowed = ("dpbandit", "dpbandit._validate", "dpbandit._numba_cache", "dpbandit.privacy")
        assert _unit(imported) in allowed, (importer, imported)


def test_dependencies_point_down() -> None:
    assert _upward(_edges(MODULES)) == set()


@pytest.mark.parametrize(
    "source,imported",
    [
        ("from dpbandit.agents.dpucb import DPUCB\n", "dpbandit.agents.dpucb"),
        ("def f():\n    from ..optim import pofw\n", "dpbandit.optim"),
        ("if TYPE_CHECKING:\n    import dpbandit.audit.core\n", "dpbandit.audit.core"),
    ],
)
def test_the_check_sees_upward_imports(source: str, imported: str) -> None:
    found = _imports("dpbandit.privacy.fake", source)
    assert found == {imported}
    assert _upward({("dpbandit.privacy.fake", name) for name in found}) == {
        ("dpbandit.privacy.fake", imported)
    }
    assert _upward({("dpbandit.cli", name) for name in found}) == set()  # the top layer may import them
