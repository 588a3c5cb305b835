"""The one pass over a candidate block: ``[Q t]' B`` and the squared column norms.

Two backends compute the same numbers, one file each:

* :mod:`.numpy_kernel`, two numpy passes (a BLAS GEMM and an ``einsum``), for every block;
* :mod:`.numba_kernel`, one fused pass compiled with numba, installed with the ``fast``
  extra (``pip install "streamreg[fast]"``), for dense float64 blocks.

:func:`block_products` picks one per block.  The choice is read from the environment
variable ``STREAMREG_KERNEL`` at each call:

``auto`` (the default)
    numba for dense float64 blocks whose columns are contiguous (column-ordered, as the
    blocks of a Fortran-ordered matrix are) when numba is importable and either the block
    holds at least :data:`AUTO_NUMBA_CELLS` values or numba is already loaded; numpy
    otherwise.  Loading numba and its compiled kernels costs about 0.3 s once per process,
    which a small search (a few milliseconds) would never repay.
    A row-ordered block stays with numpy: numba's tiled transpose measured slower there
    than numpy's GEMM, which packs the block itself (``bench/bench_kernel.py``).
``numpy``
    always numpy (numba is then never imported).
``numba``
    numba for every dense float64 block, either layout (an error if numba is missing).

The same choice sends IRLS's weighted Gram matrix ``X'WX`` (:func:`numba_weighted_gram`) to
numba for a large column-ordered design.

The plain install never imports numba: :mod:`.numba_kernel` is loaded on the first block
the choice sends to it, and its functions are compiled then (cached on disk where the
installed package's folder is writable).
"""
from __future__ import annotations

import importlib.util
import os
from types import ModuleType

import numpy as np

from . import numpy_kernel

__all__ = ["AUTO_NUMBA_CELLS", "KERNEL_ENV", "block_products", "kernel_for", "numba_available",
           "numba_irls_weights", "numba_weighted_gram", "vectors_on_numba"]

#: under ``auto``, a block this large (rows x columns) loads numba; smaller ones use numpy
#: until some block has loaded it (32 MB of float64: numba's load is then a small share)
AUTO_NUMBA_CELLS = 1 << 22

#: the environment variable that picks the backend (``auto``, ``numpy`` or ``numba``)
KERNEL_ENV = "STREAMREG_KERNEL"
_CHOICES = ("auto", "numpy", "numba")

_numba_module: ModuleType | None = None


def numba_available() -> bool:
    """Whether numba can be imported (the ``fast`` extra is installed); numba is not imported.

    Examples
    --------
    >>> isinstance(numba_available(), bool)
    True
    """
    return importlib.util.find_spec("numba") is not None


def _setting() -> str:
    value = os.environ.get(KERNEL_ENV, "auto").strip().lower() or "auto"
    if value not in _CHOICES:
        raise ValueError(f"{KERNEL_ENV}={os.environ[KERNEL_ENV]!r} is not a scoring kernel; "
                         f"use one of {', '.join(_CHOICES)}")
    return value


def _require_numba() -> None:
    """Refuse ``STREAMREG_KERNEL=numba`` without numba, saying how to install it."""
    if not numba_available():
        raise ValueError(f"{KERNEL_ENV}=numba, but numba is not installed: pip install \"streamreg[fast]\"")


def _dense_float64(values: np.ndarray) -> bool:
    return type(values) is np.ndarray and values.dtype == np.float64 and values.ndim == 2


def kernel_for(values: np.ndarray) -> str:
    """The backend (``"numpy"`` or ``"numba"``) that scores the block ``values``.

    Examples
    --------
    >>> import numpy as np, os
    >>> kernel_for(np.ones((3, 2), dtype=np.float32))  # other dtypes: numpy
    'numpy'
    """
    setting = _setting()
    if setting == "numpy" or not _dense_float64(values):
        return "numpy"
    if setting == "numba":
        _require_numba()
        return "numba"
    columns_contiguous = values.shape[0] <= 1 or values.strides[0] == values.itemsize
    worth_loading = _numba_module is not None or values.size >= AUTO_NUMBA_CELLS
    return "numba" if columns_contiguous and worth_loading and numba_available() else "numpy"


def _numba() -> ModuleType:
    """The numba backend, imported on first use."""
    global _numba_module
    if _numba_module is None:
        from . import numba_kernel

        _numba_module = numba_kernel
    return _numba_module


def block_products(q_and_target: np.ndarray, values: np.ndarray, norm2: np.ndarray | None = None,
                   row_scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``[Q t]' B`` (``(k + 1) x m``) and the squared norms of the block's columns.

    ``norm2``: the norms when the block already has them (only the products are then
    computed); ``row_scale``: the products and norms are those of ``diag(row_scale) B``
    (a GLM's ``W^(1/2) B``), with no scaled copy of the block.  Both backends give the same
    numbers up to the order of the floating-point sums and products (about 1e-15 relative
    to the sizes of the terms summed).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> qt, b = rng.standard_normal((50, 3)), np.asfortranarray(rng.standard_normal((50, 7)))
    >>> g, norm2 = block_products(qt, b)
    >>> bool(np.allclose(g, qt.T @ b, rtol=1e-12)), bool(np.allclose(norm2, (b * b).sum(0), rtol=1e-12))
    (True, True)
    """
    if kernel_for(values) == "numpy":
        return numpy_kernel.products(q_and_target, values, norm2, row_scale)
    return _numba().products(q_and_target, values, norm2, row_scale)


def numba_weighted_gram(x: np.ndarray, w: np.ndarray, working: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X'WX`` and ``X'W working`` by numba's compiled pass (for a design :func:`kernel_for`
    sends to numba; :func:`streamreg.models.irls.weighted_gram` asks)."""
    result: tuple[np.ndarray, np.ndarray] = _numba().weighted_gram(x, w, working)
    return result


def vectors_on_numba(n: int) -> bool:
    """Whether a pass over n-vectors (IRLS's working weights) runs compiled: under ``auto`` when
    numba is already loaded (a large block or design loaded it) or the vectors hold at least
    :data:`AUTO_NUMBA_CELLS` values; always under ``numba``; never under ``numpy``."""
    setting = _setting()
    if setting == "numpy":
        return False
    if setting == "numba":
        _require_numba()
        return True
    return (_numba_module is not None or n >= AUTO_NUMBA_CELLS) and numba_available()


def numba_irls_weights(canonical: int, mu: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The working weights and response of a canonical family by numba's compiled pass (the same
    values as numpy's, bit for bit: see :func:`.numba_kernel.irls_weights`)."""
    result: tuple[np.ndarray, np.ndarray] = _numba().irls_weights(canonical, mu, y)
    return result
