"""Equal-frequency binning of every column (the discretisation behind chi2, Gini and MI).

A value ``x`` of a feature with ``n`` observations falls in bin ``min(K-1, r-(x) // d)``
with ``d = floor(n / K)`` and ``r-(x)`` the number of observations strictly below ``x``.
This is thesis Algorithm 4 applied to the exact sorted values: equal values always share
a bin, so heavy ties (e.g. the zeros of a sparse column) can leave bins empty.  The online
screeners apply the same rule to their summaries, so with a small enough ``eps`` they
reproduce these counts exactly.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import tuples as tl
from ._inputs import Matrix, as_matrix, as_response, check_bins, encode_labels

__all__ = ["bin_counts", "bin_codes", "exact_tuples"]


def exact_tuples(X: Matrix, codes: np.ndarray, n_classes: int,
                 weight: np.ndarray | None = None) -> tl.TupleList:
    """Exact per-feature tuples of ``X`` with class ``codes`` (sparse zeros as one tuple)."""
    n, p = X.shape
    if not sp.issparse(X):
        return tl.exact_from_dense(np.asarray(X), codes, weight, n_classes)
    A = sp.csc_matrix(X)
    A.sum_duplicates()
    feat = np.repeat(np.arange(p, dtype=np.int64), np.diff(A.indptr))
    rows = A.indices
    wt = None if weight is None else weight[rows]
    nz = tl.exact_from_points(feat, A.data, codes[rows], wt, p, n_classes)
    # the zeros: class mass minus the non-zero mass of that class in each feature
    w_all = np.ones(n) if weight is None else weight
    class_mass = np.bincount(codes, weights=w_all, minlength=n_classes)
    zero_w = class_mass[None, :] - nz.total()
    zeros = tl.TupleList(np.arange(p, dtype=np.int64), np.zeros(p),
                         np.maximum(zero_w, 0.0), np.zeros(p))
    return tl.merge(nz, zeros)


def bin_counts(X: Any, y: Any, bins: int = 5) -> np.ndarray:
    """Counts of observations per feature, equal-frequency bin and class.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix, shape (n, p)
        Numeric features.
    y : array-like, shape (n,)
        Class labels (any hashable values; sorted order defines the class axis).
    bins : int, default 5
        Number of equal-frequency bins ``K``.

    Returns
    -------
    ndarray, shape (p, bins, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.screening import bin_counts
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> bin_counts(X, [0] * 5 + [1] * 5, bins=2)[0]
    array([[5., 0.],
           [0., 5.]])
    """
    K = check_bins(bins)
    M, _ = as_matrix(X)
    codes, classes = encode_labels(as_response(y, M.shape[0]), min_classes=1)
    return tl.aggregate_bins(exact_tuples(M, codes, classes.size), K)


def bin_codes(X: Any, bins: int = 5, *, block: int = 2048) -> np.ndarray:
    """Bin index (``0..bins-1``) of every entry, shape ``(n, p)``, dtype int8/int16.

    Sparse input is densified ``block`` columns at a time.

    Parameters
    ----------
    X : array-like, DataFrame or sparse matrix
        ``n`` rows, ``p`` features.
    bins : int, default 5
        Equal-frequency bins per feature.
    block : int, default 2048
        Columns densified at a time for sparse input.

    Returns
    -------
    numpy.ndarray
        The bin codes, shape ``(n, p)``.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.screening import bin_codes
    >>> bin_codes(np.array([[3.0], [1.0], [1.0], [2.0]]), bins=2).ravel()
    array([1, 0, 0, 1], dtype=int8)
    """
    K = check_bins(bins)
    M, _ = as_matrix(X)
    n, p = M.shape
    out = np.empty((n, p), dtype=np.int8 if K <= 127 else np.int16)
    d = max(n // K, 1)
    for lo in range(0, p, block):
        hi = min(p, lo + block)
        D = M[:, lo:hi].toarray() if sp.issparse(M) else M[:, lo:hi]
        order = np.argsort(D, axis=0, kind="stable")
        s = np.take_along_axis(D, order, axis=0)
        # r-(x) at each sorted position: index of the first entry of its run of ties
        idx = np.arange(n)[:, None] * np.ones((1, hi - lo), dtype=np.int64)
        newrun = np.ones_like(s, dtype=bool)
        newrun[1:] = s[1:] != s[:-1]
        rminus = np.maximum.accumulate(np.where(newrun, idx, 0), axis=0)
        codes_sorted = np.minimum(K - 1, rminus // d)
        blockcodes = np.empty_like(codes_sorted)
        np.put_along_axis(blockcodes, order, codes_sorted, axis=0)
        out[:, lo:hi] = blockcodes
    return out
