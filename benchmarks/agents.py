"""Steps per second of every built-in agent, against a random-number floor of its own and its numpy path.

Usage: ``python benchmarks/agents.py [--reps 5] [--seconds 0.5] [--grid 50,2 50,5 500,10 5000,10]
[--agents dphdb dpucb-disjoint ...]`` (prints a markdown report).

For each (d, K) and agent, on rounds of the Section 5.4 environment of 004 (drawn untimed), in steady
state (DP-HDB's forced-sampling rounds are played untimed first), every timed window lasting at least
``--seconds``, interleaved over ``--reps`` repetitions, median and best:

* ``fast``: ``agent.play_block(X, R)`` (the compiled kernel where the agent has one);
* ``numpy``: ``agent.play_block(X, R, compiled=False)`` (the act/update loop);
* ``floor``: a compiled loop that draws, inline and from a Generator, exactly the random numbers the
  agent draws per round and does nothing else (DP-HDB: K x 2d Laplace numbers as ``E1 - E2``, i.e.
  2 standard exponentials each, or K x 2d Gumbel numbers with ``selection="exponential"``; DP-UCB: its
  tree nodes' standard normals; random: one integer). For the agents whose noise comes from one
  Generator the benchmark checks that the floor consumed exactly as many numbers as the agent (both
  Generators end in the same state);
* batched agents (``dpbandit.agents.batched``: greedy within a batch, one private release per batch)
  have a numpy floor, :func:`batched_floor`: per batch, the greedy arg-max over the batch's contexts on a
  fixed ``theta``, the per-model sums ``sum x r`` of the played rows (one GEMM), where the agent's
  estimator needs them its Gram matrices and Cholesky solves (ridge) or its extra gradient passes over the
  batch (FLIPHAT's N-IHT iterations, DP-HDB-batched's Frank-Wolfe steps), and the agent's random numbers
  of that batch, drawn in one vectorised call per run of one kind, in the agent's order (recorded from an
  untimed run of the agent on the same rounds, :class:`DrawRecorder`). It does not validate, clip, run
  the private choices' arithmetic (noisy arg-max / top-s / quantile grids), fit (thresholds, sorts,
  projections, the l1-ball vertex steps) or account. The timed windows of batched agents start at round 0
  and last at least ``HORIZON`` rounds, a whole run of the simulations' length (their cost per round falls
  as the batches grow), after one untimed window (so memoised calibrations, e.g. FLIPHAT's PLD search per
  episode length, are not timed);
* ``before``: the previous kernel (read from git history), on the same rounds: speed-up and whether the
  actions are identical. DP-HDB: before the draws were inlined (commit 2e70a94); LinUCB and greedy: before
  the ``d x d`` products ran four rows at a time (commit 82451ac, issue 31).

Adding an agent (e.g. a new private agent): one entry in :data:`ENTRIES` under its registry name (or a
display name with ``registry=``), saying how it sees the rounds (shared context, block features or
per-arm features), what it draws per round (its floor) or that it is batched, where that noise comes
from, its constructor keywords and when it is too big to run.
"""

from __future__ import annotations

import _common  # noqa: F401  (first: one BLAS thread, set before numpy loads)

import argparse
import copy
import functools
import importlib.util
import math
import pathlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np
import scipy.linalg

from _common import WINDOW, fmt, header, interleaved, load, rounds, rounds_for, table  # noqa: I001
from dpbandit.agents import agent_class
from dpbandit.envs.wrappers import block_features

HORIZON = 10_000
MAX_BYTES = 2**30  # 1 GB of agent state: larger configurations are reported as not run
GRID = [(50, 2), (50, 5), (500, 10), (5000, 10)]
#: Per-arm agents (features X_t in R^{K x d}): FLIPHAT's Setting 2 shapes (K = 3, d = 400 and 4000).
PER_ARM_GRID = [(400, 3), (4000, 3)]
MAX_ROUND_BYTES = 2**32  # rounds held for one window (4 GB): a window is cut there (shorter than WINDOW)
ROOT = pathlib.Path(__file__).resolve().parents[1]


class Draws(NamedTuple):
    """Random numbers an agent draws per round: Laplace pairs (E1 - E2), standard normals, integers."""

    laplace: int = 0
    normals: int = 0
    integers: int = 0
    gumbel: int = 0


