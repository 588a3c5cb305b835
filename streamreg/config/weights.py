"""Offsets and weights (``offset=``, ``exposure=``, ``freq_weights=``, ``var_weights=``):
their types, signs and missing values when the options are checked, their length and the data
columns they name once the rows are known (statsmodels' names and meanings).
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..models.base import ObservationWeights
from ..validators import _got, _is_real, as_numbers

#: the offset and weight options (statsmodels' ``GLM`` keywords), in the order they are reported
WEIGHT_OPTIONS = ObservationWeights.FIELDS

_WEIGHT_MEANING = {
    "offset": "added to the linear predictor",
    "exposure": "log(exposure) added to the linear predictor",
    "freq_weights": "counts of identical observations",
    "var_weights": "prior weights dividing the variance",
}


def weight_array(name: str, value: Any, where: str = "") -> np.ndarray:
    """A weight or offset option as a one-dimensional float array, its values checked.

    NaN and infinite values are refused (drop or fill those rows first), and so are an
    ``exposure`` that is not positive, negative ``freq_weights`` (zero drops a row) and
    ``var_weights`` that are not positive.  ``where`` names a data column in the messages.
    The same check serves the options and the weights given to ``predict`` on new data.
    """
    label = f"{name}{where}"
    try:
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{label} must be a one-dimensional array of numbers") from None
    numbers = as_numbers(arr)
    if numbers is None:
        raise ValueError(f"{label} must be numeric ({_WEIGHT_MEANING[name]}), got dtype {arr.dtype}")
    arr = numbers
    if arr.ndim != 1:
        raise ValueError(f"{label} must be one-dimensional (one value per observation), got shape {arr.shape}")
    arr = arr.astype(float)
    bad = np.flatnonzero(np.isnan(arr))
    if bad.size:
        raise ValueError(f"{label} has {bad.size} missing (NaN) value(s), the first at position {bad[0]}; drop "
                         "those rows or fill the values first")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{label} has {bad.size} infinite value(s), the first at position {bad[0]}")
    if name == "exposure" and (arr <= 0).any():
        at = int(np.argmax(arr <= 0))
        raise ValueError(f"{label} must be positive (log(exposure) is added to the linear predictor); got "
                         f"{arr[at]:g} at position {at}")
    if name == "var_weights" and (arr <= 0).any():
        at = int(np.argmax(arr <= 0))
        zero = "; drop the rows of weight zero instead" if arr[at] == 0 else ""
        raise ValueError(f"{label} must be positive (they divide the variance of an observation); got "
                         f"{arr[at]:g} at position {at}{zero}")
    if name == "freq_weights":
        if (arr < 0).any():
            at = int(np.argmax(arr < 0))
            raise ValueError(f"{label} must be non-negative counts of observations; got {arr[at]:g} at position {at}")
        if arr.size and not (arr > 0).any():
            raise ValueError(f"{label} are all zero: no observation is counted")
    return arr


def check_weight_options(options: Mapping[str, Any], family: Any, *, entry: str = "streamreg") -> dict[str, Any]:
    """The offset and weight options given, checked before the data are read.

    Parameters
    ----------
    options : mapping
        ``offset``, ``exposure``, ``freq_weights``, ``var_weights`` (None when not given).
        Each is a data column name (:func:`~streamreg.streamreg` only) or an array with one
        value per observation, with statsmodels' meanings (``sm.GLM``).
    family : statsmodels family
        ``exposure`` needs a log link (statsmodels refuses it otherwise).
    entry : {"streamreg", "select"}

    Returns
    -------
    dict
        Option name -> column name (str) or float array (values checked, length not yet).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> check_weight_options({"offset": [0.0, 1.0], "exposure": None}, sm.families.Poisson())
    {'offset': array([0., 1.])}
    >>> check_weight_options({"exposure": [1.0, 0.0]}, sm.families.Poisson())
    Traceback (most recent call last):
        ...
    ValueError: exposure must be positive (log(exposure) is added to the linear predictor); got 0 at position 1
    """
    out: dict[str, Any] = {}
    for name in WEIGHT_OPTIONS:
        value = options.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            if entry != "streamreg":
                raise TypeError(f"{name} must be an array with one value per observation in select(); column "
                                f"names ({name}={value!r}) refer to the data of a streamreg() formula call")
            out[name] = value
            continue
        if isinstance(value, (bytes, Mapping)) or not np.iterable(value) or _is_real(value):
            raise TypeError(f"{name} must be {'a column name of the data or ' if entry == 'streamreg' else ''}"
                            f"an array with one value per observation, got {_got(value)}")
        out[name] = weight_array(name, value)
    if "offset" in out and "exposure" in out:
        raise ValueError("pass offset= or exposure=, not both: exposure enters as log(exposure) added to the "
                         "linear predictor, so add np.log(exposure) to the offset instead")
    if "exposure" in out and not isinstance(family.link, sm.families.links.Log):
        raise ValueError(f"exposure= needs a log link (log(exposure) is added to the linear predictor); the "
                         f"{type(family).__name__.lower()} family here has the {type(family.link).__name__} link: "
                         "pass offset= instead")
    return out


def observation_weights(specs: Mapping[str, Any] | None, n: int, frame: pd.DataFrame | None = None,
                        rows: np.ndarray | None = None) -> ObservationWeights:
    """The checked options as :class:`~streamreg.models.base.ObservationWeights` on the rows used.

    Parameters
    ----------
    specs : mapping
        :func:`check_weight_options`' result (``Options.weights``).
    n : int
        Rows of the data (or observations of ``y`` in :func:`~streamreg.select`): an array
        must have this length.
    frame : DataFrame, optional
        Where column names are looked up, on the rows used.
    rows : array of positions, optional
        The rows used (after missing values were dropped or a sample held out): the
        arrays are cut to them.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> specs = {"offset": "t", "var_weights": np.array([1.0, 2.0, 3.0])}
    >>> w = observation_weights(specs, 3, pd.DataFrame({"t": [0.0, 2.0]}), rows=np.array([0, 2]))
    >>> w.offset, w.var_weights, w.names
    (array([0., 2.]), array([1., 3.]), {'offset': 't'})
    >>> observation_weights({"var_weights": np.ones(2)}, 3)
    Traceback (most recent call last):
        ...
    ValueError: var_weights has 2 values, but the data have 3 rows
    """
    if not specs:
        return ObservationWeights()
    values: dict[str, np.ndarray] = {}
    names: dict[str, str] = {}
    for name, spec in specs.items():
        if isinstance(spec, str):
            check_weight_column(name, spec, frame)
            assert frame is not None  # refused above otherwise
            values[name] = weight_array(name, frame[spec], where=f" (column {spec!r})")
            names[name] = spec
        else:
            if len(spec) != n:
                raise ValueError(f"{name} has {len(spec)} values, but the data have {n} rows")
            values[name] = spec if rows is None else spec[rows]
    return ObservationWeights(**values, names=names)


def check_weight_column(name: str, column: str, data: pd.DataFrame | None) -> None:
    """Refuse a column name given for ``name`` that is not a column of ``data``."""
    if data is None or column not in data.columns:
        columns = [] if data is None else [str(c) for c in data.columns]
        close = difflib.get_close_matches(column, columns, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"{name}={column!r} is not a column of the data{hint}")
