"""Why ``private`` stays above its noise-off regret at epsilon 1024 (issue 40 items 1-2): the noise-off forms
under a little noise.

At epsilon 1024 the noise multiplier is ``z = 0.024`` (a 40th of epsilon 1's), yet ``private`` with every
discrete default at its noise-off form (per-model Grams, the joint intercept, the 0.99 reward clip, the (16, 1.2)
schedule) is about 2x its noise-off regret on ``dpbandit/LinearBandit-v0`` (K = 20, d = 25, T = 2 x 10^4). Three
tables on that setting, 10 paired seeds (root 29):

1. **Which block's noise.** The noise drawn in one released block alone (the others replaced by their exact
   values, the fit counting the calibrated noise of all: ``NoDrawnNoise`` of sims/private_epsilon_limit.py).
2. **How fast it fades.** The noise-off forms and the defaults at epsilon 1024, 4096, 16384 and 10^6, and the
   defaults with the reward clip they had before its switch at negligible noise (the quantile interpolated by
   ``private_defaults.one_round_weight``, the other noise-off forms on): the regret rose with epsilon.
3. **Where it goes.** Per-arm plays on 3 seeds: how many arms the noise starves (fewer rows than a tenth of
   uniform play's ``T / K``), and how many rounds those arms were the best arm.

Usage: python sims/private_noise_sensitivity.py [--seeds 10] [--trace-seeds 3] [--workers 2];
writes results/private_noise_sensitivity.{md,csv}.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fig5_1 import RESULTS, command_line, markdown  # noqa: E402
from private_epsilon_limit import NoDrawnNoise, agent, final  # noqa: E402

import dpbandit  # noqa: E402,F401  (registers the environment ids)
from dpbandit.agents.batched import private_defaults as defaults  # noqa: E402
from dpbandit.agents.batched.private import PrivateAgent  # noqa: E402
from dpbandit.harness import run, seeding  # noqa: E402

ENV_ID, ENV, HORIZON = "dpbandit/LinearBandit-v0", {"n_arms": 20, "dim": 25}, 20_000
ROOT = 29
#: The discrete defaults at their noise-off forms (sims/private_epsilon_limit.py's "noise-off forms" row).
FORMS = {"second_moments": "gram", "intercept": "joint", "reward_quantile": 0.99, "first_batch": 16,
         "batch_ratio": 1.2}
#: Every block the noise-off forms release (moments, sums, rewards, squares, per-model Grams, counts, the two
#: clipping counts).
BLOCKS = ("moments", "sums", "rewards", "squares", "gram", "counts", "context_inside", "reward_inside")


def _only(block: str) -> type:
    """:class:`NoDrawnNoise` that keeps the drawn noise of ``block`` alone."""
    return type(f"NoiseOnlyIn_{block}", (NoDrawnNoise,),
                {"EXACT": tuple(b for b in BLOCKS if b != block), "__module__": __name__,
                 "__doc__": f"Diagnostic only: the drawn noise of the {block!r} block alone."})


for _block in BLOCKS:  # module-level classes: picklable for the worker processes
    globals()[f"NoiseOnlyIn_{_block}"] = _only(_block)


def blocks(seeds: int, workers: int) -> pd.DataFrame:
    agents = {"noise-off forms, epsilon 1024": agent(epsilon=1024.0, **FORMS),
              "no drawn noise (the fit counts it)": agent(NoDrawnNoise, epsilon=1024.0, **FORMS)}
    agents |= {f"drawn noise in `{b}` alone": agent(globals()[f"NoiseOnlyIn_{b}"], epsilon=1024.0, **FORMS)
               for b in BLOCKS}
    agents["noise off"] = agent(noise=False)
    return _final(agents, seeds, workers)


def interpolated_quantile(epsilon: float) -> float:
    """The reward clip's quantile before the switch at negligible noise: ``0.5 + 0.49 / (1 + a T)``."""
    probe = PrivateAgent(ENV["n_arms"], ENV["dim"], rng=np.random.default_rng(0), horizon=HORIZON,
                         epsilon=epsilon)
    return defaults.interpolated_reward_quantile(probe.noise_ratio, horizon=HORIZON)


