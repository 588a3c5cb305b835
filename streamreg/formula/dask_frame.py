"""A formula over a Dask DataFrame: the model's few columns are gathered, candidates stay put.

The response, the fixed terms and any offset or weights column are computed into a pandas
frame (n rows by a few columns) and go through :func:`~.design.build_design` like any
frame.  Each ``stream()`` of numeric columns becomes a
:class:`~streamreg.streams.dask_array.DaskArrayStream` over the same columns of the Dask
frame: its globs are matched and its dtypes checked on the frame's metadata, so nothing
is computed for them until the search scores them on the workers.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..streams.dask_array import DaskArrayStream
from .checks import column_classes
from .classes import stream_label
from .design import Design, build_design
from .lhs import response_columns as lhs_columns
from .names import bare_rhs_columns, rhs_variables
from .parse import FormulaError, ParsedFormula, check_nested, parse_formula
from .resolve import resolve_stream


def is_dask_frame(data: object) -> bool:
    """Whether ``data`` is a ``dask.dataframe.DataFrame`` (checked without importing dask)."""
    module = type(data).__module__
    return module.startswith(("dask.dataframe", "dask_expr")) and hasattr(data, "to_dask_array") \
        and hasattr(data, "columns")


def build_dask_design(
    formula: str,
    data: Any,
    *,
    binomial: bool,
    grouped: bool = False,
    missing: str = "drop",
    functions: Mapping[str, Callable[..., Any]] | None = None,
    family: Any = None,
    roles: Iterable[str] = (),
    seed: Any = None,
) -> tuple[Design, dict[str, str]]:
    """The design of ``formula`` on a Dask DataFrame, and each candidate term's data column.

    The arguments are those of :func:`~.design.build_design`.  Streams must be ``stream()``
    items of numeric columns; rows cannot be dropped lazily, so missing values in the
    gathered columns are an error that says which rows to drop first.  ``seed`` is taken
    for the same signature and unused: ``order=`` is refused here.
    """
    roles = list(roles)
    meta = data._meta  # an empty pandas frame with the columns and dtypes
    parsed = parse_formula(formula)
    for spec in parsed.streams:
        check_nested(spec, parsed.response, functions or {})
        if spec.function != "stream":
            raise FormulaError(f"{spec.text}: with a Dask DataFrame, only stream() items of numeric columns are "
                               "candidates; generate the columns first or compute the frame to pandas")
    columns = [str(c) for c in meta.columns]
    if len(set(columns)) != len(columns):
        raise ValueError("the data have duplicated column names; column names must be unique")
    colset = set(columns)
    response = parsed.response
    response_columns = lhs_columns(response, colset, functions or {})  # a column, or an expression's columns
    fixed_vars = rhs_variables(parsed.fixed, colset)
    unknown = [c for c in roles if c not in colset]
    if unknown:
        raise FormulaError(f"{unknown[0]!r} is not a column of the data")
    gathered = list(dict.fromkeys([*sorted(response_columns), *sorted(fixed_vars), *roles]))
    small = data[gathered].compute()  # n rows x the model's own columns
    fixed_only = ParsedFormula(response, parsed.fixed, [], formula)
    design = build_design(formula, small, binomial=binomial, grouped=grouped, missing=missing, functions=functions,
                          family=family, roles=roles, parsed=fixed_only)
    if design.n_dropped:
        raise ValueError(f"{design.n_dropped} rows have missing values in {gathered}; rows of a Dask DataFrame are "
                         f"not dropped lazily: drop them first, e.g. data.dropna(subset={gathered})")
    taken = set(fixed_vars) | response_columns | set(roles)
    transformed = set(fixed_vars) - bare_rhs_columns(parsed.fixed, colset) - response_columns - set(roles)
    numeric, dates = column_classes(meta)
    streams: list[Any] = []
    column_of: dict[str, str] = {}
    for spec in parsed.streams:
        if spec.options.get("order") is not None:
            raise FormulaError(f"{spec.text}: order= is not available with a Dask DataFrame (it would read every "
                               "candidate before the search); order the columns of the frame instead")
        resolved = resolve_stream(spec, columns, colset, taken, meta, dates, numeric, transformed)
        if resolved.positions is None or resolved.columns is None or resolved.names is None:
            raise FormulaError(f"{spec.text}: with a Dask DataFrame, streams take numeric columns only (no factors "
                               "or expressions); code them as numeric columns first")
        values = data[resolved.columns].to_dask_array(lengths=True)
        streams.append(DaskArrayStream(stream_label(spec), values, resolved.names))
        column_of.update(zip(resolved.names, resolved.columns))
        taken |= set(resolved.columns)  # a column is offered by one stream only
    if not streams:
        raise FormulaError("the formula has no stream(): with a Dask DataFrame there is nothing to select from")
    design.parsed, design.streams = parsed, streams
    return design, column_of


def with_selected_columns(design: Design, accepted: Iterable[Any], column_of: Mapping[str, str]) -> Any:
    """The gathered frame plus the selected candidates' columns (their values came with them)."""
    added = {column_of[t.name]: np.asarray(t.values, dtype=float)[:, 0] for t in accepted}
    return design.frame.assign(**added) if added else design.frame
