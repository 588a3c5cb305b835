"""The refit on any rows: its model frame, its design with missing rows, predictions.

R's ``model.frame(fit)`` is the data the refit sees: the response and the columns its terms
refer to, generated columns (``pca()`` components) included.  :func:`model_frame` builds it
on the training rows or on new data, so that ``statsmodels.formula.api`` refits
``selected_formula`` on it and finds the same coefficients.

Rows of new data with a missing value in a column the model uses get NaN predictions, as
statsmodels' ``predict`` gives them, and so do rows on which a selected term is NaN or
infinite although its inputs are not (``np.log(x)`` where ``x <= 0``); the other rows are
predicted as usual.

An offset or exposure is part of the prediction, as in statsmodels' ``GLMResults.predict``:
on the refit's rows the model's own; on new data the values in the column it was given as
(``offset="col"``: a column the new data must have, as R's ``predict`` reads it), and
statsmodels' default (offset 0, exposure 1) when it was given as an array.
``predict(offset=, exposure=)`` overrides either, as statsmodels' ``GLMResults.predict`` takes them.

New data is a DataFrame, or a mapping of column names to values (:func:`as_newdata`).
:mod:`.predict_refit` calls statsmodels' ``predict`` and ``get_prediction`` on these rows.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..config import weight_array as _weight_array
from ..formula.dask_frame import is_dask_frame
from ..formula.lhs import response_data_columns
from ..formula.names import rhs_variables, text_labels
from ..validators import _is_real

if TYPE_CHECKING:
    from ..models.base import ObservationWeights
    from .record import FittedSelection, SelectedModel


def model_variables(model: SelectedModel) -> list[str]:
    """The columns the refit's terms refer to, in the order of the data (response excluded).

    Generated columns (``pca_1``, ...) are included: they are columns of the model frame.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    >>> df["y"] = df["a"] + rng.normal(size=80)
    >>> model_variables(sr.streamreg("y ~ c + stream(a, b)", df, w0=0.05, alpha_delta=0.05).selected_model)
    ['a', 'c']
    """
    train = model.train
    columns = set(train.columns)
    names = rhs_variables(model.rhs, columns)
    return [c for c in train.columns if c in names and c != model.response_name]


def _generated(model: SelectedModel) -> set[str]:
    derived = model.derived
    return set(derived.columns) if derived else set()


def _pca_maps(model: SelectedModel, used: set[str]) -> list:
    """The fitted maps of generated classes (pca(), ...) at least one of whose columns the model uses."""
    derived = model.derived
    return derived.used_by(used) if derived else []


def _weights(model: SelectedModel) -> ObservationWeights | None:
    """The refit's offset and weights (None for a model without any)."""
    w = model.weights
    return None if w.empty else w


def offset_columns(model: SelectedModel) -> list[str]:
    """Data columns holding the offset or exposure (new data need them to be predicted)."""
    w = _weights(model)
    if w is None:
        return []
    return list(dict.fromkeys(w.names[k] for k in ("offset", "exposure") if k in w.names))


def role_columns(model: SelectedModel) -> list[str]:
    """Data columns holding the offset, exposure or weights of the refit."""
    w = _weights(model)
    return [] if w is None else list(dict.fromkeys(w.names.values()))


def required_columns(model: SelectedModel) -> list[str]:
    """The columns new data must have: the model's variables, the sources of its components.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame(rng.normal(size=(100, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df["x1"] + df["x2"] + rng.normal(size=100)
    >>> fit = sr.streamreg("y ~ pca(x*, k=2)", df, w0=0.05, alpha_delta=0.05)
    >>> required_columns(fit.selected_model)
    ['x1', 'x2', 'x3']
    """
    used = model_variables(model)
    generated = _generated(model)
    need = {c for c in used if c not in generated} | set(offset_columns(model))
    for m in _pca_maps(model, set(used)):
        need |= set(m.columns)
    return [c for c in model.train.columns if c in need]


#: the scales of ``predict(which=)``, statsmodels' names
WHICH = ("mean", "linear")
#: columns named in full by the message refusing new data of the wrong type
_LISTED = 10


