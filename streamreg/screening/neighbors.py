"""Nearest-neighbour scores: Relief (2.3), ReliefF, and RReliefF for regression (2.19-2.25).

Every feature is scaled by its range, so ``diff(F: a, b) = |a - b| / (max F - min F)``
(2.5) and the Euclidean distance used to find neighbours are on the same scale.  All ``n``
instances are used (no sampling), which makes the scores deterministic; cost is an
``n x n`` distance matrix plus ``k`` passes over the data per class.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._inputs import Matrix

__all__ = ["relieff", "rrelieff"]


def _range_scaled(X: Matrix) -> np.ndarray | sp.csr_matrix:
    if sp.issparse(X):
        A = sp.csr_matrix(X)
        lo = A.min(axis=0).toarray().ravel()  # scipy counts the implicit zeros
        hi = A.max(axis=0).toarray().ravel()
        rng = hi - lo
        scale = np.where(rng > 0, 1.0 / np.where(rng > 0, rng, 1.0), 0.0)
        return sp.csr_matrix(A @ sp.diags(scale))
    rng = X.max(axis=0) - X.min(axis=0)
    scale = np.where(rng > 0, 1.0 / np.where(rng > 0, rng, 1.0), 0.0)
    return X * scale


def _sq_distances(Z: np.ndarray | sp.csr_matrix) -> np.ndarray:
    if sp.issparse(Z):
        sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
        G = (Z @ Z.T).toarray()
    else:
        sq = np.einsum("ij,ij->i", Z, Z)
        G = Z @ Z.T
    D = sq[:, None] + sq[None, :] - 2.0 * G
    np.fill_diagonal(D, np.inf)  # an instance is never its own neighbour
    return D


def _nearest(D: np.ndarray, cols: np.ndarray, k: int) -> np.ndarray:
    """Indices (into all rows) of the ``k`` nearest members of ``cols`` for each row."""
    sub = D[:, cols]
    k = min(k, cols.size)
    idx = np.argsort(sub, axis=1, kind="stable")[:, :k]
    return cols[idx]


def _weighted_absdiff(Z: np.ndarray | sp.csr_matrix, nbr: np.ndarray,
                      coef: np.ndarray) -> np.ndarray:
    """``sum_i coef[i] * |Z[i] - Z[nbr[i]]|`` per column."""
    if sp.issparse(Z):
        diff = abs(Z - Z[nbr])
        return np.asarray(diff.T @ coef).ravel()
    return coef @ np.abs(Z - Z[nbr])


def relieff(X: Matrix, codes: np.ndarray, n_neighbors: int = 10
            ) -> np.ndarray:
    """ReliefF weights; with ``n_neighbors=1`` and two classes this is Relief (2.3).

    ``W_j = (1/(n k)) sum_i [ sum_{c != y_i} P(c)/(1 - P(y_i)) sum_{misses in c} diff
    - sum_{hits} diff ]`` with the ``k`` nearest hits and ``k`` nearest misses per class.
    """
    Z = _range_scaled(X)
    n = Z.shape[0]
    D = _sq_distances(Z)
    C = int(codes.max()) + 1
    prior = np.bincount(codes, minlength=C) / n
    W = np.zeros(Z.shape[1])
    for c in range(C):
        members = np.flatnonzero(codes == c)
        nbrs = _nearest(D, members, n_neighbors)
        same = codes == c
        # hits are searched among the own class without the instance itself (diag = inf)
        k_eff = np.where(same, min(n_neighbors, members.size - 1), min(n_neighbors, members.size))
        miss_w = prior[c] / (1.0 - prior[codes])
        base = np.where(same, -1.0, miss_w) / (n * n_neighbors)
        for r in range(nbrs.shape[1]):
            coef = np.where(r < k_eff, base, 0.0)
            W += _weighted_absdiff(Z, nbrs[:, r], coef)
    return W


def rrelieff(X: Matrix, y: np.ndarray, n_neighbors: int = 10,
             sigma: float = 50.0) -> np.ndarray:
    """RReliefF weights (2.22) with rank-based neighbour weights ``exp(-(rank/sigma)^2)``."""
    Z = _range_scaled(X)
    n = Z.shape[0]
    D = _sq_distances(Z)
    k = min(n_neighbors, n - 1)
    nbrs = _nearest(D, np.arange(n), k)
    d1 = np.exp(-((np.arange(1, k + 1) / sigma) ** 2))
    d = d1 / d1.sum()
    yr = y.max() - y.min()
    N_dP = 0.0
    N_dA = np.zeros(Z.shape[1])
    N_dPdA = np.zeros(Z.shape[1])
    for r in range(k):
        dy = np.abs(y - y[nbrs[:, r]]) / (yr if yr > 0 else 1.0)
        N_dP += d[r] * dy.sum()
        N_dA += _weighted_absdiff(Z, nbrs[:, r], np.full(n, d[r]))
        N_dPdA += _weighted_absdiff(Z, nbrs[:, r], d[r] * dy)
    m = float(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        W = N_dPdA / N_dP - (N_dA - N_dPdA) / (m - N_dP)
    return np.nan_to_num(W, nan=0.0)
