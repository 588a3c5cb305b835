"""The orthonormal basis of a model's design, grown as terms enter.

:class:`Basis` keeps ``Q`` (orthonormal columns spanning the current design) for the
least-squares and GLM states; :func:`cholesky_qr2` orthonormalises a tall block of columns
in a few level-3 passes, for a basis built at once and for the final least-squares refit.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky
from scipy.linalg.blas import dgemv, dsyrk, dtrsm

#: a candidate whose residual (after projecting out the model) keeps less than this
#: fraction of its squared norm is numerically collinear with the model and is skipped:
#: R's ``lm``/``glm`` tolerance (1e-7 of the norm), so that a column with a large offset,
#: e.g. a nanosecond timestamp spread over hours (1.6e18 + 1e13 x), is still a candidate
COLLINEAR_TOL = 1e-14

#: Gram-Schmidt projects a new column out of the basis a second time only when the first
#: projection removed more than this share of its norm (the Kahan-Parlett / DGKS criterion,
#: "twice is enough"): otherwise one projection is orthogonal to working precision already
REORTHOGONALISE_BELOW = 1 / np.sqrt(2)

#: Cholesky QR is left to other methods where a diagonal entry of R falls below this share of
#: its column's norm (a condition number near 1e5 or more; exact to about 1e-8 up to there)
CHOLESKY_QR_MARGIN = 1e-5


def cholesky_qr2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``Q`` and ``R`` of ``x = Q R`` (Q column-ordered, R upper triangular with a positive
    diagonal) by Cholesky QR applied twice (Yamamoto et al. 2015, "CholeskyQR2"), or None where
    that would not be exact (see :func:`cholesky_qr2_in_place`).  ``x`` is not modified.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((100, 3))
    >>> q, r = cholesky_qr2(x)
    >>> bool(np.allclose(q.T @ q, np.eye(3), atol=1e-14)), bool(np.allclose(q @ r, x))
    (True, True)
    """
    q = np.array(x, dtype=float, order="F")
    r = cholesky_qr2_in_place(q)
    return None if r is None else (q, r)


def cholesky_qr2_in_place(q: np.ndarray) -> np.ndarray | None:
    """Overwrite the column-ordered ``n x k`` array ``q`` with the Q of ``q = Q R`` and return
    R, or return None (``q`` then holds no meaningful values) where Cholesky QR would not be
    exact: a non-finite value, a Gram matrix that is not positive definite, or a column whose
    part outside the earlier columns' span is below :data:`CHOLESKY_QR_MARGIN` of its norm.

    Each round is the Gram matrix (BLAS ``syrk``), its Cholesky factor and a triangular solve
    in place (``trsm``): two passes over q and no ``n x k`` temporary.  The second round
    restores orthogonality to machine precision.
    """
    if not (q.ndim == 2 and q.flags.f_contiguous and q.dtype == np.float64):
        raise ValueError("cholesky_qr2_in_place needs a column-ordered float64 matrix")
    r = np.eye(q.shape[1])
    for _ in range(2):
        gram = dsyrk(1.0, q, trans=1)  # the upper triangle of q'q
        norms = np.diagonal(gram)
        if not np.isfinite(norms).all():  # a non-finite value (or squares beyond the range)
            return None
        try:
            upper = cholesky(gram, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.diagonal(upper) > CHOLESKY_QR_MARGIN * np.sqrt(norms)):
            return None
        dtrsm(1.0, upper, q, side=1, overwrite_b=1)  # q <- q upper^-1, in place
        r = upper @ r
    return r


