"""The left-hand side of a formula: a column, an expression, or two columns of counts.

The response is evaluated as patsy evaluates a term, in the one formula namespace of
:mod:`.namespace` (the data columns, ``np``'s element-wise functions, patsy's functions and
``functions=``; no builtins): ``np.log(medv) ~ ...``, ``I(medv > 25) ~ ...``.  A binomial
response may have two columns, the successes and failures of each row: R's
``cbind(s, f) ~ ...``, or statsmodels' ``s + f ~ ...`` (patsy reads ``+`` left of ``~`` as
two columns).  It is modelled as R and statsmodels model it: the proportion ``s / (s + f)``
with ``s + f`` trials as prior (variance) weights, multiplying any ``var_weights=``.
"""
from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy

from ..models.base import ObservationWeights
from .checks import is_numeric, plain
from .names import _PATSY_NAMES, NameSet, names_in, variables
from .namespace import eval_env
from .parse import FormulaError
from .response import binomial_response


@dataclass(frozen=True)
class Response:
    """The response as modelled, and how the results write it.

    Attributes
    ----------
    y : ndarray
        Floats on the rows used: the values, 0/1 for a binomial response, or proportions.
    name : str
        How the results name it: the column, or the expression as written.
    label : str
        The left-hand side of the refit's formula (a factor's two-level coding included).
    success : object or None
        The level modelled as success by a binomial response (None for proportions).
    trials : ndarray or None
        ``successes + failures`` of a two-column response; None otherwise.
    """

    y: np.ndarray
    name: str
    label: str
    success: object | None = None
    trials: np.ndarray | None = None


def cbind(*columns: Any) -> np.ndarray:
    """R's ``cbind`` for the left-hand side: the columns side by side (successes, failures).

    Examples
    --------
    >>> cbind([3, 0], [1, 2]).tolist()
    [[3, 1], [0, 2]]
    """
    return np.column_stack([np.asarray(c) for c in columns])


#: names the response may use beside the data columns and functions=
_RESPONSE_NAMES = {"cbind": cbind}


def plain_column(lhs: str, columns: NameSet) -> str | None:
    """The data column the response is, when it is one (or ``Q()`` of one); None for an expression.

    Examples
    --------
    >>> plain_column("y", {"y"}), plain_column("Q('a b')", {"a b"}), plain_column("np.log(y)", {"y"})
    ('y', 'a b', None)
    """
    if lhs in columns:
        return lhs
    inner = variables(lhs, columns)
    if len(inner) == 1 and lhs.startswith("Q(") and _one_call(lhs, "Q"):
        return inner.pop()
    return None


def _one_call(code: str, name: str) -> bool:
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def response_columns(lhs: str, columns: NameSet, functions: Iterable[str] = ()) -> set[str]:
    """The data columns the response uses; unknown names and formula operators are refused.

    Parameters
    ----------
    lhs : str
        The left-hand side as written.
    columns : set of str
        The data's columns.
    functions : iterable of str
        The names of ``functions=``.

    Returns
    -------
    set of str

    Raises
    ------
    FormulaError
        For a name that is no column, no function of the formula namespace, or a response
        that uses no column.

    Examples
    --------
    >>> sorted(response_columns("cbind(s, f)", {"f", "x", "s"}))
    ['f', 's']
    >>> response_columns("np.log(nosuch)", {"y"})
    Traceback (most recent call last):
        ...
    streamreg.lexer.FormulaError: the response 'np.log(nosuch)' refers to 'nosuch', which is not a column of the data
    """
    column = plain_column(lhs, columns)
    if column is not None:
        return {column}
    response_terms(lhs)  # a readable expression, without formula operators
    known = _PATSY_NAMES | set(_RESPONSE_NAMES) | set(functions)
    unknown = sorted(n for n in names_in(lhs) if n not in columns and n not in known)
    if unknown and unknown == [lhs.strip()]:
        raise FormulaError(f"the response {lhs!r} is not a column of the data")
    if unknown:
        which = ", ".join(map(repr, unknown))
        verb = "is not a column" if len(unknown) == 1 else "are not columns"
        raise FormulaError(f"the response {lhs!r} refers to {which}, which {verb} of the data")
    found = variables(lhs, columns)
    if not found:
        raise FormulaError(f"the response {lhs!r} uses no column of the data")
    return found


def response_data_columns(name: str, columns: Iterable[Any]) -> list[str]:
    """The columns among ``columns`` that a response named ``name`` uses, in their order: the
    response itself when it is a column, else the columns its expression names (none when
    it is neither, e.g. the name of an array given to :func:`streamreg.select`).

    Examples
    --------
    >>> response_data_columns("cbind(s, f)", ["f", "x", "s"]), response_data_columns("y", ["x", "y"])
    (['f', 's'], ['y'])
    """
    columns = list(columns)
    if name in columns:
        return [name]
    try:
        ast.parse(name, mode="eval")
    except SyntaxError:
        return []
    found = variables(name, set(columns))
    return [c for c in columns if c in found]


