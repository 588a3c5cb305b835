"""Rows held out for an honest refit (``validate=``): the split and the held-out frame."""
from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .formula.design import Design, design_matrix


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


def held_out(held: pd.DataFrame, design: Design, n_selection: int
              ) -> tuple[pd.DataFrame, np.ndarray, dict[str, int], np.ndarray]:
    """Refit frame, response, sizes and the positions (in ``held``) of the rows kept."""
    cols = [c for c in design.frame.columns if c in held.columns]
    frame = held[cols]
    incomplete = frame.isna().any(axis=1).to_numpy()
    n_na = int(incomplete.sum())
    frame = frame.loc[~incomplete]
    if len(frame) < 2:
        raise ValueError("fewer than two held-out rows are complete in the columns used")
    y = design_matrix("0 + " + design.response_label, frame, frame).iloc[:, 0].to_numpy(dtype=float)
    if design.derived:
        frame = design.derived.augment(frame)
    return frame, y, {"n_selection": n_selection, "n_validation": len(frame), "n_dropped": n_na}, \
        np.flatnonzero(~incomplete)
