"""Record the outputs of every noisy release, or replay recorded outputs (post-processing tests, issue 24).

An agent is differentially private through post-processing: everything it carries from batch to batch (its
estimates, clips, thresholds, counts, hence its actions) must be a function of the *released* values and of
public data only, never of the exact statistics. The direct test fixes the releases and changes the data:
run an agent on one data stream while recording every release's output, then run it with the same seed on
a different stream while every release returns the recorded output instead of its own; a carried quantity that
still differs between the two runs read exact data (tests/agents/batched/test_postprocessing.py).

The releases report to this module through :func:`released`, called once on the output of
:meth:`dpbandit.privacy.release.BlockGaussianRelease.release`, :func:`dpbandit.privacy.rnm.report_noisy_max`,
``report_noisy_min``, ``exponential_mechanism``, ``top_k_exponential`` and
:func:`dpbandit.privacy.peeling.peel`. Production code pays one function call and one ``None`` check per
release (about 0.1 microseconds, against the microseconds to milliseconds of the release itself): the recorder
is ``None`` unless a test enters a :class:`ReleaseRecorder` (``with ReleaseRecorder() as rec:``).
A release called inside another (peel's report-noisy-max rounds) is recorded and replayed as well, in call
order, which is harmless: the outer release's output is replayed in the end.

In replay mode a release still draws its noise (the generator advances as in a normal run; a top-down
report-noisy-min, :mod:`dpbandit.privacy.topdown`, draws a data-dependent count of numbers, so after it the
streams of the two runs may part, which leaves every later release's law unchanged) and then returns
the recorded output; the kind and shape of every release must match the recording, else :class:`ReplayError`
(a release sequence whose length or shapes depend on exact data is itself a leak).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["ReleaseRecorder", "ReplayError", "released"]

#: The active recorder (``None`` in production: :func:`released` is then the identity).
ACTIVE: ReleaseRecorder | None = None


class ReplayError(RuntimeError):
    """A replayed run made a release that the recorded run did not make (kind, order or shape differ)."""


def _shape(output: Any) -> Any:
    if isinstance(output, dict):
        return {k: _shape(v) for k, v in output.items()}
    return getattr(output, "shape", ())


class ReleaseRecorder:
    """Context manager: record every release's output (``outputs=None``) or replay ``outputs`` in order.

    Attributes:
        outputs: ``[(kind, output), ...]`` in call order (a deep copy of each output when recording).
        replaying: True if built with recorded ``outputs``.
        position: releases seen so far in this context.
    """

    def __init__(self, outputs: list[tuple[str, Any]] | None = None) -> None:
        self.replaying = outputs is not None
        self.outputs: list[tuple[str, Any]] = [] if outputs is None else list(outputs)
        self.position = 0

    def __enter__(self) -> ReleaseRecorder:
        global ACTIVE
        if ACTIVE is not None:
            raise RuntimeError("A ReleaseRecorder is already active (recorders do not nest).")
        ACTIVE = self
        return self

    def __exit__(self, *exc: object) -> None:
        global ACTIVE
        ACTIVE = None

    def pass_through(self, kind: str, output: Any) -> Any:
        """Record ``output`` and return it, or return the recorded output of this release."""
        if not self.replaying:
            self.outputs.append((kind, copy.deepcopy(output)))
            self.position += 1
            return output
        if self.position >= len(self.outputs):
            raise ReplayError(f"Release {self.position} ({kind}) was not in the recorded run "
                              f"({len(self.outputs)} releases).")
        recorded_kind, recorded = self.outputs[self.position]
        if recorded_kind != kind or _shape(recorded) != _shape(output):
            raise ReplayError(f"Release {self.position}: recorded {recorded_kind} of shape "
                              f"{_shape(recorded)}, replayed {kind} of shape {_shape(output)}.")
        self.position += 1
        return copy.deepcopy(recorded)


def released(kind: str, output: Any) -> Any:
    """Hand a release's ``output`` to the active recorder (the identity when none is active)."""
    return output if ACTIVE is None else ACTIVE.pass_through(kind, output)
