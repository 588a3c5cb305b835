"""The fitted state of generated classes: what the refit and predictions re-apply on new rows.

A generated class whose columns are fitted on the training rows (principal components, a
user's centring) keeps them behind :class:`FittedMap`; :class:`DerivedColumns` holds those maps
and the named or user transforms, and rebuilds the generated columns of any frame.
"""
from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

#: named transforms: (numpy function, formula template, domain check, domain text)
NAMED_TRANSFORMS: dict[str, tuple[Callable, str, Callable, str]] = {
    "log": (np.log, "np.log({})", lambda v: v > 0, "positive"),
    "sqrt": (np.sqrt, "np.sqrt({})", lambda v: v >= 0, "non-negative"),
    "log1p": (np.log1p, "np.log1p({})", lambda v: v > -1, "greater than -1"),
    "exp": (np.exp, "np.exp({})", lambda v: np.isfinite(np.exp(v)), "small enough for exp"),
}


class FittedMap(Protocol):
    """The fitted state of a generated class whose columns depend on the training rows.

    ``names`` are the columns it adds to the design's frame, ``columns`` the data columns
    it reads, and ``transform(frame)`` computes its columns (``len(frame) x len(names)``)
    from those data columns of any frame with the parameters fitted on the training rows,
    so that a refit and predictions rebuild the same columns.  :class:`PCAMap` is one.
    """

    @property
    def names(self) -> list[str]: ...

    @property
    def columns(self) -> list[str]: ...

    def transform(self, frame: pd.DataFrame) -> np.ndarray: ...


@dataclass
class PCAMap:
    """Centring, scaling and loadings of one ``pca()`` item, fitted on the training rows.

    Component ``j`` (1-based) of a frame is ``((X - center) / scale) @ loadings[:, j-1]``
    where X are ``columns`` of the frame; it is named ``f"{prefix}_{j}"``.
    """

    prefix: str
    columns: list[str]
    center: np.ndarray
    scale: np.ndarray
    loadings: np.ndarray  # p x k, unit columns, in decreasing eigenvalue order
    eigenvalues: np.ndarray  # of the correlation-type matrix Z'Z / n

    @property
    def names(self) -> list[str]:
        return [f"{self.prefix}_{j + 1}" for j in range(self.loadings.shape[1])]

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The components on ``frame`` with the stored (training) parameters."""
        missing = [c for c in self.columns if c not in frame.columns]
        if missing:
            raise ValueError(f"the data lack the column(s) {missing[:8]} needed by the components {self.prefix}_*")
        x = frame[self.columns].to_numpy(dtype=float)
        return ((x - self.center) / self.scale) @ self.loadings


def fit_pca(x: np.ndarray, columns: list[str], k: int, prefix: str, what: str) -> PCAMap:
    """Principal components of the standardised columns of ``x`` (no response involved).

    Columns are centred and divided by their standard deviation (ddof=0; constant columns
    are left unscaled and so contribute nothing).  Loadings are the leading right singular
    vectors, signed so that each one's largest-magnitude entry is positive.
    """
    n, p = x.shape
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"{what}: k must be a positive integer, got {k!r}")
    if k > p:
        raise ValueError(f"{what}: k={k} is larger than the number of matched columns ({p})")
    if k > n:
        raise ValueError(f"{what}: k={k} is larger than the number of rows ({n}); at most {n} components exist")
    center = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (x - center) / scale
    _, s, vt = np.linalg.svd(z, full_matrices=False)
    load = vt[:k].T.copy()
    flip = np.sign(load[np.argmax(np.abs(load), axis=0), np.arange(k)])
    load *= np.where(flip == 0, 1.0, flip)
    return PCAMap(prefix, list(columns), center, scale, load, s[:k] ** 2 / n)


class ColumnFunction:
    """A user transform applied column by column; picklable when ``fn`` is."""

    def __init__(self, fn: Callable, label: str):
        self.fn = fn
        self.label = label

    def __call__(self, values: npt.ArrayLike) -> np.ndarray:
        v = np.asarray(values, dtype=float)
        out = np.asarray(self.fn(v.reshape(len(v), -1)), dtype=float)
        return out.reshape(v.shape)


@dataclass
class DerivedColumns:
    """State the refit needs to rebuild generated terms on any data frame.

    ``maps`` are the fitted maps of the generated classes (:class:`FittedMap`: ``pca()``
    adds columns named ``prefix_j``); ``functions`` are user transforms called by name
    inside the formula (``cube(x5)``) and are handed to patsy as its namespace.
    """

    maps: list[FittedMap] = field(default_factory=list)
    functions: dict[str, ColumnFunction] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        """The generated columns, in the order they were added."""
        return [name for m in self.maps for name in m.names]

    @property
    def sources(self) -> list[str]:
        """The data columns the maps read."""
        return [c for m in self.maps for c in m.columns]

    @property
    def pca(self) -> list[PCAMap]:
        """The ``pca()`` maps (their loadings and eigenvalues), for a reader who inspects them."""
        return [m for m in self.maps if isinstance(m, PCAMap)]

    def used_by(self, names: Container[str]) -> list[FittedMap]:
        """The maps at least one of whose columns is among ``names``."""
        return [m for m in self.maps if any(c in names for c in m.names)]

    def __bool__(self) -> bool:
        return bool(self.maps or self.functions)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # results pickled when the maps were a list of PCA maps called ``pca``
        if "pca" in state:
            state = {("maps" if k == "pca" else k): v for k, v in state.items()}
        self.__dict__.update(state)

    def augment(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with the generated columns (re)computed from the stored parameters."""
        if not self.maps:
            return frame
        out = frame.copy()
        for m in self.maps:
            out[m.names] = m.transform(frame)
        return out


def transform_values(x: np.ndarray, fn: str | Callable[..., Any], columns: list[str], what: str) -> np.ndarray:
    """``fn`` applied to the columns of ``x``, refusing data outside its domain."""
    if isinstance(fn, str):
        func, _, ok, domain = NAMED_TRANSFORMS[fn]
        with np.errstate(all="ignore"):
            good = ok(x)
        if not good.all():
            j = int(np.flatnonzero(~good.all(axis=0))[0])
            raise ValueError(
                f"{what}: {fn} is undefined for column {columns[j]!r} (needs {domain} values, "
                f"min {np.min(x[:, j]):.4g}); shift the column or choose another transform"
            )
        return func(x)
    out = np.asarray(fn(x), dtype=float)
    if out.shape != x.shape:
        raise ValueError(f"{what}: the transform returned shape {out.shape}, expected {x.shape}")
    bad = ~np.isfinite(out).all(axis=0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what}: the transform gives NaN or infinite values on column {columns[j]!r}")
    return out
