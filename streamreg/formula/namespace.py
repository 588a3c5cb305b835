"""The namespace formula terms are evaluated in.

A formula is code (as in R): patsy evaluates every term as Python.  Terms see the data
columns, ``np`` (element-wise functions only), ``functions=`` and patsy's functions --
never the caller's variables or Python's builtins.  ``parse.py`` refuses dunders and
attributes early; :func:`_check_evaluated` repeats the attribute rule on the code patsy
actually runs.

The namespace is the same for every term: fixed terms, stream candidates, generated
classes, interactions and the refit of the selected model (on the training rows and on
new data) all call ``functions=`` through :func:`term_functions`.
"""
from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import numpy as np
import patsy

from ..streams.generated import ColumnFunction
from .parse import FormulaError

#: numpy beyond its ufuncs that formulas may use (no submodules, file I/O or callbacks)
_NP_EXTRA = ("where", "clip", "round", "mean", "std", "var", "median", "percentile", "quantile", "cumsum",
             "cumprod", "sum", "prod", "min", "max", "amin", "amax", "digitize", "interp", "isin",
             "nan_to_num", "asarray", "float64", "int64", "pi", "e", "inf", "nan", "newaxis", "euler_gamma")
#: C, I, Q, center, standardize, scale, bs, cr, cc, te and the contrasts (Treatment, Sum, ...)
_PATSY_FUNCTIONS = {name: getattr(patsy.builtins, name) for name in patsy.builtins.__all__}
if hasattr(patsy, "poly"):  # not in patsy 1.0
    _PATSY_FUNCTIONS["poly"] = patsy.poly


class _FormulaNumpy:
    """numpy as formulas see it: ``np.ctypeslib`` or ``np.load`` would reach the OS."""

    def __init__(self) -> None:
        names = {n: v for n, v in vars(np).items() if isinstance(v, np.ufunc) and not n.startswith("_")}
        names.update({n: getattr(np, n) for n in _NP_EXTRA if hasattr(np, n)})
        vars(self).update(names)

    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"np.{name} is not available in a formula: use numpy's element-wise functions "
                             "(np.log, np.sqrt, np.exp, np.abs, np.where, ...) or create the column first")


_FORMULA_NP = _FormulaNumpy()


def _check_evaluated(code: str) -> None:
    """Allow no attribute but ``np.<name>`` and patsy's own stateful-transform calls."""
    for node in ast.walk(ast.parse(code.strip(), mode="eval")):
        if isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            if base == "np" and not node.attr.startswith("_"):
                continue
            # patsy rewrites center(x) to _patsy_stobj0__center__.transform(x)
            if base and base.startswith("_patsy_stobj") and node.attr in ("transform", "memorize_chunk"):
                continue
            raise FormulaError(f"attribute access '.{node.attr}' is not allowed in a formula term {code!r}")
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            raise FormulaError(f"the name {node.id!r} is not allowed in a formula term {code!r}")


def _unknown_name(exc: NameError) -> NameError:
    if exc.name is None:  # e.g. Q('nosuch'): patsy's message says it
        return exc
    kind = "Python's built-in" if hasattr(builtins, exc.name) else "the name"
    # R's offset() and weights in a formula are options here, with statsmodels' names
    hint = f"; pass the option {_OPTION_NAMES[exc.name]}=COLUMN instead" if exc.name in _OPTION_NAMES else ""
    return NameError(f"{kind} {exc.name!r} is not available in a formula: terms see only the data columns, "
                     f"np, patsy's functions (C, I, Q, center, bs, ...) and functions={hint}")


#: R formula functions that are streamreg options (statsmodels' GLM names; R's prior weights
#: are var_weights)
_OPTION_NAMES = {"offset": "offset", "exposure": "exposure", "weights": "var_weights",
                 "freq_weights": "freq_weights", "var_weights": "var_weights"}


class _FormulaEnvironment(patsy.EvalEnvironment):
    """patsy's evaluation environment, evaluating without Python's builtins."""

    def subset(self, names: list[str]) -> _FormulaEnvironment:
        # patsy narrows the environment per factor and would return a plain EvalEnvironment
        lookup = patsy.eval.VarLookupDict(self._namespaces)
        return self.__class__([{name: lookup[name] for name in names}], self.flags)

    def eval(self, expr: str, source_name: str = "<string>", inner_namespace: dict[str, Any] | None = None) -> object:
        _check_evaluated(expr)
        code = compile(expr, source_name, "eval", self.flags, False)
        inner = {} if inner_namespace is None else inner_namespace  # the data and transform objects
        scope = patsy.eval.VarLookupDict([inner] + self._namespaces)
        try:
            # an explicit empty __builtins__: eval() would otherwise insert the real ones
            return eval(code, {"__builtins__": {}}, scope)  # restricted namespace: no builtins
        except NameError as exc:
            raise _unknown_name(exc) from None


def eval_env(functions: Mapping[str, Callable] | None = None) -> _FormulaEnvironment:
    """Formula namespace after the data: np, then functions=, then patsy's functions."""
    return _FormulaEnvironment([{"np": _FORMULA_NP}, dict(functions or {}), _PATSY_FUNCTIONS])


def term_functions(functions: Mapping[str, Callable] | None) -> dict[str, Callable]:
    """``functions=`` as formula terms call them: a float ``n x p`` array in, same shape out.

    Every term sees this one calling convention, the one ``transform(x*, fn=name)`` has
    always used (:class:`~streamreg.streams.generated.ColumnFunction`), so ``cube(a)`` gives
    the same numbers as a fixed term, a candidate, a transform and in the refit.  patsy
    stateful transforms keep their own protocol (patsy looks for it on the object).

    Parameters
    ----------
    functions : mapping of str to callable, optional
        The ``functions=`` of the call.

    Returns
    -------
    dict of str to callable
        The same names, each wrapped once.

    Examples
    --------
    >>> import numpy as np
    >>> fns = term_functions({"cube": lambda v: v ** 3})
    >>> fns["cube"](np.array([1, 2])).tolist()
    [1.0, 8.0]
    """
    out: dict[str, Callable] = {}
    for name, fn in (functions or {}).items():
        keep = isinstance(fn, ColumnFunction) or hasattr(fn, "__patsy_stateful_transform__")
        out[name] = fn if keep else ColumnFunction(fn, name)
    return out


def called_functions(code: str, functions: Mapping[str, Callable]) -> dict[str, Callable]:
    """The entries of ``functions`` that ``code`` may call: kept by results for new data.

    A textual scan (``name(``), so it may keep a function the code does not call, never miss
    one; the others stay out of the results, which then pickle whenever the used ones do.

    Parameters
    ----------
    code : str
        Formula code, e.g. the refit's right-hand side.
    functions : mapping of str to callable
        The formula's functions.

    Returns
    -------
    dict of str to callable

    Examples
    --------
    >>> sorted(called_functions("1 + cube(a) + x", {"cube": abs, "square": abs}))
    ['cube']
    """
    called = set(re.findall(r"([A-Za-z_]\w*)\s*\(", code))
    return {name: fn for name, fn in functions.items() if name in called}
