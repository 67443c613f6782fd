"""Shuffle vector summation of ``(x x^T, x r)``: the protocol P_Vec of Chowdhury and Zhou (ICML 2022).

P_Vec replaces "amplify a Gaussian local randomizer by shuffling" (P_Amp, :mod:`dpbandit.privacy.shuffle`)
by a shuffle *summation* protocol run coordinate by coordinate on the ``m = d(d+1)/2 + d`` entries of the
report (upper triangle of ``x x^T``, then ``x r``). Per coordinate, with value ``v`` in a known range
``[lo, hi]`` (diagonal ``[0, L^2]``, off-diagonal ``[-L^2/2, L^2/2]``, ``x r`` in ``[-L R, L R]``)
[derived]:

* randomizer R: ``u = g (v - lo) / (hi - lo)`` in ``[0, g]``; ``u_bar = floor(u) + Bern(u - floor(u))``
  (unbiased randomised rounding to ``{0, .., g}``); the user sends ``u_bar`` ones and ``Bin(b, p)`` more
  (in the authors' code one integer ``u_bar + Bin(b, p)``, whose shuffled sum is the same number);
* shuffler S: permutes the batch's messages; the analyzer A sees only their sum
  ``Y = sum u_bar_i + Bin(n b, p)``;
* analyzer A: ``sum v ~ n lo + (hi - lo) / g (Y - n b p)`` (unbiased).

Source: the authors' code [C] (``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``,
class ``SDPLinUCBPVec``: ``R1d``/``A1d`` at lines 317-326, parameters at lines 271-276: ``g =
max(2 sqrt(B), d, 4)``, ``p = 1/4``, ``b = scale g^2 ln(d/delta)^2 / (epsilon^2 B)`` with ``scale = 1``
"tuned"). The paper's text (arXiv 2202.05567) was not reachable in this session (the search corpora hold its
opening page only), so its theorem numbers are not cited; from recall [unchecked] the paper takes P_Vec and
its privacy lemma from Cheu, Joseph, Mao and Peng (2021, shuffle private SCO), whose ``b`` carries a large
constant that the code's ``scale = 1`` drops. So the code's ``b`` is not a certified calibration.

Accounting here (ours, certified) [derived]: neighbouring batches (one user replaced) change each
coordinate's ``sum u_bar`` by an integer shift in ``[-g, g]`` (each user's ``u_bar`` is in ``{0, .., g}``;
the rounding coin is a mixture over shifts, and by joint convexity the worst single shift bounds it). The
binomial family is log-concave, so its integer shifts have monotone likelihood ratios and the shift-``g``
pair ``(Bin(N, p), g + Bin(N, p))`` dominates every smaller shift (the brute-force test in
tests/privacy/test_vector_sum.py checks this). With ``p = 1/2`` [Fill, ours; the code's 1/4] the binomial is
symmetric, so the pair and its reverse have the same privacy-loss distribution, and the ``m`` coordinates
(independent noise) compose: dp_accounting's PLD of the two probability mass functions, self-composed ``m``
times. For ``p != 1/2`` (the authors' calibration) every split of the ``m`` coordinates into ``+g`` and
``-g`` shifts is composed and the worst taken. The binomial mass left out of the window handed to
dp_accounting is added to delta. :func:`calibrate_vector_sum` returns the smallest ``b`` (to 1%) meeting the
target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpbandit import _validate as v
from dpbandit.privacy.local import checked_record

__all__ = [
    "VectorSumRandomizer",
    "calibrate_vector_sum",
    "coordinate_count",
    "default_levels",
    "vector_sum_epsilon",
]

#: Binomial mass left out of the window handed to dp_accounting, as a fraction of delta (added to delta).
TAIL_FRACTION = 1e-3
#: PLD value discretization (pessimistic estimate: rounding only loosens the bound).
DISCRETIZATION = 1e-3


def default_levels(batch: int, dim: int) -> int:
    """``g = ceil(max(2 sqrt(B), d, 4))`` [C, ``SDPLinUCBPVec``; rounded up to an integer here]."""
    return math.ceil(max(2.0 * math.sqrt(batch), dim, 4))


def coordinate_count(dim: int) -> int:
    """Coordinates of one report: ``d(d+1)/2`` (upper triangle of ``x x^T``) plus ``d`` (``x r``)."""
    return dim * (dim + 1) // 2 + dim


def _window_pmf(trials: int, p: float, tail: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Support window of ``Bin(trials, p)`` holding all but at most ``tail`` of its mass; log pmf on it."""
    from scipy import stats

    lo = int(stats.binom.ppf(tail / 2.0, trials, p))
    hi = int(stats.binom.isf(tail / 2.0, trials, p))
    k = np.arange(max(lo, 0), min(hi, trials) + 1)
    left_out = float(stats.binom.cdf(k[0] - 1, trials, p) + stats.binom.sf(k[-1], trials, p))
    return k, stats.binom.logpmf(k, trials, p), left_out


