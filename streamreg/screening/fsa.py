"""Feature Selection with Annealing (thesis Algorithm 1, schedule eq. 2.26).

Gradient steps on a linear (squared error) or logistic loss, interleaved with a hard
thresholding that keeps the ``M_e`` largest ``|beta_j|``; ``M_e`` decreases from ``p`` to
``k`` following the annealing schedule, after which the ``k`` survivors keep being fitted.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._inputs import Matrix, as_matrix, as_response, encode_labels

__all__ = ["fsa", "fsa_schedule", "FSAResult"]


def fsa_schedule(p: int, k: int, n_iter: int, mu: float) -> np.ndarray:
    """Number of features kept after iteration ``e = 1..n_iter`` (eq. 2.26).

    ``M_e = k + floor((p - k) * max(0, (N - 2e) / (2 e mu + N)))``; the floor follows the
    authors' reference code, so ``M_e`` is an integer and reaches ``k`` at ``e = N/2``.

    Parameters
    ----------
    p : int
        Features at the start.
    k : int
        Features kept at the end.
    n_iter : int
        Iterations ``N``.
    mu : float
        The annealing parameter (larger: faster removal).

    Returns
    -------
    numpy.ndarray
        ``M_e`` for ``e = 1..n_iter``.

    Examples
    --------
    >>> from streamreg.screening import fsa_schedule
    >>> fsa_schedule(p=100, k=10, n_iter=10, mu=1.0).tolist()
    [70, 48, 32, 20, 10, 10, 10, 10, 10, 10]
    """
    if not (1 <= k <= p):
        raise ValueError(f"k must be between 1 and the number of features {p}, got {k}")
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")
    if mu < 0:
        raise ValueError(f"mu must be >= 0, got {mu}")
    e = np.arange(1, n_iter + 1, dtype=np.float64)
    frac = np.maximum(0.0, (n_iter - 2 * e) / (2 * e * mu + n_iter))
    return (k + np.floor((p - k) * frac)).astype(np.int64)


@dataclass
class FSAResult:
    """Output of :func:`fsa`.

    Attributes
    ----------
    support : list of str
        Selected features, largest ``|coef|`` (standardised scale) first.
    coef : pandas.Series
        Coefficients of the selected features on the original scale of ``X``.
    intercept : float
    family : str
    schedule : ndarray
        ``M_e`` for each iteration.
    loss : ndarray
        Training loss after each iteration (mean squared error / 2 or mean log-loss).

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg import screening
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 30)); y = X[:, 3] - 2 * X[:, 7] + 0.1 * rng.normal(size=200)
    >>> result = screening.fsa(X, y, k=2, n_iter=200)
    >>> result.support
    ['x7', 'x3']
    >>> result.coef.round(2)
    x7   -1.98
    x3    0.99
    Name: coef, dtype: float64
    """

    support: list
    coef: pd.Series
    intercept: float
    family: str
    schedule: np.ndarray
    loss: np.ndarray = field(repr=False)


def _lipschitz(Z: Matrix, n: int, rng: np.random.Generator,
               n_power: int = 50) -> float:
    """Largest eigenvalue of ``[Z 1]^T [Z 1] / n`` by power iteration (an upper bound)."""
    v = rng.normal(size=Z.shape[1] + 1)
    lam = 1.0
    for _ in range(n_power):
        u = Z @ v[:-1] + v[-1]
        g = np.concatenate([np.asarray(Z.T @ u).ravel(), [u.sum()]]) / n
        lam = float(np.linalg.norm(g))
        if lam == 0:
            return 1.0
        v = g / lam
    return lam * 1.05  # margin: power iteration approaches from below


def fsa(
    X: Any,
    y: Any,
    k: int,
    family: str = "gaussian",
    mu: float = 100.0,
    n_iter: int = 500,
    *,
    eta: float | None = None,
    ridge: float = 1e-3,
    feature_names: Sequence[str] | None = None,
    seed: int = 0,
) -> FSAResult:
    """Select ``k`` features by Feature Selection with Annealing.

    Parameters
    ----------
    X : array-like, DataFrame or scipy.sparse matrix, shape (n, p)
        Columns are standardised internally (sparse columns are scaled, not centred).
    y : array-like, shape (n,)
        Response (``'gaussian'``) or two class labels (``'binomial'``; the larger label
        in sorted order is coded 1).
    k : int
        Number of features to keep.
    family : {'gaussian', 'binomial'}
        Squared-error or logistic loss.
    mu : float, default 100
        Annealing parameter of eq. 2.26 (larger = faster early removal).
    n_iter : int, default 500
        Number of gradient iterations ``N``.
    eta : float, optional
        Step size; default ``1 / L`` with ``L`` the loss's Lipschitz constant.
    ridge : float, default 1e-3
        Shrinkage ``ridge * ||beta||^2`` on the standardised scale (keeps the logistic
        fit finite on separable data).
    feature_names : sequence of str, optional
    seed : int, default 0
        Seed of the power iteration that estimates ``L``.

    Returns
    -------
    FSAResult

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg import screening
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 30)); y = X[:, 3] - 2 * X[:, 7] + 0.1 * rng.normal(size=200)
    >>> sorted(screening.fsa(X, y, k=2, n_iter=200).support)
    ['x3', 'x7']
    """
    if family not in ("gaussian", "binomial"):
        raise ValueError(f"family must be 'gaussian' or 'binomial', got {family!r}")
    M, names = as_matrix(X, feature_names, sparse_format="csc")
    n, p = M.shape
    yv = as_response(y, n)
    if family == "binomial":
        codes, classes = encode_labels(yv)
        if classes.size != 2:
            raise ValueError(
                f"family='binomial' needs exactly two classes, got {classes.size}")
        t = codes.astype(np.float64)
    else:
        if yv.dtype.kind not in "biuf":
            raise ValueError(f"family='gaussian' needs a numeric response, got {yv.dtype}")
        t = yv.astype(np.float64)
    schedule = fsa_schedule(p, int(k), int(n_iter), float(mu))

    # standardise: centre dense columns, scale all; constant columns stay at zero
    if sp.issparse(M):
        center = np.zeros(p)
        sq = np.asarray(M.multiply(M).mean(axis=0)).ravel()
        mean = np.asarray(M.mean(axis=0)).ravel()
        sd = np.sqrt(np.maximum(sq - mean ** 2, 0.0))
    else:
        center = M.mean(axis=0)
        sd = M.std(axis=0)
    scale = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
    Z = (M @ sp.diags(scale)).tocsc() if sp.issparse(M) else (M - center) * scale
    L = _lipschitz(Z, n, np.random.default_rng(seed))
    if family == "binomial":
        L /= 4.0
    step = 1.0 / (L + 2 * ridge) if eta is None else float(eta)

    active = np.arange(p)
    Za = Z
    beta = np.zeros(p)
    b0 = float(np.log(t.mean() / (1 - t.mean()))) if family == "binomial" else float(t.mean())
    losses = np.empty(n_iter)
    for e in range(n_iter):
        eta_lin = np.asarray(Za @ beta).ravel() + b0
        if family == "gaussian":
            r = eta_lin - t
            losses[e] = 0.5 * np.mean(r ** 2)
        else:
            prob = 1.0 / (1.0 + np.exp(-eta_lin))
            r = prob - t
            losses[e] = np.mean(np.logaddexp(0.0, eta_lin) - t * eta_lin)
        grad = np.asarray(Za.T @ r).ravel() / n + 2 * ridge * beta
        beta = beta - step * grad
        b0 -= step * r.mean()
        keep = schedule[e]
        if keep < active.size:
            # stable sort on -|beta|: ties keep the lower column index
            order = np.argsort(-np.abs(beta), kind="stable")[:keep]
            order.sort()
            active, beta = active[order], beta[order]
            Za = Z[:, active]
    coef_std = beta
    coef = coef_std * scale[active]
    intercept = b0 - float(np.dot(coef, center[active]))
    rank_order = np.argsort(-np.abs(coef_std), kind="stable")
    sel = [names[j] for j in active[rank_order]]
    return FSAResult(support=sel,
                     coef=pd.Series(coef[rank_order], index=pd.Index(sel), name="coef"),
                     intercept=intercept, family=family, schedule=schedule, loss=losses)
