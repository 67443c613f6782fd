"""Plots on hand-built C3 frames: one colour per agent name whatever else is plotted, private agents marked in
the legend (non-private dashed), epsilon and delta side by side in the title, observed reward without
expected rewards, and the reward law of the project's environments."""

from __future__ import annotations

import gymnasium
import pytest
from c3_frames import c3_frame
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from dpbandit.harness import plot_regret
from dpbandit.harness.plot import (
    COLOURS,
    HASHED,
    agent_colour,
    default_title,
    describe_rewards,
    draw_curves,
)

PRIVATE = {"dphdb": (1.0, 1e-4), "batched-screening": (2.0, 1e-5)}


def _lines(df) -> dict[str, tuple[str, str]]:
    """``{legend label: (colour, line style)}`` of the curves drawn for ``df``."""
    ax = Figure().subplots()
    draw_curves(df, ax)
    handles, labels = ax.get_legend_handles_labels()
    return {
        label: (to_hex(h.get_color()), h.get_linestyle()) for h, label in zip(handles, labels, strict=True)
    }


def test_one_colour_per_agent_name_whatever_else_is_plotted() -> None:
    first = _lines(c3_frame({"dphdb": [1.0, 2.0], "linucb": [1.0, 1.0], "mine": [3.0, 4.0]}, private=PRIVATE))
    second = _lines(
        c3_frame({"mine": [3.0, 4.0], "random": [5.0, 5.0], "dphdb": [1.0, 2.0]}, private=PRIVATE)
    )
    colour = {label.split(" ")[0]: value[0] for label, value in {**first, **second}.items()}
    for name in ("dphdb", "mine"):  # in both plots, with different companions and order
        assert [v[0] for k, v in first.items() if k.startswith(name)] == [colour[name]]
        assert [v[0] for k, v in second.items() if k.startswith(name)] == [colour[name]]
    assert colour["dphdb"] == COLOURS["dphdb"] and colour["mine"] == agent_colour("mine") in HASHED
    assert len({colour[n] for n in ("dphdb", "linucb", "random")}) == 3
    assert agent_colour("my-agent:alpha=2") == agent_colour("my-agent:alpha=2")  # a hash, not Python's hash()


def test_private_agents_are_labelled_and_references_dashed() -> None:
    lines = _lines(
        c3_frame(
            {"dphdb": [1.0, 2.0], "batched-screening": [1.0, 2.0], "linucb": [1.0, 1.0]}, private=PRIVATE
        )
    )
    assert set(lines) == {
        "dphdb (private, eps=1, delta=0.0001)",
        "batched-screening (private, eps=2, delta=1e-05)",
        "linucb (not private)",
    }
    assert lines["dphdb (private, eps=1, delta=0.0001)"][1] == "-"
    assert lines["linucb (not private)"][1] == "--"


def test_title_shows_epsilon_and_delta_side_by_side_and_the_reward_law() -> None:
    df = c3_frame(
        {"dphdb": [1.0, 2.0, 3.0], "random": [4.0, 5.0, 6.0]}, private=PRIVATE, user_epsilon={"dphdb": 4.0}
    )
    title = default_title(df, env_label="dpbandit/X-v0: d=5", reward_law="logistic link, bernoulli rewards")
    head, body = title.split("\n")
    assert head == "dpbandit/X-v0: d=5 (logistic link, bernoulli rewards)"
    assert body == "mean cumulative pseudo-regret, 95% CI over 3 seeds; eps=1, delta=0.0001, user eps=4"
    assert default_title(c3_frame({"random": [1.0, 2.0]})).endswith("over 2 seeds; no private agent")


def test_without_expected_rewards_the_observed_reward_is_plotted(tmp_path) -> None:
    df = c3_frame(
        {"linucb": [0.0] * 2, "random": [0.0] * 2},
        rewards={"linucb": [9.0, 8.0], "random": [5.0, 4.0]},
        regret=False,
    )
    ax = Figure().subplots()
    assert draw_curves(df, ax) == "cumulative_reward"
    assert ax.get_ylabel().startswith("cumulative observed reward") and "no regret" in ax.get_ylabel()
    assert max(max(line.get_ydata()) for line in ax.get_lines()) == pytest.approx(8.5)  # linucb's mean at T
    assert "mean cumulative observed reward" in default_title(df)
    assert plot_regret(df, tmp_path / "r.png").stat().st_size > 10_000


def test_reward_law_of_the_project_environments() -> None:
    logistic = gymnasium.make("dpbandit/LogisticBandit-v0")
    assert describe_rewards(logistic) == "logistic link, bernoulli rewards"
    linear = gymnasium.make("dpbandit/LinearBandit-v0")
    assert describe_rewards(linear) == "identity link, gaussian noise sd 0.1"
    assert describe_rewards(object()) is None


def test_band_of_regret_stays_nonnegative() -> None:
    df = c3_frame({"a": [0.0, 0.0, 30.0]})  # a t-band around the mean 10 would reach below 0
    ax = Figure().subplots()
    draw_curves(df, ax)
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == 0.0
