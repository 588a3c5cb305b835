"""From formula and DataFrame to response, fixed design and candidate streams.

With ``namespace.py`` (where terms are evaluated), the only module of streamreg that
imports patsy; column checks live in ``checks.py``.  Results keep formula strings
and a small training frame, never patsy objects, so they pickle; design matrices for new
data are rebuilt here from those strings.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

import numpy as np
import pandas as pd
import patsy

from ..models.base import CandidateBlock
from ..options import check_response
from ..streams.base import Stream, TermBlock
from ..streams.generated import DerivedColumns
from ..streams.ordering import candidate_order, order_uses_y
from .classes import (COLUMN_CLASSES, ClassBuild, check_options, column_class_streams, interaction_streams,
                      matched_columns, resolve_order, stream_label)
from .checks import (check_fixed_columns, check_new_column_types, column_classes, first_date, is_numeric,
                     no_complete_rows, nonfinite_columns, plain, refuse_dates, refuse_infinite)
from .names import _PATSY_NAMES, _as_slice, _column_names, _NameTable, term_name, term_names  # noqa: F401
from .namespace import eval_env
from .parse import FormulaError, ParsedFormula, StreamSpec, check_attributes, parse_formula

def _variables(expression: str, columns: set[str]) -> set[str]:
    """Data columns an expression refers to (bare names and Q('...') arguments)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return {c for c in columns if c in expression}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in columns:
            found.add(node.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Q"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in columns
        ):
            found.add(node.args[0].value)
    return found


def _rhs_variables(rhs: str, columns: set[str]) -> set[str]:
    try:
        desc = patsy.ModelDesc.from_formula("0 + " + rhs if rhs.strip() else "0")
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot read the fixed terms {rhs!r}: {exc}") from None
    found = set()
    for term in desc.rhs_termlist:
        for factor in term.factors:
            found |= _variables(factor.name(), columns)
    return found


