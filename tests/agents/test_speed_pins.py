"""Same seed, same numbers through issue 31's speed work (item 4 at d = 5000 and item 3's costly agents):
the agents whose per-round code was made faster give, bit for bit, the numbers they gave before.

The pinned values were printed by commit 82451ac (before the speed changes) with this file's settings
(root seed 11, two seeds, the harness's block path).
"""

from __future__ import annotations

import pytest

from dpbandit.agents import agent_class
from dpbandit.harness import run

# agent -> (environment, run options)
CASES = {
    "dphdb-batched": ("dpbandit/HDBSection54-v0", {"horizon": 3000, "env_kwargs": {"dim": 40, "n_arms": 3}}),
    "fliphat-disjoint": (
        "dpbandit/HDBSection54-v0", {"horizon": 3000, "env_kwargs": {"dim": 40, "n_arms": 3}}
    ),
    "dphdb": ("dpbandit/HDBSection54-v0", {"horizon": 1500, "env_kwargs": {"dim": 20, "n_arms": 3}}),
    "linucb": ("dpbandit/HDBSection54-v0", {"horizon": 1500, "env_kwargs": {"dim": 12, "n_arms": 3}}),
    "greedy": ("dpbandit/HDBSection54-v0", {"horizon": 1500, "env_kwargs": {"dim": 12, "n_arms": 3}}),
    "shared-linucb": ("dpbandit/HDBSection54-v0", {"horizon": 600, "env_kwargs": {"dim": 8, "n_arms": 3}}),
    "oful": ("dpbandit/HDBSection54-v0", {"horizon": 600, "env_kwargs": {"dim": 8, "n_arms": 3}}),
    "dpucb": ("dpbandit/HDBSection54-v0", {"horizon": 600, "env_kwargs": {"dim": 6, "n_arms": 2}}),
    "dpucb-disjoint": ("dpbandit/HDBSection54-v0", {"horizon": 600, "env_kwargs": {"dim": 6, "n_arms": 3}}),
}

# agent -> {seed: (final cumulative regret, cumulative reward, rounds on an optimal arm)} (commit 82451ac)
PINS = {
    "dphdb-batched": {
        0: (283.6434338805259, 165.2528305897306, 1435.0),
        1: (417.9439027284793, 59.17596483241992, 1142.0),
    },
    "fliphat-disjoint": {
        0: (441.95194302584656, 10.05466258607948, 1057.0),
        1: (432.6793588882917, 37.783585760871674, 1096.0),
    },
    "dphdb": {
        0: (211.56679987233946, 18.25450144385249, 550.0),
        1: (194.9715435091347, 23.265502922114887, 558.0),
    },
    "linucb": {
        0: (8.397834932412163, 194.49952818604663, 1378.0),
        1: (7.946104944151359, 212.36030465832278, 1398.0),
    },
    "greedy": {
        0: (4.251664072749813, 198.47667992722612, 1421.0),
        1: (5.382320617402607, 214.81552867627272, 1423.0),
    },
    "shared-linucb": {
        0: (6.100486641947817, 67.67388149398798, 511.0),
        1: (5.914520452084699, 84.8837575382125, 525.0),
    },
    "oful": {
        0: (9.342167022355495, 64.83492998165742, 482.0),
        1: (10.19529029349355, 80.65298666941273, 485.0),
    },
    "dpucb": {
        0: (38.92099061720338, 4.132761717335462, 310.0),
        1: (45.167856889366604, 4.069015482664716, 273.0),
    },
    "dpucb-disjoint": {
        0: (38.80227657928807, 4.601946411178668, 316.0),
        1: (64.50349144039352, 4.655937411078265, 202.0),
    },
}
# agent -> sums of cumulative regret and of cumulative reward over every recorded row (the whole curves)
CHECKSUMS = {
    "dphdb-batched": (3049.541101869378, 464.4998126094052),
    "fliphat-disjoint": (3407.0903994396735, 91.8305025764376),
    "dphdb": (1595.353298788171, 231.52040973117082),
    "linucb": (176.03259332784242, 1546.861763453907),
    "greedy": (111.36487610404976, 1613.978759356332),
    "shared-linucb": (119.25893668159227, 567.4129402131406),
    "oful": (168.11250533592923, 521.5739933263865),
    "dpucb": (359.279427307299, 21.99065327217511),
    "dpucb-disjoint": (457.1477610984609, 13.724927951341467),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_numbers_are_those_before_the_speed_work(name: str) -> None:
    env, options = CASES[name]
    frame = run(env, {name: agent_class(name)}, n_seeds=2, root_seed=11, progress=False, n_points=20,
                **options)
    last = frame.groupby("seed")[["cumulative_regret", "cumulative_reward", "cumulative_optimal"]].last()
    assert {int(seed): tuple(float(v) for v in row) for seed, row in last.iterrows()} == PINS[name]
    sums = (float(frame["cumulative_regret"].sum()), float(frame["cumulative_reward"].sum()))
    assert sums == CHECKSUMS[name]
