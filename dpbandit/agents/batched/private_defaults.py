"""Defaults of ``private`` as functions of the noise they face (issue 40 item 2).

Every default of :class:`~dpbandit.agents.batched.private.PrivateAgent` that differs between noise on and off
is a function of public inputs only (epsilon, delta, T, d, K and the layout's budget share) through one number,
the **noise ratio** ``a`` of :func:`noise_ratio`: the variance of the privacy noise in a model's summed
``moments`` over their sampling variance, ``a = 0`` with noise off. Each default tends to its noise-off value as
``a -> 0`` (tests/agents/batched/test_private_defaults.py):

* continuous defaults move with ``a``: ``prior_exploration`` (:func:`prior_exploration`), the reward clip's
  quantile (:func:`reward_quantile`, from the median to 0.99), the one-feature form's Thompson scale
  (:func:`one_feature_exploration`, from 0.5 to 1); the batch schedule moves with epsilon
  (:func:`schedule`);
* discrete choices whose noise-off form loses under noise (the per-model Grams, the joint intercept; measured
  at epsilon 8 and 64 on results/private_epsilon_limit.md) switch to that form where the noise is below one
  round's contribution, ``a <= K / T`` (:func:`noise_negligible`);
* defaults computed from the released noise variances in :meth:`PrivateAgent._estimate` (the ridge's noise
  terms, the selection margin in noise std, the empirical-Bayes intercept shrinkage, the count ridge) reach
  their noise-off values at ``a = 0`` by construction: each is a multiple of a released noise std; the ridge's
  multiple falls with ``a`` too (:func:`ridge_noise_norm`), so its noise terms fall faster than the noise std.
"""

from __future__ import annotations

import math

from dpbandit import _validate
from dpbandit.agents.batched.base import BatchSchedule

__all__ = ["JOINT_MAX_NOISE_RATIO", "NOISE_OFF_EXPLORATION", "NOISE_OFF_PRIOR_EXPLORATION",
           "NOISE_OFF_REWARD_QUANTILE", "ONE_FEATURE_EXPLORATION", "PER_MODEL_MAX_NOISE_RATIO", "SCHEDULES",
           "effective_releases", "interpolated_reward_quantile", "joint_intercept", "noise_negligible",
           "noise_ratio", "noise_share", "one_feature_exploration", "one_round_weight", "per_model_grams",
           "prior_exploration", "reward_quantile", "ridge_noise_norm", "schedule", "spectral_weight"]

