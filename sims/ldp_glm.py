"""Local GLM bandits beside the authors' code (issue 37 item 4): ``ldp-sgd``, ``ldp-gloc`` and ``ldp-linucb`` on
``dpbandit/LDPGLMUnitCircle-v0``, against Han, Liang, Wang and Zhang's code run unmodified.

Usage (the authors' runs first, sims/ldp_glm_authors.py, then this script reads their CSV):

    nice -n 10 python sims/ldp_glm.py --authors results/ldp_glm_authors.csv [--seeds 10] \
        [--horizons 20000 100000] [--eps 1 0.5]

Every run of seed ``s`` uses the authors' theta for their seed ``s`` (the first draw of their worker after
``np.random.seed(s)``, envs.py:11-12 [C]: :func:`authors_theta`), the environment reset with seed ``s`` and the
agent's generator from ``SeedSequence(s)``. Writes results/ldp_glm.csv (one row per run) and
results/ldp_glm.md (means with 95% t-intervals, the authors' beside ours).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

import dpbandit  # noqa: E402,F401  (registers the ids)
from dpbandit.agents import agent_class  # noqa: E402

ENV_ID = "dpbandit/LDPGLMUnitCircle-v0"
RESULTS = Path(__file__).resolve().parent.parent / "results"
#: reward name of the authors' code -> (our link, env overrides)
LINKS = {
    "normal": ("identity", {}),
    "logistic": ("logistic", {"link": "logistic", "noise": "native", "noise_std": None}),
    "poisson": ("exponential", {"link": "exponential", "noise": "native", "noise_std": None}),
}
#: label -> (agent, options, rewards it runs on). ldp-linucb: the Bernoulli / linear settings only (its
#: reward clip would cut Poisson rewards); the authors' LDP-UCB only ran on the linear setting.
AGENTS = {
    "ldp-sgd": ("ldp-sgd", {}, ("normal", "logistic", "poisson")),
    "ldp-gloc (authors' calib.)": ("ldp-gloc", {"calibration": "authors"}, ("normal", "logistic", "poisson")),
    "ldp-gloc": ("ldp-gloc", {}, ("normal", "logistic", "poisson")),
    "ldp-linucb": ("ldp-linucb", {"feature_bound": 1.0, "param_bound": 1.0}, ("normal", "logistic")),
    "ldp-linucb (authors' calib.)": ("ldp-linucb", {"feature_bound": 1.0, "param_bound": 1.0,
                                                    "calibration": "authors"}, ("normal", "logistic")),
}


def authors_theta(seed: int) -> np.ndarray:
    """The authors' theta for their seed: ``N(0, I_2)`` normalised, the first draw after ``np.random.seed``
    (workers.py:8, then envs.py:11-12 [C]; the legacy MT19937 generator, as their code)."""
    g = np.random.RandomState(seed).normal(0, 1, size=(2, 1)).ravel()
    return g / np.linalg.norm(g)


def run_one(agent: str, options: dict, reward: str, eps: float, seed: int, horizon: int,
            checkpoints: list[int]) -> dict[int, float]:
    """Cumulative pseudo-regret of one run at each checkpoint."""
    link, env_options = LINKS[reward]
    env = gym.make(ENV_ID, horizon=horizon, theta=authors_theta(seed), **env_options)
    env.reset(seed=seed)
    block = env.unwrapped.draw_rounds(horizon)
    cls = agent_class(agent)
    kwargs = dict(options, epsilon=eps)
    if agent in ("ldp-sgd", "ldp-gloc", "shuffle-sgd"):
        kwargs["link"] = link
    if agent == "ldp-linucb":
        kwargs["reward_bound"] = 1.0
        kwargs["delta"] = 0.01  # the authors' delta (utils.py:100)
    if agent == "ldp-gloc":
        kwargs["delta"] = 0.01
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    a = cls(10, 2, rng=rng, horizon=horizon, **kwargs)
    actions = a.play_block(block.observations, block.rewards)
    mu = block.expected_rewards
    regret = np.cumsum(mu.max(axis=1) - mu[np.arange(horizon), actions])
    return {c: float(regret[c - 1]) for c in checkpoints if c <= horizon}


def interval(x: pd.Series) -> str:
    """``mean [lo, hi]`` (95% t-interval over seeds)."""
    m = x.mean()
    if len(x) < 2:
        return f"{m:.0f}"
    h = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return f"{m:.0f} [{m - h:.0f}, {m + h:.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--authors", type=Path, default=RESULTS / "ldp_glm_authors.csv")
    ap.add_argument("--out", type=Path, default=RESULTS / "ldp_glm.csv")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--horizons", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0, 0.5])
    ap.add_argument("--agents", nargs="+", default=list(AGENTS))
    args = ap.parse_args()
    rows = []
    for T in args.horizons:
        for eps in args.eps:
            for label in args.agents:
                agent, options, rewards = AGENTS[label]
                for reward in rewards:
                    for seed in range(args.seeds):
                        t0 = time.perf_counter()
                        res = run_one(agent, options, reward, eps, seed, T, [T])
                        rows.append(dict(algorithm=label, reward=reward, epsilon=eps, seed=seed, T=T,
                                         cum_regret=res[T], seconds=round(time.perf_counter() - t0, 1)))
                        print(rows[-1], flush=True)
    ours = pd.DataFrame(rows)
    ours.to_csv(args.out, index=False)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
