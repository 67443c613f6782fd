"""Regret (or observed-reward) plots: mean curve per agent with a 95% confidence band (seaborn).

Shared conventions of every plot of the project (this module and :mod:`dpbandit.sweep.report`):

* one colour per agent name across all plots (:func:`agent_colour`): registered names have fixed colours,
  other names a colour chosen by a hash of the name, so a colour never depends on which agents are plotted;
* private agents are drawn solid and labelled ``"name (private, eps=1, delta=1e-4)"``; agents without a
  privacy claim (the non-private references) are dashed and labelled ``"name (not private)"``;
* the title names the environment with d, K and T, the reward law / metric, and epsilon and delta next to
  each other (or, when private agents differ in budget, points to the legend, where each has its own).
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpbandit.harness.summary import NONNEGATIVE, bounded_interval

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Fixed colours of the registered agent names (references in greys/blues, private agents in warm colours).
#: A name not listed gets a colour from :data:`HASHED` by a hash of the name.
COLOURS: dict[str, str] = {
    "random": "#7f7f7f",
    "random-perarm": "#7f7f7f",
    "linucb": "#1f77b4",
    "greedy": "#7b4173",
    "shared-linucb": "#aec7e8",
    "oful": "#393b79",
    "dphdb": "#d62728",
    "dphdb-authors-code": "#ff9896",
    "dphdb-batched": "#8c564b",
    "dpucb": "#9467bd",
    "dpucb-block": "#9467bd",
    "dpucb-disjoint": "#c5b0d5",
    "batched-screening": "#2ca02c",
    "batched-screening-perarm": "#2ca02c",
    "batched-ridge": "#ff7f0e",
    "batched-ridge-perarm": "#ff7f0e",
    "batched-peeling": "#e377c2",
    "batched-peeling-perarm": "#e377c2",
    "fliphat": "#bcbd22",
    "fliphat-disjoint": "#dbdb8d",
    "private": "#17becf",  # cyan: apart from random's grey, DP-HDB's red and LinUCB's blue (default job)
    "private-perarm": "#17becf",
    "private-etc": "#9edae5",  # light cyan: the simple reference beside private
}
#: Colours for unregistered names: saturated, no greys (the random agent's). Two names may share one (a hash);
#: the legend label tells them apart.
HASHED: tuple[str, ...] = (
    "#800000", "#808000", "#000075", "#469990", "#f032e6", "#911eb4", "#e6194b", "#4363d8", "#3cb44b",
    "#9a6324", "#f58231", "#42d4f4",
)  # fmt: skip
#: Line style of agents without a privacy claim (matplotlib dash pattern); private agents are solid.
NONPRIVATE_DASHES = (4, 2)


def agent_colour(name: str) -> str:
    """The colour of agent ``name`` in every plot: :data:`COLOURS` for registered names, else a colour of
    :data:`HASHED` picked by the SHA-256 of the name (stable across runs and processes, unlike ``hash``)."""
    if name in COLOURS:
        return COLOURS[name]
    digest = hashlib.sha256(str(name).encode()).digest()
    return HASHED[int.from_bytes(digest[:4], "big") % len(HASHED)]


def palette(names: Any) -> dict[str, str]:
    """``{name: colour}`` for seaborn's ``palette=`` (:func:`agent_colour` of each name)."""
    return {name: agent_colour(name) for name in dict.fromkeys(names)}


def _values(series: pd.Series) -> str:
    values = sorted({float(v) for v in series.dropna()})
    return "/".join(f"{v:.3g}" for v in values)


def privacy_label(df: pd.DataFrame) -> str:
    """``"eps=1, delta=0.0001"`` for the private agents of ``df`` (claimed epsilon and delta; several values
    joined by ``/``; ``, user eps=...`` when an agent reports user-level epsilon), ``"no private agent"``."""
    private = df[df["claimed_epsilon"].notna()]
    if private.empty:
        return "no private agent"
    parts = [f"eps={_values(private['claimed_epsilon'])}"]
    if "delta" not in private:
        parts.append("delta not recorded")  # results written before delta was a column
    elif private["delta"].notna().any():
        parts.append(f"delta={_values(private['delta'])}")
    if "user_epsilon" in private and private["user_epsilon"].notna().any():
        parts.append(f"user eps={_values(private['user_epsilon'])}")
    return ", ".join(parts)


def legend_label(name: str, rows: pd.DataFrame) -> str:
    """``"name (private, eps=1, delta=0.0001)"`` or ``"name (not private)"`` from the agent's own rows; the
    trust model is added when it is not central (``"..., local"``; from a ``trust_model`` column, if any)."""
    if rows["claimed_epsilon"].notna().any():
        trust = set(rows["trust_model"].dropna()) - {"central"} if "trust_model" in rows else set()
        return f"{name} (private, {', '.join([privacy_label(rows), *sorted(trust)])})"
    return f"{name} (not private)"


def title_privacy(df: pd.DataFrame) -> str:
    """The privacy part of a title: :func:`privacy_label` when every private agent has the same budget, else
    ``"privacy per agent in the legend"`` (a title cannot pair several epsilons with several deltas)."""
    private = df[df["claimed_epsilon"].notna()]
    budgets = {privacy_label(rows) for _, rows in private.groupby("agent")}
    return privacy_label(df) if len(budgets) <= 1 else "privacy per agent in the legend"


