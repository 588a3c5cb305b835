"""Column checks of the formula path: dates, one-level factors, infinities, missing rows.

Each check raises a ValueError that names the column and says what to do.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd


def is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def plain(value: Any) -> Any:
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


def numeric_dtypes(dtypes: pd.Series | np.ndarray | Sequence[Any], kinds: set[Any] | None = None) -> np.ndarray:
    """Per column (one entry of ``dtypes``, e.g. ``frame.dtypes``): numeric and not boolean.

    Classified once per distinct dtype (``kinds``: the set of them, if known), not once
    per column.
    """
    values = dtypes.to_numpy(dtype=object) if isinstance(dtypes, pd.Series) else np.asarray(dtypes, dtype=object)
    out = np.zeros(len(values), dtype=bool)
    kinds = set(values) if kinds is None else kinds
    for dt in kinds:
        if _is_numeric_dtype(dt):
            if len(kinds) == 1:
                out[:] = True
            else:
                out |= values == dt
    return out


def _is_numeric_dtype(dt: Any) -> bool:
    return pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)


def _maybe_date_dtype(dt: Any) -> bool:
    return pd.api.types.is_datetime64_any_dtype(dt) or pd.api.types.is_timedelta64_dtype(dt) or dt == object  # noqa: E721 -- a dtype, not a type


def column_classes(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``frame``: (numeric and not boolean, may hold dates), by dtype not by column.

    pandas keeps the columns of one dtype in blocks: each block's dtype is classified once
    and the answer spread to its columns.  Without that internal layout, each distinct
    dtype is classified once.
    """
    try:
        mgr = frame._mgr
        blknos = np.asarray(mgr.blknos)
        dtypes = [blk.dtype for blk in mgr.blocks]
        if len(blknos) != frame.shape[1]:
            raise AttributeError
    except (AttributeError, TypeError):
        values = frame.dtypes.to_numpy(dtype=object)
        kinds = set(values)
        return numeric_dtypes(values, kinds), date_dtypes(values, kinds)
    numeric = np.array([_is_numeric_dtype(dt) for dt in dtypes] + [False], dtype=bool)
    dates = np.array([_maybe_date_dtype(dt) for dt in dtypes] + [False], dtype=bool)
    return numeric[blknos], dates[blknos]


def date_dtypes(dtypes: pd.Series | np.ndarray | Sequence[Any], kinds: set[Any] | None = None) -> np.ndarray:
    """Per column: a dtype :func:`refuse_dates` may refuse (dates, time differences, object)."""
    values = dtypes.to_numpy(dtype=object) if isinstance(dtypes, pd.Series) else np.asarray(dtypes, dtype=object)
    out = np.zeros(len(values), dtype=bool)
    for dt in set(values) if kinds is None else kinds:
        if _maybe_date_dtype(dt):
            out |= values == dt
    return out


def first_date(frame: pd.DataFrame, columns: list[str], positions: np.ndarray | None = None,
               dtypes: np.ndarray | None = None, suspects: np.ndarray | None = None) -> str | None:
    """The first of ``columns`` that :func:`refuse_dates` refuses, checked once per dtype.

    ``positions`` are the columns' positions in ``frame`` (looked up when None).  Only
    object columns are looked at one by one (their values say whether they hold dates).
    """
    if not columns:
        return None
    if positions is None:
        positions = frame.columns.get_indexer(pd.Index(columns))
    if suspects is None:  # by frame position
        if dtypes is None:
            dtypes = frame.dtypes.to_numpy(dtype=object)  # not np.asarray(Series): no attribute probes
        suspects = date_dtypes(dtypes[positions])
    else:
        suspects = suspects[positions]
    for i in np.flatnonzero(suspects):
        if _date_dtype(frame.iloc[:, int(positions[i])]) is not None:
            return columns[i]
    return None


