"""Detecting (quasi-)complete separation in a binary regression by linear programming.

The maximum-likelihood estimate of a logistic (or probit, ...) regression exists iff the
data are *overlapping* (Albert and Anderson 1984).  They are separated -- completely or
quasi-completely -- iff some direction ``b != 0`` has ``x_i'b >= 0`` for every row with
``y_i = 1``, ``x_i'b <= 0`` for every row with ``y_i = 0`` (``= 0`` for rows with a
proportion strictly between), and at least one of these inequalities strict.  Konis
(2007) turns this into a linear programme: maximise ``sum_i s_i x_i'b`` subject to the
sign constraints and ``-1 <= b_j <= 1``; the data are separated iff the optimum is
positive.  scipy's HiGHS solver does the work.

A fitted probability within rounding of 0 or 1 (R's check) is only a symptom: IRLS stops
short of the boundary when the likelihood flattens out, as it does under quasi-complete
separation, so the symptom can be missed.  The LP decides.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

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
    return -res.fun > _TOL * len(y)
