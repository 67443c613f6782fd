"""The ``dpbandit`` command line.

``dpbandit`` with no arguments runs the default comparison (``dpbandit run`` with its defaults):
a small private-vs-non-private regret comparison that prints a regret table and writes results and a
plot under ``out/``. ``dpbandit run --help`` lists the options. ``dpbandit sweep CONFIG`` runs a
resumable grid (docs/sweeps.md) and ``dpbandit report DIR`` turns its store into tables and plots.
"""

from __future__ import annotations

import argparse
import ast
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

DEFAULT_ENV = "dpbandit/HDBSection54-v0"
DEFAULT_AGENTS = "dphdb,dpucb,linucb,random"
DEFAULT_HORIZON = 10_000
DEFAULT_SEEDS = 4


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_assignments(items: Sequence[str], what: str) -> dict[str, Any]:
    """Parse ``["a=1", "b=x"]`` into ``{"a": 1, "b": "x"}`` (values as Python literals when possible)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"Expected {what} entries of the form key=value, got {item!r}.")
        out[key.strip()] = _literal(value.strip())
    return out


def parse_agent(spec: str, common: dict[str, Any] | None = None) -> tuple[str, Any]:
    """Parse ``"name"`` or ``"name:key=value,key=value"`` into ``(display_name, factory)``.

    ``common`` keyword arguments (e.g. ``epsilon``) go only to agents whose constructor accepts them.
    """
    import inspect

    from dpbandit.agents import agent_class

    name, _, rest = spec.strip().partition(":")
    cls = agent_class(name)
    accepted = inspect.signature(cls.__init__).parameters
    kwargs = {k: v for k, v in (common or {}).items() if k in accepted}
    kwargs.update(parse_assignments([p for p in rest.split(",") if p], f"agent {name!r} option"))
    unknown = [k for k in kwargs if k not in accepted]
    if unknown:
        raise ValueError(f"Unknown option(s) {unknown} for agent {name!r}.")
    display = spec.strip() if rest else name
    return display, functools.partial(cls, **kwargs) if kwargs else cls


def _cmd_run(args: argparse.Namespace) -> int:
    from dpbandit.harness import final_regret_table, plot_regret, run

    common = {k: v for k, v in {"epsilon": args.epsilon, "delta": args.delta}.items() if v is not None}
    agents = dict(parse_agent(spec, common) for spec in args.agents.split(",") if spec.strip())
    env_kwargs = parse_assignments(args.env_kwarg, "--env-kwarg")
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
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_parquet(out / "results.parquet", index=False)
    table = final_regret_table(df)
    table.to_csv(out / "final_regret.csv", index=False)
    plot = plot_regret(df, out / "regret.png", title=f"{args.env}: mean cumulative regret, 95% CI")
    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.precision", 3):
        shown = table.rename(columns={"epsilon": "epsilon_accountant", "claimed_epsilon": "epsilon_claimed"})
        print(shown.to_string(index=False))
    print(f"\nwrote {out / 'results.parquet'}, {out / 'final_regret.csv'} and {plot}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from dpbandit.sweep import Store, Sweep, default_store_dir, execute

    sweep = Sweep.from_file(args.config)  # every config error surfaces here, before any work
    out = Path(args.out) if args.out else default_store_dir(sweep)
    if args.dry_run:
        done = len(Store.read(out).finished()) if (out / "manifest.json").exists() else 0
        print(f"sweep {sweep.name!r}: {len(sweep.cells)} cells ({done} finished) -> {out}")
        return 0
    try:
        outcome = execute(
            sweep,
            out,
            backend=args.backend,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=False if args.no_progress else None,
        )
    except ImportError as err:  # the Dask extra is missing
        print(f"dpbandit: error: {err}", file=sys.stderr)
        return 2
    print(outcome.summary())
    print(f"tables and plots: dpbandit report {out}")
    return 1 if outcome.failures else 0


def _cmd_report(args: argparse.Namespace) -> int:
    from dpbandit.sweep import Store
    from dpbandit.sweep.report import report

    store = Store.read(args.store)
    paths = report(args.store, args.out)
    table = pd.read_csv(paths["summary"])
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 3):
        print(table.drop(columns=["claimed_epsilon", "ci95_low", "ci95_high"]).to_string(index=False))
    total, done, failed = len(store.manifest["cells"]), len(store.finished()), len(store.failures())
    print(f"\n{done} of {total} cells finished, {failed} failed; wrote " + ", ".join(map(str, paths.values())))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dpbandit`` command."""
    parser = argparse.ArgumentParser(prog="dpbandit", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("run", help="run agents x env x seeds; print a regret table; write results + plot")
    p.add_argument("--env", default=DEFAULT_ENV, help=f"registered env id (default {DEFAULT_ENV})")
    p.add_argument(
        "--agents",
        default=DEFAULT_AGENTS,
        help="comma-separated agent names, each optionally name:key=value,... "
        f"(default {DEFAULT_AGENTS}); known: see dpbandit.agents.AGENTS",
    )
    p.add_argument("--horizon", type=int, default=DEFAULT_HORIZON, help="rounds T")
    p.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="number of seeds")
    p.add_argument("--root-seed", type=int, default=0, help="root seed (same root -> same numbers)")
    p.add_argument("--epsilon", type=float, default=None, help="privacy budget for private agents")
    p.add_argument("--delta", type=float, default=None, help="delta for private agents (default 1/T)")
    p.add_argument("--env-kwarg", action="append", default=[], metavar="KEY=VALUE", help="env option")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--out", default="out/default", help="output directory")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=_cmd_run)

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
    p.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786 (implies dask)")
    p.add_argument("--dry-run", action="store_true", help="validate the config and print the cell count")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=_cmd_sweep)

    p = sub.add_parser("report", help="tables (mean, std, 95%% CI of final regret) and plots of a sweep store")
    p.add_argument("store", help="sweep store directory")
    p.add_argument("--out", default=None, help="output directory (default STORE/report)")
    p.set_defaults(handler=_cmd_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpbandit`` console script."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv or ["run"])
    try:
        return args.handler(args)
    except (ValueError, TypeError) as err:
        parser.exit(2, f"dpbandit: error: {err}\n")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
