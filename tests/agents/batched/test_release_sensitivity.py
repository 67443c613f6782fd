"""The release path: each block a batched agent releases moves, between neighbouring batches, by at most the
sensitivity the agent states for it.

Issue 32. The calibration tests pin each stated sensitivity to its formula and the drawn noise to the
stated sensitivity; nothing checked that the values an agent actually hands to a release move by at most
what it states (a copy of ``private`` releasing its ``moments`` block at twice its value passed every privacy
test). Here every batched agent of the registry (any ``dpbandit.agents.batched`` entry of ``AGENTS``: agents
and blocks added later are covered) plays the same stream through its own ``play_block`` / end-of-batch code,
except for one user's record, replaced by each of :func:`_records` (extreme contexts and rewards in opposite
directions, zero, a huge outlier, so the played arm changes too). A spy on every mechanism that takes a
stated sensitivity records the exact, pre-noise values it receives:

* :meth:`dpbandit.privacy.release.BlockGaussianRelease.release`: per block, the l2 change against the block's
  stated l2 sensitivity;
* :func:`dpbandit.privacy.rnm.top_k_exponential` and :func:`~dpbandit.privacy.rnm.exponential_mechanism`: the
  largest change of any score against the stated (l_inf) sensitivity;
* :func:`dpbandit.privacy.peeling.peel` (FLIPHAT's N-IHT steps): the largest change of a coordinate against
  ``lam = scale / z``, with the episode's public noise multiplier ``z``.

For every pair of records (replace-one neighbours), a release is compared when every release before it, spied
or not (the :class:`~dpbandit.privacy.recording.ReleaseRecorder` sees them all), gave the same output in both
runs: the agent's public state is then the same and its inputs differ only through the replaced record. Such a
release must be one of the user's own batch, and each of its blocks must move by at most its stated
sensitivity; a changed release of a later batch would mean the record reached it outside the releases.
Ties between arms are broken by a fixed rule here (:class:`_FirstBest`: the agents' tie generator draws once
per tied row, which the same-seed coupling of two neighbours cannot follow).

Not checked: FLIPHAT's adaptive-clipping counts, released inline (``_inside + laplace(...)``, sensitivity 1
each), and ``dphdb-batched``'s Frank-Wolfe vertex choices (:func:`dpbandit.optim.pofw.private_vertex` takes
scores already divided by the temperature); releases after those, in the same batch, are then not compared.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpbandit.agents import AGENTS, agent_class
from dpbandit.privacy import peeling, recording, rnm
from dpbandit.privacy.recording import ReleaseRecorder
from dpbandit.privacy.release import BlockGaussianRelease

pytestmark = pytest.mark.privacy

BATCHED = sorted(name for name, target in AGENTS.items() if target.startswith("dpbandit.agents.batched."))
#: Batched agents whose releases go through no mechanism with a stated sensitivity (module docstring).
ARMS, DIM, FIRST = 3, 6, 16
T = FIRST + 2 * FIRST + 4 * FIRST  # three batches
#: Positions of the replaced user: in the first batch (initial clips) and the second (clips from a release).
POSITIONS = (5, FIRST + 7)
COMMON = {"epsilon": 1.0, "delta": 0.01, "first_batch": FIRST}
#: Options as in test_postprocessing: FLIPHAT's clip counts on, and settings under which the selection
#: steps have candidates within a few batches.
OPTIONS = {"batched-peeling-perarm": {"threshold": 1.0}, "private-perarm": {"fdr": 0.9},
           "private": {"candidates": ("dense", "sparse", "constant")}}  # the whole portfolio
#: Relative slack for float rounding.
RTOL = 1e-9
#: A planted bug: wraps the release method (see :func:`_doubling`).
Plant = Callable[[Callable[..., Any]], Callable[..., Any]]


def _records(shape: tuple[int, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Replacement records ``(context, every arm's reward)``: each context direction at a huge scale, its
    opposite, zero and a dense outlier, with rewards huge of either sign, zero, or alternating."""
    e = np.zeros(shape)
    e[..., 0] = 1.0
    dense = np.ones(shape) / np.sqrt(shape[-1])
    alternating = np.where(np.arange(ARMS) % 2 == 0, 1.0, -1.0)
    big = 1e3
    contexts = [
        big * e,
        -big * e,
        big * dense,
        -big * dense,
        np.zeros(shape),
        big * np.random.default_rng(3).standard_normal(shape),
    ]
    rewards = [big * np.ones(ARMS), -big * np.ones(ARMS), np.zeros(ARMS), big * alternating]
    return [(x, r) for x in contexts for r in rewards]


