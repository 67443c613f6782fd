"""Size guard of every agent: refuse at construction a run that would be huge or pathologically slow.

Issue 23 item 4 (the batched agents) and issue 31 item 4 (every registered agent): at d = 5000, K = 10 an agent
either runs within 2 GB at a few times random's time per round, or refuses when it is built, before it
allocates, saying what it would need and which agent to use instead (an agent that fits: tested for every
registered agent, tests/agents/test_sizes.py). Each agent states its own :class:`Footprint`
(``footprint()``, formulas in each class's docstring; ``BatchedAgent.footprint`` for the batched ones): the
bytes of its largest state, the floating-point work per round (amortised over the horizon: a per-batch fit of
``F`` operations costs ``F / T`` per round, summed over the batches that end within ``T``; without a horizon
the per-batch terms are left out, as they vanish on a long run of growing batches) and the floats of one
round's observation. :func:`check` refuses, before any allocation or calibration, when [Fill]:

* ``state_bytes > MAX_STATE_BYTES`` (2 GB, the issue's bound);
* ``work_per_round > WORK_RATIO * (n_arms * dim + ROUND_OVERHEAD)`` (100 times the environment's own round:
  its ``n_arms`` means of ``dim``-long products, or ``n_arms`` feature rows, plus the fixed cost of a round in
  Python counted as ``2^16`` operations, about 50 us at ~1 ns each): work far above it makes the agent many
  times slower than random play. Measured (docs/performance.md): ``batched-ridge`` at d = 300, K = 4
  (T = 3000: ratio 2.5) runs at 1.1x random's time; at d = 1000, K = 10 (ratio 103) at 26x;
* ``input_per_round > MAX_INPUT`` for per-arm agents (2^18 floats, 2 MiB, per round): block features of a
  shared context (``e_k (x) x_t``, ``K x dK`` floats per round) at d = 5000, K = 10 are 500,000 floats per
  round, 100 times the context; building and reading them alone costs more than 3x the environment's round.
  The project's per-arm settings are far below (FLIPHAT Setting 2: 3 x 4,000; Setting 5: 24 x 400).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MAX_INPUT", "MAX_STATE_BYTES", "ROUND_OVERHEAD", "WORK_RATIO", "Footprint", "check", "gigabytes", "reasons"
]

#: Largest state an agent may hold, bytes [Fill: the issue's 2 GB].
MAX_STATE_BYTES = 2e9
#: Largest amortised work per round, in multiples of the environment's round (module docstring) [Fill].
WORK_RATIO = 100.0
#: The fixed cost of one round of the environment in Python, in operations [Fill].
ROUND_OVERHEAD = 2**16
#: Largest observation of one round of a per-arm agent, floats (``n_arms * dim``) [Fill].
MAX_INPUT = 2**18
#: Bytes of one float64.
FLOAT = 8


@dataclass(frozen=True)
class Footprint:
    """What one run of an agent needs: ``state_bytes`` (its largest state), ``work_per_round`` (floating-point
    operations per round, amortised over the horizon) and ``input_per_round`` (floats of one observation)."""

    state_bytes: float
    work_per_round: float
    input_per_round: int


def gigabytes(n_bytes: float, limit: float = MAX_STATE_BYTES) -> str:
    """``n_bytes`` in GB, three significant digits, more when needed to tell it from ``limit`` (so a state
    just over 2 GB never reads "2 GB")."""
    for digits in range(3, 10):
        text = f"{n_bytes / 1e9:.{digits}g}"
        if (float(text) > limit / 1e9) == (n_bytes > limit):
            return text
    return text


def reasons(footprint: Footprint, *, n_arms: int, dim: int, per_arm: bool, limit_work: bool = True) -> list[str]:
    """The thresholds ``footprint`` is over (module docstring); empty when the run fits. ``limit_work=False``
    checks the state and the input only."""
    out = []
    if footprint.state_bytes > MAX_STATE_BYTES:
        out.append(f"state over {MAX_STATE_BYTES / 1e9:.3g} GB")
    ratio = footprint.work_per_round / (n_arms * dim + ROUND_OVERHEAD)
    if limit_work and ratio > WORK_RATIO:
        out.append(f"{ratio:.3g} times the environment's round of n_arms x dim + {ROUND_OVERHEAD} "
                   f"operations (limit {WORK_RATIO:.0f})")
    if per_arm and footprint.input_per_round > MAX_INPUT:
        out.append(f"n_arms x dim = {footprint.input_per_round:,} floats of features per round "
                   f"({footprint.input_per_round * FLOAT / 2**20:.3g} MiB; limit {MAX_INPUT:,})")
    return out


def check(
    name: str, footprint: Footprint, *, n_arms: int, dim: int, per_arm: bool, instead: str, limit_work: bool = True
) -> None:
    """Raise ``ValueError`` naming ``n_arms``, ``dim``, the memory and work ``name`` would need and
    ``instead`` (the agents to use) if ``footprint`` is over a threshold (module docstring; ``limit_work``
    as for :func:`reasons`)."""
    over = reasons(footprint, n_arms=n_arms, dim=dim, per_arm=per_arm, limit_work=limit_work)
    if over:
        raise ValueError(
            f"{name} refuses n_arms={n_arms}, dim={dim}: it would need {gigabytes(footprint.state_bytes)} GB "
            f"of state and {footprint.work_per_round:.3g} operations per round ({'; '.join(over)}). Use "
            f"{instead} instead (dpbandit.agents.size explains the limits)."
        )