@dataclass(frozen=True)
class Entry:
    """How to benchmark one registered agent (see the module docstring)."""

    registry: str | None = None  # registry name when the entry's key names a variant (options in kwargs)
    block_features: bool = False  # per-arm agent on the shared-context env: e_a kron x_t, D = dK
    per_arm: bool = False  # per-arm features (m, K, d) of FLIPHAT's Setting 2, on PER_ARM_GRID
    batched: bool = False  # a BatchedAgent: numpy floor batched_floor with its recorded draws
    gram: bool = False  # batched floor: each model's Gram matrix and a Cholesky solve per batch (ridge)
    passes: tuple[str, Callable[[Any, int], int]] | None = None  # (label, extra gradient passes per batch)
    kernel: bool = False  # has a compiled play_block path (else fast == numpy)
    draws: Callable[[int, int], Draws] | None = None  # per-round random numbers at (d, K): the floor
    noise_rng: Callable[[Any], np.random.Generator] | None = None  # the Generator they come from
    kwargs: Callable[[int, int], dict[str, Any]] = lambda d, K: {}
    state_bytes: Callable[[int, int], float] = lambda d, K: 0.0
    too_slow: Callable[[int, int], str | None] = lambda d, K: None
    warmup: Callable[[Any], int] = lambda agent: 0  # rounds played untimed before the window
    before: tuple[str, str] | None = None  # (commit, kernel module path) of the previous kernel
    before_args: Callable[[tuple], tuple] = lambda args: args  # the shipped play's arguments, for the previous


def _ridge_slow(d: int, K: int) -> str | None:
    return (f"a {d} x {d} Gram update per round and Cholesky per batch: ~80 steps/s, minutes per "
            f"{HORIZON:,}-round window") if d > 1000 else None


def _dpucb_block_slow(d: int, K: int) -> str | None:
    D = d * K
    return f"a {D} x {D} Cholesky and {(D + 1) ** 2:,} normals per round" if D > 1000 else None


