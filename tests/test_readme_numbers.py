"""The numbers the README and docs/ give for what a command or an example prints, checked at their source.

Issue 32. Each number is read from the document itself (a regular expression on its sentence), so a changed
result fails here, naming the sentence to update, and nowhere else:

* the default job's numbers (README set-up section, the note the command prints): against one run of the
  default job, shared by the tests of this file (module fixture, ~20 s);
* the command-line examples' ratios: against ``results/cli_examples.csv`` (``python sims/cli_examples.py``
  runs the README's commands as written), whose default-job rows must equal the run above (the page is fresh);
* the default job's setting (env, d, K, T, seeds, `private`'s delta): against that run;
* the logistic example's spread and gaps: against its environment's expected rewards on the command's seeds;
* "Bring your own environment" (and the harness's undeclared-range warning): against
  ``results/own_env.csv`` (``python sims/own_env.py``), whose commands must be the script's;
* the "Which private agent" table and the sentences quoting it: against ``results/learning_suite.csv``, which
  it cites; the simple reference against ``results/etc_baseline.csv``; the DP-HDB crossover against
  ``results/fig5_1_long.md``;
* the user-level epsilon of the privacy section and the worked example of docs/privacy.md: against the agents
  (their accountant; the rounds learned from a seeded run);
* every ``print(...)  # <numbers>`` line of docs/ and the README: the printed numbers, to the comment's
  digits.

A README number ``~0.34`` matches a value that rounds to it at its digits (0.336 does, 0.346 does not).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpbandit import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
CLI_EXAMPLES = ROOT / "results" / "cli_examples.csv"
LEARNING_SUITE = ROOT / "results" / "learning_suite.csv"
#: The standardised-feature rerun of the small data sets (issue 29), which the README's wine row cites.
REAL_DATA_SCALING = ROOT / "results" / "real_data_scaling.csv"
FIG5_1_LONG = ROOT / "results" / "fig5_1_long.md"
#: The simple reference (`private-etc`) against `private`, which the README cites.
ETC_BASELINE = ROOT / "results" / "etc_baseline.csv"
#: The README's "Bring your own environment" numbers (``python sims/own_env.py``).
OWN_ENV = ROOT / "results" / "own_env.csv"
#: ``` `agent` ratio ~0.34 (CI below 1)``` in the README's list of command-line examples.
RATIO_CLAIM = re.compile(r"`([^`]+)` ratio ~([\d.]+)(?: \(CI (below|reaching above) 1\))?")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _find(pattern: str, text: str) -> tuple[str, ...]:
    """The groups of ``pattern`` in ``text`` (whitespace-normalised); fails naming the sentence if gone."""
    match = re.search(pattern, _flat(text))
    assert match, f"the sentence {pattern!r} is no longer in the document: update this test with it"
    return match.groups()


def rounds_to(text: str, value: float) -> bool:
    """Whether ``value`` rounded to the digits of ``text`` (e.g. ``"0.34"``, ``"1.0"``, ``"7,827"``) is it."""
    text = text.replace(",", "")
    digits = len(text.split(".")[1]) if "." in text else 0
    return math.isclose(round(float(value), digits), float(text), abs_tol=10.0 ** -(digits + 6))


def _section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 3)
    return text[start:] if end < 0 else text[start:end]


def _sims(module: str):
    """A module of ``sims/`` (not a package: imported from its folder)."""
    import importlib

    sys.path.insert(0, str(ROOT / "sims"))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(ROOT / "sims"))


# ------------------------------------------------------------------------------ the default job
@pytest.fixture(scope="module")
def default_job(tmp_path_factory) -> tuple[pd.DataFrame, str]:
    """One run of the default job as a newcomer types it (``dpbandit``): its table and what it printed."""
    out = tmp_path_factory.mktemp("default")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli.main(["--out", str(out), "--no-progress"]) == 0
    return pd.read_csv(out / "final_regret.csv").set_index("agent"), printed.getvalue()


def _learning_suite(setting: str, agent: str, column: str) -> float:
    """``column`` of ``agent`` on ``setting`` in the learning suite, or, for ``"scaling:<data>"``, its
    standardised accuracy (``after``) at T = 10^5 in :data:`REAL_DATA_SCALING`."""
    if setting.startswith("scaling:"):
        table = pd.read_csv(REAL_DATA_SCALING, comment="#")
        row = table[(table["data"] == setting.partition(":")[2]) & (table["agent"] == agent)
                    & (table["horizon"] == 100_000)]
        assert len(row) == 1, f"{setting} / {agent} not in {REAL_DATA_SCALING.name}"
        return float(row["after"].iloc[0])
    suite = pd.read_csv(LEARNING_SUITE, comment="#")
    row = suite[(suite["setting"] == setting) & (suite["agent"] == agent)]
    assert len(row) == 1, f"{setting} / {agent} not in {LEARNING_SUITE.name}"
    return float(row[column].iloc[0])


def _dphdb_crossover() -> int:
    """The round after which faithful DP-HDB beats random for good, in ``results/fig5_1_long.md``."""
    (measured,) = _find(r"Crossover \(T = 1e\+07 run\): T_x = (\d+)", FIG5_1_LONG.read_text())
    return int(measured)


def _dphdb_noise_over_gap() -> float:
    """DP-HDB's selection scale over the best vertex's margin at T = 10^4 (``python sims/dphdb_noise_gap.py``)."""
    rows = pd.read_csv(ROOT / "results" / "dphdb_noise_gap.csv", comment="#")
    return float(rows["scale_over_gap"].median())


def test_setup_section_numbers_match_the_default_job(default_job):
    table, _ = default_job
    setup = _section("Set up a fresh machine")
    (private,) = _find(r"`private` learns at epsilon = 1 \(about ([\d.]+)x random's regret", setup)
    assert rounds_to(private, table.loc["private", "ratio_to_random"])
    (screening,) = _find(
        r"`batched-screening-perarm` does better, about ([\d.]+)x in `results/learning_suite.md`", setup
    )
    assert rounds_to(screening, _learning_suite("S1", "batched-screening-perarm", "ratio_to_random"))
    (dphdb,) = _find(r"play like random, with a ratio of about (\d+):", setup)
    assert rounds_to(dphdb, table.loc["dphdb", "ratio_to_random"])
    (crossover,) = _find(r"it starts to beat random only after about (\d+) x 10\^5 rounds", setup)
    assert rounds_to(crossover, _dphdb_crossover() / 1e5)
    (noise,) = _find(r"its selection noise is about (\d+) times the best vertex's score margin", setup)
    assert rounds_to(noise, _dphdb_noise_over_gap())


def test_default_job_setting_is_the_one_run(default_job):
    """"(`dpbandit/HDBSection54-v0`: d = 50, K = 2, T = 10,000, 8 seeds)" and `private`'s "delta 10^-5"."""
    table, printed = default_job
    setup = _section("Set up a fresh machine")
    env, dim, n_arms, horizon, seeds = _find(
        r"On the Figure 5.1 environment of 004 \(`([^`]+)`: d = (\d+), K = (\d+), T = ([\d,]+), "
        r"(\d+) seeds\)",
        setup,
    )
    assert cli.build_parser().parse_args(["run"]).env == env
    assert f"{env}: d={dim}, K={n_arms}, T={horizon} " in printed
    assert (table["horizon"] == int(horizon.replace(",", ""))).all() and (table["seeds"] == int(seeds)).all()
    epsilon, power = _find(r"`private` at epsilon = ([\d.]+) \(delta 10\^(-\d+), its default\)", setup)
    assert rounds_to(epsilon, table.loc["private", "epsilon"])
    assert table.loc["private", "delta"] == 10.0 ** int(power)


