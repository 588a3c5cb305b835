"""statsmodels' ``summary2()`` of the refit with the selection tables and notes.

``summary2`` is statsmodels' newer summary (``statsmodels.iolib.summary2.Summary``: tables
are DataFrames, text, HTML and LaTeX).  The selection facts and the per-stream table go
after the model table, then the guarantee and the honesty notes, above the coefficients as in
:meth:`~streamreg.results.StreamRegResults.summary`.

statsmodels' ``Summary.as_latex`` writes cells and notes as they are (a ``t^2``, a ``<=``, a
``*`` at the start of a row break the document) and puts the notes outside the float; here
every table is escaped once by :mod:`streamreg.results.latex` and the notes are paragraphs.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from statsmodels.iolib.summary2 import Summary, _simple_tables

from .fitstats import estimates_dispersion
from .html_safe import SafeSummary2
from .inference import reported_fit
from .latex import check_label, latex_float, latex_notes, latex_tabular, note_paragraphs
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
    smry = reported_fit(res).summary2(alpha=alpha, float_format=float_format)
    smry.__class__ = StreamRegSummary2  # as_html and as_latex escape every cell and note
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
    smry._notes, smry._notes_table = paragraphs, lines  # as_latex prints them as paragraphs
    smry.settings[at:at] = [
        {"index": False, "header": False, "float_format": float_format, "align": "l"},
        {"index": False, "header": True, "float_format": float_format, "align": "r"},
        {"index": False, "header": False, "float_format": float_format, "align": "l"},
    ]
    return smry


class StreamRegSummary2(SafeSummary2):
    """statsmodels' ``summary2`` Summary whose HTML and LaTeX escape every cell and note."""

    _notes: list[str]
    _notes_table: pd.DataFrame | None = None

    def as_latex(self, label: str = "") -> str:
        """A ``table`` float that compiles: caption, label, one tabular per table, the notes.

        As statsmodels' ``Summary.as_latex(label=)``, with every cell escaped (``t^2``,
        ``<=``, ``*_se``, ``%``, ...), the selection notes as paragraphs where their table
        stood and statsmodels' notes (``extra_txt``) inside the float, below the tables.

        Parameters
        ----------
        label : str, default ""
            The float's ``\\label`` key (none when empty).

        Returns
        -------
        str
            LaTeX source; the tabulars use ``\\hline`` (no package needed).

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> tex = sr.streamreg("y ~ stream(x*)", df).summary2().as_latex(label="tab:fit")
        >>> "t\\\\textasciicircum{}2" in tex, "<=" in tex, "\\\\label{tab:fit}" in tex
        (True, False, True)
        """
        check_label(label or None)
        parts: list[str] = []
        for frame, table in zip(self.tables, _simple_tables(self.tables, self.settings)):
            if frame is self._notes_table:
                parts.append(latex_notes(self._notes))
            else:
                parts.append(latex_tabular(table, center=False))
        extra = [p for text in self.extra_txt or [] for p in note_paragraphs(text)]
        if extra:
            parts.append(latex_notes(extra))
        # one paragraph each, centred by the float's \\centering, a little space between
        body = "\n\n\\medskip\n".join(parts)
        return latex_float(body, caption=self.title or None, label=label or None)