@dataclass
class Candidate:
    """A candidate term of a formula stream before evaluation."""

    name: str  # formula expression
    column: str | None  # the data column for plain numeric columns, else None
    factor: str | None = None  # the data column of a factor matched by a glob
    constant: bool = False  # a factor with a single level in the rows used: offered as a zero column

    def values(self, frame: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
        """The candidate's design columns on ``frame`` and their names."""
        if self.column is not None:
            return frame[self.column].to_numpy(dtype=float)[:, None], [self.name]
        if self.constant:
            # patsy codes a one-level factor as no column at all; a zero column is recorded
            # by the search as "skipped: constant", like a constant numeric column
            return np.zeros((len(frame), 1)), [self.name]
        return evaluate_term(self.name, frame)


class FrameStream(Stream):
    """Candidates from a DataFrame: numeric columns sliced directly, other terms by patsy.

    A stream of plain numeric columns keeps them as one float matrix (``values``, one
    column per candidate, on the frame's rows) and their names, and hands out column
    slices of it: no Python object per candidate.  ``candidates`` (one :class:`Candidate`
    each) is built only when asked for.
    """

    def __init__(self, name: str, frame: pd.DataFrame, candidates: list[Candidate] | None = None, *,
                 names: list[str] | None = None, columns: list[str] | None = None,
                 values: np.ndarray | None = None):
        super().__init__(name)
        self.frame = frame
        self._candidates = None if candidates is None else list(candidates)
        self._names, self._columns, self._values = names, columns, values
        self.position = 0
        self.n_candidates = len(candidates) if candidates is not None else len(names)

    @property
    def plain(self) -> bool:
        """Whether every candidate is a numeric column held in ``values``."""
        return self._values is not None

    @property
    def candidates(self) -> list[Candidate]:
        if self._candidates is None:
            self._candidates = [Candidate(n, c) for n, c in zip(self._names, self._columns)]
        return self._candidates

    @candidates.setter
    def candidates(self, value: list[Candidate]) -> None:
        self._candidates = list(value)
        self._names = self._columns = self._values = None
        self.n_candidates = len(self._candidates)

    def permute(self, perm: np.ndarray) -> None:
        """Offer the candidates in the order ``perm``."""
        if self.plain:
            self._names = [self._names[i] for i in perm]
            self._columns = [self._columns[i] for i in perm]
            self._values = self._values[:, perm]
            self._candidates = None
        else:
            self.candidates = [self.candidates[i] for i in perm]

    def _next_block(self, k: int) -> TermBlock | None:
        if self.plain:
            start = self.position
            stop = min(start + k, len(self._names))
            self.position = stop
            if stop <= start:
                return None
            return TermBlock(self.name, self._names[start:stop], CandidateBlock(self._values[:, start:stop]))
        chunk = self.candidates[self.position : self.position + k]
        self.position += len(chunk)
        if not chunk:
            return None
        n = len(self.frame)
        if all(c.column is not None for c in chunk):
            values = self.frame[[c.column for c in chunk]].to_numpy(dtype=float)
            return TermBlock(self.name, [c.name for c in chunk], CandidateBlock(values))
        mats, widths, cols = [], [], []
        for c in chunk:
            mat, names = c.values(self.frame)
            mats.append(mat)
            cols.append(names)
            widths.append(mats[-1].shape[1])
        values = np.concatenate(mats, axis=1) if mats else np.empty((n, 0))
        return TermBlock(self.name, [c.name for c in chunk], CandidateBlock(values, np.asarray(widths)), cols)

    # random access, for streams generated from these candidates (interactions)
    @property
    def term_names(self) -> list[str]:
        if self.plain:
            return list(self._names)
        return [c.name for c in self.candidates]

    def is_single_column(self, i: int) -> bool:
        return self.plain or self.candidates[i].column is not None

    def term_values(self, i: int) -> np.ndarray:
        if self.plain:
            return np.array(self._values[:, i : i + 1], dtype=float)
        return self.candidates[i].values(self.frame)[0]

    def numeric_values(self) -> np.ndarray:
        """All candidates as one matrix (single numeric columns only)."""
        if self.plain:
            return self._values
        return self.frame[[c.column for c in self.candidates]].to_numpy(dtype=float)


@dataclass
class Resolved:
    """A ``stream()``'s candidates before the rows are known: data positions of the numeric
    columns, or a :class:`Candidate` list when some are factors or patsy terms."""

    names: list[str] | None = None
    columns: list[str] | None = None
    positions: np.ndarray | None = None  # positions of ``columns`` in the data
    candidates: list[Candidate] | None = None

    def __iter__(self):
        return iter(self.candidates or [])


def evaluate_term(expression: str, frame: pd.DataFrame, functions: dict | None = None) -> tuple[np.ndarray, list[str]]:
    """Columns of one patsy term as coded beside an intercept (k-1 for a k-level factor)."""
    check_attributes(expression, f"the candidate term {expression!r}")
    try:
        dm = patsy.dmatrix("1 + " + expression, frame, return_type="dataframe", NA_action="raise",
                           eval_env=eval_env(functions))
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot build the candidate term {expression!r}: {exc}") from None
    dm = dm.drop(columns="Intercept", errors="ignore")
    if dm.shape[1] == 0:
        raise FormulaError(f"the candidate term {expression!r} has no columns beside the intercept")
    return dm.to_numpy(dtype=float), list(dm.columns)


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
    y_index: pd.Index
    derived: DerivedColumns | None = None  # state for rebuilding generated terms on new data
    y_ordered: list[str] | None = None  # streams whose order= looked at the response


def _binomial_response(series: pd.Series, name: str) -> tuple[np.ndarray, str, object]:
    expr = term_name(name)
    present = series.unique()
    if len(present) == 1:  # one class: the fixed fit would "separate" it perfectly
        raise ValueError(f"the binomial response {name!r} has a single class ({plain(present[0])!r}) in the rows used; "
                         "both classes are needed to select anything")
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=float), f"I({expr} * 1)", True
    if is_numeric(series):
        vals = series.to_numpy(dtype=float)
        uniq = np.unique(vals)
        if np.isin(uniq, [0.0, 1.0]).all():
            return vals, expr, 1
        raise ValueError(
            f"a binomial response must be 0/1, boolean or have two levels; {name!r} has values "
            f"{uniq[:6].tolist()}{' ...' if len(uniq) > 6 else ''}. Recode it (e.g. y > threshold) first"
        )
    levels = list(series.cat.categories) if isinstance(series.dtype, pd.CategoricalDtype) else sorted(series.unique())
    if len(levels) != 2:
        raise ValueError(
            f"a binomial response must have exactly two levels; {name!r} has {len(levels)}: "
            f"{levels[:6]}{' ...' if len(levels) > 6 else ''}"
        )
    success = levels[1]  # as in R's glm: the first level is failure
    return (series == success).to_numpy(dtype=float), f"I(({expr} == {success!r}) * 1)", success


