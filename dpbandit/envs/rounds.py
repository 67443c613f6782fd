"""Round generation for N lockstep replicates: streams, chunked buffer, block access, seeds.

Each replicate owns a root generator (Gymnasium's ``np_random``). :class:`BlockStream` holds the
part every environment shares (a buffer of drawn rounds, the current round, blocks of rounds, the
episode's end); a subclass says how an episode starts (:meth:`BlockStream._start`) and how the next
``m`` rounds are drawn (:meth:`BlockStream._draw`). :class:`RoundStream` is the GLM one: at every
reset it spawns three children (``Generator.spawn``) of each root: parameters, contexts, reward
noise. Rounds are drawn in chunks of ``chunk_rounds`` rounds; every stream consumes a fixed number
of draws per round in round order, and the maths is per round (see :mod:`dpbandit.envs.problem`), so the
numbers of round t do not depend on the chunk size, on ``N`` or on the actions taken (common random
numbers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from dpbandit import _validate
from dpbandit.envs.problem import GLMProblem

__all__ = ["DEFAULT_CHUNK_ELEMENTS", "BlockStream", "RoundBlock", "RoundStream", "replicate_seeds"]

#: Memory budget of one chunk, in float64 elements of the (N, m, K, d) product [Fill].
DEFAULT_CHUNK_ELEMENTS = 2**20
#: Upper bound on the rounds of one chunk (keeps reset cheap when K * d is small) [Fill].
MAX_CHUNK_ROUNDS = 1024


class RoundBlock(NamedTuple):
    """Consecutive rounds. Scalar env: leading axis m; vector env: leading axes (N, m).

    Attributes:
        observations: the contexts, ``(m, d)`` shared / ``(m, K, d)`` per-arm.
        expected_rewards: ``mu_{t,a}``, shape ``(m, K)``.
        rewards: realised reward of every arm, ``(m, K)`` (an agent sees only its arm's).
        user_ids: which person each round belongs to, ``(m,)`` int64, or ``None`` when the
            environment does not say (every GLM round is a new person).
    """

    observations: np.ndarray
    expected_rewards: np.ndarray
    rewards: np.ndarray
    user_ids: np.ndarray | None = None

    @property
    def optimal_actions(self) -> np.ndarray:
        """``argmax_a mu_{t,a}`` per round (lowest index on ties)."""
        return self.expected_rewards.argmax(axis=-1)

    def map(self, fn: Callable[[np.ndarray], Any]) -> RoundBlock:
        """The block with ``fn`` applied to every array field (``user_ids=None`` stays None)."""
        return RoundBlock(*(None if a is None else fn(a) for a in self))

    @staticmethod
    def concatenate(blocks: Sequence[RoundBlock], axis: int = 0) -> RoundBlock:
        """The blocks one after the other along ``axis`` (the rounds axis)."""
        fields = zip(*blocks, strict=True)
        return RoundBlock(*(None if a[0] is None else np.concatenate(a, axis=axis) for a in fields))


def replicate_seeds(seed: int, num_envs: int) -> list[int]:
    """Per-replicate integer seeds derived from one root seed (documented, public).

    ``SeedSequence(seed).spawn(num_envs)[i].generate_state(1, uint64)[0]``: statistically
    independent streams, unlike ``seed + i`` where (seed=0, replicate 1) and (seed=1,
    replicate 0) would coincide. A scalar env reset with ``replicate_seeds(s, N)[i]`` reproduces
    replicate ``i`` of the vector env reset with ``s``.
    """
    seed = _validate.integer(seed=seed, minimum=0)
    num_envs = _validate.integer(num_envs=num_envs, minimum=1)
    children = np.random.SeedSequence(seed).spawn(num_envs)
    return [int(child.generate_state(1, np.uint64)[0]) for child in children]


class BlockStream:
    """The per-episode state of N replicates advancing in lockstep: buffer, current round, blocks.

    ``problem`` needs ``horizon`` (rounds per episode). Subclasses implement :meth:`_start` and
    :meth:`_draw`; the numbers of a round must not depend on how rounds are chunked.
    """

    def __init__(self, problem: Any, num_envs: int, chunk_rounds: int) -> None:
        self.problem = problem
        self.num_envs = _validate.integer(num_envs=num_envs, minimum=1)
        self.chunk_rounds = _validate.integer(chunk_rounds=chunk_rounds, minimum=1)
        self.started = False
        self.t = 0
        self._buffer: RoundBlock | None = None
        self._pos = 0

    def _start(self, roots: Sequence[np.random.Generator]) -> None:
        """Start an episode from each replicate's root generator (spawn the streams)."""
        raise NotImplementedError

    def _draw(self, m: int) -> RoundBlock:
        """The next ``m`` rounds of every replicate, arrays ``(N, m, ...)``."""
        raise NotImplementedError

    def reset(self, roots: Sequence[np.random.Generator]) -> None:
        """Start a new episode in every replicate."""
        self._start(roots)
        self.started = True
        self.t = 0
        self._buffer = None
        self._pos = 0

    @property
    def remaining(self) -> int:
        """Rounds left in the episode."""
        return self.problem.horizon - self.t

    def _check_active(self) -> None:
        if not self.started:
            raise RuntimeError("Call reset() before drawing rounds.")
        if self.remaining == 0:
            raise RuntimeError(
                f"The episode is over (horizon={self.problem.horizon} rounds played); call reset()."
            )

    def _buffered(self) -> RoundBlock:
        """The buffer, refilled with the next chunk of rounds if it is used up."""
        if self._buffer is not None and self._pos < self._buffer.rewards.shape[1]:
            return self._buffer
        self._check_active()
        self._buffer = self._draw(min(self.chunk_rounds, self.remaining))
        self._pos = 0
        return self._buffer

    def current(self, replicate: int | None = None) -> RoundBlock:
        """Views of the round about to be played: ``(N, *obs)``, ``(N, K)``, ``(N, K)``, ``(N,)``; of one
        ``replicate`` only (``(*obs)``, ``(K,)``, ``(K,)``, ``()``) when given (indexed once, the scalar env's
        step)."""
        buffer = self._buffered()
        p = self._pos  # read after the refill, which restarts the position at 0
        at = (slice(None), p) if replicate is None else (replicate, p)
        return RoundBlock(*(None if a is None else a[at] for a in buffer))

    def advance(self) -> None:
        """Mark the current round as played."""
        self._pos += 1
        self.t += 1

    def take(self, m: int) -> RoundBlock:
        """The next ``m`` rounds as fresh arrays ``(N, m, ...)``; they count as played."""
        self._check_active()
        m = _validate.integer(m=m, minimum=1, maximum=self.remaining)
        pieces: list[RoundBlock] = []
        while m > 0:
            buffer = self._buffered()
            n = min(m, buffer.rewards.shape[1] - self._pos)
            sl = slice(self._pos, self._pos + n)
            pieces.append(buffer.map(lambda a, sl=sl: a[:, sl]))
            self._pos += n
            self.t += n
            m -= n
        return RoundBlock.concatenate(pieces, axis=1)


class RoundStream(BlockStream):
    """N replicates of one :class:`GLMProblem`: parameter, context and reward-noise streams."""

    def __init__(self, problem: GLMProblem, num_envs: int, chunk_rounds: int | None = None) -> None:
        if chunk_rounds is None:
            per_round = _validate.integer(num_envs=num_envs, minimum=1) * problem.n_arms * problem.dim
            chunk_rounds = max(1, min(MAX_CHUNK_ROUNDS, DEFAULT_CHUNK_ELEMENTS // per_round))
        super().__init__(problem, num_envs, chunk_rounds)
        self.theta: np.ndarray | None = None
        self._context_rngs: list[np.random.Generator] = []
        self._noise_rngs: list[np.random.Generator] = []

    def _start(self, roots: Sequence[np.random.Generator]) -> None:
        """Spawn (parameter, context, noise) streams from each root; draw the parameters."""
        children = [root.spawn(3) for root in roots]
        self.theta = np.stack([self.problem.sample_theta(c[0]) for c in children])
        self._context_rngs = [c[1] for c in children]
        self._noise_rngs = [c[2] for c in children]

    def _draw(self, m: int) -> RoundBlock:
        obs = np.stack([self.problem.sample_contexts(rng, m) for rng in self._context_rngs])
        means = self.problem.expected_rewards(obs, self.theta)
        rewards = self.problem.realise(means, self._noise_rngs)
        return RoundBlock(obs, means, rewards)
