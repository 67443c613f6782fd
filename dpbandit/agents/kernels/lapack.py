"""LAPACK / BLAS routines callable from compiled kernels without a per-call wrapper.

The routines are SciPy's own (``scipy.linalg.cython_lapack`` / ``cython_blas``, the library behind
``scipy.linalg.lapack`` and ``scipy.linalg.blas``), so a kernel and the numpy path that calls the
SciPy wrappers run the same code on the same numbers. Each is declared to numba as an external
function under a symbol registered with LLVM when this module is imported (before any cached kernel
is loaded), so kernels that call them can be cached on disk (``cache=True``).

Arrays are C-ordered: LAPACK sees the transpose. A kernel keeps a symmetric matrix ``V`` in the
**lower** triangle of a C array, which LAPACK reads as the upper triangle (``uplo = "U"``); the
factor ``V = U^T U`` it returns there is ``L = U^T`` in C order (``V = L L^T``).
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numba
import numpy as np
from numba import types
from numba.extending import get_cython_function_address, intrinsic

__all__ = ["cholesky_lower", "dot", "solve_lower", "solve_lower_transposed", "workspace"]

_INT, _DOUBLE, _CHAR = types.CPointer(types.int32), types.CPointer(types.float64), types.CPointer(types.int8)


def _external(module: str, name: str, signature: types.Signature) -> types.ExternalFunction:
    symbol = f"dpbandit_{name}"
    llvm.add_symbol(symbol, get_cython_function_address(f"scipy.linalg.{module}", name))
    return types.ExternalFunction(symbol, signature)


# dpotrf(uplo, n, a, lda, info); dtrsv(uplo, trans, diag, n, a, lda, x, incx); ddot(n, x, incx, y, incy)
_dpotrf = _external("cython_lapack", "dpotrf", types.void(_CHAR, _INT, _DOUBLE, _INT, _INT))
_dtrsv = _external("cython_blas", "dtrsv", types.void(_CHAR, _CHAR, _CHAR, _INT, _DOUBLE, _INT, _DOUBLE, _INT))
_ddot = _external("cython_blas", "ddot", types.float64(_INT, _DOUBLE, _INT, _DOUBLE, _INT))


@intrinsic
def _address(typingctx, array):
    """The data pointer of a contiguous array (what Fortran receives)."""

    def codegen(context, builder, signature, args):
        return context.make_array(array)(context, builder, args[0]).data

    return types.CPointer(array.dtype)(array), codegen


@numba.njit(cache=True)
def workspace(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Fortran's by-reference scalars for size ``n``, made once per kernel call and passed to the routines.

    ``ints = [n, 1, info]`` (size, unit stride, LAPACK's info), ``chars = "UTN"``.
    """
    return np.array([n, 1, 0], dtype=np.int32), np.array([ord("U"), ord("T"), ord("N")], dtype=np.int8)


@numba.njit(cache=True)
def cholesky_lower(a: np.ndarray, ints: np.ndarray, chars: np.ndarray) -> int:
    """Factor the symmetric matrix in the lower triangle of the C array ``a`` (n, n) in place (``dpotrf``).

    Afterwards the lower triangle holds ``L`` with ``V = L L^T`` (the upper triangle is not touched).
    Returns LAPACK's ``info`` (0: done; > 0: not positive definite).
    """
    _dpotrf(_address(chars), _address(ints), _address(a), _address(ints), _address(ints[2:]))
    return int(ints[2])


@numba.njit(cache=True)
def solve_lower(factor: np.ndarray, x: np.ndarray, ints: np.ndarray, chars: np.ndarray) -> None:
    """``x <- L^{-1} x`` for the factor ``L`` of :func:`cholesky_lower` (``dtrsv``; ``x`` contiguous, length n)."""
    _dtrsv(_address(chars), _address(chars[1:]), _address(chars[2:]), _address(ints), _address(factor),
           _address(ints), _address(x), _address(ints[1:]))


@numba.njit(cache=True)
def solve_lower_transposed(factor: np.ndarray, x: np.ndarray, ints: np.ndarray, chars: np.ndarray) -> None:
    """``x <- L^{-T} x`` for the factor ``L`` of :func:`cholesky_lower` (``dtrsv``)."""
    _dtrsv(_address(chars), _address(chars[2:]), _address(chars[2:]), _address(ints), _address(factor),
           _address(ints), _address(x), _address(ints[1:]))


@numba.njit(cache=True)
def dot(x: np.ndarray, y: np.ndarray, ints: np.ndarray) -> float:
    """BLAS ``ddot`` of two contiguous vectors of length ``ints[0]``."""
    return _ddot(_address(ints), _address(x), _address(ints[1:]), _address(y), _address(ints[1:]))
