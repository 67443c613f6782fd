"""The ``dpbandit`` command line.

``dpbandit`` with no arguments runs the default comparison (``dpbandit run`` with its defaults):
a small private-vs-non-private regret comparison that prints a regret table and writes results and a
plot under ``out/default``. The ``run`` options also work without the word ``run``
(``dpbandit --horizon 100`` is ``dpbandit run --horizon 100``). ``dpbandit sweep CONFIG`` runs a
resumable grid (docs/sweeps.md) and ``dpbandit report DIR`` turns its store into tables and plots.
``dpbandit list`` shows every agent and environment.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import textwrap
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_ENV = "dpbandit/HDBSection54-v0"
#: The agents of the default job: the recommended private agent (docs/batched_agents.md), the faithful DP-HDB,
#: LinUCB (not private) and random (:data:`DEFAULT_NOTE` says what to look at); each private agent at its own
#: default delta (``min(1e-5, 1/(10T))`` for ``private``, the paper's 1/T for DP-HDB; docs/privacy.md).
DEFAULT_AGENTS = "private,dphdb,linucb,random"
DEFAULT_SEEDS = 8
#: Worker processes [Fill]: starting one costs 3-5 s (imports, loading the compiled kernels), more than
#: the default job's runs take (0.1-0.5 s each), so the default plays in this process.
DEFAULT_JOBS = 1
#: What the default job's reader should look at (printed after its table).
DEFAULT_NOTE = (
    "Look at ratio_to_random: below 1, with its CI below 1, means an agent learns. At epsilon = 1 the "
    "recommended private agent (each user in one release) learns (ratio ~0.29; on this sparse, "
    "low-dimensional setting the specialised batched-screening-perarm does better, ~0.26: README, 'Which "
    "private agent'); faithful DP-HDB (a release per round) is expected to play like random (ratio ~1): its "
    "selection "
    "noise at t = 10^4 is ~150x the best vertex's score margin (results/dphdb_noise_gap.md), and it crosses "
    "below random only after ~2 x 10^5 "
    "rounds. LinUCB (not private) shows what the data allow. Guides: docs/batched_agents.md, "
    "docs/private_agents.md."
)
#: The line printed after any other comparison.
NOTE = "Look at ratio_to_random: below 1, with its CI below 1, means an agent learns (paired by seed)."
#: The line printed after a comparison on an environment without expected rewards (observed reward only).
REWARD_NOTE = (
    "Look at reward_gain_over_random: above 0, with its CI above 0, means an agent earns more reward per "
    "round than random on the same seeds."
)
#: The line printed when no random agent ran (no reference column in the table); ``{column}`` is the metric's.
NO_REFERENCE_NOTE = (
    "Look at {column} ({better} is better). Add random (random-perarm on per-arm features) to --agents to "
    "see each agent's ratio to random play."
)
#: The line printed when random's regret is 0 on every seed (the ratio is undefined).
UNDEFINED_RATIO_NOTE = (
    "ratio_to_random is undefined ('-'): random's final regret is 0 on every seed, so every arm is as good "
    "as every other and no agent can do better than random here (final_regret_mean says the same)."
)

#: Help of ``--wide`` (run and report).
WIDE_HELP = (
    "print every column of the table (default: a compact view of agent, trust model, epsilon (delta), final "
    "regret and ratio to random with their 95%% intervals, accuracy)"
)

EXAMPLES = """examples (times on 2 cores):
  dpbandit                                 # the default comparison (10-30 s)
  dpbandit --horizon 2000 --seeds 4        # run options work without the word `run` (5-10 s)
  dpbandit run --agents linucb,greedy,random --env dpbandit/LinearBandit-v0 --horizon 5000   # about 10 s
  dpbandit run --agents batched-screening,dphdb,random --agent linucb:alpha=0.5,regularization=2 --epsilon 0.5
  dpbandit run --env dpbandit/Digits-v0 --agents private:max_rounds_per_user=5,linucb,random
  dpbandit run --env mymodule:MyBandit --agents linucb,random   # your own environment (run from its folder)
  dpbandit run --agents mymodule:MyAgent:explore=0.1,linucb,random   # your own agent (run from its folder)
  dpbandit list                            # every agent and environment, with its defaults
  dpbandit sweep examples/sweep_small.toml # a resumable grid, about a minute (docs/sweeps.md)
