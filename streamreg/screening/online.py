"""Online screeners: feed minibatches with ``partial_fit``, read ``scores_`` at any time.

* :class:`OnlineMomentScreener` (T-score, Fisher) keeps per-class running sums, so its
  scores equal the offline ones on the same rows (thesis 3.3.1).
* :class:`OnlineQuantileScreener` (chi2, Gini, MI) keeps a
  :class:`~streamreg.screening.sketch.QuantileSketch` per feature and bins it on demand
  (thesis 3.3.2, Algorithm 4).

Both accept dense or sparse chunks of any size (including one row), optional fading
``alpha`` (a row seen ``a`` steps ago weighs ``alpha^a``), and grow their class table as
labels appear unless ``classes`` is given.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import criteria
from ._inputs import LabelCoder, Matrix, as_matrix, as_response, check_bins
from .offline import canonical_method, rank, top
from .sketch import QuantileSketch

__all__ = ["OnlineMomentScreener", "OnlineQuantileScreener"]


class _OnlineBase(ABC):
    """Input handling shared by the online screeners."""

    _methods: tuple[str, ...] = ()

    def __init__(self, method: str, fading: float | None, classes: Sequence[Any] | None,
                 feature_names: Sequence[str] | None) -> None:
        m = canonical_method(method)
        if m not in self._methods:
            raise ValueError(
                f"{type(self).__name__} supports methods {list(self._methods)}, got {method!r}")
        if fading is not None and not (0 < fading <= 1):
            raise ValueError(f"fading must be in (0, 1], got {fading!r}")
        self.method = m
        self.fading = fading
        self._coder = LabelCoder(classes)
        self._names = None if feature_names is None else [str(n) for n in feature_names]
        self.n_features_: int | None = None
        self.n_seen_ = 0

    def _check_chunk(self, X: Any, y: Any) -> tuple[Matrix, np.ndarray]:
        first = self.n_features_ is None
        M, names = as_matrix(X, self._names if first else None, sparse_format="csr",
                             want_names=first)
        if self.n_features_ is None:
            self.n_features_ = M.shape[1]
            self._names = names
        elif M.shape[1] != self.n_features_:
            raise ValueError(
                f"chunk has {M.shape[1]} columns but the screener was started with "
                f"{self.n_features_}; every chunk must have the same columns")
        yv = as_response(y, M.shape[0])
        return M, self._coder.encode(yv)

    @property
    def classes_(self) -> list:
        """Class labels in code order."""
        return list(self._coder.classes)

    def _series(self, values: np.ndarray) -> pd.Series:
        if self.n_features_ is None:
            raise ValueError("no data yet; call partial_fit first")
        assert self._names is not None  # named by the first chunk
        s = pd.Series(values, index=pd.Index(self._names), name=self.method)
        s.attrs.update(method=self.method, n_seen=self.n_seen_, fading=self.fading)
        return s

    def _need_two_classes(self, present: int) -> None:
        if present < 2:
            raise ValueError(
                f"only {present} class(es) seen so far; scores need rows from at least "
                "two classes - feed more data")

    @property
    @abstractmethod
    def scores_(self) -> pd.Series:
        """Score of each feature so far (defined by each screener)."""

    @property
    def ranking_(self) -> pd.Series:
        """Rank of each feature (1 = most relevant), as :func:`screening.rank`."""
        return rank(self.scores_)

    def top(self, k: int) -> list:
        """Names of the ``k`` most relevant features so far.

        Parameters
        ----------
        k : int
            How many names.

        Returns
        -------
        list
            Feature names, best first.
        """
        return top(self.scores_, k)


class OnlineMomentScreener(_OnlineBase):
    """T-score or Fisher score from running per-class sums.

    Sums of ``x - K_j`` and ``(x - K_j)^2`` are kept per class, with ``K_j`` the mean of
    the first dense chunk (a shift that avoids cancellation; 0 for sparse input, so that
    zeros need no work).  With fading, each feature carries a time anchor: its sums are
    valid as of the last chunk in which it had a non-zero entry and are faded by
    ``alpha^(now - anchor)`` only when touched or queried.

    Parameters
    ----------
    method : {'t', 'fisher'}
    fading : float, optional
        Fading factor ``alpha`` in ``(0, 1]``.
    classes : sequence, optional
        Fixed class labels (otherwise discovered as they arrive).
    feature_names : sequence of str, optional

    Attributes
    ----------
    scores_ : pandas.Series
        Current scores (same definitions as :func:`screening.score`).
    ranking_ : pandas.Series
        Rank per feature, 1 = best.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg import screening
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(300, 4)); y = (X[:, 1] > 0).astype(int)
    >>> on = screening.OnlineMomentScreener("t")
    >>> for i in range(0, 300, 7):
    ...     _ = on.partial_fit(X[i:i + 7], y[i:i + 7])
    >>> bool(np.allclose(on.scores_, screening.score(X, y, "t"), rtol=1e-10))
    True
    """

    _methods = ("t", "fisher")

    def __init__(self, method: str = "t", *, fading: float | None = None,
                 classes: Sequence[Any] | None = None,
                 feature_names: Sequence[str] | None = None) -> None:
        super().__init__(method, fading, classes, feature_names)
        self._alpha = None if fading is None or fading == 1 else float(fading)
        self._shift: np.ndarray | None = None
        self._W = np.zeros(0)        # class mass at time n_seen_
        self._S1 = np.zeros((0, 0))  # (C, p) sums, valid at _anchor
        self._S2 = np.zeros((0, 0))
        self._anchor = np.zeros(0, dtype=np.int64)

    def _decay(self, steps: Any) -> Any:
        if self._alpha is None:
            return np.ones(np.shape(steps)) if np.ndim(steps) else 1.0
        return self._alpha ** np.asarray(steps, dtype=np.float64)

    def partial_fit(self, X: Any, y: Any) -> OnlineMomentScreener:
        """Add a chunk of rows (dense, DataFrame or sparse) and their labels.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix
            A chunk of rows, the features in the same order every time.
        y : array-like
            The chunk's class labels.

        Returns
        -------
        self
        """
        M, codes = self._check_chunk(X, y)
        m, p = M.shape
        if m == 0:
            return self
        if self._shift is None:
            self._shift = np.zeros(p) if sp.issparse(M) else M.mean(axis=0)
            self._S1 = np.zeros((0, p))
            self._S2 = np.zeros((0, p))
            self._anchor = np.zeros(p, dtype=np.int64)
        C = self._coder.n_classes
        if C > self._W.size:  # new classes: zero rows
            extra = C - self._W.size
            self._W = np.concatenate([self._W, np.zeros(extra)])
            self._S1 = np.vstack([self._S1, np.zeros((extra, p))])
            self._S2 = np.vstack([self._S2, np.zeros((extra, p))])
        end = self.n_seen_ + m
        f = self._decay(end - (self.n_seen_ + 1 + np.arange(m)))  # weight at chunk end
        self._W = self._W * self._decay(m) + np.bincount(codes, weights=f, minlength=C)
        if sp.issparse(M) and np.any(self._shift != 0):
            M = M.toarray()  # a dense first chunk fixed a non-zero shift
        if sp.issparse(M):
            A = sp.coo_matrix(M)
            key = codes[A.row] * p + A.col
            wx = f[A.row] * A.data
            s1 = np.bincount(key, weights=wx, minlength=C * p).reshape(C, p)
            s2 = np.bincount(key, weights=wx * A.data, minlength=C * p).reshape(C, p)
            touched: np.ndarray = np.unique(A.col)
        else:
            Z = M - self._shift
            onehot = np.zeros((m, C))
            onehot[np.arange(m), codes] = f
            s1 = onehot.T @ Z
            s2 = onehot.T @ (Z * Z)
            touched = np.arange(p)
        # bring the touched features' sums from their anchor to now, then add
        g = self._decay(end - self._anchor[touched])
        self._S1[:, touched] = self._S1[:, touched] * g + s1[:, touched]
        self._S2[:, touched] = self._S2[:, touched] * g + s2[:, touched]
        self._anchor[touched] = end
        self.n_seen_ = end
        return self

    def moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Current per-class mass ``W (C,)``, mean ``(C, p)`` and centred SS ``(C, p)``."""
        if self._shift is None:
            raise ValueError("no data yet; call partial_fit first")
        g = self._decay(self.n_seen_ - self._anchor)
        S1, S2, W = self._S1 * g, self._S2 * g, self._W
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.where(W[:, None] > 0, S1 / W[:, None], 0.0)
        mean = d + self._shift
        m2 = np.maximum(S2 - S1 * d, 0.0)
        return W, mean, m2

    @property
    def scores_(self) -> pd.Series:
        W, mean, m2 = self.moments()
        self._need_two_classes(int(np.sum(W > 0)))
        return self._series(criteria.moment_score(self.method, W, mean, m2))


