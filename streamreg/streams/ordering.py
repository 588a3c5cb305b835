"""The ``order=`` option of every formula stream: which candidate is offered first.

``"given"`` keeps the formula/data order, ``"variance"`` puts the largest-variance
candidates first (Zhou et al. 2006, section 6.2), ``"random"`` is a seeded permutation, and any
screening method name of :mod:`streamreg.screening` ranks by a y-dependent score.  A
callable follows the one contract of :mod:`streamreg.screening.ordering`: ``f(X)`` never
sees the response, ``f(X, y)`` does (unless it declares ``needs_y = False``, and then gets
``None``).  Orders that
look at the response are reported by the stream, and the results say that the wealth
guarantee no longer holds.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..lexer import FormulaError
from ..screening import order_columns
from ..screening.ordering import order_needs_y, order_scores
from .arrays import MatrixStream
from .base import Stream
from .sparse import SparseMatrixStream, is_sparse, sparse_variances

Order = str | Callable[..., Any] | None

#: orders that never look at the response
Y_FREE_ORDERS = ("given", "variance", "random")


def order_uses_y(order: Order) -> bool:
    """True when ``order`` ranks candidates with the response.

    Screening scores do; a callable does when it is called as ``f(X, y)`` (see
    :func:`streamreg.screening.ordering.order_needs_y`).

    Examples
    --------
    >>> from streamreg.streams.ordering import order_uses_y
    >>> order_uses_y("variance"), order_uses_y("corr"), order_uses_y(lambda X: X.var(axis=0))
    (False, True, False)
    """
    if order is None:
        return False
    if not (callable(order) or isinstance(order, str)):
        raise TypeError(f"order= must be a string or a callable, got {type(order).__name__}")
    if isinstance(order, str) and order.lower() in Y_FREE_ORDERS:
        return False
    if callable(order):
        return order_needs_y(order)
    try:
        return bool(order_needs_y(order))
    except (ValueError, KeyError) as exc:
        raise ValueError(
            f"unknown order {order!r}: use 'given', 'variance', 'random', a screening method name "
            f"or a callable on the candidate matrix ({exc})"
        ) from None


def resolve_order(option: Any, functions: Mapping[str, Callable], what: str) -> Order:
    """The ``order=`` option of a formula item as a string or callable.

    Parameters
    ----------
    option : Any
        The option as written (a bare word or string); ``"given"`` when absent.
    functions : mapping of str to callable
        ``functions=`` of the formula: a name there means that callable.
    what : str
        The item as written, for error messages.

    Returns
    -------
    str or callable

    Raises
    ------
    FormulaError
        For anything but a known order name or a name of ``functions``.

    Examples
    --------
    >>> from streamreg.streams.ordering import resolve_order
    >>> resolve_order("variance", {}, "stream(x*)")
    'variance'
    """
    if isinstance(option, str) and option in functions:
        return functions[option]
    if not isinstance(option, str):
        raise FormulaError(f"{what}: order= must be a name, got {option!r}")
    try:
        order_uses_y(option)
    except ValueError:
        raise FormulaError(
            f"{what}: unknown order {option!r}; use one of {list(Y_FREE_ORDERS)}, a screening "
            "method name, or the name of a function passed in functions="
        ) from None
    return option


def candidate_order(values: np.ndarray | Any | None, order: Order, *, y: np.ndarray | None = None,
                    seed: int | None = None, n: int | None = None, what: str = "stream") -> np.ndarray | None:
    """Permutation in which the candidates (columns of ``values``) are offered.

    Parameters
    ----------
    values : ndarray or scipy.sparse matrix, shape (n_obs, p), or None
        One column per candidate.  Only needed by orders that score columns; "given"
        and "random" work from the count ``n`` alone.  A sparse matrix goes to screening
        orders and callables as it is.
    order : str, callable or None
        See the module docstring.  Callables get ``values`` (and ``y`` if they take it)
        and return ``p`` scores.
    y : ndarray, optional
        The response, passed to screening-method orders and ``f(X, y)`` callables only.
    seed : int, optional
        Seed of ``"random"``.
    n : int, optional
        Number of candidates when ``values`` is None.
    what : str
        The stream's description, for error messages.

    Returns
    -------
    ndarray of int or None
        None for the given order (no permutation needed).

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.streams.ordering import candidate_order
    >>> X = np.array([[0., 1., 5.], [0., 3., -5.]])
    >>> candidate_order(X, "variance").tolist()
    [2, 1, 0]
    >>> candidate_order(X, lambda X: X[0]).tolist()
    [2, 1, 0]
    >>> candidate_order(None, "given", n=3) is None
    True
    """
    p = values.shape[1] if values is not None else n
    if order is None or (isinstance(order, str) and order.lower() == "given"):
        return None
    if isinstance(order, str) and order.lower() == "random":
        if p is None:
            raise ValueError(f"{what}: order='random' needs the candidates or their number n")
        return np.random.default_rng(seed).permutation(p)
    if values is None:
        raise ValueError(f"{what}: order={order!r} needs single-column candidates to score")
    if callable(order):
        return np.argsort(-order_scores(order, values, y, int(values.shape[1]), what), kind="stable")
    if order.lower() == "variance":
        return np.argsort(-(sparse_variances(values) if is_sparse(values) else np.var(values, axis=0)), kind="stable")
    if not order_uses_y(order):  # pragma: no cover - every y-free name is handled above
        raise ValueError(f"{what}: unknown order {order!r}")
    if y is None:
        raise ValueError(f"{what}: order={order!r} ranks by a screening score and needs the response")
    return np.asarray(order_columns(values, y, order=order, seed=seed), dtype=int)


Seed = int | np.random.Generator | np.random.SeedSequence | None


def item_seed(seed: Seed, position: int) -> int | None:
    """The seed of the stream or formula item at ``position`` derived from the call's ``seed=``.

    Each item gets its own child of ``seed`` (numpy's ``SeedSequence`` spawn keys), so two
    random orders of the same length are not the same permutation.  A ``Generator`` is
    drawn from, as numpy draws from one passed as a seed: reproducible when it is created
    afresh with the same seed.

    Examples
    --------
    >>> from streamreg.streams.ordering import item_seed
    >>> item_seed(5, 0) == item_seed(5, 0), item_seed(5, 0) == item_seed(5, 1), item_seed(None, 0)
    (True, False, None)
    """
    if seed is None:
        return None
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    if isinstance(seed, np.random.SeedSequence):
        child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, position), pool_size=seed.pool_size)
    else:
        child = np.random.SeedSequence(int(seed), spawn_key=(position,))
    return int(child.generate_state(1, np.uint64)[0])


def apply_order(streams: list[Stream], order: Order, y: np.ndarray, seed: int | None) -> list[str]:
    """Permute the columns of matrix streams; returns the streams ordered by y."""
    if order is None or (isinstance(order, str) and order.lower() == "given"):
        return []
    uses_y = order_uses_y(order)
    ordered = []
    several = len(streams) > 1
    for j, s in enumerate(streams):
        if not isinstance(s, MatrixStream):  # ValueError as always: a wrong option value, not a wrong type
            raise ValueError(  # noqa: TRY004
                f"order= applies to array and DataFrame streams; stream {s.name!r} is a generator")
        values = s.values if isinstance(s, SparseMatrixStream) else np.asarray(s.values, dtype=float)
        s.order = candidate_order(values, order, y=y if uses_y else None,
                                  seed=item_seed(seed, j) if several else seed, what=f"stream {s.name!r}")
        if uses_y:
            ordered.append(s.name)
    return ordered