def _shift_pld(k: np.ndarray, logpmf: np.ndarray, shift: int):
    """dp_accounting PLD of ``(X, X + shift)`` for ``X`` with the given (windowed) log pmf."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    lower = dict(zip(k.tolist(), logpmf.tolist()))
    upper = dict(zip((k + shift).tolist(), logpmf.tolist()))
    return pld.from_two_probability_mass_functions(lower, upper, value_discretization_interval=DISCRETIZATION)


def vector_sum_epsilon(trials: int, p: float, levels: int, coordinates: int, delta: float) -> float:
    """Central epsilon at ``delta`` of releasing ``m = coordinates`` sums ``sum u_bar + Bin(trials, p)``, one
    user shifting each by at most ``levels`` (module docstring; ``trials = n b`` of the whole batch)."""
    trials = v.integer(trials=trials, minimum=1)
    p = v.probability(p=p)
    levels = v.integer(levels=levels, minimum=1)
    coordinates = v.integer(coordinates=coordinates, minimum=1)
    delta = v.probability(delta=delta)
    k, logpmf, left_out = _window_pmf(trials, p, TAIL_FRACTION * delta)
    budget = delta - coordinates * left_out
    if budget <= 0:
        return math.inf
    from scipy import stats

    # mass where one side of a coordinate's pair is 0 (an infinite privacy loss), larger tail of the two
    # directions; when the m coordinates' joint such mass reaches delta, no finite epsilon holds
    alone = max(stats.binom.cdf(levels - 1, trials, p), stats.binom.sf(trials - levels, trials, p))
    if 1.0 - (1.0 - alone) ** coordinates >= budget:
        return math.inf
    plus = _shift_pld(k, logpmf, levels)
    if p == 0.5:  # symmetric binomial: the -g shift has the same PLD as the +g one
        return float(plus.self_compose(coordinates).get_epsilon_for_delta(budget))
    minus = _shift_pld(k + levels, logpmf, -levels)
    worst = 0.0
    for up in range(coordinates + 1):
        parts = [plus.self_compose(up)] if up else []
        if coordinates - up:
            parts.append(minus.self_compose(coordinates - up))
        composed = parts[0] if len(parts) == 1 else parts[0].compose(parts[1])
        worst = max(worst, float(composed.get_epsilon_for_delta(budget)))
    return worst


@lru_cache(maxsize=128)
def calibrate_vector_sum(epsilon: float, delta: float, batch: int, levels: int, coordinates: int) -> int:
    """Smallest ``b`` (to 1%, on the feasible side) with :func:`vector_sum_epsilon` ``(batch * b, 1/2, levels,
    coordinates, delta) <= epsilon``. Starting point: the Gaussian with the binomial's variance ``n b / 4``."""
    from dpbandit.privacy.accounting import gaussian_sigma

    epsilon = v.positive(epsilon=epsilon)
    delta = v.probability(delta=delta)
    batch = v.integer(batch=batch, minimum=1)

    def feasible(b: int) -> bool:
        return vector_sum_epsilon(batch * b, 0.5, levels, coordinates, delta) <= epsilon

    sigma = gaussian_sigma(epsilon, delta, float(levels), coordinates)
    hi = max(1, math.ceil(4.0 * sigma**2 / batch))
    while not feasible(hi):
        hi = math.ceil(hi * 1.25) + 1
    lo = max(1, int(hi / 1.25))
    if feasible(lo):
        return lo
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class VectorSumRandomizer:
    """One user's P_Vec randomizer of ``(x x^T, x r)``, debiased (the analyzer's share of one user).

    The sum of ``B`` users' :meth:`randomize` outputs is exactly the analyzer's output on their shuffled
    messages (A is affine), so the agents add debiased reports and publish them per batch.

    Attributes:
        dim: d; feature_bound: L (``||x||_2 <= L`` required); reward_bound: R (``|r| <= R`` required).
        batch: users per shuffled batch; levels: g; trials: b; p: the binomial's success probability.
    """

    dim: int
    feature_bound: float
    reward_bound: float
    batch: int
    levels: int
    trials: int
    p: float = 0.5
    models: int = 1

    def __post_init__(self) -> None:
        v.integer(dim=self.dim, minimum=1)
        v.positive(feature_bound=self.feature_bound)
        v.positive(reward_bound=self.reward_bound)
        v.integer(batch=self.batch, minimum=1)
        v.integer(levels=self.levels, minimum=1)
        v.integer(trials=self.trials, minimum=1)
        v.probability(p=self.p)
        if self.models != 1:
            raise ValueError(f"VectorSumRandomizer supports models=1 (shared parameter), got models={self.models}.")

    @property
    def coordinates(self) -> int:
        return coordinate_count(self.dim)

    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, width)`` per coordinate: upper triangle of ``x x^T`` (row-major), then ``x r``."""
        L2, LR = self.feature_bound**2, self.feature_bound * self.reward_bound
        rows, cols = np.triu_indices(self.dim)
        diag = rows == cols
        lo = np.concatenate([np.where(diag, 0.0, -L2 / 2.0), np.full(self.dim, -LR)])
        width = np.concatenate([np.where(diag, L2, L2), np.full(self.dim, 2.0 * LR)])
        return lo, width

    @property
    def sigma(self) -> float:
        """Largest per-entry std of one user's debiased binomial noise, ``width / g sqrt(b p (1 - p))`` (the
        Gram entries'; the agents' regulariser ``gamma`` scales with it)."""
        return self.feature_bound**2 / self.levels * math.sqrt(self.trials * self.p * (1.0 - self.p))

    def epsilon(self, delta: float) -> float:
        """Central epsilon at ``delta`` of one shuffled batch (:func:`vector_sum_epsilon`)."""
        return vector_sum_epsilon(self.batch * self.trials, self.p, self.levels, self.coordinates, delta)

    def local_epsilon(self, delta: float) -> float:
        """Epsilon of one user's messages seen unshuffled (their sum ``u_bar + Bin(b, p)``): P_Vec's local
        guarantee, which is weak (the privacy comes from the batch)."""
        return vector_sum_epsilon(self.trials, self.p, self.levels, self.coordinates, delta)

    def check(self, x: np.ndarray, reward: float) -> tuple[np.ndarray, float]:
        """``(x, reward)`` as floats, or ``ValueError`` naming the bound exceeded (nothing clipped)."""
        return checked_record(x, reward, dim=self.dim, feature_bound=self.feature_bound,
                              reward_bound=self.reward_bound)

    def encode(self, rng: np.random.Generator, values: np.ndarray) -> np.ndarray:
        """R's message per coordinate: randomised rounding of ``g (v - lo) / width`` plus ``Bin(b, p)``."""
        lo, width = self.ranges()
        u = np.clip(self.levels * (values - lo) / width, 0.0, self.levels)  # inside [0, g] up to rounding
        floor = np.floor(u)
        return floor + (rng.random(u.shape) < u - floor) + rng.binomial(self.trials, self.p, u.shape)

    def decode(self, messages: np.ndarray, users: int = 1) -> np.ndarray:
        """A: the debiased sum of ``users`` users' messages, ``users lo + width / g (Y - users b p)``."""
        lo, width = self.ranges()
        return users * lo + width / self.levels * (messages - users * self.trials * self.p)

    def randomize(
        self, rng: np.random.Generator, x: np.ndarray, reward: float, model: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """One user's debiased report ``(G, u)`` of shapes ``(1, d, d)`` and ``(1, d)``."""
        x, reward = self.check(x, reward)
        if model != 0:
            raise ValueError(f"Expected model=0 (one shared model), got {model}.")
        rows, cols = np.triu_indices(self.dim)
        values = np.concatenate([np.outer(x, x)[rows, cols], reward * x])
        out = self.decode(self.encode(rng, values))
        gram = np.zeros((1, self.dim, self.dim))
        gram[0, rows, cols] = out[: len(rows)]
        gram[0, cols, rows] = out[: len(rows)]
        return gram, out[len(rows):][None, :]
