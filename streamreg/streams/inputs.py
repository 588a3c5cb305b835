"""Streams from what :func:`streamreg.select` is given: arrays, DataFrames, iterables, Streams.

Every candidate is checked on the way in (numeric, named once), so the search never meets
a name that clashes with the response; NaN and infinite values are refused by the stream
as each block is read (from the column norms the scoring needs anyway).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..validators import stray_text
from .arrays import CandidateNames, IterableStream, MatrixStream
from .base import NameRange, Stream
from .dask_array import DaskArrayStream, is_dask_array
from .sparse import SparseMatrixStream, is_sparse, is_sparse_frame, sparse_frame_matrix


def as_streams(streams: Any, n: int, reserved: Mapping[str, str] | None = None, *,
               remember_items: bool = True) -> list[Stream]:
    """A dict is named streams, a list several streams, anything else one stream.

    ``reserved`` maps names candidates may not take (the response, fixed columns) to what
    they are; array and DataFrame candidates are checked here, generator items as read.
    ``remember_items=False`` (``history="none"``): see :class:`CandidateNames`.
    """
    book = CandidateNames(reserved, remember_items=remember_items)  # shared: unique across the streams
    if streams is None:
        raise TypeError("streams must be an array, a DataFrame, an iterable of (name, column) pairs, "
                        "or a dict / list of them; got None")
    if isinstance(streams, Mapping) and not is_sparse(streams):  # a DOK sparse matrix is a dict
        items = [(str(k), v) for k, v in streams.items()]
    elif isinstance(streams, list) and streams and not any(isinstance(s, tuple) for s in streams):
        items = [(f"stream{j + 1}", s) for j, s in enumerate(streams)]
    else:
        items = [("stream1", streams)]
    if not items or (isinstance(streams, list) and not streams):
        raise ValueError("no candidate streams were given: streams is empty")
    out = []
    for name, s in items:
        out.append(_one_stream(name, s, n, len(items) > 1, book))
        _claim_names(out[-1], book)
    return out


def _one_stream(name: str, s: Any, n: int, several: bool, book: CandidateNames) -> Stream:
    """One user stream as a Stream (arrays and frames are sliced, not copied)."""
    if isinstance(s, Stream):
        return s
    if isinstance(s, pd.Series):
        s = s.to_frame(name=f"{name}_0" if s.name is None else str(s.name))
    if isinstance(s, pd.DataFrame):
        if len(s) != n:
            raise ValueError(f"stream {name!r} has {len(s)} rows, y has {n}")
        matrix = sparse_frame_matrix(s) if is_sparse_frame(s) else None
        if matrix is not None:  # sparse columns filled with 0: scored at sparse cost
            return SparseMatrixStream(name, matrix, [str(c) for c in s.columns])
        for j, c in enumerate(s.columns):  # by position: duplicated names are reported by MatrixStream
            _check_numeric_column(s.iloc[:, j], f"stream {name!r}: column {str(c)!r}")
        return MatrixStream(name, s.to_numpy(dtype=float), [str(c) for c in s.columns])
    if is_dask_array(s) or _is_dask_frame(s):
        return _dask_stream(name, s, n, several)
    if is_sparse(s):
        if len(s.shape) != 2:
            raise ValueError(f"stream {name!r}: expected a 2-D sparse matrix (one column per candidate), "
                             f"got shape {s.shape}")
        if s.shape[0] != n:
            raise ValueError(f"stream {name!r} has {s.shape[0]} rows, y has {n}")
        return SparseMatrixStream(name, s, NameRange(f"{name}_" if several else "x", 0, s.shape[1]))
    if isinstance(s, np.ndarray):
        if s.ndim not in (1, 2):
            raise ValueError(f"stream {name!r}: expected a 2-D array (one column per candidate), got shape {s.shape}")
        if s.shape[0] != n:
            raise ValueError(f"stream {name!r} has {s.shape[0]} rows, y has {n}")
        arr = s if s.ndim == 2 else s.reshape(n, 1)
        if arr.dtype.kind not in "biuf":
            arr = _numeric_array(arr, f"stream {name!r}")
        return MatrixStream(name, arr, NameRange(f"{name}_" if several else "x", 0, arr.shape[1]))
    if _is_iterable_stream(s):
        return IterableStream(name, s, n, names=book)
    raise TypeError(f"stream {name!r}: expected an array, a DataFrame or an iterable, got {type(s).__name__}")


def _is_dask_frame(s: Any) -> bool:
    module = type(s).__module__
    return module.startswith(("dask.dataframe", "dask_expr")) and hasattr(s, "to_dask_array")


def _dask_stream(name: str, s: Any, n: int, several: bool) -> DaskArrayStream:
    """A Dask array or DataFrame as a stream whose values stay on the cluster."""
    names: Sequence[str] | None = None
    if _is_dask_frame(s):
        frame = s.to_frame() if s.ndim == 1 else s
        for c, dtype in frame.dtypes.items():  # from the metadata: nothing is computed
            what = f"stream {name!r}: column {str(c)!r}"
            if not (isinstance(dtype, np.dtype) and dtype.kind in "biuf"):
                _check_numeric_column(pd.Series([], dtype=dtype), what)  # dates, text: its own message
                raise ValueError(f"{what} is not numeric (dtype {dtype}); a Dask stream needs numeric dtypes "
                                 "(convert with .astype(float))")
        names = [str(c) for c in frame.columns]
        s = frame.to_dask_array(lengths=True)
    elif s.ndim == 1:
        s = s.reshape(-1, 1)
    if any(np.isnan(c) for dim in s.chunks for c in dim):
        raise ValueError(f"stream {name!r}: the dask array has unknown chunk sizes; call x.compute_chunk_sizes() "
                         "(or DataFrame.to_dask_array(lengths=True)) first")
    if s.shape[0] != n:
        raise ValueError(f"stream {name!r} has {s.shape[0]} rows, y has {n}")
    if names is None:
        names = NameRange(f"{name}_" if several else "x", 0, int(s.shape[1]))
    return DaskArrayStream(name, s, names)


def _check_numeric_column(series: pd.Series, what: str) -> None:
    """Candidates of array and DataFrame streams are numeric columns (booleans count as 0/1)."""
    kind = series.dtype.kind
    if kind in "biuf":
        return
    if kind in "mM" or isinstance(series.dtype, pd.DatetimeTZDtype):
        raise ValueError(f"{what} is a date or time ({series.dtype}); convert it to a number first, "
                         "e.g. days since a date: (d - d.min()).dt.days")
    if kind == "O" and _converts_to_float(series):
        return
    stray = stray_text(series) if kind == "O" else None
    if stray is not None:
        raise ValueError(f"{what} holds numbers but also the text {stray[0]!r} (row {stray[1]!r}); make such entries "
                         "missing and drop or impute those rows, e.g. pd.to_numeric(column, errors='coerce')")
    raise ValueError(f"{what} is not numeric (dtype {series.dtype}); array and DataFrame streams take numeric "
                     "columns: code factors as indicator columns (pd.get_dummies) or use streamreg() with a formula")


def _numeric_array(arr: np.ndarray, what: str) -> np.ndarray:
    """A non-numeric-dtype array as floats (object arrays of numbers), else ValueError."""
    if arr.dtype.kind in "mM":
        _check_numeric_column(pd.Series(arr[:0, 0]), what)
    try:
        if arr.dtype.kind != "O":
            raise TypeError
        return arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} is not numeric (dtype {arr.dtype}); array streams take numeric columns") from None


def _claim_names(stream: Stream, book: CandidateNames) -> None:
    """Claim the names of an array or DataFrame stream's candidates (known in advance)."""
    if not isinstance(stream, (MatrixStream, DaskArrayStream)):
        return
    if isinstance(stream.names, NameRange):
        book.claim_range(stream.names, stream.name)
    else:
        for c in stream.names:
            book.claim(c, stream.name)


def known_length(stream: Stream) -> bool:
    """Whether a stream's length is known in advance (so that reading it ends)."""
    return stream.n_candidates is not None or bool(getattr(stream, "known_length", False))


def _is_iterable_stream(s: Any) -> bool:
    return isinstance(s, Iterable) and not isinstance(s, (str, bytes, np.ndarray, pd.DataFrame, Mapping))


def _converts_to_float(series: pd.Series) -> bool:
    """Whether an object column holds numbers only (e.g. Decimals or ints stored as objects)."""
    try:
        series.to_numpy(dtype=float)
    except (TypeError, ValueError):
        return False
    return True
