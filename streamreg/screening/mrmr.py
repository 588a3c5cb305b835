"""Minimum-redundancy maximum-relevance ordering (thesis 2.6-2.7) on binned features.

mRMR is a greedy *ordering*, not a per-feature statistic: it starts from the feature with
the largest ``I(X_j, y)`` and then repeatedly adds the feature maximising
``I(X_j, y) - mean_{q in S} I(X_j, X_q)`` (MID) or the ratio (MIQ).  All mutual
informations use the same equal-frequency bins as the other scores.
"""
from __future__ import annotations

import numpy as np

from .criteria import mi_from_counts

__all__ = ["mi_codes", "mrmr_order"]


def mi_codes(codes: np.ndarray, labels: np.ndarray, n_labels: int, n_bins: int) -> np.ndarray:
    """MI between every column of ``codes`` (values ``< n_bins``) and ``labels``."""
    n, p = codes.shape
    flat = (np.arange(p)[None, :] * n_bins + codes) * n_labels + labels[:, None]
    counts = np.bincount(flat.ravel(), minlength=p * n_bins * n_labels)
    return mi_from_counts(counts.reshape(p, n_bins, n_labels).astype(np.float64))


def mrmr_order(codes: np.ndarray, y_codes: np.ndarray, n_classes: int, n_bins: int,
               n_select: int, criterion: str = "MID") -> tuple[np.ndarray, np.ndarray]:
    """Greedy mRMR; returns ``(order, criterion value when chosen)`` of length ``n_select``."""
    if criterion not in ("MID", "MIQ"):
        raise ValueError(f"criterion must be 'MID' or 'MIQ', got {criterion!r}")
    codes = codes.astype(np.int64)
    p = codes.shape[1]
    relevance = mi_codes(codes, y_codes, n_classes, n_bins)
    redundancy = np.zeros(p)
    chosen = np.zeros(p, dtype=bool)
    order, value = [], []
    j = int(np.argmax(relevance))
    for step in range(n_select):
        if step > 0:
            mean_red = redundancy / step
            if criterion == "MID":
                crit = relevance - mean_red
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    crit = np.where(mean_red > 0, relevance / mean_red, np.inf)
            crit = np.where(chosen, -np.inf, crit)
            j = int(np.argmax(crit))
            value.append(float(crit[j]))
        else:
            value.append(float(relevance[j]))
        order.append(j)
        chosen[j] = True
        if step + 1 < n_select:
            redundancy += mi_codes(codes, codes[:, j], n_bins, n_bins)
    return np.asarray(order, dtype=np.int64), np.asarray(value)
