"""The README's "Bring your own data" example runs as written and shows what it is there to show."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym

README = Path(__file__).resolve().parents[1] / "README.md"


def _data_example() -> str:
    match = re.search(r"<!-- data-example.*?```python\n(.*?)```", README.read_text(), flags=re.S)
    assert match, "README block after <!-- data-example not found"
    return match.group(1)


def test_data_example_sits_in_bring_your_own_data() -> None:
    text = README.read_text()
    section = text.index("## Bring your own data")
    assert text.index("## Bring your own agent") < section < text.index("<!-- data-example")
    assert 'gym.make("dpbandit/Digits-v0")' in _data_example()


def test_data_example_runs_from_a_csv_and_linucb_beats_random(capsys) -> None:
    namespace: dict = {}
    exec(compile(_data_example(), "README-data-example", "exec"), namespace)
    out = capsys.readouterr().out
    assert "accuracy" in out and "LinUCB" in out
    env = namespace["env"].unwrapped
    assert (env.n_rows, env.dim, env.n_arms) == (150, 4, 3)
    assert env.params["source"] == namespace["data"]["path"]
    assert namespace["reward"] == float(namespace["info"]["optimal_action"] == 0)
    df = namespace["df"]
    assert set(df["agent"]) == {"LinUCB", "random"} and df["step"].max() == 2_000
    final = df[df["step"] == 2_000].groupby("agent")["cumulative_regret"].mean()
    accuracy = 1 - final / 2_000
    assert accuracy["LinUCB"] > 0.7 and abs(accuracy["random"] - 1 / 3) < 0.05
    digits = namespace["digits"]
    assert isinstance(digits, gym.Env) and digits.unwrapped.spec.id == "dpbandit/Digits-v0"
    assert (digits.unwrapped.n_rows, digits.unwrapped.dim, digits.unwrapped.n_arms) == (1797, 64, 10)