def nonfinite_columns(x: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``x`` that may hold a NaN or an infinity (one pass over ``x``).

    A NaN or an infinity makes the column sum NaN or infinite; so does an overflow of
    finite values, so callers check the columns returned exactly.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        return np.flatnonzero(~np.isfinite(x.sum(axis=0)))


def refuse_infinite(frame: pd.DataFrame, response: str,
                    blocks: Iterable[tuple[Any, np.ndarray, np.ndarray | None]] = (), numeric: np.ndarray | None = None,
                    response_at: int | None = None) -> None:
    """Infinite values are not missing (rows are not dropped for them): name the column.

    ``blocks`` are ``(positions, matrix, suspects)`` triples: float matrices of some of
    ``frame``'s columns (at those positions) on its rows, already built for the search and
    checked here without another copy; ``suspects`` are the only matrix columns that can
    hold an infinity (None: find them here).  ``numeric`` is :func:`numeric_dtypes` of
    ``frame.dtypes`` and ``response_at`` the response's position in ``frame``, if known
    (looking a name up in a wide frame hashes all its column names).  The first offending
    column in frame order is named.
    """
    ncol = frame.shape[1]
    numeric = numeric_dtypes(frame.dtypes) if numeric is None else numeric.copy()
    resp = frame.columns.get_indexer(pd.Index([response]))[0] if response_at is None else response_at
    if resp >= 0:
        numeric[resp] = False
    covered = np.zeros(ncol, dtype=bool)
    bad: dict[int, int] = {}
    for pos, x, suspect in blocks:
        pos = np.asarray(pos, dtype=np.intp)
        covered[pos] = True
        if suspect is None:
            suspect = nonfinite_columns(x)
        for j in suspect:
            if numeric[pos[j]]:
                n_inf = int(np.isinf(x[:, j]).sum())
                if n_inf:
                    bad[int(pos[j])] = n_inf
    rest = np.flatnonzero(numeric & ~covered)
    if len(rest):
        dts = frame.dtypes.to_numpy(dtype=object)[rest]
        for dt in set(dts):
            group = rest[dts == dt]
            x = frame.iloc[:, group].to_numpy(dtype=float)
            counts = np.isinf(x).sum(axis=0)
            for j in np.flatnonzero(counts):
                bad[int(group[j])] = int(counts[j])
    if bad:
        first = min(bad)
        c, n_inf = frame.columns[first], bad[first]
        raise ValueError(f"column {c!r} has {n_inf} infinite value(s); replace them (with NaN to drop "
                         "those rows, or by a finite value) before selection")


def no_complete_rows(used: pd.DataFrame) -> None:
    """The ValueError for "no row is complete", naming all-missing columns when there are some."""
    empty = used.columns[used.isna().all().to_numpy()].tolist()
    if empty:
        raise ValueError(f"column(s) {empty} are entirely missing (every value is NaN), so no row is complete; "
                         "remove them from the formula (or leave them out of a glob with exclude=)")
    worst = used.isna().sum().sort_values(ascending=False)
    top = [f"{c} ({int(k)} missing)" for c, k in worst.items() if k][:5]
    raise ValueError(f"no row is complete in the columns used: every row has a missing value somewhere "
                     f"(most missing: {', '.join(top)}); drop or impute some columns first")


def nonfinite_term_message(what: str, values: pd.DataFrame) -> str | None:
    """Why a term whose values hold NaN or infinities cannot be used; None when all are finite.

    The data's rows with missing values were already dropped, so such values come from the
    term's own transformation (``np.log(x - 1)`` where ``x < 1``), which no row dropping
    can anticipate.

    Parameters
    ----------
    what : str
        The term as the message names it, e.g. ``"the candidate term 'np.log(x - 1)'"``.
    values : DataFrame
        The term's columns on the rows used, labelled by the data's row labels.

    Returns
    -------
    str or None

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> values = pd.DataFrame({"np.log(x - 1)": [np.nan, 0.0, np.nan]}, index=[10, 11, 12])
    >>> message = nonfinite_term_message("the candidate term 'np.log(x - 1)'", values)
    >>> print(message.replace("; ", ";\\n"))
    the candidate term 'np.log(x - 1)' has NaN or infinite values (e.g. from its transformation) in 2 rows, the first at row label 10;
    compute it as a column of the data first, then drop or impute those rows
    """
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values.to_numpy(dtype=float)).all(axis=1)
    n = int(bad.sum())
    if n == 0:
        return None
    first = plain(values.index[int(np.argmax(bad))])
    rows = "1 row" if n == 1 else f"{n} rows"
    return (f"{what} has NaN or infinite values (e.g. from its transformation) in {rows}, the first at row label "
            f"{first!r}; compute it as a column of the data first, then drop or impute those rows")


def numpy_booleans(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with pandas' nullable boolean columns as numpy booleans (objects with None
    where a value is missing), which patsy codes as it codes ``bool`` columns: it cannot
    read the nullable dtype.  The same object when there is none; else a shallow copy."""
    if frame.select_dtypes(include=["boolean"]).shape[1] == 0:  # by blocks: no look at every column
        return frame
    flagged = [j for j, dt in enumerate(frame.dtypes.to_numpy()) if isinstance(dt, pd.BooleanDtype)]
    out = frame.copy(deep=False)
    for j in flagged:
        col = frame.iloc[:, j]
        if col.isna().any():
            values = col.astype(object).to_numpy()
            values[col.isna().to_numpy()] = None  # patsy's missing value in an object column
            out.isetitem(j, pd.Series(values, index=frame.index, dtype=object))
        else:
            out.isetitem(j, col.to_numpy(dtype=bool))
    return out

