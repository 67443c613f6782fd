"""dpbandit: differentially private contextual bandits and private online/stochastic optimization.

Importing the package registers its Gymnasium ids: ``gymnasium.make("dpbandit/Digits-v0")`` works after
``import dpbandit``, whichever of the two was imported first. Registration waits for Gymnasium's own import
(a post-import hook), so ``dpbandit --help`` and agents that never touch an environment do not pay for
Gymnasium (about 0.2 s); the environment classes load on first use (:mod:`dpbandit.envs`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

__version__ = "0.1.0"


def _register_ids() -> None:
    being_imported = sys.modules.get("dpbandit.envs.registration")
    if being_imported is not None and not hasattr(being_imported, "register_envs"):
        return  # Gymnasium loaded from inside the registration module: dpbandit.envs registers when it is done
    from dpbandit.envs.registration import register_envs  # the root's one import from a lower layer

    register_envs()


class _Loader(importlib.abc.Loader):
    """Gymnasium's own loader, then the registration."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _register_ids()

    def __getattr__(self, name: str):  # noqa: ANN204  (get_resource_reader, is_package, ...: the real loader's)
        return getattr(self._loader, name)


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Finds nothing itself: it wraps the real finder's loader of ``gymnasium``, then steps aside."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201  (the finder protocol)
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


if "gymnasium" in sys.modules:
    _register_ids()
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