def response_terms(lhs: str) -> list[str]:
    """The response's terms as patsy reads them: one, or two joined by ``+`` (successes, failures).

    Other formula operators on the left of ``~`` would be read as terms by patsy and as
    arithmetic by R; they are refused, with the ``I()`` that makes them arithmetic.

    Examples
    --------
    >>> response_terms("np.log(y)"), response_terms("s + f")
    (['np.log(y)'], ['s', 'f'])
    >>> response_terms("a - b")
    Traceback (most recent call last):
        ...
    streamreg.lexer.FormulaError: the response 'a - b' uses '-', which patsy reads as an operator on terms (R as arithmetic); write I(a - b) for the arithmetic
    """
    try:
        node = ast.parse(lhs.strip(), mode="eval").body
    except SyntaxError:
        raise FormulaError(f"the response {lhs!r} is not an expression patsy can evaluate; write arithmetic inside "
                           "I(...)") from None
    terms: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        terms.insert(0, node.right)
        node = node.left
    terms.insert(0, node)
    for term in terms:
        op = _formula_operator(term)
        if op is not None:
            raise FormulaError(f"the response {lhs!r} uses {op!r}, which patsy reads as an operator on terms (R as "
                               f"arithmetic); write I({lhs.strip()}) for the arithmetic")
    if len(terms) > 2:
        raise FormulaError(f"the response {lhs!r} has {len(terms)} terms; a response is one expression, or two "
                           "columns of successes and failures (s + f, or cbind(s, f)); write I(...) for a sum")
    return [ast.get_source_segment(lhs.strip(), t) or ast.unparse(t) for t in terms]


#: Python operators that are formula operators on patsy's left-hand side
_OPERATORS = {ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.Mod: "%", ast.BitOr: "|"}


def _formula_operator(node: ast.expr) -> str | None:
    if isinstance(node, ast.BinOp):
        return _OPERATORS.get(type(node.op))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "-"
    return None


def evaluate_response(lhs: str, frame: pd.DataFrame, functions: Mapping[str, Callable[..., Any]], *,
                      binomial: bool, grouped: bool = False, family: Any = None) -> Response:
    """The response expression ``lhs`` on ``frame`` (the rows used), checked and coded.

    Parameters
    ----------
    lhs : str
        The left-hand side, an expression of the data columns (not a column itself).
    frame : DataFrame
        The columns it uses on the rows used.
    functions : mapping
        The formula's functions, as :func:`~.namespace.term_functions` gives them.
    binomial : bool
        Whether the family is binomial: then the response may be a two-level factor, a
        boolean, 0/1, proportions (``grouped``: ``var_weights`` given), or two columns.
    grouped : bool, default False
        Whether ``var_weights`` are given (see :func:`~.response.binomial_response`).
    family : statsmodels family, optional
        For the name in the message refusing two columns.

    Returns
    -------
    Response

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"s": [3.0, 1.0, 0.0], "f": [1.0, 1.0, 4.0]})
    >>> r = evaluate_response("cbind(s, f)", df, {}, binomial=True)
    >>> r.y.tolist(), r.trials.tolist(), r.label
    ([0.75, 0.5, 0.0], [4.0, 2.0, 4.0], 'cbind(s, f)')
    """
    terms = response_terms(lhs)
    values = [_evaluate(lhs, t, frame, functions) for t in terms]
    value = values[0] if len(values) == 1 else np.column_stack([_one_column(lhs, v, len(frame)) for v in values])
    if np.ndim(value) == 2 and np.shape(value)[1] == 2:
        return _two_columns(lhs, np.asarray(value), frame.index, binomial, family)
    series = pd.Series(_one_column(lhs, value, len(frame)), index=frame.index, name=lhs)
    if binomial:
        y, label, success = binomial_response(series, lhs, grouped, expression=lhs)
    elif not is_numeric(series):
        raise ValueError(f"the response {lhs!r} is not numeric (dtype {series.dtype}); for a two-level response use "
                         "family='binomial'")
    else:
        y, label, success = series.to_numpy(dtype=float), lhs, None
    _refuse_nonfinite(lhs, y, frame.index)
    return Response(y, lhs, label, success)


