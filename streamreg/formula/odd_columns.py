"""Columns a formula would otherwise misread quietly: complex numbers, numbers with stray text.

A complex column would be analysed as its real part (numpy only warns, without the column's
name); a numeric column with one ``"n/a"`` or ``"?"`` would become a factor with a level per
distinct value, and a glob would offer (or skip) it as such.  Both are refused, naming the
column and the offending value.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..validators import stray_text


def dtype_mask(frame: pd.DataFrame, test: Callable[[Any], bool]) -> np.ndarray:
    """Per column of ``frame``: ``test(dtype)``, evaluated once per distinct dtype."""
    dtypes = frame.dtypes.to_numpy(dtype=object) if frame.shape[1] < 1000 else None
    if dtypes is None:  # wide frames: pandas keeps the columns of one dtype in blocks
        by_block = _block_answers(frame, test)
        if by_block is not None:
            return by_block
        dtypes = frame.dtypes.to_numpy(dtype=object)
    out = np.zeros(len(dtypes), dtype=bool)
    for dt in set(dtypes):
        if test(dt):
            out |= dtypes == dt
    return out


def _block_answers(frame: pd.DataFrame, test: Callable[[Any], bool]) -> np.ndarray | None:
    """``test`` once per pandas block, spread over the block's columns; None when pandas'
    block manager is not what this expects (then the caller reads the dtypes per column)."""
    try:
        blknos = np.asarray(frame._mgr.blknos)
        answers = np.array([bool(test(blk.dtype)) for blk in frame._mgr.blocks] + [False])
    except (AttributeError, TypeError):
        return None
    return answers[blknos] if len(blknos) == frame.shape[1] else None


def _is_complex(dt: Any) -> bool:
    return isinstance(dt, np.dtype) and dt.kind == "c"


def _is_text(dt: Any) -> bool:
    return dt == object or isinstance(dt, pd.StringDtype)  # noqa: E721 -- a dtype, not a type


def refuse_odd_columns(data: pd.DataFrame, positions: np.ndarray) -> None:
    """ValueError for a complex column, or a numeric column with stray text, among ``positions``."""
    sub = data.iloc[:, positions] if len(positions) < data.shape[1] else data
    for j in np.flatnonzero(dtype_mask(sub, _is_complex))[:1].tolist():
        name = str(sub.columns[j])
        raise ValueError(f"column {name!r} holds complex numbers ({sub.dtypes.iloc[j]}); streamreg models real "
                         f"values: give it as its real part, e.g. data[{name!r}] = np.real(data[{name!r}]), "
                         "or its modulus (np.abs)")
    for j in np.flatnonzero(dtype_mask(sub, _is_text)).tolist():
        stray = stray_text(sub.iloc[:, int(j)])
        if stray is not None:
            name, (value, row, count) = str(sub.columns[j]), stray
            others = f" and {count - 1} more" if count > 1 else ""
            raise ValueError(
                f"column {name!r} holds numbers but also the text {value!r} (row {row!r}{others}), so it would be "
                f"read as a factor, not as numbers: make such entries missing, e.g. data[{name!r}] = "
                f"pd.to_numeric(data[{name!r}], errors='coerce') (or read the CSV with na_values=[{value!r}])")
