"""Design matrices by patsy: one candidate term, the fixed terms, and a model on new data.

Every matrix is built in the formula namespace of :mod:`.namespace`, with the user's
``functions=`` available to every term (:func:`~.namespace.term_functions`).  Results keep
formula strings and a small training frame, never patsy objects, so they pickle; the
design of a refit on new data is rebuilt here from those strings.
"""
from __future__ import annotations

import ast
import contextlib
import keyword
import re
from collections.abc import Callable, Mapping
from typing import Literal

import numpy as np
import pandas as pd
import patsy
from scipy.linalg.blas import dnrm2

from ..models.base import column_scales
from ..streams.generated import DerivedColumns
from .checks import check_new_column_types, nonfinite_term_message, numpy_booleans
from .names import AnyName, variables
from .namespace import eval_env
from .parse import FormulaError, check_attributes

Functions = Mapping[str, Callable]


def evaluate_term(expression: str, frame: pd.DataFrame, functions: Functions | None = None
                  ) -> tuple[np.ndarray, list[str]]:
    """Columns of one patsy term as coded beside an intercept (k-1 for a k-level factor).

    ``functions`` are the formula's functions as :func:`~.namespace.term_functions` gives them.
    """
    check_attributes(expression, f"the candidate term {expression!r}")
    try:
        dm = patsy.dmatrix("1 + " + expression, frame, return_type="dataframe", NA_action="raise",
                           eval_env=eval_env(functions))
    except patsy.PatsyError as exc:
        what = f"the candidate term {expression!r}"
        raise FormulaError(_nonfinite(what, "1 + " + expression, frame, functions)
                           or f"patsy cannot build {what}: {exc}") from None
    dm = dm.drop(columns="Intercept", errors="ignore")
    if dm.shape[1] == 0:
        raise FormulaError(f"the candidate term {expression!r} has no columns beside the intercept")
    return dm.to_numpy(dtype=float), list(dm.columns)


def fixed_matrix(rhs: str, frame: pd.DataFrame, functions: Functions | None = None) -> pd.DataFrame:
    """The fixed design (intercept and fixed terms) as a named DataFrame."""
    check_attributes(rhs, f"the fixed terms {rhs!r}")
    # the intercept alone, or bare numeric columns (data come first); patsy adds the intercept
    # to terms that do not start with 0 or 1, as the formula's fixed part often is written
    explicit = rhs.split("+", 1)[0].strip() in ("0", "1")
    plain = plain_design(rhs if explicit else "1 + " + rhs, frame, frame)
    if plain is not None:
        return plain
    try:
        return patsy.dmatrix(rhs, frame, return_type="dataframe", NA_action="raise", eval_env=eval_env(functions))
    except patsy.PatsyError as exc:
        what = f"the fixed terms {rhs!r}"
        raise FormulaError(_nonfinite(what, rhs, frame, functions) or f"patsy cannot build {what}: {exc}") from None


def _nonfinite(what: str, formula: str, frame: pd.DataFrame, functions: Functions | None) -> str | None:
    """Why the terms cannot be used when their values hold NaN or infinities (None otherwise)."""
    try:
        values = patsy.dmatrix(formula, frame, return_type="dataframe", NA_action=patsy.NAAction(NA_types=[]),
                               eval_env=eval_env(functions))
    except patsy.PatsyError:
        return None
    return nonfinite_term_message(what, values)


def check_fixed(fixed: pd.DataFrame, n: int) -> None:
    """Refuse a fixed design without residual degrees of freedom or with collinear columns."""
    check_fixed_values(fixed.to_numpy(dtype=float), list(fixed.columns), n)


