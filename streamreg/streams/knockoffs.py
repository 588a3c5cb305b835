"""Second-order (Gaussian) model-X knockoff copies of a matrix of candidates.

A knockoff copy ``X~`` of ``X`` is built so that, for every column ``j``, swapping ``x_j`` with
``x~_j`` leaves the joint law of ``[X, X~]`` unchanged, while ``X~`` is independent of the
response given ``X`` (Candès, Fan, Janson and Lv 2018).  For Gaussian ``X`` with correlation
``R`` the copy is drawn from the conditional law

    Z~ | Z ~ N(Z - Z R^-1 S, 2S - S R^-1 S),      S = s I (equicorrelated, s <= 2 lambda_min(R)),

on standardised columns ``Z``.  ``R`` is not known, so it is estimated with Ledoit and Wolf's
(2004) shrinkage towards the identity, which keeps it well conditioned when there are more
columns than rows; the copies are then exchangeable only to second order and only as far as the
estimate is right (Barber, Candès and Samworth 2020 bound the resulting excess FDR).
"""
from __future__ import annotations

import numpy as np

__all__ = ["KNOCKOFF_MAX_COLUMNS", "gaussian_knockoffs", "ledoit_wolf_correlation"]

#: widest stream given knockoff copies: the copy needs an eigendecomposition of an m x m matrix
KNOCKOFF_MAX_COLUMNS = 5000
#: the equicorrelated ``s`` is kept this fraction below ``2 lambda_min`` so that the
#: conditional covariance stays positive definite in floating point
_S_MARGIN = 0.999


def ledoit_wolf_correlation(z: np.ndarray) -> tuple[np.ndarray, float]:
    """Ledoit-Wolf shrinkage estimate of the correlation of standardised columns ``z``.

    Returns ``(R, delta)`` with ``R = (1 - delta) C + delta I``, ``C = z'z / n`` and the
    shrinkage ``delta`` of Ledoit and Wolf (2004) towards the identity (the target's scale is
    ``tr(C)/m = 1`` for standardised columns).  The rows' spread needs only their squared
    norms: ``sum_k ||z_k z_k' - C||_F^2 = sum_k ||z_k||^4 - n ||C||_F^2``.
    """
    n, m = z.shape
    cov = z.T @ z / n
    cov_sq = float(np.sum(cov * cov))
    dist2 = (cov_sq - 2 * np.trace(cov) + m) / m  # ||C - I||_F^2 / m
    spread = float(np.sum(np.einsum("ij,ij->i", z, z) ** 2)) - n * cov_sq
    b2 = min(spread / n**2 / m, dist2)
    delta = 1.0 if dist2 == 0 else b2 / dist2
    shrunk = (1 - delta) * cov
    shrunk[np.diag_indices(m)] += delta
    return shrunk, float(delta)


def gaussian_knockoffs(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An equicorrelated Gaussian knockoff copy of the columns of ``x`` (``n x m``).

    Columns are standardised (constant columns are copied as they are), the correlation is
    estimated by :func:`ledoit_wolf_correlation`, and the copy is put back on each column's
    mean and scale.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 4))
    >>> xk = gaussian_knockoffs(x, np.random.default_rng(1))
    >>> xk.shape
    (500, 4)
    """
    x = np.asarray(x, dtype=float)
    n, m = x.shape
    if m > KNOCKOFF_MAX_COLUMNS:
        raise ValueError(f"knockoff copies of {m} columns need an eigendecomposition of a {m} x {m} matrix; "
                         f"use decoys='permuted' above {KNOCKOFF_MAX_COLUMNS} columns")
    mean = x.mean(axis=0)
    sd = x.std(axis=0)
    varying = sd > 0
    out = x.copy()
    if not varying.any():
        return out
    z = (x[:, varying] - mean[varying]) / sd[varying]
    corr, _ = ledoit_wolf_correlation(z)
    lam, vec = np.linalg.eigh(corr)
    s = min(1.0, 2 * _S_MARGIN * float(lam[0]))
    # R^-1 S = s V diag(1/lam) V';  chol of 2S - S R^-1 S = V diag(2s - s^2/lam) V'
    inv_s = (vec * (s / lam)) @ vec.T
    root = np.sqrt(np.clip(2 * s - s * s / lam, 0.0, None))
    noise = rng.standard_normal((n, len(lam)))
    z_tilde = z - z @ inv_s + (noise * root) @ vec.T
    out[:, varying] = mean[varying] + sd[varying] * z_tilde
    return out
