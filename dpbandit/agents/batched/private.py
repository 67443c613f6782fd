"""The recommended private agent: per-arm least squares from one Gaussian release per batch of users.

Design (issue 23; docs/batched_agents.md, section "The recommended agent: ``private``"). The skeleton is that
of the other batched agents (:mod:`~dpbandit.agents.batched.gaussian`): geometric batches, one Gaussian
release per batch of that batch's users (parallel composition; joint DP by the billboard lemma), adaptive
clips (:mod:`~dpbandit.agents.batched.clipping`), one :class:`~dpbandit.privacy.release.BlockGaussianRelease`
calibrated by dp-accounting. With ``x`` the played row clipped to ``||x||_2 <= C`` and ``b = clip(r - c_k, -B,
B)`` (``c_k`` the public centre of model ``k``), each batch releases:

* per model ``k`` (arm ``k`` in the disjoint model; one model on the chosen arm's row in the per-arm model):
  ``moments`` ``sum x b``, ``rewards`` ``sum b``, ``squares`` ``sum b^2``, and with an intercept ``sums``
  ``sum x``; ``counts`` (disjoint model) and the two clipping counts;
* second moments chosen by a public rule (:meth:`PrivateAgent._second_moments`): one ``pooled`` Gram ``sum x
  x^T`` over every played row (upper triangle; ``d <= 2048``), the pooled diagonal ``diag`` ``sum x * x``, or
  ``none`` (the isotropic scale ``C^2 / d``); per-model Grams ``gram`` with noise off, at small noise (noise
  ratio <= ``PER_MODEL_MAX_NOISE_RATIO``, :mod:`~dpbandit.agents.batched.private_defaults`) or by hand;
* with the pooled Gram, ``selection`` (issue 29 item 3: a portfolio chosen privately): each candidate's
  squared loss ``sum (b - clip(o_k + x^T theta_k, -B, B))^2`` on the batch's own rounds, slopes ``theta`` and
  offsets ``o`` from earlier releases: the dense ridge, the screened estimate (offsets: the models'
  intercepts less their centres, 0 without intercepts) and, where ``candidates=`` asks for it (not by
  default: ``DEFAULT_CANDIDATES``), the per-arm constant (slope 0, offset the arm's released mean reward less
  its centre: best-arm play);
* with backfitted intercepts (the default under a declared reward range, disjoint model), ``predictions``
  per model: ``sum clip(x^T theta_k, -B, B)``, the slope in play (from earlier releases) on the model's rows.

Estimate [Fill]: releases are summed over batches with weights ``w_l = n_l / (sigma_l^2 + n_l (C_l B_l)^2 /
d)`` (``sigma_l`` the ``moments`` noise std: inverse variance of a batch's mean when noise dominates), each
batch's sums un-centred by its public ``c_k``. Model ``k``'s Gram ``S_k`` is its own (``gram``) or its share
``N_k / N`` of the pooled one. Dense estimate: ridge ``(S_k + lambda_k I)^{-1} G_k`` on every coordinate,
``lambda_k`` = the Gram noise's norm (scaled like ``S_k``) + one round (``C^2``) + the moments' noise norm
times ``C / B`` (over the largest slope a score bounded by ``B`` allows: noise-dominated directions shrunk, not
amplified), each norm between one direction's (``sqrt(2) s_G``, ``s_G'``) and the spectral one (semicircle
``2 s_G sqrt(d)``, ``sqrt(d) s_G'``) by the noise's share ``a / (1 + a)`` of the estimates' variance, the
spectral one at epsilon <= 1 (:func:`~dpbandit.agents.batched.private_defaults.spectral_weight`). Screened
estimate: on the diagonal, coordinates kept by Benjamini-Hochberg at level ``fdr`` on ``|G_j - X_j R / N'|`` over its noise (released noise plus the
sampling noise ``var(r) S_jj``), then re-tested on the joint slope; in the pooled layout its diagonal is the
pooled Gram's with each entry shrunk towards the entries' mean by the empirical-Bayes factor ``tau^2 / (tau^2 +
v)`` (``v`` the entries' released noise variance, ``tau^2`` their spread beyond it; :meth:`_shrink`) [Fill;
measured]: the Gram's noise is a relative error of each entry, and it scaled each kept coordinate's slope
(Figure 5.1 setting, 60 paired seeds on each of roots 2311 and 7: regret ratio to random 0.322 -> 0.312 and
0.315 -> 0.304; unchanged where the dense ridge is played throughout). The pooled layout plays the dense estimate
unless another candidate's released loss, each discounted by ``SELECTION_DECAY`` per batch, is below the
dense one's by more than ``SELECTION_MARGIN`` noise std of a difference of two released losses (then the
lowest; ``estimator=`` fixes the choice and drops the block); the per-arm constant plays each arm's released
mean reward, shrunk as the intercepts, for every user. The diagonal layouts play the screened one. With
``intercept=True`` (the default with noise off or small, ``K a <= JOINT_MAX_NOISE_RATIO``) least squares on
``(1, x)``: the slope solves ``(S + lambda I - X X^T / N') theta = G - X R / N'`` (Schur complement of the
intercept; ``N' = N + 2 s_N + 1`` round, ``s_N`` the count noise; Sherman-Morrison on a diagonal ``S``), with
the ``sums`` block and the intercepts shrunk towards their common mean by an empirical-Bayes factor; otherwise
a line through the origin per model, fitted to rewards centred at the declared midpoint or the pooled released
mean reward (the ``sums`` budget goes to ``moments``). Backfitted intercepts (issue 29; ``intercept=
"backfit"``, the default with a declared range, noise on and more than one feature): the slope stays that line
through the midpoint, and each model's intercept is its mean residual ``(sum r - sum p) / N'`` from the
``rewards``, ``counts`` and ``predictions`` releases (a midpoint-centred line cannot represent an arm's base
rate, its class prior), shrunk by the same empirical-Bayes factor and then, around their mean, by the ridge's
mean shrinkage factor of the model's slope ``mean_j S_jj / (S_jj + lambda)``: un-shrunk, they decided play alone
wherever the noise shrinks every slope, and an arm's intercept (its precision on the rows it won) starved the
arms still learning (digits at T = 10^4: accuracy 0.33 against 0.49). Play is greedy on ``intercept_k + x^T theta_k``;
``exploration > 0`` perturbs each score by that many of its posterior standard errors (Thompson sampling:
the slope's covariance ``V diag(spread) V^T`` from the ridge's eigenvectors where a Gram is kept, the fit's
residual variance times ``(S + lambda I)^{-1}`` plus the released noise through its square; the diagonal
elsewhere; by default 0.5 under noise with one feature and a model per arm, the plain multi-armed bandit, where
greedy play put whole batches on a noisy lead, rising to 1 (full Thompson sampling) as the noise vanishes: the
one-feature form, :func:`~dpbandit.agents.batched.private_defaults.one_feature_exploration`);
``prior_exploration > 0`` by that many standard errors of one prior round of reward variance ``B^2 / 4`` alone
(``(rho B^2 / 4 (N + rho)) rho (S + rho C^2 I)^{-1}`` where a Gram is kept: the ridge's and the count's noise
terms are no information, so they do not narrow it; large for a model without data, fading as ``1 / N``; default
0.7 with noise off, where greedy play starved arms whose first estimates lost, times the share ``1 / (1 + a)``
of the estimates' variance the privacy noise leaves to it, :mod:`~dpbandit.agents.batched.private_defaults`).
A share of the users (at most ``starved_share``, default ``1 / K``; the agent's draw) explores the arms that
the latest batch's greedy play starved while their base-rate bounds, counted in the rows their released counts
certify at ``certify`` (default 1) noise std, reach the best lower bound, each for as many rows as it has certified
(issue 40 item 3, :mod:`~dpbandit.agents.batched.elimination`: private successive elimination on the exploring
share [Sajed and Sheffet 2019, Algorithm 1], with the doubling of adaptive episodes [Azize and Basu 2022]; on the
plain Bernoulli bandit an arm that lost an early batch otherwise never got a row again). The ``rewards`` block
gets at least one slope coordinate's budget (:func:`rewards_floor`), so that at small ``d`` the base rates are
precise enough to eliminate arms. ``elimination = z > 0`` (opt-in) keeps per user only the arms whose
``score + z sd`` reaches the best ``score - z sd`` (``sd`` the score's posterior std, released noise and the
intercept's shrinkage included) and draws among them uniformly, private successive elimination's rule (Sajed and
Sheffet 2019) per user. Each depends on the user's own context, public releases and the agent's randomness only.

Reward centre and clip: with a declared ``reward_range = (low, high)`` (contract C2) ``c_k`` stays its
midpoint and ``B`` its half-width (nothing is clipped; rewards outside the range are refused); otherwise
(without an intercept) ``c_k`` follows the released mean reward pooled over the models (post-processing) and
``B`` adapts to the median of ``|r - c_k|``. Not each model's own mean [Fill; measured]: greedy play shifts
the mean context ``xbar_k`` of the rounds model ``k`` is played on, its own mean reward carries ``theta_k^T
xbar_k``, and a line through the origin fitted to rewards centred there loses ``theta_k`` along ``xbar_k``,
the direction that makes the arm win (pooled against own, 16 seeds, root 99: S1 0.318x against 0.327x random,
S4 0.224x against 0.238x, ``GLMBandit-v0`` 0.042x against 0.049x, ``PoissonBandit-v0`` 0.262x against 0.276x).
With an intercept (the default with noise off or small) ``c_k`` is the model's fitted mean. With noise off, ``B``
tracks the ``NOISE_OFF_REWARD_QUANTILE`` (:mod:`~dpbandit.agents.batched.private_defaults`) of ``|r - c_k|``,
not the median: the median trades clipping bias against noise, and without noise there is none to trade; in between, the quantile moves continuously with
the noise (:func:`~dpbandit.agents.batched.private_defaults.reward_quantile`).

Sensitivities (replace-one user record: context(s) and reward replaced, the played arm may switch; ``||x|| <=
C``, ``|b| <= B``). Same model: the block of ``k`` changes from ``f(x, b)`` to ``f(x', b')``; switch (disjoint
model): the old arm's block loses ``f(x, b)`` and the new arm's gains ``f(x', b')``, a change of l2 norm
``sqrt(||f(x, b)||^2 + ||f(x', b')||^2)``. Each is attained (tests/agents/batched/test_private.py):

* ``moments``: same ``||x b - x' b'|| <= 2 C B`` (``x' = -x``, ``b' = b``); switch ``sqrt(2) C B``: ``2 C B``;
* ``sums``: same ``||x - x'|| <= 2 C``; switch ``sqrt(2) C``: ``2 C``;
* ``rewards``: same ``|b - b'| <= 2 B``; switch ``sqrt(2) B``: ``2 B``;
* ``squares``: same ``|b^2 - b'^2| <= B^2`` (both in ``[0, B^2]``); switch ``sqrt(2) B^2``: ``sqrt(2) B^2``
  (``B^2`` in the per-arm model, which has one model);
* ``gram`` (per model): same ``||x x^T - x' x'^T||_F^2 = ||x||^4 + ||x'||^4 - 2 (x.x')^2 <= 2 C^4``, and an
  upper triangle is no larger; switch ``sqrt(||x||^4 + ||x'||^4)``: ``sqrt(2) C^2``;
* ``pooled`` (one row changes whatever the arm): ``||x x^T - x' x'^T||_F <= sqrt(2) C^2`` as for ``gram``;
* ``selection`` (one loss per candidate, ``M`` of them: 2 by default, 3 with the constant): a round's loss
  ``(b - p_m)^2`` lies in ``[0, 4 B^2]`` for each (``b`` and each clipped prediction in ``[-B, B]``; slopes
  and offsets are functions of earlier releases, whichever arm the round plays), so each entry moves by at
  most ``4 B^2``: ``4 sqrt(M) B^2``, attained when every prediction is ``-B`` for ``b = B`` and the replacing
  round is predicted exactly by every candidate. (The earlier single difference, two candidates, had ``8
  B^2``; the difference of two released losses has the same noise, ``sqrt(2) 4 sqrt(2) B^2``, at ``M = 2``.);
* ``predictions`` (per model): a round's ``p = clip(x^T theta_k, -B, B)`` lies in ``[-B, B]`` (``theta_k``
  from earlier releases): same ``|p - p'| <= 2 B`` (``x' = -x`` with ``|x^T theta_k| >= B``); switch
  ``sqrt(p^2 + p'^2) <= sqrt(2) B``: ``2 B``;
* ``diag`` (pooled; one row changes whatever the arm): ``x * x`` and ``x' * x'`` are non-negative with ``||x *
  x||_2 <= ||x||_2^2 <= C^2``, so ``||x * x - x' * x'||^2 <= ||x * x||^2 + ||x' * x'||^2 <= 2 C^4``: ``sqrt(2)
  C^2``;
* ``counts`` ``sqrt 2``, clipping counts 1 (:mod:`~dpbandit.agents.batched.gaussian`).

Every quantity carried from batch to batch (weights, sums, the residual sums, the discounted losses, clips,
centres, the portfolio's slopes and offsets, the candidate in play) is a function of the releases and public
inputs (batch sizes, clips, the declared range) only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpbandit import _validate
from dpbandit.agents.batched.elimination import (CERTIFY, base_rate_bounds, contention_scores,
                                                 exploring_shares, in_contention, starved, surviving)
from dpbandit.agents.batched import private_defaults as defaults
from dpbandit.agents.batched.gaussian import GaussianBatchedAgent
from dpbandit.privacy.budget import default_delta
from dpbandit.privacy.release import gaussian_multiplier

__all__ = ["PrivateAgent", "PrivateAgentPerArm"]

#: Floor of the Sherman-Morrison denominator ``N' - X^T D^{-1} X`` relative to ``N'`` [Fill]: the model's
#: residual variance ratio along its mean context (``1 - 2 / pi = 0.36`` for a Gaussian half-space through 0).
DENOMINATOR_FLOOR = 0.3
#: Budget share of the ``predictions`` block (backfitted intercepts) [Fill], taken from ``selection`` where
#: there is one (0.08 -> 0.03: no difference beyond the seeds' noise, docs/batched_agents.md), else from
#: ``moments`` (from ``moments`` in the pooled layout: digits at T = 10^4, 10 seeds, accuracy 0.47 against 0.49).
PREDICTIONS_SHARE = 0.05
#: Weight of a batch's released losses per later batch [Fill]: later estimates matter more.
SELECTION_DECAY = 0.5
#: Another candidate is played once its loss is below the dense one's by this many noise std [Fill]: the
#: dense ridge is the better default on dense and real data, and not worse on sparse data in low ``d``.
SELECTION_MARGIN = 2.0
#: The pooled layout's portfolio (issue 29 item 3), in order of preference on ties: the dense ridge, the
#: screened sparse estimate, a per-arm constant (best-arm play; not with one model).
CANDIDATES = ("dense", "sparse", "constant")
#: The default portfolio [Fill; measured, docs/batched_agents.md]: with the per-arm constant, early batches
#: (the slopes still noise) chose it, and its play, every user on one arm, starved the other arms' slopes
#: (digits at T = 10^4, 5 seeds, root 2911: accuracy 0.47 -> 0.41, two seeds at 0.26 and 0.28; item-1
#: imbalanced 0.592 -> 0.578).
DEFAULT_CANDIDATES = ("dense", "sparse")
#: Largest ``K d^2`` for which per-model Grams are kept with noise off (2^24 floats, 128 MB) [Fill].
GRAM_MAX_ENTRIES = 2**24
#: Largest ``d^2`` for which the pooled Gram is kept (2^22 floats, 32 MB; ``d <= 2048``) [Fill].
POOLED_MAX_ENTRIES = 2**22
#: Budget shares of the main blocks (of ``1 - aux_share``) per second-moment layout [Fill; measured,
#: docs/batched_agents.md]; without an intercept ``sums``' share goes to ``moments``.
SHARES = {
    "gram": {"moments": 0.5, "sums": 0.1, "rewards": 0.05, "squares": 0.02, "gram": 0.33},
    "diag": {"moments": 0.75, "sums": 0.1, "rewards": 0.05, "squares": 0.02, "diag": 0.08},
    "none": {"moments": 0.83, "sums": 0.1, "rewards": 0.05, "squares": 0.02},
    "pooled": {"moments": 0.55, "sums": 0.1, "rewards": 0.05, "squares": 0.02, "pooled": 0.2,
               "selection": 0.08},
}


def rewards_floor(moments_and_rewards: float, dim: int) -> float:
    """The least budget share of ``rewards`` (the arms' base rates), taken from ``moments``: one slope coordinate's
    share of the two blocks together, ``(moments + rewards) / (d + 1)`` [Fill; derived]. With rows of norm ``C``
    spread over ``d`` coordinates each coordinate of ``sum x b`` carries ``1 / sqrt(d)`` of the signal for noise of
    the same sensitivity scale, so the base rate's noise-to-signal ratio equals a coordinate's at ``share_r =
    share_m / d``. Only small ``d`` moves (``d <= 12`` at the pooled shares): at ``d = 1`` (the plain multi-armed
    bandit, where ``sum x b`` is the base rate) half each, and the base-rate bounds of
    :mod:`~dpbandit.agents.batched.elimination` are then narrow enough to eliminate arms (docs/batched_agents.md,
    "Issue 40 item 3: private successive elimination on the exploring share")."""
    return moments_and_rewards / (dim + 1)


class PrivateAgent(GaussianBatchedAgent):
    """The recommended (epsilon, delta)-JDP agent, disjoint model (module docstring).

    Args:
        n_arms, dim, rng, horizon: the Agent contract (``horizon`` or ``delta`` is required).
        epsilon, delta: the target (``delta`` defaults to ``min(1e-5, 1 / (10 T))``,
            :func:`dpbandit.privacy.budget.default_delta`).
        reward_range: declared ``(low, high)`` of the rewards, both finite (sets the centre and first clip).
        second_moments: ``"pooled"``, ``"gram"``, ``"diag"`` or ``"none"`` (default: the public rule of
            :meth:`_second_moments`).
        estimator: the pooled layout's candidate played, ``"dense"``, ``"sparse"`` or ``"constant"`` (the
            per-arm constant, more than one model) (default ``None``: chosen among ``candidates`` from their
            released losses, ``"dense"`` in the one-feature form, ``one_feature``; a fixed choice
            drops that block).
        candidates: the portfolio the pooled layout chooses from, names of ``CANDIDATES`` with ``"dense"``
            among them (default ``DEFAULT_CANDIDATES``, dense and sparse; ``"constant"`` adds best-arm play).
        fdr: Benjamini-Hochberg level of the coordinate screen (diagonal and isotropic layouts).
        intercept: per-model intercepts: ``"joint"`` (least squares on ``(1, x)``; ``True``), ``"backfit"``
            (each model's mean residual of its slope; the ``predictions`` block) or ``"none"`` (``False``);
            default: ``"joint"`` with noise off or negligible (``noise_ratio <= K / T``,
            :func:`~dpbandit.agents.batched.private_defaults.noise_negligible`; then also per-model Grams, the
            0.99 reward clip and the noise-off schedule) or where ``K noise_ratio <= JOINT_MAX_NOISE_RATIO``
            (:func:`~dpbandit.agents.batched.private_defaults.joint_intercept`), else ``"backfit"`` under a
            declared reward range with more than one feature, else ``"none"`` (the one-feature form,
            ``one_feature``).
        exploration: scale of the Thompson perturbation of the scores by their posterior std (0 = greedy;
            default in the one-feature form, one feature and more than one model:
            :func:`~dpbandit.agents.batched.private_defaults.one_feature_exploration`, else 0).
        prior_exploration: scale of the perturbation by one prior round's posterior spread (default:
            :func:`~dpbandit.agents.batched.private_defaults.prior_exploration` of the noise ratio, 0.7 with
            noise off, about 0.1 or less at epsilon 1).
        elimination: ``z`` of the per-user elimination of arms with released confidence
            (:func:`~dpbandit.agents.batched.elimination.surviving`; default 0: off, greedy play). Opt-in, not
            a default: measured on the plain Bernoulli bandit (issue 40 item 3, 20 seeds, T = 5,000, ``z = 2``,
            with ``prior_exploration = 0``, before the derived defaults): means 0.3 / 0.5 / 0.7 mean regret 249
            -> 143, worst seed 1,147 -> 342 (``private-etc`` 85 / 90); means 0.2 / 0.4 / 0.45 / 0.6 285 -> 355,
            worst 1,041 -> 860 (``private-etc`` 121 / 769):
            the confidence of a starved arm is too narrow (its released count, noise included, stands for its
            Gram), so it does not yet meet the issue's bar; on the Figure 5.1 setting (T = 10^4, 8 seeds, root
            0) ``z = 1`` raised the regret from 274 to 439.
        certify: ``c`` of the exploration of starved arms in contention: the std multiplier of their base-rate
            bounds and of the starvation test (:mod:`~dpbandit.agents.batched.elimination`; default ``CERTIFY``
            = 1; ``None``: off, greedy play).
        starved_share: the largest share of the users (drawn per user by the agent) who explore those arms, in
            [0, 1] (default ``1 / K``).
        **kwargs: :class:`~dpbandit.agents.batched.gaussian.GaussianBatchedAgent` options (clipping, schedule,
            ``aux_share``, ``noise``).
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        *,
        rng: np.random.Generator,
        horizon: int | None = None,
        reward_range: tuple[float, float] | None = None,
        second_moments: str | None = None,
        fdr: float = 0.2,
        intercept: bool | str | None = None,
        exploration: float | None = None,
        prior_exploration: float | None = None,
        estimator: str | None = None,
        candidates: tuple[str, ...] | None = None,
        elimination: float | None = None,
        certify: float | None = CERTIFY,
        starved_share: float | None = None,
        **kwargs: Any,
    ) -> None:
        n_arms, dim = _validate.integer(n_arms=n_arms, minimum=1), _validate.integer(dim=dim, minimum=1)
        self.fdr = _validate.probability(fdr=fdr)
        noise_off = not kwargs.get("noise", True)
        #: The run's noise ratio ``a`` (:func:`~dpbandit.agents.batched.private_defaults.noise_ratio`): 0 with
        #: noise off, ``inf`` without a horizon; the defaults below are functions of it (issue 40 item 2).
        models = n_arms if self.observation_model == "shared" else 1
        #: One feature and a model per arm (the plain multi-armed bandit's constant context): the one-feature form
        #: of the defaults [Fill; measured, docs/batched_agents.md "Issue 40 item 3: the one-feature form"]:
        #: Thompson draws (:func:`~dpbandit.agents.batched.private_defaults.one_feature_exploration`), no
        #: backfitted intercept (the slope on a constant feature is each arm's base rate: the intercept only added
        #: the ``predictions`` block's noise and its shrinkage) and no private choice (with one coordinate the
        #: screen keeps or drops the only feature: the ``selection`` block bought nothing). Five arms, 50 seeds,
        #: roots 0 and 1, epsilon 1, mean regret / seeds above half of random's: greedy, before the form, 292 / 3
        #: and 279 / 5; the draws alone 275 / 1 and 268 / 1; the whole form 228 / 0 and 248 / 0 (``private-etc``
        #: 159 and 163).
        self.one_feature = dim == 1 and models > 1
        self.noise_ratio = self._noise_ratio(models, dim, horizon, kwargs)
        #: Scale of the Thompson perturbation by the posterior (module docstring; in the one-feature form
        #: :func:`~dpbandit.agents.batched.private_defaults.one_feature_exploration`, else 0: greedy).
        self.exploration = _validate.nonnegative(exploration=(
            (defaults.one_feature_exploration(self.noise_ratio, horizon=horizon) if self.one_feature else 0.0)
            if exploration is None else exploration))
        # the noise-off form of the discrete choices, where the noise is below one round's contribution
        limit = noise_off or horizon is not None and defaults.noise_negligible(
            self.noise_ratio, horizon=horizon, n_models=models)
        #: Scale of the Thompson perturbation by one prior round's posterior spread (module docstring).
        self.prior_exploration = _validate.nonnegative(prior_exploration=(
            defaults.prior_exploration(self.noise_ratio) if prior_exploration is None else prior_exploration))
        #: Confidence multiplier of the elimination of arms per user (0: greedy; :meth:`scores`).
        self.elimination = _validate.nonnegative(elimination=0.0 if elimination is None else elimination)
        #: Std multiplier of the exploring share's base-rate bounds and starvation test (``None``: off, greedy play).
        self.certify = None if certify is None else _validate.nonnegative(certify=certify)
        #: Largest share of the users who explore the starved arms in contention (default ``1 / K``).
        self.starved_share = _validate.probability(
            starved_share=1.0 / n_arms if starved_share is None else starved_share, open_interval=False)
        #: The pooled layout's estimate played: ``"dense"``, ``"sparse"``, ``"constant"``, or ``None``: chosen
        #: privately among ``candidates`` (the one-feature form plays the dense ridge: one coordinate leaves a
        #: screen or a private choice nothing to select, unless a portfolio is asked for).
        self.estimator = (("dense" if self.one_feature and candidates is None else None) if estimator is None
                          else _validate.one_of(CANDIDATES, estimator=estimator))
        names = DEFAULT_CANDIDATES if candidates is None else candidates
        if (not isinstance(names, (tuple, list)) or "dense" not in names or len(set(names)) != len(names)
                or not set(names) <= set(CANDIDATES)):
            raise ValueError(f"Expected candidates to be distinct names among {CANDIDATES}, 'dense' one of "
                             f"them, got {candidates!r}.")
        if "constant" in (*names, estimator) and (self.observation_model != "shared" or n_arms < 2):
            raise ValueError("Expected no 'constant' in candidates or estimator with one model (per-arm "
                             "features share one model: a per-arm constant is not one).")
        #: The pooled layout's portfolio, in order of preference on ties.
        self.candidates = tuple(name for name in CANDIDATES if name in names)
        if second_moments is None:
            # a requested private choice (candidates or a fixed estimate) keeps the pooled layout it needs
            second_moments = self._second_moments(n_arms, dim, horizon, {**kwargs, "noise": not limit},
                                                  n_models=models, noise_ratio=(
                                                      math.inf if candidates or estimator else self.noise_ratio))
        #: ``"pooled"`` (one pooled Gram), ``"gram"`` (per-model Grams), ``"diag"`` (pooled diagonal),
        #: ``"none"`` (isotropic ``C^2 / d``).
        self.second_moments = _validate.one_of(tuple(SHARES), second_moments=second_moments)
        self.full_gram = self.second_moments in ("gram", "pooled")
        self.pooled = self.second_moments == "pooled"
        #: Intercepts [Fill; measured, docs/batched_agents.md]: the joint fit only with noise off or small (at
        #: epsilon = 1 its noisy ``sums`` cost more than it gained on every setting measured); backfitted
        #: under a declared range (a line through its midpoint cannot hold an arm's base rate); without a
        #: declared range none (the centre follows the pooled mean; backfitted intercepts there raised the
        #: mean regret from 305 to 336 on S1 and from 1,192 to 1,548 on S4: 8 seeds, root 1).
        if intercept is None:  # a declared range centres every model at its midpoint: base rates need one
            joint = limit or horizon is not None and defaults.joint_intercept(self.noise_ratio, n_models=models)
            backfit = reward_range is not None and not self.one_feature
            intercept = "joint" if joint else "backfit" if backfit else "none"
        elif isinstance(intercept, bool):
            intercept = "joint" if intercept else "none"
        #: ``"joint"`` (least squares on ``(1, x)``), ``"backfit"`` (slope through the origin, then each
        #: model's mean residual), or ``"none"``.
        self.intercept_fit = _validate.one_of(("joint", "backfit", "none"), intercept=intercept)
        self.with_intercept = self.intercept_fit == "joint"
        self.backfit = self.intercept_fit == "backfit"
        shares = dict(SHARES[self.second_moments])
        # (one model, per-arm features: a common intercept never changes the arm played, so no block)
        if self.backfit and self.observation_model == "shared" and n_arms > 1:
            shares["selection" if "selection" in shares else "moments"] -= PREDICTIONS_SHARE
            shares["predictions"] = PREDICTIONS_SHARE
        if not self.with_intercept:
            shares["moments"] += shares.pop("sums")
        floor = rewards_floor(shares["moments"] + shares["rewards"], dim)  # from moments, at small d only
        shares["moments"] -= max(floor - shares["rewards"], 0.0)
        shares["rewards"] = max(floor, shares["rewards"])
        #: Whether the played estimate is chosen privately (the pooled layout without a fixed ``estimator``).
        self.selecting = self.pooled and self.estimator is None
        if self.pooled and not self.selecting:  # a fixed estimate: no loss block, its budget to the moments
            shares["moments"] += shares.pop("selection")
        self.main_blocks = shares
        kwargs.setdefault("reward_quantile", defaults.reward_quantile(self.noise_ratio, horizon=horizon,
                                                                       n_models=models))
        first, ratio = self._schedule(limit, kwargs)
        kwargs.setdefault("first_batch", first)
        kwargs.setdefault("batch_ratio", ratio)
        # a declared range sets the centre (midpoint) and first clip (half-width) in GaussianBatchedAgent
        super().__init__(n_arms, dim, rng=rng, horizon=horizon, reward_range=reward_range, **kwargs)
        # the Thompson perturbations, and the uniform draws among the arms in contention (a stream of its own:
        # act and play_block then draw the same numbers)
        self._explore_rng, self._play_rng = self.noise_rng.spawn(2)
        #: Public per-model reward centres (the declared midpoint, the pooled released mean reward, or with an
        #: intercept the model's fitted mean).
        self.centres = np.full(self.n_models, self.clipping.reward_center)
        K, d = self.n_models, self.dim
        self._upper = np.triu_indices(d) if self.full_gram else None
        # weighted sums over batches of the un-centred releases, and their noise variances
        self._acc = {
            "n": np.zeros(K), "xr": np.zeros((K, d)), "x": np.zeros((K, d)), "r": np.zeros(K),
            "rr": np.zeros(K), "b": np.zeros(K),
            "second": np.zeros((d, d) if self.pooled else (K, d, d) if self.full_gram else d),
            "selection": np.zeros(len(self.candidates)), "residuals": np.zeros(K),
        }
        self._noise_var = dict.fromkeys(("xr", "x", "r", "second", "n", "p"), 0.0)
        self._selection_var = 0.0  # noise variance of each discounted loss
        self._total = 0.0  # sum_l w_l n_l
        self._scale = 0.0  # sum_l w_l n_l C_l^2 / d: the isotropic second moment ("none")
        self._total_sq = 0.0  # sum_l w_l^2 n_l: sampling variances of weighted means scale with it
        self.intercept = np.zeros(K)  #: rbar_k - theta_k^T xbar_k
        #: The pooled layout's portfolio of slopes: ridge on every coordinate, screened on the diagonal, and
        #: zero (the per-arm constant); with their offsets, each model's prediction of ``r - c_k`` at
        #: ``x = 0``.
        self.estimates = {name: np.zeros((K, d)) for name in self.candidates}
        self._offsets = {name: np.zeros(K) for name in self.candidates}
        self.played = self.estimator or "dense"  #: the candidate in play
        self._score_sd = np.zeros(K)  # std of the intercept
        self._intercept_sd = np.zeros(K)  # std of the intercept as played (after its shrinkage)
        #: Per model, the slope's covariance ``V diag(spread) V^T`` as ``(V, spread)`` (``V`` None: the axes),
        #: and ``(V, prior)``, the part of one prior round of reward variance ``B^2 / 4`` alone.
        self._posterior: list[tuple[np.ndarray | None, np.ndarray, np.ndarray]] = [(None, np.zeros(d),
                                                                                     np.zeros(d))] * K
        self._centre = np.zeros((K, d))  # xbar_k
        #: Per arm, the probability that a user explores it (:meth:`_contend`).
        self._exploring = np.zeros(self.n_arms)
        self._rows = 0  # rows released so far

    @staticmethod
    def _second_moments(n_arms: int, dim: int, horizon: int | None, options: dict[str, Any], *,
                        n_models: int | None = None, noise_ratio: float = math.inf) -> str:
        """Public rule [Fill; measured in docs/batched_agents.md]: the pooled Gram wherever it fits.

        One pooled ``d x d`` Gram (``"pooled"``) while ``d^2 <= POOLED_MAX_ENTRIES`` (memory, and one
        eigendecomposition per batch) and its diagonal entries are expected above their noise: with rows of
        norm ``C`` spread over ``d`` coordinates, after ``T`` rounds the diagonal is about ``T C^2 / d``; one
        release's noise has std ``sigma = z sqrt(2) C^2 / sqrt(share)``, so ``T >= 2 sqrt(2) z d /
        sqrt(share)``. Its noise-dominated directions are shrunk by the ridge of :meth:`_estimate`, so it
        degrades gracefully below that; it beat the per-model Grams and the diagonal with its coordinate
        screen on every dense and real-data setting measured. Larger ``d``: the pooled diagonal under the same
        condition with its share, else ``"none"``. ``C`` cancels; every input (``T``, ``K``, ``d``, epsilon,
        delta) is public. With noise off (nothing to average out): per-model Grams while ``K d^2 <=
        GRAM_MAX_ENTRIES``, then with an intercept the exact least squares per arm LinUCB's ridge fits. Under
        noise the pooled layout gives way to per-model Grams where the noise ratio is at most
        ``PER_MODEL_MAX_NOISE_RATIO`` (:func:`~dpbandit.agents.batched.private_defaults.per_model_grams`;
        ``noise_ratio = inf``: never, as where a private choice was requested).
        """
        fits = dim**2 <= POOLED_MAX_ENTRIES
        if not options.get("noise", True):
            return "gram" if n_arms * dim**2 <= GRAM_MAX_ENTRIES else "pooled" if fits else "diag"
        if horizon is None:
            return "none"
        epsilon = _validate.positive(epsilon=options.get("epsilon", 1.0))
        delta = options.get("delta")
        delta = _validate.probability(delta=default_delta(horizon) if delta is None else delta)
        z = 2.0 * math.sqrt(2.0) * gaussian_multiplier(epsilon, delta)
        free = 1.0 - options.get("aux_share", 0.1)
        models = n_arms if n_models is None else n_models
        for layout in ("pooled", "diag"):
            if (fits or layout == "diag") and horizon >= z * dim / math.sqrt(free * SHARES[layout][layout]):
                if layout == "pooled" and models * dim**2 <= GRAM_MAX_ENTRIES and defaults.per_model_grams(
                        noise_ratio, n_models=models):
                    return "gram"
                return layout
        return "none"

    def _schedule(self, limit: bool, options: dict[str, Any]) -> tuple[int, float]:
        """Default batch schedule (:func:`~dpbandit.agents.batched.private_defaults.schedule`): the noise-off
        one in the limit (noise off or negligible), else the layout's refined as epsilon grows."""
        epsilon = None if limit else options.get("epsilon", 1.0)
        return defaults.schedule("pooled" if self.full_gram else "screened", epsilon)

    @staticmethod
    def _noise_ratio(n_models: int, dim: int, horizon: int | None, options: dict[str, Any]) -> float:
        """The noise ratio ``a`` (:func:`~dpbandit.agents.batched.private_defaults.noise_ratio`) of the pooled
        layout at its default schedule and ``moments`` share (with ``sums``: the share without an intercept),
        a function of public inputs only: 0 with noise off, ``inf`` without a horizon."""
        if not options.get("noise", True):
            return 0.0
        if horizon is None:
            return math.inf
        epsilon = _validate.positive(epsilon=options.get("epsilon", 1.0))
        delta = options.get("delta")
        delta = _validate.probability(delta=default_delta(horizon) if delta is None else delta)
        first, ratio = defaults.schedule("pooled", epsilon)
        share = (1.0 - options.get("aux_share", 0.1)) * (SHARES["pooled"]["moments"] + SHARES["pooled"]["sums"])
        return defaults.noise_ratio(gaussian_multiplier(epsilon, delta), horizon=horizon, dim=dim,
                                    n_models=n_models, share=share,
                                    releases=defaults.effective_releases(horizon, first, ratio))

    # -- statistics ------------------------------------------------------------------------------
    def _reset_statistics(self) -> None:
        K, d = self.n_models, self.dim
        self._moments, self._sums, self._predictions = np.zeros((K, d)), np.zeros((K, d)), np.zeros(K)
        self._rewards, self._squares = np.zeros(K), np.zeros(K)
        self._second = np.zeros((d, d) if self.pooled else (K, d, d) if self.full_gram
                                else d if self.second_moments == "diag" else 0)
        self._selection = np.zeros(len(self.candidates) if self.selecting else 0)

    def _accumulate(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        onehot = (models[None, :] == np.arange(self.n_models)[:, None]).astype(float)  # (K, m)
        self._moments += onehot @ (rows * rewards[:, None])
        self._sums += onehot @ rows
        if "predictions" in self.main_blocks:  # the slope in play, clipped to [-B, B] (earlier releases)
            B = self.clipping.reward_clip
            self._predictions += onehot @ np.clip(np.einsum("md,md->m", rows, self.theta[models]), -B, B)
        self._rewards += onehot @ rewards
        self._squares += onehot @ rewards**2
        if self.selecting:  # each candidate's squared loss, predictions clipped to [-B, B]
            B = self.clipping.reward_clip
            for j, name in enumerate(self.candidates):
                slope = np.einsum("md,md->m", rows, self.estimates[name][models])
                predicted = np.clip(slope + self._offsets[name][models], -B, B)
                self._selection[j] += np.sum((rewards - predicted) ** 2)
        if self.second_moments == "diag":
            self._second += np.einsum("ij,ij->j", rows, rows)
        elif self.pooled:
            self._second += rows.T @ rows
        elif self.full_gram:
            for k in np.unique(models):
                mine = rows[models == k]
                self._second[k] += mine.T @ mine

    def _statistics(self) -> dict[str, np.ndarray]:
        second = (self._second[..., self._upper[0], self._upper[1]] if self.full_gram else self._second)
        values = {
            "moments": self._moments, "sums": self._sums, "rewards": self._rewards, "squares": self._squares,
            "predictions": self._predictions,
            "selection": self._selection,
            self.second_moments: second,
        }
        return {name: values[name] for name in self.main_blocks}

    def _main_sensitivities(self) -> dict[str, float]:
        C, B = self.clipping.context_clip, self.clipping.reward_clip
        values = {
            "moments": 2.0 * C * B, "sums": 2.0 * C, "rewards": 2.0 * B, "predictions": 2.0 * B,
            "squares": (math.sqrt(2.0) if self.n_models > 1 else 1.0) * B**2,
            "selection": 4.0 * math.sqrt(len(self.candidates)) * B**2,
            self.second_moments: math.sqrt(2.0) * C**2,
        }
        return {name: values[name] for name in self.main_blocks}

    def _end_batch(self) -> None:
        """Release and refit; a declared reward range keeps the reward clip at its half-width (nothing is
        clipped, so the sums are exact functions of the rewards)."""
        super()._end_batch()
        if self.reward_range is not None:
            self.clipping.reward_clip = (self.reward_range[1] - self.reward_range[0]) / 2.0

    def _observe(self, rows: np.ndarray, models: np.ndarray, rewards: np.ndarray) -> None:
        """Rewards enter the clip centred at their model's centre: ``clip(r - c_k, -B, B)``."""
        super()._observe(rows, models, rewards - (self.centres[models] - self.clipping.reward_center))

    # -- estimate --------------------------------------------------------------------------------
    def _sigmas(self) -> dict[str, float]:
        if not self.noise:
            return dict.fromkeys(("xr", "x", "r", "second", "n", "p", "selection"), 0.0)
        sens = self._main_sensitivities()
        second = self.second_moments
        return {
            "xr": self.release.sigma("moments", sens["moments"]),
            "second": self.release.sigma(second, sens[second]) if second in sens else 0.0,
            "x": self.release.sigma("sums", sens["sums"]) if "sums" in sens else 0.0,
            "p": self.release.sigma("predictions", sens["predictions"]) if "predictions" in sens else 0.0,
            "r": self.release.sigma("rewards", sens["rewards"]),
            "n": self.release.sigma("counts", math.sqrt(2.0)) if self.n_models > 1 else 0.0,
            "selection": self.release.sigma("selection", sens["selection"]) if self.selecting else 0.0,
        }

    def _fit(self, released: dict[str, np.ndarray], counts: np.ndarray) -> None:
        n, c = self.batch_size, self.centres
        C, B = self.clipping.context_clip, self.clipping.reward_clip
        sig = self._sigmas()
        w = n / (sig["xr"] ** 2 + n * (C * B) ** 2 / self.dim)
        second = released.get(self.second_moments, 0.0)
        if self.full_gram:
            full = np.zeros((*np.shape(second)[:-1], self.dim, self.dim))
            full[..., self._upper[0], self._upper[1]] = second
            second = full + np.swapaxes(np.triu(full, 1), -1, -2)
        acc = self._acc
        acc["n"] += w * counts
        if self.with_intercept:  # un-centred: sum x r, sum r
            acc["x"] += w * released["sums"]
            acc["xr"] += w * (released["moments"] + c[:, None] * released["sums"])
            acc["r"] += w * (released["rewards"] + c * counts)
            acc["b"] += w * released["rewards"]
        else:  # a line through the origin fitted to the rewards centred at the batch's public centre
            if "predictions" in released:  # un-centred residuals of the slope in play: sum r - p
                acc["residuals"] += w * (released["rewards"] + c * counts - released["predictions"])
            acc["xr"] += w * released["moments"]
            acc["r"] += w * (released["rewards"] + c * counts)
            acc["b"] += w * released["rewards"]
        acc["rr"] += w * released["squares"]
        if self.selecting:  # the latest batches weigh most: the estimates improve from batch to batch
            acc["selection"] = SELECTION_DECAY * acc["selection"] + released["selection"]
            self._selection_var = SELECTION_DECAY**2 * self._selection_var + sig["selection"] ** 2
        acc["second"] += w * second
        self._scale += w * n * C**2 / self.dim
        for key in self._noise_var:
            self._noise_var[key] += (w * sig[key]) ** 2
        self._total += w * n
        self._total_sq += w**2 * n
        self._estimate()
        self._contend(counts, sig["n"])

    def _estimate(self) -> None:
        """Ridge least squares with an intercept per model from the summed releases (module docstring).

        In weighted sums over model ``k``'s rounds, rewards centred at ``c``: counts ``N``, ``X = sum x``,
        ``R = sum b``, ``G = sum x b``, second moments ``S``. The slope solves ``(S + lambda I - X X^T / N')
        theta = G - X R / N'`` (``N' = N + lambda_0``; the Schur complement of the intercept in least squares
        on ``(1, x)``), on the coordinates kept by the screen; the intercept is ``(R - X^T theta) / N'``.
        ``S`` is the full Gram, or its diagonal (then the rank-one term is handled by Sherman-Morrison).
        """
        acc, nv, d = self._acc, self._noise_var, self.dim
        C, B = self.clipping.context_clip, self.clipping.reward_clip
        rho = self._total_sq / self._total  # sampling variance of a weighted sum per unit of weighted count
        N = np.maximum(acc["n"], 0.0)
        X = acc["x"] if self.with_intercept else np.zeros_like(acc["x"])  # the slope's own centring
        R, G = acc["r"], acc["xr"]
        Nr = N + 2.0 * math.sqrt(nv["n"]) + rho  # intercept ridge: count noise plus one round
        nv_x = nv["x"] if self.with_intercept else 0.0  # noise of the slope's centring X
        if self.full_gram:
            # model k's Gram: its own, or its share N_k / total of the pooled one (and of that one's noise);
            # ridge: the Gram noise's norm, one round (units of C^2), and the noise norm of the summed moments
            # over the largest slope a bounded score allows (|x^T theta| <= B with ||x|| <= C), so that
            # noise-dominated directions are shrunk rather than amplified
            share = N / max(self._total, 1e-300) if self.pooled else np.ones(self.n_models)
            # (each noise norm between one direction's and the spectral one, private_defaults.ridge_noise_norm)
            weight = defaults.spectral_weight(self.noise_ratio, self.epsilon)
            gram_noise = defaults.ridge_noise_norm(math.sqrt(nv["second"]), direction=math.sqrt(2.0),
                                                   spectral=2.0 * math.sqrt(d), weight=weight)
            moments_noise = defaults.ridge_noise_norm(math.sqrt(nv["xr"]), direction=1.0, spectral=math.sqrt(d),
                                                      weight=weight)
            lams = share * gram_noise + rho * C**2 + moments_noise * C / B
            gram_diagonals = (share[:, None] * np.diagonal(acc["second"]) if self.pooled
                              else np.diagonal(acc["second"], axis1=1, axis2=2))
            one_decomposition = self.pooled and not self.with_intercept  # no rank-one term to subtract
            if one_decomposition:  # the pooled Gram's eigenvectors serve every model
                values, vectors = np.linalg.eigh(acc["second"])
                values = np.maximum(values, 0.0)
            if self.pooled:  # the screened estimate's diagonal: the pooled Gram's, its entries shrunk towards
                # their mean by the empirical-Bayes factor (each entry's noise is the Gram's, a relative error
                # that would scale each coordinate's slope), floored at twice its noise
                diagonal = self._shrink(np.diagonal(acc["second"]).copy(), np.full(d, nv["second"]))
                pooled = np.maximum(diagonal, 2.0 * math.sqrt(nv["second"])) / self._total
        else:  # pooled diagonal per unit weight, floored at twice its noise
            floor = 2.0 * math.sqrt(nv["second"])
            second = acc["second"] if self.second_moments == "diag" else self._scale
            pooled = np.broadcast_to(np.maximum(second, floor) / self._total, (d,))
            lam = rho * C**2
        mean_b = R / Nr
        var_r = np.maximum(acc["rr"] / Nr - (acc["b"] / Nr) ** 2, 0.0)
        theta = np.zeros((self.n_models, d))
        sparse = np.zeros((self.n_models, d))
        posterior = []  # per model: slope covariance (eigenvectors or None: the axes, variances)
        keep_vectors = self.n_models * d**2 <= GRAM_MAX_ENTRIES
        kept = np.zeros(self.n_models)  # the ridge's mean shrinkage factor of each model's slope
        for k in range(self.n_models):
            if self.full_gram:
                lam = lams[k]
            else:
                second = N[k] * pooled
            diag = np.maximum(gram_diagonals[k] if self.full_gram else second, 0.0)
            centred = np.maximum(diag - X[k] ** 2 / Nr[k], 0.0) + lam
            kept[k] = float(np.mean(diag / (diag + lam)))
            target = G[k] - X[k] * mean_b[k]
            # released noise of G - X mean (the sums were un-centred at about the mean) and sampling noise
            released_noise = nv["xr"] + (mean_b[k] - self.centres[k]) ** 2 * nv_x
            noise = released_noise + var_r[k] * rho * diag
            if self.pooled:  # the screened estimate on the pooled diagonal, for the private choice
                sparse[k] = self._screened(N[k] * pooled, rho * C**2, X[k], Nr[k], target, noise)
            if self.full_gram:  # ridge on every coordinate (the rank-one intercept term subtracted)
                if one_decomposition:  # the pooled Gram's eigenvectors serve every model
                    model_values, model_vectors = share[k] * values, vectors
                else:
                    second = share[k] * acc["second"] if self.pooled else acc["second"][k]
                    model_values, model_vectors = self._eigen(second, X[k], Nr[k])
                theta[k] = model_vectors @ ((model_vectors.T @ target) / (model_values + lam))
                # posterior covariance of that ridge: the fit's residual variance (the explained sum of
                # squares theta^T target removed) times P = (S + lam I)^{-1}, the released noise through P^2,
                # and one prior round of variance B^2 / 4 times (N + 1 round)^{-1} (S + 1 round)^{-1} (kept
                # apart too: large without data, fading as 1 / N): the noise terms of the ridge and the count
                # ridge are not information, and counted as such they shrank the prior spread of a model
                # without data by the noise (issue 40: at epsilon 1024 its Thompson draw was a sixth of
                # noise-off's, and starved arms stayed starved)
                unexplained = max(var_r[k] * Nr[k] - float(theta[k] @ target), 0.0)
                prior = rho * B**2 / 4.0 / (N[k] + rho) * rho / (model_values + rho * C**2)
                spread = (unexplained / Nr[k] * rho / (model_values + lam) + prior
                          + released_noise / (model_values + lam) ** 2)
                posterior.append((model_vectors, spread, prior) if keep_vectors or one_decomposition
                                 else (None, model_vectors**2 @ spread, model_vectors**2 @ prior))
            else:
                theta[k] = self._screened(second, lam, X[k], Nr[k], target, noise)
                posterior.append((None, noise / centred**2, rho**2 * B**2 / 4.0 / Nr[k] / centred))
        if self.pooled:  # the portfolio: play the candidate whose released out-of-sample loss is smallest
            self.estimates = {"dense": theta, "sparse": sparse, "constant": np.zeros_like(theta)}
            self.played = self.estimator or self._choice()
            theta = self.estimates[self.played]
        self.theta = theta
        self._centre = X / Nr[:, None]
        self._posterior = posterior
        # plus one round of reward variance (B^2 / 4) at the intercept ridge: a model without data is
        # uncertain, not exact (with noise off its released sums are exactly 0)
        self._score_sd = np.sqrt(var_r * rho / Nr + nv["r"] / Nr**2 + rho * B**2 / (4.0 * Nr**2))
        if not self.with_intercept:
            if self.reward_range is None:  # the pooled mean (module docstring: not each model's own)
                self.centres = np.full(self.n_models, acc["r"].sum() / Nr.sum())
            if "predictions" in self.main_blocks:  # each model's mean residual of the slope in play
                c = self.centres
                variance = self._score_sd**2 + nv["p"] / Nr**2
                raw = c + (acc["residuals"] - c * N) / Nr
                intercept = self._shrink(raw, variance)
                # shrunk as much as the slopes: otherwise, where the noise shrinks every slope, the intercepts
                # alone decide play for every user, and an arm's intercept (its precision on the rows it won)
                # starves the arms that are still learning
                self.intercept = intercept.mean() + kept * (intercept - intercept.mean())
                self._intercept_sd = np.sqrt(variance) * kept * self._shrink_factor(raw, variance)
        else:
            raw = (R - np.einsum("kd,kd->k", theta, X)) / Nr
            self.intercept = self._shrink(raw, self._score_sd**2)
            self._intercept_sd = self._score_sd * self._shrink_factor(raw, self._score_sd**2)
            centres = self.intercept + np.einsum("kd,kd->k", theta, self._centre)  # each model's mean reward
            if self.reward_range is None:  # a declared range keeps its midpoint (no clipping there)
                self.centres = centres
        if self.pooled:
            self._portfolio_offsets(self._shrink(R / Nr, self._score_sd**2))

    def _choice(self) -> str:
        """The candidate in play: the one whose discounted released loss is lowest, if it is below the dense
        ridge's by more than ``SELECTION_MARGIN`` noise std of a difference of two losses; else the dense
        ridge."""
        gains = self._acc["selection"][0] - self._acc["selection"]
        gains[0] = SELECTION_MARGIN * math.sqrt(2.0 * self._selection_var)  # what a challenger must exceed
        return self.candidates[int(np.argmax(gains))]  # ties: the first, the dense ridge

    def _portfolio_offsets(self, means: np.ndarray) -> None:
        """Each candidate's prediction of ``r - c_k`` at ``x = 0`` for the next batch's losses: the models'
        intercepts for the slopes (0 for a line through the centre), the arms' released mean rewards ``means``
        (shrunk as the intercepts) for the per-arm constant, which in play are the intercepts."""
        slopes = (self.intercept - self.centres if self.with_intercept or "predictions" in self.main_blocks
                  else np.zeros(self.n_models))
        if self.played == "constant":
            self.intercept = means
        self._offsets = {"dense": slopes, "sparse": slopes, "constant": means - self.centres}

    def _discoveries(self, z: np.ndarray, tests: int | None = None) -> np.ndarray:
        """Benjamini-Hochberg at level ``fdr`` on two-sided normal p-values of ``z`` (``tests`` hypotheses,
        default ``z.size``): the coordinates kept."""
        p = 2.0 * stats.norm.sf(np.abs(z))
        m = z.size if tests is None else tests
        order = np.argsort(p, kind="stable")
        passed = np.flatnonzero(p[order] <= self.fdr * np.arange(1, z.size + 1) / m)
        keep = np.zeros(z.size, dtype=bool)
        if passed.size:
            keep[order[: passed[-1] + 1]] = True
        return keep

    @staticmethod
    def _shrink_factor(intercept: np.ndarray, variance: np.ndarray) -> np.ndarray:
        """The empirical-Bayes factor ``tau^2 / (tau^2 + v_k)`` of :meth:`_shrink` (1 for a single model)."""
        if intercept.size < 2:
            return np.ones_like(intercept)
        precision = 1.0 / np.maximum(variance, 1e-300)
        centre = float(np.sum(precision * intercept) / np.sum(precision))
        tau2 = max(float(np.mean((intercept - centre) ** 2 - variance)), 0.0)
        total = tau2 + variance
        return np.divide(tau2, total, out=np.ones_like(total), where=total > 0.0)

    @staticmethod
    def _shrink(intercept: np.ndarray, variance: np.ndarray) -> np.ndarray:
        """Estimates (the models' intercepts, the pooled Gram's diagonal entries) shrunk towards their
        precision-weighted mean by an empirical-Bayes factor ``tau^2 / (tau^2 + v_k)`` (``tau^2``: their spread
        beyond the noise ``v_k``, method of moments) [Fill]: a noisy intercept of a little-played arm otherwise
        decides greedy play for every user, starving the rest."""
        if intercept.size < 2:
            return intercept
        precision = 1.0 / np.maximum(variance, 1e-300)
        centre = float(np.sum(precision * intercept) / np.sum(precision))
        # 1 where an exact intercept (noise off) meets no spread: nothing to shrink
        return centre + (intercept - centre) * PrivateAgent._shrink_factor(intercept, variance)

    def _screened(self, second: np.ndarray, lam: float, X: np.ndarray, Nr: float, target: np.ndarray,
                  noise: np.ndarray) -> np.ndarray:
        """Slope on a diagonal ``second`` of the coordinates kept by the screen: Benjamini-Hochberg on
        ``target`` over its noise, then re-tested on the joint slope (zero elsewhere)."""
        slope = np.zeros(self.dim)
        centred = np.maximum(second - X**2 / Nr, 0.0) + lam
        support = np.flatnonzero(self._discoveries(target / np.sqrt(noise)))
        if support.size:  # keep the screened coordinates whose joint slope stands above the noise
            first = self._solve_diagonal(second, lam, X, Nr, target, support)
            support = support[self._discoveries(first * centred[support] / np.sqrt(noise[support]), self.dim)]
        if support.size:
            slope[support] = self._solve_diagonal(second, lam, X, Nr, target, support)
        return slope

    @staticmethod
    def _solve_diagonal(second: np.ndarray, lam: float, X: np.ndarray, Nr: float, target: np.ndarray,
                        support: np.ndarray) -> np.ndarray:
        """``(diag(S) + lam I - X X^T / Nr)^{-1} target`` on ``support`` (Sherman-Morrison, floored)."""
        x, t = X[support], target[support]
        diag = np.maximum(second[support], 0.0) + lam
        a, b = t / diag, x / diag
        return a + b * (x @ a) / max(Nr - x @ b, DENOMINATOR_FLOOR * Nr)

    @staticmethod
    def _eigen(second: np.ndarray, X: np.ndarray, Nr: float) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues (floored at 0) and eigenvectors of ``S - X X^T / Nr``: the ridge ``(S + lam I - X X^T /
        Nr)^{-1}`` on every coordinate is ``V diag(1 / (values + lam)) V^T``."""
        values, vectors = np.linalg.eigh(second - np.outer(X, X) / Nr)
        return np.maximum(values, 0.0), vectors

    # -- play ------------------------------------------------------------------------------------
    def scores(self, observations: np.ndarray) -> np.ndarray:
        """Intercept plus slope, perturbed by ``exploration`` of its posterior standard errors and
        ``prior_exploration`` of one prior round's (one normal draw per round and arm); then, per user, play
        among the arms in contention (:mod:`~dpbandit.agents.batched.elimination`): the elimination survivors
        (``elimination > 0``) or the greedy arm, except for a share ``starved_share`` of the users (the agent's
        draw), who play uniformly among the arms whose released count certifies no row, while there are any."""
        mean = super().scores(observations)
        if self.observation_model == "shared":
            mean = mean + self.intercept
        if self.batch == 0:
            return mean
        if self.exploration > 0.0 or self.prior_exploration > 0.0:
            var = self._score_variance(observations, self.exploration**2, self.prior_exploration**2)
            mean = mean + np.sqrt(var) * self._explore_rng.standard_normal(var.shape)
        if self.elimination == 0.0 and not self._exploring.any():
            return mean  # greedy play: nothing drawn
        sd = (np.sqrt(self._score_variance(observations, 1.0, 1.0, self._intercept_sd))
              if self.elimination > 0.0 else None)
        return contention_scores(mean, surviving(mean, sd, self.elimination), self._exploring, self._play_rng)

    def _contend(self, counts: np.ndarray, count_noise: float) -> None:
        """The arms the exploring share plays next (none with one model or ``certify=None``): those the latest
        batch's greedy play starved (its released ``counts``, noise std ``count_noise``;
        :func:`~dpbandit.agents.batched.elimination.starved`) whose base-rate bounds, in certified rows at
        ``certify`` std, still reach the best lower bound
        (:func:`~dpbandit.agents.batched.elimination.base_rate_bounds`, private successive elimination)."""
        if self.n_models < 2 or self.certify is None:
            return
        self._rows += self.batch_size
        acc, nv, c, z = self._acc, self._noise_var, self.centres, self.certify
        count_sd = math.sqrt(nv["n"])
        lo, hi = base_rate_bounds(acc["r"] - c * acc["n"], acc["n"], count_sd, nv["r"],
                                  self.clipping.reward_clip, z, self._total_sq / self._total)
        contending = (starved(counts, self._exploring * self.batch_size, count_noise, z)
                      & in_contention(lo + c, hi + c))
        per_row = self._total / self._rows  # the mean weight of a row: weighted counts to rows
        certified = np.maximum(acc["n"] - z * count_sd, 0.0) / per_row
        self._exploring = exploring_shares(contending, certified, z * count_sd / per_row, self.batch_size,
                                           self.starved_share)

    def _score_variance(self, observations: np.ndarray, spread_weight: float, prior_weight: float,
                        intercept_sd: np.ndarray | None = None) -> np.ndarray:
        """Per user and arm, the score's posterior variance ``(m, K)``: ``spread_weight`` times the data's
        (intercept and slope, released noise included) plus ``prior_weight`` times one prior round's."""
        m = observations.shape[0]
        shared = self.observation_model == "shared"
        intercept_sd = self._score_sd if intercept_sd is None else intercept_sd
        var = np.zeros((m, self.n_arms)) + (spread_weight * intercept_sd**2 if shared else 0.0)
        for k, (vectors, spread, prior) in enumerate(self._posterior):  # (x - xbar_k)^T Cov_k (x - xbar_k)
            diff = observations - self._centre[k]
            projected = diff if vectors is None else diff @ vectors
            quadratic = projected**2 @ (spread_weight * spread + prior_weight * prior)
            if shared:
                var[:, k] += quadratic
            else:
                var += quadratic
        return np.maximum(var, 0.0)

    @property
    def params(self) -> dict[str, Any]:
        """Identifying hyper-parameters."""
        return {
            **super().params, "reward_range": self.reward_range, "second_moments": self.second_moments,
            "fdr": self.fdr, "exploration": self.exploration, "prior_exploration": self.prior_exploration,
            "candidates": self.candidates, "elimination": self.elimination, "certify": self.certify,
            "starved_share": self.starved_share,
        }


class PrivateAgentPerArm(PrivateAgent):
    """:class:`PrivateAgent` for per-arm features ``X_t`` of shape ``(n_arms, dim)``, one shared parameter."""

    observation_model = "per_arm"
    instead = "private (on a shared context: the same model without block features)"