def check_fixed_values(x: np.ndarray, columns: list[str], n: int) -> None:
    """:func:`check_fixed` of the design's values ``x`` and column names."""
    k = x.shape[1]
    if n <= k:
        raise ValueError(
            f"only {n} rows for {k} fixed columns: the fixed model leaves no residual degrees of freedom"
        )
    if k == 0:
        return
    # each column's part outside the span of those before it (R's diagonal; Q is not needed),
    # against its norm, both safe from overflow (a column near 1e200 is not collinear)
    if k == 1:  # R is the column's norm: no factorisation
        diag = scale = np.array([dnrm2(np.ascontiguousarray(x[:, 0]))])
    else:
        diag = np.abs(np.diag(np.linalg.qr(x, mode="r")))
        scales = column_scales(x)  # powers of two: the norms of the scaled columns, scaled back exactly
        scale = scales * np.linalg.norm(x / scales, axis=0)
    bad = diag <= 1e-10 * np.maximum(scale, np.finfo(float).tiny)
    if bad.any():
        names = [columns[i] for i in np.flatnonzero(bad).tolist()]
        raise ValueError(
            f"the fixed terms are collinear: {names} are (numerically) combinations of earlier "
            "fixed columns or constant; remove them"
        )


def design_matrix(rhs: str, train: pd.DataFrame, newdata: pd.DataFrame,
                  derived: DerivedColumns | None = None, functions: Functions | None = None, *,
                  nonfinite: Literal["raise", "nan"] = "raise") -> pd.DataFrame:
    """``rhs`` coded on ``newdata`` exactly as on ``train`` (factor levels, stateful transforms).

    ``derived`` holds generated-term state fitted on the training rows: PCA columns are
    recomputed on ``newdata`` from the stored centring, scaling and loadings (never
    refitted).  ``functions`` (as :func:`~.namespace.term_functions` gives them) and the
    user transforms of ``derived`` are available to the formula by name.

    A term can be NaN or infinite on a new row whose inputs are complete (``np.log(x)``
    where ``x <= 0``).  ``nonfinite="nan"`` makes every column of such a row NaN (the row
    is then predicted as NaN, like a row with a missing input); ``"raise"`` refuses a NaN
    value (computed or missing) with a message naming the term and the rows, as patsy
    refuses it, and keeps infinite ones.  numpy's warnings about them are not shown either way.
    """
    if not derived and not functions:
        plain = plain_design(rhs, train, newdata)  # numeric columns only: no boolean to convert
        if plain is not None:
            return plain
    same = newdata is train  # the training rows: one design, built once below
    train = numpy_booleans(train)  # patsy cannot read pandas' nullable booleans
    newdata = train if same else numpy_booleans(newdata)
    check_attributes(rhs, f"the model's terms {rhs!r}")
    env = eval_env({**(derived.functions if derived else {}), **(functions or {})})
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
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # said below, per term and row
        try:
            (mat,) = patsy.build_design_matrices([info], newdata, return_type="dataframe", NA_action="raise")
        except patsy.PatsyError as exc:
            mat = _keeping_nan(info, newdata, exc)
    return _nonfinite_rows(mat, nonfinite)


def _keeping_nan(info: patsy.DesignInfo, newdata: pd.DataFrame, error: patsy.PatsyError) -> pd.DataFrame:
    """The design with NaN values kept, when patsy refused NaN that a term computed."""
    try:
        (mat,) = patsy.build_design_matrices([info], newdata, return_type="dataframe",
                                             NA_action=patsy.NAAction(NA_types=[]))
    except patsy.PatsyError:
        mat = None
    if mat is None or not mat.isna().to_numpy().any():  # another problem: patsy's own message
        raise ValueError(f"cannot build the model's terms on the new data: {error}") from None
    return mat