#: Default ``prior_exploration`` with noise off [Fill; measured, docs/batched_agents.md "Many arms"]: greedy
#: least squares starved arms whose first estimates lost (``LinearBandit-v0``, 20 arms, d = 25: 8 of 20 arms
#: never played, 6.8x LinUCB's regret); a Thompson perturbation by one prior round's posterior spread (large
#: without data, fading as ``1 / N``) explores them: 1.46x, S4 1.78x (6 seeds, root 2; 0.5: 1.64x and 1.80x,
#: 1.0: 1.48x and 2.04x on 4 seeds, root 1). The data's own posterior spread (``exploration``) cost S4 more.
NOISE_OFF_PRIOR_EXPLORATION = 0.7
#: Scale of the one-feature form's Thompson draws (``exploration`` of ``private`` with one feature and a model per
#: arm, ``PrivateAgent.one_feature``) under heavy noise [Fill; measured, docs/batched_agents.md "Issue 40 item 3:
#: Thompson draws with one feature"]: the plain multi-armed bandit's constant context gives greedy play nothing to
#: split a batch by, so a whole batch went to the arm whose released estimate led, and a lead made of noise locked
#: in bad arms; per-user draws from the posterior (batched Thompson sampling, Kalkanli and Ozgur 2021) split a
#: batch by each arm's chance of being best. Five arms, 50 seeds, roots 0 and 1, epsilon 1, before the rest of the
#: form: seeds above half of random's regret 3 and 5 greedy, 0 and 2 at 0.35, 1 and 1 at 0.5, 0 and 1 at 0.7, 1 and
#: 0 at 1.0, mean regret 266, 272, 278 and 302 (greedy 285); with the form 0.5 against 0.69 (``1 / (1 + a)``):
#: 228 / 249 against 237 / 265, the three-arm means 169 / 151 against 175 / 149. With more features greedy play is
#: split by the contexts (rate-optimal under covariate diversity, Bastani, Bayati and Khosravi 2021) and the draws
#: cost at epsilon 1 (0.5: Figure 5.1 302 -> 344, digits 4,987 -> 5,890, 10 seeds, root 29): there none.
ONE_FEATURE_EXPLORATION = 0.5
#: The one-feature form's draws with noise off: full Thompson sampling (the posterior's own spread) [Fill;
#: measured]: at 0.5 the noise-off form locked in on 1 seed of 50 with five arms (regret 791 and 797, roots 3
#: and 5; at 1.0 the worst seeds are 177 and 118, the means 61 and 58 against 67 and 63; three arms 29 against
#: 12-15, worst 55 against 52).
NOISE_OFF_EXPLORATION = 1.0
#: Quantile the reward clip tracks with noise off (no noise to trade the clip's bias against) [Fill]: at the
#: median, clipped rewards shrank the slopes by half on ``LinearBandit-v0``. With the noise-off schedule, noise-off
#: regret on the learning suite went from 3.04x to 1.38x LinUCB's on S4 and from 1.93x to 0.91x on S1
#: (results/learning_suite.md; the split between the two changes: docs/batched_agents.md).
NOISE_OFF_REWARD_QUANTILE = 0.99
#: Largest noise ratio ``a`` at which :func:`per_model_grams` replaces the pooled layout [Fill; measured]: the
#: pooled layout's private choice (dense, screened, and the per-arm constant) exists to pay for the noise, and
#: per-model Grams give it up. Per-model against pooled, root 29: ``LinearBandit-v0``, K = 20, d = 25,
#: T = 2 x 10^4 (6 seeds): epsilon 1024 (``a`` 0.0011) 885 against 1,197; 256 (0.0053) 1,338 against 1,494
#: (10 seeds); 64 (0.03) 1,649 against 1,582; 16 (0.2) 2,227 against 2,176. Digits (2 seeds,
#: docs/batched_agents.md): 1024 (0.0028) 640 against 1,018, 256 (0.013) 833 against 1,158. Two models keep
#: the pooled layout (:func:`per_model_grams`).
PER_MODEL_MAX_NOISE_RATIO = 0.01
#: Largest ``K a`` (models times the noise ratio) at which :func:`joint_intercept` fits the intercepts jointly
#: under noise [Fill; measured, h40f, 10 seeds, root 29, docs/batched_agents.md "Issue 40"].
JOINT_MAX_NOISE_RATIO = 0.005
#: Default batch schedules (first batch, growth) [Fill; measured, docs/batched_agents.md]. With Grams (pooled
#: or per model): batches of 64 growing by 1.5, a refit every third of the rounds so far where doubling waits
#: for as many rounds as were seen (each batch is its own release, parallel composition, so the finer schedule
#: costs noise only through the inverse-variance sum); digits at T = 10^4: accuracy 0.44 -> 0.56. Screened
#: diagonal or isotropic layouts (large ``d``): 32 and doubling as the other batched agents (the screen's
#: threshold pays for every extra batch's noise; d = 5000: 0.87x vs 0.92x random on 3 paired seeds).
#: With noise off (no release to pay for): 16 growing by 1.2, the non-private limit of that trade-off (with
#: the 0.99 clip, development runs of S4: 2.4x LinUCB's regret at (64, 1.5), 1.6x at (16, 1.2)).
SCHEDULES = {"pooled": (64, 1.5), "screened": (32, 2.0), "noise-off": (16, 1.2)}


