"""The top-down report-noisy-min sampler has the law of one Lap(1) per candidate (dpbandit.privacy.topdown).

The selection frequencies are checked against the exact probabilities
``P(i) = int f(w - z_i) prod_{j != i} S(w - z_j) dw`` (numerical integration), on scores close together in
noise units (settled after a few order statistics), spread wide (step 4: the rest drawn at once) and in
between; the same check rejects the sampler run at a scale 20% off, so it would catch a mis-scaled draw.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from dpbandit.optim.pofw import POFWBank, POFWPrivacy, line8_scale
from dpbandit.privacy.rnm import report_noisy_min
from dpbandit.privacy.topdown import report_noisy_min_topdown
from dpbandit.privacy.topdown_kernel import LAZY_LIMIT, noisy_argmin_topdown

pytestmark = pytest.mark.privacy

N_DRAWS = 60_000


def exact_argmin_probabilities(z: np.ndarray) -> np.ndarray:
    """``P(argmin_i z_i + L_i = i)`` for i.i.d. ``Lap(1)`` noise: ``int f(w - z_i) prod_{j != i} S(w - z_j) dw``
    by the trapezoid rule on a grid of step 2e-3 (relative error under 1e-5 here)."""
    w = np.arange(z.min() - 40.0, z.max() + 40.0, 2e-3)
    lap = stats.laplace()
    log_sf = lap.logsf(w[None, :] - z[:, None])  # (n, grid)
    log_density = lap.logpdf(w[None, :] - z[:, None]) + log_sf.sum(axis=0) - log_sf
    return integrate.trapezoid(np.exp(log_density), w, axis=1)


def chi_square_p(counts: np.ndarray, probs: np.ndarray) -> float:
    """Chi-square goodness-of-fit p-value, candidates with expected count under 5 pooled."""
    expected = probs / probs.sum() * counts.sum()
    small = expected < 5
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    return float(stats.chisquare(obs[keep], exp[keep]).pvalue)


SCORES = {
    "close": np.array([0.0, 0.3, -0.2, 1.0, 0.1, -0.05]),  # settled after a few placements
    "mixed": np.concatenate([np.linspace(0.0, 3.0, 50), -np.linspace(0.0, 3.0, 50)]),
    "spread": np.linspace(0.0, 30.0, 2 * LAZY_LIMIT),  # beyond LAZY_LIMIT placements: step 4
}


@pytest.mark.parametrize("case", sorted(SCORES))
def test_topdown_selection_has_the_exact_report_noisy_min_law(case) -> None:
    z = SCORES[case]
    probs = exact_argmin_probabilities(z)
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)
    scale = 0.7
    index = report_noisy_min_topdown(np.random.default_rng(11), np.tile(z * scale, (N_DRAWS, 1)), scale)
    counts = np.bincount(index, minlength=z.size)
    assert chi_square_p(counts, probs) > 1e-3
    # the per-candidate sampler passes the same check (the reference law is right)
    reference = report_noisy_min(np.random.default_rng(12), np.tile(z, (N_DRAWS, 1)), 1.0)
    assert chi_square_p(np.bincount(reference, minlength=z.size), probs) > 1e-3
    # and a draw 20% off in scale fails it: the check sees mis-scaled noise
    off = report_noisy_min_topdown(np.random.default_rng(13), np.tile(z * scale, (N_DRAWS, 1)), 0.8 * scale)
    assert chi_square_p(np.bincount(off, minlength=z.size), probs) < 1e-6


MIRRORED = {
    "mixed-signs": np.array([0.4, -0.9, 0.2, 0.05]),
    "positive": np.array([0.9, 0.4, 0.2, 0.05]),  # the smallest candidate is in the mirrored half (-0.9)
    "wide-fallback": np.linspace(0.0, 15.0, 40),  # 80 candidates, past LAZY_LIMIT placements
}


@pytest.mark.parametrize("case", sorted(MIRRORED))
def test_mirrored_candidates_are_the_scores_then_their_negatives(case) -> None:
    """``mirrored=True`` (the l1 ball's vertices +-r e_j) has the law of the explicit ``[z, -z]`` candidates."""
    z = MIRRORED[case]
    probs = exact_argmin_probabilities(np.concatenate([z, -z]))
    index = report_noisy_min_topdown(np.random.default_rng(21), np.tile(z, (N_DRAWS, 1)), 1.0, mirrored=True)
    assert index.max() < 2 * z.size
    assert chi_square_p(np.bincount(index, minlength=2 * z.size), probs) > 1e-3
    off = report_noisy_min_topdown(np.random.default_rng(22), np.tile(z, (N_DRAWS, 1)), 0.6, mirrored=True)
    assert chi_square_p(np.bincount(off, minlength=2 * z.size), probs) < 1e-6


def test_topdown_settles_in_few_draws_when_scores_are_close() -> None:
    """At DP-HDB's regime (scores within a fraction of the noise) a call uses a few draws, not one per candidate."""
    z = np.random.default_rng(3).uniform(-0.05, 0.05, 10_000)
    rng = np.random.default_rng(4)
    start = rng.bit_generator.state["state"]["state"]
    counter = np.random.default_rng(4)
    report_noisy_min_topdown(rng, z[None, :], 1.0)
    # count the 64-bit words consumed by advancing a copy until the states agree
    words = 0
    while counter.bit_generator.state["state"]["state"] != rng.bit_generator.state["state"]["state"]:
        counter.bit_generator.random_raw()
        words += 1
        assert words < 200
    assert start != rng.bit_generator.state["state"]["state"]


def test_topdown_scratch_is_reset_and_single_candidate_wins() -> None:
    placed = np.zeros(5, dtype=np.bool_)
    order = np.empty(LAZY_LIMIT, dtype=np.int64)
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert 0 <= noisy_argmin_topdown(rng, np.arange(5.0), False, placed, order) < 5
        assert not placed.any()
    assert report_noisy_min_topdown(rng, np.zeros((3, 1)), 1.0).tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    ("scores", "scale", "match"),
    [
        (np.zeros(4), 1.0, "shape"),
        (np.zeros((2, 0)), 1.0, "shape"),
        (np.array([[0.0, np.nan]]), 1.0, "finite scores"),
        (np.zeros((2, 3)), 0.0, "scale"),
        (np.zeros((2, 3)), np.ones(3), "scale"),
        (np.zeros((2, 3)), np.inf, "scale"),
        (np.full((2, 3), 1e300), 1e-10, "overflowed"),  # every candidate +inf would return no index
    ],
)
def test_topdown_rejects_bad_input(scores, scale, match) -> None:
    with pytest.raises(ValueError, match=match):
        report_noisy_min_topdown(np.random.default_rng(0), scores, scale)


