"""A GLM's score test of one term from sums over the rows, without the model's n-row basis.

The confirmation's backward elimination (:mod:`streamreg.search.confirm`) refits the screened
model without each of its terms and tests the term against that sub-model.  Of the weighted
design ``A = W^(1/2) X`` at the sub-model's estimate, the score test needs only the products
of its orthonormal basis ``Q`` with the term ``a = W^(1/2) b`` and with the Pearson residuals
``z``.  With ``R'R = X'WX`` (Cholesky) they are ``Q'a = R^-T X'Wb`` and
``Q'z = R^-T X'W^(1/2) z``: two passes over the design and small triangular solves, where
forming ``Q`` (a QR factorisation of the weighted design, with its ``n x k`` storage) costs
about 0.1 s at a million rows, once per term tested.

Sums of squares lose digits as the squared condition number of the design, so they are used
only where that costs nothing visible: each column of ``A`` keeps at least
:data:`GRAM_MARGIN` of its squared norm outside the span of the columns before it, and so
does the term outside the span of ``A`` (relative rounding of the statistic then stays near
1e-12).  Elsewhere the caller forms the basis and takes the exact path.
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
    w = sqrt_w * sqrt_w
    with np.errstate(all="ignore"):
        gram, xwb = weighted_gram(x, w, b)
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
        return np.append(qa, az - float(qz @ qa)), norm2, float(qz @ qz)