def test_the_default_jobs_printed_note_matches_its_table(default_job):
    table, printed = default_job
    assert cli.DEFAULT_NOTE in _flat(printed)
    (private,) = _find(r"learns \(ratio ~([\d.]+);", cli.DEFAULT_NOTE)
    assert rounds_to(private, table.loc["private", "ratio_to_random"])
    (screening,) = _find(r"batched-screening-perarm does better, ~([\d.]+):", cli.DEFAULT_NOTE)
    assert rounds_to(screening, _learning_suite("S1", "batched-screening-perarm", "ratio_to_random"))
    (dphdb,) = _find(r"play like random \(ratio ~(\d+)\)", cli.DEFAULT_NOTE)
    assert rounds_to(dphdb, table.loc["dphdb", "ratio_to_random"])
    (crossover,) = _find(r"crosses below random only after ~(\d+) x 10\^5 rounds", cli.DEFAULT_NOTE)
    assert rounds_to(crossover, _dphdb_crossover() / 1e5)
    (noise,) = _find(r"noise at t = 10\^4 is ~(\d+)x the best vertex's score margin", cli.DEFAULT_NOTE)
    assert rounds_to(noise, _dphdb_noise_over_gap())


def test_the_results_page_of_the_commands_is_fresh(default_job):
    """``results/cli_examples.csv`` lists the README's commands, and its default job is today's."""
    readme_commands = _sims("cli_examples").readme_commands
    page = pd.read_csv(CLI_EXAMPLES, comment="#")
    assert page.groupby("example")["command"].first().tolist() == readme_commands()
    table, _ = default_job
    first = page[page["example"] == 1].set_index("agent")
    assert sorted(first.index) == sorted(table.index)
    for column in ("ratio_to_random", "ratio_to_random_ci95_high", "final_regret_mean"):
        for agent in table.index:  # the page keeps 4 significant digits
            assert float(f"{table.loc[agent, column]:.4g}") == pytest.approx(
                first.loc[agent, column], rel=1e-9
            ), f"results/cli_examples.csv is stale ({agent}, {column}): rerun python sims/cli_examples.py"


