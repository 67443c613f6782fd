"""Seeds for runs: everything derives from one root seed through ``numpy.random.SeedSequence``.

Run ``i`` of a comparison uses ``SeedSequence(root).spawn(n)[i]``; from it come the environment seed
(shared by every agent: common random numbers) and one generator per agent keyed by the agent's
*name*, not its position, so adding an agent to a comparison never changes another agent's draws.
"""

from __future__ import annotations

import zlib

import numpy as np

_ENV_KEY = 0
_AGENT_KEY = 1


def run_seeds(root_seed: int, n_seeds: int) -> list[np.random.SeedSequence]:
    """Return the ``n_seeds`` child seed sequences of ``root_seed`` (one per run)."""
    return np.random.SeedSequence(root_seed).spawn(n_seeds)


def _child(seq: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, *key))


def env_seed(seq: np.random.SeedSequence) -> int:
    """Integer seed for ``env.reset(seed=...)`` of the run ``seq`` (the same for every agent)."""
    return int(_child(seq, _ENV_KEY).generate_state(1, np.uint64)[0])


def agent_rng(seq: np.random.SeedSequence, agent_name: str) -> np.random.Generator:
    """The generator of agent ``agent_name`` in the run ``seq``."""
    return np.random.default_rng(_child(seq, _AGENT_KEY, zlib.crc32(agent_name.encode())))


def seed_sequence(root_seed: int, index: int) -> np.random.SeedSequence:
    """The run ``index`` of ``root_seed`` without spawning the others (equal to ``run_seeds(...)[index]``)."""
    return np.random.SeedSequence(root_seed, spawn_key=(index,))
