"""Run agents x environment x seeds and collect tidy results.

One *run* is one agent on one seed for ``horizon`` rounds. For a given seed every agent plays on the
environment reset with the same seed (common random numbers, see :mod:`dpbandit.harness.seeding`), so
differences between agents are paired. Any Gymnasium contextual bandit following the protocol of
:mod:`dpbandit.harness.protocol` runs; it is built by :mod:`dpbandit.harness.environments`, once per job
and process, and described once: the checks before the first round read that description. The result
is a tidy ``pandas.DataFrame`` with one row per (agent, seed, recorded step); steps are recorded on a
grid of about ``n_points`` steps.
"""

from __future__ import annotations

import concurrent.futures as futures
import dataclasses
import math
import multiprocessing
import operator
import time
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpbandit import _validate
from dpbandit.agents.base import Agent
from dpbandit.harness import protocol, seeding
from dpbandit.harness.checks import accepts_keyword, check_agents, check_main_guard, check_memory
from dpbandit.harness.environments import (
    EnvSource,
    check_env_source,
    keep_envs,
    make_env,
    open_env,
    reusing_envs,
)
from dpbandit.harness.progress import INTERVAL, Heartbeat, RunProgress
from dpbandit.harness.protocol import EnvDescription, EpisodeEnded
from dpbandit.harness.timing import RunClock

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd  # imported where used: pandas takes ~0.4 s, `import dpbandit.harness` stays fast

__all__ = ["COLUMNS", "make_env", "recording_steps", "run", "run_one", "uses_block_path"]

AgentFactory = Callable[..., Agent]
"""Anything called as ``factory(n_arms=K, dim=d, rng=rng[, horizon=T][, reward_range=(low, high)])``: an
Agent class or a partial. ``horizon=T`` is passed only when the factory accepts a ``horizon`` keyword (or
``**kwargs``); ``reward_range`` likewise, and only when the environment declares both bounds finite."""

COLUMNS = [
    "env_id",
    "agent",
    "seed",
    "step",
    "cumulative_regret",
    "regret",
    "cumulative_reward",
    "cumulative_optimal",
    "wall_time",
    "compile_time",
    "epsilon",
    "claimed_epsilon",
    "delta",
    "user_epsilon",
    "local_epsilon",
    "trust_model",
]
"""The result columns. ``cumulative_regret`` / ``regret`` (pseudo-regret) and ``cumulative_optimal`` (rounds
whose arm had the largest expected reward) need ``info["expected_rewards"]`` and are NaN without it;
``cumulative_reward`` (observed rewards) is always there. ``wall_time`` (seconds since the run started) leaves
out ``compile_time`` (seconds compiling kernels so far, :mod:`dpbandit.harness.timing`). ``epsilon``
(accountant), ``claimed_epsilon``, ``delta`` and ``user_epsilon`` come from the agent's ``privacy`` (NaN for a
non-private agent, ``user_epsilon`` NaN unless the agent tracks users); ``trust_model`` is the guarantee's
(``central`` / ``shuffle`` / ``local``, empty for a non-private agent) and ``local_epsilon`` the epsilon of one
user's report on its own (local and shuffle models; NaN otherwise)."""


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


def _observation_model(factory: AgentFactory) -> str:
    """The ``observation_model`` of the class a factory builds (a class, or a ``functools.partial``)."""
    target = getattr(factory, "func", factory)
    return getattr(target, "observation_model", "shared")


def _check_fits(name: str, factory: AgentFactory, env: EnvDescription) -> None:
    """Raise naming ``agents[name]`` if the agent cannot consume the environment's observations."""
    model = _observation_model(factory)
    if model not in ("shared", "per_arm"):
        raise ValueError(
            f"Expected agents[{name!r}].observation_model to be 'shared' or 'per_arm', got {model!r}."
        )
    if model == "shared" and env.observation_model == "per_arm":
        raise TypeError(
            f"agents[{name!r}] consumes one shared context (observation_model 'shared') but the environment "
            f"gives per-arm features of shape {env.observation_shape}; use an agent with observation_model "
            "'per_arm'."
        )


def _observation_adapter(agent: Agent, env: EnvDescription) -> Callable[[np.ndarray], np.ndarray]:
    """Map the env's observations (one, or a block) to what the agent consumes (block features for a
    per-arm agent on a shared context)."""
    if agent.observation_model == env.observation_model:
        return lambda obs: obs
    from dpbandit.envs.wrappers import block_features

    return lambda obs: block_features(obs, env.n_arms)