def test_command_line_numbers_match_the_results_page():
    page = pd.read_csv(CLI_EXAMPLES, comment="#")
    listing = _section("Command line")
    listing = listing[
        listing.index("What each shows") : listing.index("Agents by name")
        if "Agents by name" in listing
        else None
    ]
    items = re.split(r"\n(?=\d+\. )", listing)[1:]
    assert len(items) == page["example"].nunique(), "one README item per command of the page"
    checked = 0
    for item in items:
        number = int(item.split(".")[0])
        claims = RATIO_CLAIM.findall(_flat(item))
        assert claims, f"item {number} quotes no `agent` ratio ~x"
        rows = page[page["example"] == number].set_index("agent")
        for agent, value, ci in claims:
            assert agent in rows.index, f"item {number}: {agent} not run by that command"
            ratio, high = rows.loc[agent, "ratio_to_random"], rows.loc[agent, "ratio_to_random_ci95_high"]
            assert rounds_to(value, ratio), (
                f"item {number}: README says {agent} ~{value}, the page {ratio:.4g}"
            )
            if ci == "below":
                assert high < 1, f"item {number}: {agent}'s CI reaches {high:.3g}"
            elif ci:
                assert high >= 1, f"item {number}: {agent}'s CI ends at {high:.3g}, below 1"
            checked += 1
    assert checked >= 12


def _expected_rewards(command: str, horizon: int | None = None, **changes) -> np.ndarray:
    """Every arm's expected reward over ``horizon`` rounds (default: the command's) of each seed of
    ``command``'s environment (its ``--env-kwarg`` options updated by ``changes``), shape
    ``(seeds * T, K)``."""
    import shlex

    import gymnasium

    from dpbandit.agents.specs import parse_assignments
    from dpbandit.harness import seeding

    args = cli.build_parser().parse_args(shlex.split(command)[1:])
    kwargs = {**parse_assignments(args.env_kwarg, "--env-kwarg"), **changes}
    horizon = args.horizon if horizon is None else horizon
    means = []
    for index in range(args.seeds):
        env = gymnasium.make(args.env, horizon=horizon, **kwargs)
        env.reset(seed=seeding.env_seed(seeding.seed_sequence(args.root_seed, index)))
        means.append(env.unwrapped.draw_rounds(horizon).expected_rewards)
    return np.concatenate(means)


def test_the_logistic_examples_gap_is_its_environments():
    """Item 5, on the command's environment and seeds: "spreads the arms' means over about [0.2, 0.8]" (the
    central 95% of every arm's mean over the rounds), "the best arm beats the average by ~0.18 per round",
    and the earlier version's (``theta_radius=1``, ``dim=200``, T = 2,000) "~0.02 per round"."""
    item = _section("Command line")
    low, high = _find(r"`theta_radius=3` spreads the arms' means over about \[([\d.]+), ([\d.]+)\]", item)
    (gap,) = _find(r"the best arm beats the average by ~([\d.]+) per round\. An earlier version", item)
    (earlier,) = _find(r"the best arm beat the average by ~([\d.]+) per round under Bernoulli noise", item)
    command = _sims("cli_examples").readme_commands()[4]
    means = _expected_rewards(command)
    assert rounds_to(low, np.quantile(means, 0.025)) and rounds_to(high, np.quantile(means, 0.975))
    assert rounds_to(gap, float((means.max(axis=1) - means.mean(axis=1)).mean()))
    means = _expected_rewards(command, 2_000, theta_radius=1, dim=200)
    assert rounds_to(earlier, float((means.max(axis=1) - means.mean(axis=1)).mean()))