def effective_releases(horizon: int, first: int, ratio: float) -> float:
    """``T^2 / sum_l n_l^2`` over the batches of the schedule that end within ``T`` (public).

    The fit sums the batches with inverse-variance weights, which are ``prop n_l`` where the noise dominates, so
    the summed noise of a total of ``N = sum n_l`` rounds has variance ``sigma^2 N^2 / sum_l n_l^2``: that of
    ``N^2 / sum n_l^2`` releases of the same ``sigma`` (1 for one batch; 5.4 for (64, 1.5) at T = 10^4).
    """
    sizes = BatchSchedule(first, ratio).released_batches(horizon)
    total = sum(sizes)
    return total**2 / sum(n * n for n in sizes) if sizes else 1.0


def noise_ratio(multiplier: float, *, horizon: int, dim: int, n_models: int, share: float,
                releases: float) -> float:
    """Privacy-noise variance of a model's summed ``moments`` over their sampling variance (module docstring).

    A coordinate of ``sum x b`` over a model's ``N = T / K`` rounds (rows of norm ``C`` spread over ``d``
    coordinates, ``|b|`` about ``B``) has sampling variance about ``N C^2 B^2 / d``; one release adds noise of std
    ``z 2 C B / sqrt(share)`` (sensitivity ``2 C B``, :mod:`~dpbandit.agents.batched.private`), ``releases``
    times over (:func:`effective_releases`), so

        ``a = 4 z^2 d K releases / (share T)``.

    ``C`` and ``B`` cancel: ``a`` is a function of (epsilon, delta) through ``z`` and of T, d, K and the layout.
    ``a = 0`` at ``z = 0`` (noise off); ``a`` falls as ``z^2``, about ``1 / (2 epsilon)`` at large epsilon (there
    the Gaussian mechanism's ``mu = 1 / z`` meets ``delta`` at about ``sqrt(2 epsilon)``, Balle and Wang 2018,
    Theorem 8).
    """
    z = _validate.nonnegative(multiplier=multiplier)
    horizon = _validate.integer(horizon=horizon, minimum=1)
    share = _validate.probability(share=share)
    return 4.0 * z**2 * dim * n_models * releases / (share * horizon)


def noise_negligible(ratio: float, *, horizon: int, n_models: int) -> bool:
    """Whether the noise is below one round's contribution: ``a <= K / T`` [Fill; derived].

    ``a`` is the noise variance in units of the sampling variance of ``N = T / K`` rounds, so ``a <= 1 / N`` is
    noise smaller than the sampling variance of one round. Below it the noise-off form of each discrete choice
    (per-model Grams, the joint intercept, the 0.99 clip quantile, the noise-off schedule) has lost its reason
    to differ: each was set apart because the noise it adds (a K-th of the Gram signal, the ``sums`` block, a
    clip 4x the median's) cost more than the bias it removes, and one round's worth of noise cannot.
    """
    return ratio <= n_models / _validate.integer(horizon=horizon, minimum=1)


def one_round_weight(ratio: float, *, horizon: int | None) -> float:
    """``1 / (1 + a T)``: the share of sampling variance in one round's variance, noise included, where the
    noise is that of all ``K`` models' releases (``a T / K`` is one model's noise variance in units of one
    round's sampling variance; the reward clip sets every model's noise at once); 0 without a horizon, where
    the noise cannot be weighed, 1 with noise off."""
    if horizon is None or ratio == math.inf:
        return 0.0
    return 1.0 / (1.0 + ratio * _validate.integer(horizon=horizon, minimum=1))


