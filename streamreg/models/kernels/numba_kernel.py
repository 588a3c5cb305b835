"""The fused scoring pass compiled with numba (the ``fast`` extra).

One read of a block ``B`` gives both quantities the candidate scores need: the products
``G = [Q t]' B`` and the squared column norms ``b'b``.  numpy computes them in two passes
(a BLAS GEMM, which also packs ``B`` into a buffer, and an ``einsum``); at a few rows per
candidate and a million candidates both passes are bound by memory, so reading ``B`` once
is the whole gain.

The loops work on tiles of four candidates whose values are contiguous, against two basis
columns at a time: the tile stays in the L1 cache while the accumulators (eight products,
four norms) stay in registers, and LLVM vectorises the sum over the rows (the ``reassoc``
flag allows that reordering; ``nnan``/``ninf`` are not set, so a NaN or an infinity still
propagates to the norm and the scores as in numpy).  Where candidates are short (one strip of
rows, a few hundred values each) a tile's sweeps cost about as much as reading it, and the
hardware left alone reads the next tile only after they end; each sweep therefore first asks
for a share of the tiles two ahead (LLVM's ``prefetch``), so that memory and arithmetic
overlap (n = 200, k + 1 = 6: 1.4x the one-pass floor against 1.7x without,
``bench/bench_kernel.py``).  Tall blocks go strip by strip without it, where it measured slower.  A column-ordered block is read in
place; a row-ordered block is transposed through a small buffer (a panel of
:data:`PANEL` candidates by :data:`ROW_STRIP` rows) so that the same tile loops apply.

A GLM's block is read the same way: its row scale ``W^(1/2)`` multiplies each strip of the
basis once, and its square weights the norms (``sum_i w_i b_ij^2``), in buffers of a
strip's length, so neither the block nor the whole basis is copied (a row-ordered block is
scaled as it is transposed).

This module imports numba: it is loaded only by :mod:`.` when numba is importable, and
nothing is compiled until the first block is scored (the compiled code is cached on disk
where the package directory is writable).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

F = TypeVar("F", bound=Callable[..., None])

#: rows of a column-ordered block handled per sweep: a tile of four candidates' rows
#: (4 x 8 x 512 bytes) and two basis rows (8 KiB) stay in the L1 cache while every basis
#: column passes over the tile (n = 1e6, k + 1 = 6, blocks of 64 candidates: 1.59x the
#: one-pass floor, against 1.70x with strips of 2048 rows, whose tiles spilled to L2;
#: ``bench/bench_kernel.py --tall``)
COL_STRIP = 512
#: candidates ahead of the tile being scored whose values are prefetched while it is scored
#: (two tiles: far enough for the memory's latency, near enough to stay in the cache)
PREFETCH_AHEAD = 8
#: candidates and rows of a row-ordered block transposed at once (16 x 256 doubles: 32 KiB)
PANEL, ROW_STRIP = 64, 128

#: rows of a design weighted at once for ``X'WX`` (9 columns x 256 rows: 18 KiB, in the L1 cache)
GRAM_STRIP = 256

#: the empty row scale of an unweighted block
_NO_SCALE = np.empty(0)

#: reassociation lets LLVM vectorise the sums over rows; contraction allows fused multiply-adds
_FLAGS = {"reassoc", "contract"}


def _compiled(inline: bool = False, exact: bool = False) -> Callable[[F], F]:
    """numba's ``njit`` with the flags above, compiled on first call and cached on disk.

    ``exact``: no fast-math flags (every operation rounded as numpy rounds it) and numpy's
    error model (``x / 0`` is infinite, not an exception).  numba keeps its cache beside the
    module, or in the user's cache folder when the installed package is read-only; where
    neither can be written it refuses ``cache=True`` (RuntimeError), and the functions are
    then compiled anew in each process.
    """
    def wrap(fn: F) -> F:
        options: dict[str, Any] = {"nogil": True, "boundscheck": False, "inline": "always" if inline else "never"}
        options.update({"fastmath": False, "error_model": "numpy"} if exact else {"fastmath": _FLAGS})
        try:
            return cast(F, numba.njit(cache=True, **options)(fn))
        except RuntimeError:
            return cast(F, numba.njit(cache=False, **options)(fn))
    return wrap


def _prefetch_intrinsic(typingctx: Any, array: Any, row: Any, col: Any) -> Any:  # pragma: no cover - compiled
    """Ask the CPU to bring the cache line holding ``array[row, col]`` into its caches
    (LLVM's ``prefetch``: a hint, never a fault, no effect on any value)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        kind = signature.args[0]
        view = context.make_array(kind)(context, builder, args[0])
        address = cgutils.get_item_pointer(context, builder, kind, view, [args[1], args[2]], wraparound=False)
        byte_ptr, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        # the typed-pointer name; LLVM's own upgrade renames it where pointers are opaque
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(address, byte_ptr), i32(0), i32(3), i32(1)])  # read, keep, data
        return context.get_dummy_value()
    return types.void(array, row, col), codegen