def _not_a_frame(model: SelectedModel, newdata: object) -> str:
    """Why ``newdata`` is refused, naming the columns it needs (an array has no names to match)."""
    need = required_columns(model)
    if is_dask_frame(newdata):  # its class is also called DataFrame: name it in full
        # not computed here: which rows fit in memory is the caller's call
        return (f"newdata is a dask.dataframe.DataFrame, and the rows must be in memory: pass "
                f"newdata[{need!r}].compute(), a pandas DataFrame of the columns the model uses")
    if not need:
        wanted = "a dict (the model uses no data column)"
    else:
        shown = ", ".join(need[:_LISTED])
        more = f", ... ({len(need)} columns)" if len(need) > _LISTED else ""
        wanted = f"a dict with the model's columns: {shown}{more}"
    return f"newdata must be a pandas DataFrame or {wanted}; got {type(newdata).__name__}"


def _mapping_frame(data: Mapping[Any, Any]) -> pd.DataFrame:
    """A new DataFrame from ``{column: values}``; scalars are repeated, as pandas does."""
    lengths: dict[Any, int] = {}
    for key, value in data.items():
        if isinstance(value, (str, bytes)):
            continue
        try:
            ndim = np.ndim(value)
        except ValueError:  # ragged nested lists
            ndim = -1
        if ndim == 0:
            continue
        if ndim != 1:
            raise ValueError(f"newdata[{key!r}] must be one-dimensional (one value per row), "
                             f"got {type(value).__name__} of {'ragged' if ndim < 0 else f'{ndim}-D'} shape")
        lengths[key] = len(value)
    if len(set(lengths.values())) > 1:
        sizes = ", ".join(f"{key!r} has {n}" for key, n in lengths.items())
        raise ValueError(f"the columns of newdata must have the same number of values: {sizes}")
    n = next(iter(lengths.values()), 1)  # only scalars: one row
    series = [v for v in data.values() if isinstance(v, pd.Series)]
    # Series keep their row labels when they agree on them; otherwise values count by position
    index = series[0].index if series and all(s.index.equals(series[0].index) for s in series) else pd.RangeIndex(n)
    columns = {k: v.set_axis(index) if isinstance(v, pd.Series) else v for k, v in data.items()}
    return pd.DataFrame(columns, index=index)  # copies: the caller's arrays are never written


def as_newdata(model: SelectedModel, newdata: object) -> pd.DataFrame | None:
    """``newdata`` as a DataFrame: a mapping of column names to values becomes a new one.

    Parameters
    ----------
    model : SelectedModel
        The selected model (its columns are named when ``newdata`` is refused).
    newdata : DataFrame, Mapping or None
        A ``dict`` (any mapping) ``{column: array-like or scalar}``, as R's ``predict``
        takes a ``list``; scalars are repeated on every row.  None is returned as it is, a
        DataFrame with its column labels as text (``str(label)``, as the fit named them).

    Returns
    -------
    DataFrame or None

    Raises
    ------
    TypeError
        For anything else, naming the columns the model needs.
    ValueError
        For a mapping whose values are not one-dimensional or differ in length.

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
    >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
    >>> as_newdata(fit.selected_model, {"x2": [0.5, 2.0]})
        x2
    0  0.5
    1  2.0
    """
    return None if newdata is None else as_frame(model, newdata)


def as_frame(model: SelectedModel, newdata: object) -> pd.DataFrame:
    """:func:`as_newdata` for methods that need new data (None is refused too)."""
    if isinstance(newdata, pd.DataFrame):
        return text_labels(newdata)  # integer labels as the fit named them ("1")
    if isinstance(newdata, Mapping):
        return text_labels(_mapping_frame(newdata))
    raise TypeError(_not_a_frame(model, newdata))