def project_out(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v - Q (Q' v)`` written over ``v`` (a contiguous float64 vector; ``Q`` column-ordered):
    BLAS's ``v := -Q c + v`` with ``c = Q' v``, no temporary of ``v``'s length.  Returns ``v``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, _ = np.linalg.qr(rng.standard_normal((50, 3)))
    >>> v = rng.standard_normal(50)
    >>> expected = v - q @ (q.T @ v)
    >>> bool(np.allclose(project_out(np.asfortranarray(q), v), expected, rtol=0, atol=1e-14))
    True
    """
    if q.shape[1] == 0:
        return v
    out = dgemv(-1.0, q, q.T @ v, beta=1.0, y=v, overwrite_y=True)
    if out is not v:  # BLAS wrote into a copy (never with a contiguous float64 v)
        v[:] = out
    return v


class Basis:
    """An orthonormal basis Q of the current design's column space, grown in place.

    Columns are appended by classical Gram-Schmidt, re-orthogonalised where the first
    projection cancelled most of the column (:data:`REORTHOGONALISE_BELOW`), which keeps Q
    orthonormal to machine precision and makes an
    acceptance cost O(n k) instead of a fresh QR.  The storage keeps one spare column, so
    that ``[Q t]`` (:meth:`with_target`) is a view, not an ``n x (k + 1)`` copy per acceptance.
    """

    def __init__(self, n: int, capacity: int = 16):
        self._q = np.empty((n, max(capacity, 1) + 1), order="F")  # columns contiguous: appended and read whole
        self.k = 0

    @property
    def q(self) -> np.ndarray:
        return self._q[:, : self.k]

    def with_target(self, target: np.ndarray) -> np.ndarray:
        """``[Q t]`` as a view of the storage: valid until the next :meth:`append`."""
        self._q[:, self.k] = target
        return self._q[:, : self.k + 1]

    def residualise(self, b: np.ndarray) -> np.ndarray:
        """``(I - Q Q') b`` for a matrix b (one pass; callers needing exact orthogonality repeat it)."""
        q = self.q
        if self.k == 0:
            return b.copy()
        return b - q @ (q.T @ b)

    def set_rotated(self, q: np.ndarray, rotation: np.ndarray) -> np.ndarray:
        """Make the first ``j`` columns of ``q @ rotation`` the basis and return its last one
        (a view of the storage, valid until the next :meth:`append`).

        With ``q`` another basis and ``rotation = [U d]`` (``U``: ``j`` orthonormal columns),
        one product, one read of ``q``, gives the rotated basis ``q U`` and the vector ``q d``.
        """
        k = rotation.shape[1] - 1
        if k + 1 > self._q.shape[1]:
            self._q = np.empty((self._q.shape[0], k + 1), order="F")
        np.matmul(q, rotation, out=self._q[:, : k + 1])
        self.k = k
        return self._q[:, k]

    def append(self, columns: np.ndarray, row_scale: np.ndarray | None = None, *, scratch: bool = False) -> int:
        """Add the columns' new directions (of ``row_scale[:, None] * columns`` where a row
        scale is given, e.g. a GLM's ``W^1/2``); returns how many were independent.

        Several columns on an empty basis are orthonormalised together by :func:`cholesky_qr2`
        where it is exact (their R has no diagonal entry below 1e-5 of its column's norm, a
        margin over the collinearity cut-off below): the same Q as column by column, in a few
        level-3 passes over the columns instead of ``O(k)`` passes each.

        ``scratch``: the columns are the caller's temporary and may be overwritten, which saves
        a copy of each (a weighted copy made here is one).
        """
        columns = np.asarray(columns)
        if self.k == 0 and columns.ndim == 2 and 1 < columns.shape[1] < self._q.shape[1] \
                and columns.shape[0] >= 4 * columns.shape[1]:
            k = columns.shape[1]
            if row_scale is None:
                self._q[:, :k] = columns
            else:  # weighted straight into the storage: no n x k temporary
                np.multiply(columns, row_scale[:, None], out=self._q[:, :k])
            if cholesky_qr2_in_place(self._q[:, :k]) is not None:
                self.k = k
                return k
        if row_scale is not None:
            columns, scratch = row_scale[:, None] * columns, True
        added = 0
        for col in np.atleast_2d(columns.T):
            v = col if scratch and col.dtype == np.float64 and col.flags.c_contiguous else np.array(col, dtype=float)
            norm0 = np.linalg.norm(v)
            if norm0 == 0:
                continue
            q = self.q
            if self.k:  # (an empty basis projects nothing)
                v = project_out(q, v)
            norm = np.linalg.norm(v) if self.k else norm0
            if norm < REORTHOGONALISE_BELOW * norm0:  # cancellation: project once more
                v = project_out(q, v)
                norm = np.linalg.norm(v)
            if norm <= np.sqrt(COLLINEAR_TOL) * norm0:
                continue
            if self.k + 1 == self._q.shape[1]:  # keep the spare column for the target
                grown = np.empty((self._q.shape[0], 2 * self._q.shape[1]), order="F")
                grown[:, : self.k] = self._q[:, : self.k]
                self._q = grown
            np.divide(v, norm, out=self._q[:, self.k])
            self.k += 1
            added += 1
        return added
