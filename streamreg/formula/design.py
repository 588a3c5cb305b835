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
from ..streams.base import AcceptedTerm, Stream
from ..streams.generated import DerivedColumns
from ..streams.ordering import order_uses_y
from ..streams.registry import stream_class
from .checks import (
    check_fixed_columns,
    column_classes,
    is_numeric,
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
from .lhs import (
    Response,
    evaluate_response,
    plain_column,
    response_columns,
    two_column_response,
)
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
from .parse import FormulaError, ParsedFormula, StreamSpec, check_nested, parse_formula
from .resolve import Resolved, resolve_stream
from .response import binomial_response, check_successes, numeric_binomial
from .rows import DesignRows, complete_rows

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
    frame: pd.DataFrame  # the used columns on the rows kept (plus generated columns, e.g. pca())
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
    #: successes + failures of a two-column binomial response (``cbind(s, f)``), else None
    trials: np.ndarray | None = None

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
        sources = self.derived.sources if self.derived else []  # generated columns are rebuilt from them
        return refit_positions(self.frame, self.plain_positions, accepted, sources)

    def refit_frame(self, accepted: Iterable[AcceptedTerm]) -> pd.DataFrame:
        """The frame of the refit (see :meth:`refit_positions`)."""
        return self.frame.iloc[:, _as_slice(self.refit_positions(accepted))]

    def response_on(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray | None]:
        """The modelled response and its trials (two-column responses) on other rows, e.g.
        held-out ones, coded as on the design's rows (a factor's success level included)."""
        if self.trials is not None:
            response = two_column_response(self.response_name, frame, self.functions)
            return response.y, response.trials
        y = design_matrix("0 + " + self.response_label, frame, frame, functions=self.functions)
        return y.iloc[:, 0].to_numpy(dtype=float), None


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
    :func:`streamreg.config.check_response`); ``grouped`` (``var_weights`` given) lets a binomial
    response hold proportions (see :func:`binomial_response`).  ``roles`` names data columns with a role in
    the model other than a term (an offset, exposure or weights column): no stream offers
    them, and rows with a missing value in them are dropped like the others.  ``parsed``:
    the formula already parsed (the Dask path passes its fixed part alone).  ``seed`` (the
    call's ``seed=``) is the default seed of every item with ``order='random'``, each item's
    derived from it and the item's position among the stream items (its own ``seed=`` wins);
    without a seed such orders are unseeded.

    The steps: the data's columns are indexed (:class:`_DataColumns`), the model's own
    columns found (:func:`_model_columns`: response, fixed terms, roles), each stream item
    matched to its candidates (:func:`_stream_items`), the used columns cut to the complete
    rows (:func:`~.rows.complete_rows`), the response and the fixed design evaluated on them, and
    the streams built (:func:`_build_streams`).
    """
    functions = dict(functions or {})
    term_fns = term_functions(functions)  # one namespace for fixed terms, candidates and refits
    data = _checked_data(data, missing)
    parsed = parse_formula(formula) if parsed is None else parsed
    cols = _DataColumns.of(data)
    model = _model_columns(parsed, data, cols, roles, functions)
    items = _stream_items(parsed, data, cols, model, functions, seed)
    rows = complete_rows(data, items.used, items.items, missing)
    fixed_frame = _fixed_frame(rows, cols, model)
    response = _response(parsed.response, rows, cols, model, term_fns, binomial=binomial, grouped=grouped,
                         family=family)
    fixed = fixed_matrix(parsed.fixed, fixed_frame, term_fns)
    check_fixed(fixed, len(rows.frame))
    streams, build = _build_streams(items, rows, response.y, functions, term_fns)
    return Design(parsed, response.y, response.name, response.label, response.success, fixed, streams, rows.frame,
                  rows.n_dropped, build.derived, build.y_ordered, term_fns, rows.kept, rows.missing_by_column,
                  rows.plain_positions(cols.where, model.taken), rows.used, response.trials)


def _checked_data(data: pd.DataFrame, missing: str) -> pd.DataFrame:
    """``data`` refused unless a frame with rows, labelled as formulas name its columns."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if missing not in ("drop", "raise"):
        raise ValueError(f"missing must be 'drop' or 'raise', got {missing!r}")
    # a new Index, so that slices build no hash tables; labels as the text the formula names them
    # (ints, np.str_ or enum members become str): the frame kept for the refit and predictions
    data = text_labels(fresh_labels(data))
    if len(data) == 0:
        raise ValueError("the data have no rows")
    return data


@dataclass
class _DataColumns:
    """The data's column labels, looked up by name, and their dtype classes (computed once)."""

    names: list[str]
    nameset: set[str]
    where: ColumnPositions  # a list scan per name for a few names, one table for many
    numeric: np.ndarray  # per column: numeric
    dates: np.ndarray  # per column: may hold dates (object, date and time-difference dtypes)

    @classmethod
    def of(cls, data: pd.DataFrame) -> _DataColumns:
        """Index ``data``'s columns, refusing duplicated labels."""
        names = data.columns.tolist()  # tolist: no pandas scalar per column
        nameset = unique_labels(names)
        where = ColumnPositions(names)
        if nameset is None:
            labels = pd.Index(names)
            dup = labels[labels.duplicated()].unique().tolist()
            raise ValueError(f"the data have duplicated column names {dup}; column names must be unique")
        numeric, dates = column_classes(data)  # classified once per dtype, not per column
        return cls(names, nameset, where, numeric, dates)


@dataclass
class _ModelColumns:
    """The data columns the model itself uses (none of them is a candidate)."""

    response: set[str]  # the data columns the response uses
    column: str | None  # the response's column when it is one (not an expression)
    fixed: set[str]  # columns the fixed terms use
    taken: set[str]  # the response's, fixed terms' and roles' columns: no glob offers them
    transformed: set[str]  # columns the fixed terms use only transformed (np.log(x)): a stream may name them


def _model_columns(parsed: ParsedFormula, data: pd.DataFrame, cols: _DataColumns, roles: Iterable[str],
                   functions: Mapping[str, Callable[..., Any]]) -> _ModelColumns:
    """The response's, fixed terms' and roles' columns, each checked (known, no dates)."""
    column = plain_column(parsed.response, cols.nameset)
    response = {column} if column is not None else response_columns(parsed.response, cols.nameset, functions)
    fixed = rhs_variables(parsed.fixed, cols.nameset)
    unknown = unknown_names(parsed.fixed, cols.nameset)
    if unknown:
        raise FormulaError(f"unknown column(s) {sorted(unknown)} in the fixed terms; "
                           f"data columns include {cols.names[:8]}")
    for c in sorted(fixed):  # by position: a label look-up would hash every label of a wide frame
        refuse_dates(data.iloc[:, cols.where[c]], f"column {c!r} in the fixed terms")
    roles = list(roles)
    _check_roles(roles, parsed.response, column, response, data, cols)
    transformed = fixed - bare_rhs_columns(parsed.fixed, cols.nameset) - response - set(roles)
    return _ModelColumns(response, column, fixed, fixed | response | set(roles), transformed)


def _check_roles(roles: list[str], lhs: str, column: str | None, response: set[str], data: pd.DataFrame,
                 cols: _DataColumns) -> None:
    """Refuse an offset, exposure or weights column that is unknown, the response's, or dates."""
    for c in roles:
        if c not in cols.nameset:
            raise FormulaError(f"{c!r} is not a column of the data")
        if c in response:  # the fit would explain the response by itself (statsmodels fails or fits nothing)
            what = "is the response" if c == column else f"is used by the response {lhs!r}"
            raise ValueError(f"{c!r} {what} and cannot also be an offset, exposure or weights column "
                             "(offset=, exposure=, freq_weights=, var_weights=)")
        refuse_dates(data.iloc[:, cols.where[c]], f"column {c!r}")


#: one formula item and its candidates: a ``stream()``'s :class:`Resolved`, a column
#: class's matched columns, or nothing (a dynamic class, built from the other streams)
_Item = tuple[StreamSpec, Resolved | list[str]]


@dataclass
class _StreamItems:
    """The formula's stream items matched to the data, and the data columns the design uses."""

    items: list[_Item]
    used: np.ndarray  # mask over the data's columns: the model's and the candidates'


def _stream_items(parsed: ParsedFormula, data: pd.DataFrame, cols: _DataColumns, model: _ModelColumns,
                  functions: Mapping[str, Callable[..., Any]], seed: Seed) -> _StreamItems:
    """Each stream item checked and matched to its candidates; a column is offered by one stream only."""
    items: list[_Item] = []
    used = set(model.taken)
    used_mask = np.zeros(len(cols.names), dtype=bool)  # data columns used, by position
    offered = np.zeros(len(cols.names), dtype=bool)  # data columns an earlier stream() offers
    for position, spec in enumerate(parsed.streams):
        check_options(spec)
        check_nested(spec, parsed.response, functions)
        spec = with_default_seed(spec, seed, position)
        cands: Resolved | list[str]
        if spec.function == "stream":
            cands = resolve_stream(spec, cols.names, cols.nameset, model.taken, data, cols.dates, cols.numeric,
                                   model.transformed, offered, cols.where)
            used |= _mark_offered(cands, cols, used_mask, offered)
        elif spec.function in COLUMN_CLASSES:
            cands = matched_columns(spec, cols.names, model.taken, data)
            used |= set(cands)
        else:
            cands = []
        items.append((spec, cands))
    if len(used) < 1000:
        for c in used:
            used_mask[cols.where[c]] = True
    else:
        used_mask |= np.fromiter(map(used.__contains__, cols.names), dtype=bool, count=len(cols.names))
    return _StreamItems(items, used_mask)


def _mark_offered(cands: Resolved, cols: _DataColumns, used_mask: np.ndarray, offered: np.ndarray) -> set[str]:
    """Mark a ``stream()``'s columns as used and offered; the names of the columns its terms use."""
    if cands.positions is not None:
        used_mask[cands.positions] = True
        offered[cands.positions] = True
    used: set[str] = set()
    named = []
    for cand in cands:
        used |= {cand.column} if cand.column is not None else variables(cand.name, cols.nameset)
        named += [c for c in (cand.column, cand.factor) if c is not None]
    if named:  # factors or terms among the columns: one position table, not a scan per name
        offered[[cols.where[c] for c in named]] = True
    return used


def _fixed_frame(rows: DesignRows, cols: _DataColumns, model: _ModelColumns) -> pd.DataFrame:
    """The fixed terms' columns on the rows used, checked (types, missing values)."""
    fixed_cols = sorted(model.fixed)
    fixed_frame = rows.frame.iloc[:, [rows.position(cols.where, c) for c in fixed_cols]]
    check_fixed_columns(fixed_frame, fixed_cols, allow_missing=True)
    return fixed_frame


def _response(lhs: str, rows: DesignRows, cols: _DataColumns, model: _ModelColumns,
              functions: Mapping[str, Callable[..., Any]], *, binomial: bool, grouped: bool, family: Any) -> Response:
    """The response on the rows used -- a column, or an expression evaluated there -- checked
    against the family.  Infinite values in the other used columns are refused first, by name."""
    at = [rows.position(cols.where, c) for c in sorted(model.response)]
    refuse_infinite(rows.frame, lhs, list(rows.matrices.values()), numeric=cols.numeric[rows.used],
                    response_at=at[0] if len(at) == 1 else -1)
    if model.column is not None:
        response = _column_response(rows.frame.iloc[:, at[0]], model.column, binomial, grouped)
    else:  # the response's columns only: a wide frame's labels are not hashed
        response = evaluate_response(lhs, rows.frame.iloc[:, at], functions, binomial=binomial, grouped=grouped,
                                     family=family)
    if family is not None:
        check_response(response.y, family, response.name)
    return response


def _column_response(y_series: pd.Series, column: str, binomial: bool, grouped: bool) -> Response:
    """A response column as floats, its expression in the refit's formula and its success value."""
    if binomial:
        y, label, success = binomial_response(y_series, column, grouped)
    else:
        if not is_numeric(y_series):
            raise ValueError(
                f"the response {column!r} is not numeric (dtype {y_series.dtype}); for a two-level "
                "response use family='binomial'"
            )
        y, label, success = y_series.to_numpy(dtype=float), term_name(column), None
    if not np.isfinite(y).all():
        raise ValueError(f"the response {column!r} has infinite values")
    return Response(y, column, label, success)


def _build_streams(items: _StreamItems, rows: DesignRows, y: np.ndarray, functions: Mapping[str, Callable[..., Any]],
                   term_fns: dict[str, Callable]) -> tuple[list[Stream], ClassBuild]:
    """The streams of every item, in formula order: ``stream()`` items and column classes
    first, then the dynamic classes (which grow from the others); names must be distinct.

    Generated classes may add their columns to the frame (``pca()`` components), so they get
    a frame of their own first: a shallow copy, the data's columns are not copied.
    """
    if any(spec.function != "stream" for spec, _ in items.items):
        rows.frame = rows.frame.copy(deep=False)
    frame = rows.frame
    build = ClassBuild()
    sources: dict[str, list[Stream]] = {}
    stream_items: list[str] = []
    for pos, (spec, cands) in enumerate(items.items):
        sname = stream_label(spec)
        if isinstance(cands, Resolved):  # a stream() item
            build.streams[pos] = [_formula_stream(spec, sname, cands, rows, pos, y, functions, term_fns, build)]
            stream_items.append(sname)
        elif spec.function in COLUMN_CLASSES:
            def sub_stream(name: str, members: list[str]) -> Stream:
                return FrameStream(name, frame, [Candidate(term_name(c), c) for c in members], functions=term_fns)

            build.streams[pos] = column_class_streams(spec, cands, frame, y, functions, build, term_name, sub_stream)
        else:
            continue
        sources[sname] = build.streams[pos]
    for pos, (spec, _) in enumerate(items.items):
        if spec.function != "stream" and stream_class(spec.function).dynamic:
            build.streams[pos] = dynamic_class_streams(
                spec, sources, stream_items, len(frame), y, functions,
                lambda expr: evaluate_term(expr, frame, term_fns), build)
    return _distinct_streams(build, len(items.items)), build


def _formula_stream(spec: StreamSpec, name: str, cands: Resolved, rows: DesignRows, pos: int, y: np.ndarray,
                    functions: Mapping[str, Callable[..., Any]], term_fns: dict[str, Callable],
                    build: ClassBuild) -> FrameStream:
    """The stream of a ``stream()`` item, in its ``order=``."""
    if cands.positions is not None:
        st = FrameStream(name, rows.frame, names=cands.names, columns=cands.columns, values=rows.matrices[pos][1],
                         functions=term_fns, positions=rows.matrices[pos][0], norms=rows.norms[pos])
    else:
        st = FrameStream(name, rows.frame, cands.candidates, functions=term_fns)
    order = resolve_order(spec, functions)
    perm = frame_order(st, order, y, spec, name)
    if perm is not None:
        st.permute(perm)
        if order_uses_y(order):
            build.y_ordered.append(name)
    return st


def _distinct_streams(build: ClassBuild, n_items: int) -> list[Stream]:
    """The built streams in formula order, refusing two of the same name."""
    streams: list[Stream] = []
    seen_names: set[str] = set()
    for pos in range(n_items):
        for built in build.streams[pos]:
            if built.name in seen_names:
                raise FormulaError(f"two streams are called {built.name!r}; give them distinct name= arguments")
            seen_names.add(built.name)
            streams.append(built)
    return streams
