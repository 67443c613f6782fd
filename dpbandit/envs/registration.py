"""Environment ids under the ``dpbandit/`` namespace and their presets.

GLM ids (:data:`PRESETS`, :data:`ENV_IDS`) have the scalar entry point :class:`dpbandit.envs.glm.GLMBanditEnv`
and the vector entry point :class:`dpbandit.envs.glm.GLMBanditVectorEnv`; classification ids
(:data:`CLASSIFICATION_PRESETS`, :data:`CLASSIFICATION_IDS`) have
:class:`dpbandit.envs.classification.ClassificationBanditEnv` and its vector env. So both
``gymnasium.make(id, **overrides)`` and
``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` work for every id.
The table is also in docs/envs.md. [Fill] marks our choices, [P] the paper, [C] the
authors' code (liangzp/DP-Streaming-SCO ``env.py`` / ``main.py``, class ``bandits_env``).

``dpbandit/HDBSection54-v0`` reproduces the DP-HDB experiment of 004_290fd04a1e656565.txt
Section 5.4 / Figure 5.1:

* [P] T = 10,000, d = 50, K = 2 (epsilon = 1 is an agent setting).
* [C] identity link, ``y = x^T theta_a + noise`` (the paper is silent; its competitor DP-UCB
  is a linear-bandit algorithm).
* [C] shared ("disjoint") model: one context, one parameter per arm ([C] ``multi=True``).
* [C] contexts: i.i.d. N(0, 0.05^2 I_d), each divided by its l_inf norm (so ``||x||_inf = 1``;
  the std then cancels).
* [C] parameters: s = 5 non-zeros per arm, all equal, l_1-normalised: 0.2 each. [C] draws the
  5 positions *with* replacement (``np.random.choice(d, 5)``) and normalises the 5 indexed
  entries, so a repeated position leaves ``||theta_a||_1 = 4/5`` (or less); [Fill] we draw 5
  *distinct* positions, so ``||theta_a||_1 = 1`` always (issue 2: "5 non-zeros per arm equal
  to 0.2").
* [C] reward noise N(0, 0.05^2), drawn for every arm each round ([C] draws ``size=(1, k)``).
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym

__all__ = ["CLASSIFICATION_IDS", "CLASSIFICATION_PRESETS", "ENV_IDS", "PRESETS", "register_envs"]

#: id -> kwargs of :class:`dpbandit.envs.glm.GLMBanditEnv` (overridable at ``make`` time).
PRESETS: dict[str, dict[str, Any]] = {
    # Generic GLM bandit: every option of dpbandit.envs.problem.GLMProblem can be overridden [Fill].
    "dpbandit/GLMBandit-v0": dict(n_arms=5, dim=10, horizon=1_000),
    # Small linear bandit for LinUCB-type tests: unit-sphere contexts, unit-l2 Gaussian
    # parameters, Gaussian noise std 0.1 [Fill].
    "dpbandit/LinearBandit-v0": dict(n_arms=5, dim=10, horizon=10_000, link="identity", noise_std=0.1),
    # Logistic bandit with Bernoulli rewards; ||theta_a||_2 = 2 so means span about [0.12, 0.88] [Fill].
    "dpbandit/LogisticBandit-v0": dict(
        n_arms=5, dim=10, horizon=10_000, link="logistic", noise="native", theta_radius=2.0
    ),
    # Poisson bandit (exponential link), means in [1/e, e] [Fill].
    "dpbandit/PoissonBandit-v0": dict(n_arms=5, dim=10, horizon=10_000, link="exponential", noise="native"),
    # Per-arm features X_t in R^{K x d} (rows on the unit sphere), one unit-l2 theta [Fill].
    "dpbandit/PerArmLinearBandit-v0": dict(
        n_arms=5, dim=10, horizon=10_000, link="identity", context_model="per_arm", noise_std=0.1
    ),
    # 004 Section 5.4 (DP-HDB vs DP-UCB, Figure 5.1); sources in the module docstring.
    "dpbandit/HDBSection54-v0": dict(
        n_arms=2,
        dim=50,
        horizon=10_000,
        link="identity",
        context_model="shared",
        contexts="gaussian",
        context_std=0.05,
        context_norm=math.inf,
        sparsity=5,
        theta_values="ones",
        theta_norm=1.0,
        theta_radius=1.0,
        noise="gaussian",
        noise_std=0.05,
    ),
    # Han, Liang, Wang and Zhang (NeurIPS 2021), Figures 6-8 as their code defines them (liangzp/LDP-Bandit,
    # Scheme1/envs/envs.py:8-47 and instances/singleparam.py:26-33) [C]: d = 2, K = 10 fresh contexts per round,
    # each N(0, I) scaled to the unit circle (envs.py:42-47), one unit theta (envs.py:11-12; pass theta= to
    # reuse theirs for a seed), pseudo-regret mu* - mu_a (envs.py:25-36); identity link with no reward noise
    # (envs.py:16-17, 'normal'); link='logistic' (Bernoulli) or link='exponential' (Poisson) with
    # noise='native' for their logistic.py / poisson.py; T = 10^6 in their scripts, 2 x 10^4 here [Fill].
    "dpbandit/LDPGLMUnitCircle-v0": dict(
        n_arms=10, dim=2, horizon=20_000, link="identity", context_model="per_arm", contexts="gaussian",
        context_norm=2.0, theta_norm=2.0, theta_radius=1.0, noise="gaussian", noise_std=0.0,
    ),
}

#: The GLM ids.
ENV_IDS: tuple[str, ...] = tuple(PRESETS)

#: id -> kwargs of :class:`dpbandit.envs.classification.ClassificationBanditEnv`. ``Classification-v0`` takes the
#: user's data (``X=``/``y=`` or ``path=``/``label=``); the others are scikit-learn's bundled data sets
#: (rows x features, classes): digits 1,797 x 64, 10; wine 178 x 13, 3; breast cancer 569 x 30, 2;
#: iris 150 x 4, 3; imbalanced (generated, fixed seed) 5,000 x 12, 4. Defaults: users drawn i.i.d. from
#: the rows, T = 10,000, standardised features, then centred unit-l2 rows [Fill] (docs/envs.md).
CLASSIFICATION_PRESETS: dict[str, dict[str, Any]] = {
    "dpbandit/Classification-v0": {},
    "dpbandit/Digits-v0": dict(dataset="digits"),
    "dpbandit/Wine-v0": dict(dataset="wine"),
    "dpbandit/BreastCancer-v0": dict(dataset="breast_cancer"),
    "dpbandit/Iris-v0": dict(dataset="iris"),
    # issue 29 item 1: make_classification(n_samples=5000, n_features=12, n_informative=6, n_redundant=2,
    # n_classes=4, weights=[.55, .25, .15, .05], random_state=7): imbalanced classes, majority share 0.55
    "dpbandit/ImbalancedClasses-v0": dict(dataset="imbalanced"),
}
#: The classification ids.
CLASSIFICATION_IDS: tuple[str, ...] = tuple(CLASSIFICATION_PRESETS)

_ENTRY_POINTS = {
    "dpbandit.envs.glm": ("GLMBanditEnv", "GLMBanditVectorEnv", PRESETS),
    "dpbandit.envs.classification": (
        "ClassificationBanditEnv", "ClassificationBanditVectorEnv", CLASSIFICATION_PRESETS
    ),
}


#: Single-environment ids (no block draws): Chowdhury and Zhou's fixed-arm Bernoulli bandit
#: (ICML 2022, their code's setting: d = 5, K = 100, T = 20,000; dpbandit/envs/fixed_arms.py).
FIXED_ARMS_PRESETS: dict[str, dict[str, Any]] = {
    "dpbandit/ChowdhuryZhou-v0": dict(n_arms=100, dim=5, horizon=20_000),
    # the plain K-armed Bernoulli bandit, constant context (issue 40 item 3; dpbandit/envs/mab.py)
    "dpbandit/BernoulliMAB-v0": dict(means=(0.3, 0.5, 0.7), horizon=5_000),
    # five arms, best-to-second gap 0.15 (issue 40 item 3's second gap structure)
    "dpbandit/BernoulliMAB5-v0": dict(means=(0.2, 0.3, 0.4, 0.45, 0.6), horizon=5_000),
}
#: The module of each single-environment id (default: fixed_arms).
_SINGLE_MODULES = {env_id: ("dpbandit.envs.mab", "BernoulliMABEnv")
                   for env_id in ("dpbandit/BernoulliMAB-v0", "dpbandit/BernoulliMAB5-v0")}
#: The single-environment ids (fixed arms, the Bernoulli multi-armed bandit).
FIXED_ARMS_IDS: tuple[str, ...] = tuple(FIXED_ARMS_PRESETS)


def register_envs() -> None:
    """Register every preset id with Gymnasium (idempotent)."""
    for env_id, kwargs in FIXED_ARMS_PRESETS.items():
        if env_id not in gym.registry:
            module, scalar = _SINGLE_MODULES.get(env_id, ("dpbandit.envs.fixed_arms", "FixedArmsBernoulliEnv"))
            gym.register(id=env_id, entry_point=f"{module}:{scalar}", vector_entry_point=f"{module}:make_vector",
                         kwargs=dict(kwargs))
    for module, (scalar, vector, presets) in _ENTRY_POINTS.items():
        for env_id, kwargs in presets.items():
            if env_id in gym.registry:
                continue
            gym.register(
                id=env_id,
                entry_point=f"{module}:{scalar}",
                vector_entry_point=f"{module}:{vector}",
                kwargs=dict(kwargs),
            )
