"""End-to-end joint-DP audits of the batched agents (issue 24; cases registered on import).

The cases of :mod:`.batched_agents` drive one release object; these run a whole agent, built from the
registry (every ``dpbandit.agents.batched`` entry of ``dpbandit.agents.AGENTS``), through its public
``play_block`` on two neighbouring input streams, and look only at what joint DP protects: the actions of the
*other* users who come later (the audited user's own action is not part of the output).

What is audited. Every agent's privacy argument is per batch: given the releases before it, batch ``l``'s
release is an (epsilon, delta)-DP function of batch ``l``'s users, and everything later is post-processing
(parallel composition; :mod:`dpbandit.agents.batched.base`). So the audit fixes a public history and audits
the next release: the **template** of an agent is built once (seed 0) and plays the design's fixed warm-up
batches (``Design.warm``; their releases, noise included, are the same in every run and on both sides); each
Monte Carlo run copies it, draws fresh streams for the agent's own randomness, and plays the **main batch**
(``Design.main``, the audited user first) through ``play_block``. After the main batch's release, probe users
(:func:`probes`) ask the agent for their greedy arms (``scores``: black box on their actions). The warm-up
gives the audit what a public history can give: greedy arms that are fixed functions of the context (no
coin-flip ties, so the disjoint agents' rows go to chosen arms) and second moments and counts that are
mostly public data (each estimate along ``e_0`` is then close to linear in the released ``sum x b``).

Streams (``K = 2`` arms, ``d = 2``; every batch has the main batch's size: ``first_batch = len(main)``,
``batch_ratio = 1``). A group of rows is ``(context, rewards, count)``; per-arm agents get ``X[0] = context``
and ``X[1] = context / 2``, which clip to the same row (every context is either of norm 10, beyond every
clip, or small), so the played arm never changes what is learned and never ties.

* The **audited user**: context ``10 e_0`` (beyond every context clip: the clipped row is ``C e_0`` on both
  sides), rewards ``(+R, -R)`` under ``D`` and ``(-R, +R)`` under ``D'`` (per-arm: ``+R`` vs ``-R``), ``R``
  beyond the reward clip (10; for ``private`` the declared half-width, see ``OPTIONS``): whichever arm the
  user plays, the clipped reward goes from ``+B`` to ``-B`` and ``sum x b`` moves by its full sensitivity
  ``2 C B`` along ``e_0``. Neighbour choice per agent: only the ``sum x b`` block (moments / sums / values /
  gradient) moves; the Gram and count blocks do not move under a reward flip (ridge's Gram, 0.45 of the
  budget, is not audited; ``private`` is audited in a layout without one, ``OPTIONS``, and in its default
  layout, ``private-pooled``, whose pooled Gram does not move and whose selection block moves only through
  the user's own loss difference: both add their noise to the estimate), and the clip counts do not move
  (both rewards and both contexts are beyond the clips). A context change that moves the Gram too (``x' = C
  (cos phi, sin phi)`` at reward ``-B``, ``phi`` about 75 to 80 degrees at ridge's equal shares) would raise
  ridge's shift by up to ``sqrt(1.56) = 1.25`` (1.24 for the upper triangle it releases) for a test reading
  the moments and the Gram jointly. The probes read the Gram only through the ridge solve, where its noise
  enters their coordinate too: to first order the ratio statistic reaches 1.24 only with an estimate of about
  2.5 B / C, and 1.11 to 1.2 at the 0.8 to 1.5 B / C reachable with median clips (half the rows are beyond
  the clip and add ``C^2`` each to the Gram). A per-arm ridge prototype (not
  registered: half the rows ``10 e_0`` at reward -10 and ``10 e_1`` at +10, half ``1.2 e_0`` at -10 and
  ``0.6 e_1`` at +10, 8 to 16 warm-ups, ``phi = 75`` degrees) kept 1.10 to 1.12 times the shift, 0.92 to 0.94
  noise stds released twice (Gaussian epsilon about 2.1): an optimal test on that would need about 300,000 to
  560,000 runs per side. Not implemented.
* **Anchors** ``10 e_0`` with reward 0 (the centre): second moment and count along ``e_0``, nothing in
  ``sum x b``; **reference** rows along ``e_1`` fix the scale the probes compare with; **fillers**
  ``0.01 e_1`` with reward 10 keep half of the rows inside each clip (the adaptive clips do not drift between
  the two releases of ``/user-released-twice``).
* Disjoint agents (screening, ridge, peeling, private): warm-up 1 (coin-flip arms) makes arm 0 better
  along ``+e_0`` and ``+e_1``; warm-up 2 sends rows ``3 e_0 - e_1`` and ``-e_1`` to arm 1, whose estimate
  along ``e_0`` then rests on more public data than arm 0's (a probe compares the two arms, so arm 1's noise
  along ``e_0`` counts too); in the main batch the audited user, anchors and ``e_1`` reference rows go to
  arm 0, the ``3 e_0 - e_1`` and ``-e_1`` rows to arm 1.
* ``private-pooled`` (``private`` at its defaults with the pooled Gram named: the pooled Gram, shared by the
  arms, and the private choice between the dense and the screened estimate): the disjoint streams with arm
  1's ``3 e_0 - e_1`` rows replaced by ``-10 e_0`` (with the pooled Gram only arm 1's count, not its rows'
  direction, sets its Gram
  along ``e_0``; ``-10 e_0`` goes to arm 1 exactly when ``10 e_0`` goes to arm 0) and the reference rewards
  cut to ``+-2.5`` (a noisy pooled Gram couples the reference along ``e_1`` into the estimate along ``e_0``:
  with rewards ``+-10`` the statistic kept 0.54 of the shift of 0.685 noise stds, with ``+-2.5`` 0.59 to
  0.62); warm-up 1 tilts arm 0 by reward 1 along ``e_0`` so that the second copy of
  ``/user-released-twice`` plays the same arms.
* Per-arm agents with second moments (ridge, peeling, private): four warm-up batches give ``e_0`` and
  ``e_1`` public second moments and a small reference ``theta_1`` (a large ``theta_1`` would couple the
  Gram's noise into the estimate along ``e_0``); the main batch has the audited user, anchors and fillers.
  Per-arm screening: the reference ``e_1`` rows with reward ``+B`` are in the main batch (its
  inverse-variance weights favour the latest batch).
* FLIPHAT refits every episode from that episode's data alone; with ``sparsity = 1`` (``OPTIONS``) it peels
  one coordinate. Per-arm: the main batch is the user and two rows ``10 e_0`` at reward ``-R`` (the released
  value sits just below 0 under ``D`` and ``2 C B`` lower under ``D'``; probes read its sign, a Laplace tail
  test). Disjoint: a warm-up sends ``e_0`` rows to arm 0 and ``-e_1`` rows to arm 1; in the main batch arm
  1's 29 ``-e_1`` rows make it select ``e_1`` with a large value (the reference) and arm 0 holds the user and
  the two ``-R`` rows.
* DP-HDB (Frank-Wolfe vertex choices): the warm-up leaves both arms leaning to ``+e_0`` with arm 1 ahead, so
  the user plays arm 1 alone (each of its 16 vertex choices sees the user only) and 96 rows
  ``-5 e_0 + 10 e_1`` play arm 0 and decide its choices (a near-fixed reference).

Statistic: probe ``i`` has shared context ``e_0 - t_i e_1`` (per-arm ``X[0] = e_0``, ``X[1] = t_i e_1``),
divided by ``max(1, |t_i|)``, on the grid ``t = 2e-4 sinh(u)``, ``u`` evenly spaced on ``[-12, 12]`` (4001
probes: 0.6% relative steps over 10^-4 to 16): probe ``i`` goes to arm 0 when the released estimate along
``e_0`` (for disjoint agents arm 0's minus arm 1's) exceeds ``t_i`` times the reference, so the **fraction
of probes assigned to arm 0** is a monotone, finely graded function of that estimate: a threshold on it is a
threshold on one released coordinate, the optimal test for a Gaussian shift (an exact tie counts 1/2).

The audit (:func:`dpbandit.audit.core.audit`) thresholds the statistic and bounds epsilon from below with
Clopper-Pearson intervals; the claim is the agent's reported epsilon at its delta (``EPSILON = 2``,
``DELTA = 0.01``: a Gaussian mechanism's epsilon at a small delta is attained only on regions of
probability about delta, which 10^4 whole-agent runs cannot resolve; at 0.01 they can).

Variants per agent: ``/calibrated`` (must pass), ``/noise-divided-by-4`` (every noise scale of the main
batch's release divided by 4, claim unchanged: Gaussian multiplier / 4, selection epsilons x 4, FLIPHAT's
Laplace multiplier / 4, DP-HDB's exponential-mechanism epsilons x 4; :func:`weaken`) and
``/user-released-twice`` (the main batch played twice, as two consecutive batches, before the probes: two
releases contain the audited user). Both copies are expected to be flagged; what a Gaussian power
calculation says each can reach is in results/privacy_audit.md. Explore-then-commit (``private-etc``)
releases once, at the end of its first batch (the exploration), and learns nothing later: its design has no
warm-up, the probes read the arm it commits to (a sign test on the released per-arm sums), and its
``/user-released-twice`` copy is expected to **pass** (the second copy enters no release). What later users
see of it is one binary choice, so its ``/noise-divided-by-4`` copy is hard to flag (lower bound 1.87 against
the claim 2 at 2,000 runs per side, seed 11); its calibration is checked on the noise it draws
(``tests/agents/batched/test_etc.py``).

Audit options of the agents (``OPTIONS``), each a shipped configuration that keeps the audited calibration:
screening and peeling keep every coordinate (``threshold = 0``: at d = 2 their thresholds would zero the
audited coordinate) and peeling selects both (``select = sparsity = 2``); its selection is then trivial, so
``selection_share = 0.1`` moves budget to the Gaussian values, whose calibration (zCDP split, multiplier,
sensitivities) is the part a statistic on the estimates can see; FLIPHAT peels one coordinate
(``sparsity = 1``: at d = 2 with s = 2 both coordinates are always selected and half the budget goes to the
unaudited one; its accountant then calibrates one round of selection and value, what the statistic reads);
``private`` gets a declared
``reward_range`` (fixed centre and clip, as the harness passes from a bounded environment: its default
centre, the released mean reward, would move the reference with the warm-up's rewards) and its ``none``
layout (``second_moments = "none"``, the layout its public rule picks at large d: no second-moment block, so
``moments`` holds 0.837 of the budget instead of 0.585 next to the pooled Gram, and a double release of it
is visible) with the coordinate screen off (``fdr = 0.999``: at d = 2 the screen would often drop the audited
coordinate, as screening's threshold would); the moments' calibration (PLD multiplier, sensitivity ``2 C B``,
share) is the shipped code's. ``private-pooled`` runs ``private`` with nothing but the declared
``reward_range``, its backfitted intercepts and its exploration off (``_NO_INTERCEPTS``,
``_NO_EXPLORATION``) and the pooled Gram named (the layout its
public rule picks wherever per-model Grams' noise outweighs the pooled Gram's bias; at K = d = 2 the rule picks
per-model Grams, issue 40), and the estimate played is
chosen privately (the ``selection`` block, released with the rest; in a few runs per thousand the screened
estimate is played). Under the reward flip the pooled Gram does not move and the selection block moves only
through the user's own loss difference (it decides one binary choice the probes barely see), so the
statistic still reads ``moments`` (0.585 of the budget); the audit checks that the whole default release,
these two blocks' noise in the estimate included, stays within the claim, and that a quarter of every
block's noise (:func:`weaken` divides the release's one multiplier) is flagged.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpbandit.agents import AGENTS, agent_class
from dpbandit.audit.core import AuditCase, register
from dpbandit.privacy.release import BlockGaussianRelease

__all__ = [
    "AGENT_NAMES", "DESIGNS", "DESIGN_NAMES", "PROBES", "VARIANTS", "Design", "agent_name", "probes",
    "streams", "visible_shift", "weaken",
]

ARMS, DIM = 2, 2
EPSILON, DELTA = 2.0, 1e-2
#: Probe grid t_i (module docstring): 0.6% relative steps from 10^-4 to 16, both signs.
PROBES = 2e-4 * np.sinh(np.linspace(-12.0, 12.0, 4001))
VARIANTS = ("calibrated", "noise-divided-by-4", "user-released-twice")
#: Every batched agent of the registry.
AGENT_NAMES = tuple(sorted(n for n, target in AGENTS.items()
                           if target.startswith("dpbandit.agents.batched.")))

Group = tuple[np.ndarray, tuple[float, float], int]  # (context, every arm's reward, number of rows)
E0, E1 = np.eye(DIM)


@dataclass(frozen=True)
class Design:
    """Fixed warm-up batches (played once into the template) and the main batch's rows after the user."""

    main: tuple[Group, ...]
    warm: tuple[tuple[Group, ...], ...] = ()
    reward: float = 10.0  #: the audited user's |reward| (beyond the reward clip, or the declared half-width)
    options: dict[str, Any] = field(default_factory=dict)
    #: The registry name of the agent run (default: the design's own key in ``DESIGNS``, an agent name).
    agent: str | None = None

    @property
    def size(self) -> int:
        """Rounds of every batch: the audited user plus the main rows."""
        return 1 + sum(count for _, _, count in self.main)


