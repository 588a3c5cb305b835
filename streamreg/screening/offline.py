"""Offline screening scores: one call, all columns, dense or sparse (thesis chapter 2).

``score(X, y, method)`` returns a pandas Series indexed by feature name in which a higher
value always means a more relevant feature.  ``rank`` and ``top`` turn it into ranks
(1 = best) or the names of the ``k`` best features.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import criteria
from ._inputs import Matrix, as_matrix, as_response, check_bins, encode_labels, is_classification
from .binning import bin_codes, exact_tuples
from .mrmr import mrmr_order
from .neighbors import relieff, rrelieff
from .tuples import aggregate_bins

__all__ = ["score", "rank", "top", "METHODS", "canonical_method", "class_moments"]

#: canonical method name -> task ("classification", "regression" or "either")
METHODS: dict[str, str] = {
    "t": "classification", "fisher": "classification", "chi2": "classification",
    "gini": "classification", "mi": "either", "relief": "classification",
    "relieff": "classification", "mrmr": "classification", "corr": "regression",
    "rrelieff": "regression",
}

_ALIASES = {
    "tscore": "t", "ttest": "t", "welch": "t", "chisquare": "chi2", "chisq": "chi2",
    "chi": "chi2", "giniindex": "gini", "mutualinfo": "mi", "mutualinformation": "mi",
    "infogain": "mi", "informationgain": "mi", "correlation": "corr", "pearson": "corr",
    "fisherscore": "fisher",
}


def canonical_method(method: str) -> str:
    """Normalise a method name (case, '-', '_' and spaces ignored; common aliases).

    Parameters
    ----------
    method : str
        A screening method's name or alias.

    Returns
    -------
    str
        Its name in :data:`METHODS`.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> from streamreg.screening import canonical_method
    >>> canonical_method("Information Gain"), canonical_method("T-score"), canonical_method("chi_2")
    ('mi', 't', 'chi2')
    """
    if not isinstance(method, str):
        raise ValueError(f"method must be a string, got {type(method).__name__}")
    key = "".join(ch for ch in method.lower() if ch.isalnum())
    key = _ALIASES.get(key, key)
    if key not in METHODS:
        raise ValueError(
            f"unknown screening method {method!r}; choose one of {sorted(METHODS)}")
    return key


def class_moments(X: Matrix, codes: np.ndarray, n_classes: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class count ``W (C,)``, mean ``(C, p)`` and centred sum of squares ``(C, p)``."""
    W = np.bincount(codes, minlength=n_classes).astype(np.float64)
    p = X.shape[1]
    mean = np.zeros((n_classes, p))
    m2 = np.zeros((n_classes, p))
    for c in range(n_classes):
        rows = codes == c
        if not rows.any():
            continue
        if sp.issparse(X):
            Xc = sp.csr_matrix(X)[rows]
            s1 = np.asarray(Xc.sum(axis=0)).ravel()
            s2 = np.asarray(Xc.multiply(Xc).sum(axis=0)).ravel()
            mean[c] = s1 / W[c]
            m2[c] = np.maximum(s2 - s1 * mean[c], 0.0)
        else:
            Xc = X[rows]
            mean[c] = Xc.mean(axis=0)
            m2[c] = ((Xc - mean[c]) ** 2).sum(axis=0)  # two-pass: no cancellation
    return W, mean, m2


def _correlation(X: Matrix, y: np.ndarray) -> np.ndarray:
    yc = y - y.mean()
    if sp.issparse(X):
        n = X.shape[0]
        s1 = np.asarray(X.sum(axis=0)).ravel()
        s2 = np.asarray(X.multiply(X).sum(axis=0)).ravel()
        sxx = np.maximum(s2 - s1 ** 2 / n, 0.0)
        sxy = np.asarray(X.T @ yc).ravel()
    else:
        Xc = X - X.mean(axis=0)
        sxx = (Xc ** 2).sum(axis=0)
        sxy = Xc.T @ yc
    den = np.sqrt(sxx * (yc @ yc))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, sxy / den, 0.0)
    return np.abs(r)


