"""Compiled inner loops (numba, ``cache=True``, cached in the per-user folder of
:mod:`dpbandit._numba_cache`, never in the package) of the built-in agents' ``play_block`` fast paths.

Each kernel runs the per-round recursion of one agent over a block of rounds, in place on the
agent's own state arrays, drawing its privacy noise from the agent's ``numpy.random.Generator``
inside the compiled code (numba reproduces NumPy's ``standard_exponential`` draws, from which
:func:`dpbandit.privacy.noise.laplace` builds every Laplace number; verified by
``tests/agents/test_fast_paths.py``). A kernel returns ``(status, round)``: it stops early when
the Python side must act (a tie to break with the agent's tie-breaking generator, the end of a
warm-up, a calibration limit, a failed factorisation), so the compiled and pure-numpy paths consume every stream in the
same order and play the same actions. Kernels use ``error_model="numpy"``: a float division by zero
gives inf/nan as in NumPy instead of raising (and the division loops can be vectorised).
"""

from __future__ import annotations

from dpbandit import _numba_cache

_numba_cache.install()  # before any kernel module is decorated: cache files go to the user cache dir

#: Status codes returned by the kernels.
DONE, TIE, WARMUP_END, STEP_LIMIT, NOT_POSITIVE_DEFINITE = 0, 1, 2, 3, 4

__all__ = ["DONE", "NOT_POSITIVE_DEFINITE", "STEP_LIMIT", "TIE", "WARMUP_END"]