def _own_env_page() -> pd.DataFrame:
    """``results/own_env.csv``, checked to hold the commands ``sims/own_env.py`` runs today."""
    page = pd.read_csv(OWN_ENV, comment="#")
    commands = dict(_sims("own_env").COMMANDS)
    assert page.groupby("case", sort=False)["command"].first().to_dict() == commands, (
        "results/own_env.csv is stale: rerun python sims/own_env.py"
    )
    return page


def _own_env_ratio(page: pd.DataFrame, case: str, agent: str) -> float:
    row = page[(page["case"] == case) & (page["agent"] == agent)]
    assert len(row) == 1, f"{case} / {agent} not in {OWN_ENV.name}"
    return float(row["ratio_to_random"].iloc[0])


def test_own_environment_numbers_match_their_results_page():
    """'Bring your own environment': the setting (K, d, T, seeds) is the commands', the ratios the page's."""
    import shlex

    from dpbandit.agents.specs import parse_assignments

    page = _own_env_page()
    n_arms, dim, horizon, seeds, declared, undeclared, linucb = _find(
        r"the test suite's \{0, 1\} bandit, K = (\d+), d = (\d+), T = ([\d.]+ x 10\^\d+), (\d+) seeds: "
        r"([\d.]+)x random's regret declared, ([\d.]+)x undeclared; LinUCB ([\d.]+)x; the commands are in "
        r"\[results/own_env.md\]",
        _section("Bring your own environment"),
    )
    mantissa, _, power = horizon.partition(" x 10^")
    for case, command in dict(page.groupby("case")["command"].first()).items():
        args = cli.build_parser().parse_args(shlex.split(command)[1:])
        kwargs = parse_assignments(args.env_kwarg, "--env-kwarg")
        assert args.env == "toy_bandit:ToyBandit", case
        assert (kwargs["n_arms"], kwargs["dim"]) == (int(n_arms), int(dim)), case
        assert (args.horizon, args.seeds) == (float(mantissa) * 10 ** int(power), int(seeds)), case
        assert ("reward_range" in kwargs) == (case == "undeclared") and kwargs.get("reward_range") is None
    for text, case, agent in (
        (declared, "declared", "private"),
        (undeclared, "undeclared", "private"),
        (linucb, "declared", "linucb"),
    ):
        value = _own_env_ratio(page, case, agent)
        assert rounds_to(text, value), f"README says {agent} ({case}) {text}x, {OWN_ENV.name} {value:.4g}"


def test_the_undeclared_range_warning_quotes_the_results_page():
    """The harness's warning ("from 0.47x to 0.30x") names the same numbers as the page (a 100-round run)."""
    import functools
    import warnings

    from dpbandit.agents import agent_class
    from dpbandit.harness import run
    from toy_bandit import ToyBandit

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(functools.partial(ToyBandit, reward_range=None), {"private": agent_class("private")},
            n_seeds=1, horizon=100, progress=False)
    (message,) = [str(w.message) for w in caught if "declares no reward_range" in str(w.message)]
    undeclared, declared = _find(r"took `private` from ([\d.]+)x to ([\d.]+)x random's regret", message)
    page = _own_env_page()
    assert rounds_to(undeclared, _own_env_ratio(page, "undeclared", "private"))
    assert rounds_to(declared, _own_env_ratio(page, "declared", "private"))