def fading(seeds: int, workers: int) -> pd.DataFrame:
    agents = {}
    for eps in (1024.0, 4096.0, 16384.0, 1e6):
        agents[f"noise-off forms, epsilon {eps:g}"] = agent(epsilon=eps, **FORMS)
        agents[f"defaults, epsilon {eps:g}"] = agent(epsilon=eps)
    for eps in (4096.0, 16384.0):  # the defaults before the clip's switch (the other noise-off forms on)
        quantile = interpolated_quantile(eps)
        agents[f"defaults with the interpolated clip {quantile:.2f}, epsilon {eps:g}"] = agent(
            epsilon=eps, reward_quantile=quantile)
    agents["noise off"] = agent(noise=False)
    return _final(agents, seeds, workers)


def _final(agents: dict, seeds: int, workers: int) -> pd.DataFrame:
    df = run(ENV_ID, agents, n_seeds=seeds, root_seed=ROOT, horizon=HORIZON, env_kwargs=ENV, n_points=2,
             progress=False, n_jobs=workers)
    out = final(df, HORIZON)[["mean", "half_width"]].reset_index()
    return out.rename(columns={"mean": "regret", "half_width": "half width (95%)"})


def plays(factory, seed_index: int) -> dict[str, float]:
    """One seed played round by round (the harness's seeds and streams for the label "private"): regret, the
    arms played fewer than ``T / (10 K)`` times, and the rounds on which such an arm was the best."""
    seq = seeding.run_seeds(ROOT, seed_index + 1)[seed_index]
    env = gym.make(ENV_ID, horizon=HORIZON, **ENV)
    obs, _ = env.reset(seed=seeding.env_seed(seq))
    k = env.action_space.n
    player = factory(n_arms=k, dim=obs.shape[-1], rng=seeding.agent_rng(seq, "private"), horizon=HORIZON)
    played, best, regret = np.zeros(k), np.zeros(k), 0.0
    for _ in range(HORIZON):
        action = player.act(obs)
        following, reward, _, _, info = env.step(action)
        expected = info["expected_rewards"]
        regret += float(expected.max() - expected[action])
        played[action] += 1
        best[int(np.argmax(expected))] += 1
        player.update(obs, action, reward)
        obs = following
    starved = played < HORIZON / (10 * k)
    return {"regret": regret, "fewest plays of an arm": played.min(), "starved arms": int(starved.sum()),
            "rounds a starved arm was best": best[starved].sum()}


def starvation(seeds: int) -> pd.DataFrame:
    rows = []
    for label, factory in {"noise-off forms, epsilon 1024": agent(epsilon=1024.0, **FORMS),
                           "no drawn noise (the fit counts it)": agent(NoDrawnNoise, epsilon=1024.0, **FORMS),
                           "noise off": agent(noise=False)}.items():
        for seed in range(seeds):
            rows.append({"agent": label, "seed": seed, **plays(factory, seed)})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trace-seeds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    by_block, fades = blocks(args.seeds, args.workers), fading(args.seeds, args.workers)
    traced = starvation(args.trace_seeds)
    pd.concat([by_block.assign(table="blocks"), fades.assign(table="fading")]).assign(
        seeds=args.seeds, command=command_line()
    ).to_csv(RESULTS / "private_noise_sensitivity.csv", index=False)
    with open(RESULTS / "private_noise_sensitivity.md", "w") as fh:
        fh.write("# `private`'s noise-off forms under a little noise\n\n"
                 f"Command: `{command_line()}` (`dpbandit/LinearBandit-v0`, K = 20, d = 25, T = 2 x 10^4, root "
                 f"seed {ROOT}, {args.seeds} seeds; mean final regret and the half-width of its 95% interval; the "
                 "noise-off forms are per-model Grams, the joint intercept, the 0.99 reward clip and the (16, 1.2) "
                 "schedule; the privacy noise streams are not paired across rows, the environments are).\n\n")
        fh.write("## 1. Which block's noise (epsilon 1024)\n\n" + markdown(by_block) + "\n\n")
        fh.write("## 2. How fast it fades\n\n" + markdown(fades) + "\n\n")
        fh.write(f"## 3. Where it goes: starved arms (seeds 0-{args.trace_seeds - 1}, played round by round)\n\n"
                 f"An arm is starved if played fewer than T / (10 K) = {HORIZON // 200} times.\n\n"
                 + markdown(traced) + "\n")
    print(by_block.round(1).to_string(), fades.round(1).to_string(), traced.round(1).to_string(), sep="\n\n")


if __name__ == "__main__":
    main()