def linear_scale(linear: object = None, which: object = None) -> bool:
    """Whether ``predict`` gives the linear predictor, from ``linear=`` or statsmodels' ``which=``.

    Parameters
    ----------
    linear : bool, optional
        streamreg's keyword; False (the mean) when neither is given.
    which : {"mean", "linear"}, optional
        statsmodels' ``GLMResults.predict`` keyword.

    Raises
    ------
    TypeError
        When ``linear`` is not a boolean.
    ValueError
        For another ``which``, or ``linear`` and ``which`` asking for different scales.

    Examples
    --------
    >>> linear_scale(which="linear"), linear_scale(linear=True, which="linear"), linear_scale()
    (True, True, False)
    """
    if linear is not None and not isinstance(linear, (bool, np.bool_)):
        raise TypeError(f"linear must be True or False, got {linear!r}")
    if which is None:
        return bool(linear)
    if not isinstance(which, str) or which not in WHICH:
        raise ValueError(f"which must be 'mean' or 'linear' (statsmodels' names), got {which!r}")
    wanted = which == "linear"
    if linear is not None and bool(linear) != wanted:
        raise ValueError(f"linear={bool(linear)} and which={which!r} ask for different scales; pass only one of them")
    return wanted


def check_newdata(model: SelectedModel, newdata: object) -> None:
    """Refuse new data that is not a DataFrame or lacks a column the model needs."""
    if not isinstance(newdata, pd.DataFrame):
        raise TypeError(_not_a_frame(model, newdata))
    missing = [c for c in required_columns(model) if c not in newdata.columns]
    if missing:
        raise ValueError(f"newdata lacks the column(s) {missing} used by the selected model")


def model_frame(model: SelectedModel, newdata: pd.DataFrame | None = None) -> pd.DataFrame:
    """The response (when present) and the model's variables, generated columns included.

    Parameters
    ----------
    model : SelectedModel
    newdata : DataFrame, optional
        Rows to build the frame on; the refit's rows when None.  Rows are kept as they are,
        missing values included (statsmodels' formula API drops such rows itself).

    Returns
    -------
    DataFrame
        On the rows of ``newdata`` (or the refit's rows), with the response first, and last
        the columns given as ``offset=``, ``exposure=``, ``freq_weights=`` or
        ``var_weights=`` (those present in ``newdata``), so that
        ``smf.glm(fit.selected_formula, frame, offset=frame[col], ...)`` refits the model.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(100, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df["x1"] + df["x2"] + rng.normal(size=100)
    >>> fit = sr.streamreg("y ~ pca(x*, k=2)", df, w0=0.05, alpha_delta=0.05)
    >>> fit.selected_formula
    'y ~ 1 + pca_1 + pca_2'
    >>> list(model_frame(fit.selected_model).columns)
    ['y', 'pca_1', 'pca_2']
    """
    used = model_variables(model)
    response = model.response_name
    if newdata is None:
        source = model.train
        columns = response_data_columns(response, source.columns) + used  # a column, or an expression's
        columns += [c for c in role_columns(model) if c in source.columns and c not in columns]
        return source.loc[:, columns].copy()
    check_newdata(model, newdata)
    generated = _generated(model)
    plain = [c for c in used if c not in generated]
    head = [c for c in response_data_columns(response, newdata.columns) if c not in plain]
    out = newdata.loc[:, head + plain].copy()
    wanted = set(used)
    for m in _pca_maps(model, wanted):
        scores = m.transform(newdata)
        for j, name in enumerate(m.names):
            if name in wanted:
                out[name] = scores[:, j]
    roles = [c for c in role_columns(model) if c in newdata.columns and c not in head + used]
    for c in roles:
        out[c] = newdata[c]
    return out.loc[:, head + used + roles]


def complete_rows(model: SelectedModel, newdata: pd.DataFrame) -> np.ndarray:
    """True for the rows of ``newdata`` without a missing value in the columns the model needs."""
    need = required_columns(model)
    if not need:
        return np.ones(len(newdata), dtype=bool)
    return ~newdata.loc[:, need].isna().any(axis=1).to_numpy()


