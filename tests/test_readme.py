"""The README's custom-agent example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _block_after(marker: str) -> str:
    text = README.read_text()
    match = re.search(re.escape(marker) + r".*?```python\n(.*?)```", text, flags=re.S)
    assert match, f"README block after {marker!r} not found"
    return match.group(1)


def test_custom_agent_example_runs_and_learns(capsys):
    code = _block_after("<!-- custom-agent-example")
    assert len(code.strip().splitlines()) < 30 + 5  # the class itself is under 30 lines
    namespace: dict = {}
    exec(compile(code, "README-custom-agent", "exec"), namespace)
    df = namespace["df"]
    assert set(df["agent"]) == {"eps-greedy"}
    assert df["step"].max() == 500
    assert "eps-greedy" in capsys.readouterr().out
    agent_cls = namespace["EpsilonGreedy"]
    from dpbandit.agents import Agent

    assert issubclass(agent_cls, Agent)


def test_every_python_block_in_readme_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks may write plots under out/
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3
    for i, code in enumerate(blocks):
        exec(compile(code, f"README-block-{i}", "exec"), {})
    assert (tmp_path / "out" / "quickstart.png").exists()