def _evaluate(lhs: str, term: str, frame: pd.DataFrame, functions: Mapping[str, Callable[..., Any]]) -> Any:
    """One term of the response evaluated on the data, as patsy evaluates a factor."""
    env = eval_env({**_RESPONSE_NAMES, **functions})
    try:
        # the response's columns by name (a narrow frame: one Series per column is cheap); NaN and
        # infinite values (np.log(0)) are refused with the rows named, so numpy's warnings are not shown
        with np.errstate(all="ignore"):
            return env.eval(term, inner_namespace={str(c): frame.iloc[:, j] for j, c in enumerate(frame.columns)})
    except (TypeError, ValueError, ArithmeticError, LookupError, AttributeError, patsy.PatsyError) as exc:
        # the user's code (a function of functions=, a patsy transform): reported with the response
        raise FormulaError(f"the response {lhs!r} cannot be evaluated: {type(exc).__name__}: {exc}") from None


def _one_column(lhs: str, value: Any, n: int) -> Any:
    """A term's value as one column of ``n`` values (a Series keeps its dtype)."""
    if isinstance(value, pd.DataFrame):
        value = value.to_numpy() if value.shape[1] != 1 else value.iloc[:, 0]
    if isinstance(value, pd.Series):
        if len(value) != n:
            raise ValueError(f"the response {lhs!r} has {len(value)} values for {n} rows")
        return value.to_numpy()
    arr = np.asarray(value)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        shape = "a single value" if arr.ndim == 0 else f"shape {arr.shape}"
        raise ValueError(f"the response {lhs!r} evaluates to {shape}; a response is one column (or, for a binomial "
                         f"model, two: successes and failures) with a value per row")
    if len(arr) != n:
        raise ValueError(f"the response {lhs!r} has {len(arr)} values for {n} rows")
    return arr


def _two_columns(lhs: str, value: np.ndarray, rows: pd.Index, binomial: bool, family: Any) -> Response:
    """Successes and failures: the proportion of successes, with the trials."""
    if not binomial:
        name = type(family).__name__ if family is not None else "this family"
        raise ValueError(f"the response {lhs!r} has two columns (successes and failures), which only a binomial "
                         f"family takes; {name} needs one column (write I(...) for arithmetic on columns)")
    if len(value) != len(rows):
        raise ValueError(f"the response {lhs!r} has {len(value)} rows of successes and failures for {len(rows)} rows")
    if value.dtype.kind not in "biuf":
        raise ValueError(f"the response {lhs!r} must hold numbers of successes and failures; its columns are of "
                         f"dtype {value.dtype}")
    counts = value.astype(float)
    _refuse_nonfinite(lhs, counts.sum(axis=1), rows)
    for what, bad in (("negative", counts < 0), ("not whole numbers", np.abs(counts - np.round(counts)) > 1e-8 *
                                                                         np.maximum(np.abs(counts), 1.0))):
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"the response {lhs!r} must hold counts of successes and failures (whole, non-negative "
                             f"numbers); {int(bad.any(axis=1).sum())} row(s) are {what}, the first row "
                             f"{plain(rows[i])!r}: {('successes', 'failures')[j]} = {counts[i, j]:.10g}")
    trials = counts.sum(axis=1)
    if (trials == 0).any():
        i = int(np.flatnonzero(trials == 0)[0])
        raise ValueError(f"the response {lhs!r} has {int((trials == 0).sum())} row(s) without trials (successes + "
                         f"failures = 0), the first row {plain(rows[i])!r}; drop those rows first")
    return Response(counts[:, 0] / trials, lhs, lhs, None, trials)


def _refuse_nonfinite(lhs: str, y: np.ndarray, rows: pd.Index) -> None:
    """The response's values must be finite on the rows used (``np.log(0)`` is not)."""
    bad = ~np.isfinite(y)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"the response {lhs!r} is NaN or infinite on {int(bad.sum())} of the rows used, the first "
                         f"row {plain(rows[i])!r} ({y[i]}); drop those rows or change the expression")


def two_column_response(lhs: str, frame: pd.DataFrame, functions: Mapping[str, Callable[..., Any]]) -> Response:
    """A two-column response on other rows (held-out ones), checked as on the design's rows."""
    return evaluate_response(lhs, frame, functions, binomial=True)


def with_trials(weights: ObservationWeights, trials: np.ndarray | None) -> ObservationWeights:
    """``weights`` with the trials of a two-column response as the variance weights; the same
    object without trials.

    R multiplies its ``weights=`` by the trials, and its ``logLik`` then weights each row's
    binomial log-density instead of counting weighted trials; ``var_weights=`` beside a
    two-column response is refused rather than reported otherwise.

    Examples
    --------
    >>> with_trials(ObservationWeights(), np.array([4.0, 3.0])).var_weights.tolist()
    [4.0, 3.0]
    """
    if trials is None:
        return weights
    if weights.var_weights is not None:
        raise ValueError("var_weights= cannot be combined with a two-column response (successes, failures), whose "
                         "trials are the variance weights already; pass the proportion of successes with "
                         "var_weights = weights * trials instead")
    return dataclasses.replace(weights, var_weights=trials)