class _Spy:
    """Records, in call order, ``(kind, values {block: array}, sensitivity {block: float}, norm, round,
    position)`` of every release with a stated sensitivity, then calls the real mechanism; ``round`` is the
    agent's rounds played (its batch end), ``position`` the release's index among all of the run's releases
    (the recorder's)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.calls: list[tuple[str, dict[str, np.ndarray], dict[str, float], str, int, int]] = []

    def gaussian(self, real: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(real)
        def release(
            obj: BlockGaussianRelease, rng: np.random.Generator, values: Any, sensitivities: Any
        ) -> Any:
            self.calls.append(
                (
                    "gaussian",
                    {k: np.array(v, dtype=float) for k, v in values.items()},
                    dict(sensitivities),
                    "l2",
                    self.agent.round,
                    recording.ACTIVE.position,
                )
            )
            return real(obj, rng, values, sensitivities)

        return release

    def scores(self, real: Callable[..., Any], kind: str) -> Callable[..., Any]:
        @functools.wraps(real)
        def mechanism(rng: np.random.Generator, scores: Any, *args: Any, **kwargs: Any) -> Any:
            sensitivity = kwargs.get("sensitivity", args[-1] if args else None)
            self.calls.append(
                (
                    kind,
                    {"scores": np.array(scores, dtype=float)},
                    {"scores": float(sensitivity)},
                    "linf",
                    self.agent.round,
                    recording.ACTIVE.position,
                )
            )
            return real(rng, scores, *args, **kwargs)

        return mechanism

    def peel(self, real: Callable[..., Any]) -> Callable[..., Any]:
        """FLIPHAT's peeling: each coordinate of ``vector`` moves by at most ``lam = scale / z``, with the
        episode's noise multiplier ``z`` (public: a function of its size; :mod:`dpbandit.privacy.peeling`)."""

        @functools.wraps(real)
        def peel(rng: np.random.Generator, vector: Any, count: int, scale: float | None) -> Any:
            if scale is not None:
                agent = self.agent
                z = agent.multiplier(agent.iterations(agent.batch_size))
                self.calls.append(
                    (
                        "peel",
                        {"vector": np.array(vector, dtype=float)},
                        {"vector": scale / z},
                        "linf",
                        agent.round,
                        recording.ACTIVE.position,
                    )
                )
            return real(rng, vector, count, scale)

        return peel


def _spy_on(monkeypatch: pytest.MonkeyPatch, agent: Any, plant: Plant | None = None) -> _Spy:
    """Wrap the release method and every score mechanism, also where ``module`` imported them by name;
    ``plant`` (a test's bug) wraps the release on top of the spy, so the spy sees what ``plant`` passes on."""
    spy, module = _Spy(agent), importlib.import_module(type(agent).__module__)
    monkeypatch.setattr(BlockGaussianRelease, "release", spy.gaussian(BlockGaussianRelease.release))
    if plant is not None:
        monkeypatch.setattr(BlockGaussianRelease, "release", plant(BlockGaussianRelease.release))
    monkeypatch.setattr(peeling, "peel", spy.peel(peeling.peel))
    for name in ("top_k_exponential", "exponential_mechanism"):
        real = getattr(rnm, name)
        wrapped = spy.scores(real, name)
        monkeypatch.setattr(rnm, name, wrapped)
        for holder in (module, *_batched_modules()):
            if getattr(holder, name, None) is real:
                monkeypatch.setattr(holder, name, wrapped)
    return spy


@functools.cache
def _batched_modules() -> tuple[Any, ...]:
    return tuple(importlib.import_module(AGENTS[n].partition(":")[0]) for n in BATCHED)


def _stream(observation_model: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    shape = (T, DIM) if observation_model == "shared" else (T, ARMS, DIM)
    X = rng.standard_normal(shape) / np.sqrt(DIM)
    theta = rng.normal(size=(ARMS, DIM))
    means = X @ theta.T if observation_model == "shared" else X @ theta[0]
    return X, means + 0.1 * rng.standard_normal((T, ARMS))


def _releases(
    name: str, X: np.ndarray, R: np.ndarray, monkeypatch: pytest.MonkeyPatch, plant: Plant | None = None
) -> tuple[list, list]:
    """The spied releases of ``name`` (seed 7) playing ``(X, R)`` through its own ``play_block``, ties
    broken by :class:`_FirstBest`, and the outputs of every release (spied or not) in order."""
    cls = agent_class(name)
    agent = cls(ARMS, DIM, rng=np.random.default_rng(7), horizon=T, **COMMON, **OPTIONS.get(name, {}))
    agent._tie_rng = _FirstBest()
    spy = _spy_on(monkeypatch, agent, plant)
    try:
        with ReleaseRecorder() as recorder:
            agent.play_block(X, R)
    finally:
        monkeypatch.undo()
    return spy.calls, recorder.outputs


class _FirstBest:
    """Tie-breaking by a fixed public rule (the first best arm) in place of the agent's tie generator.

    The agent draws once per *tied* row, so a replaced user whose arms tie (a zero context, identical arm
    rows) shifts the draws of every later tied row. In law nothing changes (the later rows get i.i.d. uniform
    draws either way), but under this test's same-seed coupling the other users' actions would change too,
    and a neighbour would differ in more than one record."""

    def choice(self, best: np.ndarray) -> Any:
        return best[0]


def _same(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and a[1].keys() == b[1].keys() and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])