def _feature_dim(observation_model: str, env: EnvDescription) -> int:
    if observation_model == "per_arm" and env.observation_model == "shared":
        return env.dim * env.n_arms
    return env.dim


def _round_elements(observation_model: str, env: EnvDescription) -> int:
    """Float64 elements of one round's observation as the agent receives it."""
    rows = 1 if observation_model == "shared" and env.observation_model == "shared" else env.n_arms
    return rows * _feature_dim(observation_model, env)


#: Float64 elements of the observations of one block of the fast path, at most [Fill].
BLOCK_ELEMENTS = 2**20
#: Rounds of the first block; later blocks aim at :data:`BLOCK_SECONDS` each (numbers never depend on
#: the block sizes: blocks are bit-identical to stepping) [Fill].
FIRST_BLOCK_ROUNDS = 64
#: Target wall time of one block, so long runs report progress and record wall times often [Fill].
BLOCK_SECONDS = 0.5


def uses_block_path(agent: Agent) -> bool:
    """Whether the harness plays ``agent`` in blocks (where the environment draws blocks): built-in agents
    (module ``dpbandit.*``) with ``play_block``; user agents keep the generic ``act``/``update`` loop."""
    return _block_path_class(type(agent))


def _block_path_class(factory: AgentFactory) -> bool:
    """:func:`uses_block_path` for the agents a factory builds, read from its class (a class, or a
    ``functools.partial`` of one; ``False`` for other factories)."""
    target = getattr(factory, "func", factory)
    return (
        isinstance(target, type)
        and target.__module__.startswith("dpbandit.")
        and callable(getattr(target, "play_block", None))
    )


@dataclasses.dataclass
class _Trace:
    """Per-round outcomes of one run (NaN regret / optimal without expected rewards) and the clock at
    the recorded steps."""

    regrets: np.ndarray
    rewards: np.ndarray
    optimal: np.ndarray
    wall: np.ndarray
    compiled: np.ndarray

    @classmethod
    def empty(cls, horizon: int, recorded: int) -> _Trace:
        return cls(
            np.full(horizon, math.nan),
            np.empty(horizon),
            np.full(horizon, math.nan),
            np.empty(recorded),
            np.empty(recorded),
        )

    def clock(self, at: np.ndarray | slice | int, clock: RunClock) -> None:
        self.wall[at] = clock.elapsed()
        self.compiled[at] = clock.compiled


def _user_id(value: Any, t: int) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"Expected info['user_id'] of round {t + 1} to be an int, got {value!r}.") from None


def _play_steps(
    agent: Agent, env: Any, obs: np.ndarray, spec: EnvDescription, record: np.ndarray, heartbeat: Heartbeat,
    clock: RunClock,
) -> _Trace:
    """The generic loop: ``act``, ``env.step``, ``update`` (with ``user_id=`` when the round has one and
    ``update`` takes it); the pseudo-regret ``max_a mu_{t,a} - mu_{t,a_t}`` from ``step``'s
    ``info["expected_rewards"]`` (the round just played)."""
    adapt = _observation_adapter(agent, spec)
    horizon = spec.horizon
    trace = _Trace.empty(horizon, record.size)
    gives_user = accepts_keyword(agent.update, "user_id")
    has_means: bool | None = None
    next_record = 0
    for t in range(horizon):
        observation = adapt(obs)
        action = agent.act(observation)
        obs, reward, terminated, truncated, info = env.step(action)
        reward = float(reward)
        if not math.isfinite(reward):
            raise ValueError(f"Expected the reward of round {t + 1} to be finite, got {reward}.")
        if gives_user and "user_id" in info:
            agent.update(observation, action, reward, user_id=_user_id(info["user_id"], t))
        else:
            agent.update(observation, action, reward)
        trace.rewards[t] = reward
        means = info.get("expected_rewards")
        if has_means is None:
            has_means = means is not None
        if has_means != (means is not None):
            raise ValueError(
                f"Expected info['expected_rewards'] in every round or in none; round {t + 1} "
                f"{'lacks it' if has_means else 'has it'}, round 1 {'has it' if has_means else 'lacks it'}."
            )
        if means is not None:
            means = np.asarray(means, dtype=float)
            if means.shape != (spec.n_arms,):
                raise ValueError(
                    f"Expected info['expected_rewards'] of shape ({spec.n_arms},), got {means.shape} in "
                    f"round {t + 1}."
                )
            best = means.max()
            trace.regrets[t] = best - means[action]
            trace.optimal[t] = means[action] >= best
        if (terminated or truncated) and t + 1 < horizon:
            raise EpisodeEnded(
                f"The environment ended its episode after {t + 1} rounds, before horizon={horizon}; a "
                "bandit is continuing (truncated at the horizon only)."
            )
        if t + 1 == record[next_record]:
            trace.clock(next_record, clock)
            next_record += 1
        if t % 1024 == 1023:
            heartbeat.tick(t + 1)
    return trace