def reward_quantile(ratio: float, *, horizon: int | None, n_models: int) -> float:
    """Quantile of ``|r - c_k|`` the reward clip tracks: ``q_off = NOISE_OFF_REWARD_QUANTILE`` where the noise is
    negligible (:func:`noise_negligible`: there every discrete default takes its noise-off form, and the joint
    intercept, which centres each model at its own mean, needs the noise-off clip), else ``0.5 + (q_off - 0.5)
    w`` with ``w`` the :func:`one_round_weight` [Fill; interpolation, its yardstick and the switch measured].

    The median trades the clip's bias against the noise, which scales with the clip ``B``; the noise-off
    quantile (no noise to trade against) keeps nearly every reward. The weight of the noise-off value is the
    share of a round's variance that is sampling, the noise counted over all models (the clip sets each
    one's): continuous in epsilon, 0.99 at ``a = 0``, the median where the noise of one release exceeds a
    round's sampling variance (Figure 5.1: epsilon 64, 0.504; 1024, 0.59; 10^6, 0.99). Measured: on one
    round of one model's noise (``1 / (1 + a T / K)``, the yardstick of :func:`noise_negligible`) the clip
    reached 0.73 at epsilon 1024 on ``LinearBandit-v0`` (K = 20, d = 25, per-model Grams, 6 seeds, root 29):
    regret 1,285 against 1,019 at the median.

    The switch (issue 40, results/private_noise_sensitivity.md): in the noise-off forms (per-model Grams, the
    joint intercept) the interpolated clip clipped the spread of a model's rewards about its own mean, and the
    regret rose with epsilon: ``LinearBandit-v0`` (K = 20, d = 25, T = 2 x 10^4, 6 seeds, root 29) 715 at
    epsilon 1024 (not yet negligible), 1,152 at 4096 (clip 0.58), 876 at 16384 (0.72), against 436 and 443 with
    the 0.99 clip (noise off 392); Figure 5.1 at 4096 / 16384 15.9 / 13.1 against 16.6 / 12.5 (noise off
    12.7). Below the switch the interpolation stays: with the joint intercept on Figure 5.1 the 0.99 clip cost
    82 against 17 at epsilon 1024 (where the noise is not negligible)."""
    if horizon is not None and noise_negligible(ratio, horizon=horizon, n_models=n_models):
        return NOISE_OFF_REWARD_QUANTILE
    return interpolated_reward_quantile(ratio, horizon=horizon)


def interpolated_reward_quantile(ratio: float, *, horizon: int | None) -> float:
    """``0.5 + (q_off - 0.5) w``, ``w`` the :func:`one_round_weight`: :func:`reward_quantile` below its switch."""
    return 0.5 + (NOISE_OFF_REWARD_QUANTILE - 0.5) * one_round_weight(ratio, horizon=horizon)


def prior_exploration(ratio: float) -> float:
    """``NOISE_OFF_PRIOR_EXPLORATION / (1 + a)`` [Fill; derived]: the noise-off Thompson scale, by the share of
    the estimates' variance that is sampling (not privacy noise).

    With noise off the perturbation by one prior round's spread keeps arms whose first estimates lost from
    starving; under noise the released noise perturbs every estimate already, by ``a`` times the sampling
    variance, so the deliberate perturbation keeps the share ``1 / (1 + a)`` the noise leaves to it. ``a = 0``:
    0.7 (noise off); epsilon 1 (``a`` about 5 on Figure 5.1, 30 on digits): 0.1 and 0.02, near the former 0.
    """
    if not ratio >= 0.0:  # inf (no horizon: the noise cannot be weighed) gives 0
        raise ValueError(f"Expected noise_ratio >= 0, got noise_ratio={ratio!r}.")
    return NOISE_OFF_PRIOR_EXPLORATION / (1.0 + ratio)


def one_feature_exploration(ratio: float, *, horizon: int | None) -> float:
    """``q + (q_off - q) w`` [Fill; derived interpolation]: the one-feature form's Thompson scale, from
    ``q = ONE_FEATURE_EXPLORATION`` under noise to ``q_off = NOISE_OFF_EXPLORATION`` (full Thompson sampling) as
    the noise vanishes, ``w`` the :func:`one_round_weight` (as the reward clip's quantile moves; 0.0004-0.0008 on
    the plain bandits at epsilon 1, T = 5,000, so 0.5 there)."""
    weight = one_round_weight(ratio, horizon=horizon)
    return ONE_FEATURE_EXPLORATION + (NOISE_OFF_EXPLORATION - ONE_FEATURE_EXPLORATION) * weight