ENTRIES: dict[str, Entry] = {
    "random": Entry(draws=lambda d, K: Draws(integers=1)),
    # before: the kernel with its d x d products one row at a time (issue 31)
    "linucb": Entry(kernel=True, state_bytes=lambda d, K: 8 * K * d * d,
                    before=("82451ac", "dpbandit/agents/kernels/linucb.py")),
    "greedy": Entry(kernel=True, state_bytes=lambda d, K: 8 * K * d * d,
                    before=("82451ac", "dpbandit/agents/kernels/linucb.py")),
    "shared-linucb": Entry(block_features=True, state_bytes=lambda d, K: 8 * (d * K) ** 2),
    "oful": Entry(block_features=True, state_bytes=lambda d, K: 8 * (d * K) ** 2),
    # per-vertex draws at every d (the default draws top down from d = 1000, where this floor is not its draws)
    "dphdb": Entry(
        kernel=True,
        draws=lambda d, K: Draws(laplace=K * 2 * d),
        noise_rng=lambda agent: agent.bank.rng,
        kwargs=lambda d, K: {"vertex_sampler": "per-vertex"},
        warmup=lambda agent: agent.n_arms * agent.warmup,
        before=("2e70a94", "dpbandit/agents/kernels/hdb.py"),
        before_args=lambda args: args[:-1],  # kernels before the exponential selection took no `gumbel` flag
    ),
    # the top-down selection draws (a data-dependent count of numbers: no fixed floor)
    "dphdb:vertex_sampler=topdown": Entry(
        registry="dphdb",
        kernel=True,
        kwargs=lambda d, K: {"vertex_sampler": "topdown"},
        warmup=lambda agent: agent.n_arms * agent.warmup,
    ),
    "dpucb-block": Entry(
        block_features=True,
        draws=lambda d, K: Draws(normals=(d * K + 1) ** 2),
        noise_rng=lambda agent: agent.tree.rng,
        kwargs=lambda d, K: {"feature_bound": math.sqrt(d)},
        state_bytes=lambda d, K: 8 * 3 * (d * K + 1) ** 2 * HORIZON.bit_length(),
        too_slow=_dpucb_block_slow,
    ),
    "dpucb-disjoint": Entry(
        kernel=True,
        draws=lambda d, K: Draws(normals=K * d * (d + 3) // 2),
        noise_rng=lambda agent: agent.tree_rng,
        state_bytes=lambda d, K: 8 * K * (d * (d + 3) // 2 * (1 + HORIZON.bit_length()) + d * d),
    ),
    # DP-HDB variants (issue 13): exponential-mechanism vertex choice (Gumbel-max in the kernel), no pre-selection
    "dphdb:selection=exponential": Entry(
        registry="dphdb",
        kernel=True,
        draws=lambda d, K: Draws(gumbel=K * 2 * d),
        noise_rng=lambda agent: agent.bank.rng,
        kwargs=lambda d, K: {"selection": "exponential"},
        warmup=lambda agent: agent.n_arms * agent.warmup,
    ),
    "dphdb:preselection=False": Entry(
        registry="dphdb",
        kernel=True,
        draws=lambda d, K: Draws(laplace=K * 2 * d),
        noise_rng=lambda agent: agent.bank.rng,
        kwargs=lambda d, K: {"preselection": False},
        warmup=lambda agent: agent.n_arms * agent.warmup,
    ),
    # batched private agents (issue 13): shared context (disjoint model) and per-arm features
    **{
        name + suffix: Entry(batched=True, per_arm=bool(suffix), noise_rng=lambda agent: agent.noise_rng,
                             gram=name == "batched-ridge",
                             state_bytes=(lambda d, K: 2 * 8 * K * d * d) if name == "batched-ridge" else
                             (lambda d, K: 0.0),
                             too_slow=_ridge_slow if name == "batched-ridge" else (lambda d, K: None))
        for name in ("batched-screening", "batched-ridge", "batched-peeling") for suffix in ("", "-perarm")
    },
    **{
        name: Entry(batched=True, per_arm=name == "fliphat", noise_rng=lambda agent: agent.noise_rng,
                    passes=("M_l - 1 N-IHT passes", lambda agent, size: agent.iterations(size) - 1))
        for name in ("fliphat", "fliphat-disjoint")
    },
    "dphdb-batched": Entry(
        batched=True,
        noise_rng=lambda agent: agent.noise_rng,
        passes=("steps - 1 Frank-Wolfe passes", lambda agent, size: agent.steps_per_batch - 1),
    ),
}


@numba.njit(cache=True)
def draw_floor(rng: np.random.Generator, n: int, laplace: int, normals: int, integers: int, gumbel: int,
               K: int) -> float:
    """Draw ``n`` rounds' random numbers inline (nothing else); the sum keeps the draws alive."""
    s = 0.0
    for _ in range(n):
        for _ in range(laplace):
            e1 = rng.standard_exponential()
            e2 = rng.standard_exponential()
            s += e1 - e2
        for _ in range(normals):
            s += rng.standard_normal()
        for _ in range(integers):
            s += rng.integers(0, K)
        for _ in range(gumbel):  # NumPy's gumbel: -log(-log(1 - U)), one double per number
            s -= math.log(-math.log(1.0 - rng.random()))
    return s


class DrawRecorder(np.random.Generator):
    """A Generator on another one's bit generator (same stream) that records the batched agents' draws.

    ``calls`` lists ``(kind, count)`` of every ``standard_normal``, ``standard_exponential`` (the Laplace
    pairs) and ``gumbel`` call in order. Draws by any other method are not recorded, so a floor replaying
    the record would end in another state than the agent (the count check says NO).
    """

    def __init__(self, bit_generator: np.random.BitGenerator) -> None:
        super().__init__(bit_generator)
        self.calls: list[tuple[str, int]] = []

    def _note(self, kind: str, size: Any, out: np.ndarray | None) -> None:
        self.calls.append((kind, int(out.size if out is not None else np.prod(1 if size is None else size))))

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        self._note("normal", size, out)
        return super().standard_normal(size, dtype, out)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        self._note("exponential", size, out)
        return super().standard_exponential(size, dtype, method, out)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        self._note("gumbel", size, None)
        return super().gumbel(loc, scale, size)


def merged(calls: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Consecutive calls of one kind as one (the same numbers from the same stream)."""
    out: list[tuple[str, int]] = []
    for kind, count in calls:
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + count)
        else:
            out.append((kind, count))
    return out


DRAW = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "exponential": lambda rng, n: rng.standard_exponential(n),
    "gumbel": lambda rng, n: rng.gumbel(size=n),
}


class Batch(NamedTuple):
    """One batch of a window: its rounds, extra gradient passes and random numbers (see batched_floor)."""

    start: int
    stop: int
    passes: int
    draws: list[tuple[str, int]]
    finished: bool


def batched_floor(rng: np.random.Generator, X: np.ndarray, R: np.ndarray, theta: np.ndarray,
                  plan: list[Batch], gram: bool) -> None:
    """A batched agent's floor (module docstring), in plain vectorised numpy.

    Per batch: greedy arg-max on the fixed ``theta`` (``(models, d)``; one model on per-arm features
    ``X`` of shape ``(m, K, d)``), the per-model sums of ``x r`` over the played rows, with ``gram`` each
    model's Gram matrix and, at a finished batch, its Cholesky solve, then ``passes`` gradient passes
    ``sum x (<x, theta_model> - r)`` and the batch's draws.
    """
    models_n = theta.shape[0]
    for batch in plan:
        Xb = X[batch.start : batch.stop]
        idx = np.arange(Xb.shape[0])
        actions = (Xb @ theta[0] if Xb.ndim == 3 else Xb @ theta.T).argmax(axis=1)
        rows = Xb[idx, actions] if Xb.ndim == 3 else Xb
        models = np.zeros_like(actions) if Xb.ndim == 3 else actions
        r = R[batch.start : batch.stop][idx, actions]
        weights = np.zeros((idx.size, models_n))
        weights[idx, models] = r
        sums = weights.T @ rows
        if gram:
            for k in range(models_n):
                mine = rows[models == k]
                matrix = mine.T @ mine
                if batch.finished:
                    matrix[np.diag_indices_from(matrix)] += 1.0
                    factor = scipy.linalg.cholesky(matrix, lower=True, check_finite=False)
                    scipy.linalg.cho_solve((factor, True), sums[k], check_finite=False)
        for _ in range(batch.passes):
            weights[idx, models] = (rows @ theta.T)[idx, models] - r
            weights.T @ rows
        for kind, count in batch.draws:
            DRAW[kind](rng, count)


def kernel_at(commit: str, path: str):
    """The kernel module ``path`` as of ``commit`` (from this repository's git history), compiled fresh."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True,
                            text=True, check=True).stdout
    return kernel_module(source, f"kernel_{commit}")


def kernel_module(source: str, name: str):
    """A kernel module from its source text, imported as ``name`` and compiled fresh (numba cache off)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dpbandit-kernel-"))
    file = folder / f"{name}.py"
    file.write_text(source.replace("cache=True", "cache=False"))
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def infeasible(name: str, d: int, K: int) -> str | None:
    """Why (name, d, K) is not run, or None."""
    entry = ENTRIES[name]
    if entry.state_bytes(d, K) > MAX_BYTES:
        return f"state {entry.state_bytes(d, K) / 2**30:.1f} GB > 1 GB"
    return entry.too_slow(d, K)


class Bench:
    """One (agent, d, K): its rounds, its agent factory and the timed variants."""

    def __init__(self, name: str, d: int, K: int) -> None:
        self.name, self.d, self.K, self.entry = name, d, K, ENTRIES[name]
        self.cls = agent_class(self.entry.registry or name)
        self.horizon = HORIZON
        self.skip = self.entry.warmup(self.make())
        self.plans: dict[int, list[Batch]] = {}
        self.draw(64)

    @property
    def round_bytes(self) -> int:
        """Bytes of one round's contexts (d, dK block features or K x d per-arm features) and rewards (K)."""
        return 8 * (self.d * (self.K if self.entry.block_features or self.entry.per_arm else 1) + self.K)

    def grown_rounds(self, make: Callable[[int], Callable[[], object]], pilot: int, seconds: float,
                     limit: int) -> int:
        """Rounds for a window of at least ``seconds`` when the rate grows with the window (batched agents:
        the batches double): time a window, scale it up, until it lasts ``seconds`` (or hits ``limit``)."""
        def timed(n: int) -> float:
            work = make(n)
            start = time.perf_counter()
            work()
            return time.perf_counter() - start

        make(pilot)()  # memoised calibrations, caches
        n = pilot
        while True:
            if self.skip + n > self.X.shape[0]:
                self.draw(n)
            elapsed = timed(n)
            if elapsed >= seconds:  # again, warm (e.g. FLIPHAT's calibration of new episode lengths)
                elapsed = timed(n)
            if elapsed >= seconds or n >= limit:
                return n
            n = min(limit, max(2 * n, math.ceil(1.2 * n * seconds / max(elapsed, 1e-9))))

    def make(self):
        D = self.d * self.K if self.entry.block_features else self.d
        return self.cls(n_arms=self.K, dim=D, rng=np.random.default_rng(0), horizon=self.horizon,
                        **self.entry.kwargs(self.d, self.K))

    def draw(self, n: int) -> None:
        """Rounds for the warm-up and a window of ``n``; the horizon grows to hold them (and DP-HDB's
        warm-up, which grows with the horizon)."""
        while self.skip + n > self.horizon:
            self.horizon = self.skip + n
            self.skip = self.entry.warmup(self.make())
        X, self.R, _ = rounds(self.d, self.K, self.skip + n, horizon=self.horizon, per_arm=self.entry.per_arm)
        self.X = block_features(X / math.sqrt(self.d), self.K) if self.entry.block_features else X
        self.plans.clear()

    def agent_after_warmup(self):
        agent = self.make()
        if self.skip:
            agent.play_block(self.X[: self.skip], self.R[: self.skip])
        return agent

    def play(self, compiled: bool, n: int, kernel_play: Callable | None = None) -> Callable[[], object]:
        """Setup (untimed): a fresh agent after its warm-up; returns the window of ``n`` rounds.

        ``kernel_play`` stands in for the shipped kernel's ``play`` (the module of the entry's ``before``)
        during the window.
        """
        agent = self.agent_after_warmup()
        window = slice(self.skip, self.skip + n)
        if not hasattr(agent, "play_block"):  # e.g. the random agent: the act/update loop
            from dpbandit.agents.linear import play_loop

            return lambda: play_loop(agent, self.X[window], self.R[window])
        if self.entry.batched:  # one path (vectorised numpy)
            return lambda: agent.play_block(self.X[window], self.R[window])
        if kernel_play is None:
            return lambda: agent.play_block(self.X[window], self.R[window], compiled=compiled)
        module = importlib.import_module(self.entry.before[1].removesuffix(".py").replace("/", "."))

        def other_kernel() -> np.ndarray:
            shipped, module.play = module.play, kernel_play
            try:
                return agent.play_block(self.X[window], self.R[window])
            finally:
                module.play = shipped

        return other_kernel

    def plan(self, n: int) -> list[Batch]:
        """A batched agent's batches over the window of ``n`` rounds, with the draws it makes in each
        (recorded from an untimed run on the same rounds)."""
        if n not in self.plans:
            agent = self.agent_after_warmup()
            recorder = agent.noise_rng = DrawRecorder(agent.noise_rng.bit_generator)
            plan, start = [], self.skip
            while start < self.skip + n:
                size = agent.batch_size
                stop = min(self.skip + n, agent.batch_start + size)
                recorder.calls.clear()
                agent.play_block(self.X[start:stop], self.R[start:stop])
                finished = agent.batch_start == stop
                passes = self.entry.passes[1](agent, size) if finished and self.entry.passes else 0
                plan.append(Batch(start - self.skip, stop - self.skip, passes, merged(recorder.calls), finished))
                start = stop
            self.plans[n] = plan
        return self.plans[n]

    def floor(self, n: int, rng: np.random.Generator | None = None) -> Callable[[], object]:
        rng = np.random.default_rng(1) if rng is None else rng
        if self.entry.batched:
            models = 1 if self.entry.per_arm else self.K
            theta = np.random.default_rng(2).standard_normal((models, self.d))
            window = slice(self.skip, self.skip + n)
            return functools.partial(batched_floor, rng, self.X[window], self.R[window], theta, self.plan(n),
                                     self.entry.gram)
        return functools.partial(draw_floor, rng, n, *self.entry.draws(self.d, self.K), self.K)

    def floor_counts_match(self, n: int) -> bool:
        """Does the floor consume as many numbers as the agent over ``n`` rounds (Generator states equal)?"""
        agent = self.agent_after_warmup()
        rng = self.entry.noise_rng(agent)
        twin = copy.deepcopy(rng)
        agent.play_block(self.X[self.skip : self.skip + n], self.R[self.skip : self.skip + n])
        self.floor(n, twin)()
        return bool(rng.random() == twin.random())


def measure(name: str, d: int, K: int, reps: int, seconds: float, previous: dict[str, Any]) -> dict[str, Any]:
    """Median and best steps/s of each variant, rounds per window, and the checks."""
    bench = Bench(name, d, K)
    entry = bench.entry
    pilot = 8 if name.startswith("dpucb") or d * K >= 5000 else 64
    if entry.batched:  # their cost per round falls as the batches grow: a window is at least a whole run
        pilot = HORIZON
    makers: dict[str, Callable[[int], Callable[[], object]]] = {"fast": functools.partial(bench.play, True)}
    if entry.kernel:
        makers["numpy"] = functools.partial(bench.play, False)
    if entry.draws is not None or entry.batched:
        makers["floor"] = bench.floor
    if entry.before is not None:
        if entry.before not in previous:
            previous[entry.before] = kernel_at(*entry.before)
        before = previous[entry.before]

        def before_play(*args):
            return before.play(*entry.before_args(args))

        makers["before"] = functools.partial(bench.play, True, kernel_play=before_play)
    limit = MAX_ROUND_BYTES // bench.round_bytes
    size = bench.grown_rounds if entry.batched else rounds_for
    n = {key: size(make, pilot, seconds, limit) for key, make in makers.items()}
    bench.draw(max(n.values()))
    if entry.batched:  # one untimed window of each: memoised calibrations, the floor's recorded draws
        for key, make in makers.items():
            make(n[key])()
    secs = interleaved({key: functools.partial(makers[key], n[key]) for key in makers}, reps)
    out: dict[str, Any] = {"n": n, "rate": {k: {s: n[k] / getattr(t, s)("wall") for s in ("median", "best")}
                                             for k, t in secs.items()},
                           "cpu": {k: n[k] / t.median("cpu") for k, t in secs.items()}}
    if entry.noise_rng is not None:
        out["floor_count"] = bench.floor_counts_match(n["floor"] if entry.batched else min(n["fast"], 2000))
    if entry.batched:
        out["draws"] = {}
        for batch in bench.plan(n["floor"]):
            for kind, count in batch.draws:
                out["draws"][kind] = out["draws"].get(kind, 0) + count
    if "before" in makers:
        window = min(n["fast"], n["before"])
        out["same_actions"] = bool(np.array_equal(bench.play(True, window)(), makers["before"](window)()))
    return out


def dphdb_full_runs(reps: int) -> str:
    """Whole harness runs (env, warm-up and all) of DP-HDB at d=50, K=5, T=10,000: block vs step path."""
    import importlib

    from dpbandit.harness import seeding

    run_module = importlib.import_module("dpbandit.harness.run")
    dphdb = agent_class("dphdb")
    seed = seeding.seed_sequence(0, 0)
    kwargs = dict(horizon=HORIZON, env_kwargs={"n_arms": 5, "dim": 50})

    def setup(block: bool):
        def work() -> None:
            original = run_module.uses_block_path
            run_module.uses_block_path = (lambda agent: False) if not block else original
            try:
                run_module.run_one("dpbandit/HDBSection54-v0", "dphdb", dphdb, seed, **kwargs)
            finally:
                run_module.uses_block_path = original

        return work

    secs = interleaved({"block": lambda: setup(True), "steps": lambda: setup(False)}, reps)
    rows = [[k, fmt(HORIZON / t.median()), fmt(HORIZON / t.best()), fmt(HORIZON / t.median("cpu")),
             f"{t.median():.3f}"] for k, t in secs.items()]
    ratio = secs["steps"].median() / secs["block"].median()
    return (
        f"Harness `run_one` on `dpbandit/HDBSection54-v0` (d=50, K=5, T=10,000, epsilon=1, t0=120), "
        f"env and warm-up included, {reps} interleaved repetitions (load {load()}):\n\n"
        + table(["path", "steps/s (wall, median)", "best", "steps/s (CPU, median)", "seconds (wall)"], rows)
        + f"\nratio block/step path: {ratio:.1f}x (wall, medians)\n"
    )


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if a == a and b == b else "-"


def floor_work(entry: Entry) -> str:
    """What a batched agent's floor does besides drawing its numbers (batched_floor)."""
    parts = ["greedy arg-max", "sums of x r"]
    if entry.gram:
        parts.append("Gram + Cholesky solve per model")
    if entry.passes:
        parts.append(entry.passes[0])
    return " + ".join(parts)


def batched_row(shape: str, name: str, r: dict[str, Any]) -> list[str]:
    fast, floor, n = r["rate"]["fast"], r["rate"]["floor"], r["n"]
    draws = ", ".join(f"{count:,} {kind}" for kind, count in r["draws"].items()) or "none"
    return [shape, name, f"{fmt(fast['median'])} ({fmt(fast['best'])}) [CPU {fmt(r['cpu']['fast'])}]",
            f"{fmt(floor['median'])} ({fmt(floor['best'])})",
            f"{_ratio(floor['median'], fast['median'])} ({_ratio(floor['best'], fast['best'])}) "
            f"[CPU {_ratio(r['cpu']['floor'], r['cpu']['fast'])}]",
            f"{floor_work(ENTRIES[name])}; draws {draws}", {True: "yes", False: "NO"}[r["floor_count"]],
            " / ".join(f"{k} {v:,}" for k, v in n.items())]


def main(reps: int = 5, seconds: float = WINDOW, grid=GRID, names=None, per_arm_grid=PER_ARM_GRID) -> str:
    names = list(ENTRIES) if not names else names
    out = [header(), f"Every window >= {seconds} s; {reps} interleaved repetitions; steps/s = rounds / wall "
           "seconds, median (best) over the repetitions, CPU-time median in brackets where shown.\n\n"]
    rows, before_rows, batched_rows, results = [], [], [], {}
    previous: dict[str, Any] = {}
    for per_arm, shapes in ((False, grid), (True, per_arm_grid)):
        for d, K in shapes:
            for name in (n for n in names if ENTRIES[n].per_arm == per_arm):
                shape, entry = f"({d}, {K}){' per-arm' if per_arm else ''}", ENTRIES[name]
                why = infeasible(name, d, K)
                if why:
                    (batched_rows if entry.batched else rows).append(
                        [shape, name, "not run: " + why] + ["-"] * (5 if entry.batched else 6))
                    continue
                r = results[(name, d, K)] = measure(name, d, K, reps, seconds, previous)
                if entry.batched:
                    batched_rows.append(batched_row(shape, name, r))
                    print(batched_rows[-1], file=sys.stderr, flush=True)
                    continue
                rate, n = r["rate"], r["n"]
                fast, numpy_, floor = rate["fast"], rate.get("numpy"), rate.get("floor")
                rows.append([
                    f"({d}, {K})", name,
                    f"{fmt(fast['median'])} ({fmt(fast['best'])}) [CPU {fmt(r['cpu']['fast'])}]",
                    "same path" if numpy_ is None else f"{fmt(numpy_['median'])} ({fmt(numpy_['best'])})",
                    "1" if numpy_ is None else f"{fast['median'] / numpy_['median']:.1f}",
                    "-" if floor is None else f"{fmt(floor['median'])} ({fmt(floor['best'])})",
                    "-" if floor is None else f"{_ratio(floor['median'], fast['median'])} "
                    f"({_ratio(floor['best'], fast['best'])}) [CPU {_ratio(r['cpu']['floor'], r['cpu']['fast'])}]",
                    {True: "yes", False: "NO", None: "-"}[r.get("floor_count")],
                    " / ".join(f"{k} {v:,}" for k, v in n.items()),
                ])
                if "before" in rate:
                    b = rate["before"]
                    before_rows.append([f"({d}, {K})", name, f"{fmt(b['median'])} ({fmt(b['best'])})",
                                        f"{fmt(fast['median'])} ({fmt(fast['best'])})",
                                        f"{fast['median'] / b['median']:.2f} ({fast['best'] / b['best']:.2f}) "
                                        f"[CPU {r['cpu']['fast'] / r['cpu']['before']:.2f}]",
                                        "yes" if r["same_actions"] else "NO"])
                print(rows[-1], file=sys.stderr, flush=True)
    out.append(table(
        ["(d, K)", "agent", "steps/s: median (best)", "numpy path steps/s", "fast/numpy", "floor steps/s",
         "agent time / floor time: median (best)", "floor draws the agent's count", "rounds per window"],
        rows))
    out.append(f"\nLoad average after the table: {load()}\n\n")
    if batched_rows:
        out.append(
            f"Batched private agents (issue 13; one path, vectorised numpy): windows from round 0 (batches of "
            f"32, 64, ... rounds; FLIPHAT's episodes 1, 2, 4, ...), at least {HORIZON:,} rounds (a whole run) "
            "and the time above, after one untimed window. Floor: "
            "`batched_floor` in plain numpy, per batch the work listed and the agent's random numbers of that "
            "batch (recorded from an untimed run), in one call per run of one kind. The floor does not "
            "validate, clip, compute the private choices' scores (noisy arg-max / top-s / quantile grids), "
            "fit (thresholds, sorts, l1 projection, Frank-Wolfe vertices, ridge noise shift) or account; "
            "\"per-arm\" rows use per-arm features X_t in R^{K x d} of FLIPHAT's Setting 2:\n\n")
        out.append(table(["(d, K)", "agent", "steps/s: median (best)", "floor steps/s",
                          "agent time / floor time: median (best)", "floor does (per batch; draws per window)",
                          "floor draws the agent's count", "rounds per window"], batched_rows))
        out.append(f"\nLoad average after the table: {load()}\n\n")
    if before_rows:
        out.append("Kernels now vs before, same rounds, interleaved with the rows above (DP-HDB: commit "
                   "2e70a94, `_lap1` called per draw; LinUCB and greedy: commit 82451ac, the `d x d` products "
                   "one row at a time):\n\n")
        out.append(table(["(d, K)", "agent", "before: steps/s median (best)", "now",
                          "speed-up: median (best) [CPU-time medians]", "actions identical"], before_rows))
        out.append("\n")
    out.append(dpucb_summary(results, grid))
    if "dphdb" in names:
        out.append(dphdb_full_runs(max(3, reps // 2)))
    return "".join(out)


def dpucb_summary(results: dict, grid) -> str:
    """DP-UCB on the shared-context model: the per-arm trees against the block-feature variant."""
    rows = []
    for d, K in grid:
        disjoint, block = results.get(("dpucb-disjoint", d, K)), results.get(("dpucb-block", d, K))
        if disjoint is None:
            continue
        new = disjoint["rate"]["fast"]
        if block is None:
            rows.append([f"({d}, {K})", "not run", f"{fmt(new['median'])} ({fmt(new['best'])})", "-"])
            continue
        old = block["rate"]["fast"]
        cpu = disjoint["cpu"]["fast"] / block["cpu"]["fast"]
        rows.append([f"({d}, {K})", f"{fmt(old['median'])} ({fmt(old['best'])})",
                     f"{fmt(new['median'])} ({fmt(new['best'])})",
                     f"{new['median'] / old['median']:.1f} ({new['best'] / old['best']:.1f}) [CPU {cpu:.1f}]"])
    if not rows:
        return ""
    return ("DP-UCB on the shared-context model (rows above): `dpucb-disjoint` (one tree and one d x d "
            "factor per arm) against `dpucb-block` (today's DP-UCB on this model: block features, one "
            "(dK+1)^2 tree, one dK x dK factor):\n\n"
            + table(["(d, K)", "dpucb-block steps/s: median (best)", "dpucb-disjoint",
                     "speed-up: median (best) [CPU-time medians]"],
                    rows) + "\n")


def _pair(text: str) -> tuple[int, int]:
    d, K = text.split(",")
    return int(d), int(K)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=WINDOW, help="minimum seconds per timed window")
    parser.add_argument("--grid", type=_pair, nargs="+", default=GRID, help="(d, K) pairs as d,K")
    parser.add_argument("--per-arm-grid", type=_pair, nargs="*", default=PER_ARM_GRID,
                        help="(d, K) pairs of the per-arm agents")
    parser.add_argument("--agents", nargs="+", choices=list(ENTRIES), default=None)
    args = parser.parse_args()
    print(main(args.reps, args.seconds, args.grid, args.agents, args.per_arm_grid))
