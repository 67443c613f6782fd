"""The examples in docs/envs.md and in the envs docstrings run as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import dpbandit.envs.classification
import dpbandit.envs.glm
import dpbandit.envs.wrappers

DOC = Path(__file__).resolve().parents[2] / "docs" / "envs.md"


def test_docs_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert blocks
    namespace: dict = {}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    assert namespace["obs"].shape == (8, 10)
    assert namespace["env"].unwrapped.params["link"] == "logistic"


def test_docstring_examples_run() -> None:
    for module in (dpbandit.envs.glm, dpbandit.envs.wrappers, dpbandit.envs.classification):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0


def test_public_bounds_example_runs_and_uses_the_bounds() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    block = next(b for b in blocks if "feature_bounds" in b)
    namespace: dict = {}
    exec(compile(block, str(DOC), "exec"), namespace)
    env = namespace["env"].unwrapped
    assert env.params["scaling"] == "feature_bounds" and env.params["preprocess"] is None
    assert env.features.min() >= -1.0 and env.features.max() <= 1.0
