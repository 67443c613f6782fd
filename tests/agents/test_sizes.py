"""Every registered agent at d = 5000, K = 10 (issue 31 item 4): it builds under a memory limit, or it refuses at
construction naming the memory it would need and alternatives that build at the same size.

One subprocess (address space capped with ``RLIMIT_AS`` at what it maps after the imports plus
:data:`LIMIT`) builds every agent of ``dpbandit.agents.AGENTS`` (agents registered later are covered) with the
harness's arguments on a shared-context environment: per-arm agents receive block features, ``dim = d K``. An
agent that allocated more than the limit before refusing would die with ``MemoryError`` and fail the test.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc and RLIMIT_AS")

D, K, T = 5000, 10, 100_000
#: The issue's 2 GB plus room for the interpreter's own allocations while building.
LIMIT = int(2.5 * 2**30)

CHILD = r"""
import json, resource, sys
import numpy as np
from dpbandit.agents import AGENTS, agent_class
from dpbandit.harness.checks import accepts_keyword

D, K, T, LIMIT = (int(v) for v in sys.argv[1:5])
classes = {name: agent_class(name) for name in AGENTS}  # imports first: they map code, not state
with open("/proc/self/statm") as statm:
    mapped = int(statm.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (mapped + LIMIT, resource.RLIM_INFINITY))

def build(name, per_arm_dim):
    cls = classes[name]
    kwargs = {"horizon": T} if accepts_keyword(cls, "horizon") else {}
    if accepts_keyword(cls, "reward_range"):
        kwargs["reward_range"] = (-10.0, 10.0)
    dim = per_arm_dim if getattr(cls, "observation_model", "shared") == "per_arm" else D
    try:
        cls(K, dim, rng=np.random.default_rng(0), **kwargs)
        return {"built": True, "dim": dim}
    except ValueError as error:
        return {"built": False, "dim": dim, "error": str(error)}
    except MemoryError as error:
        return {"built": False, "dim": dim, "error": "MemoryError: " + str(error)}

names = sys.argv[5:] or list(AGENTS)
print(json.dumps({name: build(name, D * K) for name in names}))
"""


def _build(*names: str) -> dict[str, dict]:
    command = [sys.executable, "-c", CHILD, str(D), str(K), str(T), str(LIMIT), *names]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _named_agents(message: str) -> list[str]:
    from dpbandit.agents import AGENTS

    advice = re.search(r"Use (.*) instead", message)
    assert advice, message
    return [word for word in re.findall(r"[a-z0-9][a-z0-9-]*", advice.group(1)) if word in AGENTS]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict]:
    return _build()


def test_every_agent_builds_or_refuses_naming_its_memory(outcomes) -> None:
    from dpbandit.agents import AGENTS

    assert set(outcomes) == set(AGENTS)
    for name, outcome in outcomes.items():
        if outcome["built"]:
            continue
        error = outcome["error"]
        assert not error.startswith("MemoryError"), f"{name} allocated before refusing: {error}"
        assert "refuses" in error and re.search(r"would need [0-9.]+ GB of state", error), (name, error)
        assert _named_agents(error), f"{name} names no registered alternative: {error}"
    # the cases: no silent 2 GB LinUCB, no numpy MemoryError from DP-UCB
    for name in ("linucb", "greedy", "shared-linucb", "oful", "dpucb", "dpucb-block", "dpucb-disjoint"):
        assert not outcomes[name]["built"], name
    assert outcomes["linucb-diag"]["built"] and outcomes["private"]["built"]


def test_refusals_name_alternatives_that_fit(outcomes) -> None:
    """Each alternative a refusal names builds at the same size: shared-context ones at d, per-arm ones at the
    refusing agent's per-arm size (skipped when the refusal is the per-arm input itself, which no per-arm agent
    takes: then at least one shared-context alternative is named)."""
    from dpbandit.agents import agent_class

    checked = 0
    for name, outcome in outcomes.items():
        if outcome["built"]:
            continue
        input_refused = "floats of features per round" in outcome["error"]
        named = _named_agents(outcome["error"])
        shared = [n for n in named if agent_class(n).observation_model == "shared"]
        per_arm = [n for n in named if agent_class(n).observation_model == "per_arm"]
        assert shared or not input_refused, (name, outcome["error"])
        for alternative in shared + ([] if input_refused else per_arm):
            assert outcomes[alternative]["built"], f"{name} points to {alternative}, which refuses as well"
            checked += 1
    assert checked >= 10


def test_messages_say_how_far_over() -> None:
    """FLIPHATDisjoint's state just over 2 GB is printed with the digits that show it (not "2 GB ... over 2
    GB"), and fliphat names fliphat-disjoint only where it fits."""
    outcome = _build("fliphat-disjoint", "fliphat")
    assert "would need 2.0004 GB of state" in outcome["fliphat-disjoint"]["error"]
    assert "fliphat-disjoint (" not in outcome["fliphat"]["error"]