"""


def _check_out_dir(out: Path) -> Path:
    """Create ``out`` (a writable folder) or raise naming ``--out``, before any work starts."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"Expected --out to be a folder, got the file {str(out)!r}.")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as err:
        raise ValueError(
            f"Expected --out={str(out)!r} to be a writable folder: {err.strerror or err}."
        ) from None
    for name in ("results.parquet", "final_regret.csv", "regret.png"):
        if (out / name).is_dir():
            raise ValueError(f"Expected --out={str(out)!r}/{name} to be a file name, but it is a folder.")
    return out


def _agent_specs(args: argparse.Namespace) -> list[str]:
    from dpbandit.agents.specs import split_agent_list

    specs = split_agent_list(args.agents) if args.agents is not None else []
    specs += [spec.strip() for spec in args.agent]
    return specs or split_agent_list(DEFAULT_AGENTS)


def _budget_reaches_no_agent(common: dict[str, Any], factories: dict[str, Any]) -> list[str]:
    """The ``--epsilon`` / ``--delta`` options that no listed agent takes."""
    from dpbandit.agents.specs import accepted_options

    unused = []
    for option in common:
        taken = [
            name
            for name, factory in factories.items()
            if option in getattr(factory, "keywords", {})
            or accepted_options(getattr(factory, "func", factory)) is None
        ]
        if not taken:
            unused.append(option)
    return unused


def _registered_taking(option: str) -> list[str]:
    """Registered agent names whose constructor takes ``option``."""
    from dpbandit.agents import AGENTS, agent_class
    from dpbandit.agents.specs import accepted_options

    accepted = {name: accepted_options(agent_class(name)) for name in AGENTS}
    return [name for name, options in accepted.items() if options is None or option in options]


def _closing_note(table: Any, is_default: bool) -> str:
    """What to look at in ``table``: a sentence naming only columns that are printed."""
    from dpbandit.harness.summary import REGRET

    ratio, gain = "ratio_to_random", "reward_gain_over_random"
    if ratio in table and table[ratio].notna().any():
        return DEFAULT_NOTE if is_default else NOTE
    if gain in table and table[gain].notna().any():
        return REWARD_NOTE
    regret = bool((table["metric"] == REGRET).all())
    if ratio in table and regret:
        return UNDEFINED_RATIO_NOTE
    column, better = ("final_regret_mean", "lower") if regret else ("avg_reward_mean", "higher")
    return NO_REFERENCE_NOTE.format(column=column, better=better)