def build_design(
    formula: str,
    data: pd.DataFrame,
    *,
    binomial: bool,
    missing: str = "drop",
    functions: dict | None = None,
    family=None,
) -> Design:
    """Parse ``formula`` against ``data``; the caller's frame is never modified.

    ``functions`` maps names usable as ``transform(..., fn=name)`` or ``order=name`` to
    callables (a transform maps an ``n x p`` array to one of the same shape; an order maps
    the candidate matrix to one score per column, largest first).  With ``family`` (a
    statsmodels family) the response is checked against it on the rows used (constant,
    one class, negative counts; see :func:`streamreg.options.check_response`).
    """
    functions = dict(functions or {})
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if missing not in ("drop", "raise"):
        raise ValueError(f"missing must be 'drop' or 'raise', got {missing!r}")
    if not data.columns.is_unique:
        dup = list(data.columns[data.columns.duplicated()].unique())
        raise ValueError(f"the data have duplicated column names {dup}; column names must be unique")
    if len(data) == 0:
        raise ValueError("the data have no rows")
    parsed = parse_formula(formula)
    labels = data.columns.tolist()  # tolist: no pandas scalar per column
    as_text = isinstance(data.columns.dtype, pd.StringDtype) and not data.columns.hasnans
    columns = labels if as_text else list(map(str, labels))
    colset = _column_names(columns)
    # numeric columns, and columns that may hold dates (object, date and time-difference
    # dtypes): classified once per dtype, not per column
    data_numeric, data_dates = column_classes(data)
    resp = parsed.response
    resp_col = resp
    if resp not in colset:
        inner = _variables(resp, colset)
        if len(inner) == 1 and resp.startswith("Q("):
            resp_col = inner.pop()
        else:
            raise FormulaError(
                f"the response {resp!r} is not a column of the data; the response must be a column "
                f"name (create derived responses as a new column first)"
            )
    fixed_vars = _rhs_variables(parsed.fixed, colset)
    unknown = _unknown_names(parsed.fixed, colset)
    if unknown:
        raise FormulaError(f"unknown column(s) {sorted(unknown)} in the fixed terms; data columns include {columns[:8]}")
    for c in sorted(fixed_vars):
        refuse_dates(data[c], f"column {c!r} in the fixed terms")
    taken = fixed_vars | {resp_col}

    stream_cands: list[tuple[StreamSpec, list]] = []
    used = set(taken)
    used_mask = np.zeros(len(columns), dtype=bool)  # data columns used, by position
    for spec in parsed.streams:
        check_options(spec)
        if spec.function == "stream":
            cands = _resolve_stream(spec, columns, colset, taken, data, data_dates, data_numeric)
            if cands.positions is not None:
                used_mask[cands.positions] = True
            for c in cands:
                used |= {c.column} if c.column is not None else _variables(c.name, colset)
        elif spec.function in COLUMN_CLASSES:
            cands = matched_columns(spec, columns, taken, data)
            used |= set(cands)
        else:
            cands = []
        stream_cands.append((spec, cands))

    if len(used) < 1000:
        for c in used:
            used_mask[columns.index(c)] = True
    else:
        used_mask |= np.fromiter(map(used.__contains__, columns), dtype=bool, count=len(columns))
    used_pos = np.flatnonzero(used_mask)
    frame = data.iloc[:, _as_slice(used_pos)]  # a view until written (copy-on-write), not a copy
    in_frame = np.cumsum(used_mask) - 1  # data position -> frame position
    # numeric stream() columns: one float matrix per stream, taken from the frame once; one
    # pass over it finds the columns that may hold NaN or inf, the only ones looked at again
    matrices: dict[int, tuple] = {}
    in_matrix = np.zeros(frame.shape[1], dtype=bool)
    for pos, (spec, cands) in enumerate(stream_cands):
        if spec.function == "stream" and cands.positions is not None:
            fpos = in_frame[cands.positions]
            x = _float_matrix(frame.iloc[:, _as_slice(fpos)])
            matrices[pos] = (fpos, x, nonfinite_columns(x))
            in_matrix[fpos] = True
    rest = np.flatnonzero(~in_matrix)
    na_rows = frame.iloc[:, _as_slice(rest)].isna().any(axis=1).to_numpy()
    for fpos, x, suspects in matrices.values():
        if len(suspects):
            na_rows = na_rows | np.isnan(x[:, suspects]).any(axis=1)
    n_dropped = int(na_rows.sum())
    if n_dropped:
        if missing == "raise":
            bad = frame.columns[frame.isna().any()].tolist()
            raise ValueError(
                f"{n_dropped} rows have missing values in the columns used ({bad[:8]}); "
                "drop or impute them, or pass missing='drop'"
            )
        keep = ~na_rows
        frame = frame.loc[keep]
        matrices = {pos: (fpos, x[keep], suspects) for pos, (fpos, x, suspects) in matrices.items()}
    if len(frame) == 0:
        no_complete_rows(data[list(frame.columns)])
    for spec, cands in stream_cands:
        _mark_constant_factors(cands, frame)
    fixed_cols = sorted(fixed_vars)
    fixed_frame = frame.iloc[:, [int(in_frame[columns.index(c)]) for c in fixed_cols]]  # few columns: fast lookups
    check_fixed_columns(fixed_frame, fixed_cols, allow_missing=True)
    resp_at = int(in_frame[columns.index(resp_col)])
    refuse_infinite(frame, resp_col, list(matrices.values()), numeric=data_numeric[used_pos], response_at=resp_at)

    y_series = frame.iloc[:, resp_at]
    if binomial:
        y, label, success = _binomial_response(y_series, resp_col)
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

    fixed = fixed_matrix(parsed.fixed, fixed_frame)
    check_fixed(fixed, len(frame))

    if any(spec.function == "pca" for spec, _ in stream_cands):
        frame = frame.copy()  # generated PCA columns are added to it
    build = ClassBuild()
    sources: dict[str, list[Stream]] = {}
    stream_items: list[str] = []
    for pos, (spec, cands) in enumerate(stream_cands):
        sname = stream_label(spec)
        if spec.function == "stream":
            if cands.positions is not None:
                st = FrameStream(sname, frame, names=cands.names, columns=cands.columns, values=matrices[pos][1])
            else:
                st = FrameStream(sname, frame, cands.candidates)
            order = resolve_order(spec, functions)
            perm = _frame_order(st, order, y, spec, sname)
            if perm is not None:
                st.permute(perm)
                if order_uses_y(order):
                    build.y_ordered.append(sname)
            build.streams[pos] = [st]
            stream_items.append(sname)
        elif spec.function in COLUMN_CLASSES:
            def sub_stream(name, members):
                return FrameStream(name, frame, [Candidate(term_name(c), c) for c in members])

            build.streams[pos] = column_class_streams(spec, cands, frame, y, functions, build, term_name, sub_stream)
        else:
            continue
        sources[sname] = build.streams[pos]
    env = dict(build.derived.functions)
    for pos, (spec, _) in enumerate(stream_cands):
        if spec.function == "interactions":
            build.streams[pos] = interaction_streams(
                spec, sources, stream_items, len(frame), y, functions,
                lambda expr: evaluate_term(expr, frame, env), build)

    streams: list[Stream] = []
    seen_names: set[str] = set()
    for pos in range(len(stream_cands)):
        for st in build.streams[pos]:
            if st.name in seen_names:
                raise FormulaError(f"two streams are called {st.name!r}; give them distinct name= arguments")
            seen_names.add(st.name)
            streams.append(st)
    return Design(parsed, y, resp_col, label, success, fixed, streams, frame, n_dropped, frame.index,
                  build.derived, build.y_ordered)


