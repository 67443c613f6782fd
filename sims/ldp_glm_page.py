"""Write results/ldp_glm.md (issue 37 items 4 and 5) from the runs of sims/ldp_glm_authors.py and sims/ldp_glm.py,
and the GLM rows of results/trust_models.md (between the ``<!-- glm rows -->`` markers, kept by
sims/trust_models.py when it rewrites that page).

Usage: python sims/ldp_glm_page.py [--authors results/ldp_glm_authors.csv] [--ours results/ldp_glm.csv]
[--trust results/ldp_glm_trust.csv] [--commands "..."]
"""

from __future__ import annotations

import argparse
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from dpbandit.privacy.accounting import epsilon_for, gaussian_event
from dpbandit.privacy.local import LocalGaussianRandomizer, authors_local_std

RESULTS = Path(__file__).resolve().parent.parent / "results"
REWARD = {"normal": "linear", "logistic": "logistic", "poisson": "Poisson"}
#: authors' algorithm -> our replica's label
PAIRS = [("LDP-SGD", "ldp-sgd"), ("LDP-GLOC", "ldp-gloc (authors' calib.)"), ("LDP-UCB", "ldp-linucb"),
         ("LDP-UCB", "ldp-linucb (authors' calib.)")]
MARK = ("<!-- glm rows -->", "<!-- /glm rows -->")


def summary(x: pd.Series) -> tuple[float, float, float, int]:
    """mean, 95% t-interval, n."""
    n, m = len(x), float(x.mean())
    h = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
    return m, m - h, m + h, n


def cell(s: tuple[float, float, float, int]) -> str:
    m, lo, hi, n = s
    return f"{m:,.0f} [{lo:,.0f}, {hi:,.0f}] (n={n})"