def schedule(layout: str, epsilon: float | None) -> tuple[int, float]:
    """Default batch schedule: the layout's (``SCHEDULES``) at epsilon <= 1, moving to the noise-off one as
    epsilon grows (``None``: noise off, or noise below one round's, :func:`noise_negligible`) [Fill; measured,
    docs/batched_agents.md].

    Each of first batch and growth is ``noise_off + (layout - noise_off) min(1, 1 / epsilon)`` (pooled layout:
    epsilon 4 (28, 1.275), 16 (19, 1.22), 64 (17, 1.2)): the noise multiplier ``z`` falls as ``1 / epsilon``
    at moderate epsilon (``1 / sqrt(2 epsilon)`` beyond), and with it the price of each extra release. Measured (root 29, 3 seeds, T = 10^4,
    epsilon 64 / 16 / 4, (16, 1.2) against (64, 1.5)): digits regret 1,214 / 1,387 / 2,044 against 2,228 /
    2,167 / 2,891, Figure 5.1 25 / 48 / 119 against 35 / 54 / 106.
    """
    if epsilon is None:
        return SCHEDULES["noise-off"]
    first, ratio = SCHEDULES[layout]
    t = min(1.0, 1.0 / _validate.positive(epsilon=epsilon))
    low_first, low_ratio = SCHEDULES["noise-off"]
    return round(low_first + (first - low_first) * t), low_ratio + (ratio - low_ratio) * t


def per_model_grams(ratio: float, *, n_models: int) -> bool:
    """Whether per-model Grams replace the pooled one under noise: ``a <= PER_MODEL_MAX_NOISE_RATIO`` with more
    than two models [Fill; measured switch].

    The pooled layout stands ``(N_k / N) S`` for arm ``k``'s Gram, a bias greedy play's selection creates and no
    noise level removes (why the pooled layout does not tend to noise off as epsilon grows); its private choice
    (dense, screened, per-arm constant) pays for the noise. Per-model Grams carry ``K`` times the relative noise.
    With two models the greedy split is a half-space, and for contexts symmetric about their mean each half's
    second moment is the whole's: the pooled share has no first-order bias, and the layout keeps its private
    choice until :func:`noise_negligible` (Figure 5.1, 10 seeds, root 29: per-model Grams from epsilon 256 gave
    28.6 at 256 and 22.4 at 1024 against the pooled 23.2 and 22.3). A derived crossover (per-model relative
    noise ``2 z sqrt(2 L d / share) K d / T`` against a relative bias ``min(K - 1, d) / d``) was measured and
    dropped: it kept digits pooled at epsilon 1024, where per-model Grams gain most (its classes select each
    arm's rows by cluster, a bias in every direction)."""
    return n_models > 2 and ratio <= PER_MODEL_MAX_NOISE_RATIO


def noise_share(ratio: float) -> float:
    """``a / (1 + a)``: the privacy noise's share of an estimate's variance (sampling the rest, the share
    :func:`prior_exploration` keeps); 1 for ``a = inf`` (no horizon), 0 with noise off."""
    if not ratio >= 0.0:
        raise ValueError(f"Expected noise_ratio >= 0, got noise_ratio={ratio!r}.")
    return 1.0 if ratio == math.inf else ratio / (1.0 + ratio)