def _frame_order(st: FrameStream, order, y: np.ndarray, spec: StreamSpec, label: str) -> np.ndarray | None:
    """Permutation of a ``stream()``'s candidates for its ``order=`` option."""
    if isinstance(order, str) and order in ("given", "random"):
        return candidate_order(None, order, seed=spec.options.get("seed"), n=st.n_candidates, what=label)
    if not (st.plain or all(c.column is not None for c in st.candidates)):
        raise FormulaError(f"{spec.text}: order={spec.options.get('order')!r} scores single numeric columns; "
                           "this stream has factor or multi-column terms (use 'given' or 'random')")
    values = st.numeric_values()
    return candidate_order(values, order, y=y, seed=spec.options.get("seed"), what=label)


def _float_matrix(frame: pd.DataFrame) -> np.ndarray:
    """The frame's values as floats: a view of a single float64 block, else one copy."""
    try:
        return frame.to_numpy(dtype=float)
    except (TypeError, ValueError):  # nullable dtypes holding pd.NA
        return frame.to_numpy(dtype=float, na_value=np.nan)


def _unknown_names(rhs: str, colset: set[str]) -> set[str]:
    """Bare names in the fixed terms that are neither data columns nor known functions."""
    unknown = set()
    try:
        desc = patsy.ModelDesc.from_formula("0 + " + rhs)
    except patsy.PatsyError:
        return unknown
    for term in desc.rhs_termlist:
        for factor in term.factors:
            try:
                tree = ast.parse(factor.name(), mode="eval")
            except SyntaxError:
                continue
            called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id not in colset and node.id not in called:
                    if node.id not in _PATSY_NAMES and not hasattr(builtins, node.id):
                        unknown.add(node.id)
    return unknown