#: ``_prefetch(array, row, col)`` in compiled code (typed as Any: numba's stubs type the
#: intrinsic's call as that of the function above, typing context included)
_prefetch: Any = intrinsic(_prefetch_intrinsic)


@_compiled(inline=True)
def _prefetch_span(src: np.ndarray, row: int, start: int, stop: int) -> None:  # pragma: no cover - compiled
    """Prefetch the cache lines of elements ``start .. stop`` counted from ``src[row, 0]`` in
    memory (past the row's end where rows are contiguous: one line per eight values)."""
    for e in range(start, stop, 8):
        _prefetch(src, row, e)


@_compiled(inline=True)
def _tile4(qt: np.ndarray, xt: np.ndarray, x0: int, q0: int, length: int, t: int,
           g: np.ndarray, norm2: np.ndarray, jg: int, want_norms: bool,
           w: np.ndarray, ahead: int = 0) -> None:  # pragma: no cover - compiled
    """Add the products of rows ``t .. t+3`` of ``xt`` (elements ``x0 .. x0+length``) with
    the basis rows ``qt[:, q0 .. q0+length]`` into ``g[:, jg .. jg+3]`` (and their squared
    norms into ``norm2``, weighted by ``w[q0 .. q0+length]`` unless ``w`` is empty).

    ``ahead`` values from ``xt[t + PREFETCH_AHEAD, 0]`` on (rows contiguous: the candidates
    after the next one, whole; none when 0) are prefetched meanwhile, a share before each sweep
    over the tile, so that memory delivers the next tiles while this one is computed from the
    L1 cache instead of after it."""
    sweeps = max(1, (qt.shape[0] + 1) // 2 + (1 if want_norms else 0))
    share = (ahead // sweeps + 8) & ~7  # a multiple of eight values: whole lines, all of them over the sweeps
    row_ahead, done = t + PREFETCH_AHEAD, 0
    v0 = xt[t, x0:x0 + length]
    v1 = xt[t + 1, x0:x0 + length]
    v2 = xt[t + 2, x0:x0 + length]
    v3 = xt[t + 3, x0:x0 + length]
    if want_norms:
        _prefetch_span(xt, row_ahead, done, min(done + share, ahead))
        done += share
        s0 = s1 = s2 = s3 = 0.0
        if w.size:
            wt = w[q0:q0 + length]
            for i in range(length):
                s0 += v0[i] * v0[i] * wt[i]
                s1 += v1[i] * v1[i] * wt[i]
                s2 += v2[i] * v2[i] * wt[i]
                s3 += v3[i] * v3[i] * wt[i]
        else:
            for i in range(length):
                s0 += v0[i] * v0[i]
                s1 += v1[i] * v1[i]
                s2 += v2[i] * v2[i]
                s3 += v3[i] * v3[i]
        norm2[jg] += s0
        norm2[jg + 1] += s1
        norm2[jg + 2] += s2
        norm2[jg + 3] += s3
    p = qt.shape[0]
    c = 0
    while c + 1 < p:
        _prefetch_span(xt, row_ahead, done, min(done + share, ahead))
        done += share
        qa = qt[c, q0:q0 + length]
        qb = qt[c + 1, q0:q0 + length]
        a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
        for i in range(length):
            u = qa[i]
            w = qb[i]
            e0 = v0[i]
            e1 = v1[i]
            e2 = v2[i]
            e3 = v3[i]
            a0 += u * e0
            a1 += u * e1
            a2 += u * e2
            a3 += u * e3
            b0 += w * e0
            b1 += w * e1
            b2 += w * e2
            b3 += w * e3
        g[c, jg] += a0
        g[c, jg + 1] += a1
        g[c, jg + 2] += a2
        g[c, jg + 3] += a3
        g[c + 1, jg] += b0
        g[c + 1, jg + 1] += b1
        g[c + 1, jg + 2] += b2
        g[c + 1, jg + 3] += b3
        c += 2
    if c < p:
        _prefetch_span(xt, row_ahead, done, ahead)
        qa = qt[c, q0:q0 + length]
        a0 = a1 = a2 = a3 = 0.0
        for i in range(length):
            u = qa[i]
            a0 += u * v0[i]
            a1 += u * v1[i]
            a2 += u * v2[i]
            a3 += u * v3[i]
        g[c, jg] += a0
        g[c, jg + 1] += a1
        g[c, jg + 2] += a2
        g[c, jg + 3] += a3


@_compiled(inline=True)
def _load(src: np.ndarray, x0: int, length: int, t: int, count: int,
          pad: np.ndarray) -> None:  # pragma: no cover - compiled
    """Copy rows ``t .. t+count`` of ``src`` (elements ``x0 .. x0+length``) into the tile
    ``pad``, and the rows after ``count`` (up to four) as zeros."""
    for k in range(4):
        for i in range(length):
            pad[k, i] = src[t + k, x0 + i] if k < count else 0.0


@_compiled(inline=True)
def _rest(qt: np.ndarray, pad: np.ndarray, q0: int, length: int, count: int, g: np.ndarray,
          norm2: np.ndarray, jg: int, want_norms: bool, w: np.ndarray, g4: np.ndarray,
          n4: np.ndarray) -> None:  # pragma: no cover - compiled
    """:func:`_tile4` for the last ``count`` (< 4) candidates, loaded into ``pad`` with zeros
    after them: every candidate is summed by the same loop, in the same order, wherever the
    block boundaries fall, so its products do not depend on the block size (as numpy's do not)."""
    g4[:, :] = 0.0
    n4[:] = 0.0
    _tile4(qt, pad, 0, q0, length, 0, g4, n4, 0, want_norms, w)
    for k in range(count):
        for c in range(qt.shape[0]):
            g[c, jg + k] += g4[c, k]
        if want_norms:
            norm2[jg + k] += n4[k]


@_compiled()
def products_columns(qt: np.ndarray, xt: np.ndarray, g: np.ndarray, norm2: np.ndarray,
                     want_norms: bool, scale: np.ndarray) -> None:  # pragma: no cover - compiled
    """``g += qt @ (xt * scale).T`` and ``norm2 += ((xt * scale) ** 2).sum(1)`` (``scale``
    empty: ones) for ``xt`` holding one candidate per row (a column-ordered block,
    transposed: a view); ``qt`` is ``[Q t]'``.  A scale multiplies each strip of the basis
    (and squared, of the norms) once, in buffers that stay in the cache for the strip's tiles."""
    m, n = xt.shape
    strip = min(n, COL_STRIP)
    pad, g4, n4 = np.empty((4, strip)), np.empty((qt.shape[0], 4)), np.empty(4)
    scaled = scale.size > 0
    qs = np.empty((qt.shape[0], strip if scaled else 0))
    ws = np.empty(strip if scaled else 0)
    for i0 in range(0, n, COL_STRIP):
        length = min(COL_STRIP, n - i0)
        if scaled:
            for i in range(length):
                ws[i] = scale[i0 + i] * scale[i0 + i]
            for c in range(qt.shape[0]):
                for i in range(length):
                    qs[c, i] = qt[c, i0 + i] * scale[i0 + i]
            basis, q0, w = qs, 0, ws
        else:
            basis, q0, w = qt, i0, ws
        # short candidates (one strip, rows of xt contiguous) prefetch the tiles ahead; long
        # ones go strip by strip, where the prefetches measured slower than none
        contiguous = length == n and xt.strides[0] == n * xt.itemsize
        t = 0
        while t + 4 <= m:
            ahead = max(0, min(4, m - t - PREFETCH_AHEAD)) * n if contiguous else 0
            _tile4(basis, xt, i0, q0, length, t, g, norm2, t, want_norms, w, ahead)
            t += 4
        if t < m:
            _load(xt, i0, length, t, m - t, pad)
            _rest(basis, pad, q0, length, m - t, g, norm2, t, want_norms, w, g4, n4)


@_compiled()
def products_rows(qt: np.ndarray, x: np.ndarray, g: np.ndarray, norm2: np.ndarray,
                  want_norms: bool, scale: np.ndarray) -> None:  # pragma: no cover - compiled
    """:func:`products_columns` for a row-ordered block ``x`` (``n x m``, rows contiguous),
    transposed (and scaled) a panel at a time into a buffer that stays in the L1 cache."""
    n, m = x.shape
    buf = np.empty((PANEL, ROW_STRIP + 8))
    pad, g4, n4 = np.empty((4, ROW_STRIP)), np.empty((qt.shape[0], 4)), np.empty(4)
    for j0 in range(0, m, PANEL):
        width = min(PANEL, m - j0)
        for i0 in range(0, n, ROW_STRIP):
            length = min(ROW_STRIP, n - i0)
            for i in range(length):
                row = x[i0 + i]
                factor = scale[i0 + i] if scale.size else 1.0
                for t in range(width):
                    buf[t, i] = row[j0 + t] * factor
            t = 0
            while t + 4 <= width:
                _tile4(qt, buf, 0, i0, length, t, g, norm2, j0 + t, want_norms, _NO_SCALE)
                t += 4
            if t < width:
                _load(buf, 0, length, t, width - t, pad)
                _rest(qt, pad, i0, length, width - t, g, norm2, j0 + t, want_norms, _NO_SCALE, g4, n4)


@_compiled()
def _weighted_gram(x: np.ndarray, w: np.ndarray, working: np.ndarray,
                   gram: np.ndarray) -> None:  # pragma: no cover - compiled
    """The upper triangle of ``A'A`` into ``gram``, ``A = W^(1/2) [x working]``, a strip of
    :data:`GRAM_STRIP` rows at a time: the strip of A is formed in an L1 buffer and each
    pair of its columns summed by a vectorised loop."""
    n, k = x.shape
    p = k + 1
    a = np.empty((p, GRAM_STRIP))
    sw = np.empty(GRAM_STRIP)
    for i0 in range(0, n, GRAM_STRIP):
        length = min(GRAM_STRIP, n - i0)
        for i in range(length):
            sw[i] = np.sqrt(w[i0 + i])
        for j in range(k):
            for i in range(length):
                a[j, i] = x[i0 + i, j] * sw[i]
        for i in range(length):
            a[k, i] = working[i0 + i] * sw[i]
        for r in range(p):
            for c in range(r, p):
                total = 0.0
                for i in range(length):
                    total += a[r, i] * a[c, i]
                gram[r, c] += total


def weighted_gram(x: np.ndarray, w: np.ndarray, working: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`streamreg.models.irls.weighted_gram` in one compiled pass (``x`` column-ordered
    float64): ``X'WX`` and ``X'W working``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> x, w, z = np.asfortranarray(rng.standard_normal((30, 3))), rng.random(30), rng.standard_normal(30)
    >>> gram, rhs = weighted_gram(x, w, z)
    >>> bool(np.allclose(gram, x.T @ (w[:, None] * x))), bool(np.allclose(rhs, x.T @ (w * z)))
    (True, True)
    """
    n, k = x.shape
    if len(w) != n or len(working) != n:
        raise ValueError(f"{len(w)} weights and {len(working)} responses for a design of {n} rows")
    total = np.zeros((k + 1, k + 1))
    _weighted_gram(x, np.ascontiguousarray(w, dtype=np.float64), np.ascontiguousarray(working, dtype=np.float64),
                   total)
    upper = np.triu(total[:k, :k])
    return upper + np.triu(upper, 1).T, total[:k, k].copy()


#: statsmodels' clipping bound for means in link derivatives and variances
_EPS = float(np.finfo(float).eps)


@_compiled(exact=True)
def _irls_weights(canonical: int, mu: np.ndarray, y: np.ndarray, w: np.ndarray,
                  working: np.ndarray) -> None:  # pragma: no cover - compiled
    """The working weights and response increments of :mod:`..irls_formulas` (``canonical``
    0: logit binomial, 1: log Poisson) in one pass, the same IEEE operations in the same order
    (no fast-math flags), so the same values to the last bit; a NaN mean stays NaN as in
    ``np.clip``."""
    for i in range(mu.shape[0]):
        m = mu[i]
        p = m
        if p < _EPS:
            p = _EPS
        if canonical == 0:
            if p > 1.0 - _EPS:
                p = 1.0 - _EPS
            var = p * (1.0 - p)
            deriv = 1.0 / var
        else:
            var = abs(m)
            deriv = 1.0 / p
        w[i] = 1.0 / (deriv * deriv * var)
        working[i] = (y[i] - m) * deriv


def irls_weights(canonical: int, mu: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`~streamreg.models.irls_formulas.LogitBinomial.weights_and_working` (``canonical``
    0) or the log Poisson's (1) in one compiled pass, bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> mu, y = np.array([0.2, 0.9, 1.0]), np.array([0.0, 1.0, 1.0])
    >>> w, working = irls_weights(0, mu, y)
    >>> bool(np.allclose(w, mu * (1 - mu), rtol=1e-12, atol=1e-15)), float(working[0])
    (True, -1.25)
    """
    if len(y) != len(mu):
        raise ValueError(f"{len(mu)} means for {len(y)} responses")
    w, working = np.empty(len(mu)), np.empty(len(mu))
    _irls_weights(canonical, np.ascontiguousarray(mu, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64),
                  w, working)
    return w, working


def products(q_and_target: np.ndarray, values: np.ndarray, norm2: np.ndarray | None,
             row_scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.numpy_kernel.products` in one fused pass (dense float64 ``values``, either layout).

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.models.kernels import numpy_kernel
    >>> rng = np.random.default_rng(1)
    >>> basis, block = rng.standard_normal((40, 3)), np.asfortranarray(rng.standard_normal((40, 6)))
    >>> fused, plain = products(basis, block, None), numpy_kernel.products(basis, block, None)
    >>> [bool(np.allclose(a, b, rtol=1e-12)) for a, b in zip(fused, plain)]
    [True, True]
    """
    n, m = values.shape
    if q_and_target.ndim != 2 or q_and_target.shape[0] != n:
        # the compiled loops do not check bounds: a mismatch would read past the arrays
        raise ValueError(f"the basis has {q_and_target.shape[0]} rows and the block {n}")
    qt = np.ascontiguousarray(q_and_target.T, dtype=np.float64)
    g = np.zeros((qt.shape[0], m))
    scale = _NO_SCALE if row_scale is None else np.ascontiguousarray(row_scale, dtype=np.float64)
    if scale.size not in (0, n):
        raise ValueError(f"{scale.size} row scales for a block of {n} rows")
    want_norms = norm2 is None or scale.size > 0
    sums = np.zeros(m if want_norms else 0)
    if n and m:
        if n == 1 or values.strides[0] == values.itemsize:
            products_columns(qt, values.T, g, sums, want_norms, scale)
        else:
            products_rows(qt, values, g, sums, want_norms, scale)
    if want_norms or norm2 is None:
        return g, sums
    return g, norm2
