"""The results carry each agent's trust model (issue 30): ``central`` / ``shuffle`` / ``local`` from its
guarantee, empty for a non-private agent, and the local epsilon of a report next to the central one."""

from __future__ import annotations

import functools

import numpy as np

from dpbandit.agents import agent_class
from dpbandit.harness.run import run
from dpbandit.harness.summary import final_regret_table


def test_results_and_table_have_the_trust_model_and_local_epsilon() -> None:
    agents = {
        "linucb": agent_class("shared-linucb"),
        "dpucb": functools.partial(agent_class("dpucb"), epsilon=1.0),
        "ldp": functools.partial(agent_class("ldp-linucb"), epsilon=1.0, feature_bound=1.0),
        "shuffle": functools.partial(agent_class("shuffle-linucb"), epsilon=1.0, feature_bound=1.0, batch=50),
    }
    df = run("dpbandit/PerArmLinearBandit-v0", agents, n_seeds=2, horizon=200, n_points=5, progress=False)
    table = final_regret_table(df, reference=None).set_index("agent")
    assert table.loc[["linucb", "dpucb", "ldp", "shuffle"], "trust_model"].tolist() == ["", "central", "local",
                                                                                         "shuffle"]
    assert np.isnan(table.loc["dpucb", "local_epsilon"]) and np.isnan(table.loc["linucb", "local_epsilon"])
    assert table.loc["ldp", "local_epsilon"] == table.loc["ldp", "epsilon"]
    assert table.loc["shuffle", "local_epsilon"] > table.loc["shuffle", "epsilon"]
