"""The response, checked once the rows are known: a response that leaves nothing to select
(constant, or a binomial response with one class) or that the family cannot model (negative
counts, a non-positive gamma response) is refused here, before the model states would fail
with messages about the fixed terms.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..models import spec_of


def _format_value(v: float) -> str:
    return f"{v:g}" if math.isfinite(v) else repr(v)


def check_response(y: np.ndarray, family: Any, name: str) -> None:
    """Refuse a response that leaves nothing to select or that the family cannot model.

    Parameters
    ----------
    y : ndarray
        The response on the rows used (0/1 for the binomial family).
    family : statsmodels family
    name : str
        The response's name, for the messages.
    """
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError(f"the response {name!r} has no values")
    lo, hi = float(np.min(y)), float(np.max(y))
    response = spec_of(family).response  # what the family's response must be
    if response == "binary" and lo == hi and lo in (0.0, 1.0):
        raise ValueError(f"the binomial response {name!r} has a single class: every row is {_format_value(lo)}; "
                         "both classes are needed to select anything")
    # rounding noise on a constant (e.g. 0.1 + 0.2 - 0.3) is constant too
    if hi - lo <= 8 * np.finfo(float).eps * max(abs(lo), abs(hi)):
        raise ValueError(f"the response {name!r} is constant (every value is {_format_value(lo)}): "
                         "there is nothing for the candidates to explain")
    if response == "counts" and lo < 0:
        n_neg = int((y < 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be non-negative counts; {name!r} has "
                         f"{n_neg} negative value(s) (smallest {_format_value(lo)})")
    if response == "positive" and lo <= 0:
        n_bad = int((y <= 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be positive; {name!r} has {n_bad} value(s) "
                         f"<= 0 (smallest {_format_value(lo)})")
