"""A mergeable, weighted epsilon-approximate quantile summary for many features at once.

Structure (thesis 3.3.2, after Zhang & Wang 2007 and Chen & Guestrin 2016):

* rows are collected in a buffer ``s0`` of ``B = max(256, ceil(2 / eps))`` rows;
* a full buffer becomes an exact :class:`~streamreg.screening.tuples.TupleList`, pruned to
  ``b_0`` tuples, and is carried up the levels like a binary counter: an occupied level
  ``l`` is merged in and the result pruned to ``b_l`` tuples;
* ``b_l = ceil((l + 1)(l + 2) / eps)``, so the relative errors ``1 / b_l`` added by the
  prunes sum to ``eps * (1 - 1/(L+2)) < eps`` however long the stream is (``N`` need not be
  known in advance).

Tuples are mini-bins with exact masses (see :mod:`.tuples`), so the summary answers rank
queries within ``eps * W`` (``W`` = total mass) and gives bin counts that are sums of
real observations.  The error actually incurred is tracked per feature (``error_``) and is
usually far below the bound.

Sparse input: only non-zeros enter the summary; the zeros of a feature are injected at
query time as a single tuple ``(0, M_c - mass of the non-zeros)`` per class, where ``M_c``
is the class mass of the whole stream.

Fading (3.16-3.17): a point that arrived at time ``i`` weighs ``alpha^(n - i)`` at time
``n``.  Buffered points get their weights when the buffer is flushed, and the stored
levels are multiplied by ``alpha^k`` (``k`` rows since the last flush) at the same moment
(the "split update"); scaling all masses leaves relative errors unchanged.  ``M_c`` is a
per-class running weight (the "universal weight map"), so the injected zero mass is the
faded mass of exactly the zeros seen.
"""
from __future__ import annotations

import math
from typing import overload

import numpy as np
import scipy.sparse as sp

from . import tuples as tl
from ._inputs import Matrix

__all__ = ["QuantileSketch"]


