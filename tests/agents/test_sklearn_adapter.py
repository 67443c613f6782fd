"""The sklearn-style adapter: MABWiser's LinUCB as a dpbandit agent in <= 5 lines, close to our LinUCB."""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

pytest.importorskip("mabwiser")

from mabwiser.mab import LearningPolicy  # noqa: E402

from dpbandit.agents.linear import LinUCB  # noqa: E402
from dpbandit.agents.sklearn_adapter import STALENESS, SklearnBandit, mabwiser_agent  # noqa: E402
from dpbandit.harness import final_regret_table, run  # noqa: E402

run_module = importlib.import_module("dpbandit.harness.run")


def test_mabwiser_linucb_regret_within_10_percent_of_builtin_linucb() -> None:
    # T = 5,000 on the LinearBandit-v0 preset (K = 5, d = 10), 20 paired seeds; alpha = 1, lambda = 1 on both.
    agents = {"mabwiser": mabwiser_agent(LearningPolicy.LinUCB(alpha=1.0, l2_lambda=1.0)), "linucb": LinUCB}
    df = run("dpbandit/LinearBandit-v0", agents, n_seeds=20, root_seed=1, horizon=5_000, progress=False)
    table = final_regret_table(df, reference="linucb").set_index("agent")
    ratio = table.loc["mabwiser", "final_regret_mean"] / table.loc["linucb", "final_regret_mean"]
    assert 0.9 <= ratio <= 1.1, table


def test_warm_start_is_round_robin_until_the_first_fit() -> None:
    agent = SklearnBandit(3, 2, rng=np.random.default_rng(0), model=_Recorder)
    x = np.array([0.5, -0.5])
    for t in range(3):
        assert agent.act(x) == t  # round-robin over the arms
        agent.update(x, t, 1.0)
    assert agent.model.calls == [("fit", 3)]  # warm-up rows go to fit in one call
    assert agent._fitted and agent.act(x) == 2  # the model predicts from now on


def test_updates_are_batched_and_never_staler_than_the_documented_fraction() -> None:
    agent = SklearnBandit(2, 1, rng=np.random.default_rng(0), model=_Recorder, batch_size=8)
    x = np.ones(1)
    for _ in range(400):
        agent.update(x, agent.act(x), 0.0)
    sizes = [n for name, n in agent.model.calls if name == "partial_fit"]
    assert sizes[0] == 1 and max(sizes) == 8  # every round at first, then batches capped at batch_size
    seen = 2  # warm-up rows
    for n in sizes:
        assert n == min(8, max(1, (seen + n) // STALENESS))  # flushed as soon as the limit is reached
        seen += n
    assert sum(n for _, n in agent.model.calls) + len(agent._rows) == 400


def test_library_seed_comes_from_the_agent_generator() -> None:
    seeds = [SklearnBandit(2, 1, rng=np.random.default_rng(s), model=_Recorder).model.seed for s in (0, 0, 1)]
    assert seeds[0] == seeds[1] != seeds[2]
    assert seeds[0] == int(np.random.default_rng(0).integers(2**31))


def test_block_path_plays_like_act_update_and_factories_pickle(monkeypatch) -> None:
    agents = {"mab": mabwiser_agent(LearningPolicy.LinUCB(), batch_size=16)}
    options = dict(n_seeds=2, horizon=400, progress=False)
    fast = run("dpbandit/LinearBandit-v0", agents, **options).drop(columns="wall_time")
    monkeypatch.setattr(run_module, "uses_block_path", lambda agent: False)
    slow = run("dpbandit/LinearBandit-v0", agents, **options).drop(columns="wall_time")
    assert fast.equals(slow)
    clone = pickle.loads(pickle.dumps(agents["mab"]))  # n_jobs > 1 sends factories to workers
    assert clone.keywords["batch_size"] == 16 and clone.func is SklearnBandit


def test_bad_models_and_options_are_named() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="model"):
        SklearnBandit(2, 1, rng=rng, model=None)
    with pytest.raises(TypeError, match="predict"):
        SklearnBandit(2, 1, rng=rng, model=lambda n_arms, seed: object())
    with pytest.raises(ValueError, match="batch_size"):
        SklearnBandit(2, 1, rng=rng, model=_Recorder, batch_size=0)
    with pytest.raises(ValueError, match="seed"):
        mabwiser_agent(LearningPolicy.LinUCB(), seed=3)


class _Recorder:
    """A minimal estimator: predicts the last arm fitted, records its calls."""

    def __init__(self, n_arms: int, seed: int) -> None:
        self.seed, self.calls, self.last = seed, [], 0

    def fit(self, decisions, rewards, X) -> None:
        self.calls.append(("fit", len(decisions)))
        self.last = int(decisions[-1])

    def partial_fit(self, decisions, rewards, X) -> None:
        self.calls.append(("partial_fit", len(decisions)))
        self.last = int(decisions[-1])

    def predict(self, X):
        return [self.last] * len(X)
