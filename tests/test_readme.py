"""Every example of the README, of docs/ and of ``dpbandit --help`` runs as written.

Python blocks run as they are, or with a smaller horizon and fewer seeds where an example is long
(:func:`_reduced`). Every ``dpbandit`` command runs through :func:`dpbandit.cli.main` with
``--horizon`` at most 200, ``--seeds`` at most 2, ``--jobs 1`` and its output in a temporary folder: the
documented command and code path, only smaller. A sweep command runs on a copy of its config with
shortened horizons. The two setup commands (venv + pip) are run by ``.ci/run`` in a fresh clone, not
here. A few blocks are outlines rather than programs; :data:`OUTLINES` names them and says why.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from dpbandit import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

#: (document, first line of the block) -> why it is not run.
OUTLINES = {
    ("architecture.md", "class MyAgent(Agent):"): "the Agent contract as an outline",
    ("optim.md", "import numpy as np"): "a streaming loop over a user's own `stream` of (x, y)",
    (
        "sweeps.md",
        "from dask_jobqueue import SLURMCluster   # or PBSCluster, SGECluster, LSFCluster",
    ): "needs a SLURM cluster",
    ("performance.md", '"my-agent": Entry('): "an entry of `ENTRIES` in benchmarks/agents.py",
    ("performance.md", '"my-batched-agent": Entry('): "an entry of `ENTRIES` in benchmarks/agents.py",
}
#: ``dpbandit`` commands that need something a test machine lacks.
NOT_RUN = {
    "dpbandit sweep big.toml --scheduler tcp://head:8786": "needs a Dask scheduler",
}
#: The user's own module of the examples (``--env mymodule:MyBandit``, ``--agents mymodule:MyAgent``), written
#: into the folder the command runs from (the command imports from the current folder): the tests' toy bandit
#: under the examples' names, and an agent with an option that explores uniformly with that probability.
USER_MODULE = """from toy_bandit import ToyBandit as MyBandit, ToyBandit as CoinBandit  # noqa: F401
from dpbandit.agents import Agent


class MyAgent(Agent):
    def __init__(self, n_arms, dim, *, rng, horizon=None, explore=0.1):
        super().__init__(n_arms, dim, rng=rng, horizon=horizon)
        self.explore = explore

    def act(self, observation):
        return int(self.rng.integers(self.n_arms)) if self.rng.random() < self.explore else 0

    def update(self, observation, action, reward):
        pass
"""


def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """``(language, text)`` of every fenced code block of a markdown file."""
    blocks, language, lines = [], None, []
    for line in path.read_text().splitlines():
        fence = re.match(r"^\s*```(\w*)\s*$", line)
        if fence and language is None:
            language, lines = fence.group(1) or "text", []
        elif fence:
            blocks.append((language, "\n".join(lines) + "\n"))
            language = None
        elif language is not None:
            lines.append(line)
    return blocks


def _block_after(marker: str) -> str:
    text = README.read_text()
    match = re.search(re.escape(marker) + r".*?```python\n(.*?)```", text, flags=re.S)
    assert match, f"README block after {marker!r} not found"
    return match.group(1)


def _reduced(code: str) -> str:
    """The same code with ``horizon`` at most 300 and ``n_seeds`` / ``"seeds"`` at most 2."""
    code = re.sub(
        r'(\bhorizon=|"horizon": )([\d_]+)',
        lambda m: m.group(1) + str(min(int(m.group(2).replace("_", "")), 300)),
        code,
    )
    return re.sub(r'(\bn_seeds=|"seeds": )(\d+)', lambda m: m.group(1) + str(min(int(m.group(2)), 2)), code)


def _commands(text: str) -> list[str]:
    """``dpbandit ...`` command lines of a shell block, without their comments."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("dpbandit ") or line == "dpbandit" or line.startswith("dpbandit\t"):
            out.append(shlex.split(line, comments=True))
    return [" ".join(shlex.quote(a) for a in args) for args in out]


def _doc_commands() -> list[tuple[str, str]]:
    found = []
    for path in [README, *DOCS]:
        for language, text in fenced_blocks(path):
            if language in ("bash", "sh", "console"):
                found += [(path.name, command) for command in _commands(text)]
    found += [("dpbandit --help", command) for command in _commands(cli.EXAMPLES)]
    return found