def environment_label(df: pd.DataFrame) -> str:
    """``"env_id: d=.., K=.., T=.."`` from the frame (its ``env_id`` and the ``attrs["environment"]`` that
    :func:`dpbandit.harness.run` records; T from the last step when a frame has no attrs)."""
    names = ", ".join(map(str, df["env_id"].unique())) if "env_id" in df else "environment"
    shape = dict(df.attrs.get("environment", {}))
    shape.setdefault("horizon", int(df["step"].max()))
    parts = [f"{label}={shape[key]}" for label, key in (("d", "dim"), ("K", "n_arms")) if key in shape]
    return f"{names}: " + ", ".join([*parts, f"T={shape['horizon']:,}"])


def describe_rewards(env: Any) -> str | None:
    """A short description of an environment's rewards for plot titles, e.g. ``"logistic link, bernoulli
    rewards"`` or ``"identity link, gaussian noise sd 0.1"``; ``None`` when the environment says nothing.

    Reads only optional attributes of ``env.unwrapped``: ``link`` (its ``name``), ``problem.noise`` /
    ``problem.noise_std`` (the project's GLM environments) and ``reward_range`` (contract C1).
    """
    core = getattr(env, "unwrapped", env)
    parts = []
    link = getattr(core, "link", None)
    if link is not None:
        parts.append(f"{getattr(link, 'name', link)} link")
        problem = getattr(core, "problem", None)
        noise = getattr(problem, "noise", None)
        if noise == "native" and getattr(link, "distribution", None):
            parts.append(f"{link.distribution} rewards")
        elif noise == "gaussian":
            parts.append(f"gaussian noise sd {problem.noise_std:g}")
    bounds = getattr(core, "reward_range", None)
    if not parts and bounds is not None:
        parts.append(f"rewards in [{bounds[0]:g}, {bounds[1]:g}]")
    return ", ".join(parts) or None


def observed_metric(df: pd.DataFrame) -> tuple[str, str]:
    """``(column, axis label)`` to plot: cumulative pseudo-regret when the frame has it (finite), else the
    cumulative observed reward (environments without expected rewards: no regret is claimed)."""
    regret = df["cumulative_regret"] if "cumulative_regret" in df else None
    if regret is not None and regret.notna().all():
        return "cumulative_regret", "cumulative pseudo-regret"
    if "cumulative_reward" not in df:
        raise ValueError("Expected df to have finite cumulative_regret or a cumulative_reward column.")
    return "cumulative_reward", "cumulative observed reward\n(no expected rewards: no regret claimed)"


def draw_curves(df: pd.DataFrame, ax: Any) -> str:
    """Draw each agent's mean cumulative pseudo-regret (or observed reward) against the round on ``ax``,
    with a 95% band; return the plotted column.

    Regret when every row of ``df`` has it, else the cumulative observed reward (:func:`observed_metric`),
    and the y axis says which. Each agent has its :func:`agent_colour`; private agents are solid lines
    labelled with their claimed epsilon and delta (:func:`legend_label`), agents without a privacy claim
    dashed and labelled ``(not private)``. Bands are 95% t-intervals over seeds, clipped to [0, inf) for
    regret (:func:`dpbandit.harness.summary.t_interval`), unclipped for rewards (their range is unknown here).
    """
    import seaborn as sns  # imported here: seaborn and matplotlib take about 1 s

    column, axis_label = observed_metric(df)
    errorbar = bounded_interval(NONNEGATIVE if column == "cumulative_regret" else (-math.inf, math.inf))
    for name, rows in df.groupby("agent", sort=False):
        private = rows["claimed_epsilon"].notna().any()
        sns.lineplot(
            data=rows,
            x="step",
            y=column,
            errorbar=errorbar,
            ax=ax,
            color=agent_colour(name),
            label=legend_label(name, rows),
            linewidth=1.6,
            linestyle="-" if private else (0, NONPRIVATE_DASHES),
        )
    ax.set_xlabel("round t")
    ax.set_ylabel(axis_label)
    return column


def default_title(df: pd.DataFrame, *, env_label: str | None = None, reward_law: str | None = None) -> str:
    """Two lines: ``env_label`` (else :func:`environment_label`: env id, d, K, T) with ``(reward_law)``; what
    is plotted, over how many seeds, and the privacy budget (:func:`title_privacy`)."""
    head = env_label or environment_label(df)
    if reward_law:
        head = f"{head} ({reward_law})"
    what = "pseudo-regret" if observed_metric(df)[0] == "cumulative_regret" else "observed reward"
    n_seeds = df.groupby("agent")["seed"].nunique().min()
    return f"{head}\nmean cumulative {what}, 95% CI over {n_seeds} seeds; {title_privacy(df)}"


def plot_regret(
    df: pd.DataFrame,
    path: str | Path,
    *,
    title: str | None = None,
    log_y: bool = False,
    env_label: str | None = None,
    reward_law: str | None = None,
) -> Path:
    """Plot the mean cumulative pseudo-regret (or observed reward) against the round with 95% bands
    (:func:`draw_curves`: colours, private markers, metric); save a PNG.

    Args:
        df: tidy results from :func:`dpbandit.harness.run`.
        path: output file (the parent folder is created).
        title: the whole title, as given. Default: :func:`default_title` (environment and reward law, metric,
            seeds, epsilon and delta).
        log_y: logarithmic y axis (useful when agents differ by orders of magnitude).
        env_label: the environment's name for the default title.
        reward_law: the reward law (e.g. from :func:`describe_rewards`) for the default title.
    """
    from matplotlib.figure import Figure  # a bare Figure: no pyplot state, no backend switch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7.5, 4.8))
    ax = fig.subplots()
    draw_curves(df, ax)
    if log_y:
        ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title(title or default_title(df, env_label=env_label, reward_law=reward_law), fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    return path
