"""A GLM's score test of one term from sums over the rows, without the model's n-row basis.

The confirmation's backward elimination (:mod:`streamreg.search.confirm`) refits the screened
model without each of its terms and tests the term against that sub-model.  Of the weighted
design ``A = W^(1/2) X`` at the sub-model's estimate, the score test needs only the products
of its orthonormal basis ``Q`` with the term ``a = W^(1/2) b`` and with the Pearson residuals
``z``.  With ``R'R = X'WX`` (Cholesky) they are ``Q'a = R^-T X'Wb`` and
``Q'z = R^-T X'W^(1/2) z``: two passes over the design and small triangular solves, where
forming ``Q`` (a QR factorisation of the weighted design, with its ``n x k`` storage) costs
about 0.1 s at a million rows, once per term tested.  The robust score test
(:mod:`.robust_score`, for the families tested with an estimated dispersion) needs the
residualised term and Pearson residuals row by row: ``diag(W^(1/2)) (b - X beta)`` with
``beta`` from the same normal equations, two more passes over the design.

Sums of squares lose digits as the squared condition number of the design, so they are used
only where that costs nothing visible: each column of ``A`` keeps at least
:data:`GRAM_MARGIN` of its squared norm outside the span of the columns before it, and so
does the term outside the span of ``A`` (the tests find the statistic within 1e-11 of the
basis path's).  Elsewhere the caller forms the basis and takes the exact path.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky, solve_triangular

from .irls import weighted_gram

#: the share of a column's squared norm that must lie outside the span of the columns before
#: it (the design's) or of the design (the term's) for the sums to be used
GRAM_MARGIN = 1e-2
#: squared norms outside this range are left to the exact path (which rescales such columns)
_SAFE_LOW, _SAFE_HIGH = 2.0**-600, 2.0**600


def _sums(x: np.ndarray, sqrt_w: np.ndarray, z: np.ndarray,
          b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, float] | None:
    """``R`` (``R'R = X'WX``), ``Q'a``, ``Q'z``, ``a``, ``||a||^2`` and ``a'z``, or None where the
    sums would lose digits."""
    with np.errstate(all="ignore"):
        gram, xwb = weighted_gram(x, sqrt_w * sqrt_w, b)
        xz = x.T @ (sqrt_w * z)
        a = sqrt_w * b
        norm2, az = float(a @ a), float(a @ z)
        if not (_SAFE_LOW < norm2 < _SAFE_HIGH and np.isfinite(gram).all() and np.isfinite(xz).all()):
            return None
        try:
            r = cholesky(gram, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        if not (np.isfinite(r).all() and np.all(np.diagonal(r) ** 2 >= GRAM_MARGIN * np.diagonal(gram))):
            return None
        qa = solve_triangular(r, xwb, trans="T", check_finite=False)
        qz = solve_triangular(r, xz, trans="T", check_finite=False)
        if not np.all(np.isfinite(qa)) or norm2 - float(qa @ qa) < GRAM_MARGIN * norm2:
            return None
        return r, qa, qz, a, norm2, az


def single_term_products(x: np.ndarray, sqrt_w: np.ndarray, z: np.ndarray,
                         b: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """``g = [Q'a, z~'a]`` (``z~ = z - QQ'z``), ``||a||^2`` and ``||Q'z||^2`` for the column
    ``b`` against the weighted design ``diag(sqrt_w) x``, or None where the sums would lose
    digits (see the module docstring).  ``z`` is the Pearson residual vector.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.asfortranarray(np.column_stack([np.ones(500), rng.standard_normal(500)]))
    >>> sw, z, b = rng.random(500) + 0.5, rng.standard_normal(500), rng.standard_normal(500)
    >>> g, norm2, restricted = single_term_products(x, sw, z, b)
    >>> q = np.linalg.qr(sw[:, None] * x)[0]
    >>> a, zr = sw * b, z - q @ (q.T @ z)
    >>> bool(np.allclose(g[:-1] ** 2, (q.T @ a) ** 2)), bool(np.isclose(g[-1], zr @ a))
    (True, True)
    """
    found = _sums(x, sqrt_w, z, b)
    if found is None:
        return None
    _, qa, qz, _, norm2, az = found
    return np.append(qa, az - float(qz @ qa)), norm2, float(qz @ qz)


def single_term_robust(x: np.ndarray, sqrt_w: np.ndarray, z: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """The robust score test's parts for the column ``b`` (:mod:`.robust_score`): the score
    ``U = a~'z~`` and its variance ``V = sum_i a~_i^2 z~_i^2``, with ``a~`` and ``z~`` the
    weighted term and the Pearson residuals residualised on the weighted design, formed row by
    row as ``diag(sqrt_w) (b - X beta)`` from the normal equations; or None (see
    :func:`single_term_products`).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = np.asfortranarray(np.column_stack([np.ones(400), rng.standard_normal(400)]))
    >>> sw, z, b = rng.random(400) + 0.5, rng.standard_normal(400), rng.standard_normal(400)
    >>> u, v = single_term_robust(x, sw, z, b)
    >>> q = np.linalg.qr(sw[:, None] * x)[0]
    >>> ar, zr = sw * b - q @ (q.T @ (sw * b)), z - q @ (q.T @ z)
    >>> bool(np.isclose(u, ar @ zr)), bool(np.isclose(v, (ar ** 2) @ (zr ** 2)))
    (True, True)
    """
    found = _sums(x, sqrt_w, z, b)
    if found is None:
        return None
    r, qa, qz, a, _, az = found
    with np.errstate(all="ignore"):
        a_resid = a - sqrt_w * (x @ solve_triangular(r, qa, check_finite=False))  # X beta, R beta = Q'a
        z_resid = z - sqrt_w * (x @ solve_triangular(r, qz, check_finite=False))
        a_resid *= z_resid
        variance = float(a_resid @ a_resid)
    return az - float(qz @ qa), variance
