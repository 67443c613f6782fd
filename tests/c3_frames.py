"""Hand-built tidy result frames of the shape of contract C3 (docs/architecture.md), for the tests of the
summary table, the plots and the sweep report: every number is chosen, so each expected value is known."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

#: The columns added to dpbandit.harness.run's frame by contract C3.
NEW_COLUMNS = ("delta", "cumulative_reward", "cumulative_optimal", "user_epsilon", "compile_time")


def c3_frame(
    finals: Mapping[str, Sequence[float]],
    *,
    horizon: int = 10,
    steps: Sequence[int] = (1, 5, 10),
    private: Mapping[str, tuple[float, float]] | None = None,
    rewards: Mapping[str, Sequence[float]] | None = None,
    optimal: Mapping[str, Sequence[float]] | None = None,
    user_epsilon: Mapping[str, float] | None = None,
    regret: bool = True,
    new_columns: bool = True,
    env_id: str = "e",
) -> pd.DataFrame:
    """Rows (agent, seed, step) whose cumulative columns grow linearly to their final values.

    ``finals[agent][seed]`` is the final cumulative regret; ``rewards`` / ``optimal`` the final cumulative
    reward / count of optimal rounds (default: horizon - regret and NaN); ``private[agent] = (epsilon,
    delta)``; ``regret=False``: NaN regret (an environment without expected rewards, also NaN optimal counts);
    ``new_columns=False``: the frame of a release before C3 (no delta, reward, ... columns).
    """
    private, rewards, optimal, user_epsilon = private or {}, rewards or {}, optimal or {}, user_epsilon or {}
    rows = []
    for agent, values in finals.items():
        epsilon, delta = private.get(agent, (math.nan, math.nan))
        for seed, final in enumerate(values):
            reward = rewards[agent][seed] if agent in rewards else horizon - final
            best = optimal[agent][seed] if agent in optimal else math.nan
            for step in (*steps, horizon) if horizon not in steps else steps:
                share = step / horizon
                row = {
                    "env_id": env_id,
                    "agent": agent,
                    "seed": seed,
                    "step": step,
                    "cumulative_regret": final * share if regret else math.nan,
                    "regret": final / horizon if regret else math.nan,
                    "wall_time": 0.5 + seed,
                    "epsilon": epsilon * 0.9,  # the accountant's, below the claim
                    "claimed_epsilon": epsilon,
                }
                if new_columns:
                    row.update(
                        delta=delta,
                        cumulative_reward=reward * share,
                        cumulative_optimal=best * share if regret else math.nan,
                        user_epsilon=user_epsilon.get(agent, math.nan),
                        compile_time=0.25,
                    )
                rows.append(row)
    return pd.DataFrame(rows)