def spectral_weight(ratio: float, epsilon: float | None) -> float:
    """Weight of the spectral bound in :func:`ridge_noise_norm`: ``max(noise_share(a), min(1, 1 / epsilon))``
    [Fill; derived, the epsilon term measured].

    The noise's share of the variance, :func:`noise_share`, is the weight the derivation gives; ``a`` is the
    share at the end of the horizon, and on long horizons it is small at epsilon 1 (``PerArmLinearBandit-v0``
    at T = 10^5: ``a`` 0.06) while the early batches are dominated by noise: there one direction's norm cost
    284 -> 383 regret at epsilon 1 (5 seeds, root 2311). So the spectral bound is kept at epsilon <= 1 (the
    form every epsilon-1 result was measured with) and its weight falls no faster than ``1 / epsilon`` (the
    schedule's interpolation, :func:`schedule`). 0 with noise off (``epsilon`` None)."""
    if epsilon is None:
        return 0.0
    return max(noise_share(ratio), min(1.0, 1.0 / _validate.positive(epsilon=epsilon)))


def ridge_noise_norm(std: float, *, direction: float, spectral: float, weight: float) -> float:
    """The norm of a released block's noise (entry std ``std``) the ridge of ``private`` answers:
    ``std (direction + (spectral - direction) weight)``, ``weight`` the :func:`spectral_weight` [Fill; derived,
    measured].

    The ridge keeps noise-dominated directions from being amplified. The worst direction's noise is the
    spectral norm (``2 sqrt(d)`` entry std for the Gram's symmetric noise, the semicircle; ``sqrt(d)`` for the
    moments' vector noise), the bound where the noise fills every direction; a direction the data fill sees
    one direction's noise (``sqrt(2)`` std for ``u^T E u``, 1 for ``u^T e``). The noise's share of the
    variance weighs the two: the spectral norm under heavy noise, one direction's as the noise vanishes.
    Measured with the weight ``a / (1 + a)`` against the spectral norm alone (10 seeds, root 29, T = 10^4,
    2 x 10^4 on ``LinearBandit-v0``, K = 20, d = 25): ``LinearBandit-v0`` epsilon 64 / 1024: 1,624 / 781 ->
    1,450 / 670 (epsilon 8 / 256: 2,514 / 827, against 2,590 / 1,247 before the prior round's fix too);
    digits epsilon 8 / 64 / 1024: 2,060 / 1,300 / 727 -> 1,932 / 1,106 / 763; Figure 5.1 epsilon 8 / 64: 65.4 /
    28.2 -> 68.4 / 28.7. Scaling the spectral norm by a constant instead cost epsilon 1 (0.3:
    ``LinearBandit-v0`` 4,561 -> 4,982, digits 4,984 -> 5,369); ``a / (1 + a)`` times the spectral norm alone
    (one direction's at 0) cost digits at epsilon 1024 (727 -> 967), where pixels that never vary leave
    directions of noise only.
    """
    return std * (direction + (spectral - direction) * _validate.probability(weight=weight, open_interval=False))


def joint_intercept(ratio: float, *, n_models: int) -> bool:
    """Whether the joint intercept (least squares on ``(1, x)``, the noise-off form) replaces the backfitted or
    centred line under noise: ``K a <= JOINT_MAX_NOISE_RATIO`` [Fill; measured switch].

    The joint fit subtracts each model's ``X X^T / N'`` from its Gram and takes ``X^T theta`` from its intercept,
    ``X`` the released ``sums``: their noise enters every model's fit, over ``N = T / K`` rows each, so the
    yardstick grows with ``K`` (``a`` is per model). Measured against the defaults (10 seeds, root 29; ``K a``
    in brackets): Figure 5.1 (K = 2) epsilon 64 [0.023] 52.2 against 28.7, 256 [0.0042] 21.6 against 23.8, 1024
    [0.0009] 18.1 against 24.2; ``ImbalancedClasses-v0`` (K = 4) 256 [0.0040] 3,142 against 3,192, 1024
    [0.0008] 3,098 against 3,124; ``LinearBandit-v0`` (K = 20, d = 25) 1024 [0.022] 1,370 against 670; digits
    (K = 10) 1024 [0.028] 813 against 763. No measured setting sits between 0.0042 and 0.022; 0.005 keeps the
    switch next to the measured wins. One model: never (a common intercept never changes the arm played)."""
    return n_models > 1 and ratio * n_models <= JOINT_MAX_NOISE_RATIO
