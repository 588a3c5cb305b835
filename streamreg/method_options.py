"""Options of the selection method (``w0=``, ``alpha_delta=``, ``lam=``, ...), checked against the
signature of the method's constructor: an unknown keyword is reported with the valid ones and a
"did you mean", a value of the wrong type by its annotation, before the constructor runs.
"""
from __future__ import annotations

import difflib
import functools
import inspect
import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .policies import Policy
from .validators import _got, _is_int, _is_real

if TYPE_CHECKING:
    from .search.method import SearchMethod


def _method_factory(method: str) -> tuple[Callable[..., Any] | None, tuple[str, ...]]:
    """(constructor whose signature lists the options, options the factory fixes itself)."""
    from .policies.registry import _REGISTRY
    from .search.methods import _METHODS, Stepwise, _key

    key = _key(method)
    if key in _METHODS:
        if key.startswith("stepwise-"):  # "stepwise-aic" etc. fix the penalty
            return Stepwise, ("penalty",)
        return _METHODS[key], ()
    return _REGISTRY.get(method.lower()), ()


@functools.lru_cache(maxsize=256)  # a class's signature does not change; inspect costs ~50 us a call
def _parameters(factory: Callable[..., Any]) -> list[inspect.Parameter] | None:
    """The keyword parameters of a constructor; None when unknowable (``**kwargs``)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.name != "self" and p.kind is not p.VAR_POSITIONAL]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return params


def _unknown_option_message(key: str, method: str, valid: list[str], top_level: tuple[str, ...]) -> str:
    listed = ", ".join(valid) if valid else f"none (method {method!r} takes no options)"
    text = f"unknown option {key!r} for method {method!r}; valid options: {listed}"
    if key == "weights":  # R's glm(weights=) and statsmodels' WLS(weights=) are both var_weights=
        return (text + "; for weights pass var_weights= (prior weights dividing the variance, as R's glm "
                "weights= and statsmodels' WLS weights=) or freq_weights= (counts of identical observations)")
    close = difflib.get_close_matches(key, list(valid) + list(top_level), n=1, cutoff=0.75)
    if close:
        text += f" (did you mean {close[0]}=?)"
    return text


_TYPE_WORDS = {"float": "a number", "int": "an integer", "str": "a string", "bool": "True or False",
               "None": "None", "Sequence": "a sequence of numbers"}


def _check_annotated(name: str, value: Any, param: inspect.Parameter, method: str) -> None:
    """Type of one method option from the constructor's annotation (``float | None`` etc.).

    Annotations that name anything else (a class, a callable) are left to the constructor.
    """
    ann = param.annotation
    if ann is inspect.Parameter.empty:
        return
    tokens = set(re.findall(r"[A-Za-z_]+", ann if isinstance(ann, str) else inspect.formatannotation(ann)))
    if not tokens or not tokens <= set(_TYPE_WORDS):
        return
    ok = (
        (value is None and "None" in tokens)
        or (isinstance(value, (bool, np.bool_)) and "bool" in tokens)
        or (_is_int(value) and tokens & {"int", "float"})
        or (_is_real(value) and not _is_int(value) and "float" in tokens)
        or (isinstance(value, str) and "str" in tokens)
        or ("Sequence" in tokens and np.iterable(value) and not isinstance(value, (str, bytes, Mapping)))
    )
    if not ok:
        wanted = " or ".join(_TYPE_WORDS[t] for t in sorted(tokens, key=list(_TYPE_WORDS).index))
        raise TypeError(f"option {name} of method {method!r} must be {wanted}, got {_got(value)}")
    if _is_real(value) and not math.isfinite(value):
        raise ValueError(f"option {name} of method {method!r} must be finite, got {value!r}")


def _check_method_options(method: object, options: dict[str, Any], top_level: tuple[str, ...]) -> None:
    if not isinstance(method, str):
        return  # instances: resolve_method refuses options
    factory, fixed = _method_factory(method)
    if factory is None:
        return  # unknown names: resolve_method lists the known ones
    params = _parameters(factory)
    if params is None:
        return
    by_name = {p.name: p for p in params if p.name not in fixed}
    required = [name for name, p in by_name.items() if p.default is p.empty and name not in options]
    if required:
        example = ", ".join(f"{name}=..." for name in required)
        raise TypeError(f"method {method!r} needs the option(s) {', '.join(required)} (e.g. method={method!r}, "
                        f"{example})")
    for key, value in options.items():
        if key not in by_name:
            raise TypeError(_unknown_option_message(key, method, list(by_name), top_level))
        _check_annotated(key, value, by_name[key], method)


def _check_initial_wealth(policy: object) -> None:
    """Refuse an initial wealth that buys acceptances whatever the data.

    An alpha-wealth above 1 makes the first test's level ``w0 / 2`` at least 1/2 (at least
    1, i.e. accept whatever p, from ``w0 = 2``).  Information-investing counts its wealth
    in bits: there the first candidate enters whatever its statistic once the bid
    ``w0 / 2`` reaches ``2^w_delta``.
    """
    w0: Any = getattr(policy, "w0", None)  # duck-typed: any rule may name its parameters so
    if not _is_real(w0):
        return
    w_delta: Any = getattr(policy, "w_delta", None)
    if _is_real(w_delta):
        limit = 2.0 ** (1.0 + w_delta)
        if w0 >= limit:
            raise ValueError(f"w0 must be below 2^(1 + w_delta) = {limit:g} bits for information-investing, got "
                             f"{w0!r}: the first bid would pay for any candidate, whatever its statistic")
    elif w0 > 1:
        raise ValueError(f"w0 must be a number in (0, 1], got {w0!r}: the initial wealth is an error budget, "
                         "and a wealth above 1 lets the first tests pass whatever their p-value")


def check_method(method: object, options: dict[str, Any], top_level: tuple[str, ...] = ()) -> SearchMethod:
    """The :class:`~streamreg.search.method.SearchMethod` for ``method=`` and its keyword options.

    Unknown options are refused with the list of the method's valid ones; option types are
    checked against the constructor's annotations; the ranges are checked by the constructor.
    """
    from .search.methods import SearchMethod, resolve_method

    if not isinstance(method, (str, Policy, SearchMethod)):
        raise TypeError(f"method must be a name (e.g. 'alpha-investing') or a Policy / search method instance, "
                        f"got {_got(method)}")
    _check_method_options(method, options, top_level)
    searcher = resolve_method(method, **options)
    _check_initial_wealth(searcher.rule)
    return searcher
