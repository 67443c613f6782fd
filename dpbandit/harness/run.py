"""Run agents x environment x seeds and collect tidy results.

One *run* is one agent on one seed for ``horizon`` rounds. For a given seed every agent plays on an
environment reset with the same seed (common random numbers, see :mod:`dpbandit.harness.seeding`),
so regret differences between agents are paired. The result is a tidy ``pandas.DataFrame`` with one
row per (agent, seed, recorded step); steps are recorded on a grid of about ``n_points`` steps.
"""

from __future__ import annotations

import concurrent.futures as futures
import math
import multiprocessing
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.harness import seeding
from dpbandit.harness.checks import accepts_keyword, check_agents, check_memory
from dpbandit.harness.progress import INTERVAL, Heartbeat, RunProgress

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd  # imported where used: pandas takes ~0.4 s, `import dpbandit.harness` stays fast

AgentFactory = Callable[..., Agent]
"""Anything called as ``factory(n_arms=K, dim=d, rng=rng[, horizon=T])``: an Agent class or a partial.
``horizon=T`` is passed only when the factory accepts a ``horizon`` keyword (or ``**kwargs``)."""

COLUMNS = [
    "env_id",
    "agent",
    "seed",
    "step",
    "cumulative_regret",
    "regret",
    "wall_time",
    "epsilon",
    "claimed_epsilon",
]