def score(
    X: Any,
    y: Any,
    method: str = "t",
    bins: int = 5,
    *,
    task: str | None = None,
    n_neighbors: int | None = None,
    sigma: float = 50.0,
    n_select: int | None = None,
    criterion: str = "MID",
    feature_names: Sequence[str] | None = None,
) -> pd.Series:
    """Score every feature's relevance to ``y``; higher is always more relevant.

    Parameters
    ----------
    X : array-like, DataFrame or scipy.sparse matrix, shape (n, p)
        Numeric features without missing values.
    y : array-like, shape (n,)
        Class labels or a numeric response.
    method : str, default 't'
        Classification: ``'t'`` (Welch T-score, 2.10, needs two classes), ``'fisher'``
        (2.16), ``'chi2'`` (2.11), ``'gini'`` (2.14, see Notes), ``'mi'`` (2.2),
        ``'relief'`` (2.3, one neighbour), ``'relieff'`` (``n_neighbors``, default 10),
        ``'mrmr'`` (2.6/2.7, see Notes).  Regression: ``'corr'`` (absolute Pearson
        correlation, 2.17), ``'mi'`` (2.18, response binned too), ``'rrelieff'``
        (2.19-2.25).
    bins : int, default 5
        Number of equal-frequency bins ``K`` for chi2, gini, mi and mrmr.
    task : {'classification', 'regression'}, optional
        Only needed for ``'mi'``; by default a non-float ``y`` or a float ``y`` with at
        most 10 integer values is treated as class labels.
    n_neighbors : int, optional
        Neighbours for relieff/rrelieff (default 10; ``'relief'`` always uses 1).
    sigma : float, default 50
        Rank-weight width of RReliefF, ``exp(-(rank/sigma)^2)`` (2.25).
    n_select : int, optional
        How many features mRMR orders (default all ``p``; the rest score 0).
    criterion : {'MID', 'MIQ'}, default 'MID'
        mRMR criterion.
    feature_names : sequence of str, optional
        Names for array input (default ``x0, x1, ...`` or the DataFrame columns).

    Returns
    -------
    pandas.Series
        Indexed by feature name, named after the method; ``attrs`` records the method
        and bins.

    Notes
    -----
    *Gini* is reported as the **gain** ``Gini(y) - min_h Gini_split(h)``: the thesis
    prefers the feature with the *smallest* split impurity (2.14), and subtracting from the
    impurity of ``y`` (the same for every feature) keeps that order with higher = better.
    Thresholds ``h`` are the bin edges.

    *mRMR* is an ordering; the feature chosen at step ``r`` (0-based) of ``n_select``
    scores ``(p - r) / p``, and unchosen features score 0.

    The T-score uses sample variances (``ddof=1``), so it equals the absolute Welch
    statistic of ``scipy.stats.ttest_ind(..., equal_var=False)``.  Features with no spread
    score 0; a feature that separates the classes perfectly with zero spread scores inf.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg import screening
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); y = (X[:, 2] + 0.5 * rng.normal(size=200) > 0)
    >>> s = screening.score(X, y, method="t")
    >>> screening.top(s, 1)
    ['x2']
    """
    m = canonical_method(method)
    K = check_bins(bins)
    M, names = as_matrix(X, feature_names)
    yv = as_response(y, M.shape[0])
    kind = METHODS[m]
    if kind == "either":
        if task is None:
            kind = "classification" if is_classification(yv) else "regression"
        elif task in ("classification", "regression"):
            kind = task
        else:
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    if kind == "regression":
        if yv.dtype.kind not in "biuf":
            raise ValueError(
                f"method {m!r} needs a numeric response; y has dtype {yv.dtype}")
        yv = yv.astype(np.float64)

    if kind == "classification":
        codes, classes = encode_labels(yv)
        C = classes.size
        if m in ("t", "fisher"):
            values = criteria.moment_score(m, *class_moments(M, codes, C))
        elif m in ("chi2", "gini", "mi"):
            counts = aggregate_bins(exact_tuples(M, codes, C), K)
            values = criteria.contingency_score(m, counts)
        elif m in ("relief", "relieff"):
            k = 1 if m == "relief" else (10 if n_neighbors is None else int(n_neighbors))
            values = relieff(M, codes, k)
        else:  # mrmr
            p = M.shape[1]
            ns = p if n_select is None else int(min(max(n_select, 1), p))
            order, _ = mrmr_order(bin_codes(M, K), codes, C, K, ns, criterion)
            values = np.zeros(p)
            values[order] = (p - np.arange(ns)) / p
    else:
        if m == "corr":
            values = _correlation(M, yv)
        elif m == "mi":
            ycodes = bin_codes(yv.reshape(-1, 1), K).ravel().astype(np.int64)
            counts = aggregate_bins(exact_tuples(M, ycodes, K), K)
            values = criteria.mi_from_counts(counts)
        else:  # rrelieff
            values = rrelieff(M, yv, 10 if n_neighbors is None else int(n_neighbors), sigma)
    out = pd.Series(np.asarray(values, dtype=np.float64), index=pd.Index(names), name=m)
    out.attrs.update(method=m, bins=K, task=kind)
    return out


def rank(scores: pd.Series) -> pd.Series:
    """Rank of each feature, 1 = most relevant; ties keep column order, NaN ranks last.

    Parameters
    ----------
    scores : pandas.Series
        One score per feature (:func:`score`), higher more relevant.

    Returns
    -------
    pandas.Series
        Integer ranks, labelled like ``scores``.

    Examples
    --------
    >>> import pandas as pd
    >>> from streamreg.screening import rank
    >>> rank(pd.Series([0.1, 3.0, 0.1], index=["a", "b", "c"])).tolist()
    [2, 1, 3]
    """
    v = np.asarray(scores, dtype=np.float64)
    key = np.where(np.isnan(v), -np.inf, v)
    order = np.argsort(-key, kind="stable")
    r = np.empty(v.size, dtype=np.int64)
    r[order] = np.arange(1, v.size + 1)
    return pd.Series(r, index=scores.index, name="rank")


def top(scores: pd.Series, k: int) -> list:
    """Names of the ``k`` most relevant features, best first.

    Parameters
    ----------
    scores : pandas.Series
        One score per feature (:func:`score`), higher more relevant.
    k : int
        How many names.

    Returns
    -------
    list
        The labels of the ``k`` best scores (fewer when there are fewer features).

    Examples
    --------
    >>> import pandas as pd
    >>> from streamreg.screening import top
    >>> top(pd.Series([0.1, 3.0, 0.2], index=["a", "b", "c"]), 2)
    ['b', 'c']
    """
    r = rank(scores)
    return list(r.sort_values(kind="stable").index[: int(k)])
