"""Detecting (quasi-)complete separation in a binary regression by linear programming.

The maximum-likelihood estimate of a logistic (or probit, ...) regression exists iff the
data are *overlapping* (Albert and Anderson 1984).  They are separated -- completely or
quasi-completely -- iff some direction ``b != 0`` has ``x_i'b >= 0`` for every row with
``y_i = 1``, ``x_i'b <= 0`` for every row with ``y_i = 0`` (``= 0`` for rows with a
proportion strictly between), and at least one of these inequalities strict.  Konis
(2007) turns this into a linear programme: maximise ``sum_i s_i x_i'b`` subject to the
sign constraints and ``-1 <= b_j <= 1``; the data are separated iff the optimum is
positive.  scipy's HiGHS solver does the work.

A fitted probability within rounding of 0 or 1 (R's check) is only a symptom, in both
directions: IRLS stops short of the boundary when the likelihood flattens out, as it does
under quasi-complete separation, and well-determined fits of nearly separable data (wdbc
with a dozen features) have fitted probabilities of 1e-16 while the MLE exists.  The LP
decides.

For a Poisson log-linear model the MLE fails to exist iff some ``b != 0`` has
``x_i'b <= 0`` for rows with ``y_i = 0`` and ``x_i'b = 0`` for rows with ``y_i > 0``, one
inequality strict (Haberman 1974): the same programme, with positive counts as rows of
equality.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linprog

from .families import spec_of

#: relative LP optimum above which the data count as separated (of the row count)
_TOL = 1e-7


def is_separated(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether the rows of ``x`` (n x k) separate the binary or proportion response ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> is_separated(x, np.array([1, 1, 1, 0, 1, 0.]))  # x = 0 always gives y = 1
    True
    >>> is_separated(x, np.array([1, 0, 1, 0, 1, 0.]))
    False
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    scale = np.abs(x).max(axis=0)
    keep = scale > 0
    if not keep.any():
        return False
    z = x[:, keep] / scale[keep]
    ones, zeros = y >= 1, y <= 0
    mid = ~(ones | zeros)
    s = np.where(ones, 1.0, -1.0)
    signed = z[ones | zeros] * s[ones | zeros, None]
    res = linprog(
        c=-signed.sum(axis=0),
        A_ub=-signed, b_ub=np.zeros(len(signed)),
        A_eq=z[mid] if mid.any() else None, b_eq=np.zeros(int(mid.sum())) if mid.any() else None,
        bounds=[(-1.0, 1.0)] * z.shape[1], method="highs",
    )
    if res.status != 0:  # infeasible cannot happen (b = 0 is feasible); be conservative
        return False
    assert res.fun is not None  # status 0: solved
    return bool(-res.fun > _TOL * len(y))


def mle_exists(x: np.ndarray, y: np.ndarray, family: Any) -> bool:
    """Whether the GLM maximum-likelihood estimate exists, for families where it can fail.

    Binomial and Poisson use the linear programme above (``FamilySpec.separation``); other
    families are taken to have an MLE (their IRLS troubles are convergence problems, reported
    as such).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> mle_exists(x, np.array([0, 0, 0, 2, 1, 3.]), sm.families.Poisson())  # group 0 all zero
    False
    >>> mle_exists(x, np.array([0, 1, 0, 2, 1, 3.]), sm.families.Poisson())
    True
    """
    y = np.asarray(y, dtype=float)
    separation = spec_of(family).separation
    if separation == "binary":
        return not is_separated(x, y)
    if separation == "counts":
        return not is_separated(x, np.where(y > 0, 0.5, 0.0))
    return True


def one_outcome_indicators(x: np.ndarray, y: np.ndarray, family: Any) -> np.ndarray:
    """Positions of the 0/1 columns of ``x`` whose rows with a 1 all have a boundary response.

    The usual reason why fixed terms alone separate the response: a factor level (or a
    dummy) seen with one outcome only -- every ``y = 1`` (or every ``y = 0``) for a binomial
    model, every count zero for a Poisson model.  Each such column is a sufficient cause of
    separation; the linear programme above may also find others, made of several columns.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.column_stack([np.ones(6), [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 1]])
    >>> one_outcome_indicators(x, np.array([0, 1, 1, 1, 0, 1.]), sm.families.Binomial())
    array([1])
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    separation = spec_of(family).separation
    if separation == "binary":
        low, high = y <= 0, y >= 1
    elif separation == "counts":
        low, high = y <= 0, np.zeros(len(y), dtype=bool)
    else:
        return np.array([], dtype=int)
    ones = x == 1
    indicator = ((x == 0) | ones).all(axis=0) & ones.any(axis=0) & ~ones.all(axis=0)
    n_ones = ones.sum(axis=0)
    pure = (ones & low[:, None]).sum(axis=0) == n_ones
    pure |= (ones & high[:, None]).sum(axis=0) == n_ones
    return np.flatnonzero(indicator & pure)
