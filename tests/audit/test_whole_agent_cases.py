"""The whole-agent audits (issue 24): registry coverage, the streams, the broken copies, a fast run of each.

The full cases (``python sims/privacy_audit.py --only whole-agent/ --merge --agent-runs 20000``,
results/privacy_audit.md) use 20,000 runs per side; here each calibrated case runs ``FAST_RUNS`` per side:
every calibrated agent must pass (its lower bound at or below its claim), and the copies with the noise
divided by 4 that ``FLAG_RUNS`` runs per side flag (the statistic reads one released coordinate nearly as
well as the optimal Gaussian test) must be flagged.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandit.agents import AGENTS
from dpbandit.audit import whole_agents as W
from dpbandit.audit.core import audit, make_case, registered

pytestmark = pytest.mark.privacy

FAST_RUNS = 300
#: The designs whose copy with a quarter of the noise ``FLAG_RUNS`` runs per side flag with a margin (lower
#: bounds 3.0 to 4.3 at this seed, ``private-pooled`` 3.4 (2.7 to 3.7 on seeds 11 to 13); the others reach 1.4
#: to 2.5 and need the full run's 20,000: results/privacy_audit.md).
FAST_FLAGGED = ("batched-ridge-perarm", "batched-screening", "batched-screening-perarm", "private",
                "private-perarm", "private-pooled")
FLAG_RUNS = 1000


def test_every_batched_agent_has_every_variant_and_a_design() -> None:
    batched = sorted(n for n, target in AGENTS.items() if target.startswith("dpbandit.agents.batched."))
    assert list(W.AGENT_NAMES) == batched and set(batched) <= set(W.DESIGNS)
    assert list(W.DESIGN_NAMES) == sorted(W.DESIGNS)
    assert all(W.agent_name(n) in batched for n in W.DESIGN_NAMES)  # extra designs run a batched agent too
    assert all(W.agent_name(n) == n for n in batched)  # each agent's own design runs that agent
    assert sorted(registered("dpbandit.audit.whole_agents")) == sorted(
        f"whole-agent/{n}/{v}" for n in W.DESIGN_NAMES for v in W.VARIANTS
    )


def test_private_pooled_runs_the_default_layout_with_its_selection() -> None:
    """``private-pooled``: ``private`` at its defaults (only the declared reward range, intercepts off, and the
    audit's size, horizon and batches given, and the pooled Gram named) and the estimate is chosen privately
    (the ``selection`` block is released); every block, the pooled Gram and the selection included, has its
    noise divided by 4 in the broken copy."""
    assert W.agent_name("private-pooled") == "private"
    # the declared range, and the backfitted intercepts off (their noise hides the moments' shift: W._NO_INTERCEPTS)
    # and the pooled Gram named (at K = d = 2 the public rule picks per-model Grams, issue 40), and the exploration
    # of starved arms off (its coin flips would play the second copy on other arms: W._NO_EXPLORATION)
    assert W.DESIGNS["private-pooled"].options == {"reward_range": (-10.0, 10.0), "second_moments": "pooled",
                                                   "intercept": "none", "certify": None}
    calibrated = W._agent("private-pooled", np.random.default_rng(0), 1.0)
    broken = W._agent("private-pooled", np.random.default_rng(0), 4.0)
    assert calibrated.second_moments == "pooled" and calibrated.pooled and calibrated.selecting
    assert calibrated.estimator is None and calibrated.fdr == 0.2  # the shipped defaults
    blocks = calibrated.sensitivities()
    assert {"pooled", "selection", "moments", "rewards", "squares", "counts"} <= set(blocks)
    assert set(calibrated.release.shares) == set(blocks)
    for block, sensitivity in blocks.items():
        assert broken.release.sigma(block, sensitivity) == pytest.approx(
            calibrated.release.sigma(block, sensitivity) / 4.0)
    sig, weak = calibrated._sigmas(), broken._sigmas()
    assert sig["second"] > 0 and sig["selection"] > 0
    assert all(weak[k] == pytest.approx(sig[k] / 4.0) for k in sig)
    X, R = W.streams("private-pooled", 1.0, twice=True)
    for seed in range(3):  # released twice, the second copy plays the first copy's arms
        actions = W._agent("private-pooled", np.random.default_rng(seed), 1.0).play_block(X, R)
        assert np.array_equal(actions[: len(X) // 2], actions[len(X) // 2:])


@pytest.mark.parametrize("name", W.DESIGN_NAMES)
def test_noise_divided_by_4_divides_every_noise_scale(name: str) -> None:
    calibrated = W._agent(name, np.random.default_rng(0), 1.0)
    broken = W._agent(name, np.random.default_rng(0), 4.0)
    scales = 0
    if hasattr(calibrated, "release"):
        assert broken.release.multiplier == pytest.approx(calibrated.release.multiplier / 4.0)
        scales += 1
    if hasattr(calibrated, "selection_epsilon"):
        assert broken.selection_epsilon == pytest.approx(4.0 * calibrated.selection_epsilon)
    if hasattr(calibrated, "budget"):
        assert broken.budget.eps_s == pytest.approx(4.0 * calibrated.budget.eps_s)
        assert broken.budget.eps_q == pytest.approx(4.0 * calibrated.budget.eps_q)
        scales += 1
    if hasattr(calibrated, "sensitivity"):
        assert broken.multiplier(1) == pytest.approx(calibrated.multiplier(1) / 4.0)
        scales += 1
    assert scales == 1
    template = W._template(name)  # the shared warm-up template keeps its calibrated noise
    if hasattr(calibrated, "release"):
        assert template.release.multiplier == pytest.approx(calibrated.release.multiplier)
    if hasattr(calibrated, "sensitivity"):
        assert template.multiplier(1) == pytest.approx(calibrated.multiplier(1))


@pytest.mark.parametrize("name", W.DESIGN_NAMES)
def test_neighbouring_streams_differ_in_the_audited_user_only(name: str) -> None:
    X, R = W.streams(name, 1.0, twice=False)
    X2, R2 = W.streams(name, -1.0, twice=False)
    assert len(R) == W.DESIGNS[name].size and np.array_equal(X, X2)
    assert np.flatnonzero(np.any(R != R2, axis=1)).tolist() == [0]  # the audited user's reward, +R vs -R
    assert np.array_equal(R[0], -R2[0]) and np.all(np.abs(R[0]) == W.DESIGNS[name].reward)
    Xt, Rt = W.streams(name, 1.0, twice=True)  # the same batch twice: the user in two releases
    assert np.array_equal(Xt, np.concatenate([X, X])) and np.array_equal(Rt, np.concatenate([R, R]))
    if W._per_arm(name):  # the second arm's row is the first one halved (the same row after clipping)
        assert np.array_equal(X[:, 1], X[:, 0] / 2.0)


@pytest.mark.parametrize("name", [n for n in W.DESIGN_NAMES if W.DESIGNS[n].warm])
def test_the_warm_up_fixes_every_main_row_s_arm(name: str) -> None:
    """After the fixed warm-up the main batch's greedy arms (the audited user's included) are the same in
    every run (no coin flips) and a disjoint agent uses both arms; the twice copy releases the main batch
    twice."""
    X, R = W.streams(name, 1.0, twice=False)
    actions = [W._agent(name, np.random.default_rng(seed), 1.0).play_block(X, R) for seed in range(3)]
    assert all(np.array_equal(a, actions[0]) for a in actions)
    if not W._per_arm(name):
        assert set(actions[0].tolist()) == {0, 1}
    agent = W._agent(name, np.random.default_rng(0), 1.0)
    agent.play_block(*W.streams(name, 1.0, twice=True))
    assert agent.batch == len(W.DESIGNS[name].warm) + 2


def test_calibrated_claims_are_the_agents_reports() -> None:
    for name in W.DESIGN_NAMES:
        case = make_case(f"whole-agent/{name}/calibrated")
        assert case.claimed_epsilon == pytest.approx(W.EPSILON, rel=1e-3) and case.delta == W.DELTA


@pytest.mark.parametrize("name", W.DESIGN_NAMES)
def test_fast_audit_calibrated_agent_passes(name: str) -> None:
    result = audit(make_case(f"whole-agent/{name}/calibrated"), np.random.default_rng(11), FAST_RUNS)
    assert result.verdict == "pass" and result.epsilon_lb <= result.claimed_epsilon


@pytest.mark.parametrize("name", FAST_FLAGGED)
def test_fast_audit_flags_a_quarter_of_the_noise(name: str) -> None:
    result = audit(make_case(f"whole-agent/{name}/noise-divided-by-4"), np.random.default_rng(11), FLAG_RUNS)
    assert result.verdict == "FLAGGED" and result.epsilon_lb > result.claimed_epsilon
