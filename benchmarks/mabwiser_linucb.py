"""Our disjoint LinUCB vs MABWiser's LinUCB at d=50, K=5 (same rounds, same alpha, lambda), API for API.

Usage: ``python benchmarks/mabwiser_linucb.py [--rounds 2000] [--seeds 3] [--reps 5] [--seconds 0.5]``.

Like for like: both libraries through their **online** APIs, one call pair per round, as an online
simulation must drive them. MABWiser: ``predict`` on the context, then ``partial_fit`` with the
chosen arm's reward (after an initial ``fit`` on round 0, arm 0, which our agent also plays); ours:
``act`` then ``update``. Our **batch** path (``play_block``, the compiled kernel the harness uses) has
a row of its own: it is not a like-for-like comparison (MABWiser has no batch interactive API).
Both use alpha = 1, lambda = 1 (``LearningPolicy.LinUCB`` defaults). Environment:
``dpbandit/LinearBandit-v0`` (unit-sphere contexts, noise std 0.1). Timing: interleaved windows of at
least ``--seconds``, median and best over ``reps``; regret: pseudo-regret over ``rounds`` per seed.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import functools
import statistics
import warnings

import numpy as np

from _common import WINDOW, fmt, header, interleaved, load, rounds_for, table  # noqa: I001
from dpbandit.agents.linear import LinUCB

D, K = 50, 5


def env_rounds(n: int, seed: int):
    import gymnasium

    from dpbandit import envs  # noqa: F401

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


def ours_online(X: np.ndarray, R: np.ndarray, seed: int) -> np.ndarray:
    """Our online API: ``act`` then ``update`` per round (round 0: arm 0, as MABWiser's initial fit)."""
    agent = LinUCB(K, D, rng=np.random.default_rng(seed), alpha=1.0, regularization=1.0)
    actions = np.zeros(len(X), dtype=np.int64)
    agent.update(X[0], 0, float(R[0, 0]))
    for t in range(1, len(X)):
        a = actions[t] = agent.act(X[t])
        agent.update(X[t], a, float(R[t, a]))
    return actions


def ours_batch(X: np.ndarray, R: np.ndarray, seed: int) -> np.ndarray:
    """Our batch path: ``play_block`` (compiled kernel) over the rounds after round 0."""
    agent = LinUCB(K, D, rng=np.random.default_rng(seed), alpha=1.0, regularization=1.0)
    agent.update(X[0], 0, float(R[0, 0]))
    return np.concatenate([np.zeros(1, dtype=np.int64), agent.play_block(X[1:], R[1:])])


IMPLEMENTATIONS = {
    "ours, online API (act + update per round)": ours_online,
    "MABWiser, online API (predict + partial_fit per round)": mabwiser_actions,
    "ours, batch API (play_block, compiled kernel; not like for like)": ours_batch,
}


def regret(actions: np.ndarray, means: np.ndarray) -> float:
    return float(np.sum(means.max(axis=1) - means[np.arange(len(actions)), actions]))


def main(rounds: int = 2000, seeds: int = 3, reps: int = 5, seconds: float = WINDOW) -> str:
    warnings.filterwarnings("ignore")
    pool = env_rounds(400_000, 0)
    X, R = pool.observations, pool.rewards
    ours_batch(X[:20], R[:20], 0)  # compile / load the kernel outside the timings

    def window(impl, n):
        return lambda: impl(X[:n], R[:n], 0)

    n = {name: rounds_for(functools.partial(window, impl), 200, seconds, limit=len(X))
         for name, impl in IMPLEMENTATIONS.items()}
    secs = interleaved({name: functools.partial(window, IMPLEMENTATIONS[name], n[name]) for name in n}, reps)
    mab = "MABWiser, online API (predict + partial_fit per round)"
    rate = {name: {"median": n[name] / t.median(), "best": n[name] / t.best(), "cpu": n[name] / t.median("cpu")}
            for name, t in secs.items()}
    rows = [[name, f"{fmt(r['median'])} ({fmt(r['best'])})", fmt(r["cpu"]),
             f"{r['median'] / rate[mab]['median']:.1f} ({r['best'] / rate[mab]['best']:.1f})", f"{n[name]:,}"]
            for name, r in rate.items()]
    regrets = {"ours": [], "MABWiser": []}
    agree = []
    for seed in range(seeds):
        b = env_rounds(rounds, 100 + seed)
        a_ours = ours_online(b.observations, b.rewards, seed)
        assert np.array_equal(a_ours, ours_batch(b.observations, b.rewards, seed))  # same actions, both APIs
        a_mab = mabwiser_actions(b.observations, b.rewards, seed)
        regrets["ours"].append(regret(a_ours, b.expected_rewards))
        regrets["MABWiser"].append(regret(a_mab, b.expected_rewards))
        agree.append(float(np.mean(a_ours == a_mab)))
    reg_rows = [
        [k, f"{statistics.mean(v):.2f}", f"{statistics.stdev(v) if len(v) > 1 else 0:.2f}",
         ", ".join(f"{x:.2f}" for x in v)]
        for k, v in regrets.items()
    ]
    return (
        header()
        + f"d={D}, K={K}, alpha=1, lambda=1; windows >= {seconds} s, {reps} interleaved repetitions, "
        f"steps/s median (best) (load {load()}):\n\n"
        + table(["implementation", "steps/s (wall): median (best)", "steps/s (CPU, median)",
                 "vs MABWiser online: median (best)", "rounds per window"], rows)
        + "\nThe like-for-like figure is the first row against the second; the third row is our batch path "
        "(what the harness runs), with no MABWiser counterpart.\n"
        + f"\nCumulative pseudo-regret after {rounds} rounds, {seeds} seeds (environment seeds 100..; our two "
        "APIs play identical actions, checked):\n\n"
        + table(["implementation", "mean", "sd", "per seed"], reg_rows)
        + f"\nSame action in {100 * statistics.mean(agree):.1f}% of rounds (mean over seeds).\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=WINDOW, help="minimum seconds per timed window")
    args = parser.parse_args()
    print(main(args.rounds, args.seeds, args.reps, args.seconds))
