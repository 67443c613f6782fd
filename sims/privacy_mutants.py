"""The privacy mutants of ``sims/privacy_mutation.py``: realistic calibration bugs the test suite must catch.

Each entry is one exact text replacement in one file (the old text must occur exactly once) and the tests
that should catch it. Adding a private agent or optimizer is one entry per planted bug, e.g.::

    Mutant("myagent-noise-halved", "dpbandit/agents/myagent.py", "gaussian_tree(shape, self.sigma,",
           "gaussian_tree(shape, self.sigma / 2,", MYAGENT),

``listed=True`` marks the seven mutants of issue 17 (four that survived the suite, three caught by a single
indirect assertion): each must be killed by at least two tests in different files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One planted bug: replace ``old`` (exactly once) by ``new`` in ``path``; run ``tests`` (node ids)."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    listed: bool = False


def _cases(*names: str) -> tuple[str, ...]:
    """The audit verdict tests of the given object cases."""
    return tuple(f"tests/audit/test_object_cases.py::test_object_case_verdict[{n}]" for n in names)


# ---------------------------------------------------------------- test selections
CORE = ("tests/privacy",)
MECHANISMS = (*CORE, "tests/audit/test_core.py")  # plus the empirical audits of the mechanisms
POFW = (
    "tests/optim/test_pofw.py",
    "tests/optim/test_ofw_calibration.py",
    *_cases("dp-pofw-selection/correct"),
)
HDB = (
    "tests/agents/test_dphdb.py",
    "tests/agents/test_private_calibration.py",
    "tests/agents/test_fast_paths.py",
    *_cases("dp-hdb-step/compiled"),
)
TOPDOWN = (
    "tests/privacy/test_topdown.py",
    "tests/agents/test_fast_paths.py",
    *_cases("dp-hdb-step/compiled-topdown"),
)
UCB = (
    "tests/agents/test_dpucb.py",
    "tests/agents/test_private_calibration.py",
    *_cases("dp-ucb-tree/agent-noise"),
)
TOFW = ("tests/optim/test_tofw.py", "tests/optim/test_ofw_calibration.py", *_cases("dp-tofw-tree/calibrated"))
BASELINES = ("tests/optim/test_baselines.py", "tests/optim/test_ofw_calibration.py")
SRGD = ("tests/optim/srgd", *_cases("srgd-tree/calibrated"))
KL = ("tests/optim/kl", *_cases("kl-prox/calibrated"))
NONSMOOTH = (
    "tests/optim/nonsmooth",
    *_cases("nonsmooth-single-pass/calibrated", "nonsmooth-multi-pass/calibrated"),
)
# issue 13's release mechanisms: the batched agents, FLIPHAT and the DP-HDB variants
BATCHED_CASES = "tests/audit/test_batched_agent_cases.py"
RELEASE = ("tests/privacy/test_release.py", "tests/agents/batched/test_gaussian_agents.py", BATCHED_CASES)
GAUSSIAN_AGENTS = ("tests/agents/batched/test_gaussian_agents.py", BATCHED_CASES)
PEELING = ("tests/agents/batched/test_peeling.py", "tests/privacy/test_top_k.py", BATCHED_CASES)
FLIPHAT = ("tests/agents/batched/test_fliphat.py", "tests/privacy/test_peeling.py", "tests/audit/test_fliphat_cases.py")
DPHDB_VARIANTS = ("tests/agents/test_dphdb_variants.py", "tests/audit/test_dphdb_variant_cases.py")
DPHDB_BATCHED = ("tests/agents/test_dphdb_batched.py", "tests/audit/test_dphdb_variant_cases.py")
# issue 24: post-processing (fixed releases, different data), block independence, the shortfall boundary
POSTPROCESSING = ("tests/agents/batched/test_postprocessing.py",)
BLOCKS = ("tests/agents/batched/test_block_independence.py",)
BOUNDARY = ("tests/privacy/test_guarantee_boundary.py",)
PRIVATE = ("tests/agents/batched/test_private.py",)
#: The release-path test of issue 32 (neighbouring batches through each agent's own end-of-batch code).
RELEASE_PATH = ("tests/agents/batched/test_release_sensitivity.py",)
# issue 30: the local randomizer, the shuffle amplification bound, the local and shuffle agents
LOCAL = ("tests/privacy/test_local.py", "tests/agents/test_trust_agents.py")
SHUFFLE = ("tests/privacy/test_shuffle.py", "tests/agents/test_trust_agents.py")
VECTOR_SUM = ("tests/privacy/test_vector_sum.py", "tests/agents/test_trust_agents.py")
# issue 37: the l2-ball randomizer of LDP-SGD, the local and shuffle SGD agents, LDP-GLOC's projected report
GLM = ("tests/privacy/test_l2ball.py", "tests/agents/test_sgd_agents.py")
GLOC = ("tests/privacy/test_gloc.py",)

# issue 39: the privacy tests as one marked set; joint laws, exact small cases, boundaries, private's layouts,
# laws at every radius and step (every run selects with ``-m privacy``: only marked tests can kill)
TRUST = ("tests/agents/test_trust_agents.py",)
JOINT = ("tests/privacy/test_joint_laws.py",)
EXACT = ("tests/privacy/test_exact_small_cases.py",)
LAYOUTS = ("tests/agents/batched/test_private_layouts.py",)
HDB_STEPS = ("tests/agents/test_private_calibration.py", "tests/agents/test_fast_paths.py")

MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------------------ noise samplers and regularity
    Mutant(
        "noise-gaussian-halved",
        "dpbandit/privacy/noise.py",
        "return sigma * rng.standard_normal(_shape(size))",
        "return 0.5 * sigma * rng.standard_normal(_shape(size))",
        MECHANISMS,
    ),
    Mutant(
        "noise-laplace-halved",
        "dpbandit/privacy/noise.py",
        "    out *= scale\n",
        "    out *= 0.5 * scale\n",
        MECHANISMS,
    ),
    Mutant(
        "noise-symmetric-normalisation",
        "dpbandit/privacy/noise.py",
        "return (sigma / math.sqrt(2.0)) * (z + np.swapaxes(z, -1, -2))",
        "return (sigma / 2.0) * (z + np.swapaxes(z, -1, -2))",
        MECHANISMS,
    ),
    Mutant(
        "noise-gengauss-printed-gamma-scale",
        "dpbandit/privacy/noise.py",
        "rng.gamma(dim / 2.0, 2.0 * sigma**2, shape)",
        "rng.gamma(dim / 2.0, 2.0 * sigma, shape)",
        MECHANISMS,
    ),
    Mutant(
        "regularity-kappa-lemma-3.3",
        "dpbandit/privacy/regularity.py",
        "scale=scale, kappa=scale**2, kappa_plus=1.0)",
        "scale=scale, kappa=scale, kappa_plus=1.0)",
        (*MECHANISMS, "tests/optim/test_ofw_calibration.py"),
    ),
    # ------------------------------------------------------------ tree aggregation
    Mutant(
        "tree-node-noise-halved",
        "dpbandit/privacy/tree.py",
        "            draw = draw[0]\n",
        "            draw = 0.5 * draw[0]\n",
        MECHANISMS,
    ),
    Mutant(
        "tree-stale-node-noise",
        "dpbandit/privacy/tree.py",
        "            self._node_noise[level] = draw\n",
        "            self._node_noise[level] = self._node_noise[level] if level else draw\n",
        MECHANISMS,
    ),
    Mutant(
        "tree-gaussian-tree-halved",
        "dpbandit/privacy/tree.py",
        "return gaussian(g, sigma, (n, *shape))",
        "return gaussian(g, sigma / 2, (n, *shape))",
        MECHANISMS,
    ),
    # ------------------------------------------------------------ private selection
    Mutant(
        "rnm-min-scale-halved",
        "dpbandit/privacy/rnm.py",
        "np.argmin(scores + laplace(rng, scale, scores.shape), axis=-1)",
        "np.argmin(scores + laplace(rng, scale / 2, scores.shape), axis=-1)",
        MECHANISMS,
    ),
    Mutant(
        "rnm-epsilon-monotone",
        "dpbandit/privacy/rnm.py",
        "return (1.0 if monotone else 2.0) * sensitivity / scale",
        "return sensitivity / scale",
        MECHANISMS,
    ),
    Mutant(
        "expmech-monotone-exponent",
        "dpbandit/privacy/rnm.py",
        "factor = epsilon / ((1.0 if monotone else 2.0) * sensitivity)",
        "factor = epsilon / sensitivity",
        MECHANISMS,
    ),
    # ------------------------------------------------------------ accounting
    Mutant(
        "acc-gaussian-sigma-ignores-count",
        "dpbandit/privacy/accounting.py",
        "return z * math.sqrt(count) * sensitivity",
        "return z * sensitivity",
        CORE,
        listed=True,
    ),
    Mutant(
        "acc-tree-sigma-drops-sensitivity",
        "dpbandit/privacy/accounting.py",
        '"rdp", RELATION)\n    return z * sensitivity\n',
        '"rdp", RELATION)\n    return z\n',
        CORE,
    ),
    Mutant(
        "acc-tree-sigma-half-the-steps",
        "dpbandit/privacy/accounting.py",
        "lambda z: tree_aggregation_event(z, steps)",
        "lambda z: tree_aggregation_event(z, max(1, steps // 2))",
        CORE,
    ),
    Mutant(
        "acc-epsilon-to-zcdp-doubled",
        "dpbandit/privacy/accounting.py",
        "return 1.0 / (2.0 * z**2)",
        "return 1.0 / z**2",
        CORE,
    ),
    Mutant(
        "acc-gaussian-event-multiplier",
        "dpbandit/privacy/accounting.py",
        "z = v.positive(sigma=sigma) / v.positive(sensitivity=sensitivity)",
        "z = 2.0 * v.positive(sigma=sigma) / v.positive(sensitivity=sensitivity)",
        CORE,
    ),
    Mutant(
        "acc-pure-dp-ignores-count",
        "dpbandit/privacy/accounting.py",
        "RandomizedResponseDpEvent(noise, 2), _count(count))",
        "RandomizedResponseDpEvent(noise, 2), 1)",
        CORE,
    ),
    Mutant(
        "acc-zcdp-sigma-ignores-count",
        "dpbandit/privacy/accounting.py",
        "math.sqrt(_count(count) / (2.0 * rho))",
        "math.sqrt(1 / (2.0 * rho))",
        (*CORE, "tests/optim/kl"),
    ),
    Mutant(
        "acc-lemma-2.1-drops-kappa",
        "dpbandit/privacy/accounting.py",
        "math.sqrt(2.0 * kappa * math.log(1.0 / delta))",
        "math.sqrt(2.0 * math.log(1.0 / delta))",
        CORE,
    ),
    # -------------------------------------------------------- DP-POFW, DP-HDB (numpy path, numba kernel)
    Mutant(
        "pofw-line8-factor-dropped",
        "dpbandit/optim/pofw.py",
        "base = 4.0 * diameter * (smoothness * diameter + lipschitz)",
        "base = 2.0 * diameter * (smoothness * diameter + lipschitz)",
        (*POFW, *HDB),
    ),
    Mutant(
        "pofw-numpy-scale-halved",
        "dpbandit/optim/pofw.py",
        "index = report_noisy_min(rng, scores / scale[:, None], 1.0)",
        "index = report_noisy_min(rng, scores / (0.5 * scale[:, None]), 1.0)",
        (*POFW, *HDB),
    ),
    Mutant(
        "pofw-step-epsilon-monotone",
        "dpbandit/optim/pofw.py",
        "/ (2.0 * m * (t + 1.0) * self.log_term)",
        "/ (4.0 * m * (t + 1.0) * self.log_term)",
        (*POFW, *HDB),
    ),
    Mutant(
        "pofw-streams-ignored",
        "dpbandit/optim/pofw.py",
        "return self.streams * per_eps2 * float(",
        "return per_eps2 * float(",
        (*POFW, *HDB),
    ),
    Mutant(
        "hdb-kernel-scale-halved",
        "dpbandit/agents/kernels/hdb.py",
        "    scale = scale1 / math.sqrt(t)\n",
        "    scale = 0.5 * scale1 / math.sqrt(t)\n",
        HDB,
        listed=True,
    ),
    Mutant(
        "hdb-joint-calibration-one-stream",
        "dpbandit/agents/dphdb.py",
        "                streams=2,\n",
        "                streams=1,\n",
        HDB,
        listed=True,
    ),
    Mutant(
        "hdb-compiled-scale1-halved",
        "dpbandit/agents/dphdb.py",
        "scale1 = float(line8_scale(np.ones(1), radius=",
        "scale1 = float(line8_scale(np.full(1, 4.0), radius=",
        HDB,
    ),
    Mutant(
        "hdb-steps-per-arm-without-warmup",
        "dpbandit/agents/dphdb.py",
        "steps_per_arm = min(self.horizon, self.warmup + max(0, self.horizon - forced))",
        "steps_per_arm = min(self.horizon, 1 + max(0, self.horizon - forced))",
        HDB,
    ),
    # ------------------------------------------------ top-down report-noisy-min (numpy path, DP-HDB kernel)
    Mutant(
        "topdown-renyi-divides-by-n",
        "dpbandit/privacy/topdown_kernel.py",
        "log_cdf -= rng.standard_exponential() / (n - k)",
        "log_cdf -= rng.standard_exponential() / n",
        TOPDOWN,
    ),
    Mutant(
        "topdown-truncation-dropped",
        "dpbandit/privacy/topdown_kernel.py",
        "            while noise > top:\n",
        "            while noise > np.inf:\n",
        TOPDOWN,
    ),
    Mutant(
        "topdown-settles-without-the-noise-bound",
        "dpbandit/privacy/topdown_kernel.py",
        "settled = best_val <= c_min - top",
        "settled = best_val <= c_min",
        TOPDOWN,
    ),
    Mutant(
        "topdown-cmin-ignores-the-mirrored-half",
        "dpbandit/privacy/topdown_kernel.py",
        "c_min = min(lo, -hi) if mirrored else lo",
        "c_min = lo",
        TOPDOWN,
    ),
    Mutant(
        "topdown-fallback-skips-the-mirrored-half",
        "dpbandit/privacy/topdown_kernel.py",
        "        for i in range(n):\n            if placed[i]:",
        "        for i in range(m):\n            if placed[i]:",
        TOPDOWN,
    ),
    Mutant(
        "topdown-numpy-scale-halved",
        "dpbandit/privacy/topdown.py",
        "z = scores / (scale if scale.ndim == 0 else scale[:, None])",
        "z = 2.0 * scores / (scale if scale.ndim == 0 else scale[:, None])",
        TOPDOWN,
    ),
    Mutant(
        "topdown-kernel-scores-doubled",
        "dpbandit/agents/kernels/hdb.py",
        "best = noisy_argmin_topdown(rng, scores, True, placed, order)",
        "best = noisy_argmin_topdown(rng, 2.0 * scores, True, placed, order)",
        TOPDOWN,
    ),
    # ------------------------------------------------------------ DP-UCB
    Mutant(
        "ucb-tree-built-with-half-sigma",
        "dpbandit/agents/dpucb.py",
        "gaussian_tree(shape, self.sigma_noise, tree_rng,",
        "gaussian_tree(shape, self.sigma_noise / 2, tree_rng,",
        UCB,
        listed=True,
    ),
    Mutant(
        "ucb-sensitivity-drops-reward",
        "dpbandit/agents/dpucb.py",
        "self.sensitivity = self.feature_bound**2 + self.reward_bound**2",
        "self.sensitivity = self.feature_bound**2",
        UCB,
    ),
    Mutant(
        "ucb-accountant-half-horizon",
        "dpbandit/agents/dpucb.py",
        "tree_gaussian_sigma(epsilon, self.delta, self.horizon, self.sensitivity)",
        "tree_gaussian_sigma(epsilon, self.delta, max(1, self.horizon // 2), self.sensitivity)",
        UCB,
    ),
    Mutant(
        "ucb-report-multiplier-doubled",
        "dpbandit/agents/dpucb.py",
        "multiplier = self.sigma_noise / self.sensitivity",
        "multiplier = 2.0 * self.sigma_noise / self.sensitivity",
        UCB,
    ),
    Mutant(
        "ucb-levels-off-by-one",
        "dpbandit/agents/dpucb.py",
        "self.levels = 1 + math.ceil(math.log2(T))",
        "self.levels = math.ceil(math.log2(T))",
        UCB,
    ),
    # ------------------------------------------------------------ DP-TOFW and the 004 baselines
    Mutant(
        "tofw-eq-3.2-factor",
        "dpbandit/optim/tofw.py",
        "math.sqrt(8.0 * m**2 * kappa",
        "math.sqrt(2.0 * m**2 * kappa",
        TOFW,
    ),
    Mutant(
        "tofw-node-noise-halved",
        "dpbandit/optim/tofw.py",
        "self.norm_plus.sample(rng, self.sigma_plus, size=(n,))",
        "self.norm_plus.sample(rng, self.sigma_plus / 2, size=(n,))",
        TOFW,
    ),
    Mutant(
        "tofw-report-sensitivity-factor",
        "dpbandit/optim/tofw.py",
        "self.sensitivity = 2.0 * (self.lr_scale",
        "self.sensitivity = (self.lr_scale",
        TOFW,
    ),
    Mutant(
        "tofw-depth-off-by-one",
        "dpbandit/optim/tofw.py",
        "m = (horizon - 1).bit_length() + 1",
        "m = (horizon - 1).bit_length()",
        TOFW,
    ),
    Mutant(
        "noisysgd-sigma-factor",
        "dpbandit/optim/baselines/noisy_sgd.py",
        "math.sqrt(8.0 * math.log(1.0 / self.delta))",
        "math.sqrt(2.0 * math.log(1.0 / self.delta))",
        BASELINES,
    ),
    Mutant(
        "noisysfw-sigma0-factor",
        "dpbandit/optim/baselines/noisy_sfw.py",
        "sigma_0 = 4.0 * math.sqrt(",
        "sigma_0 = 2.0 * math.sqrt(",
        BASELINES,
    ),
    Mutant(
        "localmd-noise-constant",
        "dpbandit/optim/baselines/local_md.py",
        "sigma_i = 100.0 * self.lipschitz",
        "sigma_i = 50.0 * self.lipschitz",
        BASELINES,
    ),
    # ------------------------------------------------------------ single-epoch and MF optimizers (000/001)
    Mutant(
        "srgd-calibrated-for-one-step",
        "dpbandit/optim/srgd/srgd.py",
        "calibrate_tree(self.epsilon, self.delta, steps=steps)",
        "calibrate_tree(self.epsilon, self.delta, steps=1)",
        SRGD,
        listed=True,
    ),
    Mutant(
        "srgd-tree-sensitivity-halved",
        "dpbandit/optim/srgd/srgd.py",
        "sensitivity = self.clip_norm / (self.batch_size * self.beta)",
        "sensitivity = self.clip_norm / (2 * self.batch_size * self.beta)",
        SRGD,
        listed=True,
    ),
    Mutant(
        "memf-noise-std-halved",
        "dpbandit/optim/srgd/memf.py",
        "sigma = self.clip_norm / (self.batch_size * np.sqrt(2.0 * self.rho))",
        "sigma = self.clip_norm / (2 * self.batch_size * np.sqrt(2.0 * self.rho))",
        SRGD,
    ),
    # ------------------------------------------------------------ KL optimizers (003)
    Mutant(
        "kl-prox-sensitivity-factor",
        "dpbandit/optim/kl/proximal.py",
        "sensitivity = 2.0 * self.L0 / n",
        "sensitivity = self.L0 / n",
        KL,
    ),
    Mutant(
        "kl-prox-one-release-per-round",
        "dpbandit/optim/kl/proximal.py",
        "gaussian_sigma_zcdp(self.rho / T, sensitivity, T_in - 1)",
        "gaussian_sigma_zcdp(self.rho / T, sensitivity, 1)",
        KL,
    ),
    Mutant(
        "kl-spider-anchor-sensitivity",
        "dpbandit/optim/kl/schedule.py",
        "anchor_sensitivity=2.0 * L0 / n",
        "anchor_sensitivity=L0 / n",
        KL,
    ),
    Mutant(
        "kl-adaptive-sensitivity",
        "dpbandit/optim/kl/adaptive.py",
        "delta_sens = 2.0 * self.L0 / n",
        "delta_sens = self.L0 / n",
        KL,
    ),
    # ------------------------------------------------------------ nonsmooth oracles and DP-SGD (002)
    Mutant(
        "nonsmooth-single-pass-drops-factor-2",
        "dpbandit/optim/nonsmooth/oracles.py",
        "self.sensitivities = (2.0 * self.clip_anchor / params.B1, 2.0 * self.clip_increment / params.B2)",
        "self.sensitivities = (self.clip_anchor / params.B1, self.clip_increment / params.B2)",
        NONSMOOTH,
        listed=True,
    ),
    Mutant(
        "nonsmooth-multi-pass-drops-factor-2",
        "dpbandit/optim/nonsmooth/oracles.py",
        "self.sensitivities = (2.0 * self.clip_anchor / n, 2.0 * self.clip_increment / n)",
        "self.sensitivities = (self.clip_anchor / n, self.clip_increment / n)",
        NONSMOOTH,
    ),
    Mutant(
        "nonsmooth-paper-tree-sigma-factor",
        "dpbandit/optim/nonsmooth/calibration.py",
        "return 4.0 * sensitivity * math.sqrt(",
        "return 2.0 * sensitivity * math.sqrt(",
        NONSMOOTH,
    ),
    Mutant(
        "nonsmooth-multi-pass-increment-count",
        "dpbandit/optim/nonsmooth/calibration.py",
        "z2 = z_eff * math.sqrt(k2 * total / weights[1])",
        "z2 = z_eff * math.sqrt(total / weights[1])",
        NONSMOOTH,
    ),
    Mutant(
        "nonsmooth-dpsgd-sensitivity",
        "dpbandit/optim/nonsmooth/baselines.py",
        "sensitivity = 2.0 * self.clip_norm / B",
        "sensitivity = self.clip_norm / B",
        NONSMOOTH,
    ),
    # ------------------------------------------------------------ issue 13: batched agents, FLIPHAT, DP-HDB variants
    Mutant(
        "release-multiplier-halved",
        "dpbandit/privacy/release.py",
        "self.multiplier = gaussian_multiplier(self.epsilon, self.delta)",
        "self.multiplier = 0.5 * gaussian_multiplier(self.epsilon, self.delta)",
        RELEASE,
    ),
    Mutant(
        "release-draws-halved",
        "dpbandit/privacy/release.py",
        "out[name] = value + sigma * rng.standard_normal(value.shape) if sigma > 0 else value",
        "out[name] = value + 0.5 * sigma * rng.standard_normal(value.shape) if sigma > 0 else value",
        RELEASE,
    ),
    Mutant(
        "screening-sums-sensitivity-halved",
        "dpbandit/agents/batched/screening.py",
        'return {"sums": 2.0 * self.clipping.context_clip * self.clipping.reward_clip}',
        'return {"sums": self.clipping.context_clip * self.clipping.reward_clip}',
        GAUSSIAN_AGENTS,
    ),
    Mutant(
        "ridge-gram-sensitivity-halved",
        "dpbandit/agents/batched/ridge.py",
        '"gram": math.sqrt(2.0) * C**2',
        '"gram": math.sqrt(2.0) / 2.0 * C**2',
        GAUSSIAN_AGENTS,
    ),
    Mutant(
        "ridge-moments-sensitivity-halved",
        "dpbandit/agents/batched/ridge.py",
        '"moments": 2.0 * C * B',
        '"moments": C * B',
        GAUSSIAN_AGENTS,
    ),
    Mutant(
        "batched-users-in-every-later-release",
        "dpbandit/agents/batched/gaussian.py",
        "        self.clipping.update(released, n)\n        self._reset_batch()\n",
        "        self.clipping.update(released, n)\n",
        (*GAUSSIAN_AGENTS, "tests/agents/batched/test_peeling.py"),
    ),
    Mutant(
        "peeling-selection-sensitivity-halved",
        "dpbandit/agents/batched/peeling.py",
        "return 2.0 * self.clipping.context_clip * self.clipping.reward_clip",
        "return self.clipping.context_clip * self.clipping.reward_clip",
        PEELING,
    ),
    Mutant(
        "peeling-values-sensitivity-halved",
        "dpbandit/agents/batched/peeling.py",
        '"values": 2.0 * math.sqrt(largest) * XB',
        '"values": math.sqrt(largest) * XB',
        PEELING,
    ),
    Mutant(
        "peeling-selection-rounds-ignored",
        "dpbandit/agents/batched/peeling.py",
        "math.sqrt(8.0 * self.selection_share * self.rho / self.select)",
        "math.sqrt(8.0 * self.selection_share * self.rho)",
        PEELING,
    ),
    Mutant(
        "peeling-gaussian-spends-the-whole-budget",
        "dpbandit/agents/batched/peeling.py",
        "gaussian_rho = (1.0 - self.selection_share) * self.rho if self.noise else None",
        "gaussian_rho = self.rho if self.noise else None",
        PEELING,
    ),
    Mutant(
        "topk-exponential-epsilon-doubled",
        "dpbandit/privacy/rnm.py",
        "noisy = epsilon / (2.0 * sensitivity) * scores",
        "noisy = epsilon / sensitivity * scores",
        PEELING,
    ),
    Mutant(
        "fliphat-laplace-scale-halved",
        "dpbandit/agents/batched/fliphat.py",
        "scales[m] = z * self.sensitivity(theta, n)",
        "scales[m] = 0.5 * z * self.sensitivity(theta, n)",
        FLIPHAT,
    ),
    Mutant(
        "fliphat-paper-factor-2-dropped",
        "dpbandit/privacy/peeling.py",
        "return 2.0 * math.sqrt(3.0 * s * math.log(M / delta)) * M / epsilon",
        "return math.sqrt(3.0 * s * math.log(M / delta)) * M / epsilon",
        FLIPHAT,
    ),
    Mutant(
        "fliphat-tight-calibrated-for-one-iteration",
        "dpbandit/agents/batched/fliphat.py",
        "self.sparsity * iterations, self.cases,",
        "self.sparsity, self.cases,",
        FLIPHAT,
    ),
    Mutant(
        "dphdb-em-temperature-halved",
        "dpbandit/optim/pofw.py",
        "index = exponential_mechanism(rng, -scores / scale[:, None], 2.0, 1.0)",
        "index = exponential_mechanism(rng, -scores / (0.5 * scale[:, None]), 2.0, 1.0)",
        DPHDB_VARIANTS,
    ),
    Mutant(
        "dphdb-batched-step-budget-doubled",
        "dpbandit/agents/batched/frankwolfe.py",
        "return 4.0 * self.radius * residual_clip * self.clip / (n * self.budget.eps_s)",
        "return 4.0 * self.radius * residual_clip * self.clip / (n * 2.0 * self.budget.eps_s)",
        DPHDB_BATCHED,
    ),
    # ------------------------------------------------------------ issue 24: leaks of exact data, reused noise, slack
    Mutant(
        "issue24-release-block-noise-reused",
        "dpbandit/privacy/release.py",
        "        out = {}\n        for name in self.shares:\n",
        "        out = {}\n        pool = rng.standard_normal(max(np.size(values[b]) for b in self.shares))\n"
        "        rng = type('OneDrawForAllBlocks', (), {'standard_normal': lambda self, shape: "
        "pool[: math.prod(shape)].reshape(shape)})()\n        for name in self.shares:\n",
        BLOCKS,
    ),
    Mutant(
        "issue24-gaussian-fit-fed-exact-counts",
        "dpbandit/agents/batched/gaussian.py",
        'counts = np.clip(released["counts"], 1.0, n)',
        "counts = np.clip(self._counts, 1.0, n)",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-gaussian-clips-fed-exact-counts",
        "dpbandit/agents/batched/gaussian.py",
        "self.clipping.update(released, n)",
        "self.clipping.update(values, n)",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-peeling-fit-fed-exact-second-moment",
        "dpbandit/agents/batched/peeling.py",
        'spread = max(float(released["second_moment"]) / self.batch_learned, 0.0)',
        "spread = max(self._second_moment / self.batch_learned, 0.0)",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-ridge-fit-fed-exact-gram",
        "dpbandit/agents/batched/ridge.py",
        'upper[:, self._upper[0], self._upper[1]] = released["gram"]',
        "upper[:, self._upper[0], self._upper[1]] = self._gram[:, self._upper[0], self._upper[1]]",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-screening-noise-level-from-exact-sums",
        "dpbandit/agents/batched/screening.py",
        "robust = MAD_SCALE * np.median(np.abs(estimate), axis=1)",
        "robust = MAD_SCALE * np.median(np.abs(self._sums / counts[:, None]), axis=1)",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-fliphat-clips-moved-by-exact-counts",
        "dpbandit/agents/batched/fliphat.py",
        'self.clipping.update({"context_inside": counts[0], "reward_inside": counts[1]}, n)',
        'self.clipping.update({"context_inside": self._inside[0], "reward_inside": self._inside[1]}, n)',
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-dphdb-batched-exact-residual-quantile",
        "dpbandit/agents/batched/frankwolfe.py",
        "else int(self._choose(self._residual_inside, self.residual_quantile, n))",
        "else int(np.argmin(np.abs(self._residual_inside - self.residual_quantile * n)))",
        POSTPROCESSING,
    ),
    Mutant(
        "issue24-guarantee-shortfall-5pct-slack",
        "dpbandit/privacy/guarantee.py",
        "return gap if gap > _REL_TOL * self.claimed_epsilon else 0.0",
        "return gap if gap > 0.05 * self.claimed_epsilon else 0.0",
        BOUNDARY,
    ),
    Mutant(
        "private-moments-sensitivity-halved",
        "dpbandit/agents/batched/private.py",
        '"moments": 2.0 * C * B, "sums": 2.0 * C,',
        '"moments": C * B, "sums": 2.0 * C,',
        PRIVATE,
    ),
    Mutant(
        "private-second-moment-sensitivity-dropped-sqrt2",
        "dpbandit/agents/batched/private.py",
        "self.second_moments: math.sqrt(2.0) * C**2,",
        "self.second_moments: C**2,",
        PRIVATE,
    ),
    Mutant(
        "private-selection-sensitivity-halved",
        "dpbandit/agents/batched/private.py",
        '"selection": 4.0 * math.sqrt(len(self.candidates)) * B**2,',
        '"selection": 4.0 * B**2,',
        PRIVATE,
    ),
    Mutant(
        "private-selection-fed-exact-loss",
        "dpbandit/agents/batched/private.py",
        'acc["selection"] = SELECTION_DECAY * acc["selection"] + released["selection"]',
        'acc["selection"] = SELECTION_DECAY * acc["selection"] + self._selection',
        POSTPROCESSING,
    ),
    Mutant(
        "private-fit-fed-exact-pooled-gram",
        "dpbandit/agents/batched/private.py",
        'acc["second"] += w * second',
        'acc["second"] += w * (self._second if self.pooled else second)',
        POSTPROCESSING,
    ),
    Mutant(
        "private-exploring-share-from-exact-counts",
        "dpbandit/agents/batched/private.py",
        'self._contend(counts, sig["n"])',
        'self._contend(self._counts.astype(float), sig["n"])',
        POSTPROCESSING,
    ),
    Mutant(
        "private-centre-from-exact-rewards",
        "dpbandit/agents/batched/private.py",
        'self.centres = np.full(self.n_models, acc["r"].sum() / Nr.sum())',
        'self.centres = np.full(self.n_models, self._rewards.sum() / max(self.batch_size, 1))',
        POSTPROCESSING,
    ),
    Mutant(
        "issue32-private-moments-released-doubled",
        "dpbandit/agents/batched/private.py",
        '"moments": self._moments, "sums": self._sums,',
        '"moments": 2.0 * self._moments, "sums": self._sums,',
        (*RELEASE_PATH, *PRIVATE, *POSTPROCESSING, "tests/privacy/test_release.py", BATCHED_CASES),
    ),
    Mutant(  # the bug of issue 32 itself: doubled on the release path, after the statistics the helpers read
        "issue32-moments-doubled-at-release",
        "dpbandit/agents/batched/gaussian.py",
        "released = self.release.release(self.noise_rng, values, self.sensitivities())",
        "released = self.release.release(self.noise_rng, {**values, **{k: 2.0 * values[k] for k in ('moments',) "
        "if k in values}}, self.sensitivities())",
        (*RELEASE_PATH, *GAUSSIAN_AGENTS, *PRIVATE, *POSTPROCESSING, "tests/privacy/test_release.py"),
    ),
    Mutant(
        "issue32-rewards-clipped-above-only",
        "dpbandit/agents/batched/clipping.py",
        "return np.clip(centred, -self.reward_clip, self.reward_clip), np.abs(centred) <= self.reward_clip",
        "return np.minimum(centred, self.reward_clip), np.abs(centred) <= self.reward_clip",
        (*RELEASE_PATH, *GAUSSIAN_AGENTS, *PRIVATE, "tests/agents/batched/test_reward_range.py"),
    ),
    # ------------------------------------------------------------ issue 30: local and shuffle trust models
    Mutant(
        "local-randomizer-scale-halved",
        "dpbandit/privacy/local.py",
        "        s = self.sigma\n",
        "        s = self.sigma / 2\n",
        LOCAL,
    ),
    Mutant(
        "local-gram-noise-without-sqrt2",
        "dpbandit/privacy/local.py",
        "gram = symmetric_gaussian(rng, s / math.sqrt(2.0), self.dim",
        "gram = symmetric_gaussian(rng, s / 2.0, self.dim",
        LOCAL,
    ),
    Mutant(
        "local-sensitivity-drops-cross-term",
        "dpbandit/privacy/local.py",
        "same = 2.0 * L**4 + 2.0 * L**2 * R**2 + R**4 / 2.0",
        "same = 2.0 * L**4 + R**4 / 2.0",
        LOCAL,
    ),
    Mutant(
        "local-agent-ignores-reports-per-user",
        "dpbandit/agents/trust/local.py",
        "reports=self.reports_per_user or 1, models=n_models,",
        "reports=1, models=n_models,",
        LOCAL,
    ),
    Mutant(
        "shuffle-clone-probability-too-high",
        "dpbandit/privacy/shuffle.py",
        "p_clone = math.exp(-eps0)",
        "p_clone = math.exp(-eps0 / 2)",
        SHUFFLE,
    ),
    Mutant(
        "shuffle-approximate-term-one-user",
        "dpbandit/privacy/shuffle.py",
        "(1.0 + math.exp(-eps0) / 2.0) * n * delta0",
        "(1.0 + math.exp(-eps0) / 2.0) * delta0",
        SHUFFLE,
    ),
    Mutant(
        "shuffle-agent-ignores-reports-per-user",
        "dpbandit/agents/trust/shuffle.py",
        "return self.epsilon / m, self.delta / m, m",
        "return self.epsilon, self.delta, m",
        SHUFFLE,
    ),
    Mutant(
        "shuffle-vec-binomial-trials-quartered",
        "dpbandit/privacy/vector_sum.py",
        "rng.binomial(self.trials, self.p, u.shape)",
        "rng.binomial(self.trials // 4, self.p, u.shape)",
        VECTOR_SUM,
    ),
    Mutant(
        "shuffle-vec-shift-halved",
        "dpbandit/privacy/vector_sum.py",
        "plus = _shift_pld(k, logpmf, levels)",
        "plus = _shift_pld(k, logpmf, max(1, levels // 2))",
        VECTOR_SUM,
    ),
    Mutant(
        "shuffle-vec-coordinates-drop-reward-vector",
        "dpbandit/privacy/vector_sum.py",
        "return dim * (dim + 1) // 2 + dim",
        "return dim * (dim + 1) // 2",
        VECTOR_SUM,
    ),
    Mutant(
        "shuffle-vec-agent-ignores-reports-per-user",
        "dpbandit/agents/trust/shuffle.py",
        "        eps, delta, _ = self._per_batch\n        levels = default_levels",
        "        eps, delta = self.epsilon, self.delta\n        levels = default_levels",
        VECTOR_SUM,
    ),
    Mutant(
        "local-authors-scale-ignored",
        "dpbandit/privacy/local.py",
        "        if self.scale is not None:\n            return self.scale\n",
        "",
        LOCAL,
    ),
    Mutant(
        "private-predictions-sensitivity-halved",
        "dpbandit/agents/batched/private.py",
        '"predictions": 2.0 * B,',
        '"predictions": B,',
        PRIVATE,
    ),
    Mutant(
        "private-predictions-unclipped",
        "dpbandit/agents/batched/private.py",
        'np.clip(np.einsum("md,md->m", rows, self.theta[models]), -B, B)',
        'np.einsum("md,md->m", rows, self.theta[models])',
        PRIVATE,
    ),
    Mutant(
        "private-intercepts-fed-exact-predictions",
        "dpbandit/agents/batched/private.py",
        'acc["residuals"] += w * (released["rewards"] + c * counts - released["predictions"])',
        'acc["residuals"] += w * (released["rewards"] + c * counts - self._predictions)',
        POSTPROCESSING,
    ),
    Mutant(  # issue 29 item 3: the portfolio's losses, one per candidate
        "private-portfolio-sensitivity-one-candidate",
        "dpbandit/agents/batched/private.py",
        '"selection": 4.0 * math.sqrt(len(self.candidates)) * B**2,',
        '"selection": 4.0 * B**2,',
        PRIVATE,
    ),
    Mutant(
        "private-portfolio-predictions-unclipped",
        "dpbandit/agents/batched/private.py",
        "predicted = np.clip(slope + self._offsets[name][models], -B, B)",
        "predicted = slope + self._offsets[name][models]",
        PRIVATE,
    ),
    Mutant(
        "private-portfolio-constant-from-exact-rewards",
        "dpbandit/agents/batched/private.py",
        "self._portfolio_offsets(self._shrink(R / Nr, self._score_sd**2))",
        "self._portfolio_offsets(self._shrink(R / Nr + self._rewards / max(self.batch_size, 1), "
        "self._score_sd**2))",
        POSTPROCESSING,
    ),
    # ------------------------------------------------------------ issue 39 (killed by -m privacy tests only)
    # gap 1: privacy tests outside the privacy folders (the three plus the two of gap 6 below)
    Mutant(
        "issue39-vec-agent-calibrates-without-the-reward-vector",
        "dpbandit/agents/trust/shuffle.py",
        "trials = calibrate_vector_sum(eps, delta, self.batch, levels, coordinates)",
        "trials = calibrate_vector_sum(eps, delta, self.batch, levels, coordinates - feature_dim)",
        (*TRUST, *JOINT),
    ),
    Mutant(
        "issue39-dphdb-compiled-scale1-of-step-two",
        "dpbandit/agents/dphdb.py",
        "scale1 = float(line8_scale(np.ones(1),",
        "scale1 = float(line8_scale(np.full(1, 2.0),",
        HDB_STEPS,
    ),
    Mutant(
        "issue39-local-agent-randomizer-at-twice-epsilon",
        "dpbandit/agents/trust/local.py",
        "feature_dim, self.feature_bound, self.reward_bound, self.epsilon, self.delta,",
        "feature_dim, self.feature_bound, self.reward_bound, 2.0 * self.epsilon, self.delta,",
        TRUST,
    ),
    Mutant(  # ours (item 1): private-etc's privacy tests live in tests/agents/batched/test_etc.py
        "issue39-etc-sums-sensitivity-halved",
        "dpbandit/agents/batched/etc.py",
        'return {"sums": 2.0 * self.clipping.reward_clip}',
        'return {"sums": self.clipping.reward_clip}',
        ("tests/agents/batched/test_etc.py",),
    ),
    Mutant(  # ours (item 1): DP-UCB's pins live in tests/agents/test_dpucb.py and test_private_calibration.py
        "issue39-dpucb-sensitivity-drops-the-reward",
        "dpbandit/agents/dpucb.py",
        "self.sensitivity = self.feature_bound**2 + self.reward_bound**2",
        "self.sensitivity = self.feature_bound**2",
        ("tests/agents/test_dpucb.py", "tests/agents/test_private_calibration.py"),
    ),
    # gap 2: one draw shared by coordinates or blocks (right marginals)
    Mutant(
        "issue39-vec-one-binomial-for-every-coordinate",
        "dpbandit/privacy/vector_sum.py",
        "rng.binomial(self.trials, self.p, u.shape)",
        "rng.binomial(self.trials, self.p, u.shape[:-1] + (1,))",
        (*JOINT, "tests/privacy/test_vector_sum.py"),
    ),
    Mutant(
        "issue39-local-arm-blocks-share-one-draw",
        "dpbandit/privacy/local.py",
        "gram = symmetric_gaussian(rng, s / math.sqrt(2.0), self.dim, size=(count, self.models))\n"
        "        vec = gaussian(rng, s, (count, self.models, self.dim))",
        "gram = symmetric_gaussian(rng, s / math.sqrt(2.0), self.dim, size=(count, 1))"
        ".repeat(self.models, axis=1)\n"
        "        vec = gaussian(rng, s, (count, 1, self.dim)).repeat(self.models, axis=1)",
        (*JOINT, "tests/privacy/test_local.py"),
    ),
    Mutant(  # ours
        "issue39-local-vector-noise-is-the-gram-diagonal",
        "dpbandit/privacy/local.py",
        "vec = gaussian(rng, s, (count, self.models, self.dim))",
        "vec = np.diagonal(gram, axis1=-2, axis2=-1).copy()",
        (*JOINT, "tests/privacy/test_local.py"),
    ),
    Mutant(  # ours
        "issue39-local-vector-coordinates-share-one-draw",
        "dpbandit/privacy/local.py",
        "vec = gaussian(rng, s, (count, self.models, self.dim))",
        "vec = gaussian(rng, s, (count, self.models, 1)).repeat(self.dim, axis=2)",
        (*JOINT, "tests/privacy/test_local.py"),
    ),
    # gap 3: accounting errors visible only in small cases
    Mutant(
        "issue39-shuffle-clone-count-one-user-more",
        "dpbandit/privacy/shuffle.py",
        "pmf = stats.binom.pmf(every, n - 1, p_clone)",
        "pmf = stats.binom.pmf(every, n, p_clone)",
        (*EXACT, "tests/privacy/test_shuffle.py"),
    ),
    Mutant(
        "issue39-vec-tail-charged-once",
        "dpbandit/privacy/vector_sum.py",
        "budget = delta - coordinates * left_out",
        "budget = delta - left_out",
        (*EXACT, "tests/privacy/test_vector_sum.py"),
    ),
    Mutant(
        "issue39-cache-read-back-one-percent-tolerance",
        "dpbandit/privacy/accounting.py",
        "meets=lambda z: _epsilon_at(make_event, z, delta, accountant, relation) <= epsilon,",
        "meets=lambda z: _epsilon_at(make_event, z, delta, accountant, relation) <= epsilon * 1.01,",
        (*EXACT, "tests/privacy/test_calibration_cache.py"),
    ),
    Mutant(  # ours: the 2023 clone probability 2 / (e^eps0 + 1), not the one of FMT21 Theorem 3.2
        "issue39-shuffle-clone-probability-of-the-2023-bound",
        "dpbandit/privacy/shuffle.py",
        "p_clone = math.exp(-eps0)",
        "p_clone = 2.0 / (math.exp(eps0) + 1.0)",
        (*EXACT, "tests/privacy/test_shuffle.py"),
    ),
    Mutant(  # ours
        "issue39-shuffle-delta-bernoulli-at-half-eps0",
        "dpbandit/privacy/shuffle.py",
        "alpha = math.exp(eps0) / (math.exp(eps0) + 1.0)",
        "alpha = math.exp(eps0 / 2) / (math.exp(eps0 / 2) + 1.0)",
        (*EXACT, "tests/privacy/test_shuffle.py"),
    ),
    Mutant(  # ours
        "issue39-vec-tail-upper-point-uncharged",
        "dpbandit/privacy/vector_sum.py",
        "stats.binom.sf(k[-1], trials, p))",
        "stats.binom.sf(k[-1] + 1, trials, p))",
        (*EXACT, "tests/privacy/test_vector_sum.py"),
    ),
    Mutant(  # ours
        "issue39-cache-read-back-fifth-percent-tolerance",
        "dpbandit/privacy/accounting.py",
        "meets=lambda z: _epsilon_at(make_event, z, delta, accountant, relation) <= epsilon,",
        "meets=lambda z: _epsilon_at(make_event, z, delta, accountant, relation) <= epsilon * 1.002,",
        (*EXACT, "tests/privacy/test_calibration_cache.py"),
    ),
    # gap 4: boundaries
    Mutant(
        "issue39-local-sensitivity-branch-at-R-equals-L",
        "dpbandit/privacy/local.py",
        "if R**2 <= 2.0 * L**2:",
        "if R <= L:",
        ("tests/privacy/test_local.py",),
    ),
    Mutant(
        "issue39-rewards-below-minus-R-accepted",
        "dpbandit/privacy/local.py",
        "if abs(reward) > reward_bound * (1 + 1e-12):",
        "if reward > reward_bound * (1 + 1e-12):",
        ("tests/privacy/test_local.py", "tests/privacy/test_vector_sum.py"),
    ),
    Mutant(  # ours
        "issue39-feature-norm-ignores-negative-parts",
        "dpbandit/privacy/local.py",
        "norm = float(np.linalg.norm(x))",
        "norm = float(np.linalg.norm(np.maximum(x, 0.0)))",
        ("tests/privacy/test_local.py", "tests/privacy/test_vector_sum.py"),
    ),
    Mutant(  # ours
        "issue39-local-sensitivity-branch-at-1.1",
        "dpbandit/privacy/local.py",
        "if R**2 <= 2.0 * L**2:",
        "if R <= 1.1 * L:",
        ("tests/privacy/test_local.py",),
    ),
    # gap 5: private's other layouts
    Mutant(
        "issue39-private-diag-fit-reads-exact-second-moments",
        "dpbandit/agents/batched/private.py",
        "second = released.get(self.second_moments, 0.0)",
        'second = self._second if self.second_moments == "diag" else released.get(self.second_moments, 0.0)',
        (*LAYOUTS, *POSTPROCESSING),
    ),
    Mutant(
        "issue39-private-selection-offsets-clipped-apart",
        "dpbandit/agents/batched/private.py",
        "predicted = np.clip(slope + self._offsets[name][models], -B, B)",
        "predicted = np.clip(slope, -B, B) + np.clip(self._offsets[name][models], -B, B)",
        (*LAYOUTS, *PRIVATE),
    ),
    Mutant(  # ours
        "issue39-private-intercept-fit-reads-exact-sums",
        "dpbandit/agents/batched/private.py",
        'acc["x"] += w * released["sums"]',
        'acc["x"] += w * self._sums',
        (*LAYOUTS, *POSTPROCESSING),
    ),
    Mutant(  # ours
        "issue39-private-fit-reads-exact-squares",
        "dpbandit/agents/batched/private.py",
        'acc["rr"] += w * released["squares"]',
        'acc["rr"] += w * self._squares',
        (*LAYOUTS, *POSTPROCESSING),
    ),
    # gap 6: laws at one radius and one step
    Mutant(
        "issue39-topdown-lmo-drops-the-radius",
        "dpbandit/optim/pofw.py",
        "index = report_noisy_min_topdown(rng, radius * direction, scale, mirrored=True)",
        "index = report_noisy_min_topdown(rng, direction, scale, mirrored=True)",
        ("tests/privacy/test_topdown.py",),
    ),
    Mutant(
        "issue39-hdb-kernel-draws-the-next-steps-scale",
        "dpbandit/agents/kernels/hdb.py",
        "scale = scale1 / math.sqrt(t)",
        "scale = scale1 / math.sqrt(t + 1)",
        HDB_STEPS,
    ),
    Mutant(  # ours
        "issue39-hdb-kernel-drops-the-radius",
        "dpbandit/agents/kernels/hdb.py",
        "scores[j] = radius * direction[i, j] / scale",
        "scores[j] = direction[i, j] / scale",
        HDB_STEPS,
    ),
    Mutant(  # ours
        "issue39-hdb-kernel-draws-the-previous-steps-scale",
        "dpbandit/agents/kernels/hdb.py",
        "scale = scale1 / math.sqrt(t)",
        "scale = scale1 / math.sqrt(max(t - 1, 1))",
        HDB_STEPS,
    ),
    # ------------------------------------------------------------ issue 37: local and shuffle GLM bandits
    Mutant(
        "glm-l2ball-radius-at-twice-epsilon",
        "dpbandit/privacy/l2ball.py",
        "return 1.0 / math.tanh(epsilon / 2.0) * math.sqrt(math.pi)",
        "return 1.0 / math.tanh(epsilon) * math.sqrt(math.pi)",
        GLM,
    ),
    Mutant(
        "glm-l2ball-hemisphere-at-twice-epsilon",
        "dpbandit/privacy/l2ball.py",
        "return 1.0 / (1.0 + math.exp(-epsilon))",
        "return 1.0 / (1.0 + math.exp(-2.0 * epsilon))",
        GLM,
    ),
    Mutant(
        "glm-pure-epsilon-one-report",
        "dpbandit/privacy/l2ball.py",
        "acc.compose(_unroll_rr(pure_dp_event(epsilon, reports)))",
        "acc.compose(_unroll_rr(pure_dp_event(epsilon, 1)))",
        GLM,
    ),
    Mutant(
        "glm-local-sgd-ignores-reports-per-user",
        "dpbandit/agents/trust/sgd.py",
        "        return self.epsilon / self._per_user\n",
        "        return self.epsilon\n",
        GLM,
    ),
    Mutant(
        "glm-shuffle-sgd-batch-overstated",
        "dpbandit/agents/trust/sgd.py",
        "return largest_local_epsilon(self.epsilon / m, self.delta / m, self.batch)",
        "return largest_local_epsilon(self.epsilon / m, self.delta / m, 2 * self.batch)",
        GLM,
    ),
    Mutant(
        "glm-shuffle-sgd-ignores-reports-per-user",
        "dpbandit/agents/trust/sgd.py",
        "return largest_local_epsilon(self.epsilon / m, self.delta / m, self.batch)",
        "return largest_local_epsilon(self.epsilon, self.delta, self.batch)",
        GLM,
    ),
    Mutant(
        "glm-gloc-projection-dropped",
        "dpbandit/agents/trust/gloc.py",
        "        if self.calibration == \"certified\":\n            self._project()\n        self.max_theta_h",
        "        self.max_theta_h",
        GLOC,
    ),
    Mutant(
        "glm-gloc-sensitivity-drops-gradient",
        "dpbandit/agents/trust/gloc.py",
        "return math.sqrt(2 * L**4 + (L**2 * S) ** 2 + (2 * L * G) ** 2)",
        "return math.sqrt(2 * L**4 + (L**2 * S) ** 2 + (L * G) ** 2)",
        GLOC,
    ),
    Mutant(
        "glm-gloc-report-noise-halved",
        "dpbandit/agents/trust/gloc.py",
        "s, d, rng = self.sigma, self.dim, self._noise_rng",
        "s, d, rng = self.sigma / 2, self.dim, self._noise_rng",
        GLOC,
    ),
    # ------------------------------------------------------------ issue 37 item 6: the centred report's clip
    Mutant(  # an uncentred reward in the declared range (0, 1) silently cut at 0.5
        "centring-clip-bound-ignores-the-mode",
        "dpbandit/agents/centring.py",
        'if self.mode == "none" or self.half_width is None:',
        "if self.half_width is None:",
        LOCAL,
    ),
    Mutant(  # clipped before centring: the report carries another reward than r - c clipped to [-B, B]
        "local-report-clips-before-centring",
        "dpbandit/agents/trust/reports.py",
        "clipped = min(max(self.centring.rewards(reward), -self.reward_bound), self.reward_bound)",
        "clipped = self.centring.rewards(min(max(reward, -self.reward_bound), self.reward_bound))",
        LOCAL,
    ),
    Mutant(  # the centred report calibrated at half the half-width: every reward of the range no longer fits
        "centring-clip-bound-halved",
        "dpbandit/agents/centring.py",
        "        return self.half_width\n",
        "        return self.half_width / 2\n",
        LOCAL,
    ),
)
