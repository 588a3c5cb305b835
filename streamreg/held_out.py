"""Rows held out for an honest refit (``validate=``): the split and the held-out frame."""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .formula.checks import plain
from .formula.design import Design
from .formula.names import _as_slice
from .results import StreamRegResults
from .results.refit import RefitWarning
from .streams.base import AcceptedTerm


def split_rows(data: pd.DataFrame, validate: ArrayLike, seed: int | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(selection rows, held-out rows) from a fraction, a boolean mask or row labels."""
    mask = split_mask(data, validate, seed)
    return data.loc[~mask], data.loc[mask]


def split_mask(data: pd.DataFrame, validate: ArrayLike, seed: int | None) -> np.ndarray:
    """True for the held-out rows (see :func:`split_rows`)."""
    if isinstance(validate, float):
        if not 0 < validate < 1:
            raise ValueError(f"validate as a fraction must lie in (0, 1), got {validate!r}")
        n_held = round(validate * len(data))
        pick = np.random.default_rng(seed).choice(len(data), size=n_held, replace=False)
        mask = np.zeros(len(data), dtype=bool)
        mask[pick] = True
    else:
        arr = np.asarray(validate)
        if arr.dtype == bool:
            if len(arr) != len(data):
                raise ValueError(f"a validate mask needs one entry per row ({len(data)}), got {len(arr)}")
            mask = arr
        else:
            missing = pd.Index(arr).difference(data.index)
            if len(missing):
                raise ValueError(f"validate names rows not in the data: {list(missing[:5])}")
            mask = data.index.isin(arr)
    if mask.sum() < 2 or (~mask).sum() < 2:
        raise ValueError("validate must leave at least two rows on each side of the split")
    return mask


def held_out(held: pd.DataFrame, design: Design, n_selection: int, accepted: Iterable[AcceptedTerm]
             ) -> tuple[pd.DataFrame, np.ndarray, dict[str, int], np.ndarray, np.ndarray | None]:
    """Refit frame, response, sizes, the positions (in ``held``) of the rows kept, and the
    trials of a two-column binomial response (None for others).

    ``held`` has the columns of the data the design was built from; the refit's columns
    (:meth:`~.formula.design.Design.refit_positions` of the ``accepted`` terms) are taken
    from it by position, not by label (a wide frame's labels would be hashed).
    """
    wanted = design.refit_positions(accepted)
    source = design.data_positions[wanted[wanted < len(design.data_positions)]]  # generated columns come later
    frame = held.iloc[:, _as_slice(source)]
    incomplete = frame.isna().any(axis=1).to_numpy()
    n_na = int(incomplete.sum())
    frame = frame.loc[~incomplete]
    if len(frame) < 2:
        raise ValueError("fewer than two held-out rows are complete in the columns used")
    y, trials = design.response_on(frame)
    if design.derived:
        frame = design.derived.augment(frame)
    return frame, y, {"n_selection": n_selection, "n_validation": len(frame), "n_dropped": n_na}, \
        np.flatnonzero(~incomplete), trials


def _mentions(rhs: str, column: str) -> bool:
    """Whether the right-hand side refers to ``column`` by name (a whole word)."""
    return re.search(rf"(?<![\w.]){re.escape(column)}(?!\w)", rhs) is not None


def held_out_levels(selection: pd.DataFrame, refit: pd.DataFrame, fixed: str, rhs: str,
                    response: str) -> list[str]:
    """Problems of the held-out refit with the factors of the selected model.

    The refit codes a factor with the levels present in its own rows, so a level missing
    from the held-out rows silently changes the model: with a single level left a fixed
    factor vanishes from the design (the intercept then is that level's mean, not the
    baseline's), which is refused as it is without ``validate=``; fewer levels are
    reported (returned, for the refit's warnings and the summary).

    Parameters
    ----------
    selection, refit : DataFrame
        The rows the terms were selected on and the held-out rows of the refit.
    fixed, rhs : str
        The fixed terms and the selected model's right-hand side (patsy syntax).
    response : str
        The response column (not a factor of the design).

    Returns
    -------
    list of str
    """
    problems = []
    # factors only: text, categories, booleans (one vectorised pass; a wide frame has a numeric
    # column per candidate, and a regular expression per column would cost seconds)
    for c in refit.select_dtypes(exclude="number").columns:  # booleans stay: patsy codes them as factors
        if c == response or c not in selection.columns or not _mentions(rhs, c):
            continue
        before = list(pd.unique(selection[c].dropna()))
        present = set(refit[c].dropna().unique())
        if len(present) < 2 and _mentions(fixed, c):
            only = f" {plain(next(iter(present)))!r}" if present else ""
            raise ValueError(f"fixed column {c!r} is a factor with a single level{only} in the held-out rows "
                             "(validate=): the refit cannot estimate its effect there; split the rows so that "
                             f"both sides have several levels of {c!r} (e.g. a mask stratified on it)")
        gone = [lv for lv in before if lv not in present]
        if gone:
            problems.append(f"level(s) {', '.join(repr(plain(v)) for v in gone[:5])} of {c!r} do not occur in "
                            "the held-out rows: the refit codes it with the levels present there, so its "
                            "coefficients are not those of the model as selected")
    return problems


def with_level_problems(results: StreamRegResults, problems: list[str]) -> StreamRegResults:
    """``results`` with :func:`held_out_levels`' problems among its refit warnings (raised once)."""
    if problems:
        results.refit_warnings.extend(problems)
        # stacklevel 3: the user's call of streamreg()
        warnings.warn("the held-out refit differs from the model as selected: " + "; ".join(problems)
                      + " (see summary())", RefitWarning, stacklevel=3)
    return results
