"""The response of ``select()`` as given (an array, a Series, two levels as text): its name, its
values as floats and the success level, or a clear refusal."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .config import check_response
from .formula.design import binomial_response, check_successes, numeric_binomial
from .models import spec_of

__all__ = ["response_vector"]


def response_vector(y: Any, family: Any, trials: np.ndarray | None = None) -> tuple[str, np.ndarray, object | None]:
    """The response's name, its values as floats and the success level of a two-level
    binomial response given as text or categories (None otherwise), refused when unusable.

    Raises ValueError for a response that is not one-dimensional, numeric and finite, or
    that the family cannot model (see :func:`~streamreg.config.check_response`).  With
    ``trials`` (``var_weights``) a binomial response may be proportions of whole successes.
    """
    name = None if type(y).__module__.startswith("dask.array") else getattr(y, "name", None)  # a dask key
    yname = "y" if name is None or name == "" else str(name)
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"y must be an array-like of numbers, got {type(y).__name__}")
    try:
        yv = np.asarray(y)
    except ValueError:  # ragged nested lists
        raise ValueError("y must be a one-dimensional array of numbers") from None
    if yv.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {yv.shape}")
    if len(yv) == 0:
        raise ValueError("y is empty: it has no rows")
    binary = spec_of(family).response == "binary"  # 0/1, proportions, or two levels coded
    if binary and yv.dtype.kind in "OUS":
        # two levels as text or categories: coded as streamreg() codes them (R's glm: first level failure)
        series = y.reset_index(drop=True) if isinstance(y, pd.Series) else pd.Series(list(yv), dtype=object)
        missing = np.flatnonzero(series.isna().to_numpy())
        if missing.size:
            raise ValueError(f"y contains missing values ({missing.size}, the first at position {missing[0]}); "
                             "drop those rows first")
        coded, _, success = binomial_response(series, yname)
        return yname, coded, success
    if yv.dtype.kind in "mMc":  # datetime, timedelta and complex would convert to float silently
        raise ValueError(f"y must be numeric (0/1 or boolean for family='binomial'), got dtype {yv.dtype}")
    try:
        yv = yv.astype(float)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric (0/1 or boolean for family='binomial')") from None
    bad = np.flatnonzero(~np.isfinite(yv))
    if bad.size:
        raise ValueError(f"y contains NaN or infinite values ({bad.size}, the first at position {bad[0]}); "
                         "drop those rows first")
    if binary:
        numeric_binomial(yv, yname, grouped=trials is not None)
        check_successes(yv, family, trials, yname)  # a length mismatch is reported by observation_weights
    check_response(yv, family, yname)
    return yname, yv, None
