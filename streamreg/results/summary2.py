"""statsmodels' ``summary2()`` of the refit with the selection tables and notes.

``summary2`` is statsmodels' newer summary (``statsmodels.iolib.summary2.Summary``: tables
are DataFrames, text, HTML and LaTeX).  The selection facts and the per-stream table go
after the model table, then the guarantee and the honesty notes, above the coefficients as in
:meth:`~streamreg.results.StreamRegResults.summary`.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from statsmodels.iolib.summary2 import Summary

from .fitstats import estimates_dispersion
from .html_safe import SafeSummary2
from .summary import criteria, notes, selection_facts, states_r_aic, stream_rows

if TYPE_CHECKING:
    from .record import FittedSelection


def selection_summary2(res: FittedSelection, *, alpha: float = 0.05, float_format: str = "%.4f",
                       width: int = 65) -> Summary:
    """The refit's ``summary2(alpha=, float_format=)`` with the selection block inserted.

    Parameters
    ----------
    res : FittedSelection
        The selected model, its selection record and the refit (a
        :class:`~streamreg.results.StreamRegResults`).
    alpha : float
        Level of the coefficients' intervals (``1 - alpha`` coverage).
    float_format : str
        Format of the numbers in statsmodels' tables.
    width : int
        Width the notes (guarantee, honesty lines) are wrapped to.

    Returns
    -------
    statsmodels.iolib.summary2.Summary
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1 (e.g. 0.05), got {alpha!r}")
    smry = res.fit.summary2(alpha=alpha, float_format=float_format)
    smry.__class__ = SafeSummary2  # as_html escapes every cell and note
    facts = pd.DataFrame(selection_facts(res))
    streams = pd.DataFrame(stream_rows(res), columns=["stream", "tested", "selected", "final wealth"])
    paragraphs = notes(res)
    ic = criteria(res)
    if estimates_dispersion(res.selected_model.family) and not states_r_aic(res) and np.isfinite(ic.aic):
        # notes() has not said it
        paragraphs.append(f"AIC and BIC above are statsmodels' and do not count the dispersion; counted as R's AIC() "
                          f"and BIC() count it (fit.aic, fit.bic): {ic.aic:.4f} and {ic.bic:.4f}.")
    lines = pd.DataFrame([line for note in paragraphs for line in textwrap.wrap(note, width=width)])
    at = 1 if smry.tables else 0  # after statsmodels' model table, before the coefficients
    smry.tables[at:at] = [facts, streams, lines]
    smry.settings[at:at] = [
        {"index": False, "header": False, "float_format": float_format, "align": "l"},
        {"index": False, "header": True, "float_format": float_format, "align": "r"},
        {"index": False, "header": False, "float_format": float_format, "align": "l"},
    ]
    return smry
