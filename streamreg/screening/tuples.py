"""Weighted tuple lists for many features at once: the building block of the summaries.

A :class:`TupleList` holds, for ``p`` features, sorted lists of tuples ``(v, w)`` where ``w``
is a vector of per-class weights.  All features live in one flat array sorted by
``(feature, value)``, so every operation below is a handful of numpy calls, whatever ``p``.

Each tuple is a *mini-bin* (thesis 3.3.2, "exact weight update"): its weight is the mass
of the points it stands for, all of which lie in ``(previous tuple's value, v]``.  Hence for
any ``x`` the cumulative weight of the tuples with ``v <= x``, written ``R(x)``, never exceeds
the true count ``r+(x)`` of points ``<= x``; ``err`` bounds the shortfall per feature:

    0 <= r+(x) - R(x) <= err[feature]     for every x.

* an exact list (one tuple per distinct value) has ``err = 0``;
* :func:`merge` adds the two lists' errors (the shortfalls add pointwise);
* :func:`prune` keeps at most ``b + 1`` tuples and folds the dropped tuples' weight into the
  next kept one; the fold moves less than ``W / b`` of mass past any ``x``, and the error
  grows by exactly the largest mass folded, which is what is added to ``err``.

Masses are never lost, so bin counts from a pruned list are still totals of real points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TupleList", "exact_from_dense", "exact_from_points", "merge", "prune",
           "aggregate_bins", "empty"]


@dataclass
class TupleList:
    """Sorted ``(feature, value)`` tuples with per-class weights.

    Attributes
    ----------
    feat : ndarray of int64, shape (m,)
        Feature of each tuple (non-decreasing).
    v : ndarray of float64, shape (m,)
        Tuple values, increasing within a feature.
    w : ndarray of float64, shape (m, C)
        Mass of each tuple per class.
    err : ndarray of float64, shape (p,)
        Bound on ``r+(x) - R(x)`` per feature, in units of mass.
    """

    feat: np.ndarray
    v: np.ndarray
    w: np.ndarray
    err: np.ndarray

    @property
    def n_features(self) -> int:
        return self.err.shape[0]

    @property
    def n_classes(self) -> int:
        return self.w.shape[1]

    def scale(self, factor: float) -> TupleList:
        """Multiply every mass (and the error bound) by ``factor`` (fading)."""
        return TupleList(self.feat, self.v, self.w * factor, self.err * factor)

    def pad_classes(self, n_classes: int) -> TupleList:
        """Add zero-weight columns for classes seen after this list was built."""
        extra = n_classes - self.w.shape[1]
        if extra <= 0:
            return self
        w = np.hstack([self.w, np.zeros((self.w.shape[0], extra))])
        return TupleList(self.feat, self.v, w, self.err)

    def total(self) -> np.ndarray:
        """Mass per feature and class, shape ``(p, C)``."""
        out = np.zeros((self.n_features, self.n_classes))
        np.add.at(out, self.feat, self.w)
        return out

    def rank(self, x: np.ndarray) -> np.ndarray:
        """``R(x)``: summary mass at values ``<= x`` for each feature.

        ``x`` has shape ``(p,)`` or ``(q, p)`` (``q`` queries per feature); the true count
        of points ``<= x[..., j]`` lies in ``[R, R + err[j]]``.  Meant for checks and
        small ``p`` (it loops over features).
        """
        x = np.asarray(x, dtype=np.float64)
        xq = np.atleast_2d(x)
        mass = self.w.sum(axis=1)
        csum = np.concatenate([[0.0], np.cumsum(mass)])
        start = np.searchsorted(self.feat, np.arange(self.n_features + 1), side="left")
        out = np.empty(xq.shape)
        for j in range(self.n_features):
            seg = self.v[start[j]:start[j + 1]]
            pos = start[j] + np.searchsorted(seg, xq[:, j], side="right")
            out[:, j] = csum[pos] - csum[start[j]]
        return out if x.ndim == 2 else out[0]


def empty(n_features: int, n_classes: int) -> TupleList:
    """A list with no tuples."""
    return TupleList(np.zeros(0, np.int64), np.zeros(0), np.zeros((0, n_classes)),
                     np.zeros(n_features))


def _combine_sorted(feat: np.ndarray, v: np.ndarray, w: np.ndarray, n_features: int,
                    err: np.ndarray | None = None) -> TupleList:
    """Fuse runs of equal ``(feature, value)`` in sorted input into single tuples."""
    m = feat.shape[0]
    if m == 0:
        return TupleList(feat, v, w, np.zeros(n_features) if err is None else err)
    new = np.empty(m, dtype=bool)
    new[0] = True
    np.logical_or(feat[1:] != feat[:-1], v[1:] != v[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    if starts.size < m:
        w = np.add.reduceat(w, starts, axis=0)
        feat, v = feat[starts], v[starts]
    return TupleList(feat, v, w, np.zeros(n_features) if err is None else err)


def exact_from_dense(X: np.ndarray, cls: np.ndarray, weight: np.ndarray | None,
                     n_classes: int) -> TupleList:
    """Exact tuples (one per distinct value and feature) of a dense block ``X`` (n x p)."""
    n, p = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    v = np.take_along_axis(X, order, axis=0).T.ravel()
    c = cls[order].T.ravel()
    wt = np.ones(n * p) if weight is None else weight[order].T.ravel()
    feat = np.repeat(np.arange(p, dtype=np.int64), n)
    w = np.zeros((n * p, n_classes))
    w[np.arange(n * p), c] = wt
    return _combine_sorted(feat, v, w, p)


def exact_from_points(feat: np.ndarray, v: np.ndarray, cls: np.ndarray,
                      weight: np.ndarray | None, n_features: int, n_classes: int) -> TupleList:
    """Exact tuples of scattered points ``(feature, value, class, weight)``."""
    order = np.lexsort((v, feat))
    feat, v, cls = feat[order], v[order], cls[order]
    m = feat.shape[0]
    w = np.zeros((m, n_classes))
    w[np.arange(m), cls] = 1.0 if weight is None else weight[order]
    return _combine_sorted(feat.astype(np.int64), v.astype(np.float64), w, n_features)


def merge(*lists: TupleList) -> TupleList:
    """Union of several lists over the same features; errors add."""
    lists = tuple(t for t in lists if t is not None)
    p = lists[0].n_features
    C = max(t.n_classes for t in lists)
    lists = tuple(t.pad_classes(C) for t in lists)
    err = np.sum([t.err for t in lists], axis=0)
    feat = np.concatenate([t.feat for t in lists])
    v = np.concatenate([t.v for t in lists])
    w = np.concatenate([t.w for t in lists], axis=0)
    return _combine_sorted(*_sort_by_feature_value(feat, v, w), p, err)


def _sort_by_feature_value(feat: np.ndarray, v: np.ndarray, w: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort tuples by ``(feature, value)``; about twice as fast as ``np.lexsort``.

    Values are replaced by their dense rank over all tuples, which makes
    ``feature * m + rank`` an exact integer key; the inputs are concatenations of sorted
    runs, which the stable (run-detecting) sorts exploit.
    """
    m = v.shape[0]
    if m == 0:
        return feat, v, w
    ov = np.argsort(v, kind="stable")
    vs = v[ov]
    new = np.empty(m, dtype=bool)
    new[0] = True
    np.not_equal(vs[1:], vs[:-1], out=new[1:])
    rank = np.empty(m, dtype=np.int64)
    rank[ov] = np.cumsum(new) - 1
    order = np.argsort(feat * np.int64(m) + rank, kind="stable")
    return feat[order], v[order], w[order]


