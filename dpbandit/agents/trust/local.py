"""Local-DP linear UCB: Zheng, Cai, Huang, Li and Wang (NeurIPS 2020, arXiv 2006.00701), LDP-OFUL.

"Locally differentially private (contextual) bandits learning" (the LDP linear baseline of Chowdhury and
Zhou's Figure 1 and of their code's ``LDPLinUCB``; the paper's own contextual algorithm is a GLM one):
each user receives the server's current model, plays the arm with the largest upper confidence bound, and
sends back only Gaussian-randomised ``x x^T`` and ``x r`` [P]; the server adds the reports to its Gram
matrix and reward vector, shifts the Gram matrix by ``2 gamma I`` to keep it positive definite, and refits
(:mod:`dpbandit.agents.trust.reports`). Every report is ``(epsilon, delta)``-DP on its own, so the whole
run is ``(epsilon, delta)``-LDP, hence joint DP at the same level [P].

Calibration: :class:`dpbandit.privacy.local.LocalGaussianRandomizer` (one PLD-calibrated Gaussian on the
pair, sensitivity derived there). The paper's noise is the classical Gaussian-mechanism bound
``sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon`` [O]; the authors' code of Chowdhury and Zhou's LDP
baseline uses ``sqrt(ln(2.5/delta)) / epsilon`` without a sensitivity factor [C] (privacy/local.py
docstring compares the numbers); ``calibration="authors"`` runs that noise, side by side only.

Zheng et al.'s local GLM variant is ``ldp-gloc`` (:mod:`dpbandit.agents.trust.gloc`), replicated from the
public code of Han et al. (``liangzp/LDP-Bandit``), which runs it as a baseline; their LDP multi-armed bandit
reduction is not implemented. The noise of this agent's linear form is the code's
``LDPLinUCB`` (``LinBanditPrivate.py`` lines 150-183 [C]), calibrated here by PLD.

Zheng et al.'s own code (``huang-research-group/LDPbandit2020``, ``src/linucb.py`` [C], read for issue 30)
departs from this agent in three places, all in the policy, none in what a report reveals: (1) per-entry
std ``4 sqrt(ln(1.25/delta)) / epsilon`` (line 42; the comment above it says ``4 sqrt(2 ln(1.25/delta)) /
epsilon``, so the code drops the 2 of its own formula), with i.i.d. upper-triangle Gram noise (every entry
of std sigma; here off-diagonal entries have std ``sigma / sqrt 2``, the Frobenius-isotropic geometry);
(2) a regulariser that grows with ``t``, ``2 gamma_t`` with ``gamma_t = sigma sqrt(t) (4 sqrt(d) + 2
ln(2T/alpha))`` (lines 76-78), where this agent (after Chowdhury and Zhou's code) fixes ``gamma = sigma
sqrt(T D)``; (3) the width ``beta_t = 2 sigma sqrt(d ln T) + (sqrt(3 gamma_t) + sigma sqrt(d t / gamma_t))
d ln T`` (lines 79-80). Only (1) touches privacy: this agent's PLD calibration replaces it.
"""

from __future__ import annotations

from dpbandit.agents.linear import PerArmFeatures
from dpbandit.agents.trust.reports import NoisyReportUCB
from dpbandit.privacy.guarantee import PrivacyGuarantee
from dpbandit.privacy.local import LocalGaussianRandomizer, authors_local_std

__all__ = ["LocalLinUCB", "LocalLinUCBDisjoint"]


class _LocalReports(NoisyReportUCB):
    """Local model: the randomizer spends the whole guarantee; reports are published every round."""

    trust_model = "local"
    batch = 1

    def _randomizer(self, feature_dim: int, n_models: int) -> LocalGaussianRandomizer:
        scale = authors_local_std(self.epsilon, self.delta) if self.calibration == "authors" else None
        return LocalGaussianRandomizer(
            feature_dim, self.feature_bound, self.reward_bound, self.epsilon, self.delta,
            reports=self.reports_per_user or 1, models=n_models, scale=scale,
        )

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        """LDP guarantee of one user's reports: dp_accounting PLD of the Gaussian at the drawn std."""
        eps = self.randomizer.achieved_epsilon
        return self._guarantee(
            epsilon=eps, accountant="pld, exact Gaussian curve (local Gaussian report)",
            calibration=f"report std {self.randomizer.sigma:.4g} (PLD, dpbandit.privacy.local)",
            notes="each report is DP on its own (local model), which implies joint DP at the same level.",
            local_epsilon=eps,
        )


class LocalLinUCB(PerArmFeatures, _LocalReports):
    """Zheng et al. (2020) LDP-OFUL: one shared parameter on per-arm features ``(K, D)``, local Gaussian
    reports of ``(x x^T, x r)`` (module docstring)."""

    mechanism = "LDP-OFUL (Zheng et al. 2020): local Gaussian reports of (x x^T, x r)"


class LocalLinUCBDisjoint(_LocalReports):
    """Disjoint form on a shared context: one model per arm; each user's report noises every arm's block
    (the played arm's carries ``(x x^T, x r)``) so the report does not reveal the arm [derived]."""

    mechanism = "LDP-OFUL disjoint (per-arm models; every block noised)"