def side_by_side(authors: pd.DataFrame, ours: pd.DataFrame) -> str:
    lines = ["| T | epsilon | rewards | authors' code | mean [95% CI] | median | replica | mean [95% CI] | median | "
             "replica's mean inside the authors' interval | Mann-Whitney p |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for T in sorted(ours["T"].unique()):
        for eps in sorted(ours.epsilon.unique(), reverse=True):
            for reward in REWARD:
                for theirs, mine in PAIRS:
                    a = authors[(authors.algorithm == theirs) & (authors.reward == reward) & (authors.epsilon == eps)
                                & (authors["T"] == T) & (authors.checkpoint == T)]
                    o = ours[(ours.algorithm == mine) & (ours.reward == reward) & (ours.epsilon == eps) & (ours["T"] == T)]
                    if a.empty or o.empty:
                        continue
                    sa, so = summary(a.cum_regret), summary(o.cum_regret)
                    inside = "yes" if sa[1] <= so[0] <= sa[2] else "**no**"
                    if theirs == "LDP-UCB":
                        inside = "n/a (a different agent)"
                    p = stats.mannwhitneyu(a.cum_regret, o.cum_regret).pvalue
                    lines.append(f"| {T:,} | {eps:g} | {REWARD[reward]} | {theirs} | {cell(sa)} | "
                                 f"{a.cum_regret.median():,.0f} | `{mine}` | {cell(so)} | {o.cum_regret.median():,.0f} | "
                                 f"{inside} | {p:.2f} |")
    return "\n".join(lines)


def overnoising() -> str:
    """Per-entry std of the authors' LDP-UCB / LDP-OLS report (LDP.py:22) against the classical Gaussian mechanism
    and our PLD calibration, on their setting (||x|| <= 1, |r| <= 1, d = 2, delta 0.01), and the epsilon their noise
    certifies (dp_accounting PLD)."""
    lines = ["| epsilon | authors' std 6 sqrt(2 ln(2.5/delta))/eps | classical Gaussian Delta sqrt(2 ln(1.25/delta))/eps"
             " | ours (PLD, `ldp-linucb`) | Chowdhury-Zhou's (`ldp-linucb` authors' calib.) | epsilon the authors' "
             "std certifies |", "|---|---|---|---|---|---|"]
    for eps in (1.0, 0.5):
        rand = LocalGaussianRandomizer(2, 1.0, 1.0, eps, 0.01)
        theirs = 6 * math.sqrt(2 * math.log(2.5 / 0.01)) / eps
        classical = rand.sensitivity * math.sqrt(2 * math.log(1.25 / 0.01)) / eps
        certified = epsilon_for(gaussian_event(theirs, rand.sensitivity), 0.01, "pld")
        lines.append(f"| {eps:g} | {theirs:.2f} | {classical:.2f} | {rand.sigma:.2f} | "
                     f"{authors_local_std(eps, 0.01):.2f} | {certified:.3f} |")
    return "\n".join(lines)


def trust_table(trust: pd.DataFrame) -> str:
    """Mean [95% CI] (n seeds) per agent, reward and epsilon."""
    agents = trust.agent.unique()
    lines = ["| rewards | epsilon | " + " | ".join(f"`{a}`" if "(" not in a else a for a in agents)
             + " |", "|---|---|" + "---|" * len(agents)]
    for reward in ("logistic", "poisson"):
        for eps in sorted(trust.epsilon.unique()):
            row = []
            for agent in agents:
                g = trust[(trust.agent == agent) & (trust.reward == reward) & (trust.epsilon == eps)].cum_regret
                row.append(cell(summary(g)) if len(g) else "-")
            lines.append(f"| {REWARD[reward]} | {eps:g} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def trust_checks(trust: pd.DataFrame, ours: pd.DataFrame) -> list[str]:
    out = []
    for eps in sorted(ours.epsilon.unique()):
        sgd = ours[(ours.algorithm == "ldp-sgd") & (ours.reward == "logistic") & (ours.epsilon == eps)]
        ucb = ours[(ours.algorithm == "ldp-linucb") & (ours.reward == "logistic") & (ours.epsilon == eps)]
        for T in sorted(set(sgd["T"]) & set(ucb["T"])):
            a, b = sgd[sgd["T"] == T].cum_regret.mean(), ucb[ucb["T"] == T].cum_regret.mean()
            out.append(f"* `ldp-sgd` / `ldp-linucb` on the logistic setting at epsilon {eps:g}, T = {T:,}: "
                       f"{a:,.0f} / {b:,.0f} = {a / b:.2f} ({'meets' if a / b <= 0.5 else '**misses**'} the 0.5 "
                       "target; 10 seeds, item 4's runs).")
    for eps in sorted(trust.epsilon.unique()):
        g = trust[(trust.reward == "logistic") & (trust.epsilon == eps)]
        for other in ("ldp-linucb", "ldp-linucb [uncentred]"):
            sgd, ucb = (g[g.agent == name].set_index("seed").cum_regret for name in ("ldp-sgd", other))
            seeds = sgd.index.intersection(ucb.index)
            if seeds.empty:
                continue
            a, b = sgd[seeds].mean(), ucb[seeds].mean()
            out.append(f"* `ldp-sgd` / `{other}`, trust grid, logistic, epsilon {eps:g} (delta 1/T, {len(seeds)} "
                       f"seeds): {a:,.0f} / {b:,.0f} = {a / b:.2f} "
                       f"({'meets' if a / b <= 0.5 else '**misses**'} the 0.5 target).")
    for reward in ("logistic", "poisson"):
        for eps in sorted(trust.epsilon.unique()):
            m = {a: trust[(trust.agent == a) & (trust.reward == reward) & (trust.epsilon == eps)].cum_regret.mean()
                 for a in trust.agent.unique()}
            central, shuffle, local = m.get("private (central)"), m.get("shuffle-sgd"), m.get("ldp-sgd")
            if None in (central, shuffle, local) or any(map(np.isnan, (central, shuffle, local))):
                continue
            between = central <= shuffle <= local
            out.append(f"* {REWARD[reward]}, epsilon {eps:g}: central {central:,.0f}, `shuffle-sgd` {shuffle:,.0f}, "
                       f"`ldp-sgd` {local:,.0f}: shuffle {'between local and central' if between else '**not** between local and central'}.")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--authors", type=Path, default=RESULTS / "ldp_glm_authors.csv")
    ap.add_argument("--ours", type=Path, default=RESULTS / "ldp_glm.csv")
    ap.add_argument("--trust", type=Path, default=RESULTS / "ldp_glm_trust.csv")
    ap.add_argument("--commands", default="", help="the commands that made the CSVs (markdown)")
    ap.add_argument("--notes", type=Path, default=None, help="a markdown file of findings inserted in the page")
    args = ap.parse_args()
    authors, ours = pd.read_csv(args.authors), pd.read_csv(args.ours)
    trust = pd.read_csv(args.trust) if args.trust.exists() else pd.DataFrame(columns=["agent", "reward", "epsilon", "seed", "cum_regret"])
    notes = args.notes.read_text() if args.notes else ""
    page = ["# Local GLM bandits beside the authors' code (issue 37)", "",
            "Made by `python sims/ldp_glm_page.py` from the runs of:", "", args.commands, "",
            "Setting: `dpbandit/LDPGLMUnitCircle-v0` = Han, Liang, Wang and Zhang's Figures 6-8 environment as their "
            "code defines it (d = 2, K = 10 fresh unit-circle contexts per round, unit theta; seed s uses their "
            "theta for seed s). Their code (`liangzp/LDP-Bandit` at 62d90936, `Scheme1/`) ran unmodified through "
            "`sims/ldp_glm_authors.py` (their `WorkerA`, their delta 0.01; it plays T + 1 rounds and records the "
            "cumulative pseudo-regret at round T); ours through `sims/ldp_glm.py` (T rounds). Intervals: 95% t "
            "over seeds.", "", notes, "", "## Side by side", "", side_by_side(authors, ours), "",
            "## The authors' LDP-UCB / LDP-OLS noise", "", overnoising(), "",
            "## Trust models on GLM rewards", "", "T = 20,000; each agent's own delta (1/T; `private`: its "
            "default); `ldp-linucb` and `shuffle LinUCB` are told the environment's declared range (0, 1) on logistic "
            "rewards (centred at 0.5, the report's reward clipped at the half-width 0.5: issue 37 item 6), clip at 8 "
            "on Poisson rewards; `[uncentred]`: the rows run before item 6, told no range (not centred, clip at 1); "
            "`[step c]`: `ldp-sgd` with step constant c instead of the authors' 5 (a diagnostic, not the faithful "
            "agent); `random`: uniform play. `private` declares [0, 30] on Poisson. Final cumulative pseudo-regret, "
            "mean [95% CI] (n seeds; -: not run in the time available):", "",
            trust_table(trust) if len(trust) else "(not run)", "", *trust_checks(trust, ours), ""]
    (RESULTS / "ldp_glm.md").write_text("\n".join(page))
    tm = RESULTS / "trust_models.md"
    plain = trust[~trust.agent.str.contains("[", regex=False)]  # the agents as they are; diagnostics on ldp_glm.md
    block = (f"{MARK[0]}\n## GLM rewards: logistic and Poisson (issue 37)\n\nFrom `python sims/ldp_glm.py --trust` "
             "(results/ldp_glm.md has the commands, the reading, the `[uncentred]` rows run before issue 37 item 6 and "
             "the `[step c]` diagnostics):\n\n"
             + (trust_table(plain) if len(plain) else "(not run)") + "\n\n" + "\n".join(trust_checks(trust, ours))
             + f"\n{MARK[1]}\n")
    text = tm.read_text()
    if MARK[0] in text:
        text = re.sub(re.escape(MARK[0]) + ".*?" + re.escape(MARK[1]) + "\n", lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block
    tm.write_text(text)


if __name__ == "__main__":
    warnings.simplefilter("ignore", UserWarning)
    main()