def _act_update(
    agent: Agent, observations: np.ndarray, rewards: np.ndarray, users: np.ndarray | None, t: int,
    stops: list[int], clock_at: Callable[[], None],
) -> np.ndarray:
    """``act`` then ``update`` on each round of a drawn block, as the ``env.step`` loop calls them (the same
    arguments: the action as ``act`` returned it, the reward as a float, ``user_id=`` an int when the block has
    users and ``update`` takes them); ``clock_at()`` after each round of ``stops`` (0-based, in the block).
    Returns the actions as ints."""
    from dpbandit.envs.base import check_action  # the env.step check (envs loads gymnasium: not at import time)

    act, update, n_arms = agent.act, agent.update, agent.n_arms
    rows = rewards.tolist()  # Python floats: float(rewards[s, a]), as env.step returns them
    ids = None if users is None else users.tolist()
    chosen: list[int] = []
    begin, last = 0, len(rows) - 1
    ends = stops if stops and stops[-1] == last else [*stops, last]
    for i, stop in enumerate(ends):
        for s in range(begin, stop + 1):
            observation = observations[s]
            action = act(observation)
            a = action if action.__class__ is int and 0 <= action < n_arms else check_action(action, n_arms)
            reward = rows[s][a]
            if reward - reward != 0.0:  # NaN or infinite
                raise ValueError(f"Expected the reward of round {t + s + 1} to be finite, got {reward}.")
            if ids is None:
                update(observation, action, reward)
            else:
                update(observation, action, reward, user_id=ids[s])
            chosen.append(a)
        if i < len(stops):
            clock_at()
        begin = stop + 1
    return np.array(chosen, dtype=np.int64)