def design_rows(res: FittedSelection, newdata: pd.DataFrame | None) -> pd.DataFrame:
    """The refit's design on ``newdata`` (the refit's rows when None); incomplete rows are NaN,
    and so are rows with a NaN or infinite term."""
    model, names = res.selected_model, list(res.fit.params.index)
    if newdata is None:
        exog = np.asarray(res.fit.model.exog, dtype=float)
        return pd.DataFrame(exog, index=model.train.index, columns=names)
    check_newdata(model, newdata)
    ok = complete_rows(model, newdata)
    if ok.all():
        return model.design(newdata, "nan")
    full = np.full((len(newdata), len(names)), np.nan)
    if ok.any():
        full[ok] = model.design(newdata.iloc[np.flatnonzero(ok)], "nan").to_numpy(dtype=float)
    return pd.DataFrame(full, index=newdata.index, columns=names)


def _given_offset(model: SelectedModel, name: str, value: Any, newdata: pd.DataFrame | None) -> np.ndarray:
    """An ``offset=`` / ``exposure=`` passed to ``predict``: a column of the rows predicted, or values."""
    rows = model.train if newdata is None else newdata
    n = len(rows)
    if isinstance(value, str):
        if value not in rows.columns:
            where = "the training data" if newdata is None else "newdata"
            raise ValueError(f"{name}={value!r} is not a column of {where}")
        return _weight_array(name, rows[value], f" (column {value!r})")
    return offset_values(name, value, n)


def offset_values(name: str, value: Any, n: int) -> np.ndarray:
    """An ``offset=`` / ``exposure=`` given as values for ``n`` rows: one per row, or a number for all."""
    if np.ndim(value) == 0 and _is_real(value):
        value = np.full(n, float(value))
    arr = _weight_array(name, value)
    if len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} values but {n} rows are predicted")
    return arr


#: why ``offset=`` / ``exposure=`` are refused by ``predict`` of a least-squares refit
NO_OFFSET = ("offset= and exposure= apply to models fitted with an offset or exposure, or with a non-Gaussian "
             "family; this least-squares fit has neither (refit with offset= to use one)")


def offsets(res: FittedSelection, newdata: pd.DataFrame | None, *, offset: Any = None,
            exposure: Any = None) -> dict[str, np.ndarray]:
    """``offset=`` / ``exposure=`` for statsmodels' ``predict`` on ``newdata`` (the refit's rows if None).

    Values given here (an array, a number or a column name) are used as statsmodels'
    ``GLMResults.predict(exog, offset=, exposure=)`` uses them.  Otherwise: the model's own
    on its rows; on new data, the values of the column the option named (NaN where missing:
    those rows are predicted as NaN), else none (statsmodels' default: offset 0, exposure 1).
    """
    model = res.selected_model
    if newdata is not None:
        check_newdata(model, newdata)  # before its offset column is read
    given = {"offset": offset, "exposure": exposure}
    w = _weights(model)
    if any(v is not None for v in given.values()) and not isinstance(res.fit.model, sm.GLM):
        raise ValueError(NO_OFFSET)
    out: dict[str, np.ndarray] = {}
    for name in ("offset", "exposure"):
        if given[name] is not None:
            out[name] = _given_offset(model, name, given[name], newdata)
            continue
        values = None if w is None else getattr(w, name)
        if values is None:
            continue
        if newdata is None:
            out[name] = values
        elif w is not None and name in w.names:
            column = pd.to_numeric(newdata[w.names[name]], errors="coerce").to_numpy(dtype=float)
            if name == "exposure":
                with np.errstate(invalid="ignore", divide="ignore"):  # statsmodels takes its log
                    column = np.where(column > 0, column, np.nan)
            out[name] = column
    return out


def linear_offset(res: FittedSelection, newdata: pd.DataFrame | None, **given: Any) -> np.ndarray | None:
    """What the linear predictor adds on these rows, ``offset + log(exposure)`` (None if neither)."""
    parts = offsets(res, newdata, **given)
    if not parts:
        return None
    total = np.zeros(len(next(iter(parts.values()))))
    if "offset" in parts:
        total = total + parts["offset"]
    if "exposure" in parts:
        total = total + np.log(parts["exposure"])
    return total
