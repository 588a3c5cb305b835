"""The history rows of a streamwise run, and the check that its statistics are finite."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ..models.scale import too_large
from ..outcomes import TestOutcomes
from ..streams.base import TermBlock
from .history import Deferred, HistoryRecorder

__all__ = ["check_finite", "level_columns", "record_run", "record_skipped"]


def check_finite(statistic: np.ndarray, buf: TermBlock, y: np.ndarray | None = None) -> None:
    """A non-finite statistic: name the candidate with NaN or inf values, or else the scale at fault."""
    if np.isfinite(statistic).all():
        return
    j = int(np.flatnonzero(~np.isfinite(statistic))[0])
    name, values = buf.names[j], buf.block.term(j)
    if not np.isfinite(values).all():
        raise ValueError(f"stream {buf.stream!r}: candidate {name!r} contains NaN or infinite values; "
                         "drop or impute them before selection")
    # finite values, a non-finite statistic: sums of squares overflowed (beyond 1.8e308)
    cause = too_large("the response", y) or too_large(f"candidate {name!r}", values)
    raise ValueError(f"stream {buf.stream!r}: the test of candidate {name!r} overflowed floating point"
                     + (f": {cause}" if cause else "; rescale the response and the candidates"))


def record_skipped(rec: HistoryRecorder, buf: TermBlock, codes: np.ndarray, sl: slice) -> None:
    idx = np.arange(len(buf))[sl]
    if idx.size == 0:
        return
    nan = np.nan
    rec.add(buf.stream, [buf.names[i] for i in idx], test=-1, stream_test=-1, statistic=nan,
            df=buf.block.widths[idx], df_resid=nan, log_p=nan, level=nan, wealth=nan,
            status=codes[idx], pass_=buf.pass_no)


def record_run(rec: HistoryRecorder, buf: TermBlock, codes: np.ndarray, end: int, used_tested: np.ndarray,
                sub: TestOutcomes, lp: np.ndarray,
                run_levels: tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]],
                status: np.ndarray, *, first_global: int, first_stream: int) -> None:
    """History rows for buffer positions [0, end): tests in order, skips in between.

    ``run_levels``: the tests' levels and wealths, or a function giving them when the
    history is read.
    """
    n = end
    scatter = None if len(used_tested) == n else used_tested  # nothing skipped: the run's arrays are the rows
    level: np.ndarray | Deferred
    wealth: np.ndarray | Deferred
    if callable(run_levels):  # kept small: a copy of the positions, not a view of the block's
        level = wealth = Deferred(partial(level_columns, run_levels, None if scatter is None else scatter.copy(), n))
    else:
        columns = level_columns(run_levels, scatter, n)
        level, wealth = columns["level"], columns["wealth"]
    if scatter is None:
        # the outcomes' arrays are never written to again: kept, not copied
        rec.add(buf.stream, buf.names[:n], owned=True, test=np.arange(first_global, first_global + n),
                stream_test=np.arange(first_stream, first_stream + n), statistic=sub.statistic, df=sub.df,
                df_resid=sub.df_resid, log_p=lp, level=level, wealth=wealth, status=status, pass_=buf.pass_no)
        return
    test = np.full(n, -1)
    stream_test = np.full(n, -1)
    stat = np.full(n, np.nan)
    df = buf.block.widths[:n].astype(int).copy()
    dfr = np.full(n, np.nan)
    logp = np.full(n, np.nan)
    st = codes[:n].astype(int).copy()
    t = used_tested
    test[t] = first_global + np.arange(len(t))
    stream_test[t] = first_stream + np.arange(len(t))
    stat[t], df[t], dfr[t], logp[t] = sub.statistic, sub.df, sub.df_resid, lp
    st[t] = status
    rec.add(buf.stream, buf.names[:n], owned=True, test=test, stream_test=stream_test, statistic=stat, df=df,
            df_resid=dfr, log_p=logp, level=level, wealth=wealth, status=st, pass_=buf.pass_no)


def level_columns(run_levels: tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]],
                   tested: np.ndarray | None, n: int) -> dict[str, np.ndarray]:
    """The history's level and wealth columns of a run: at the ``tested`` rows of ``n`` (all
    when None), NaN at the skipped ones."""
    level, wealth = run_levels() if callable(run_levels) else run_levels
    if tested is None:
        return {"level": level, "wealth": wealth}
    lev, wl = np.full(n, np.nan), np.full(n, np.nan)
    lev[tested], wl[tested] = level, wealth
    return {"level": lev, "wealth": wl}
