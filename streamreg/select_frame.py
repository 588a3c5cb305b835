"""The frame :func:`streamreg.select` refits: the response, the ``fixed=`` columns and the
selected candidates, by name (the formula path builds its own in :mod:`.formula.design`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .formula.checks import check_fixed_columns
from .formula.matrices import design_matrix, plain_names
from .formula.names import term_name
from .streams.base import AcceptedTerm
from .validators import as_numbers


def fixed_frame(fixed: Any, yname: str, yv: np.ndarray) -> pd.DataFrame:
    """The response and the ``fixed=`` columns as one frame (response first), checked.

    Arrays become columns ``fixed0, fixed1, ...``; a DataFrame keeps its column names
    (non-numeric columns are factors).  The caller's objects are never modified.
    """
    n = len(yv)
    frame = pd.DataFrame({yname: yv})
    if fixed is None:
        return frame
    if isinstance(fixed, pd.Series):
        fixed = fixed.to_frame(name="fixed0" if fixed.name is None else str(fixed.name))
    if isinstance(fixed, pd.DataFrame):
        fx = fixed.reset_index(drop=True)  # a new frame: the caller's keeps its index
        fx.columns = [str(c) for c in fx.columns]
    else:
        fx = fixed_array_frame(fixed, n)
    if len(fx) != n:
        raise ValueError(f"fixed has {len(fx)} rows, y has {n}")
    if fx.columns.duplicated().any():
        dup = list(fx.columns[fx.columns.duplicated()].unique())
        raise ValueError(f"fixed has duplicated column names {dup}; column names must be unique")
    if yname in fx.columns:
        raise ValueError(f"fixed column {yname!r} has the name of the response; rename one of them "
                         "(a Series y is named by its .name)")
    check_fixed_columns(fx, list(fx.columns), allow_missing=False)
    return pd.concat([frame, fx], axis=1)


def fixed_design(intercept_only: bool, rhs: str, frame: pd.DataFrame, intercept: bool) -> tuple[np.ndarray, list[str]]:
    """The fixed terms' design as values and column names: the formula ``rhs`` on ``frame``,
    or with no ``fixed=`` columns (``intercept_only``) the intercept column that formula
    gives (or no column), without building a frame for it."""
    if intercept_only:
        return np.ones((len(frame), int(intercept))), ["Intercept"] * int(intercept)
    x = design_matrix(rhs, frame, frame)
    return x.to_numpy(dtype=float), list(x.columns)


def fixed_array_frame(fixed: Any, n: int) -> pd.DataFrame:
    """``fixed=`` given as an array: a numeric n-vector or n x k matrix."""
    if isinstance(fixed, (str, bytes, Mapping)) or not np.iterable(fixed):
        raise TypeError(f"fixed must be an array or a DataFrame, got {type(fixed).__name__}")
    try:
        arr = np.asarray(fixed)
    except ValueError:  # ragged nested lists
        raise ValueError("fixed must be a rectangular array (or a DataFrame)") from None
    if arr.ndim not in (1, 2):
        raise ValueError(f"fixed must be a vector or a matrix with one row per observation, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"fixed has {arr.shape[0]} rows, y has {n}")
    numbers = as_numbers(arr)
    if numbers is None:
        raise ValueError(f"fixed must be numeric (dtype {arr.dtype}); pass a DataFrame to use factor columns")
    arr = numbers.reshape(n, -1)
    return pd.DataFrame(arr.astype(float), columns=[f"fixed{j}" for j in range(arr.shape[1])])


def with_selected(accepted: Sequence[AcceptedTerm], frame: pd.DataFrame, reserved: Mapping[str, str]) -> tuple[pd.DataFrame, list[str]]:
    """The frame with the selected terms' columns appended, and their formula names."""
    names: list[str] = []
    new_columns: dict[str, np.ndarray] = {}
    owner: dict[str, str] = {}
    for t in accepted:
        cols = t.columns if t.values.shape[1] == len(t.columns) else [f"{t.name}_{j}" for j in range(t.values.shape[1])]
        for c, v in zip(cols, t.values.T):
            if c in reserved:
                raise ValueError(f"selected term {c!r} (stream {t.stream!r}) has the name of {reserved[c]}; "
                                 "rename the candidate")
            if c in new_columns:
                raise ValueError(f"duplicate candidate name {c!r}: selected from stream {owner[c]!r} and from "
                                 f"stream {t.stream!r}; candidate names must be unique across streams")
            new_columns[c] = v
            owner[c] = t.stream
        names.extend(term_name(c) for c in cols)
    if new_columns and all(dt == np.float64 for dt in frame.dtypes.to_numpy()):  # one float block: no concat
        # column-ordered and handed over (copy=False): pandas keeps such an array as its block
        # where a row-ordered one would be transposed into a second copy
        values = np.empty((len(frame), frame.shape[1] + len(new_columns)), order="F")
        values[:, : frame.shape[1]] = frame.to_numpy()
        for j, v in enumerate(new_columns.values(), start=frame.shape[1]):
            values[:, j] = v
        frame = pd.DataFrame(values, index=frame.index, columns=[*frame.columns, *new_columns], copy=False)
    elif new_columns:
        frame = pd.concat([frame, pd.DataFrame(new_columns, index=frame.index)], axis=1)
    return frame, names


def selected_design(fixed_values: np.ndarray, fixed_names: list[str], accepted: Sequence[AcceptedTerm],
                    names: list[str], frame: pd.DataFrame) -> pd.DataFrame | None:
    """The refit's design from the values at hand, or None when patsy must build it.

    With no ``fixed=`` columns (``fixed_values`` is the intercept, or nothing) and selected
    terms that are bare single columns (``names`` as :func:`with_selected` gives them), the
    design of ``fixed + names`` on ``frame`` is what
    :func:`~streamreg.formula.matrices.plain_design` returns: the fixed columns, then each
    selected column as floats, on the frame's index.  Built here from the search's own
    values, it costs one frame instead of a second pass over the refit frame's labels.
    """
    if len(accepted) != len(names) or not plain_names(names):
        return None
    if any(t.values.shape[1] != 1 or [name] != list(t.columns) for t, name in zip(accepted, names)):
        return None
    k = fixed_values.shape[1]
    values = np.empty((len(frame), k + len(names)), order="F")  # handed over as pandas' block (copy=False)
    values[:, :k] = fixed_values
    for j, t in enumerate(accepted):
        values[:, k + j] = t.values[:, 0]
    return pd.DataFrame(values, index=frame.index, columns=[*fixed_names, *names], copy=False)