# ------------------------------------------------------------------------ results pages the README cites
#: The "Which private agent" table: (row, [(column, position, setting, agent, measure), ...]): the number at
#: ``position`` in the row's ``column`` (1: `private`, 2: best other private agent, 3: LinUCB) is the learning
#: suite's ``measure`` of ``agent`` on ``setting``.
LEARNING_ROWS = [
    (
        "dense parameters",
        [
            (1, 0, "S4", "private", "ratio_to_random"),
            (2, 0, "S4", "batched-ridge", "ratio_to_random"),
            (3, 0, "S4", "linucb", "ratio_to_random"),
        ],
    ),
    (
        "digits as a bandit",
        [
            (1, 0, "S6a", "private", "accuracy"),
            (1, 1, "S6b", "private", "accuracy"),
            (2, 0, "S6a", "dphdb-batched", "accuracy"),
            (2, 1, "S6b", "dphdb-batched", "accuracy"),
            (3, 0, "S6a", "linucb", "accuracy"),
            (3, 1, "S6b", "linucb", "accuracy"),
        ],
    ),
    (
        "wine, breast cancer, iris",
        [
            (1, 0, "id:Wine-v0", "private", "accuracy"),
            (1, 1, "id:BreastCancer-v0", "private", "accuracy"),
            (1, 2, "id:Iris-v0", "private", "accuracy"),
            (3, 0, "id:Wine-v0", "linucb", "accuracy"),
            (3, 1, "id:BreastCancer-v0", "linucb", "accuracy"),
            (3, 2, "id:Iris-v0", "linucb", "accuracy"),
        ],
    ),
    (
        "many arms",
        [
            (1, 0, "I4", "private", "ratio_to_random"),
            (2, 0, "I4", "dphdb-batched", "ratio_to_random"),
            (3, 0, "I4", "linucb", "ratio_to_random"),
        ],
    ),
    (
        "imbalanced classes",
        [
            (1, 0, "I1a", "private", "accuracy"),
            (1, 1, "I1b", "private", "accuracy"),
            (2, 0, "I1a", "private-etc", "accuracy"),
            (2, 1, "I1b", "dphdb-batched", "accuracy"),
            (3, 0, "I1a", "linucb", "accuracy"),
            (3, 1, "I1b", "linucb", "accuracy"),
        ],
    ),
    (
        "sparse, Figure 5.1 setting",
        [
            (1, 0, "S1", "private", "ratio_to_random"),
            (2, 0, "S1", "batched-screening-perarm", "ratio_to_random"),
            (3, 0, "S1", "linucb", "ratio_to_random"),
        ],
    ),
    (
        "sparse, d = 5,000",
        [
            (1, 0, "S5", "private", "ratio_to_random"),
            (1, 1, "S5", "private", "time_vs_random"),
            (1, 2, "S5", "private", "peak_memory_mb"),
            (2, 0, "S5", "batched-peeling", "ratio_to_random"),
            (3, 0, "S5", "linucb-diag", "ratio_to_random"),
        ],
    ),
    (
        "sparse, per-arm, FLIPHAT Setting 5",
        [
            (1, 0, "S2", "private-perarm", "ratio_to_random"),
            (2, 0, "S2", "batched-screening-perarm", "ratio_to_random"),
            (3, 0, "S2", "shared-linucb", "ratio_to_random"),
        ],
    ),
]


def test_which_private_agent_table_matches_the_learning_suite():
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[1:-1]]
        for line in _section("Which private agent").splitlines()
        if line.startswith("| ")
    }
    for prefix, claims in LEARNING_ROWS:
        cells = next((cells for key, cells in rows.items() if key.startswith(prefix)), None)
        assert cells, f"the row {prefix!r} is no longer in the table"
        for column, position, setting, agent, measure in claims:
            text = NUMBER.findall(re.sub(r"`[^`]*`", "", cells[column]))[position]
            value = _learning_suite(setting, agent, measure)
            source = REAL_DATA_SCALING if setting.startswith("scaling:") else LEARNING_SUITE
            assert rounds_to(text, value), f"{prefix}: {agent} {text} vs {value:.4g} in {source.name}"
    suite = pd.read_csv(LEARNING_SUITE, comment="#")
    every = suite[suite["setting"].str.startswith("id:") & suite["agent"].isin(["private", "private-perarm"])]
    low, high = _find(
        r"every registered environment at its defaults, T = 10\^5 \| ([\d.]+)x to ([\d.]+)x",
        _section("Which private agent"),
    )
    assert rounds_to(low, every["ratio_to_random"].min()) and rounds_to(high, every["ratio_to_random"].max())