def _run_command(command: str, tmp_path: Path, monkeypatch) -> int:
    """Run a documented ``dpbandit`` command, smaller (module docstring), inside ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    args = shlex.split(command)[1:]
    if args[:1] == ["sweep"]:
        config = tmp_path / Path(args[1]).name
        text = (ROOT / args[1]).read_text()
        config.write_text(
            re.sub(
                r"horizon = \[([^\]]*)\]",
                lambda m: "horizon = [" + ", ".join(str(int(v) // 10) for v in m.group(1).split(",")) + "]",
                text,
            )
        )
        return cli.main(
            ["sweep", str(config), "--out", str(tmp_path / "store"), "--backend", "inprocess", *args[2:]]
        )
    if args[:1] == ["list"]:
        return cli.main(args)
    if args[:1] == ["report"]:
        assert cli.main(["sweep", str(ROOT / "examples/sweep_small.toml"), "--dry-run"]) == 0
        _run_command("dpbandit sweep examples/sweep_small.toml", tmp_path, monkeypatch)
        return cli.main(["report", str(tmp_path / "store")])
    for option, most in (("--horizon", 200), ("--seeds", 2)):
        if option in args:
            i = args.index(option) + 1
            args[i] = str(min(int(args[i]), most))
        elif args[:1] != ["sweep"]:
            args += [option, str(most)]
    return cli.main([*args, "--jobs", "1"])


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


def test_custom_environment_example_runs_and_linucb_learns_on_it(capsys):
    code = _block_after("<!-- custom-env-example")
    start = code.index("class CoinBandit")
    assert len(code[start : code.index("df = run(")].strip().splitlines()) <= 30  # the environment: 30 lines
    namespace: dict = {}
    exec(compile(code, "README-custom-env", "exec"), namespace)
    df = namespace["df"]
    assert set(df["agent"]) == {"LinUCB", "random"} and (df["env_id"] == "CoinBandit").all()
    final = df[df["step"] == 1_000].groupby("agent")[["cumulative_regret", "cumulative_reward"]].mean()
    assert final.loc["LinUCB", "cumulative_regret"] < 0.6 * final.loc["random", "cumulative_regret"]
    assert final.loc["LinUCB", "cumulative_reward"] > final.loc["random", "cumulative_reward"]
    assert "final_regret_mean" in capsys.readouterr().out
    import gymnasium

    assert isinstance(namespace["CoinBandit"](), gymnasium.Env)
    assert not any(c.__module__.startswith("envs") for c in namespace["CoinBandit"].__mro__)  # not dpbandit/envs/


def test_mabwiser_example_takes_at_most_five_lines(capsys):
    pytest.importorskip("mabwiser")
    code = _block_after("<!-- mabwiser-example")
    assert len([line for line in code.splitlines() if line.strip()]) <= 5
    namespace: dict = {}
    exec(compile(code, "README-mabwiser", "exec"), namespace)
    assert set(namespace["df"]["agent"]) == {"MABWiser LinUCB"}
    assert "MABWiser LinUCB" in capsys.readouterr().out


def test_every_python_block_in_readme_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks may write plots under out/
    blocks = [text for language, text in fenced_blocks(README) if language == "python"]
    assert len(blocks) >= 4
    for i, code in enumerate(blocks):
        exec(compile(code, f"README-block-{i}", "exec"), {})
    assert (tmp_path / "out" / "quickstart.png").exists()


@pytest.mark.parametrize("doc", [d.name for d in DOCS])
def test_every_python_block_in_docs_runs(doc, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i, (language, code) in enumerate(fenced_blocks(ROOT / "docs" / doc)):
        if language != "python" or (doc, code.splitlines()[0]) in OUTLINES:
            continue
        exec(compile(_reduced(code), f"{doc}-block-{i}", "exec"), {})


def test_outlines_still_exist():
    firsts = {
        (d.name, text.splitlines()[0]) for d in DOCS for language, text in fenced_blocks(d) if text.strip()
    }
    assert set(OUTLINES) <= firsts


COMMANDS = _doc_commands()


def test_every_documented_command_is_collected():
    sources = {source for source, _ in COMMANDS}
    assert {"README.md", "sweeps.md", "dpbandit --help"} <= sources
    assert sum(source == "README.md" for source, _ in COMMANDS) >= 5
    assert sum(source == "dpbandit --help" for source, _ in COMMANDS) >= 5


@pytest.mark.parametrize(("source", "command"), COMMANDS, ids=[f"{s}: {c}" for s, c in COMMANDS])
def test_every_documented_command_runs(source, command, tmp_path, monkeypatch, capsys):
    if command in NOT_RUN:
        pytest.skip(NOT_RUN[command])
    if "mymodule:" in command:
        (tmp_path / "mymodule.py").write_text(USER_MODULE)
        monkeypatch.delitem(sys.modules, "mymodule", raising=False)
    assert _run_command(command, tmp_path, monkeypatch) == 0
    out = capsys.readouterr().out
    if shlex.split(command)[1:2] == ["list"]:
        assert "private" in out and "dpbandit/HDBSection54-v0" in out
    elif shlex.split(command)[1:2] not in (["sweep"], ["report"]):
        assert "ratio_to_random" in out or "final_regret_mean" in out
        assert (tmp_path / "out").is_dir()


def test_setup_commands_are_the_ones_ci_runs():
    blocks = [text.strip() for language, text in fenced_blocks(README) if language == "bash"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert blocks[0].startswith("python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/dpbandit")
    assert blocks[1].startswith('python3 -m venv .venv && .venv/bin/pip install -e ".[test]"')
    assert "sed -n" in ci and "README.md" in ci  # .ci/run takes both commands from the README itself
    assert shutil.which("bash")