def _gram_warm(big: float) -> tuple[Group, ...]:
    """Per-arm warm-up: public second moments along e_0 and e_1 (rows of norm 10 with rewards 0 and +-big,
    whose ``sum x b`` cancels), a small reference theta_1 from ``e_1`` rows at reward 1, fillers."""
    reward = 1.0
    return ((10 * E0, (0, 0), 16), (10 * E1, (0, 0), 16),
            (10 * E0, (big, big), 8), (10 * E0, (-big, -big), 8), (10 * E1, (big, big), 8),
            (10 * E1, (-big, -big), 8), (E1, (reward, reward), 31), (0.01 * E1, (big, big), 32))


_A = 63  # anchors (and fillers or references) of a per-arm main batch
_GRAM_MAIN = ((10 * E0, (0, 0), _A), (0.01 * E1, (10, 10), _A))
_SUMS_MAIN = ((10 * E0, (0, 0), _A), (E1, (10, 10), _A))
_A0, _A1 = 31, 64  # disjoint main batch: rows of each kind going to arm 0 and to arm 1
_TILT = 10.0 / math.sqrt(10.0) * (3 * E0 - E1)  # norm 10, mostly along e_0, goes to arm 1 after warm-up 2
_N = 1 + 2 * _A0 + 2 * _A1
_DISJOINT_MAIN = ((10 * E0, (0, 0), _A0), (E1, (10, -10), _A0), (_TILT, (0, 0), _A1), (-E1, (-10, 10), _A1))
_DISJOINT_WARM = (((10 * E0, (0.1, -0.1), _N // 2), (E1, (10, -10), _N - _N // 2)),
                  ((_TILT, (0, 0), _N // 2), (-E1, (-10, 10), _N - _N // 2)))
#: ``private`` at its defaults (the pooled Gram; module docstring): arm 1's rows along e_0 are ``-10 e_0``
#: (the pooled Gram is shared, so only arm 1's count matters, and ``-10 e_0`` goes to arm 1 whenever the
#: user's row goes to arm 0), and the reference along e_1 is small (rewards +-2.5: the pooled Gram's
#: off-diagonal noise times the reference enters the probes' ratio); warm-up 1's tilt 1 along e_0 keeps every
#: row's arm in the second copy of ``/user-released-twice``.
_POOLED_MAIN = ((10 * E0, (0, 0), _A0), (E1, (2.5, -2.5), _A0), (-10 * E0, (0, 0), _A1),
                (-E1, (-2.5, 2.5), _A1))
_POOLED_WARM = (((10 * E0, (1.0, -1.0), _N // 2), (E1, (2.5, -2.5), _N - _N // 2)),
                ((-10 * E0, (0, 0), _N // 2), (-E1, (-2.5, 2.5), _N - _N // 2)))
#: DP-HDB: the warm-up leaves both arms leaning to +e_0, arm 1 ahead: the audited user plays arm 1 alone, the
#: main rows (-5 e_0 + 10 e_1) play arm 0 and decide its vertex choices (a near-fixed reference).
_DPHDB = Design(main=((10.0 * (E1 - 0.5 * E0), (-10, 10), 96),),
                warm=(((10 * E0, (10, -10), 32), (10 * E0, (0, 0), 65)),))
#: FLIPHAT (sparsity 1; each episode refits from its own data): two rows at reward -R on the audited
#: coordinate put the released value just below 0 under D and 2 C B lower under D' (a Laplace tail).
_FLIPHAT = Design(main=((10 * E0, (-10, -10), 2),), options={"sparsity": 1})
#: FLIPHAT disjoint: the warm-up sends ``e_0`` rows to arm 0 and ``-e_1`` rows to arm 1; in the main
#: batch arm 1 selects ``e_1`` with a large value (the reference), arm 0 holds the audited coordinate.
_FLIPHAT_DISJOINT = Design(main=((10 * E0, (-10, 10), 2), (-10 * E1, (-10, 10), 29)),
                           warm=(((10 * E0, (10, 0), 20), (10 * E1, (0, -10), 12)),), options={"sparsity": 1})

#: Explore-then-commit: no warm-up (its one release is the first batch's); the user and 126 rows at reward 0
#: explore on coin-flip arms; the probes read which arm it commits to (a sign test on the released sums).
_ETC = Design(main=((10 * E0, (0, 0), 2 * _A),))
#: ``private``'s backfitted intercepts (issue 29, the default under a declared range) are off in both of its
#: designs: their noise moves every probe's threshold by the released intercept difference, which drowns the
#: moments' shift the statistic reads (a quarter of the noise was no longer flagged at 1,000 runs). Their
#: ``predictions`` block is checked by brute force, on its drawn noise, on the release path
#: (tests/agents/batched/test_release_sensitivity.py) and by its mutants instead.
_NO_INTERCEPTS = {"intercept": "none"}
#: ``private-pooled``'s exploration of the starved arms in contention is off (issue 40 item 3, ``certify=None``):
#: its per-user coin flips would send the second copy of the main batch to other arms than the first (the design
#: plays the same arms twice); it is post-processing of released counts and sums and the agent's own draws,
#: checked by replay (tests/agents/batched/test_elimination.py).
_NO_EXPLORATION = {"certify": None}
#: ``private``'s layout for the audit (module docstring): isotropic second moments, screen off.
_PRIVATE = {"second_moments": "none", "fdr": 0.999, **_NO_INTERCEPTS}
#: The stream of each agent (module docstring).
DESIGNS: dict[str, Design] = {
    "batched-screening": Design(_DISJOINT_MAIN, _DISJOINT_WARM, options={"threshold": 0.0}),
    "batched-ridge": Design(_DISJOINT_MAIN, _DISJOINT_WARM),
    "batched-peeling": Design(_DISJOINT_MAIN, _DISJOINT_WARM,
                              options={"select": 2, "sparsity": 2, "threshold": 0.0, "selection_share": 0.1}),
    "private": Design(_DISJOINT_MAIN, _DISJOINT_WARM, options={"reward_range": (-10.0, 10.0), **_PRIVATE}),
    "batched-screening-perarm": Design(_SUMS_MAIN, (_SUMS_MAIN + ((E1, (10, 10), 1),),),
                                       options={"threshold": 0.0}),
    "batched-ridge-perarm": Design(_GRAM_MAIN, (_gram_warm(10.0),) * 4),
    "batched-peeling-perarm": Design(_GRAM_MAIN, (_gram_warm(10.0),) * 4,
                                     options={"select": 2, "sparsity": 2, "threshold": 0.0,
                                              "selection_share": 0.1}),
    "private-perarm": Design(((10 * E0, (0, 0), _A), (0.01 * E1, (1, 1), _A)), (_gram_warm(1.0),) * 4,
                             reward=1.0, options={"reward_range": (-1.0, 1.0), **_PRIVATE}),
    "private-pooled": Design(_POOLED_MAIN, _POOLED_WARM, agent="private",
                             options={"reward_range": (-10.0, 10.0), "second_moments": "pooled",
                                      **_NO_INTERCEPTS, **_NO_EXPLORATION}),
    "private-etc": _ETC,
    "fliphat": _FLIPHAT,
    "fliphat-disjoint": _FLIPHAT_DISJOINT,
    "dphdb-batched": _DPHDB,
}
#: The agents' audit options (module docstring: why each is legitimate).
OPTIONS: dict[str, dict[str, Any]] = {name: d.options for name, d in DESIGNS.items() if d.options}
#: Every design (one per batched agent, plus further layouts of one agent such as ``private-pooled``): the
#: cases are ``whole-agent/<design>/<variant>``.
DESIGN_NAMES = tuple(sorted(DESIGNS))


def agent_name(name: str) -> str:
    """The registry name of the agent that design ``name`` runs."""
    return DESIGNS[name].agent or name


def weaken(agent: Any, factor: float) -> None:
    """Divide every noise scale of ``agent`` by ``factor`` in place (its claimed epsilon is unchanged)."""
    done = False
    if isinstance(getattr(agent, "release", None), BlockGaussianRelease):
        agent.release.multiplier /= factor
        done = True
    if hasattr(agent, "selection_epsilon"):
        agent.selection_epsilon *= factor
    budget = getattr(agent, "budget", None)
    if budget is not None and hasattr(budget, "eps_s"):
        budget.eps_s *= factor
        budget.eps_q *= factor
        done = True
    if callable(getattr(agent, "multiplier", None)) and hasattr(agent, "sensitivity"):
        calibrated = agent.multiplier
        agent.multiplier = lambda iterations: calibrated(iterations) / factor
        done = True
    if not done:
        raise NotImplementedError(f"No noise scale known for {type(agent).__name__}: extend weaken().")


def _per_arm(name: str) -> bool:
    return agent_class(agent_name(name)).observation_model == "per_arm"


def _rows(groups: tuple[Group, ...], per_arm: bool) -> tuple[np.ndarray, np.ndarray]:
    """Contexts (per-arm: ``X[1] = X[0] / 2``, the same clipped row) and every arm's rewards of ``groups``."""
    contexts, rewards = [], []
    for context, reward, count in groups:
        x = np.asarray(context, dtype=float)
        contexts += [np.stack([x, x / 2.0]) if per_arm else x] * count
        rewards += [np.asarray(reward, dtype=float)] * count
    return np.stack(contexts), np.stack(rewards)


def streams(name: str, sign: float, twice: bool) -> tuple[np.ndarray, np.ndarray]:
    """The main batch of ``name`` (audited user first, reward sign ``sign``), twice over if ``twice``."""
    design, per_arm = DESIGNS[name], _per_arm(name)
    r = design.reward * sign
    user = ((10 * E0, (r, r) if per_arm else (r, -r), 1),)
    X, R = _rows(user + design.main, per_arm)
    return (np.concatenate([X, X]), np.concatenate([R, R])) if twice else (X, R)


@functools.lru_cache(maxsize=64)
def _template(name: str) -> Any:
    """The agent (seed 0) after the design's warm-up batches: the fixed public history of every run."""
    design = DESIGNS[name]
    horizon = (len(design.warm) + 2) * design.size  # the warm-up, then the main batch at most twice
    cls = agent_class(agent_name(name))
    ratio = {} if getattr(cls, "single_release", False) else {"batch_ratio": 1.0}  # explore-then-commit: none
    agent = cls(ARMS, DIM, rng=np.random.default_rng(0), horizon=horizon, epsilon=EPSILON, delta=DELTA,
                first_batch=design.size, **ratio, **design.options)
    for groups in design.warm:
        if sum(count for _, _, count in groups) != design.size:
            raise ValueError(f"{name}: every warm-up batch must have the main batch's {design.size} rows.")
        agent.play_block(*_rows(groups, _per_arm(name)))
    return agent


def _agent(name: str, rng: np.random.Generator, factor: float) -> Any:
    """A fresh copy of the template whose randomness is ``rng`` (streams spawned as ``BatchedAgent.__init__``
    does), noise scales divided by ``factor``."""
    agent = copy.deepcopy(_template(name))
    agent.rng = rng
    agent.noise_rng, agent._tie_rng = rng.spawn(2)
    if hasattr(agent, "_explore_rng"):  # PrivateAgent's Thompson stream (unused at exploration 0)
        (agent._explore_rng,) = agent.noise_rng.spawn(1)
    if factor != 1.0:
        weaken(agent, factor)
    return agent


def probes(per_arm: bool) -> np.ndarray:
    """Probe ``i``: ``e_0 - t_i e_1`` (per-arm ``X[0] = e_0``, ``X[1] = t_i e_1``) divided by
    ``max(1, |t_i|)``: every coordinate in ``[-1, 1]`` (inside DP-HDB's context clip), no greedy arm moved."""
    scale = np.maximum(1.0, np.abs(PROBES))[:, None]
    if per_arm:
        first = np.broadcast_to(E0, (len(PROBES), DIM)) / scale
        return np.stack([first, PROBES[:, None] * E1 / scale], axis=1)
    return (E0 - PROBES[:, None] * E1) / scale


def _mechanism(name: str, factor: float, twice: bool
               ) -> Callable[[np.random.Generator, float, int], np.ndarray]:
    grid = probes(_per_arm(name))

    def run(rng: np.random.Generator, sign: float, n_runs: int) -> np.ndarray:
        X, R = streams(name, sign, twice)
        out = np.empty(n_runs)
        for i, child in enumerate(rng.spawn(n_runs)):
            agent = _agent(name, child, factor)
            agent.play_block(X, R)
            scores = agent.scores(agent._observations(grid))
            # the probes' greedy arms (an exact tie, e.g. theta = 0, is the agent's coin flip: counted 1/2)
            out[i] = np.mean(scores[:, 0] > scores[:, 1]) + 0.5 * np.mean(scores[:, 0] == scores[:, 1])
        return out

    return run


#: The released block the statistic reads, per Gaussian-release agent family.
_READ_BLOCKS = ("sums", "moments", "values")


def visible_shift(name: str) -> float:
    """Gaussian shift / noise std of the one released coordinate the statistic reads, calibrated agent:
    ``2 C B / sigma = sqrt(share) / z`` for the ``sums``/``moments`` blocks (the neighbour moves one
    coordinate by the block's whole sensitivity ``2 C B``), ``/ sqrt(select)`` for peeling's ``values``
    (sensitivity ``2 sqrt(|S|) X B``, one coordinate moves by ``2 X B``); ``nan`` for FLIPHAT (Laplace) and
    DP-HDB (exponential mechanism). An optimal statistic on that coordinate proves at most the epsilon of a
    Gaussian mechanism with this shift (times 4 with a quarter of the noise, sqrt 2 released twice)."""
    release = getattr(_template(name), "release", None)
    if not isinstance(release, BlockGaussianRelease):
        return math.nan
    block = next(b for b in _READ_BLOCKS if b in release.shares)
    per_coordinate = 1.0 / math.sqrt(_template(name).select) if block == "values" else 1.0
    return math.sqrt(release.shares[block]) / release.multiplier * per_coordinate


def _case(name: str, variant: str) -> AuditCase:
    factor = 4.0 if variant == "noise-divided-by-4" else 1.0
    twice = variant == "user-released-twice"
    single = getattr(agent_class(agent_name(name)), "single_release", False)  # the second copy is not learned
    claim = _agent(name, np.random.default_rng(0), 1.0).privacy
    design = DESIGNS[name]
    label = name if agent_name(name) == name else f"{agent_name(name)} (design {name})"
    return AuditCase(
        name=f"whole-agent/{name}/{variant}", mechanism=_mechanism(name, factor, twice), dataset=1.0,
        neighbour=-1.0, claimed_epsilon=claim.epsilon, delta=DELTA,
        accountant_epsilon=claim.epsilon if variant == "calibrated" else math.nan,
        accountant=claim.accountant,
        expect="pass" if variant == "calibrated" or (twice and single) else "flag",
        notes=f"{label} (K = {ARMS}, d = {DIM}, batches of {design.size}, {len(design.warm)} fixed warm-up "
        f"batches, epsilon {EPSILON:g}, delta {DELTA:g}" + (f", {design.options}" if design.options else "")
        + f"); statistic: fraction of the {len(PROBES)} later probe users assigned to arm 0; neighbours: the "
        "audited user's reward at +B vs -B"
        + ("; noise scales divided by 4" if factor != 1.0 else "")
        + ("; the main batch (with the audited user) released twice" if twice else ""),
    )


def _register(name: str, variant: str) -> None:
    register(f"whole-agent/{name}/{variant}")(lambda: _case(name, variant))


for _name in DESIGN_NAMES:
    for _variant in VARIANTS:
        _register(_name, _variant)
