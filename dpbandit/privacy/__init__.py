"""Privacy core: noise samplers, regularity constants, tree aggregation, private selection, accounting
(via Google's dp_accounting) and privacy guarantees. Empirical audits live one layer up, in ``dpbandit.audit``.
See docs/privacy.md."""

from __future__ import annotations

from dpbandit.privacy.accounting import (
    default_relation,
    epsilon_for,
    epsilon_to_zcdp,
    gaussian_event,
    gaussian_sigma,
    gaussian_sigma_zcdp,
    generalized_gaussian_sigma,
    laplace_event,
    make_accountant,
    pure_dp_event,
    tree_aggregation_event,
    tree_gaussian_sigma,
    zcdp_event,
    zcdp_to_epsilon,
)
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.noise import gaussian, generalized_gaussian, laplace, symmetric_gaussian
from dpbandit.privacy.regularity import SmoothNorm, dual_index, smooth_norm
from dpbandit.privacy.rnm import exponential_mechanism, report_noisy_max, report_noisy_min, rnm_epsilon
from dpbandit.privacy.tree import TreeAggregator, binary_tree_matrix, gaussian_tree, nodes_in_prefix

__all__ = [
    "PrivacyGuarantee",
    "SmoothNorm",
    "TreeAggregator",
    "binary_tree_matrix",
    "default_relation",
    "dual_index",
    "epsilon_for",
    "epsilon_to_zcdp",
    "exponential_mechanism",
    "gaussian",
    "gaussian_event",
    "gaussian_sigma",
    "gaussian_sigma_zcdp",
    "gaussian_tree",
    "generalized_gaussian",
    "generalized_gaussian_sigma",
    "laplace",
    "laplace_event",
    "make_accountant",
    "nodes_in_prefix",
    "pure_dp_event",
    "report_noisy_max",
    "report_noisy_min",
    "rnm_epsilon",
    "smooth_norm",
    "symmetric_gaussian",
    "tree_aggregation_event",
    "tree_gaussian_sigma",
    "zcdp_event",
    "zcdp_to_epsilon",
]