def test_when_another_agent_is_better_quotes_the_table():
    """"(0.26x against `private`'s 0.34-0.35x above)" and "(`-perarm`: 0.72x against 0.86x above)": the
    learning suite's S1 / S2 and S5 rows the table shows."""
    section = _section("Which private agent")
    screening, low, high = _find(r"\(([\d.]+)x against `private`'s ([\d.]+)-([\d.]+)x above\)", section)
    assert rounds_to(screening, _learning_suite("S1", "batched-screening-perarm", "ratio_to_random"))
    assert rounds_to(screening, _learning_suite("S2", "batched-screening-perarm", "ratio_to_random"))
    private = sorted([_learning_suite("S2", "private-perarm", "ratio_to_random"),
                      _learning_suite("S1", "private", "ratio_to_random")])
    assert rounds_to(low, private[0]) and rounds_to(high, private[1])
    peeling, dense = _find(r"\(`-perarm`: ([\d.]+)x against ([\d.]+)x above\)", section)
    assert rounds_to(peeling, _learning_suite("S5", "batched-peeling", "ratio_to_random"))
    assert rounds_to(dense, _learning_suite("S5", "private", "ratio_to_random"))


def test_the_simple_reference_numbers_match_its_page():
    """`private` against `private-etc` on imbalanced classes: results/etc_baseline.csv, which it cites."""
    share, horizon, private, reference, seeds = _find(
        r"`dpbandit/ImbalancedClasses-v0` \(majority share ([\d.]+)\) at T = 10\^(\d) it reaches ([\d.]+) "
        r"against the reference's ([\d.]+) \(`results/etc_baseline.md`, (\d+) seeds\)",
        _section("Which private agent"),
    )
    page = pd.read_csv(ETC_BASELINE, comment="#")
    rows = page[(page["setting"] == "imbalanced") & (page["T"] == 10 ** int(horizon))].set_index("agent")
    assert rounds_to(private, rows.loc["private", "accuracy"])
    assert rounds_to(reference, rows.loc["private-etc", "accuracy"])
    assert (rows["seeds"] == int(seeds)).all()
    from dpbandit.envs.datasets import load_bundled

    _, labels = load_bundled("imbalanced")
    assert rounds_to(share, np.bincount(labels).max() / len(labels))



def test_the_digits_change_since_the_previous_suite_run_is_the_pages():
    """"`private` lost on digits (0.54 -> 0.49 at T = 10^4, 0.86 -> 0.84 at 10^5)": the new numbers are the
    suite's (the old ones are its previous run's, before issue 29)."""
    _, new_a, _, new_b = _find(
        r"lost on digits \(([\d.]+) -> ([\d.]+) at T = 10\^4, ([\d.]+) -> ([\d.]+) at 10\^5\)",
        _section("Which private agent"),
    )
    assert rounds_to(new_a, _learning_suite("S6a", "private", "accuracy"))
    assert rounds_to(new_b, _learning_suite("S6b", "private", "accuracy"))


# ------------------------------------------------------------------------------ privacy numbers
def _gaussian_agent(cls_name: str, m: int | None, **options):
    from dpbandit.agents import agent_class

    return agent_class(cls_name)(
        10, 64, rng=np.random.default_rng(1), horizon=10_000, epsilon=1.0, max_rounds_per_user=m, **options
    )


def test_privacy_section_user_epsilon_is_the_agents():
    epsilon, delta, user, short = _find(
        r"# \.\.\. epsilon ([\d.]+), delta ([\de.-]+), user_epsilon ([\d.]+): a person in up to 5 rounds is "
        r"protected at ([\d.]+)",
        _section("Privacy, honestly reported"),
    )
    agent = _gaussian_agent("private", 5)
    assert rounds_to(epsilon, agent.privacy.epsilon) and float(delta) == agent.delta
    assert rounds_to(user, agent.privacy.user_epsilon) and rounds_to(short, agent.privacy.user_epsilon)


