"""Heteroscedasticity- and cluster-robust Wald tests of candidate blocks (least squares).

For a current design X with orthonormal basis Q and residual r, a candidate b enters as
``b~ = (I - QQ')b``.  By Frisch-Waugh-Lovell its coefficient in ``OLS(y, [X, b])`` is
``beta = b~'r / b~'b~`` and the row of ``(Z'Z)^-1 Z'`` (``Z = [X, b]``) that produces it is
``b~' / b~'b~``, so the sandwich variance of beta needs only b~ and the augmented
residual ``e1 = r - beta b~``::

    HC0      sum_i b~_i^2 e1_i^2 / (b~'b~)^2
    HC1      HC0 * n / (n - k - 1)
    HC2/HC3  e1_i^2 divided by (1 - h_i) or (1 - h_i)^2, h_i = h_i(X) + b~_i^2 / b~'b~
    cluster  sum_g (sum_{i in g} b~_i e1_i)^2 / (b~'b~)^2 * G/(G-1) * (n-1)/(n-k-1)

(the leverage of the augmented design is that of X plus that of b~, which is orthogonal
to X).  The Wald statistic ``beta^2 / var`` is then scale-free: ``(b~'r)^2 / (c * meat)``.
For a block of m candidates, b~ is one GEMM (``B - Q (Q'B)``) and every other quantity an
elementwise ``n x m`` pass or a product with the sparse group-indicator matrix, so there is
no Python loop over candidates.  A d-column term (a factor) uses an orthonormal basis of its
residualised columns, in which the bread is the identity; the Wald statistic is invariant
to that change of coordinates.  Terms of the same width are handled as one stack.

The numbers are those of statsmodels ``OLS(y, [X, b]).fit(cov_type=..., cov_kwds=...)``
(``WLS`` with prior weights, whose rows are multiplied by the square roots of the weights):
a chi-square statistic on d degrees of freedom, with normal / chi-square p-values, as
statsmodels uses for every robust covariance (``use_t=False``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .base import column_scales
from .basis import COLLINEAR_TOL

#: statsmodels' names, as accepted by ``cov_type=``
COV_TYPES = ("nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster")

#: values per working slice of a block (2 MB: a few slices stay in a CPU's cache)
_CACHE_VALUES = 2**18

#: squared column norms within which no rescaling is needed (fourth powers stay in range)
_MODERATE_LOW, _MODERATE_HIGH = 2.0**-200, 2.0**200

#: below this fraction of its squared norm left after projection, a candidate is projected
#: a second time (Gram-Schmidt twice), as in the plain scoring
_REPROJECT_BELOW = 1e-4


@dataclass(frozen=True, eq=False)
class RobustCov:
    """A covariance type with statsmodels' name and, for ``"cluster"``, the groups.

    Attributes
    ----------
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"}
    groups : ndarray of int, optional
        Cluster codes ``0 .. G-1``, one per row of the fit (``"cluster"`` only).
    """

    cov_type: str = "nonrobust"
    groups: np.ndarray | None = None

    @property
    def robust(self) -> bool:
        """True for every covariance type but ``"nonrobust"``."""
        return self.cov_type != "nonrobust"

    @property
    def n_groups(self) -> int:
        """Number of clusters (0 without groups)."""
        return 0 if self.groups is None else int(self.groups.max()) + 1

    def take(self, rows: np.ndarray) -> RobustCov:
        """The same covariance on a subset of the rows (groups recoded to ``0 .. G'-1``)."""
        if self.groups is None:
            return self
        return RobustCov(self.cov_type, np.unique(self.groups[rows], return_inverse=True)[1].astype(np.intp))

    def fit_kwargs(self) -> dict[str, object]:
        """Keyword arguments of statsmodels' ``fit`` (empty for ``"nonrobust"``)."""
        if not self.robust:
            return {}
        if self.cov_type == "cluster":
            return {"cov_type": "cluster", "cov_kwds": {"groups": self.groups}}
        return {"cov_type": self.cov_type}

    def describe(self) -> str:
        """The covariance in words, for the test description of the results."""
        if self.cov_type == "cluster":
            return f"cluster-robust ({self.n_groups} clusters)"
        return f"heteroscedasticity-robust ({self.cov_type})"


NONROBUST = RobustCov()


def _indicator(groups: np.ndarray) -> sp.csr_matrix:
    """The sparse ``G x n`` matrix summing rows within clusters."""
    n = len(groups)
    return sp.csr_matrix((np.ones(n), (groups, np.arange(n))), shape=(int(groups.max()) + 1, n))


class RobustScorer:
    """Robust Wald statistics of candidate blocks against one current model.

    Parameters
    ----------
    q : ndarray, shape (n, k)
        Orthonormal basis of the current (row-weighted) design.
    resid : ndarray, shape (n,)
        The current residual, orthogonal to ``q``.
    cov : RobustCov
        A robust covariance type.
    nobs : float
        Observations counted (the row count: frequency weights are refused upstream).
    """

    def __init__(self, q: np.ndarray, resid: np.ndarray, cov: RobustCov, nobs: float):
        self.q, self.r, self.cov, self.nobs = q, resid, cov, float(nobs)
        self.k = q.shape[1]
        #: leverages of the current design (HC2, HC3)
        self.h0 = np.einsum("ij,ij->i", q, q) if cov.cov_type in ("HC2", "HC3") else None
        self._ind = _indicator(cov.groups) if cov.cov_type == "cluster" and cov.groups is not None else None

    def _residualise(self, cols: np.ndarray, norm2: np.ndarray) -> np.ndarray:
        """``(I - QQ') B``, projected twice where little of a column is left."""
        bt = cols - self.q @ (self.q.T @ cols)
        left = np.einsum("ij,ij->j", bt, bt)
        redo = np.flatnonzero(left <= _REPROJECT_BELOW * norm2)
        if redo.size:
            sub = bt[:, redo]
            bt[:, redo] = sub - self.q @ (self.q.T @ sub)
        return bt

    def _correction(self, d: int) -> float:
        """statsmodels' small-sample factor for the augmented model with d more columns."""
        n, k = self.nobs, self.k + d
        dfr = max(n - k, 1e-300)  # no df left: the candidate is skipped anyway
        if self.cov.cov_type == "HC1":
            return n / dfr
        if self.cov.cov_type == "cluster":
            g = self.cov.n_groups
            return g / (g - 1.0) * (n - 1.0) / dfr
        return 1.0

    def _row_weights(self, e: np.ndarray, h_new: np.ndarray) -> np.ndarray:
        """``e1^2`` with HC2's or HC3's leverage correction (elementwise)."""
        e2 = e * e
        if self.h0 is None:
            return e2
        h = self.h0.reshape((-1,) + (1,) * (e.ndim - 1)) + h_new
        one_minus = np.maximum(1.0 - h, np.finfo(float).tiny)  # h = 1: infinite variance, statistic 0
        return e2 / one_minus if self.cov.cov_type == "HC2" else e2 / (one_minus * one_minus)

    def single(self, cols: np.ndarray, norm2: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Wald chi-square (``z^2``), RSS reduction and rank (0/1) of each column of ``cols`` (``n x m``).

        ``cols`` are already row-weighted; ``norm2``, their squared norms if known (a block
        caches them), spares a pass when every column is of a moderate scale.  The block is processed in slices of columns
        small enough for the CPU cache: every step after ``Q'B`` is an elementwise pass, and
        on a slice that stays in cache those passes cost little beside reading the block once.
        """
        m = cols.shape[1]
        stat, gain, rank = np.empty(m), np.empty(m), np.empty(m, dtype=int)
        step = max(16, _CACHE_VALUES // max(cols.shape[0], 1))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            for a in range(0, m, step):
                b = min(a + step, m)
                stat[a:b], gain[a:b], rank[a:b] = self._single_slice(cols[:, a:b],
                                                                     None if norm2 is None else norm2[a:b])
        return stat, gain, rank

    def _single_slice(self, cols: np.ndarray, norm2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`single` on a few columns."""
        if norm2 is None or not ((norm2 > _MODERATE_LOW) & (norm2 < _MODERATE_HIGH)).all():
            # a power-of-two scale per column: exact, and the fourth powers in the meat stay in range
            cols = cols / column_scales(cols)
            norm2 = np.einsum("ij,ij->j", cols, cols)
        bt = self._residualise(cols, norm2)
        s = np.einsum("ij,ij->j", bt, bt)
        collinear = ~(s > COLLINEAR_TOL * norm2)
        s = np.where(collinear, 1.0, s)
        u = self.r @ bt
        # scores b~_i e1_i of the augmented models, e1 = r - beta b~ (in place: one buffer)
        scores = bt * (-u / s)
        scores += self.r[:, None]
        scores *= bt
        if self.cov.cov_type == "cluster":
            assert self._ind is not None
            sums = self._ind @ scores
            meat = np.einsum("ij,ij->j", sums, sums)
        elif self.h0 is None:
            meat = np.einsum("ij,ij->j", scores, scores)
        else:
            # 1 - h of the augmented design: h(X) + b~_i^2 / b~'b~
            room = bt * bt
            room *= -1.0 / s
            room -= self.h0[:, None]
            room += 1.0
            np.maximum(room, np.finfo(float).tiny, out=room)  # h = 1: infinite variance, statistic 0
            scores *= scores
            scores /= room
            if self.cov.cov_type == "HC3":
                scores /= room
            meat = scores.sum(axis=0)
        stat = u * u / (self._correction(1) * meat)
        stat = np.where(collinear, 0.0, np.where(meat > 0, stat, np.where(u == 0, 0.0, np.inf)))
        return stat, np.where(collinear, 0.0, u * u / s), np.where(collinear, 0, 1)

    def multi(self, stack: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Wald chi-square, RSS reduction and rank of terms of one width d (row-weighted).

        ``stack`` holds the terms side by side (``n x m d``).  Each column is put on a
        power-of-two scale (the statistic is invariant to rescaling a term's columns); a
        term's squared norm before projection sets its collinearity threshold, as in the
        plain F test.
        """
        m = stack.shape[1] // d
        stack = stack / column_scales(stack)
        norm2 = np.einsum("ij,ij->j", stack, stack)
        total_sq = norm2.reshape(m, d).sum(axis=1)
        bt = self._residualise(stack, norm2).reshape(self.q.shape[0], m, d).transpose(1, 0, 2)
        basis, tri = np.linalg.qr(bt)  # (m, n, d): an orthonormal basis of each term's new span
        diag2 = np.abs(np.diagonal(tri, axis1=1, axis2=2)) ** 2
        keep = diag2 > COLLINEAR_TOL * np.maximum(total_sq, np.finfo(float).tiny)[:, None]
        rank = keep.sum(axis=1)
        stat, gain = np.zeros(m), np.zeros(m)
        full = np.flatnonzero(rank == d)
        if full.size:
            stat[full], gain[full] = self._wald(basis[full])
        for j in np.flatnonzero((rank > 0) & (rank < d)):  # rank-deficient terms are rare
            sub, _ = np.linalg.qr(bt[j][:, keep[j]])
            (stat[j],), (gain[j],) = self._wald(sub[None])
        return stat, gain, rank

    def _wald(self, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``gamma' V^-1 gamma`` and ``||gamma||^2`` (the RSS reduction) for stacked orthonormal
        bases ``(m, n, d)``, in which the bread is the identity."""
        d = basis.shape[2]
        gamma = np.einsum("mnd,n->md", basis, self.r)
        e = self.r[None, :] - np.einsum("mnd,md->mn", basis, gamma)
        if self.cov.cov_type == "cluster":
            assert self._ind is not None
            m, n = e.shape
            scores = (basis * e[:, :, None]).transpose(1, 0, 2).reshape(n, m * d)
            sums = np.asarray(self._ind @ scores).reshape(-1, m, d)
            meat = np.einsum("gmd,gme->mde", sums, sums)
        else:
            w = self._row_weights(e.T, np.einsum("mnd,mnd->nm", basis, basis)).T
            meat = np.matmul(basis.transpose(0, 2, 1), basis * w[:, :, None])
        cov = self._correction(d) * meat
        try:
            sol = np.linalg.solve(cov, gamma[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:  # a singular meat (fewer clusters than columns): pseudo-inverse
            sol = np.einsum("mde,me->md", np.linalg.pinv(cov), gamma)
        return np.einsum("md,md->m", gamma, sol), np.einsum("md,md->m", gamma, gamma)
