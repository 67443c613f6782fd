"""Our disjoint LinUCB vs MABWiser's LinUCB in an online loop at d=50, K=5 (same rounds, same alpha, lambda).

Usage: ``python benchmarks/mabwiser_linucb.py [--rounds 2000] [--seeds 3] [--reps 3]``.

MABWiser is driven the way an online simulation must drive it: per round ``predict`` on the
context, then ``partial_fit`` with the chosen arm's reward (after an initial ``fit`` on round 0,
arm 0, which our agent also plays). Both use alpha = 1, lambda = 1 (``LearningPolicy.LinUCB``
defaults). Environment: ``dpbandit/LinearBandit-v0`` (unit-sphere contexts, noise std 0.1).
Timing: interleaved, median over ``reps``; regret: pseudo-regret over ``rounds`` per seed.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import statistics
import warnings

import numpy as np

from _common import fmt, interleaved, load, table  # noqa: I001  (sets BLAS threads first)
from dpbandit.agents.linear import LinUCB

D, K = 50, 5


def env_rounds(n: int, seed: int):
    import gymnasium

    import envs  # noqa: F401

    env = gymnasium.make("dpbandit/LinearBandit-v0", n_arms=K, dim=D, horizon=n, disable_env_checker=True)
    env.reset(seed=seed)
    return env.unwrapped.draw_rounds(n)


def mabwiser_actions(X: np.ndarray, R: np.ndarray, seed: int) -> np.ndarray:
    from mabwiser.mab import MAB, LearningPolicy

    mab = MAB(arms=list(range(K)), learning_policy=LearningPolicy.LinUCB(alpha=1.0, l2_lambda=1.0), seed=seed)
    actions = np.empty(len(X), dtype=np.int64)
    actions[0] = 0
    mab.fit([0], [R[0, 0]], X[:1])
    for t in range(1, len(X)):
        a = int(mab.predict(X[t : t + 1]))
        mab.partial_fit([a], [R[t, a]], X[t : t + 1])
        actions[t] = a
    return actions


def ours(X: np.ndarray, R: np.ndarray, seed: int, compiled: bool = True) -> np.ndarray:
    agent = LinUCB(K, D, rng=np.random.default_rng(seed), alpha=1.0, regularization=1.0)
    first = np.zeros(1, dtype=np.int64)
    agent.update(X[0], 0, float(R[0, 0]))  # round 0: arm 0, as MABWiser's initial fit
    return np.concatenate([first, agent.play_block(X[1:], R[1:], compiled=compiled)])


def regret(actions: np.ndarray, means: np.ndarray) -> float:
    return float(np.sum(means.max(axis=1) - means[np.arange(len(actions)), actions]))


def main(rounds: int = 2000, seeds: int = 3, reps: int = 3) -> str:
    warnings.filterwarnings("ignore")
    block = env_rounds(rounds, 0)
    X, R = block.observations, block.rewards
    ours(X[:20], R[:20], 0)  # compile / load the kernel outside the timings
    secs = interleaved(
        {
            "ours (compiled)": lambda: lambda: ours(X, R, 0),
            "ours (numpy path)": lambda: lambda: ours(X, R, 0, compiled=False),
            "MABWiser": lambda: lambda: mabwiser_actions(X, R, 0),
        },
        reps,
    )
    wall, cpu = secs["wall"], secs["cpu"]
    rows = [
        [k, fmt(rounds / wall[k]), fmt(rounds / cpu[k]), f"{wall['MABWiser'] / wall[k]:.1f}"] for k in wall
    ]
    regrets = {"ours": [], "MABWiser": []}
    agree = []
    for seed in range(seeds):
        b = env_rounds(rounds, 100 + seed)
        a_ours = ours(b.observations, b.rewards, seed)
        a_mab = mabwiser_actions(b.observations, b.rewards, seed)
        regrets["ours"].append(regret(a_ours, b.expected_rewards))
        regrets["MABWiser"].append(regret(a_mab, b.expected_rewards))
        agree.append(float(np.mean(a_ours == a_mab)))
    reg_rows = [
        [
            k,
            f"{statistics.mean(v):.2f}",
            f"{statistics.stdev(v) if len(v) > 1 else 0:.2f}",
            ", ".join(f"{x:.2f}" for x in v),
        ]
        for k, v in regrets.items()
    ]
    return (
        f"d={D}, K={K}, {rounds} rounds, alpha=1, lambda=1; timing median of {reps} interleaved "
        f"repetitions (load {load()}):\n\n"
        + table(["implementation", "steps/s (wall)", "steps/s (CPU)", "speed-up vs MABWiser (wall)"], rows)
        + f"\nCumulative pseudo-regret after {rounds} rounds, {seeds} seeds (environment seeds 100..):\n\n"
        + table(["implementation", "mean", "sd", "per seed"], reg_rows)
        + f"\nSame action in {100 * statistics.mean(agree):.1f}% of rounds (mean over seeds).\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print(main(args.rounds, args.seeds, args.reps))