def test_privacy_docs_worked_example_numbers():
    """docs/privacy.md, 'Example: sklearn digits drawn with replacement': delta, z, table, calibrations."""
    from dpbandit.privacy.release import gaussian_multiplier

    text = (ROOT / "docs" / "privacy.md").read_text()
    example = text[text.index("**Example: `sklearn` digits") :]
    delta, z = _find(r"delta = min\(1e-5, 1/\(10 T\)\) = 10\^(-\d+)` and `z = ([\d.]+)`", example)
    agent = _gaussian_agent("batched-screening", 5, reward_center=0.5)
    assert agent.delta == 10.0 ** int(delta) and rounds_to(z, agent.release.multiplier)
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    rows = np.random.default_rng(0).integers(0, len(y), size=10_000)
    rewards = (y[rows, None] == np.arange(10)).astype(float)
    for m in (1, 5, 10):
        gaussian, zcdp, learned = _find(rf"\| {m} \| ([\d.]+) \| ([\d.]+) \| ([\d,]+) \|", example)
        screening = _gaussian_agent("batched-screening", m, reward_center=0.5)
        screening.play_block(X[rows] / 16.0, rewards, user_ids=rows)
        assert rounds_to(gaussian, screening.privacy.user_epsilon), f"m={m}"
        assert rounds_to(learned, screening.rounds_learned), f"m={m}"
        for name in ("batched-peeling", "dphdb-batched"):
            assert rounds_to(zcdp, _gaussian_agent(name, m).privacy.user_epsilon), f"{name}, m={m}"
    for m in (
        5,
        10,
    ):  # the round-level epsilon whose multiplier is m z: the doc's value to its digits brackets it
        (round_level,) = _find(rf"(?:with|With) `m = {m}`[^`]*`epsilon = ([\d.]+)`", example)
        half = 0.5 * 10.0 ** -len(round_level.split(".")[1])
        target = m * agent.release.multiplier
        assert gaussian_multiplier(float(round_level) - half, agent.delta) > target, f"m={m}"
        assert gaussian_multiplier(float(round_level) + half, agent.delta) < target, f"m={m}"


# ------------------------------------------------------------------------------ printed numbers of examples
#: ``print(...)  # 1.0 6.17 7827`` or ``# (3, 400): ...``: a comment that starts with the printed numbers.
EXPECTED = re.compile(r"^(\s*)print\((.*)\)\s*#\s*([-\d.(\[][\d.,\s()\[\]e+-]*?)(?::.*)?$")


def _blocks_with_expectations() -> list[tuple[str, int, str]]:
    from test_readme import fenced_blocks

    found = []
    for path in [README, *DOCS]:
        for i, (language, code) in enumerate(fenced_blocks(path)):
            if language == "python" and any(EXPECTED.match(line) for line in code.splitlines()):
                found.append((path.name, i, code))
    return found


BLOCKS = _blocks_with_expectations()


def test_examples_with_printed_numbers_are_found():
    assert {name for name, _, _ in BLOCKS} >= {"privacy.md", "envs.md"}


@pytest.mark.parametrize(("doc", "index", "code"), BLOCKS, ids=[f"{d}-block-{i}" for d, i, _ in BLOCKS])
def test_the_numbers_an_example_prints_are_the_ones_its_comment_gives(
    doc, index, code, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    expected, lines = {}, []
    for number, line in enumerate(code.splitlines()):
        match = EXPECTED.match(line)
        if match:
            indent, arguments, numbers = match.groups()
            expected[number] = NUMBER.findall(numbers)
            line = f"{indent}__printed__[{number}] = ' '.join(map(str, ({arguments},)))"
        lines.append(line)
    printed: dict[int, str] = {}
    exec(compile("\n".join(lines), f"{doc}-block-{index}", "exec"), {"__printed__": printed})
    for number, numbers in expected.items():
        shown = NUMBER.findall(printed[number])
        assert len(shown) == len(numbers), f"{doc} line {number + 1}: printed {printed[number]!r}"
        for text, value in zip(numbers, shown, strict=True):
            assert rounds_to(text, float(value)), f"{doc} line {number + 1}: comment {text}, printed {value}"


def test_trust_models_authors_calibration_numbers_are_the_agents():
    """"Trust models": what the authors' code's noise certifies at a claimed epsilon 0.2 and batch 20 on
    Chowdhury and Zhou's experiment (d = 5, K = 100, ||x|| <= sqrt 2), at delta 1/T = 5e-5 and at 0.1."""
    import warnings

    from dpbandit.agents import agent_class

    found = _find(
        r"P_Amp's noise certifies ([\d.]+) at delta 1/T = 5e-5 and ([\d.]+) at their delta 0.1, P_Vec's ([\d.]+) "
        r"and ([\d.]+), the local noise ([\d.]+) and ([\d.]+)\)",
        _section("Trust models"),
    )
    values = []
    for name in ("shuffle-linucb", "shuffle-vec-linucb", "ldp-linucb"):
        for delta in (5e-5, 0.1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                agent = agent_class(name)(100, 5, rng=np.random.default_rng(0), horizon=20_000, epsilon=0.2,
                                          delta=delta, feature_bound=math.sqrt(2), calibration="authors",
                                          **({} if name == "ldp-linucb" else {"batch": 20}))
            values.append(agent.privacy.epsilon)
    for text, value in zip(found, values):
        assert rounds_to(text, value), (text, value)