def recording_steps(horizon: int, n_points: int = 1000, spacing: str = "log") -> np.ndarray:
    """Return the 1-based steps at which results are recorded (sorted, unique, ending at ``horizon``).

    ``spacing="linear"`` gives an evenly spaced grid; ``"log"`` a geometric grid (dense early, where
    regret curves bend) merged with a coarse linear grid so late steps are never sparse.
    """
    horizon = _validate.integer(horizon=horizon, minimum=1)
    n_points = _validate.integer(n_points=n_points, minimum=2)
    _validate.one_of(("log", "linear"), spacing=spacing)
    linear = np.linspace(1, horizon, n_points if spacing == "linear" else n_points // 4)
    steps = linear
    if spacing == "log":
        steps = np.concatenate([linear, np.geomspace(1, horizon, n_points - n_points // 4)])
    return np.unique(np.round(steps).astype(np.int64).clip(1, horizon))


def make_env(env_id: str, horizon: int | None = None, env_kwargs: Mapping[str, Any] | None = None):
    """Make a registered environment (importing ``envs`` registers the ``dpbandit/`` ids)."""
    import gymnasium

    import envs  # noqa: F401  (registers the dpbandit/ ids)

    if not isinstance(env_id, str):
        raise TypeError(
            f"Expected env_id to be a registered id string, got {type(env_id).__name__} {env_id!r}."
        )
    kwargs = dict(env_kwargs or {})
    if horizon is not None:
        kwargs["horizon"] = _validate.integer(horizon=horizon, minimum=1)
    try:
        gymnasium.spec(env_id)
    except gymnasium.error.Error as err:
        raise ValueError(f"Unknown env_id={env_id!r}: {err}") from err
    return gymnasium.make(env_id, disable_env_checker=True, **kwargs)


def _observation_adapter(agent: Agent, env_core: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Map the env's observation to what the agent consumes (block features for per-arm agents)."""
    if agent.observation_model == env_core.context_model:
        return lambda obs: obs
    if agent.observation_model == "per_arm" and env_core.context_model == "shared":
        from envs.wrappers import block_features

        n_arms = env_core.n_arms
        return lambda obs: block_features(obs, n_arms)
    raise TypeError(
        f"agent {type(agent).__name__} consumes {agent.observation_model!r} observations but the "
        f"environment's context_model is {env_core.context_model!r}."
    )


def _observation_model(factory: AgentFactory) -> str:
    """The ``observation_model`` of the class a factory builds (a class, or a ``functools.partial``)."""
    target = getattr(factory, "func", factory)
    return getattr(target, "observation_model", "shared")


def _feature_dim(observation_model: str, env_core: Any) -> int:
    if observation_model == "per_arm" and env_core.context_model == "shared":
        return env_core.dim * env_core.n_arms
    return env_core.dim


def _round_elements(observation_model: str, env_core: Any) -> int:
    """Float64 elements of one round's observation as the agent receives it."""
    rows = 1 if observation_model == "shared" and env_core.context_model == "shared" else env_core.n_arms
    return rows * _feature_dim(observation_model, env_core)


#: Float64 elements of the observations of one block of the fast path, at most [Fill].
BLOCK_ELEMENTS = 2**20
#: Rounds of the first block; later blocks aim at :data:`BLOCK_SECONDS` each (numbers never depend on
#: the block sizes: blocks are bit-identical to stepping) [Fill].
FIRST_BLOCK_ROUNDS = 64
#: Target wall time of one block, so long runs report progress and record wall times often [Fill].
BLOCK_SECONDS = 0.5


def uses_block_path(agent: Agent) -> bool:
    """Whether the harness plays ``agent`` in blocks: built-in agents (module ``dpbandit.*``) with
    ``play_block``; user agents keep the generic ``act``/``update`` loop."""
    return type(agent).__module__.startswith("dpbandit.") and callable(getattr(agent, "play_block", None))


def _play_steps(
    agent: Agent, env: Any, obs: np.ndarray, record: np.ndarray, heartbeat: Heartbeat
) -> tuple[np.ndarray, np.ndarray]:
    """The generic loop: ``act``, ``env.step``, ``update``; per-round regrets and wall times at ``record``."""
    adapt = _observation_adapter(agent, env.unwrapped)
    horizon = record[-1]
    regrets = np.empty(horizon)
    wall = np.empty(record.size)
    next_record = 0
    start = time.perf_counter()
    for t in range(horizon):
        observation = adapt(obs)
        action = agent.act(observation)
        obs, reward, _, _, info = env.step(action)
        agent.update(observation, action, reward)
        regrets[t] = info["regret"]
        if t + 1 == record[next_record]:
            wall[next_record] = time.perf_counter() - start
            next_record += 1
        if t % 1024 == 1023:
            heartbeat.tick(t + 1)
    return regrets, wall


def _play_blocks(
    agent: Any, core: Any, obs: np.ndarray, record: np.ndarray, heartbeat: Heartbeat
) -> tuple[np.ndarray, np.ndarray]:
    """The fast path: rounds from ``core.draw_rounds`` (bit-identical to stepping) fed to
    ``agent.play_block``; the pseudo-regret ``max_a mu_{t,a} - mu_{t,a_t}`` as ``env.step`` computes it.

    Blocks start at :data:`FIRST_BLOCK_ROUNDS` rounds and then aim at :data:`BLOCK_SECONDS` each (at
    most :data:`BLOCK_ELEMENTS` observation elements). Wall times are taken at block ends."""
    adapt = _observation_adapter(agent, core)
    horizon = record[-1]
    most = max(1, BLOCK_ELEMENTS // int(np.prod(adapt(obs).shape)))
    regrets = np.empty(horizon)
    wall = np.empty(record.size)
    start = time.perf_counter()
    t, block = 0, min(most, FIRST_BLOCK_ROUNDS)
    while t < horizon:
        m = min(block, horizon - t)
        began = time.perf_counter()
        rounds = core.draw_rounds(m)
        actions = agent.play_block(adapt(rounds.observations), rounds.rewards)
        means = rounds.expected_rewards
        regrets[t : t + m] = means.max(axis=1) - means[np.arange(m), actions]
        t += m
        now = time.perf_counter()
        wall[(record > t - m) & (record <= t)] = now - start
        heartbeat.tick(t)
        block = int(min(most, 4 * m, max(1, m * BLOCK_SECONDS / max(now - began, 1e-9))))
    return regrets, wall


def _start(
    env_id: str,
    agent_name: str,
    factory: AgentFactory,
    seed: np.random.SeedSequence,
    horizon: int | None,
    env_kwargs: Mapping[str, Any] | None,
) -> tuple[Any, np.ndarray, Agent]:
    """The environment reset for ``seed``, its first observation and the agent built for it."""
    env = make_env(env_id, horizon, env_kwargs)
    core = env.unwrapped
    obs, _ = env.reset(seed=seeding.env_seed(seed))
    kwargs = {"horizon": int(core.horizon)} if accepts_keyword(factory, "horizon") else {}
    agent = factory(
        n_arms=core.n_arms,
        dim=_feature_dim(_observation_model(factory), core),
        rng=seeding.agent_rng(seed, agent_name),
        **kwargs,
    )
    if not isinstance(agent, Agent):
        raise TypeError(
            f"Expected the factory of agent {agent_name!r} to build a dpbandit.agents.Agent, "
            f"got {type(agent).__name__}."
        )
    return env, obs, agent


def _compile_here(env_id: str, agents: Mapping[str, AgentFactory], options: Mapping[str, Any]) -> None:
    """Play the first block of every block-path agent in this process and discard it.

    Run before worker processes start: a compiled kernel is then compiled once here and loaded from
    numba's cache by every worker, instead of being compiled by several workers at once.
    """
    seed = seeding.seed_sequence(0, 0)
    for name, factory in agents.items():
        env, obs, agent = _start(env_id, name, factory, seed, options["horizon"], options["env_kwargs"])
        core = env.unwrapped
        if uses_block_path(agent) and hasattr(core, "draw_rounds"):
            first = min(FIRST_BLOCK_ROUNDS, int(core.horizon))
            _play_blocks(agent, core, obs, np.array([first]), Heartbeat(name, first, None))
        env.close()


def run_one(
    env_id: str,
    agent_name: str,
    factory: AgentFactory,
    seed: np.random.SeedSequence,
    *,
    seed_index: int = 0,
    horizon: int | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    n_points: int = 1000,
    spacing: str = "log",
    progress_interval: float | None = None,
) -> pd.DataFrame:
    """Play one agent for one seed; return its recorded rows (see :data:`COLUMNS`).

    ``progress_interval``: seconds between the round-progress lines of a long run (``None``: none).
    """
    env, obs, agent = _start(env_id, agent_name, factory, seed, horizon, env_kwargs)
    core = env.unwrapped
    horizon = int(core.horizon)
    record = recording_steps(horizon, n_points, spacing)
    heartbeat = Heartbeat(f"{agent_name} seed {seed_index}", horizon, progress_interval)
    if uses_block_path(agent) and hasattr(core, "draw_rounds"):
        regrets, wall = _play_blocks(agent, core, obs, record, heartbeat)
    else:
        regrets, wall = _play_steps(agent, env, obs, record, heartbeat)
    env.close()
    import pandas as pd

    cumulative = np.cumsum(regrets)
    privacy = agent.privacy
    return pd.DataFrame(
        {
            "env_id": env_id,
            "agent": agent_name,
            "seed": seed_index,
            "step": record,
            "cumulative_regret": cumulative[record - 1],
            "regret": regrets[record - 1],
            "wall_time": wall,
            "epsilon": np.full(record.size, math.nan if privacy is None else privacy.epsilon, float),
            "claimed_epsilon": np.full(
                record.size, math.nan if privacy is None else privacy.claimed_epsilon, float
            ),
        },
        columns=COLUMNS,
    )


def _run_task(args: tuple) -> tuple[pd.DataFrame, float]:
    env_id, name, factory, root_seed, index, options = args
    start = time.perf_counter()
    frame = run_one(
        env_id, name, factory, seeding.seed_sequence(root_seed, index), seed_index=index, **options
    )
    return frame, time.perf_counter() - start


def run(
    env_id: str,
    agents: Mapping[str, AgentFactory],
    *,
    n_seeds: int = 5,
    root_seed: int = 0,
    horizon: int | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    n_points: int = 1000,
    spacing: str = "log",
    n_jobs: int = 1,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Run every agent on ``n_seeds`` seeds of ``env_id``; return a tidy DataFrame.

    Args:
        env_id: a registered Gymnasium id, e.g. ``"dpbandit/LinearBandit-v0"``.
        agents: display name -> factory (an Agent class or ``functools.partial(cls, **hyper)``).
        n_seeds: number of seeds (runs per agent).
        root_seed: the root of every seed (same root seed -> identical DataFrame).
        horizon: number of rounds T (default: the environment's own).
        env_kwargs: keyword arguments for ``gymnasium.make``.
        n_points: approximate number of recorded steps per run.
        spacing: ``"log"`` or ``"linear"`` recording grid.
        n_jobs: worker processes (1 runs in this process; factories must be picklable otherwise).
        progress: report progress on standard error (``None`` or ``True``: a bar on a terminal, plain
            lines in a log, see :mod:`dpbandit.harness.progress`; ``False``: silent).

    Every input is checked before the first round (names, factories, picklability for
    ``n_jobs > 1``, the environment, a memory estimate of dim x n_arms x horizon).

    Example:
        >>> from dpbandit.agents.linear import LinUCB
        >>> df = run("dpbandit/LinearBandit-v0", {"LinUCB": LinUCB}, n_seeds=1, horizon=50,
        ...          progress=False)
        >>> int(df["step"].max())
        50
    """
    n_jobs = _validate.integer(n_jobs=n_jobs, minimum=1)
    agents = check_agents(agents, n_jobs)
    n_seeds = _validate.integer(n_seeds=n_seeds, minimum=1)
    root_seed = _validate.integer(root_seed=root_seed, minimum=0)
    n_points = _validate.integer(n_points=n_points, minimum=2)
    _validate.one_of(("log", "linear"), spacing=spacing)
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"Expected progress to be True, False or None, got {progress!r}.")
    env = make_env(env_id, horizon, env_kwargs)  # fail fast on a bad id / kwargs
    core = env.unwrapped
    per_round = max(_round_elements(_observation_model(f), core) for f in agents.values())
    check_memory(core, int(core.horizon), max(per_round, BLOCK_ELEMENTS), n_jobs)
    env.close()
    show = progress is not False
    options = {
        "horizon": horizon,
        "env_kwargs": env_kwargs,
        "n_points": n_points,
        "spacing": spacing,
        "progress_interval": INTERVAL if show else None,
    }
    tasks = [
        (env_id, name, factory, root_seed, index, options)
        for index in range(n_seeds)
        for name, factory in agents.items()
    ]
    report = RunProgress(len(tasks), enabled=show)
    frames: list[pd.DataFrame] = []
    n_jobs = min(n_jobs, len(tasks))
    if n_jobs == 1:
        results = map(_run_task, tasks)
    else:
        report.note(f"preparing compiled kernels (compiled on first use, then cached), then {n_jobs} workers")
        _compile_here(env_id, agents, options)
        context = multiprocessing.get_context("spawn")
        pool = futures.ProcessPoolExecutor(max_workers=n_jobs, mp_context=context)
        results = pool.map(_run_task, tasks)
    try:
        for task, (frame, seconds) in zip(tasks, results, strict=True):
            frames.append(frame)
            report.run_done(task[1], task[4], seconds)
    finally:
        report.close()
        if n_jobs > 1:
            pool.shutdown(cancel_futures=True)
    import pandas as pd

    return pd.concat(frames, ignore_index=True)
