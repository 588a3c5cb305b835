"""Scores computed from sufficient statistics, vectorised over features.

Two families, each fed by both the offline and the online code so that the two can only
differ through their statistics:

* contingency scores (chi-square 2.11, Gini 2.14, mutual information 2.2) from a count
  array of shape ``(p, K, C)`` (feature x bin x class);
* moment scores (T 2.10, Fisher 2.16) from per-class mass ``W[c]``, means ``mean[c, j]``
  and centred sums of squares ``m2[c, j]``.

Degenerate features (no spread at all) score 0, never NaN, so they rank last.
"""
from __future__ import annotations

import numpy as np

__all__ = ["chi2_from_counts", "mi_from_counts", "gini_from_counts", "gini_split_from_counts",
           "t_from_moments", "fisher_from_moments", "contingency_score", "moment_score"]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0/0 = 0 and x/0 = inf (a perfectly separating feature)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    r = np.where(den > 0, r, np.where(num > 0, np.inf, 0.0))
    return r


def chi2_from_counts(counts: np.ndarray) -> np.ndarray:
    """Pearson chi-square of each ``K x C`` table (cells with zero expectation skipped)."""
    n = counts.sum(axis=(1, 2))
    nb = counts.sum(axis=2)
    nc = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = nb[:, :, None] * nc[:, None, :] / n[:, None, None]
        terms = np.where(expected > 0, (counts - expected) ** 2 / expected, 0.0)
    return terms.sum(axis=(1, 2))


def mi_from_counts(counts: np.ndarray) -> np.ndarray:
    """Mutual information (natural log) between bin and class for each feature."""
    n = counts.sum(axis=(1, 2))[:, None, None]
    pbc = counts / np.where(n > 0, n, 1.0)
    pb = pbc.sum(axis=2, keepdims=True)
    pc = pbc.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pbc > 0, pbc * np.log(pbc / (pb * pc)), 0.0)
    return terms.sum(axis=(1, 2))


def _impurity(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gini impurity ``1 - sum p_c^2`` of count vectors on the last axis, and their mass."""
    m = c.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 1.0 - ((c / m[..., None]) ** 2).sum(axis=-1)
    return np.where(m > 0, g, 0.0), m


def gini_split_from_counts(counts: np.ndarray) -> np.ndarray:
    """Thesis 2.14: smallest weighted Gini impurity over splits between bins.

    The candidate thresholds are the bin edges (``A = bins <= h``); ``h = K-1`` (no split)
    is included, so the value never exceeds the impurity of the whole sample.
    """
    left = np.cumsum(counts, axis=1)          # (p, K, C): A_h for h = 0..K-1
    right = left[:, -1:, :] - left            # B_h
    gl, ml = _impurity(left)
    gr, mr = _impurity(right)
    n = ml[:, -1:]
    split = (ml * gl + mr * gr) / np.where(n > 0, n, 1.0)
    return split.min(axis=1)


def gini_from_counts(counts: np.ndarray) -> np.ndarray:
    """Gini *gain*: impurity of the class labels minus the best split impurity (2.14).

    The thesis ranks features by the smallest split impurity; subtracting it from the
    (feature-independent) root impurity keeps that order while making higher = better.
    """
    root, _ = _impurity(counts.sum(axis=1))
    return root - gini_split_from_counts(counts)


def contingency_score(method: str, counts: np.ndarray) -> np.ndarray:
    """Dispatch ``'chi2' | 'gini' | 'mi'`` on a ``(p, K, C)`` count array."""
    return {"chi2": chi2_from_counts, "gini": gini_from_counts,
            "mi": mi_from_counts}[method](counts)


def t_from_moments(W: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """Welch T-score ``|mu1 - mu2| / sqrt(s1^2/n1 + s2^2/n2)`` (2.10), ``s^2 = m2/(n-1)``.

    With faded (weighted) data ``n`` is the class mass, so ``n - 1`` is the frequency-
    weight convention; classes with mass <= 1 give 0.
    """
    if W.shape[0] != 2:
        raise ValueError(
            f"the T-score needs exactly two classes, got {W.shape[0]}; use method='fisher' "
            "for more than two")
    n = W[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        var_over_n = np.where(n > 1, m2 / (n - 1) / n, np.nan)
    den = np.sqrt(var_over_n[0] + var_over_n[1])
    num = np.abs(mean[0] - mean[1])
    out = _ratio(num, np.nan_to_num(den, nan=0.0))
    return np.where(np.isnan(den), 0.0, out)


def fisher_from_moments(W: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """Fisher score (2.16): between-class over within-class sum of squares.

    ``sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2`` with population variances, i.e.
    ``F * (C - 1) / (n - C)`` for the one-way ANOVA F statistic.
    """
    tot = W.sum()
    mu = (W[:, None] * mean).sum(axis=0) / tot
    between = (W[:, None] * (mean - mu) ** 2).sum(axis=0)
    within = m2.sum(axis=0)
    return _ratio(between, within)


def moment_score(method: str, W: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """Dispatch ``'t' | 'fisher'``; classes with no mass are ignored."""
    present = W > 0
    W, mean, m2 = W[present], mean[present], m2[present]
    if method == "t":
        return t_from_moments(W, mean, m2)
    return fisher_from_moments(W, mean, m2)
