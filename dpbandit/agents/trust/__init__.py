"""Agents of the other trust models (issue 30): local DP (:mod:`.local`) and the shuffle model (:mod:`.shuffle`);
for GLM rewards (issue 37) LDP-SGD and its shuffle form (:mod:`.sgd`) and LDP-GLOC (:mod:`.gloc`), from Han,
Liang, Wang and Zhang's public code (``liangzp/LDP-Bandit``, NeurIPS 2021, on :mod:`dpbandit.privacy.l2ball`).
The linear agents sit on the shared noisy-report machinery of :mod:`.reports` and the randomizer / amplification / vector-sum
accounting of :mod:`dpbandit.privacy.local`, :mod:`dpbandit.privacy.shuffle` and
:mod:`dpbandit.privacy.vector_sum`.

Sources and what could be checked (searched again for issue 30's second pass):

* Chowdhury and Zhou, "Shuffle private linear contextual bandits", ICML 2022, arXiv 2202.05567 (id
  confirmed). The search corpora hold only the paper's opening page (abstract and introduction), so no
  algorithm, theorem or equation number here is checked against the text; where a docstring names one it is
  marked [recall]. The authors' code (``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``,
  fetched and read) is cited by class and line instead [C].
* Zheng, Cai, Huang, Li and Wang, "Locally differentially private (contextual) bandits learning", NeurIPS
  2020, arXiv 2006.00701 (id and authors confirmed from the paper's opening page). Its abstract confirms
  an ``(epsilon, delta)``-LDP generalized-linear-bandit algorithm with ``O~(T^{3/4}/epsilon)`` regret; its
  body (the algorithm's equations) was not reachable.
* Garcelon, Chaudhuri, Perchet and Pirotta, "Privacy amplification via shuffling for linear contextual
  bandits", ALT 2022, PMLR 167:381-407, arXiv 2112.06008 (id confirmed). Only the abstract was reachable:
  batching plus shuffling, ``O~(T^{2/3}/epsilon^{1/3})`` regret with both central (joint) and local
  guarantees. Where its agent differs from Chowdhury and Zhou's could not be read, so it is not implemented.
"""