def _print_table(table: Any, *, wide: bool = False, by: tuple[str, ...] | None = None) -> None:
    """Print the metric the table shows, the table (compact, or every column with ``wide``:
    :mod:`dpbandit.harness.table_view`), and (to standard error) a warning for few seeds."""
    from dpbandit.harness.summary import table_notes
    from dpbandit.harness.table_view import compact_lines, interval_legend, wide_view

    notes = table_notes(table)
    for note in notes:
        if not note.startswith("warning: "):
            print(note)
    if wide:
        print(wide_view(table).to_string(index=False))
    else:
        print("\n".join(compact_lines(table, by)))
        print(interval_legend(table, every="--wide")[0])  # few seeds: the warning below says it
    for note in notes:
        if note.startswith("warning: "):
            print(f"dpbandit: {note}", file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    from dpbandit.agents.specs import parse_agent, parse_assignments, split_agent_list

    common = {k: v for k, v in {"epsilon": args.epsilon, "delta": args.delta}.items() if v is not None}
    specs = _agent_specs(args)
    env_kwargs = parse_assignments(args.env_kwarg, "--env-kwarg")
    if args.horizon is not None and env_kwargs.get("horizon", args.horizon) != args.horizon:
        raise ValueError(
            f"Expected --horizon {args.horizon} and --env-kwarg horizon={env_kwargs['horizon']!r} to agree; "
            "give the horizon once (--horizon)."
        )
    agents = dict(parse_agent(spec, common) for spec in specs)
    if len(agents) < len(specs):
        raise ValueError(f"Expected distinct agents, got repeated specs in {specs}.")
    for option in _budget_reaches_no_agent(common, agents):
        takers = ", ".join(_registered_taking(option))
        print(
            f"dpbandit: warning: --{option} reaches no agent: none of {', '.join(agents)} takes {option} "
            f"(agents that do: {takers}).",
            file=sys.stderr,
        )
    out = _check_out_dir(Path(args.out))

    from dpbandit.agents import AGENTS
    from dpbandit.harness import final_regret_table, plot_regret, run
    from dpbandit.harness.catalogue import check_observation_models
    from dpbandit.harness.environments import open_env, reusing_envs
    from dpbandit.harness.outdir import locked
    from dpbandit.harness.plot import describe_rewards
    from dpbandit.harness.protocol import DEFAULT_HORIZON

    with reusing_envs():  # the environment is built and described once for the job, here
        probe, core, _ = open_env(args.env, args.horizon, env_kwargs)  # errors name env / kwargs / horizon
        reward_law = describe_rewards(probe)
        registered = [name for name in (spec.partition(":")[0].strip() for spec in specs) if name in AGENTS]
        check_observation_models(registered, args.env, core.observation_model)
        env_label = f"{args.env}: d={core.dim}, K={core.n_arms}, T={core.horizon:,}"
        print(f"{env_label} ({_horizon_source(core, env_kwargs)}); {len(agents)} agents x {args.seeds} seeds")
        with locked(out, option="--out"):
            df = run(
                args.env,
                agents,
                n_seeds=args.seeds,
                root_seed=args.root_seed,
                horizon=args.horizon,
                env_kwargs=env_kwargs,
                n_jobs=args.jobs,
                progress=False if args.no_progress else None,
            )
            df.to_parquet(out / "results.parquet", index=False)
            table = final_regret_table(df, reward_range=getattr(core, "reward_range", None))
            table.to_csv(out / "final_regret.csv", index=False)
            plot = plot_regret(df, out / "regret.png", env_label=env_label, reward_law=reward_law)
    _print_table(table, wide=args.wide)
    is_default = specs == split_agent_list(DEFAULT_AGENTS) and (args.env, core.horizon) == (
        DEFAULT_ENV,
        DEFAULT_HORIZON,
    )
    print("\n" + _closing_note(table, is_default))
    print(f"wrote {out / 'results.parquet'}, {out / 'final_regret.csv'} and {plot}")
    return 0


def _horizon_source(description: Any, env_kwargs: dict[str, Any]) -> str:
    """Where the run's horizon comes from (:func:`dpbandit.harness.protocol.horizon_phrase`, with the
    command's option names), for the line printed before the work."""
    from dpbandit.harness.protocol import horizon_phrase

    if "horizon" in env_kwargs and description.horizon_source != "given":
        return "T from --env-kwarg horizon"
    phrase = horizon_phrase(description, "--horizon")
    return phrase + ("; --horizon T sets it" if description.horizon_source == "default" else "")


def _cmd_sweep(args: argparse.Namespace) -> int:
    from dpbandit.sweep import Store, Sweep, default_store_dir, execute

    sweep = Sweep.from_file(args.config)  # every config error surfaces here, before any work
    out = Path(args.out) if args.out else default_store_dir(sweep)
    if args.dry_run:
        store = Store.read(out) if (out / "manifest.json").exists() else None
        done = len(store.finished()) if store else 0
        print(f"sweep {sweep.name!r}: {len(sweep.cells)} cells ({done} finished) -> {out}")
        refusal = store.code_provenance() if store else None
        if refusal and not args.allow_code_change:
            print(f"resuming would be refused: {refusal}; --allow-code-change resumes anyway")
        return 0
    try:
        outcome = execute(
            sweep,
            out,
            backend=args.backend,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=False if args.no_progress else None,
            allow_code_change=args.allow_code_change,
        )
    except ImportError as err:  # the Dask extra is missing
        print(f"dpbandit: error: {err}", file=sys.stderr)
        return 2
    print(outcome.summary())
    print(f"tables and plots: dpbandit report {out}")
    return 1 if outcome.failures else 0


def _cmd_report(args: argparse.Namespace) -> int:
    import pandas as pd

    from dpbandit.sweep import Store
    from dpbandit.sweep.report import config_columns, report

    store = Store.read(args.store)
    paths = report(args.store, args.out)
    summary = pd.read_csv(paths["summary"])
    keys = [c for c in config_columns(summary) if c == "agent" or summary[c].nunique(dropna=True) > 1]
    _print_table(summary, wide=args.wide, by=tuple(keys))
    total, done, failed = len(store.manifest["cells"]), len(store.finished()), len(store.failures())
    print(
        f"\n{done} of {total} cells finished, {failed} failed; wrote " + ", ".join(map(str, paths.values()))
    )
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    """Print every registered agent and environment (:mod:`dpbandit.harness.catalogue`)."""
    from dpbandit.harness.catalogue import agent_entries, env_entries

    agents = agent_entries()
    width = max(len(a.name) for a in agents)
    print("agents (--agents NAME[:option=value,...]; 'private, central': central-model DP):")
    for a in agents:
        privacy = f"private, {a.trust_model}" if a.private else "not private"
        features = a.observation_model.replace("_", "-")
        print(f"  {a.name:<{width}}  [{privacy}; {features} features]  {a.description}")
    envs = env_entries()
    width = max(len(e.env_id) for e in envs)
    print("\nenvironments (--env ID; --env-kwarg KEY=VALUE changes a default):")
    for e in envs:
        print(f"  {e.env_id:<{width}}  " + ", ".join(f"{k}={v!r}" for k, v in e.defaults.items()))
    print(
        "\nyour own: --env mymodule:ClassName or --env mymodule:EnvId-v0, and --agents mymodule:ClassName or "
        "mymodule:factory (options after a second colon), run from mymodule's folder (README, 'Bring your "
        "own agent'; docs/architecture.md, 'Environment contract')."
    )
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpbandit")
    except PackageNotFoundError:  # pragma: no cover  (run from a source tree without installing)
        return "unknown (not installed)"


def _positive_float(text: str) -> float:
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--env",
        default=DEFAULT_ENV,
        help=f"the environment: a registered id (default {DEFAULT_ENV}; `dpbandit list` shows them all), "
        "'module:EnvId-v0' (the module registers the id) or 'module:ClassName' (any Gymnasium contextual "
        "bandit, docs/architecture.md); the current folder is importable, as with `python -m`, so run "
        "from your module's folder",
    )
    p.add_argument(
        "--agents",
        default=None,
        metavar="LIST",
        help=f"comma-separated agents (default {DEFAULT_AGENTS}); `dpbandit list` shows them all (private, "
        "random, linucb, batched-screening, dphdb, ...; '-perarm' forms for per-arm features). Options may "
        "follow a name: 'linucb:alpha=0.5,regularization=2' (an item with '=' belongs to the agent before "
        "it). Your own agent: 'mymodule:ClassName' or 'mymodule:factory' (an Agent subclass or a function "
        "returning one; run from mymodule's folder), options after a second colon: "
        "'mymodule:MyAgent:explore=0.1'",
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE,...",
        help="one agent with options, e.g. --agent linucb:alpha=0.5,regularization=2 or --agent "
        "mymodule:MyAgent:explore=0.1 (repeatable; added to --agents)",
    )
    p.add_argument(
        "--horizon",
        type=int,
        default=None,
        help="rounds T (default: the environment's own, e.g. a preset's horizon or the horizon= default of "
        "your class, else 10,000 (dpbandit.harness.protocol.DEFAULT_HORIZON); --env-kwarg horizon=T also "
        "sets it); run() and sweeps take T by the same rule",
    )
    p.add_argument(
        "--seeds", type=int, default=DEFAULT_SEEDS, help=f"number of seeds (default {DEFAULT_SEEDS})"
    )
    p.add_argument("--root-seed", type=int, default=0, help="root seed (same root -> same numbers)")
    p.add_argument(
        "--epsilon", type=_positive_float, default=None, help="privacy budget of the private agents"
    )
    p.add_argument(
        "--delta",
        type=float,
        default=None,
        help="delta of the private agents (default: each agent's own, 1/T for DP-HDB and DP-UCB, "
        "min(1e-5, 1/(10T)) for the batched agents and private)",
    )
    p.add_argument(
        "--env-kwarg", action="append", default=[], metavar="KEY=VALUE", help="env option (repeatable)"
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=DEFAULT_JOBS,
        help=f"worker processes (default {DEFAULT_JOBS}; 2 pays off once each run takes more than a few seconds)",
    )
    p.add_argument(
        "--out",
        default="out/default",
        help="output folder (default out/default; a job writing there refuses a second one, a later job "
        "replaces its files)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    p.add_argument("--wide", action="store_true", help=WIDE_HELP)
    p.set_defaults(handler=_cmd_run)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dpbandit`` command."""
    parser = argparse.ArgumentParser(
        prog="dpbandit",
        description=textwrap.fill(__doc__.split("\n\n")[1].replace("``", "`"), 88),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dpbandit {_version()}")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser(
        "run",
        help="run agents x env x seeds; print a regret table; write results + plot (the default command)",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_run_options(p)

    p = sub.add_parser("sweep", help="run (or resume) a grid from a TOML / YAML config into a store")
    p.add_argument("config", help="sweep config (.toml, .yaml or .yml); see docs/sweeps.md")
    p.add_argument("--out", default=None, help="store directory (default out/sweeps/<name>-<config hash>)")
    p.add_argument(
        "--backend",
        choices=("processes", "inprocess", "dask"),
        default=None,
        help="where cells run (default: the config's, else local processes)",
    )
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: every core)")
    p.add_argument(
        "--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786 (implies dask)"
    )
    p.add_argument("--dry-run", action="store_true", help="validate the config and print the cell count")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--allow-code-change",
        action="store_true",
        help="resume a store whose finished cells were computed by other dpbandit code (refused by default; "
        "the resumed cells may differ from the finished ones)",
    )
    p.set_defaults(handler=_cmd_sweep)

    p = sub.add_parser(
        "report", help="tables (mean, std, 95%% CI of final regret) and plots of a sweep store"
    )
    p.add_argument("store", help="sweep store directory")
    p.add_argument("--out", default=None, help="output directory (default STORE/report)")
    p.add_argument("--wide", action="store_true", help=WIDE_HELP)
    p.set_defaults(handler=_cmd_report)

    p = sub.add_parser(
        "list", help="every agent (private or not, trust and observation model) and environment"
    )
    p.set_defaults(handler=_cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpbandit`` console script."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["run", *argv]  # `dpbandit [run options]` is `dpbandit run [run options]`
    args = parser.parse_args(argv)
    from dpbandit.harness.protocol import EpisodeEnded

    path = list(sys.path)
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # --env mymodule:Class from mymodule's folder, as with `python -m`
    try:
        with warnings.catch_warnings():  # restores showwarning on exit
            warnings.showwarning = _OncePerJob()
            return args.handler(args)
    except (ValueError, TypeError, FileNotFoundError, EpisodeEnded) as err:
        parser.exit(2, f"dpbandit: error: {err}\n")
    finally:
        sys.path[:] = path


class _OncePerJob:
    """``warnings.showwarning`` of the command: ``dpbandit: warning: <message>`` on standard error, each text
    once per job. (Python's own "once" filter forgets what it showed whenever a library changes the filters,
    so the agents' warnings came once per seed.)"""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def __call__(self, message: Warning | str, *_: Any, **__: Any) -> None:
        text = f"dpbandit: warning: {message}"
        if text not in self.shown:
            self.shown.add(text)
            print(text, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
