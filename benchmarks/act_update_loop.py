"""The harness's act/update loop (issue 31 item 1): what an agent without a block path pays per round.

Usage: ``python benchmarks/act_update_loop.py [--dim 50] [--arms 2] [--horizon 20000] [--reps 5]``

On ``dpbandit/HDBSection54-v0`` (Figure 5.1: d = 50, K = 2 by default), one seed, the same rounds for every
variant, interleaved in one process, ``--reps`` repetitions, median (best) microseconds per round:

* **draws**: the environment's block draws alone (``env.unwrapped.draw_rounds`` over the horizon, in blocks of
  the harness's size), the floor of any loop on these rounds;
* **loop, null agent**: :func:`dpbandit.harness.run_one` with an agent whose ``act`` returns 0 and whose
  ``update`` does nothing: the loop's own cost (draws included), what a user's agent pays on top of its
  ``act`` and ``update``; the same through a user's pass-through wrapper, which makes the harness step the
  environment (the ``env.step`` loop, the only loop before issue 31, for every agent without a block path);
* **random**: the ``random`` agent through ``run_one`` (its ``rng.integers`` per round included).

``run_one``'s ``wall_time`` at the horizon is the time of the loop (environment reset and agent construction
excluded). The ratio to the draws is the issue's figure (target: the null agent's loop at most 3x). A
``cProfile`` of the null agent's loop follows: what is left.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)
import gymnasium
import numpy as np
from _common import Timing, fmt, header, load, table

from dpbandit.agents.base import Agent

ENV_ID = "dpbandit/HDBSection54-v0"


class NullAgent(Agent):
    """Plays arm 0 and learns nothing: the loop's cost without an agent's."""

    def act(self, observation: np.ndarray) -> int:
        return 0

    def update(self, observation: np.ndarray, action: int, reward: float) -> None:
        pass


class PassThrough(gymnasium.Wrapper):
    """A user's wrapper: the harness steps the environment behind it (the ``env.step`` loop)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--arms", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()

    from dpbandit.agents.uniform import RandomAgent
    from dpbandit.harness import run_one, seeding
    from dpbandit.harness.run import BLOCK_ELEMENTS

    print(header())
    T, kwargs = args.horizon, {"dim": args.dim, "n_arms": args.arms}
    seed = seeding.seed_sequence(0, 0)

    def draws() -> float:
        env = gymnasium.make(ENV_ID, horizon=T, disable_env_checker=True, **kwargs)
        env.reset(seed=seeding.env_seed(seed))
        block = max(1, BLOCK_ELEMENTS // args.dim)
        import time

        start = time.perf_counter()
        for t in range(0, T, block):
            env.unwrapped.draw_rounds(min(block, T - t))
        return time.perf_counter() - start

    def harness(factory: object, wrapped: bool) -> float:
        def stepped(**options: object) -> gymnasium.Env:
            return PassThrough(gymnasium.make(ENV_ID, **options))

        source = stepped if wrapped else ENV_ID
        frame = run_one(source, "agent", factory, seed, horizon=T, env_kwargs=kwargs, n_points=100)
        return float(frame["wall_time"].iloc[-1])

    variants = {
        "draws (env.unwrapped.draw_rounds)": draws,
        "loop, null agent (drawn rounds)": lambda: harness(NullAgent, False),
        "loop, null agent (env.step)": lambda: harness(NullAgent, True),
        "random (drawn rounds)": lambda: harness(RandomAgent, False),
        "random (env.step)": lambda: harness(RandomAgent, True),
    }
    for work in variants.values():  # warm-up: imports, caches
        work()
    times = {name: Timing() for name in variants}
    for _ in range(args.reps):
        for name, work in variants.items():
            times[name].wall.append(work())
    print(f"`{ENV_ID}`, d = {args.dim}, K = {args.arms}, T = {T:,}, one seed (the same rounds in every row), "
          f"{args.reps} interleaved repetitions; us per round from run_one's wall_time (load {load()}):\n")
    floor = times["draws (env.unwrapped.draw_rounds)"]
    rows = []
    for name, timing in times.items():
        us, best = timing.median() / T * 1e6, timing.best() / T * 1e6
        rows.append([name, f"{us:.2f} ({best:.2f})", fmt(T / timing.median()),
                     f"{timing.median() / floor.median():.2f} ({timing.best() / floor.best():.2f})"])
    print(table(["variant", "us / round: median (best)", "rounds / s", "x draws: median (best)"], rows))
    print(f"Load average after the table: {load()}\n")

    profile = cProfile.Profile()
    profile.enable()
    harness(NullAgent, False)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(12)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("What is left: cProfile of the null agent's loop (drawn rounds), top 12 by own time "
          "(profiling slows the Python-level calls most):\n")
    print("```\n" + "\n".join(lines[start - 1 : start + 13]) + "\n```")


if __name__ == "__main__":
    main()
