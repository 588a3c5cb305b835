"""Input checks and conversions shared by every screening function.

Everything downstream works on a float64 matrix (dense ``ndarray`` or CSC/CSR sparse) and
integer class codes, so the checks here are the only place where user input is inspected.
Each error says what was wrong *and* what to do about it.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, cast, overload

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = [
    "as_matrix",
    "as_response",
    "encode_labels",
    "check_bins",
    "is_classification",
    "LabelCoder",
    "Matrix",
]

#: a float64 matrix as the screening code sees it: dense, or sparse in CSC or CSR format
#: (``scipy.sparse`` matrices or arrays); the code branches on ``sp.issparse``
Matrix: TypeAlias = np.ndarray | sp.csc_matrix | sp.csr_matrix | sp.csc_array | sp.csr_array


def _default_names(p: int) -> list[str]:
    return [f"x{j}" for j in range(p)]


@overload
def as_matrix(X: Any, feature_names: Sequence[str] | None = None, *, sparse_format: str = "csc",
              want_names: Literal[True] = True) -> tuple[Matrix, list[str]]: ...


@overload
def as_matrix(X: Any, feature_names: Sequence[str] | None = None, *, sparse_format: str = "csc",
              want_names: bool) -> tuple[Matrix, list[str] | None]: ...


def as_matrix(
    X: Any,
    feature_names: Sequence[str] | None = None,
    *,
    sparse_format: str = "csc",
    want_names: bool = True,
) -> tuple[Matrix, list[str] | None]:
    """Return ``(matrix, names)`` with a float64 matrix and one name per column.

    DataFrames keep their column names; other input gets ``x0, x1, ...`` unless
    ``feature_names`` is given.  Sparse input stays sparse (in ``sparse_format``).

    Raises
    ------
    ValueError
        For non-numeric columns, NaN/inf entries, a non-2-D array or a wrong number of
        names.
    """
    if isinstance(X, pd.DataFrame):
        bad = [str(c) for c, dt in X.dtypes.items()
               if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if bad:
            raise ValueError(
                f"columns {bad} are not numeric; encode them first (for example with "
                "pandas.get_dummies or a formula) before screening")
        names: list[str] | None = [str(c) for c in X.columns]
        M: Matrix = X.to_numpy(dtype=np.float64)
    elif sp.issparse(X):
        M = cast(Matrix, cast(Any, X).asformat(sparse_format).astype(np.float64))
        names = None
    else:
        arr = np.asarray(X)
        if arr.dtype.kind not in "biuf":
            raise ValueError(
                f"X has dtype {arr.dtype}, which is not numeric; convert or encode the "
                "columns to numbers before screening")
        M = arr.astype(np.float64, copy=False)
        names = None
    if M.ndim == 1:
        raise ValueError("X is 1-D; pass a 2-D matrix (use X.reshape(-1, 1) for one feature)")
    if M.ndim != 2:
        raise ValueError(f"X must be 2-D, got {M.ndim} dimensions")
    data = M.data if sp.issparse(M) else M
    if not np.all(np.isfinite(data)):
        cols: np.ndarray
        if sp.issparse(M):
            cols = np.unique(M.tocoo().col[~np.isfinite(M.tocoo().data)])
        else:
            cols = np.flatnonzero(~np.all(np.isfinite(M), axis=0))
        raise ValueError(
            f"X contains NaN or infinite values (in {len(cols)} column(s), first: "
            f"{[int(c) for c in cols[:5]]}); impute or drop those rows before screening")
    p = M.shape[1]
    if feature_names is not None:
        names = [str(n) for n in feature_names]
        if len(names) != p:
            raise ValueError(f"got {len(names)} feature names for {p} columns")
    elif names is None and want_names:
        names = _default_names(p)
    return M, names


def as_response(y: Any, n_rows: int) -> np.ndarray:
    """Return ``y`` as a 1-D array after checking its length and missing values."""
    arr = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n_rows:
        raise ValueError(
            f"X has {n_rows} rows but y has {arr.shape[0]} values; pass one response per row")
    if pd.isna(arr).any():
        raise ValueError("y contains missing values; drop those rows before screening")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError("y contains infinite values; drop those rows before screening")
    return arr


def is_classification(y: np.ndarray) -> bool:
    """Guess the task: labels (non-float, or float with at most 10 integer values)."""
    if y.dtype.kind not in "fc":
        return True
    return bool(np.all(np.mod(y, 1) == 0) and np.unique(y).size <= 10)


def encode_labels(y: np.ndarray, *, min_classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(codes, classes)`` with ``codes`` in ``0..C-1`` (sorted class order)."""
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < min_classes:
        raise ValueError(
            f"y has a single class ({classes[0]!r}); a classification score needs at least "
            "two classes - check the response or use a regression score")
    return codes.astype(np.int64), classes


def check_bins(bins: Any) -> int:
    """Validate the number of equal-frequency bins."""
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2 (got {bins!r}); the thesis uses 5")
    return int(bins)


class LabelCoder:
    """Map class labels to codes ``0, 1, ...`` in order of first appearance.

    Online screeners see classes one chunk at a time, so the code table grows; a fixed
    table can be given with ``classes``.
    """

    def __init__(self, classes: Sequence[Any] | None = None) -> None:
        self.fixed = classes is not None
        self.classes: list[Any] = list(classes) if classes is not None else []
        self._index = {c: i for i, c in enumerate(self.classes)}

    def encode(self, y: np.ndarray) -> np.ndarray:
        """Codes for ``y``; unseen labels are appended unless the table is fixed."""
        uniq, inv = np.unique(y, return_inverse=True)
        table = np.empty(uniq.size, dtype=np.int64)
        for i, u in enumerate(uniq.tolist()):
            if u not in self._index:
                if self.fixed:
                    raise ValueError(
                        f"label {u!r} is not in classes={self.classes}; pass every class "
                        "up front or leave classes=None")
                self._index[u] = len(self.classes)
                self.classes.append(u)
            table[i] = self._index[u]
        return table[inv]

    @property
    def n_classes(self) -> int:
        return len(self.classes)