def _nonfinite_rows(mat: pd.DataFrame, nonfinite: str) -> pd.DataFrame:
    """``mat`` with its rows holding NaN or infinities blanked, or a message naming them."""
    values = mat.to_numpy(dtype=float)
    bad = ~np.isfinite(values) if nonfinite == "nan" else np.isnan(values)
    rows = bad.any(axis=1)
    if not rows.any():
        return mat
    if nonfinite == "nan":
        mat.iloc[np.flatnonzero(rows), :] = np.nan  # patsy's frame, new: its design_info stays
        return mat
    column = int(np.flatnonzero(bad.any(axis=0))[0])
    labels = mat.index[bad[:, column]].tolist()
    shown = ", ".join(map(repr, labels[:5])) + (f", ... ({len(labels)} rows)" if len(labels) > 5 else "")
    raise ValueError(f"the term {mat.columns[column]!r} is NaN on the new data's row(s) {shown} (a missing "
                     "value, or e.g. the log of a value <= 0); predict() gives NaN for such rows")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def plain_design(rhs: str, train: pd.DataFrame, newdata: pd.DataFrame) -> pd.DataFrame | None:
    """The design of ``1 + a + b ...`` (or ``0 + ...``) on bare numeric columns, without patsy.

    This is what :func:`streamreg.select` refits and most selected models are: patsy would
    return the same frame (an ``Intercept`` column of ones, then each column as floats, on
    ``newdata``'s index) after parsing and evaluating every term, which costs milliseconds
    on a small problem.  Anything else -- a factor, a function call, a boolean or
    non-numeric column, a missing value, a repeated term -- returns None, and patsy
    builds it (and reports what is wrong).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [0, 1, 0]})
    >>> plain_design("1 + a + b", df, df)
       Intercept    a    b
    0        1.0  1.0  0.0
    1        1.0  2.0  1.0
    2        1.0  4.0  0.0
    >>> plain_design("1 + C(b)", df, df) is None
    True
    """
    terms = [t.strip() for t in rhs.split("+")]
    if terms[0] not in ("0", "1"):
        return None
    names = terms[1:]
    if not plain_names(names):
        return None
    # one look-up per name in the frame's hash table (built once per frame): `name in columns`
    # would scan a wide text Index (pandas' string dtype), about 50 ms a name at a million columns
    new_pos = _positions(newdata, names)
    train_pos = new_pos if train is newdata else _positions(train, names)
    if new_pos is None or train_pos is None:
        return None
    new_dtypes = newdata.dtypes.to_numpy()  # once: pandas builds a Series per call
    if not (_numeric(new_dtypes[new_pos]) and (train is newdata or _numeric(train.dtypes.to_numpy()[train_pos]))):
        return None  # booleans (patsy: categorical), nullable booleans, text, dates
    head = terms[0] == "1"
    values = np.empty((len(newdata), head + len(names)))
    values[:, :head] = 1.0
    values[:, head:] = _float_columns(newdata, new_pos, new_dtypes)
    if not np.isfinite(values).all():
        return None  # patsy says which value is missing
    return pd.DataFrame(values, index=newdata.index, columns=["Intercept"] * head + names)


def plain_names(names: list[str]) -> bool:
    """Whether ``names`` are distinct bare column names (ASCII identifiers, no keyword): the
    terms :func:`plain_design` builds without patsy.

    Examples
    --------
    >>> plain_names(["a", "x_1"]), plain_names(["a", "a"]), plain_names(["np.log(a)"])
    (True, False, False)
    """
    return len(set(names)) == len(names) and all(_NAME.match(t) and not keyword.iskeyword(t) for t in names)


def _positions(frame: pd.DataFrame, names: list[str]) -> np.ndarray | None:
    """Positions of ``names`` among the frame's columns; None if one is missing or the
    columns repeat a label (patsy then says what is wrong)."""
    columns = frame.columns
    if not columns.is_unique:
        return None
    if type(columns) is not pd.Index:  # a MultiIndex (a name may stand for several columns), a RangeIndex
        pos = columns.get_indexer(pd.Index(names))
        return None if (pos < 0).any() else pos
    try:
        return np.array([columns.get_loc(name) for name in names], dtype=np.intp)
    except KeyError:
        return None


def _numeric(dtypes: np.ndarray) -> bool:
    """Whether columns of these dtypes are all integer or float columns."""
    return all(dt.kind in "iuf" for dt in dtypes)


def _float_columns(frame: pd.DataFrame, pos: np.ndarray, dtypes: np.ndarray) -> np.ndarray:
    """Columns ``pos`` (numeric) of ``frame`` (whose column dtypes are ``dtypes``) as floats."""
    if frame.shape[1] <= 2 * len(pos) + 8 and _numeric(dtypes):
        return frame.to_numpy(dtype=float, na_value=np.nan)[:, pos]  # a small numeric frame: one step
    return frame.iloc[:, pos].to_numpy(dtype=float, na_value=np.nan)


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
            names |= variables(factor.name(), AnyName())
    labels = frame.columns.tolist()
    keep = []
    for name in names:
        with contextlib.suppress(ValueError):  # a name that is no column (a function, say)
            keep.append(labels.index(name))  # a scan per name: no hash of every label
    return frame.iloc[:, sorted(keep)]
