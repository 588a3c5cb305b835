"""What the online rule modules share: parameter checks and the ``p <= level`` test.

Decisions use ``p <= level`` (onlineFDR's convention), evaluated as ``log p <= log level``
so that p-values far below the smallest double still compare.
"""
from __future__ import annotations

import math

import numpy as np

from ..outcomes import TestOutcomes

#: the caveat every online FDR guarantee carries inside a streamwise search
HEURISTIC = (
    "Streamwise p-values come from nested fits to one response and are not independent, "
    "so this claim is heuristic here."
)


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float, or ValueError unless it lies in (0, 1)."""
    if not (isinstance(alpha, (int, float, np.floating)) and 0 < alpha < 1):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return float(alpha)


def check_w0(w0: float, upper: float, strict: bool, bound_name: str) -> float:
    """``w0`` as a float, or ValueError unless ``0 <= w0 <= upper`` (``< upper`` if strict)."""
    if not (isinstance(w0, (int, float, np.floating)) and math.isfinite(w0)):
        raise ValueError(f"w0 must be a finite number, got {w0!r}")
    if w0 < 0:
        raise ValueError(f"w0 must be non-negative, got {w0!r}")
    if (w0 >= upper) if strict else (w0 > upper):
        relation = "less than" if strict else "at most"
        raise ValueError(f"w0 must be {relation} {bound_name} = {upper:g}, got {w0!r}")
    return float(w0)


def check_wealth_budget(w0: float) -> None:
    """Refuse an alpha-wealth above 1, which buys acceptances whatever the data.

    The first test's level is ``w0 / 2`` under alpha-investing: at least 1/2 above 1, and at
    least 1 (accept whatever the p-value) from ``w0 = 2``.
    """
    if w0 > 1:
        raise ValueError(f"w0 must be a number in (0, 1], got {w0!r}: the initial wealth is an error budget, "
                         "and a wealth above 1 lets the first tests pass whatever their p-value")


def exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    """``out[i] = x[0] + ... + x[i-1]`` (integers)."""
    out = np.zeros(x.size, dtype=np.int64)
    if x.size > 1:
        np.cumsum(x[:-1], out=out[1:])
    return out


def log_leq(log_p: np.ndarray, level: np.ndarray) -> np.ndarray:
    """``p <= level`` on the log scale (a zero level accepts only ``p == 0``)."""
    with np.errstate(divide="ignore"):
        return log_p <= np.log(level)


def screened_accept(outcomes: TestOutcomes, level: np.ndarray) -> np.ndarray:
    """``p <= level``, computing exact p-values only where they can beat the largest level."""
    if level.size == 0:
        return np.zeros(0, dtype=bool)
    top = float(level.max())
    log_p = outcomes.log_p_screened(math.log(top)) if top > 0 else outcomes.log_p
    return log_leq(log_p, level)
