"""Sparse candidate matrices (``scipy.sparse``) as streams scored at sparse cost.

Text and genomics data (dexter, dorothea) have millions of candidate columns with a few
non-zeros each.  A dense copy would cost ``n x m`` memory and time; here the candidates stay
in compressed sparse column (CSC) form, block by block, and the two products a model
state needs of a block ``B`` cost time proportional to its non-zeros:

* ``[Q t]' B`` as ``(B' [Q t])'``: a sparse-times-dense product, ``nnz x (k + 1)``;
* the squared norms ``sum_i w_i b_ij^2`` (``w = 1`` unweighted): one pass over the stored
  values.

A term's values are a dense column only when the search asks for it (the few accepted,
collinear or out-of-range candidates).  The tests are the dense path's: the same products
in another summation order, so the same decisions (``tests/streams/test_sparse_stream.py``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..models.base import CandidateBlock, gain_from_products
from .arrays import MatrixStream


def is_sparse(x: object) -> bool:
    """Whether ``x`` is a ``scipy.sparse`` matrix or array.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> is_sparse(sp.eye(3, format="csr")), is_sparse(np.eye(3))
    (True, False)
    """
    return bool(sp.issparse(x))


def is_sparse_frame(x: object) -> bool:
    """Whether ``x`` is a DataFrame all of whose columns have a pandas sparse dtype."""
    return isinstance(x, pd.DataFrame) and x.shape[1] > 0 and all(
        isinstance(d, pd.SparseDtype) for d in x.dtypes)


class SparseBlock(CandidateBlock):
    """Consecutive single-column candidates held as a CSC matrix (``n x m``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> block = SparseBlock(sp.csc_matrix(np.array([[0.0, 2.0], [3.0, 0.0], [0.0, 0.0]])))
    >>> len(block), block.sq_norms().tolist(), block.term(1).ravel().tolist()
    (2, [9.0, 4.0], [2.0, 0.0, 0.0])
    """

    def __init__(self, matrix: Any, norm2: np.ndarray | None = None):
        csc = sp.csc_matrix(matrix, dtype=float)
        csc.sort_indices()  # canonical: the same sums in the same order however it was built
        self.matrix = csc
        m = csc.shape[1]
        self.widths = np.ones(m, dtype=int)
        self.starts = np.arange(m)
        self.norm2 = norm2

    @property
    def values(self) -> np.ndarray:
        """The block as a dense array (only the multi-column and robust paths ask)."""
        return np.asarray(self.matrix.toarray(), dtype=float)

    def __len__(self) -> int:
        return int(self.matrix.shape[1])

    def term(self, j: int) -> np.ndarray:
        return np.asarray(self.matrix[:, [j]].toarray(), dtype=float)

    def _columns(self, idx: np.ndarray) -> np.ndarray:
        return np.asarray(self.matrix[:, idx].toarray(), dtype=float)

    @cached_property
    def _value_columns(self) -> np.ndarray:
        """The column of every stored value (the block is immutable: computed once, kept across rescores)."""
        return np.repeat(np.arange(len(self)), np.diff(self.matrix.indptr))

    def _weighted_norms(self, w: np.ndarray | None) -> np.ndarray:
        """``sum_i w_i b_ij^2`` per column (``w`` None: 1), from the stored values only."""
        data = self.matrix.data
        with np.errstate(over="ignore", invalid="ignore"):
            sq = data * data if w is None else w[self.matrix.indices] * (data * data)
        return np.bincount(self._value_columns, weights=sq, minlength=len(self))

    def sq_norms(self) -> np.ndarray:
        if self.norm2 is None:
            self.norm2 = self._weighted_norms(None)
        return self.norm2

    def nonfinite_columns(self) -> np.ndarray:
        suspects = np.flatnonzero(~np.isfinite(self.sq_norms()))
        if suspects.size == 0:
            return suspects
        return suspects[~np.isfinite(self._columns(suspects)).all(axis=0)]

    def reduce_single(self, q_and_target: np.ndarray,
                      row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~streamreg.models.base.reduce_single_columns` of the block (weighted by
        ``row_weights``), from sparse products: ``(B' W^(1/2) [Q t])'`` and the weighted norms."""
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if row_weights is None:
                g = np.asarray(self.matrix.T @ q_and_target).T
                norm2 = self.sq_norms()
            else:
                g = np.asarray(self.matrix.T @ (q_and_target * row_weights[:, None])).T
                norm2 = self._weighted_norms(row_weights * row_weights)
            # columns without a stored non-zero score as the dense path scores zero columns
            # (gain 0, rank 0: collinear, then skipped as constant) without being fetched
            full = np.flatnonzero(self._nonzero)
            gain, rank = np.zeros(len(self)), np.zeros(len(self), dtype=int)
            if full.size:
                part = full if full.size < len(self) else slice(None)
                weights = 1.0 if row_weights is None else row_weights[:, None]
                gain[part], rank[part] = gain_from_products(
                    q_and_target, g[:, part], norm2[part], lambda idx: weights * self._columns(full[idx]))
            return gain, rank

    @cached_property
    def _nonzero(self) -> np.ndarray:
        """Whether each column stores a non-zero value (computed once, as :attr:`_value_columns`)."""
        return np.bincount(self._value_columns, weights=(self.matrix.data != 0), minlength=len(self)) > 0

    def constant_columns(self) -> np.ndarray:
        nnz = np.diff(self.matrix.indptr)
        n = self.matrix.shape[0]
        col = self._value_columns
        data = self.matrix.data
        zero_stored = ~self._nonzero
        low = np.full(len(self), np.inf)
        high = np.full(len(self), -np.inf)
        np.minimum.at(low, col, data)
        np.maximum.at(high, col, data)
        # a column with an implicit zero is constant when it stores zeros only; a full one
        # when its stored values are all equal (n = 0: every column is constant)
        return np.where(nnz < n, zero_stored, low == high) | (n == 0)

    def constant_terms(self, terms: np.ndarray) -> np.ndarray:
        return self.constant_columns()[terms]

    def tail(self, start: int) -> SparseBlock:
        return SparseBlock(self.matrix[:, start:], None if self.norm2 is None else self.norm2[start:])


class SparseMatrixStream(MatrixStream):
    """The columns of a ``scipy.sparse`` matrix (``n x m``) as single-column candidates.

    A :class:`~.arrays.MatrixStream` whose matrix is held in CSC form (converted once: a copy
    only when it comes in another format) and whose blocks are :class:`SparseBlock` column
    slices.  ``order``: a permutation of the columns (``order=``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from streamreg.streams.base import NameRange
    >>> s = SparseMatrixStream("s", sp.random(5, 4, density=0.5, format="csr", random_state=0), NameRange("x", 0, 4))
    >>> block = s.take(3)
    >>> list(block.names), type(block.block).__name__
    (['x0', 'x1', 'x2'], 'SparseBlock')
    """

    def __init__(self, name: str, matrix: Any, names: Sequence[str], order: np.ndarray | None = None):
        if matrix.dtype.kind not in "biuf":
            raise ValueError(f"stream {name!r}: the sparse matrix is not numeric (dtype {matrix.dtype})")
        # the CSC matrix stands in for the array: what the subclass keeps of MatrixStream
        # (names, order, positions, the checks) reads its shape, never its values
        super().__init__(name, cast(Any, sp.csc_matrix(matrix)), names, order)

    def _block(self, idx: slice | np.ndarray, stop: int,
               check: Callable[[CandidateBlock], None] | None = None) -> SparseBlock:
        """The columns ``idx``: a column slice when they are consecutive."""
        if not isinstance(idx, slice):
            pos = np.asarray(idx, dtype=np.int64)
            if pos.size and pos[-1] - pos[0] == pos.size - 1 and (np.diff(pos) == 1).all():
                idx = slice(int(pos[0]), int(pos[-1]) + 1)
        return SparseBlock(self.values[:, idx])

    def reread(self, positions: np.ndarray) -> CandidateBlock:
        """The columns at ``positions``, as when first offered (the matrix is still here)."""
        return self._block(np.asarray(positions, dtype=np.int64), 0)


def sparse_variances(matrix: Any) -> np.ndarray:
    """Column variances of a sparse matrix (``np.var(axis=0)`` of its dense form) from its
    stored values: ``(sum_stored (x - mean)^2 + (n - stored) mean^2) / n``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> x = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 5.0]])
    >>> bool(np.allclose(sparse_variances(sp.csc_matrix(x)), x.var(axis=0)))
    True
    """
    csc = sp.csc_matrix(matrix, dtype=float)
    n = csc.shape[0]
    counts = np.diff(csc.indptr)
    col = np.repeat(np.arange(csc.shape[1]), counts)
    mean = np.bincount(col, weights=csc.data, minlength=csc.shape[1]) / max(n, 1)
    dev = np.bincount(col, weights=(csc.data - mean[col]) ** 2, minlength=csc.shape[1])
    return np.asarray((dev + (n - counts) * mean**2) / max(n, 1))


def sparse_frame_matrix(frame: pd.DataFrame) -> Any | None:
    """A DataFrame of pandas sparse columns as a CSC matrix, or None when a column's fill
    value is not 0 (the frame is then read densely, its fill values as they are)."""
    if any(not (isinstance(d.fill_value, (int, float, np.number)) and d.fill_value == 0) for d in frame.dtypes):
        return None
    return frame.sparse.to_coo().tocsc()  # type: ignore[attr-defined]  # stubs: the sparse accessor
