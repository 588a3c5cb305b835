"""The ``order=`` option of every formula stream: which candidate is offered first.

``"given"`` keeps the formula/data order, ``"variance"`` puts the largest-variance
candidates first (paper 000, section 6.2), ``"random"`` is a seeded permutation, a
callable ``f(X) -> scores`` sees only the candidate matrix (largest score first), and any
screening method name of :mod:`streamreg.screening` ranks by a y-dependent score.  The
last kind looks at the response, so the stream reports it and the results say that the
wealth guarantee no longer holds.
"""
from __future__ import annotations

from typing import Any, Callable, Union

import numpy as np

Order = Union[str, Callable[[np.ndarray], Any], None]

#: orders that never look at the response
Y_FREE_ORDERS = ("given", "variance", "random")


def order_uses_y(order: Order) -> bool:
    """True when ``order`` ranks candidates with the response (screening scores)."""
    if order is None or callable(order):
        return False  # callables are called with the candidate matrix only
    if not isinstance(order, str):
        raise TypeError(f"order= must be a string or a callable, got {type(order).__name__}")
    if order.lower() in Y_FREE_ORDERS:
        return False
    try:
        from ..screening import order_needs_y
    except ImportError:  # pragma: no cover - the screening package ships with streamreg
        raise ValueError(f"unknown order {order!r}; use one of {Y_FREE_ORDERS} or a callable") from None
    try:
        return bool(order_needs_y(order))
    except (ValueError, KeyError) as exc:
        raise ValueError(
            f"unknown order {order!r}: use 'given', 'variance', 'random', a screening method name "
            f"or a callable on the candidate matrix ({exc})"
        ) from None


def candidate_order(values: np.ndarray | None, order: Order, *, y: np.ndarray | None = None,
                    seed: int | None = None, n: int | None = None, what: str = "stream") -> np.ndarray | None:
    """Permutation in which the candidates (columns of ``values``) are offered.

    Parameters
    ----------
    values : ndarray, shape (n_obs, p), or None
        One column per candidate.  Only needed by orders that score columns; "given"
        and "random" work from the count ``n`` alone.
    order : str, callable or None
        See the module docstring.  Callables receive ``values`` and return ``p`` scores.
    y : ndarray, optional
        The response, passed to screening-method orders only.
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
    """
    p = values.shape[1] if values is not None else n
    if order is None or (isinstance(order, str) and order.lower() == "given"):
        return None
    if isinstance(order, str) and order.lower() == "random":
        return np.random.default_rng(seed).permutation(p)
    if values is None:
        raise ValueError(f"{what}: order={order!r} needs single-column candidates to score")
    if callable(order):
        scores = np.asarray(order(values), dtype=float).ravel()
        if scores.shape != (p,):
            raise ValueError(
                f"{what}: the order callable must return one score per candidate ({p}), "
                f"got shape {np.shape(scores)}"
            )
        scores = np.where(np.isnan(scores), -np.inf, scores)
        return np.argsort(-scores, kind="stable")
    if order.lower() == "variance":
        return np.argsort(-np.var(values, axis=0), kind="stable")
    if not order_uses_y(order):  # pragma: no cover - every y-free name is handled above
        raise ValueError(f"{what}: unknown order {order!r}")
    if y is None:
        raise ValueError(f"{what}: order={order!r} ranks by a screening score and needs the response")
    from ..screening import order_columns

    return np.asarray(order_columns(values, y, order=order, seed=seed), dtype=int)
