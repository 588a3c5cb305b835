"""statsmodels' ``predict`` and ``get_prediction`` of the refit, called as a formula fit would be.

``smf.glm(formula, data).fit().get_prediction(newdata)`` builds the design of ``newdata``
through the formula (``transform=True``) and returns statsmodels' prediction results; with
``transform=False`` ``newdata`` is the design matrix itself.  The refit is fitted on a design
built by :mod:`streamreg.formula` rather than by a statsmodels formula, so the design of new
rows comes from :func:`~.prediction.design_rows` (incomplete rows NaN), and then the refit's
own ``predict`` / ``get_prediction`` run on it: the objects and numbers are statsmodels'.

``which`` is passed on as statsmodels takes it: for a GLM ``get_prediction()`` without
``which`` returns the results class with ``summary_frame()`` columns ``mean``, ``mean_se``,
``mean_ci_lower``, ``mean_ci_upper``, and ``which="mean"`` or ``"linear"`` the newer class
(``predicted``, ``se``, ``ci_lower``, ``ci_upper``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import statsmodels.api as sm

from .prediction import NO_OFFSET, design_rows, linear_scale, offset_values, offsets

if TYPE_CHECKING:
    from .record import FittedSelection


def check_transform(transform: object) -> bool:
    """``transform`` as statsmodels takes it: True (new data through the formula) or False (a design).

    Examples
    --------
    >>> check_transform(False)
    False
    >>> check_transform("no")
    Traceback (most recent call last):
        ...
    TypeError: transform must be True or False, got 'no'
    """
    if not isinstance(transform, (bool, np.bool_)):
        raise TypeError(f"transform must be True or False, got {transform!r}")
    return bool(transform)


def statsmodels_which(linear: object = None, which: object = None) -> str | None:
    """The ``which=`` to pass to statsmodels' ``get_prediction``: None unless a scale was asked for.

    ``linear=True`` is ``which="linear"``; conflicting or unknown values are refused as by
    :func:`~.prediction.linear_scale`.

    Examples
    --------
    >>> statsmodels_which(), statsmodels_which(which="mean"), statsmodels_which(linear=True)
    (None, 'mean', 'linear')
    """
    linear_scale(linear, which)  # refuses bad values and conflicts
    if which is not None:
        return str(which)
    return "linear" if linear else None


def given_design(res: FittedSelection, exog: object) -> pd.DataFrame:
    """``newdata`` given with ``transform=False``: the design matrix, one column per coefficient.

    As statsmodels takes ``exog``: a 2-D array or DataFrame (used by position, its row labels
    kept), or one row as a 1-D array (one column when the model has a single coefficient).

    Raises
    ------
    TypeError
        For values that are not numbers.
    ValueError
        For a design without one column per coefficient.
    """
    names = [str(c) for c in res.fit.params.index]
    k = len(names)
    index = exog.index if isinstance(exog, pd.DataFrame) else None
    try:
        arr = np.asarray(exog, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"with transform=False newdata is the design matrix, numbers in {k} column(s) "
                        f"({', '.join(names)}); got {type(exog).__name__}") from None
    if arr.ndim == 1:
        arr = arr[:, None] if k == 1 else arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != k:
        raise ValueError(f"with transform=False newdata is the design matrix, as fit.design(newdata) gives it: "
                         f"{k} column(s) ({', '.join(names)}) per row; got shape {arr.shape}")
    return pd.DataFrame(arr, index=pd.RangeIndex(len(arr)) if index is None else index, columns=names)


def _design_offsets(res: FittedSelection, n: int, offset: Any, exposure: Any) -> dict[str, np.ndarray]:
    """``offset=`` / ``exposure=`` for a given design: only values (no data columns to read them from)."""
    given = {"offset": offset, "exposure": exposure}
    if all(v is None for v in given.values()):
        return {}
    if not isinstance(res.fit.model, sm.GLM):
        raise ValueError(NO_OFFSET)  # noqa: TRY004 -- as predict() on data columns says it
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, str):  # a wrong value of a valid option: ValueError, as predict() gives
            raise ValueError(  # noqa: TRY004
                f"{name}={value!r} names a column of new data, but with transform=False newdata is the "
                f"design matrix: pass the {name} values")
        out[name] = offset_values(name, value, n)
    return out


def _rows(res: FittedSelection, newdata: object, transform: bool, offset: Any,
          exposure: Any) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """The design of the rows to predict and the offset / exposure statsmodels is to add."""
    if newdata is not None and not transform:
        x = given_design(res, newdata)
        return x, _design_offsets(res, len(x), offset, exposure)
    frame = newdata if isinstance(newdata, pd.DataFrame) or newdata is None else None
    if newdata is not None and frame is None:  # pragma: no cover -- the methods convert new data first
        raise TypeError(f"newdata must be a DataFrame, got {type(newdata).__name__}")
    extra = offsets(res, frame, offset=offset, exposure=exposure)
    return design_rows(res, frame), extra


def predict_values(res: FittedSelection, newdata: object, *, linear: bool, transform: bool = True,
                   offset: Any = None, exposure: Any = None) -> pd.Series:
    """The predicted mean (or linear predictor) on ``newdata``; NaN on incomplete rows.

    ``newdata`` is a DataFrame of data columns (``transform=True``), the design matrix
    (``transform=False``), or None for the refit's rows.  An offset or exposure is added to
    the linear predictor (see :func:`~.prediction.offsets`).
    """
    x, extra = _rows(res, newdata, transform, offset, exposure)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # exp overflow saturates; NaN rows stay NaN
        if not isinstance(res.fit.model, sm.GLM):  # least squares: the mean is the linear predictor
            pred = np.asarray(res.fit.predict(x.to_numpy()))
        else:
            pred = np.asarray(res.fit.predict(x.to_numpy(), which="linear" if linear else "mean", **extra))
    return pd.Series(pred, index=x.index, name="prediction")


def get_prediction(res: FittedSelection, newdata: object, *, which: str | None = None, transform: bool = True,
                   offset: Any = None, exposure: Any = None) -> Any:
    """statsmodels' prediction results of the refit on ``newdata`` (rows labelled by its index).

    Least squares: statsmodels' ``PredictionResults`` (mean and observation intervals).
    GLMs: ``get_prediction(which=which)`` -- without ``which`` statsmodels' default class
    (columns ``mean``, ``mean_se``, ...), with ``which="mean"`` or ``"linear"`` its newer one.
    Least squares refit as a Gaussian GLM (with an offset or frequency weights) gives the
    GLM's prediction results; an offset or exposure enters as in :func:`predict_values`.
    """
    x, extra = _rows(res, newdata, transform, offset, exposure)
    labels = list(x.index)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if not isinstance(res.fit.model, sm.GLM):  # OLS and WLS: no which (the mean is the linear predictor)
            return res.fit.get_prediction(x.to_numpy(), row_labels=labels)
        scale = {} if which is None else {"which": which}
        return res.fit.get_prediction(x.to_numpy(), row_labels=labels, **scale, **extra)
