"""Ordering a feature stream: which candidate columns the search should see first.

Streamwise selection works best when the features most likely to matter come early.
Orders that look at ``y`` (every screening score) use the response to decide the order,
which voids the alpha-wealth guarantee of the search: that guarantee assumes the stream
is generated without looking at ``y``.  :func:`order_needs_y` tells the caller which case
it is in, so that it can say so.
"""
from __future__ import annotations

from typing import Any, Callable, Union

import numpy as np
import scipy.sparse as sp

from ._inputs import as_matrix
from .offline import METHODS, canonical_method, score

__all__ = ["order_columns", "order_needs_y", "ORDERS"]

#: orders that do not look at the response
ORDERS = ("given", "variance", "random")

Order = Union[str, Callable[[Any, Any], Any]]


def order_needs_y(order: Order) -> bool:
    """True when ``order`` uses the response (screening scores, and callables).

    A callable is assumed to look at ``y`` unless it has an attribute ``needs_y = False``.

    Examples
    --------
    >>> from streamreg.screening import order_needs_y
    >>> order_needs_y("variance"), order_needs_y("t-score")
    (False, True)
    """
    if callable(order):
        return bool(getattr(order, "needs_y", True))
    if isinstance(order, str) and order.lower() in ORDERS:
        return False
    canonical_method(order)  # raises a clear error for unknown names
    return True


def order_columns(X: Any, y: Any = None, order: Order = "given", seed: int | None = None,
                  **score_kwargs: Any) -> np.ndarray:
    """Permutation of the columns of ``X``: the stream visits ``X[:, perm]`` in order.

    Parameters
    ----------
    X : array-like, DataFrame or scipy.sparse matrix, shape (n, p)
    y : array-like, optional
        Needed by screening-method orders and passed to callables.
    order : str or callable, default 'given'
        ``'given'`` (column order), ``'variance'`` (largest variance first),
        ``'random'`` (uniform permutation from ``seed``), a screening method name (see
        :func:`screening.score`; most relevant first), or ``f(X, y) -> scores`` returning
        ``p`` numbers, largest first.  Ties keep column order; NaN scores go last.
    seed : int, optional
        Seed for ``'random'``.
    **score_kwargs
        Passed to :func:`screening.score` (e.g. ``bins=10``).

    Returns
    -------
    ndarray of int64, shape (p,)

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.screening import order_columns
    >>> X = np.array([[0., 1., 5.], [0., 3., -5.], [0., 2., 0.]])
    >>> order_columns(X, order="variance").tolist()
    [2, 1, 0]
    """
    if isinstance(order, str) and order.lower() in ORDERS:
        M, _ = as_matrix(X)
        p = M.shape[1]
        kind = order.lower()
        if kind == "given":
            return np.arange(p, dtype=np.int64)
        if kind == "random":
            return np.random.default_rng(seed).permutation(p).astype(np.int64)
        if sp.issparse(M):
            mean = np.asarray(M.mean(axis=0)).ravel()
            var = np.asarray(M.multiply(M).mean(axis=0)).ravel() - mean ** 2
        else:
            var = M.var(axis=0)
        return _descending(var)
    if callable(order):
        values = np.asarray(order(X, y), dtype=np.float64).ravel()
        p = as_matrix(X, want_names=False)[0].shape[1]
        if values.shape[0] != p:
            raise ValueError(
                f"the ordering callable returned {values.shape[0]} scores for {p} columns; "
                "it must return one score per column (largest first)")
        return _descending(values)
    if not isinstance(order, str):
        raise ValueError(
            f"order must be one of {list(ORDERS)}, a screening method name or a callable; "
            f"got {order!r}")
    method = canonical_method(order)
    if y is None:
        raise ValueError(
            f"order={order!r} ranks columns by a screening score of y; pass y, or use "
            f"one of {list(ORDERS)} for an order that ignores the response")
    assert method in METHODS
    return _descending(score(X, y, method=method, **score_kwargs).to_numpy())


def _descending(values: np.ndarray) -> np.ndarray:
    key = np.where(np.isnan(values), -np.inf, values)
    return np.argsort(-key, kind="stable").astype(np.int64)