def _position(columns: list[str], colset: set[str], name: str) -> int | None:
    return columns.index(name) if name in colset else None


def _resolve_stream(spec: StreamSpec, columns: list[str], colset, taken: set[str], data,
                    date_columns: np.ndarray, numeric_columns: np.ndarray) -> Resolved:
    """The candidates of a ``stream()``: globs matched and dtypes checked once, not per column."""
    excl = spec.options.get("exclude") or []
    if isinstance(excl, str):
        excl = [excl]
    ncol = len(columns)
    blocked = np.zeros(ncol, dtype=bool)  # the response, fixed and excluded columns
    offered = np.zeros(ncol, dtype=bool)  # columns offered by an earlier glob
    for c in taken:
        j = _position(columns, colset, c)
        if j is not None:
            blocked[j] = True
    table = _NameTable(columns)
    for e in excl:
        blocked |= table.glob(e)
    seen_terms: set[str] = set()
    items: list = []  # ("columns", positions, names) or ("candidate", Candidate)
    plain = True
    for arg in spec.args:
        if arg in spec.terms:
            unknown = {n for n in _names_in(arg) if n not in colset and n not in _PATSY_NAMES and n != "np"}
            unknown = {n for n in unknown if not hasattr(builtins, n)}
            if unknown:
                raise FormulaError(f"unknown column(s) {sorted(unknown)} in the candidate term {arg!r} of {spec.text}")
            for v in sorted(_names_in(arg) & colset):
                refuse_dates(data[v], f"column {v!r} in the candidate term {arg!r} of {spec.text}")
            j = _position(columns, colset, arg)
            if arg not in seen_terms and (j is None or not offered[j]):
                items.append(("candidate", Candidate(arg, None)))
                seen_terms.add(arg)
                plain = False
            continue
        mask = table.glob(arg)
        if not mask.any():
            hint = "" if any(ch in arg for ch in "*?[") else " (no column has that name)"
            raise FormulaError(f"{spec.text}: {arg!r} matches no column of the data{hint}")
        for t in seen_terms:
            j = _position(columns, colset, t)
            if j is not None:
                mask[j] = False
        free = np.flatnonzero(mask & ~blocked & ~offered)
        if not len(free):
            continue
        names = table.names(free)
        # patsy would make every date a level of a factor: refuse rather than test that
        bad = first_date(data, names, free, suspects=date_columns)
        if bad is not None:
            refuse_dates(data[bad], f"{spec.text}: column {bad!r}", exclude_hint=True)
        numeric = numeric_columns[free]
        items.append(("columns", free, names, numeric, table.term_names(free)))
        offered[free] = True
        plain = plain and bool(numeric.all())
    if not items:
        raise FormulaError(
            f"{spec.text} has no candidates left: every matched column is the response, a fixed "
            "term or excluded"
        )
    if plain:  # numeric columns only: positions and names, no object per candidate
        positions = np.concatenate([it[1] for it in items])
        cols = [c for it in items for c in it[2]] if len(items) > 1 else items[0][2]
        tnames = [t for it in items for t in it[4]] if len(items) > 1 else items[0][4]
        return Resolved(tnames, cols, positions)
    cands: list[Candidate] = []
    for it in items:
        if it[0] == "candidate":
            cands.append(it[1])
            continue
        # numeric columns are sliced directly; factors are coded by patsy (k-1 columns)
        for c, num, tn in zip(it[2], it[3], it[4]):
            cands.append(Candidate(tn, c if num else None, factor=None if num else c))
    return Resolved(candidates=cands)


