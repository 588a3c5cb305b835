"""Checks of single option values: the shared vocabulary of :mod:`streamreg.config`, of
:mod:`streamreg.search` and of the methods' constructors (a positive integer, a number in a
range, one of some choices), each refusing a bad value with a message that names the option.

It also holds the *kinds* a rule or search method declares for its keyword options
(``OPTION_KINDS``, e.g. ``{"w0": (NUMBER,)}``): the option checks refuse a value of another
kind with a message that names the method (:func:`check_kind`), the command line converts its
flags by them, and the constructor checks the range.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _got(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


#: the kinds of a method option: a real number (integers included), an integer, a string,
#: True or False, None, a sequence of numbers
NUMBER, INTEGER, TEXT, FLAG, NONE, NUMBERS = "number", "integer", "text", "flag", "none", "numbers"
#: how a message names each kind, in the order it lists them
KIND_WORDS = {NUMBER: "a number", INTEGER: "an integer", TEXT: "a string", FLAG: "True or False", NONE: "None",
              NUMBERS: "a sequence of numbers"}


def _is_kind(value: object, kind: str) -> bool:
    if kind == NUMBER:
        return _is_real(value)
    if kind == INTEGER:
        return _is_int(value)
    if kind == TEXT:
        return isinstance(value, str)
    if kind == FLAG:
        return isinstance(value, (bool, np.bool_))
    if kind == NONE:
        return value is None
    return bool(np.iterable(value)) and not isinstance(value, (str, bytes, Mapping))  # NUMBERS


def check_kind(name: str, value: Any, kinds: Collection[str], owner: str) -> None:
    """Refuse an option ``name`` of method ``owner`` whose value is none of the declared ``kinds``.

    An empty ``kinds`` accepts anything (the constructor decides).  A real number must also be
    finite.  The range is the constructor's business.

    Examples
    --------
    >>> check_kind("w0", 0.1, (NUMBER,), "alpha-investing")
    >>> check_kind("w0", "0.1", (NUMBER,), "alpha-investing")
    Traceback (most recent call last):
        ...
    TypeError: option w0 of method 'alpha-investing' must be a number, got '0.1' (str)
    >>> check_kind("cv", 2.5, (INTEGER, NONE), "grafting")
    Traceback (most recent call last):
        ...
    TypeError: option cv of method 'grafting' must be an integer or None, got 2.5 (float)
    """
    if not kinds:
        return
    unknown = set(kinds) - set(KIND_WORDS)
    if unknown:
        raise ValueError(f"unknown option kind(s) {sorted(unknown)}; kinds: {list(KIND_WORDS)}")
    if not any(_is_kind(value, kind) for kind in kinds):
        wanted = " or ".join(words for kind, words in KIND_WORDS.items() if kind in kinds)
        raise TypeError(f"option {name} of method {owner!r} must be {wanted}, got {_got(value)}")
    if _is_real(value) and not math.isfinite(value):
        raise ValueError(f"option {name} of method {owner!r} must be finite, got {value!r}")


def as_numbers(arr: np.ndarray) -> np.ndarray | None:
    """``arr`` as numbers (booleans, integers and floats as they are, others as floats), or
    None when its values are not numbers (dates, time spans, complex numbers, text)."""
    if arr.dtype.kind in "biuf":
        return arr
    if arr.dtype.kind in "mMcUS":
        return None
    try:
        return arr.astype(float)
    except (TypeError, ValueError):
        return None


def check_count(name: str, value: Any, *, minimum: int = 1, allow_none: bool = True,
                allow_inf: bool = False) -> int | None:
    """An integer ``>= minimum`` (or None / ``math.inf`` where allowed, returned as None)."""
    if value is None and allow_none:
        return None
    if allow_inf and _is_real(value) and value == math.inf:
        return None
    if not _is_int(value):
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise TypeError(f"{name} must be {kind}{' or None' if allow_none else ''}, got {_got(value)}")
    if value < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return int(value)


def check_bool(name: str, value: object) -> bool:
    """True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_got(value)}")
    return bool(value)


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    """``value`` if it is one of ``choices``; else ValueError naming the option and the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_integer(name: str, value: Any, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """A method parameter: an integer ``>= minimum`` (or None where allowed); ValueError otherwise."""
    if value is None and allow_none:
        return None
    if not _is_int(value) or value < minimum:
        kind = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
        raise ValueError(f"{name} must be {kind}{' or None' if allow_none else ''}, got {value!r}")
    return int(value)


def check_number(name: str, value: Any, *, low: float = 0.0, high: float = math.inf, open_low: bool = False,
                 open_high: bool = True, what: str = "") -> float:
    """A method parameter: a real number in ``[low, high)`` (ends as given); ValueError otherwise.

    ``what`` replaces the interval in the message (e.g. ``"a finite non-negative number"``).
    """
    if not (_is_real(value) and (value > low if open_low else value >= low)
            and (value < high if open_high else value <= high)):  # NaN fails every comparison
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        raise ValueError(f"{name} must be {what or 'in ' + interval}, got {value!r}")
    return float(value)


#: stray text is at most this share of a column's values (more: a factor, or text meant as such)
_STRAY_SHARE = 0.05
#: and the numbers take at least this many distinct values (fewer: maybe codes of a factor)
_MIN_NUMBERS = 10


def stray_text(series: pd.Series) -> tuple[Any, Any, int] | None:
    """(first text value, its row label, how many) when ``series`` is numbers with a little text."""
    values = series.dropna()
    if values.empty:
        return None
    numbers = pd.to_numeric(values, errors="coerce")
    text = numbers.isna().to_numpy()
    count = int(text.sum())
    if count == 0 or count > _STRAY_SHARE * len(values) or numbers.nunique() < _MIN_NUMBERS:
        return None
    first = int(np.argmax(text))
    value = values.iloc[first]
    return (value.item() if isinstance(value, np.generic) else value), values.index[first], count