def _segment_cumsum(feat: np.ndarray, mass: np.ndarray, n_features: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exclusive/inclusive cumulative mass within each feature, and each feature's total."""
    csum = np.cumsum(mass)
    start = np.searchsorted(feat, np.arange(n_features), side="left")
    before = np.concatenate([[0.0], csum])[start]  # mass of all earlier features
    incl = csum - before[feat]
    excl = np.maximum(incl - mass, 0.0)
    total = np.zeros(n_features)
    np.add.at(total, feat, mass)
    return excl, incl, total


def prune(t: TupleList, b: int) -> TupleList:
    """Keep at most ``b + 1`` tuples per feature; dropped mass goes to the next kept tuple.

    A tuple is kept when a grid point ``k W / b`` (``k = 1..b``) falls in its cumulative
    mass interval ``(C_excl, C_incl]``, plus the first and last tuple of each feature.
    Between two kept tuples there is then less than ``W / b`` of dropped mass.
    """
    m = t.feat.shape[0]
    if m == 0:
        return t
    p = t.n_features
    mass = t.w.sum(axis=1)
    excl, incl, total = _segment_cumsum(t.feat, mass, p)
    W = np.where(total > 0, total, 1.0)[t.feat]
    keep = np.floor(incl * b / W) > np.floor(excl * b / W)
    first = np.empty(m, dtype=bool)
    first[0] = True
    first[1:] = t.feat[1:] != t.feat[:-1]
    last = np.empty(m, dtype=bool)
    last[-1] = True
    last[:-1] = first[1:]
    keep |= first | last
    if keep.all():
        return t
    # each group runs from just after a kept tuple to the next kept tuple (inclusive)
    kept = np.flatnonzero(keep)
    starts = np.concatenate([[0], kept[:-1] + 1])
    w = np.add.reduceat(t.w, starts, axis=0)
    folded = w.sum(axis=1) - mass[kept]
    grow = np.zeros(p)
    np.maximum.at(grow, t.feat[kept], folded)
    return TupleList(t.feat[kept], t.v[kept], w, t.err + grow)


def aggregate_bins(t: TupleList, n_bins: int, *, integer_counts: bool = True) -> np.ndarray:
    """Group tuples into ``n_bins`` equal-frequency bins (thesis Algorithm 4).

    The cut positions are ``d, 2d, ..., (K-1)d`` with ``d = floor(W / K)`` (``W / K`` when
    the masses are faded, ``integer_counts=False``).  Walking up the sorted tuples, a tuple
    lands in the bin of the number of cut positions at or below the mass *before* it, so a
    heavy tuple (many ties) is never split and may leave later bins empty.

    Returns
    -------
    ndarray, shape (p, n_bins, C)
        Mass per feature, bin and class.
    """
    p, C = t.n_features, t.n_classes
    out = np.zeros((p, n_bins, C))
    if t.feat.shape[0] == 0:
        return out
    mass = t.w.sum(axis=1)
    excl, _, total = _segment_cumsum(t.feat, mass, p)
    d = np.floor(total / n_bins) if integer_counts else total / n_bins
    d = np.where(d > 0, d, 1.0)
    if integer_counts:
        # counts are integers: round away float noise from the cumulative sums
        excl = np.rint(excl)
    # clip: float noise can make the first tuple's mass-before slightly negative
    b = np.clip(np.floor(excl / d[t.feat]), 0, n_bins - 1).astype(np.int64)
    flat = (t.feat * n_bins + b)
    for c in range(C):
        out[:, :, c] = np.bincount(flat, weights=t.w[:, c], minlength=p * n_bins).reshape(p, n_bins)
    return out