class QuantileSketch:
    """Per-feature weighted quantile summaries with per-class masses.

    Parameters
    ----------
    n_features : int
        Number of features ``p``.
    eps : float, default 0.01
        Rank precision: every rank query is within ``eps * W`` of the truth.
    fading : float, optional
        Fading factor ``alpha`` in ``(0, 1]``; ``None`` or 1 means no fading.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.screening.sketch import QuantileSketch
    >>> x = np.arange(1000.0).reshape(-1, 1)
    >>> sk = QuantileSketch(1, eps=0.05)
    >>> sk.update(x, np.zeros(1000, dtype=int))
    >>> t = sk.summary()
    >>> bool(abs(t.rank(np.array([499.5]))[0] - 500) <= 0.05 * 1000)
    True
    """

    def __init__(self, n_features: int, eps: float = 0.01, fading: float | None = None) -> None:
        if not (0 < eps < 1):
            raise ValueError(f"eps must be in (0, 1), got {eps!r}")
        if fading is not None and not (0 < fading <= 1):
            raise ValueError(f"fading must be in (0, 1], got {fading!r}")
        self.p = int(n_features)
        self.eps = float(eps)
        self.alpha = None if fading is None or fading == 1 else float(fading)
        # the buffer is summarised exactly and pruned to b_0, so its length only trades
        # memory for fewer flushes; at least 256 rows keeps large eps from flushing often
        self.block_rows = max(256, math.ceil(2.0 / eps))
        self.n_classes = 0
        self.n_seen = 0
        self.levels: list[tl.TupleList | None] = []
        self.levels_time = 0          # time at which the level masses are valid
        self.class_mass = np.zeros(0)  # M_c at time n_seen
        self._dense: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._sparse: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._buffered = 0
        self._cache: tuple[int, tl.TupleList] | None = None

    # -- sizes ---------------------------------------------------------------------
    def prune_size(self, level: int) -> int:
        """Tuples kept per feature at ``level`` (0 = a flushed buffer).

        Parameters
        ----------
        level : int
            The compaction level.

        Returns
        -------
        int
            The number of tuples.
        """
        return math.ceil((level + 1) * (level + 2) / self.eps)

    @overload
    def _decay(self, steps: int) -> float: ...

    @overload
    def _decay(self, steps: np.ndarray) -> np.ndarray: ...

    def _decay(self, steps: int | np.ndarray) -> float | np.ndarray:
        if self.alpha is None:
            return 1.0 if np.isscalar(steps) else np.ones(np.shape(steps))
        return self.alpha ** np.asarray(steps, dtype=np.float64)

    def _grow_classes(self, n_classes: int) -> None:
        if n_classes > self.n_classes:
            self.class_mass = np.concatenate([self.class_mass,
                                              np.zeros(n_classes - self.n_classes)])
            self.n_classes = n_classes

    # -- input ---------------------------------------------------------------------
    def update(self, X: Matrix, codes: np.ndarray) -> None:
        """Add rows ``X`` (dense or sparse) with class ``codes`` (ints ``>= 0``).

        Parameters
        ----------
        X : array-like or sparse matrix
            Rows, one column per feature of the sketch.
        codes : numpy.ndarray
            One class code per row.
        """
        m = X.shape[0]
        if X.shape[1] != self.p:
            raise ValueError(f"expected {self.p} columns, got {X.shape[1]}")
        self._grow_classes(int(codes.max()) + 1 if m else 0)
        start = 0
        while start < m:
            take = min(m - start, self.block_rows - self._buffered)
            self._push(X[start:start + take], codes[start:start + take])
            start += take
            if self._buffered == self.block_rows:
                self._flush()
        self._cache = None

    def _push(self, X: Matrix, codes: np.ndarray) -> None:
        m = X.shape[0]
        times = self.n_seen + 1 + np.arange(m)
        end = self.n_seen + m
        self.class_mass = self.class_mass * self._decay(m) + np.bincount(
            codes, weights=self._decay(end - times), minlength=self.n_classes)
        if sp.issparse(X):
            A = sp.coo_matrix(X)
            self._sparse.append((A.col.astype(np.int64), A.data.astype(np.float64),
                                 times[A.row], codes[A.row]))
        else:
            self._dense.append((np.asarray(X, dtype=np.float64), times, codes))
        self.n_seen = end
        self._buffered += m

    def _buffer_summary(self, now: int) -> tl.TupleList | None:
        """Exact tuples of the buffered rows, with masses as of time ``now``."""
        parts = []
        if self._dense:
            X = np.vstack([d[0] for d in self._dense])
            t = np.concatenate([d[1] for d in self._dense])
            c = np.concatenate([d[2] for d in self._dense])
            wt = None if self.alpha is None else self._decay(now - t)
            parts.append(tl.exact_from_dense(X, c, wt, self.n_classes))
        if self._sparse:
            f, v, t, c = (np.concatenate(z) for z in zip(*self._sparse))
            wt = None if self.alpha is None else self._decay(now - t)
            parts.append(tl.exact_from_points(f, v, c, wt, self.p, self.n_classes))
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else tl.merge(*parts)

    def _flush(self) -> None:
        now = self.n_seen
        s = self._buffer_summary(now)
        self._dense, self._sparse, self._buffered = [], [], 0
        if s is None:
            return
        # split update (3.17): fade the stored levels only when a flush touches them
        fade = self._decay(now - self.levels_time)
        if self.alpha is not None and fade != 1.0:
            self.levels = [None if t is None else t.scale(fade) for t in self.levels]
        self.levels_time = now
        s = tl.prune(s, self.prune_size(0))
        level = 1
        while True:
            if len(self.levels) <= level:
                self.levels.extend([None] * (level + 1 - len(self.levels)))
            stored = self.levels[level]
            if stored is None:
                self.levels[level] = s
                break
            s = tl.prune(tl.merge(s, stored), self.prune_size(level))
            self.levels[level] = None
            level += 1

    # -- queries -------------------------------------------------------------------
    def summary(self) -> tl.TupleList:
        """One TupleList for the whole stream so far (levels + buffer + zeros)."""
        if self._cache is not None and self._cache[0] == self.n_seen:
            return self._cache[1]
        now = self.n_seen
        parts: list[tl.TupleList] = []
        fade = self._decay(now - self.levels_time)
        for t in self.levels:
            if t is not None:
                parts.append(t.pad_classes(self.n_classes).scale(fade) if fade != 1.0
                             else t.pad_classes(self.n_classes))
        b = self._buffer_summary(now)
        if b is not None:
            parts.append(b)
        if not parts:
            parts.append(tl.empty(self.p, self.n_classes))
        merged = tl.merge(*parts)
        # sparse zeros: stream class mass minus the mass the summary already holds
        zero = self.class_mass[None, :] - merged.total()
        zero[zero <= 1e-9 * np.maximum(self.class_mass[None, :], 1.0)] = 0.0
        if np.any(zero > 0):
            rows = np.flatnonzero(zero.sum(axis=1) > 0)
            zt = tl.TupleList(rows.astype(np.int64), np.zeros(rows.size), zero[rows],
                              np.zeros(self.p))
            merged = tl.merge(merged, zt)
        self._cache = (now, merged)
        return merged

    def bin_counts(self, n_bins: int) -> np.ndarray:
        """Mass per feature, equal-frequency bin and class, shape ``(p, n_bins, C)``.

        Parameters
        ----------
        n_bins : int
            Equal-frequency bins per feature, from the sketch's quantiles.

        Returns
        -------
        numpy.ndarray
            The class masses, shape ``(p, n_bins, C)``.
        """
        return tl.aggregate_bins(self.summary(), n_bins,
                                 integer_counts=self.alpha is None)

    @property
    def error_(self) -> np.ndarray:
        """Certified rank error per feature, relative to the total mass (``<= eps``)."""
        t = self.summary()
        W = self.class_mass.sum()
        return t.err / W if W > 0 else t.err

    @property
    def n_tuples(self) -> int:
        """Tuples currently stored in the levels (memory use)."""
        return sum(0 if t is None else t.feat.shape[0] for t in self.levels)

    def merge(self, other: QuantileSketch) -> QuantileSketch:
        """A sketch of the union of two streams (no fading; same ``p``).

        The result holds both sketches' collapsed summaries; its error is the sum of the
        two absolute errors, i.e. at most ``max(eps_a, eps_b)`` relative to the union.

        Parameters
        ----------
        other : QuantileSketch
            A sketch of another stream with the same features.

        Returns
        -------
        QuantileSketch
            A new sketch of the union.
        """
        if self.p != other.p:
            raise ValueError(f"cannot merge sketches over {self.p} and {other.p} features")
        if self.alpha is not None or other.alpha is not None:
            raise ValueError("merging faded sketches is not defined; use fading=None")
        out = QuantileSketch(self.p, max(self.eps, other.eps))
        C = max(self.n_classes, other.n_classes)
        out._grow_classes(C)
        a = self.summary().pad_classes(C)
        b = other.summary().pad_classes(C)
        out.class_mass = (np.pad(self.class_mass, (0, C - self.n_classes))
                          + np.pad(other.class_mass, (0, C - other.n_classes)))
        out.levels = [None, tl.merge(a, b)]
        out.n_seen = self.n_seen + other.n_seen
        out.levels_time = out.n_seen
        return out
