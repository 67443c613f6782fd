"""Helpers shared by the batched-agent tests: rounds from an env, a release recorder, a chi-square scale test."""

from __future__ import annotations

import numpy as np
from scipy import stats


def rounds(env_id: str, T: int, seed: int = 3, **kwargs):
    """The first ``T`` rounds of ``env_id`` (a RoundBlock)."""
    import gymnasium

    env = gymnasium.make(env_id, horizon=T, disable_env_checker=True, **kwargs)
    env.reset(seed=seed)
    return env.unwrapped.draw_rounds(T)


class Recorder:
    """Wraps an agent's release to record every (values, sensitivities, noisy output, clips, support sizes)."""

    def __init__(self, agent) -> None:
        self.agent, self.calls = agent, []
        inner = agent.release.release

        def release(rng, values, sensitivities):
            out = inner(rng, values, sensitivities)
            clips = (agent.clipping.context_clip, agent.clipping.reward_clip)
            sizes = [len(s) for s in getattr(agent, "_support", [])]
            record = ({k: np.array(v, float) for k, v in values.items()}, dict(sensitivities), out, clips, sizes)
            self.calls.append(record)
            return out

        agent.release.release = release


def assert_scale(unit: np.ndarray, z: float, name: str) -> None:
    """Chi-square test of N(0, z^2) draws: accepted at z, rejected at z/2 and 2z."""
    for factor, should_pass in ((1.0, True), (0.5, False), (2.0, False)):
        p = stats.chi2.sf(float(np.sum(unit**2)) / (factor * z) ** 2, unit.size)
        assert bool(2 * min(p, 1 - p) > 1e-3) is should_pass, (name, factor)


def statistics(agent, rows, models, rewards) -> dict[str, np.ndarray]:
    """Every block's exact value after observing one batch of rows (for brute-force sensitivity checks)."""
    agent._reset_batch()
    agent._observe(np.asarray(rows, float), np.asarray(models), np.asarray(rewards, float))
    return {**agent._statistics(), "counts": agent._counts.copy(),
            "context_inside": np.array(agent._context_inside), "reward_inside": np.array(agent._reward_inside)}