@pytest.mark.parametrize("radius", [0.5, 1.0, 2.0])
def test_pofw_bank_topdown_draws_line8_noise(radius: float) -> None:
    """The noise DP-POFW's bank actually draws with ``sampler="topdown"``: one step of many instances with the
    same direction picks vertices at report-noisy-min's probabilities at line 8's scale ``b_1``, and not at
    half or twice that scale; at radii 0.5 and 2 too (the scores are ``r <d, e_j>``: an LMO that dropped the
    radius would be right at radius 1 only; issue 39 item 6)."""
    n, dim = N_DRAWS, 3
    cal = POFWPrivacy(epsilon=8.0, delta=1e-3, horizon=2, calibration="paper")
    constants = dict(radius=radius, smoothness=1.0, lipschitz=1.0)
    b_1 = float(line8_scale(np.array([1.0]), privacy=cal, **constants)[0])
    bank = POFWBank(n, dim, rng=np.random.default_rng(5), privacy=cal, sampler="topdown", **constants)
    direction = np.array([0.4, -0.9, 0.2]) * b_1  # d_1 = g / 2 with theta_0 = theta_1 = 0
    g = np.tile(2.0 * direction, (n, 1))
    bank.step(g, g)
    picked = np.argmax(np.abs(bank.theta), axis=1) + dim * (bank.theta[np.arange(n), np.argmax(np.abs(bank.theta), axis=1)] < 0)
    counts = np.bincount(picked, minlength=2 * dim)
    z = radius * np.concatenate([direction, -direction])  # scores <d, v> of the vertices v = +-r e_j
    assert chi_square_p(counts, exact_argmin_probabilities(z / b_1)) > 1e-3
    for factor in (0.5, 2.0):
        assert chi_square_p(counts, exact_argmin_probabilities(z / (factor * b_1))) < 1e-6
    if radius != 1.0:  # the scores without the radius are rejected
        assert chi_square_p(counts, exact_argmin_probabilities(z / radius / b_1)) < 1e-6


def test_private_vertex_checks_its_sampler() -> None:
    from dpbandit.optim.pofw import private_vertex

    args = (np.random.default_rng(0), np.ones((2, 3)), 1.0, np.ones(2))
    with pytest.raises(ValueError, match="sampler"):
        private_vertex(*args, "laplace", "fast")
    with pytest.raises(ValueError, match="sampler='topdown'"):
        private_vertex(*args, "exponential", "topdown")
    assert private_vertex(*args, "laplace", "topdown").shape == (2, 3)


def test_pofw_bank_rejects_topdown_for_the_exponential_selection() -> None:
    cal = POFWPrivacy(epsilon=1.0, delta=1e-3, horizon=10, selection="exponential")
    with pytest.raises(ValueError, match="sampler='topdown'"):
        POFWBank(2, 3, rng=np.random.default_rng(0), privacy=cal, radius=1.0, smoothness=1.0, lipschitz=1.0,
                 sampler="topdown")
    with pytest.raises(ValueError, match="sampler"):
        POFWBank(2, 3, rng=np.random.default_rng(0), privacy=cal, radius=1.0, smoothness=1.0, lipschitz=1.0,
                 sampler="fast")


def test_rows_after_a_data_dependent_number_of_draws_keep_their_law() -> None:
    """Rows share one generator and each consumes a data-dependent count of numbers; alternating close and
    widely spread scores (a few draws, then the step-4 fallback's dozens), every row still has its exact law."""
    n = 2 * LAZY_LIMIT
    close, spread = np.linspace(-0.2, 0.2, n), np.linspace(0.0, 30.0, n)
    rows = np.empty((N_DRAWS, n))
    rows[0::2], rows[1::2] = close, spread
    index = report_noisy_min_topdown(np.random.default_rng(31), rows, 1.0)
    for part, z in ((index[0::2], close), (index[1::2], spread)):
        assert chi_square_p(np.bincount(part, minlength=n), exact_argmin_probabilities(z)) > 1e-3
