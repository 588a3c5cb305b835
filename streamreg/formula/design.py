"""From formula and DataFrame to response, fixed design and candidate streams.

The formula layer is the only part of streamreg that imports patsy: here the data are
cut to the columns used and the rows kept; :mod:`.resolve` matches a ``stream()``'s globs,
:mod:`.frame_stream` offers its candidates, :mod:`.classes` builds the generated classes,
:mod:`.matrices` calls patsy in the one formula namespace of :mod:`.namespace`, and
:mod:`.checks` checks the columns.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..config import check_response
from ..models.base import column_norms
from ..streams.base import AcceptedTerm, Stream
from ..streams.generated import DerivedColumns
from ..streams.ordering import order_uses_y
from ..streams.registry import stream_class
from .checks import (
    check_fixed_columns,
    column_classes,
    is_numeric,
    no_complete_rows,
    numpy_booleans,
    refuse_dates,
    refuse_infinite,
)
from .classes import (
    COLUMN_CLASSES,
    ClassBuild,
    Seed,
    check_options,
    column_class_streams,
    dynamic_class_streams,
    matched_columns,
    resolve_order,
    stream_label,
    with_default_seed,
)
from .frame_stream import Candidate, FrameStream, frame_order, refit_positions
from .matrices import check_fixed, design_matrix, evaluate_term, fixed_matrix
from .names import (
    ColumnPositions,
    _as_slice,
    bare_rhs_columns,
    fresh_labels,
    rhs_variables,
    term_name,
    text_labels,
    unique_labels,
    unknown_names,
    variables,
)
from .namespace import term_functions
from .odd_columns import refuse_odd_columns
from .parse import FormulaError, ParsedFormula, StreamSpec, check_nested, parse_formula
from .resolve import Resolved, mark_constant_factors, resolve_stream
from .response import binomial_response, check_successes, numeric_binomial

#: re-exported: callers and tests import these from here
__all__ = ["Design", "binomial_response", "build_design", "check_fixed", "check_successes", "design_matrix",
           "evaluate_term", "fixed_matrix", "numeric_binomial", "term_name"]


@dataclass
class Design:
    """Everything the search needs, built from a formula and a DataFrame."""

    parsed: ParsedFormula
    y: np.ndarray
    response_name: str
    response_label: str  # formula expression for the 0/1 (or numeric) response
    success_level: object | None
    fixed: pd.DataFrame
    streams: list[Stream]
    frame: pd.DataFrame  # the used columns on the rows kept (plus generated PCA columns)
    n_dropped: int
    derived: DerivedColumns | None = None  # state for rebuilding generated terms on new data
    y_ordered: list[str] | None = None  # streams whose order= looked at the response
    #: the formula's functions as every term calls them (:func:`~.namespace.term_functions`)
    functions: dict[str, Callable] = field(default_factory=dict)
    #: positions (in the data) of the rows kept; None when every row is kept
    rows: np.ndarray | None = None
    #: missing values per used column that has any (why rows were dropped)
    missing_by_column: dict[str, int] = field(default_factory=dict)
    #: positions in ``frame`` of the plain numeric stream columns (see :meth:`refit_positions`)
    plain_positions: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))
    #: positions in the data of ``frame``'s columns (generated columns come after them)
    data_positions: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))

    def dropped_message(self) -> str:
        """What the warning says when rows with missing values were dropped."""
        shown = ", ".join(f"{c} ({k})" for c, k in list(self.missing_by_column.items())[:8])
        more = f" and {len(self.missing_by_column) - 8} more columns" if len(self.missing_by_column) > 8 else ""
        return (f"dropped {self.n_dropped} rows with missing values in the columns used: {shown}{more}; the search "
                f"and the refit use the other {len(self.frame)} rows, whichever terms are selected (drop or impute "
                "those columns to keep the rows, or pass missing='raise')")

    def refit_positions(self, accepted: Iterable[AcceptedTerm]) -> np.ndarray:
        """Positions in ``frame`` of the refit's columns: all but the stream columns no
        selected term uses."""
        sources = [c for m in self.derived.pca for c in m.columns] if self.derived else []
        return refit_positions(self.frame, self.plain_positions, accepted, sources)

    def refit_frame(self, accepted: Iterable[AcceptedTerm]) -> pd.DataFrame:
        """The frame of the refit (see :meth:`refit_positions`)."""
        return self.frame.iloc[:, _as_slice(self.refit_positions(accepted))]


def build_design(
    formula: str,
    data: pd.DataFrame,
    *,
    binomial: bool,
    grouped: bool = False,
    missing: str = "drop",
    functions: Mapping[str, Callable[..., Any]] | None = None,
    family: Any = None,
    roles: Iterable[str] = (),
    parsed: ParsedFormula | None = None,
    seed: Seed = None,
) -> Design:
    """Parse ``formula`` against ``data``; the caller's frame is never modified.

    ``functions`` maps names to callables usable in every term of the formula (``cube(a)``,
    fixed or in a stream, and ``transform(..., fn=name)``: an ``n x p`` float array in, one of
    the same shape out) and as ``order=name`` (the candidate matrix in, one score per
    column out, largest first).  With ``family`` (a statsmodels family) the response is
    checked against it on the rows used (constant, one class, negative counts; see
    :func:`streamreg.options.check_response`); ``grouped`` (``var_weights`` given) lets a binomial
    response hold proportions (see :func:`binomial_response`).  ``roles`` names data columns with a role in
    the model other than a term (an offset, exposure or weights column): no stream offers
    them, and rows with a missing value in them are dropped like the others.  ``parsed``:
    the formula already parsed (the Dask path passes its fixed part alone).  ``seed`` (the
    call's ``seed=``) is the default seed of every item with ``order='random'``, each item's
    derived from it and the item's position among the stream items (its own ``seed=`` wins);
    without a seed such orders are unseeded.
    """
    functions = dict(functions or {})
    term_fns = term_functions(functions)  # one namespace for fixed terms, candidates and refits
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if missing not in ("drop", "raise"):
        raise ValueError(f"missing must be 'drop' or 'raise', got {missing!r}")
    # a new Index, so that slices build no hash tables; labels as the text the formula names them
    # (ints, np.str_ or enum members become str): the frame kept for the refit and predictions
    data = text_labels(fresh_labels(data))
    if len(data) == 0:
        raise ValueError("the data have no rows")
    parsed = parse_formula(formula) if parsed is None else parsed
    columns = data.columns.tolist()  # tolist: no pandas scalar per column
    colset = unique_labels(columns)
    where_is = ColumnPositions(columns)  # a list scan per name for a few names, one table for many
    if colset is None:
        named = pd.Index(columns)
        dup = named[named.duplicated()].unique().tolist()
        raise ValueError(f"the data have duplicated column names {dup}; column names must be unique")
    # numeric columns, and columns that may hold dates (object, date and time-difference
    # dtypes): classified once per dtype, not per column
    data_numeric, data_dates = column_classes(data)
    resp = parsed.response
    resp_col = resp
    if resp not in colset:
        inner = variables(resp, colset)
        if len(inner) == 1 and resp.startswith("Q("):
            resp_col = inner.pop()
        else:
            raise FormulaError(
                f"the response {resp!r} is not a column of the data; the response must be a column "
                f"name (create derived responses as a new column first)"
            )
    fixed_vars = rhs_variables(parsed.fixed, colset)
    unknown = unknown_names(parsed.fixed, colset)
    if unknown:
        raise FormulaError(f"unknown column(s) {sorted(unknown)} in the fixed terms; "
                           f"data columns include {columns[:8]}")
    for c in sorted(fixed_vars):  # by position: a label look-up would hash every label of a wide frame
        refuse_dates(data.iloc[:, where_is[c]], f"column {c!r} in the fixed terms")
    taken = fixed_vars | {resp_col}
    for c in roles:
        if c not in colset:
            raise FormulaError(f"{c!r} is not a column of the data")
        if c == resp_col:  # the fit would explain the response by itself (statsmodels fails or fits nothing)
            raise ValueError(f"{c!r} is the response and cannot also be an offset, exposure or weights column "
                             "(offset=, exposure=, freq_weights=, var_weights=)")
        refuse_dates(data.iloc[:, where_is[c]], f"column {c!r}")
    taken |= set(roles)
    # columns the fixed terms use only transformed (np.log(x)): a stream may still name them
    transformed = fixed_vars - bare_rhs_columns(parsed.fixed, colset) - {resp_col} - set(roles)

    # a stream() item's Resolved candidates, or the matched columns of a column class
    stream_cands: list[tuple[StreamSpec, Resolved | list[str]]] = []
    used = set(taken)
    used_mask = np.zeros(len(columns), dtype=bool)  # data columns used, by position
    offered = np.zeros(len(columns), dtype=bool)  # data columns an earlier stream() offers
    for position, spec in enumerate(parsed.streams):
        check_options(spec)
        check_nested(spec, resp, functions)
        spec = with_default_seed(spec, seed, position)
        cands: Resolved | list[str]
        if spec.function == "stream":
            cands = resolve_stream(spec, columns, colset, taken, data, data_dates, data_numeric, transformed,
                                   offered, where_is)
            if cands.positions is not None:
                used_mask[cands.positions] = True
                offered[cands.positions] = True
            named = []
            for cand in cands:
                used |= {cand.column} if cand.column is not None else variables(cand.name, colset)
                named += [c for c in (cand.column, cand.factor) if c is not None]
            if named:  # factors or terms among the columns: one position table, not a scan per name
                offered[[where_is[c] for c in named]] = True
        elif spec.function in COLUMN_CLASSES:
            cands = matched_columns(spec, columns, taken, data)
            used |= set(cands)
        else:
            cands = []
        stream_cands.append((spec, cands))

    if len(used) < 1000:
        for c in used:
            used_mask[where_is[c]] = True
    else:
        used_mask |= np.fromiter(map(used.__contains__, columns), dtype=bool, count=len(columns))
    used_pos = np.flatnonzero(used_mask)
    refuse_odd_columns(data, used_pos)  # complex numbers, numbers with a stray "n/a"
    frame = data.iloc[:, _as_slice(used_pos)]  # a view until written (copy-on-write), not a copy
    in_frame = np.cumsum(used_mask) - 1  # data position -> frame position
    # numeric stream() columns: one float matrix per stream, taken from the frame once; one
    # pass over it finds the columns that may hold NaN or inf, the only ones looked at again
    matrices: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    in_matrix = np.zeros(frame.shape[1], dtype=bool)
    norms: dict[int, np.ndarray | None] = {}
    for pos, (spec, cands) in enumerate(stream_cands):
        if isinstance(cands, Resolved) and cands.positions is not None:  # a stream() item
            fpos = in_frame[cands.positions]
            x = _float_matrix(frame.iloc[:, _as_slice(fpos)])
            norm2 = column_norms(x)  # the search's squared norms, and the NaN check in the same pass
            norms[pos] = norm2
            matrices[pos] = (fpos, x, np.flatnonzero(~np.isfinite(norm2)))
            in_matrix[fpos] = True
    rest = np.flatnonzero(~in_matrix)
    model_columns = np.zeros(frame.shape[1], dtype=bool)  # the response's, fixed terms' and roles' columns
    model_columns[[int(in_frame[where_is[c]]) for c in taken]] = True
    na_rows = frame.iloc[:, _as_slice(rest)].isna().any(axis=1).to_numpy()
    for fpos, x, suspects in matrices.values():
        if len(suspects):
            na_rows = na_rows | np.isnan(x[:, suspects]).any(axis=1)
    n_dropped = int(na_rows.sum())
    missing_by_column: dict[str, int] = {}
    if n_dropped:
        counts = frame.iloc[:, _as_slice(rest)].isna().sum()
        missing_by_column = {str(c): int(k) for c, k in counts[counts > 0].items()}
        for fpos, x, suspects in matrices.values():
            k = np.isnan(x[:, suspects]).sum(axis=0)
            missing_by_column.update({str(frame.columns[fpos[j]]): int(v) for j, v in zip(suspects, k) if v})
        if missing == "raise":
            bad = frame.columns[frame.isna().any()].tolist()
            raise ValueError(
                f"{n_dropped} rows have missing values in the columns used ({bad[:8]}); "
                "drop or impute them, or pass missing='drop'"
            )
        keep = ~na_rows
        frame = frame.loc[keep]
        matrices = {pos: (fpos, x[keep], suspects) for pos, (fpos, x, suspects) in matrices.items()}
        norms = dict.fromkeys(norms)  # of the rows kept: computed again, block by block
    if len(frame) == 0:
        no_complete_rows(data[list(frame.columns)])
    frame = numpy_booleans(frame)  # patsy cannot read pandas' nullable booleans
    for spec, cands in stream_cands:
        mark_constant_factors(cands, frame)
    fixed_cols = sorted(fixed_vars)
    fixed_frame = frame.iloc[:, [int(in_frame[where_is[c]]) for c in fixed_cols]]
    check_fixed_columns(fixed_frame, fixed_cols, allow_missing=True)
    resp_at = int(in_frame[where_is[resp_col]])
    refuse_infinite(frame, resp_col, list(matrices.values()), numeric=data_numeric[used_pos], response_at=resp_at)

    y_series = frame.iloc[:, resp_at]
    if binomial:
        y, label, success = binomial_response(y_series, resp_col, grouped)
    else:
        if not is_numeric(y_series):
            raise ValueError(
                f"the response {resp_col!r} is not numeric (dtype {y_series.dtype}); for a two-level "
                "response use family='binomial'"
            )
        y, label, success = y_series.to_numpy(dtype=float), term_name(resp_col), None
    if not np.isfinite(y).all():
        raise ValueError(f"the response {resp_col!r} has infinite values")
    if family is not None:
        check_response(y, family, resp_col)

    fixed = fixed_matrix(parsed.fixed, fixed_frame, term_fns)
    check_fixed(fixed, len(frame))

    if any(spec.function == "pca" for spec, _ in stream_cands):
        frame = frame.copy()  # generated PCA columns are added to it
    build = ClassBuild()
    sources: dict[str, list[Stream]] = {}
    stream_items: list[str] = []
    for pos, (spec, cands) in enumerate(stream_cands):
        sname = stream_label(spec)
        if isinstance(cands, Resolved):  # a stream() item
            if cands.positions is not None:
                st = FrameStream(sname, frame, names=cands.names, columns=cands.columns, values=matrices[pos][1],
                                 functions=term_fns, positions=matrices[pos][0], norms=norms[pos])
            else:
                st = FrameStream(sname, frame, cands.candidates, functions=term_fns)
            order = resolve_order(spec, functions)
            perm = frame_order(st, order, y, spec, sname)
            if perm is not None:
                st.permute(perm)
                if order_uses_y(order):
                    build.y_ordered.append(sname)
            build.streams[pos] = [st]
            stream_items.append(sname)
        elif spec.function in COLUMN_CLASSES:
            def sub_stream(name: str, members: list[str]) -> Stream:
                return FrameStream(name, frame, [Candidate(term_name(c), c) for c in members], functions=term_fns)

            build.streams[pos] = column_class_streams(spec, cands, frame, y, functions, build, term_name, sub_stream)
        else:
            continue
        sources[sname] = build.streams[pos]
    for pos, (spec, _) in enumerate(stream_cands):
        if spec.function != "stream" and stream_class(spec.function).dynamic:
            build.streams[pos] = dynamic_class_streams(
                spec, sources, stream_items, len(frame), y, functions,
                lambda expr: evaluate_term(expr, frame, term_fns), build)

    streams: list[Stream] = []
    seen_names: set[str] = set()
    for pos in range(len(stream_cands)):
        for built in build.streams[pos]:
            if built.name in seen_names:
                raise FormulaError(f"two streams are called {built.name!r}; give them distinct name= arguments")
            seen_names.add(built.name)
            streams.append(built)
    return Design(parsed, y, resp_col, label, success, fixed, streams, frame, n_dropped,
                  build.derived, build.y_ordered, term_fns, np.flatnonzero(~na_rows) if n_dropped else None,
                  missing_by_column, np.flatnonzero(in_matrix & ~model_columns), used_pos)


def _float_matrix(frame: pd.DataFrame) -> np.ndarray:
    """The frame's values as floats: a view of a single float64 block, else one copy."""
    try:
        return frame.to_numpy(dtype=float)
    except (TypeError, ValueError):  # nullable dtypes holding pd.NA
        return frame.to_numpy(dtype=float, na_value=np.nan)