def _names_in(expression: str) -> set[str]:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return set()
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    attrs = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called - attrs


def fixed_matrix(rhs: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The fixed design (intercept and fixed terms) as a named DataFrame."""
    check_attributes(rhs, f"the fixed terms {rhs!r}")
    try:
        return patsy.dmatrix(rhs, frame, return_type="dataframe", NA_action="raise", eval_env=eval_env())
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot build the fixed terms {rhs!r}: {exc}") from None


def check_fixed(fixed: pd.DataFrame, n: int) -> None:
    k = fixed.shape[1]
    if n <= k:
        raise ValueError(
            f"only {n} rows for {k} fixed columns: the fixed model leaves no residual degrees of freedom"
        )
    if k == 0:
        return
    x = fixed.to_numpy(dtype=float)
    q, r = np.linalg.qr(x)
    diag = np.abs(np.diag(r))
    scale = np.linalg.norm(x, axis=0)
    bad = diag <= 1e-10 * np.maximum(scale, np.finfo(float).tiny)
    if bad.any():
        names = [fixed.columns[i] for i in np.flatnonzero(bad)]
        raise ValueError(
            f"the fixed terms are collinear: {names} are (numerically) combinations of earlier "
            "fixed columns or constant; remove them"
        )


def _mark_constant_factors(cands: list, frame: pd.DataFrame) -> None:
    """Glob-matched factors with one level in the rows used become constant candidates.

    patsy would code them as no column at all and abort the run; a constant numeric column
    is only skipped, and a one-level factor is the same thing.
    """
    for c in cands:
        if isinstance(c, Candidate) and c.factor is not None:
            c.constant = frame[c.factor].nunique(dropna=True) < 2


def design_matrix(rhs: str, train: pd.DataFrame, newdata: pd.DataFrame,
                  derived: DerivedColumns | None = None) -> pd.DataFrame:
    """``rhs`` coded on ``newdata`` exactly as on ``train`` (factor levels, stateful transforms).

    ``derived`` holds generated-term state fitted on the training rows: PCA columns are
    recomputed on ``newdata`` from the stored centring, scaling and loadings (never
    refitted), and user transforms are available to the formula by name.
    """
    check_attributes(rhs, f"the model's terms {rhs!r}")
    env = eval_env(derived.functions if derived else None)
    if derived:
        newdata = derived.augment(newdata)
    narrow = _referenced_columns(rhs, train)  # patsy on a wide frame hashes all its names
    if newdata is train:  # the training rows themselves: build the design once, not twice
        try:
            return patsy.dmatrix(rhs, narrow, return_type="dataframe", NA_action="raise", eval_env=env)
        except patsy.PatsyError:
            pass  # the two steps below say what is wrong, as for new data
    try:
        info = patsy.dmatrix(rhs, narrow, return_type="dataframe", eval_env=env).design_info
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot build the model's terms {rhs!r}: {exc}") from None
    check_new_column_types(train, newdata)
    try:
        (mat,) = patsy.build_design_matrices([info], newdata, return_type="dataframe", NA_action="raise")
    except patsy.PatsyError as exc:
        raise ValueError(f"cannot build the model's terms on the new data: {exc}") from None
    return mat


class _AnyName:
    def __contains__(self, name) -> bool:
        return True

    def __iter__(self):
        return iter(())


def _referenced_columns(rhs: str, frame: pd.DataFrame, wide: int = 1000) -> pd.DataFrame:
    """``frame`` cut to the columns ``rhs`` can refer to, when it is wide (else ``frame``)."""
    if frame.shape[1] <= wide:
        return frame
    try:
        desc = patsy.ModelDesc.from_formula("0 + " + rhs if rhs.strip() else "0")
        for term in desc.rhs_termlist:
            for factor in term.factors:
                ast.parse(factor.name().strip(), mode="eval")
    except (patsy.PatsyError, SyntaxError):
        return frame  # patsy reports it on the whole frame
    names = set()
    for term in desc.rhs_termlist:
        for factor in term.factors:
            names |= _variables(factor.name(), _AnyName())
    labels = frame.columns.tolist()
    keep = []
    for name in names:
        try:
            keep.append(labels.index(name))  # a scan per name: no hash of every label
        except ValueError:
            pass
    return frame.iloc[:, sorted(keep)]
