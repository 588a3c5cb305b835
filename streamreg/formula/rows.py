"""The columns a design uses, cut to its complete rows.

:func:`complete_rows` takes the used columns of the data (a view), refuses the odd ones,
takes the numeric ``stream()`` columns as one float matrix per item, and drops (or
refuses) the rows with a missing value, counting them per column for the warning.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..models.base import column_norms
from .checks import no_complete_rows, numpy_booleans
from .names import ColumnPositions, _as_slice
from .odd_columns import refuse_odd_columns
from .resolve import Resolved, mark_constant_factors

#: per ``stream()`` item of numeric columns: its columns' positions in the frame, their
#: float matrix, and the matrix columns that may hold NaN or inf
Matrix = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class DesignRows:
    """The used columns on the complete rows, and the float matrices of the ``stream()`` items."""

    frame: pd.DataFrame
    used: np.ndarray  # positions in the data of ``frame``'s columns
    in_frame: np.ndarray  # data position -> frame position (for used columns)
    matrices: dict[int, Matrix]  # by item position
    norms: dict[int, np.ndarray | None]  # the matrices' squared column norms (None: rows were dropped)
    in_matrix: np.ndarray  # per frame column: in one of the matrices
    n_dropped: int = 0
    kept: np.ndarray | None = None  # positions of the rows kept; None when every row is kept
    missing_by_column: dict[str, int] = field(default_factory=dict)

    def position(self, where: ColumnPositions, column: str) -> int:
        """The position of a used data column in ``frame``."""
        return int(self.in_frame[where[column]])

    def plain_positions(self, where: ColumnPositions, taken: Iterable[str]) -> np.ndarray:
        """Positions in ``frame`` of the numeric ``stream()`` columns the model itself does not use."""
        model_columns = np.zeros(len(self.in_matrix), dtype=bool)  # generated columns come after
        model_columns[[self.position(where, c) for c in taken]] = True
        return np.flatnonzero(self.in_matrix & ~model_columns)


def complete_rows(data: pd.DataFrame, used: np.ndarray, items: Sequence[tuple[object, Resolved | list[str]]],
                  missing: str) -> DesignRows:
    """The ``used`` columns (a mask over the data's; odd ones refused) on the rows without a
    missing value.  ``items`` are the formula's stream items and their candidates.

    Numeric ``stream()`` columns are taken as one float matrix per item, once; one pass over
    it finds the columns that may hold NaN or inf, the only ones looked at again.
    """
    used_pos = np.flatnonzero(used)
    refuse_odd_columns(data, used_pos)  # complex numbers, numbers with a stray "n/a"
    frame = data.iloc[:, _as_slice(used_pos)]  # a view until written (copy-on-write), not a copy
    rows = DesignRows(frame, used_pos, np.cumsum(used) - 1, {}, {}, np.zeros(frame.shape[1], dtype=bool))
    for pos, (_, cands) in enumerate(items):
        if isinstance(cands, Resolved) and cands.positions is not None:  # a stream() item
            fpos = rows.in_frame[cands.positions]
            x = _float_matrix(frame.iloc[:, _as_slice(fpos)])
            norm2 = column_norms(x)  # the search's squared norms, and the NaN check in the same pass
            rows.norms[pos] = norm2
            rows.matrices[pos] = (fpos, x, np.flatnonzero(~np.isfinite(norm2)))
            rows.in_matrix[fpos] = True
    drop_incomplete(rows, missing)
    if len(rows.frame) == 0:
        no_complete_rows(data[list(rows.frame.columns)])
    rows.frame = numpy_booleans(rows.frame)  # patsy cannot read pandas' nullable booleans
    for _, cands in items:
        mark_constant_factors(cands, rows.frame)
    return rows


def drop_incomplete(rows: DesignRows, missing: str) -> None:
    """Drop the rows with a missing value (counted per column), or refuse them (``missing='raise'``)."""
    frame, rest = rows.frame, np.flatnonzero(~rows.in_matrix)
    na_rows = frame.iloc[:, _as_slice(rest)].isna().any(axis=1).to_numpy()
    for _, x, suspects in rows.matrices.values():
        if len(suspects):
            na_rows = na_rows | np.isnan(x[:, suspects]).any(axis=1)
    rows.n_dropped = int(na_rows.sum())
    if not rows.n_dropped:
        return
    counts = frame.iloc[:, _as_slice(rest)].isna().sum()
    rows.missing_by_column = {str(c): int(k) for c, k in counts[counts > 0].items()}
    for fpos, x, suspects in rows.matrices.values():
        k = np.isnan(x[:, suspects]).sum(axis=0)
        rows.missing_by_column.update({str(frame.columns[fpos[j]]): int(v) for j, v in zip(suspects, k) if v})
    if missing == "raise":
        bad = frame.columns[frame.isna().any()].tolist()
        raise ValueError(
            f"{rows.n_dropped} rows have missing values in the columns used ({bad[:8]}); "
            "drop or impute them, or pass missing='drop'"
        )
    keep = ~na_rows
    rows.frame = frame.loc[keep]
    rows.matrices = {pos: (fpos, x[keep], suspects) for pos, (fpos, x, suspects) in rows.matrices.items()}
    rows.norms = dict.fromkeys(rows.norms)  # of the rows kept: computed again, block by block
    rows.kept = np.flatnonzero(keep)


def _float_matrix(frame: pd.DataFrame) -> np.ndarray:
    """The frame's values as floats: a view of a single float64 block, else one copy."""
    try:
        return frame.to_numpy(dtype=float)
    except (TypeError, ValueError):  # nullable dtypes holding pd.NA
        return frame.to_numpy(dtype=float, na_value=np.nan)