def _same_output(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if isinstance(a[1], dict):
        return a[1].keys() == b[1].keys() and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])
    return np.array_equal(a[1], b[1])


def _comparable(run: tuple[list, list], other: tuple[list, list]) -> list[tuple[tuple, tuple]]:
    """Pairs of spied releases made from the same public state: every release before them (spied or not)
    gave the same output in both runs, so their inputs differ only through the replaced record."""
    outputs = list(zip(run[1], other[1], strict=False))  # a differing count: the shorter run's end
    first = next((k for k, (a, b) in enumerate(outputs) if not _same_output(a, b)), len(outputs))
    return [(a, b) for a, b in zip(run[0], other[0], strict=False) if a[5] <= first and b[5] <= first]


def _excess(a: tuple, b: tuple) -> dict[str, tuple[float, float]]:
    """Blocks of two releases of one batch whose change exceeds the stated sensitivity: ``{block: (change,
    sensitivity)}``."""
    kind, values, sensitivity, norm = a[:4]
    assert b[0] == kind and b[2] == sensitivity, f"{kind}: the stated sensitivities differ between neighbours"
    out = {}
    for block, value in values.items():
        diff = np.abs(value - b[1][block])
        change = float(np.sqrt((diff**2).sum()) if norm == "l2" else diff.max(initial=0.0))
        if change > sensitivity[block] * (1 + RTOL):
            out[block] = (change, sensitivity[block])
    return out


def released_blocks_within_sensitivity(
    name: str, monkeypatch: pytest.MonkeyPatch, plant: Plant | None = None
) -> tuple[int, list[str]]:
    """Play ``name`` on every neighbour of :data:`POSITIONS` x :func:`_records`; return the number of pairs
    compared that changed a release, the number of pairs whose user enters a release, and every violation
    found (as text)."""
    observation_model = agent_class(name).observation_model
    X, R = _stream(observation_model)
    compared, entering, violations = 0, 0, []
    for position in POSITIONS:
        runs = []
        for x, r in _records(X.shape[1:]):
            X2, R2 = X.copy(), R.copy()
            X2[position], R2[position] = x, r
            runs.append(_releases(name, X2, R2, monkeypatch, plant))
        # the user's batch ends here; None: the user enters no release (a one-release agent's later rounds)
        batch_end = min((call[4] for call in runs[0][0] if call[4] > position), default=None)
        entering += 0 if batch_end is None else len(runs) * (len(runs) - 1) // 2
        for i in range(len(runs)):
            for j in range(i + 1, len(runs)):
                changed = False
                for a, b in _comparable(runs[i], runs[j]):
                    if _same(a, b):
                        continue
                    changed = True
                    where = f"user {position}, records {i}/{j}, {a[0]} release at round {a[4]}"
                    if a[4] != batch_end:
                        violations.append(
                            f"{where}: changed, though the user's batch ends at round {batch_end} (None: the "
                            "user enters no release) and every release before it gave the same output (a leak)"
                        )
                    for block, (change, bound) in _excess(a, b).items():
                        violations.append(f"{where}: {block} moved {change:.4g} > stated {bound:.4g}")
                compared += changed
    return compared, entering, violations


def test_every_batched_agent_is_covered() -> None:
    """The registry's batched agents are the ones parametrised below (new ones join automatically)."""
    assert {
        "private",
        "batched-screening",
        "batched-ridge",
        "batched-peeling",
        "dphdb-batched",
        "fliphat",
    } <= set(BATCHED)


@pytest.mark.parametrize("name", BATCHED)
def test_each_released_block_moves_at_most_its_stated_sensitivity(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared, entering, violations = released_blocks_within_sensitivity(name, monkeypatch)
    # power: the neighbours did reach the release path (a release differed for most pairs whose user enters
    # one; a one-release agent's later users enter none)
    assert entering and compared >= entering // 2, (
        f"{name}: only {compared} of {entering} neighbour pairs entering a release changed one"
    )
    assert not violations, f"{name}: " + "; ".join(violations[:5])


def _doubling(block: str) -> Plant:
    """The bug of issue 32: ``block`` released at twice its value, its stated sensitivity unchanged."""

    def plant(real: Callable[..., Any]) -> Callable[..., Any]:
        def release(
            obj: BlockGaussianRelease, rng: np.random.Generator, values: Any, sensitivities: Any
        ) -> Any:
            return real(
                obj, rng, {**values, block: 2.0 * np.asarray(values[block], dtype=float)}, sensitivities
            )

        return release

    return plant


@pytest.mark.parametrize(("name", "block"), [("private", "moments"), ("batched-ridge", "gram")])
def test_the_check_catches_a_block_released_at_twice_its_value(
    name: str, block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, violations = released_blocks_within_sensitivity(name, monkeypatch, _doubling(block))
    assert violations and all(f": {block} moved" in v for v in violations), violations[:3]
