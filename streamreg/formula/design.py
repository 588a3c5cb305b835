"""From formula and DataFrame to response, fixed design and candidate streams.

With ``namespace.py`` (where terms are evaluated), the only module of streamreg that
imports patsy; column checks live in ``checks.py``.  Results keep formula strings
and a small training frame, never patsy objects, so they pickle; design matrices for new
data are rebuilt here from those strings.
"""
from __future__ import annotations

import ast
import builtins
import fnmatch
import keyword
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
from .checks import (check_fixed_columns, check_new_column_types, is_numeric, no_complete_rows, plain,
                     refuse_dates, refuse_infinite)
from .namespace import eval_env
from .parse import FormulaError, ParsedFormula, StreamSpec, check_attributes, parse_formula

_PATSY_NAMES = {"C", "I", "Q", "np", "center", "standardize", "scale", "bs", "cr", "cc", "te"}


def term_name(column: str) -> str:
    """A formula-ready name for a data column (``Q("...")`` when the name is unusual)."""
    ok = column.isidentifier() and not keyword.iskeyword(column)
    if ok and column not in _PATSY_NAMES and not hasattr(builtins, column):
        return column
    return "Q(" + repr(column) + ")"


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
    """Candidates from a DataFrame: numeric columns sliced directly, other terms by patsy."""

    def __init__(self, name: str, frame: pd.DataFrame, candidates: list[Candidate]):
        super().__init__(name)
        self.frame = frame
        self.candidates = candidates
        self.position = 0
        self.n_candidates = len(candidates)

    def _next_block(self, k: int) -> TermBlock | None:
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
        return [c.name for c in self.candidates]

    def is_single_column(self, i: int) -> bool:
        return self.candidates[i].column is not None

    def term_values(self, i: int) -> np.ndarray:
        return self.candidates[i].values(self.frame)[0]


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
    if data.columns.duplicated().any():
        dup = list(data.columns[data.columns.duplicated()].unique())
        raise ValueError(f"the data have duplicated column names {dup}; column names must be unique")
    if len(data) == 0:
        raise ValueError("the data have no rows")
    parsed = parse_formula(formula)
    columns = [str(c) for c in data.columns]
    colset = set(columns)
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
    for spec in parsed.streams:
        check_options(spec)
        if spec.function == "stream":
            cands = _resolve_stream(spec, columns, colset, taken, data)
            for c in cands:
                used |= {c.column} if c.column is not None else _variables(c.name, colset)
        elif spec.function in COLUMN_CLASSES:
            cands = matched_columns(spec, columns, taken, data)
            used |= set(cands)
        else:
            cands = []
        stream_cands.append((spec, cands))

    frame = data[[c for c in columns if c in used]]
    na_rows = frame.isna().any(axis=1).to_numpy()
    n_dropped = int(na_rows.sum())
    if n_dropped:
        if missing == "raise":
            bad = frame.columns[frame.isna().any()].tolist()
            raise ValueError(
                f"{n_dropped} rows have missing values in the columns used ({bad[:8]}); "
                "drop or impute them, or pass missing='drop'"
            )
        frame = frame.loc[~na_rows]
    if len(frame) == 0:
        no_complete_rows(data[list(frame.columns)])
    for spec, cands in stream_cands:
        _mark_constant_factors(cands, frame)
    check_fixed_columns(frame, sorted(fixed_vars), allow_missing=True)
    refuse_infinite(frame, resp_col)

    y_series = frame[resp_col]
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

    fixed = fixed_matrix(parsed.fixed, frame)
    check_fixed(fixed, len(frame))

    frame = frame.copy()  # generated PCA columns are added to it
    build = ClassBuild()
    sources: dict[str, list[Stream]] = {}
    stream_items: list[str] = []
    for pos, (spec, cands) in enumerate(stream_cands):
        sname = stream_label(spec)
        if spec.function == "stream":
            st = FrameStream(sname, frame, cands)
            order = resolve_order(spec, functions)
            perm = _frame_order(st, order, y, spec, sname)
            if perm is not None:
                st.candidates = [st.candidates[i] for i in perm]
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
        return candidate_order(None, order, seed=spec.options.get("seed"), n=len(st.candidates), what=label)
    if not all(c.column is not None for c in st.candidates):
        raise FormulaError(f"{spec.text}: order={spec.options.get('order')!r} scores single numeric columns; "
                           "this stream has factor or multi-column terms (use 'given' or 'random')")
    values = st.frame[[c.column for c in st.candidates]].to_numpy(dtype=float)
    return candidate_order(values, order, y=y, seed=spec.options.get("seed"), what=label)


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


def _resolve_stream(spec: StreamSpec, columns: list[str], colset: set[str], taken: set[str], data) -> list[Candidate]:
    excl = spec.options.get("exclude") or []
    if isinstance(excl, str):
        excl = [excl]
    cands: list[Candidate] = []
    seen: set[str] = set()
    for arg in spec.args:
        if arg in spec.terms:
            unknown = {n for n in _names_in(arg) if n not in colset and n not in _PATSY_NAMES and n != "np"}
            unknown = {n for n in unknown if not hasattr(builtins, n)}
            if unknown:
                raise FormulaError(f"unknown column(s) {sorted(unknown)} in the candidate term {arg!r} of {spec.text}")
            for v in sorted(_names_in(arg) & colset):
                refuse_dates(data[v], f"column {v!r} in the candidate term {arg!r} of {spec.text}")
            if arg not in seen:
                cands.append(Candidate(arg, None))
                seen.add(arg)
            continue
        matched = [c for c in columns if fnmatch.fnmatchcase(c, arg)]
        if not matched:
            hint = "" if any(ch in arg for ch in "*?[") else " (no column has that name)"
            raise FormulaError(f"{spec.text}: {arg!r} matches no column of the data{hint}")
        free = [c for c in matched if c not in taken and not any(fnmatch.fnmatchcase(c, e) for e in excl)]
        for c in free:
            if c in seen:
                continue
            seen.add(c)
            # patsy would make every date a level of a factor: refuse rather than test that
            refuse_dates(data[c], f"{spec.text}: column {c!r}", exclude_hint=True)
            # numeric columns are sliced directly; factors are coded by patsy (k-1 columns)
            numeric = is_numeric(data[c])
            cands.append(Candidate(term_name(c), c if numeric else None, factor=None if numeric else c))
    if not cands:
        raise FormulaError(
            f"{spec.text} has no candidates left: every matched column is the response, a fixed "
            "term or excluded"
        )
    return cands


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
    try:
        info = patsy.dmatrix(rhs, train, return_type="dataframe", eval_env=env).design_info
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot build the model's terms {rhs!r}: {exc}") from None
    check_new_column_types(train, newdata)
    try:
        (mat,) = patsy.build_design_matrices([info], newdata, return_type="dataframe", NA_action="raise")
    except patsy.PatsyError as exc:
        raise ValueError(f"cannot build the model's terms on the new data: {exc}") from None
    return mat
