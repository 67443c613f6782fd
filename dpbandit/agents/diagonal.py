"""LinUCB with a diagonal Gram matrix: the non-private reference that runs at d = 5000.

Disjoint LinUCB (Li et al. 2010, "A contextual-bandit approach to personalized news article recommendation",
Algorithm 1) keeps per arm ``A_k = lambda I + sum x x^T``: ``K d^2`` floats and ``d^2`` work per round
(2 GB and thousands of times the environment's round at d = 5000, K = 10, where it refuses). This agent keeps
only the diagonal of ``A_k`` [O]: the approximation practitioners use when ``d^2`` does not fit, e.g. the
diagonal Gaussian posterior of Chapelle and Li 2011 ("An empirical evaluation of Thompson sampling",
Algorithm 3, display advertising) and the diagonal of ``Z`` in NeuralUCB's experiments (Zhou, Li and Gu 2020,
"Neural contextual bandits with UCB-based exploration", Section 7). Per arm ``k``:

* ``D_k = lambda + sum_{t: a_t = k} x_t * x_t`` (elementwise), ``b_k = sum r_t x_t``, ``theta_k = b_k / D_k``;
* score ``<x, theta_k> + alpha sqrt(sum_i x_i^2 / D_{k,i})``; the arg-max is pulled, ties broken at random
  with the agent's generator (as :class:`dpbandit.agents.linear.LinUCB`).

On contexts with orthogonal coordinates (one-hot features) ``A_k`` is diagonal and the agent is LinUCB exactly
(tested). State ``4 K d`` floats; work ``O(K d)`` per round, the environment's own order.
"""

from __future__ import annotations

import numpy as np

from dpbandit.agents import size
from dpbandit.agents.linear import LinUCB

__all__ = ["DiagonalLinUCB"]


class DiagonalLinUCB(LinUCB):
    """Disjoint LinUCB with the diagonal of each arm's Gram matrix (module docstring).

    Args: those of :class:`~dpbandit.agents.linear.LinUCB` (``alpha``, ``regularization``).

    Example:
        >>> import numpy as np
        >>> agent = DiagonalLinUCB(10, 5000, rng=np.random.default_rng(0))
        >>> agent.v_diag.shape, agent.act(np.ones(5000)) in range(10)
        ((10, 5000), True)
    """

    def footprint(self) -> size.Footprint:
        """State ``8 x 4 K d`` bytes (``D``, ``1 / D``, ``b``, ``theta``); work per round ``2 K d`` (two
        matrix-vector products) + ``6 d``."""
        K, d = self.n_arms, self.centring.feature_dim(self.dim)
        return size.Footprint(size.FLOAT * 4 * K * d, 2 * K * d + 6 * d, d)

    def _init_statistics(self, n_models: int, feature_dim: int) -> None:
        self.v_diag = np.full((n_models, feature_dim), self.regularization)
        self.v_inv_diag = 1.0 / self.v_diag

    def _mean_and_variance(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = features[0]  # the disjoint form: every arm's row is the context
        return self.theta_hat @ x, self.v_inv_diag @ (x * x)

    def _record(self, model: int, feature: np.ndarray, reward: float) -> None:
        self.v_diag[model] += feature * feature
        self.v_inv_diag[model] = 1.0 / self.v_diag[model]
        self.u[model] += reward * feature
        self.theta_hat[model] = self.u[model] * self.v_inv_diag[model]