def _play_blocks(
    agent: Any, core: Any, obs: np.ndarray, spec: EnvDescription, record: np.ndarray, heartbeat: Heartbeat,
    clock: RunClock,
) -> _Trace:
    """Rounds from ``core.draw_rounds`` (bit-identical to stepping) fed to the agent: to ``play_block`` (with
    ``user_ids=`` when the block has them and ``play_block`` takes them) on the fast path
    (:func:`uses_block_path`), else to ``act`` / ``update`` round by round (:func:`_act_update`: the
    ``env.step`` loop's calls and numbers without stepping the environment); the pseudo-regret
    ``max_a mu_{t,a} - mu_{t,a_t}`` as the step loop computes it.

    Blocks start at :data:`FIRST_BLOCK_ROUNDS` rounds and then aim at :data:`BLOCK_SECONDS` each (at
    most :data:`BLOCK_ELEMENTS` observation elements). Wall times are taken at block ends on the fast path,
    at the recorded rounds otherwise."""
    adapt = _observation_adapter(agent, spec)
    horizon = spec.horizon
    stepwise = not uses_block_path(agent)
    method = agent.update if stepwise else agent.play_block
    gives_users = accepts_keyword(method, "user_id" if stepwise else "user_ids")
    most = max(1, BLOCK_ELEMENTS // int(np.prod(adapt(obs).shape)))
    trace = _Trace.empty(horizon, record.size)
    t, block, next_record = 0, min(most, FIRST_BLOCK_ROUNDS), 0
    while t < horizon:
        m = min(block, horizon - t)
        began = clock.elapsed()
        rounds = core.draw_rounds(m)
        users = getattr(rounds, "user_ids", None) if gives_users else None
        if stepwise:
            stops = (record[(record > t) & (record <= t + m)] - t - 1).tolist()

            def clock_at() -> None:
                nonlocal next_record
                trace.clock(next_record, clock)
                next_record += 1

            actions = _act_update(agent, adapt(rounds.observations), rounds.rewards, users, t, stops, clock_at)
        else:
            extra = {} if users is None else {"user_ids": users}
            actions = np.asarray(agent.play_block(adapt(rounds.observations), rounds.rewards, **extra))
        rows = np.arange(m)
        means = rounds.expected_rewards
        chosen, best = means[rows, actions], means.max(axis=1)
        trace.regrets[t : t + m] = best - chosen
        trace.optimal[t : t + m] = chosen >= best
        trace.rewards[t : t + m] = rounds.rewards[rows, actions]
        t += m
        if not stepwise:
            trace.clock((record > t - m) & (record <= t), clock)
        heartbeat.tick(t)
        block = int(min(most, 4 * m, max(1, m * BLOCK_SECONDS / max(clock.elapsed() - began, 1e-9))))
    return trace


def _start(
    env: EnvSource,
    agent_name: str,
    factory: AgentFactory,
    seed: np.random.SeedSequence,
    horizon: int | None,
    env_kwargs: Mapping[str, Any] | None,
) -> tuple[Any, EnvDescription, np.ndarray, Agent, bool]:
    """The environment reset for ``seed``, its description, its first observation, the agent built for it
    (given ``horizon`` and ``reward_range`` when it takes them) and whether the environment is kept
    (:func:`dpbandit.harness.environments.open_env`: then it is not closed after the run)."""
    made, spec, kept = open_env(env, horizon, env_kwargs)
    obs, _ = made.reset(seed=seeding.env_seed(seed))
    obs = protocol.check_observation(obs, spec)
    kwargs: dict[str, Any] = {"horizon": spec.horizon} if accepts_keyword(factory, "horizon") else {}
    reward_range = spec.finite_reward_range
    if reward_range is not None and _wants_reward_range(factory):
        kwargs["reward_range"] = reward_range
    agent = factory(
        n_arms=spec.n_arms,
        dim=_feature_dim(_observation_model(factory), spec),
        rng=seeding.agent_rng(seed, agent_name),
        **kwargs,
    )
    if not isinstance(agent, Agent):
        raise TypeError(
            f"Expected the factory of agent {agent_name!r} to build a dpbandit.agents.Agent, "
            f"got {type(agent).__name__}."
        )
    return made, spec, obs, agent, kept


def _compile_here(
    env: EnvSource, agents: Mapping[str, AgentFactory], options: Mapping[str, Any], spec: EnvDescription
) -> None:
    """Play the first block of every block-path agent in this process and discard it.

    Run before worker processes start: a compiled kernel is then compiled once here and loaded from
    numba's cache by every worker, instead of being compiled by several workers at once.
    """
    if not spec.block_draws:
        return
    seed = seeding.seed_sequence(0, 0)
    for name, factory in agents.items():
        if not _block_path_class(factory):
            continue
        horizon, env_kwargs = options["horizon"], options["env_kwargs"]
        made, spec, obs, agent, _ = _start(env, name, factory, seed, horizon, env_kwargs)
        first = min(FIRST_BLOCK_ROUNDS, spec.horizon)
        trial = dataclasses.replace(spec, horizon=first)
        with RunClock(True) as clock:
            heartbeat = Heartbeat(name, first, None)
            _play_blocks(agent, made.unwrapped, obs, trial, np.array([first]), heartbeat, clock)


def _nan_if_none(value: Any) -> float:
    return math.nan if value is None else float(value)


def run_one(
    env: EnvSource,
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

    ``env`` as for :func:`run`. ``progress_interval``: seconds between the round-progress lines of a long
    run (``None``: none).
    """
    made, spec, obs, agent, kept = _start(env, agent_name, factory, seed, horizon, env_kwargs)
    record = recording_steps(spec.horizon, n_points, spacing)
    heartbeat = Heartbeat(f"{agent_name} seed {seed_index}", spec.horizon, progress_interval)
    blocks = uses_block_path(agent)
    with RunClock(watch_numba=blocks) as clock:
        if spec.block_draws:
            trace = _play_blocks(agent, made.unwrapped, obs, spec, record, heartbeat, clock)
        else:
            trace = _play_steps(agent, made, obs, spec, record, heartbeat, clock)
    if not kept:
        made.close()
    import pandas as pd

    privacy = agent.privacy
    per_run = {
        "epsilon": None if privacy is None else privacy.epsilon,
        "claimed_epsilon": None if privacy is None else privacy.claimed_epsilon,
        "delta": None if privacy is None else privacy.claimed_delta,
        "user_epsilon": getattr(privacy, "user_epsilon", None),
        "local_epsilon": getattr(privacy, "local_epsilon", None),
    }
    return pd.DataFrame(
        {
            "env_id": env if isinstance(env, str) else spec.name,
            "agent": agent_name,
            "seed": seed_index,
            "step": record,
            "cumulative_regret": np.cumsum(trace.regrets)[record - 1],
            "regret": trace.regrets[record - 1],
            "cumulative_reward": np.cumsum(trace.rewards)[record - 1],
            "cumulative_optimal": np.cumsum(trace.optimal)[record - 1],
            "wall_time": trace.wall,
            "compile_time": trace.compiled,
            **{k: np.full(record.size, _nan_if_none(v)) for k, v in per_run.items()},
            "trust_model": "" if privacy is None else privacy.trust_model,
        },
        columns=COLUMNS,
    )


def _run_task(args: tuple) -> tuple[pd.DataFrame, float]:
    env, name, factory, root_seed, index, options = args
    start = time.perf_counter()
    frame = run_one(env, name, factory, seeding.seed_sequence(root_seed, index), seed_index=index, **options)
    return frame, time.perf_counter() - start


def _wants_reward_range(factory: AgentFactory) -> bool:
    """Whether the factory takes ``reward_range`` and the user did not bind one (the user's choice wins)."""
    given = getattr(factory, "keywords", None) or {}
    return "reward_range" not in given and accepts_keyword(factory, "reward_range")


def _warn_undeclared_range(agents: Mapping[str, AgentFactory], spec: EnvDescription) -> None:
    """Warn when the environment declares no ``reward_range`` and agents that read one get none."""
    if spec.reward_range is not None:
        return
    wanting = [name for name, factory in agents.items() if _wants_reward_range(factory)]
    if wanting:
        warnings.warn(
            f"The environment declares no reward_range, so {', '.join(wanting)} must learn the rewards' "
            "centre and clip from noisy releases. If the rewards are bounded, declare "
            "env.unwrapped.reward_range = (low, high) (or pass reward_range= to the agent): on a {0, 1} "
            "bandit this took `private` from 0.43x to 0.32x random's regret (README, 'Bring your own "
            "environment').",
            UserWarning,
            stacklevel=4,  # the caller of run()
        )


def _check_env(
    env: EnvSource, agents: Mapping[str, AgentFactory], horizon: int | None, env_kwargs: Any, n_jobs: int,
    root_seed: int,
) -> EnvDescription:
    """Open the job's environment (:func:`dpbandit.harness.environments.open_env`); check the agents fit its
    description and the runs fit in memory; return the description. Before worker processes start, reset it
    once to check its first observation (in this process, the first run's reset checks it)."""
    check_env_source(env, n_jobs)
    made, spec, _ = open_env(env, horizon, env_kwargs)
    if n_jobs > 1:
        obs, _ = made.reset(seed=seeding.env_seed(seeding.seed_sequence(root_seed, 0)))
        protocol.check_observation(obs, spec)
    for name, factory in agents.items():
        _check_fits(name, factory, spec)
    _warn_undeclared_range(agents, spec)
    per_round = max(_round_elements(_observation_model(f), spec) for f in agents.values())
    check_memory(spec, max(per_round, BLOCK_ELEMENTS), n_jobs)
    return spec


def run(
    env: EnvSource,
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
    """Run every agent on ``n_seeds`` seeds of the environment ``env``; return a tidy DataFrame.

    Args:
        env: a registered Gymnasium id (``"dpbandit/LinearBandit-v0"``), ``"module:EnvId-v0"`` (the module
            registers the id), an entry point ``"package.module:ClassName"``, or a ``gymnasium.Env`` subclass
            or function returning an Env (called with ``env_kwargs``, plus ``horizon=T`` if it takes
            ``horizon``). Any Gymnasium contextual bandit following :mod:`dpbandit.harness.protocol`.
        agents: display name -> factory (an Agent class or ``functools.partial(cls, **hyper)``).
        n_seeds: number of seeds (runs per agent).
        root_seed: the root of every seed (same root seed -> identical DataFrame, timing columns aside).
        horizon: number of rounds T (default: the environment's own, else
            :data:`~dpbandit.harness.protocol.DEFAULT_HORIZON`;
            ``frame.attrs["environment"]["horizon_source"]`` says which).
        env_kwargs: keyword arguments for building the environment (``gymnasium.make`` for an id).
        n_points: approximate number of recorded steps per run.
        spacing: ``"log"`` or ``"linear"`` recording grid.
        n_jobs: worker processes (1 runs in this process; factories must be picklable otherwise). Workers
            re-import the calling script, so a script needs ``if __name__ == "__main__":`` above its work;
            without it, ``run`` stops at once with one line saying so.
        progress: report progress on standard error (``None`` or ``True``: a bar on a terminal, plain
            lines in a log, see :mod:`dpbandit.harness.progress`; ``False``: silent).

    Every input is checked before the first round (names, factories, picklability for ``n_jobs > 1``,
    the environment against the protocol, each agent against its observations, a memory estimate).
    Columns: :data:`COLUMNS` (without ``info["expected_rewards"]`` the regret columns are NaN and
    ``cumulative_reward`` is the metric).

    Example:
        >>> from dpbandit.agents.linear import LinUCB
        >>> df = run("dpbandit/LinearBandit-v0", {"LinUCB": LinUCB}, n_seeds=1, horizon=50,
        ...          progress=False)
        >>> int(df["step"].max())
        50
    """
    n_jobs = _validate.integer(n_jobs=n_jobs, minimum=1)
    if n_jobs > 1:
        check_main_guard(f"run(n_jobs={n_jobs})")
    agents = check_agents(agents, n_jobs)
    n_seeds = _validate.integer(n_seeds=n_seeds, minimum=1)
    root_seed = _validate.integer(root_seed=root_seed, minimum=0)
    n_points = _validate.integer(n_points=n_points, minimum=2)
    _validate.one_of(("log", "linear"), spacing=spacing)
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"Expected progress to be True, False or None, got {progress!r}.")
    show = progress is not False
    options = {
        "horizon": horizon,
        "env_kwargs": env_kwargs,
        "n_points": n_points,
        "spacing": spacing,
        "progress_interval": INTERVAL if show else None,
    }
    with reusing_envs():
        spec = _check_env(env, agents, horizon, env_kwargs, n_jobs, root_seed)
        tasks = [
            (env, name, factory, root_seed, index, options)
            for index in range(n_seeds)
            for name, factory in agents.items()
        ]
        frames = _play(env, agents, options, tasks, spec, n_jobs, show)
    import pandas as pd

    frame = pd.concat(frames, ignore_index=True)
    # d, K and T for plot titles (dpbandit.harness.plot.environment_label)
    frame.attrs["environment"] = {
        "dim": spec.dim, "n_arms": spec.n_arms, "horizon": spec.horizon, "horizon_source": spec.horizon_source
    }
    return frame


def _play(
    env: EnvSource, agents: Mapping[str, AgentFactory], options: Mapping[str, Any], tasks: list[tuple],
    spec: EnvDescription, n_jobs: int, show: bool,
) -> list[pd.DataFrame]:
    """Play the runs ``tasks`` (in this process, or on ``n_jobs`` worker processes that each keep their
    environment for the job); return their frames in task order."""
    report = RunProgress(len(tasks), enabled=show)
    frames: list[pd.DataFrame] = []
    n_jobs = min(n_jobs, len(tasks))
    if n_jobs == 1:
        results = map(_run_task, tasks)
    else:
        report.note(f"preparing compiled kernels (compiled on first use, then cached), then {n_jobs} workers")
        _compile_here(env, agents, options, spec)
        context = multiprocessing.get_context("spawn")
        pool = futures.ProcessPoolExecutor(max_workers=n_jobs, mp_context=context, initializer=keep_envs)
        results = pool.map(_run_task, tasks)
    try:
        for task, (frame, seconds) in zip(tasks, results, strict=True):
            frames.append(frame)
            report.run_done(task[1], task[4], seconds)
    finally:
        report.close()
        if n_jobs > 1:
            pool.shutdown(cancel_futures=True)
    return frames
