"""Column checks of the formula path: dates, one-level factors, infinities, missing rows.

Each check raises a ValueError that names the column and says what to do.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def plain(value):
    """A numpy scalar as the Python value (so messages show 1, not np.int64(1))."""
    return value.item() if isinstance(value, np.generic) else value


def _date_dtype(series: pd.Series) -> str | None:
    """"date" or "time difference" for date-like columns (object columns of dates too), else None."""
    if pd.api.types.is_datetime64_any_dtype(series):
        return "date"
    if pd.api.types.is_timedelta64_dtype(series):
        return "time difference"
    if series.dtype == object:
        inferred = pd.api.types.infer_dtype(series, skipna=True)
        if inferred in ("datetime", "datetime64", "date"):
            return "date"
        if inferred in ("timedelta", "timedelta64"):
            return "time difference"
    return None


def refuse_dates(series: pd.Series, what: str, *, exclude_hint: bool = False) -> None:
    """ValueError for a date or time-difference column, with how to make it a number.

    patsy codes such a column as a factor with one level per distinct value, which is
    never what was meant.
    """
    kind = _date_dtype(series)
    if kind is None:
        return
    how = ("days since a date, e.g. (d - d.min()).dt.days" if kind == "date"
           else "a number of days, e.g. d.dt.total_seconds() / 86400")
    hint = " (or leave it out of the glob with exclude=)" if exclude_hint else ""
    raise ValueError(f"{what} is a {kind} ({series.dtype}); streamreg cannot use it directly: convert it to "
                     f"{how}{hint}")


def check_fixed_columns(frame: pd.DataFrame, columns: list[str], *, allow_missing: bool) -> None:
    """Refuse fixed-term columns that are dates, single-level factors or (optionally) incomplete.

    Parameters
    ----------
    frame : DataFrame
        The rows used.
    columns : list of str
        The data columns of the fixed terms.
    allow_missing : bool
        False for :func:`streamreg.select`, which has no ``missing=`` rule: a missing or
        infinite value is refused up front, naming the column.
    """
    for c in columns:
        s = frame[c]
        refuse_dates(s, f"fixed column {c!r}")
        if not allow_missing:
            bad = s.isna().to_numpy().copy()  # pandas hands out a read-only array
            if is_numeric(s):
                bad |= ~np.isfinite(s.to_numpy(dtype=float, na_value=np.nan))
            if bad.any():
                raise ValueError(f"fixed column {c!r} has {int(bad.sum())} missing or infinite value(s) (first at "
                                 f"position {int(np.flatnonzero(bad)[0])}); drop those rows from y, fixed and the "
                                 "streams first")
        if not is_numeric(s):
            levels = s.dropna().unique()
            if len(levels) < 2:
                level = f" {plain(levels[0])!r}" if len(levels) else ""
                raise ValueError(f"fixed column {c!r} is a factor with a single level{level} in the rows used: it is "
                                 "constant and cannot be a fixed term; remove it")


def check_new_column_types(train: pd.DataFrame, newdata: pd.DataFrame) -> None:
    """A column numeric in the training rows must be numeric in new data.

    patsy fails on a text column where it coded numbers with an AttributeError from its
    own message formatting; say which column instead.
    """
    if newdata is train:
        return
    for c in train.columns:
        if c in newdata.columns and is_numeric(train[c]) and isinstance(newdata[c], pd.Series):
            new = newdata[c]
            if not (is_numeric(new) or pd.api.types.is_bool_dtype(new) or new.isna().all() or _numbers(new)):
                raise ValueError(f"newdata column {c!r} is not numeric (dtype {new.dtype}); the model was fitted "
                                 "with numbers in it")


def _numbers(series: pd.Series) -> bool:
    """Whether an object column holds numbers only (patsy reads those as numeric)."""
    if series.dtype != object:
        return False
    return pd.api.types.infer_dtype(series, skipna=True) in ("integer", "floating", "mixed-integer-float",
                                                             "decimal", "boolean")


def refuse_infinite(frame: pd.DataFrame, response: str) -> None:
    """Infinite values are not missing (rows are not dropped for them): name the column."""
    for c in frame.columns:
        if c != response and is_numeric(frame[c]):
            n_inf = int(np.isinf(frame[c].to_numpy(dtype=float)).sum())
            if n_inf:
                raise ValueError(f"column {c!r} has {n_inf} infinite value(s); replace them (with NaN to drop "
                                 "those rows, or by a finite value) before selection")


def no_complete_rows(used: pd.DataFrame) -> None:
    """The ValueError for "no row is complete", naming all-missing columns when there are some."""
    empty = [c for c in used.columns if used[c].isna().all()]
    if empty:
        raise ValueError(f"column(s) {empty} are entirely missing (every value is NaN), so no row is complete; "
                         "remove them from the formula (or leave them out of a glob with exclude=)")
    worst = used.isna().sum().sort_values(ascending=False)
    top = [f"{c} ({int(k)} missing)" for c, k in worst.items() if k][:5]
    raise ValueError(f"no row is complete in the columns used: every row has a missing value somewhere "
                     f"(most missing: {', '.join(top)}); drop or impute some columns first")