class OnlineQuantileScreener(_OnlineBase):
    """Chi-square, Gini or mutual information from streaming quantile summaries.

    Parameters
    ----------
    method : {'chi2', 'gini', 'mi'}
    bins : int, default 5
        Equal-frequency bins ``K`` (Algorithm 4).
    eps : float, default 0.01
        Rank precision of the summaries; smaller is more exact and slower.
    fading : float, optional
        Fading factor ``alpha`` in ``(0, 1]``.
    classes : sequence, optional
    feature_names : sequence of str, optional

    Attributes
    ----------
    scores_, ranking_ : pandas.Series
    counts_ : ndarray, shape (p, bins, n_classes)
        Current (faded) bin counts per class.
    sketch_ : QuantileSketch

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg import screening
    >>> rng = np.random.default_rng(2)
    >>> X = rng.normal(size=(500, 3)); y = (X[:, 0] > 0).astype(int)
    >>> on = screening.OnlineQuantileScreener("mi", eps=0.001).partial_fit(X, y)
    >>> bool(np.allclose(on.scores_, screening.score(X, y, "mi")))
    True
    """

    _methods = ("chi2", "gini", "mi")

    def __init__(self, method: str = "chi2", *, bins: int = 5, eps: float = 0.01,
                 fading: float | None = None, classes: Sequence[Any] | None = None,
                 feature_names: Sequence[str] | None = None) -> None:
        super().__init__(method, fading, classes, feature_names)
        self.bins = check_bins(bins)
        if not (0 < eps < 1):
            raise ValueError(f"eps must be in (0, 1), got {eps!r}")
        self.eps = float(eps)
        self.sketch_: QuantileSketch | None = None

    def partial_fit(self, X: Any, y: Any) -> OnlineQuantileScreener:
        """Add a chunk of rows (dense, DataFrame or sparse) and their labels.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix
            A chunk of rows, the features in the same order every time.
        y : array-like
            The chunk's class labels.

        Returns
        -------
        self
        """
        M, codes = self._check_chunk(X, y)
        if self.sketch_ is None:
            self.sketch_ = QuantileSketch(M.shape[1], self.eps, self.fading)
        if M.shape[0]:
            self.sketch_.update(M, codes)
        self.n_seen_ = self.sketch_.n_seen
        return self

    @property
    def counts_(self) -> np.ndarray:
        if self.sketch_ is None:
            raise ValueError("no data yet; call partial_fit first")
        return self.sketch_.bin_counts(self.bins)

    @property
    def scores_(self) -> pd.Series:
        counts = self.counts_
        self._need_two_classes(int(np.sum(counts.sum(axis=(0, 1)) > 0)))
        return self._series(criteria.contingency_score(self.method, counts))
