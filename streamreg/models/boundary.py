"""The separation verdict of :mod:`.separation` at a fraction of its cost, where maths allows.

:func:`~.separation.is_separated` solves Konis' linear programme over every row: maximise
``c'b = sum_i a_i'b`` subject to ``a_i'b >= 0`` (``a_i = s_i z_i``, ``s_i = +1`` for
``y = 1``, ``-1`` for ``y = 0``), ``z_i'b = 0`` for the other rows and ``|b_j| <= 1``, on
columns ``z`` scaled to a largest magnitude of 1; the data are separated when the optimum
exceeds ``_TOL n``.  A search asks it whenever a fit comes near the boundary, and at
n = 1e6 some fitted mean always does.  Three cheaper routes reach the same verdict:

* :func:`overlap_certified` -- a converged fit proves that the optimum is below the
  threshold.  With the score factors ``f_i`` (the score is ``X'f``), ``lambda_i = s_i f_i``
  is positive on every inequality row and ``g = Z'f = sum_i lambda_i a_i + sum_eq f_i z_i``
  is the score, about 0.  For a feasible ``b`` every ``lambda_i a_i'b`` is >= 0 and they
  sum to ``b'g <= G = ||g||_1``.  Rows with ``lambda_i >= tau`` ("interior", I) therefore
  have ``sum_I a_i'b <= G / tau`` and ``||A_I b|| <= G / tau``; with the equality rows
  (``E b = 0``) that bounds ``||b|| <= G / (tau sigma)``, sigma the smallest singular value
  of ``[A_I; E]``, and the remaining rows (B) add at most ``||sum_B a_i|| ||b||``.  The
  bound ``G / tau (1 + ||sum_B a_i|| / sigma)`` below the threshold is the LP's verdict
  "not separated" (Stiemke's alternative with a residual).
* :func:`separates` -- IRLS on separated data drifts along a separating direction; its
  last step, checked against every row, is a feasible ``b`` whose objective above the
  threshold is the verdict "separated".
* :func:`separated_by_cuts` -- the LP itself over the rows that decide it: the full
  objective, the constraints of a subset of rows (those near the boundary and a sample),
  and rows added while the solution violates them.  Each programme is a relaxation, so an
  optimum below the threshold is the full verdict, and a solution feasible for every row
  is the full optimum.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linprog

from .base import column_peaks
from .families import spec_of
from .separation import _TOL, is_separated

#: a constraint ``a_i'b >= 0`` (or ``z_i'b = 0``) counts as met within this, HiGHS' primal
#: feasibility tolerance
_FEASIBLE = 1e-7
#: with fewer rows than this the LP runs on all of them (its set-up costs more than cuts save)
_CUT_FROM = 5_000
#: rows sampled into the first programme of the cutting-plane LP, and rows added per round
_SAMPLE, _ADD = 2_000, 2_000
#: fitted means this close to the boundary start the cutting-plane LP's rows
_NEAR = 1e-4


@dataclass(frozen=True)
class LPRows:
    """The separation LP's rows: the design ``x`` (rows with positive weight), per-column
    scales (the LP's ``z = x / scale`` on the kept columns), and the sign of each row
    (``+1``/``-1``: inequality rows; ``0``: an equality row, a proportion strictly inside)."""

    x: np.ndarray
    #: the response as the LP of :func:`~.separation.is_separated` takes it (counts: 0 / 0.5)
    response: np.ndarray
    scale: np.ndarray
    keep: np.ndarray
    sign: np.ndarray

    @classmethod
    def build(cls, x: np.ndarray, y: np.ndarray, family: Any) -> LPRows | None:
        """The LP's rows for a family that can separate (None for other families)."""
        kind = spec_of(family).separation
        if kind is None:
            return None
        if kind == "counts":
            y = np.where(y > 0, 0.5, 0.0)
        scale = column_peaks(x) if len(y) else np.zeros(x.shape[1])
        sign = np.where(y >= 1, 1.0, np.where(y <= 0, -1.0, 0.0))
        return cls(x, y, scale, scale > 0, sign)

    @property
    def n(self) -> int:
        return len(self.sign)

    @property
    def kept(self) -> np.ndarray:
        """The kept columns of ``x``: ``x`` itself when every column is kept (the usual case;
        a boolean index would copy the whole design)."""
        return self.x if self.keep.all() else self.x[:, self.keep]

    def zb(self, b: np.ndarray) -> np.ndarray:
        """``z_i'b`` of every row, for ``b`` over the kept columns."""
        return np.asarray(self.kept @ (b / self.scale[self.keep]))


def overlap_certified(rows: LPRows, score_factor: np.ndarray) -> bool:
    """Whether the score factors ``f`` of a converged fit prove the LP's optimum below its
    threshold (see the module docstring); False means "not shown", never "separated".

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> rng = np.random.default_rng(1)
    >>> x = np.column_stack([np.ones(400), rng.standard_normal(400)])
    >>> y = (rng.random(400) < 0.5).astype(float)
    >>> fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-12)
    >>> overlap_certified(LPRows.build(x, y, sm.families.Binomial()), y - fit.fittedvalues)
    True
    """
    if not rows.keep.any():
        return True  # no column: the LP's only solution is b = 0
    with np.errstate(all="ignore"):
        lam = rows.sign * score_factor
        ineq = rows.sign != 0
        if not (np.isfinite(score_factor).all() and (lam[ineq] > 0).all()):
            return False
        x = rows.kept
        inv = 1.0 / rows.scale[rows.keep]
        # the score by pairwise sums (numpy's along a contiguous axis), whose rounding is at
        # most (log2 n + 24) eps sum_i |z_ij f_i| <= that times sum_i |f_i| (|z| <= 1): with it
        # the bound holds for the exact score, which is far smaller at n = 1e6 than a BLAS
        # product's worst case (n eps)
        g = np.array([np.sum(x[:, j] * score_factor) for j in range(x.shape[1])]) * inv
        rounding = (np.log2(max(rows.n, 2)) + 24) * np.finfo(float).eps * float(np.abs(score_factor).sum())
        big_g = float(np.abs(g).sum()) + x.shape[1] * rounding
        gram = (x.T @ x) * np.outer(inv, inv)
        # the Gram matrix minus some rows' outer products, rounded: each entry is off by at most
        # n eps sqrt(G_jj G_ll), so the matrix (and its eigenvalues) by 2 n eps k trace(G)
        gram_err = 2 * rows.n * np.finfo(float).eps * float(np.trace(gram)) * x.shape[1]
        top = float(lam[ineq].max()) if ineq.any() else 1.0
        limit = _TOL * rows.n
        for rel in (1e-2, 1e-4, 1e-6):
            tau = rel * top
            low = ineq & (lam < tau)
            zb = x[low] * inv
            sigma2 = float(np.linalg.eigvalsh(gram - zb.T @ zb)[0]) - gram_err
            if sigma2 <= 0:
                continue
            lam_i = float(lam[ineq & ~low].min()) if (ineq & ~low).any() else np.inf
            c_b = float(np.linalg.norm((rows.sign[low, None] * zb).sum(axis=0)))
            if big_g / lam_i * (1.0 + c_b / np.sqrt(sigma2)) <= limit:
                return True
    return False


def separates(rows: LPRows, direction: np.ndarray) -> bool:
    """Whether ``direction`` (coefficients of ``x``) is feasible for the LP, within its
    tolerance, with an objective above the threshold: then the LP says "separated".

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> rows = LPRows.build(x, np.array([1, 1, 1, 0, 1, 0.]), sm.families.Binomial())
    >>> separates(rows, np.array([1.0, -1.0])), separates(rows, np.array([0.0, 1.0]))
    (True, False)
    """
    b = np.asarray(direction, dtype=float)[rows.keep] * rows.scale[rows.keep]
    peak = float(np.abs(b).max()) if b.size else 0.0
    if not np.isfinite(peak) or peak == 0:
        return False
    with np.errstate(all="ignore"):
        a = rows.sign * rows.zb(b / peak)
    ineq = rows.sign != 0
    if (a[ineq] < -_FEASIBLE).any() or (np.abs(a[~ineq]) > _FEASIBLE).any():
        return False
    return bool(a[ineq].sum() > _TOL * rows.n)


def a_column_separates(rows: LPRows, first: int = 0) -> bool:
    """Whether one column alone, either way round, is a separating direction (:func:`separates`
    of ``+-e_j``): a column whose non-zero rows all have one outcome, the usual way sparse
    candidates (a rare word, a rare variant) separate a response.  Only columns ``first``
    on are looked at (those of a candidate added to a model whose MLE exists: no column of
    that model separates alone).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.column_stack([np.ones(5), [0, 0, 2, 0, 1.0]])
    >>> a_column_separates(LPRows.build(x, np.array([0, 1, 1, 0, 1.0]), sm.families.Binomial()))
    True
    """
    cols = np.flatnonzero(rows.keep)
    cols = cols[cols >= first]
    if cols.size == 0 or rows.n == 0:  # no rows: no total above the threshold
        return False
    # a view when the columns are a run (the usual case), so nothing n x k is gathered by row
    x = rows.x[:, cols[0]:cols[-1] + 1] if cols[-1] - cols[0] == cols.size - 1 else rows.x[:, cols]
    eq = rows.sign == 0
    with np.errstate(all="ignore"):
        a = np.multiply(x, rows.sign[:, None])  # 0 on the equality rows (sign 0)
        a /= rows.scale[cols]  # in place: one n x k temporary
        on_eq = (x[eq] != 0).any(axis=0) if eq.any() else np.zeros(x.shape[1], bool)
        total = a.sum(axis=0)
        # all non-negative (non-positive) by the smallest (largest) value: a NaN fails both, as in
        # a comparison, and no boolean n x k temporary is made
        up = (a.min(axis=0) >= 0) & (total > _TOL * rows.n)
        down = (a.max(axis=0) <= 0) & (-total > _TOL * rows.n)
    return bool(((up | down) & ~on_eq).any())


def separated_by_cuts(rows: LPRows, near: np.ndarray | None = None) -> bool:
    """:func:`~.separation.is_separated` on ``rows`` (the same verdict), solving LPs over
    the rows that decide it: first those in ``near`` (a mask: rows near the boundary) and
    an even sample, then the rows the last solution violates, until none is.

    With fewer than ``_CUT_FROM`` rows the full LP runs at once.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> rng = np.random.default_rng(0)
    >>> x = np.column_stack([np.ones(20_000), rng.standard_normal(20_000)])
    >>> y = (x[:, 1] > 0).astype(float)  # separated by the sign of the column
    >>> rows = LPRows.build(x, y, sm.families.Binomial())
    >>> y2 = (rng.random(20_000) < 0.5).astype(float)
    >>> separated_by_cuts(rows), separated_by_cuts(LPRows.build(x, y2, sm.families.Binomial()))
    (True, False)
    """
    if rows.n < _CUT_FROM or not rows.keep.any():
        return is_separated(rows.x, rows.response)
    ineq = rows.sign != 0
    inv = 1.0 / rows.scale[rows.keep]
    x = rows.kept
    c = ((rows.sign[ineq] @ x[ineq]) * inv)
    chosen = np.zeros(rows.n, dtype=bool)
    chosen[np.linspace(0, rows.n - 1, min(_SAMPLE, rows.n)).astype(int)] = True
    if near is not None:
        chosen |= near
    limit = _TOL * rows.n
    while True:
        idx = np.flatnonzero(chosen)
        z = x[idx] * inv
        s = rows.sign[idx]
        iq = s != 0
        res = linprog(c=-c, A_ub=-(z[iq] * s[iq, None]), b_ub=np.zeros(int(iq.sum())),
                      A_eq=z[~iq] if (~iq).any() else None, b_eq=np.zeros(int((~iq).sum())) if (~iq).any() else None,
                      bounds=[(-1.0, 1.0)] * z.shape[1], method="highs")
        if res.status != 0:  # as is_separated: be conservative
            return False
        assert res.fun is not None and res.x is not None
        if -res.fun <= limit:
            return False  # a relaxation's optimum bounds the full one
        a = rows.sign * (x @ (res.x * inv))
        violated = np.where(ineq, -a, np.abs(a)) > _FEASIBLE
        violated &= ~chosen
        if not violated.any():
            return True  # feasible for every row: the full optimum, above the threshold
        worst = np.flatnonzero(violated)
        if worst.size > _ADD:
            worst = worst[np.argsort(np.where(ineq, -a, np.abs(a))[worst])[-_ADD:]]
        chosen[worst] = True


def boundary_gap(family: Any, mu: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Each fitted mean's distance from where the MLE can fail to exist: ``min(mu, 1 - mu)``
    for a 0/1 response, ``mu`` for counts (only at zero counts when ``y`` is given), ``inf``
    for families without that boundary.

    The one measure behind the three boundary questions: :func:`~.glm_fit.needs_mle_check`
    (any gap below ``1e-6``: run the exact test), :func:`separated_at` (rows with a gap below
    ``1e-4`` seed its LP) and ``GLMState.boundary_share`` (the share below ``1e-4``).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> boundary_gap(sm.families.Binomial(), np.array([0.2, 0.99]))
    array([0.2 , 0.01])
    >>> boundary_gap(sm.families.Poisson(), np.array([1e-9, 1e-9]), y=np.array([0.0, 2.0]))
    array([1.e-09,    inf])
    """
    mu = np.asarray(mu, dtype=float)
    kind = spec_of(family).separation
    if kind == "binary":
        return np.minimum(mu, 1 - mu)
    if kind == "counts":
        return mu if y is None else np.where(np.asarray(y) == 0, mu, np.inf)
    return np.full(mu.shape, np.inf)


def separated_at(x: np.ndarray, y: np.ndarray, family: Any, mu: np.ndarray,
                 prior: np.ndarray | float = 1.0, rows: np.ndarray | None = None) -> bool:
    """The verdict: ``not mle_exists(x[rows], y[rows], family)`` for data with a fit whose means are ``mu``.

    The fit's score (prior weights ``prior``) may certify the overlap
    (:func:`overlap_certified`); otherwise the LP runs over the rows that decide it
    (:func:`separated_by_cuts`), starting from those with means within ``1e-4`` of the
    boundary.  ``rows``: the rows with positive weight (None: all).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> y = np.array([1, 1, 1, 0, 1, 0.])
    >>> fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(maxiter=30)
    >>> separated_at(x, y, sm.families.Binomial(), fit.fittedvalues)
    True
    """
    x, y, mu = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(mu, dtype=float)
    with np.errstate(all="ignore"):
        factor = np.broadcast_to(prior * (y - mu) / (family.variance(mu) * family.link.deriv(mu)), y.shape)
        near = boundary_gap(family, mu) < _NEAR
    if rows is not None:
        x, y, factor, near = x[rows], y[rows], factor[rows], near[rows]
    lp = LPRows.build(x, y, family)
    if lp is None:
        return False
    return not overlap_certified(lp, factor) and separated_by_cuts(lp, near)
