"""Ordering a feature stream: which candidate columns the search should see first.

Streamwise selection works best when the features most likely to matter come early.
Orders that look at ``y`` (every screening score) use the response to decide the order,
which voids the alpha-wealth guarantee of the search: that guarantee assumes the stream
is generated without looking at ``y``.  :func:`order_needs_y` tells the caller which case
it is in, so that it can say so.

The ordering callable contract
------------------------------
Every ``order=`` of streamreg (:func:`order_columns`, ``select(order=)``, a formula's
``stream(x*, order=name)`` with ``functions={name: f}``) accepts a callable, and this
module is the one place that calls it (:func:`order_scores`):

* ``f(X) -> scores`` or ``f(X, y) -> scores``.  ``X`` is the ``n x p`` candidate matrix
  (as given to :func:`order_columns`; a float array elsewhere), ``scores`` ``p`` numbers:
  largest first, ties keep the column order, NaN last.
* ``f`` is called as ``f(X, y)`` when it has a second required positional parameter (or
  ``*args``), else as ``f(X)``, which never sees the response.
* ``f(X, y)`` looks at the response: the order voids the wealth guarantee (the results
  say so) and needs ``y``.  A callable that takes ``y`` only to fit this shape declares
  ``f.needs_y = False`` and is then called with ``None`` for ``y``, so the promise holds.
  ``f.needs_y = True`` marks an ``f(X)`` that reaches the response some other way.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._inputs import as_matrix
from .offline import METHODS, canonical_method, score

__all__ = ["ORDERS", "order_columns", "order_needs_y", "order_scores", "order_takes_y"]

#: orders that do not look at the response
ORDERS = ("given", "variance", "random")

#: ``f(X) -> scores`` or ``f(X, y) -> scores``; see the module docstring
OrderCallable = Callable[..., Any]
Order = str | OrderCallable

_SHAPE = ("an order callable is called as f(X) or f(X, y) (X the candidate matrix, y the "
          "response) and returns one score per column, largest first")


def _describe(fn: Callable) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def order_takes_y(order: OrderCallable) -> bool:
    """Whether an ordering callable is called as ``f(X, y)`` (True) or ``f(X)`` (False).

    It is ``f(X, y)`` when it has two required positional parameters or ``*args``.  A
    callable whose signature cannot be read (some builtins) is called as ``f(X)``.

    Raises
    ------
    TypeError
        When ``order`` cannot be called either way (no positional parameter, more than
        two required ones, or a required keyword-only one).

    Examples
    --------
    >>> from streamreg.screening.ordering import order_takes_y
    >>> order_takes_y(lambda X: X.var(axis=0)), order_takes_y(lambda X, y: y @ X)
    (False, True)
    """
    try:
        params = list(inspect.signature(order).parameters.values())
    except (TypeError, ValueError):
        return False  # no signature to read: the y-free shape, the only one that cannot leak y
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is p.empty for p in positional)
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    keyword_only = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    problem = None
    if keyword_only:
        problem = f"required keyword-only argument(s) {keyword_only}"
    elif required > 2:
        problem = f"{required} required positional arguments"
    elif not positional and not varargs:
        problem = "no positional argument"
    if problem:
        raise TypeError(f"{_SHAPE}; {_describe(order)} takes {problem}")
    return required == 2 or varargs


def order_needs_y(order: Order) -> bool:
    """True when ``order`` uses the response (screening scores, callables given ``y``).

    A callable uses ``y`` when it is called as ``f(X, y)`` (see the module docstring),
    unless it has an attribute ``needs_y = False``; ``needs_y = True`` marks a ``f(X)``
    callable as using the response too.

    Parameters
    ----------
    order : str or callable
        An ``order=`` value of a stream.

    Returns
    -------
    bool

    Examples
    --------
    >>> from streamreg.screening import order_needs_y
    >>> order_needs_y("variance"), order_needs_y("t-score")
    (False, True)
    >>> order_needs_y(lambda X: X.var(axis=0)), order_needs_y(lambda X, y: y @ X)
    (False, True)
    """
    if callable(order):
        declared = getattr(order, "needs_y", None)
        return order_takes_y(order) if declared is None else bool(declared)
    if isinstance(order, str) and order.lower() in ORDERS:
        return False
    canonical_method(order)  # raises a clear error for unknown names
    return True


def order_scores(order: OrderCallable, X: Any, y: Any, p: int, what: str | None = None) -> np.ndarray:
    """Call an ordering callable as the contract says and check what it returns.

    Parameters
    ----------
    order : callable
        ``f(X)`` or ``f(X, y)``, see the module docstring.
    X : array-like, shape (n, p)
        The candidates, passed on unchanged.
    y : array-like or None
        The response; passed only to a callable that takes it and does not declare
        ``needs_y = False``.
    p : int
        Number of candidates (columns of ``X``).
    what : str, optional
        What is being ordered, prefixed to error messages.

    Returns
    -------
    ndarray of float64, shape (p,)
        The scores, NaN replaced by ``-inf`` (so NaN goes last).

    Raises
    ------
    TypeError
        When ``order`` has neither shape.
    ValueError
        When it needs ``y`` and ``y`` is None, or does not return ``p`` numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.screening.ordering import order_scores
    >>> X = np.array([[1., 0.], [3., 0.]])
    >>> order_scores(lambda X: X.var(axis=0), X, None, 2).tolist()
    [1.0, 0.0]
    """
    prefix = f"{what}: " if what else ""
    if order_takes_y(order):
        if not order_needs_y(order):
            raw = order(X, None)  # it declared needs_y = False: keep it to its word
        elif y is None:
            raise ValueError(f"{prefix}the order callable {_describe(order)} takes the response, f(X, y), but "
                             "no response was given; pass y, or make it f(X)")
        else:
            raw = order(X, y)
    else:
        raw = order(X)
    try:
        if raw is None:  # np.asarray would read it as one NaN score
            raise TypeError
        scores = np.asarray(raw, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{prefix}the order callable {_describe(order)} returned {type(raw).__name__}, not "
                         f"numbers; it must return one score per column ({p}), largest first") from None
    if scores.shape != (p,):
        raise ValueError(f"{prefix}the order callable {_describe(order)} returned {scores.size} scores (shape "
                         f"{np.shape(raw)}) for {p} columns; it must return one score per column (largest first)")
    return np.where(np.isnan(scores), -np.inf, scores)


def order_columns(X: Any, y: Any = None, order: Order = "given", seed: int | None = None,
                  **score_kwargs: Any) -> np.ndarray:
    """Permutation of the columns of ``X``: the stream visits ``X[:, perm]`` in order.

    Parameters
    ----------
    X : array-like, DataFrame or scipy.sparse matrix, shape (n, p)
    y : array-like, optional
        Needed by screening-method orders and by callables that take it.
    order : str or callable, default 'given'
        ``'given'`` (column order), ``'variance'`` (largest variance first),
        ``'random'`` (uniform permutation from ``seed``), a screening method name (see
        :func:`screening.score`; most relevant first), or a callable ``f(X)`` or
        ``f(X, y)`` returning ``p`` scores, largest first (see the module docstring).
        Ties keep column order; NaN scores go last.
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
    >>> order_columns(X, order=lambda X: -X[0]).tolist()
    [0, 1, 2]
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
        p = as_matrix(X, want_names=False)[0].shape[1]
        return _descending(order_scores(order, X, y, p))
    if not isinstance(order, str):  # a ValueError since version 0.1: callers catch it
        raise ValueError(  # noqa: TRY004
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
