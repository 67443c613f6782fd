"""Batched jointly-private agents: every user's data enters exactly one noisy release.

Rounds are cut into batches of growing size (:class:`~dpbandit.agents.batched.base.BatchSchedule`). Within a
batch the agent plays a fixed greedy policy computed from earlier releases; at the end of the batch it releases
private statistics of *that batch's* users only, once. Because the batches partition the users, the releases
compose in parallel: the whole run costs the privacy of one release, not one per round (Hanna et al. 2022;
FLIPHAT, Chakraborty, Roy & Basu 2024; notes/fliphat.md). The action sequence is jointly DP by the billboard
lemma (Hsu et al. 2014): user t's action is a function of the public releases and of user t's own context.

Agents: :class:`~dpbandit.agents.batched.screening.BatchedScreening` (sparse, any dimension),
:class:`~dpbandit.agents.batched.ridge.BatchedRidge` (moderate dimension), FLIPHAT.
"""
