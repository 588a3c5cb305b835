"""Several fits side by side, as statsmodels' ``summary_col`` and R's ``modelsummary`` show them.

Three blocks, one column per fit: the coefficients with their standard errors (or
intervals, or test statistics, or p-values), the selection story (method, candidates
tested, terms selected, candidates refused, the error rate guaranteed) and fit statistics.
Plain statsmodels results sit beside streamreg results with their selection rows empty.

The coefficients come from each fit's statsmodels results.  The fit statistics of a streamreg
result are its own (R's ``logLik()``, ``AIC()``, ``BIC()`` and ``summary.lm`` R-squared, as
``.llf``, ``.aic``, ``.bic`` and ``glance()``), and so are those computed for a plain statsmodels
least-squares or GLM result: one convention per row.  A note says so whenever a fit estimates
a dispersion, where statsmodels' own ``.aic`` differs.  statsmodels' ``SimpleTable`` lays the
table out as text, HTML and booktabs LaTeX (cells escaped by :mod:`streamreg.results.latex`).
"""
from __future__ import annotations

import html
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.iolib.table import SimpleTable

from .compare_fits import (
    cell,
    ci_frame,
    fit_statistics,
    is_statsmodels,
    named_series,
    selection_rows,
    short_guarantee,
    side_by_side,
    statsmodels_result,
)
from .compare_maps import SELECTION_ROWS, coef_renames, gof_rows
from .compare_notes import covariance_note, criteria_notes
from .latex import check_label, latex_float, latex_tabular
from .results import StreamRegResults

__all__ = ["DEFAULT_STARS", "ComparisonTable", "compare", "short_guarantee"]

#: summary_col's stars: a coefficient gets the symbol of the smallest level its p-value is below
DEFAULT_STARS = {"*": 0.1, "**": 0.05, "***": 0.01}
_STATISTICS = {
    "std_err": "Standard errors in parentheses.",
    "tvalue": "Wald statistics (t or z) in parentheses.",
    "pvalue": "p-values in parentheses.",
    "conf_int": "{level:g}% confidence intervals in brackets.",
}
#: the narrowest the text notes are wrapped to, however narrow the table
_MIN_NOTE_WIDTH = 40
_TXT = {"table_dec_above": "=", "header_dec_below": "-", "table_dec_below": "=", "block": "-",
        "data_aligns": "r", "stub_align": "l", "colsep": "  "}
_LTX = {"table_dec_above": r"\toprule", "header_dec_below": r"\midrule", "table_dec_below": r"\bottomrule",
        "block": r"\midrule", "data_aligns": "c", "header_align": "c", "stub": "%s", "header": "%s"}


def compare(fits: Any, names: Sequence[str] | None = None, *, statistic: str | None = "std_err", alpha: float = 0.05,
            stars: bool | Mapping[str, float] = False, float_format: str = "%.4f",
            coef_map: Mapping[str, str] | Sequence[str] | None = None,
            gof_map: Mapping[str, str] | Sequence[str] | None = None, title: str | None = None,
            label: str | None = None, notes: str | Sequence[str] | None = None) -> ComparisonTable:
    """Several fits in one table: coefficients, selection rows and fit statistics.

    The controls of R's ``modelsummary`` shape it for a paper: ``coef_map`` and ``gof_map``
    pick, rename and order the rows, ``title`` and ``label`` caption and label the LaTeX
    float, ``notes`` adds notes of your own; every note wraps to the table's width.

    Parameters
    ----------
    fits : StreamRegResults, statsmodels results, or a list or dict of them
        The fits, one column each; a dict's keys name the columns.
    names : sequence of str, optional
        Column names (unique); default the dict's keys or ``(1), (2), ...``.
    statistic : {"std_err", "conf_int", "tvalue", "pvalue"} or None, default "std_err"
        What goes under each coefficient: its standard error in parentheses (as in
        ``summary_col``), its ``1 - alpha`` confidence interval in brackets, its Wald
        statistic or p-value in parentheses, or nothing.
    alpha : float, default 0.05
        Confidence intervals are at level ``1 - alpha``, as in statsmodels' ``conf_int``.
    stars : bool or dict, default False
        Append significance stars: True gives ``summary_col``'s ``{"*": 0.1, "**": 0.05,
        "***": 0.01}`` (p-value strictly below the level); a dict sets symbols and levels,
        one level per symbol.
    float_format : str, default "%.4f"
        printf-style format of every number but the number of observations.
    coef_map : dict or list of str, optional
        The coefficients to show, in this order, as modelsummary's ``coef_map``: a dict maps
        each term name to its label, a list keeps the terms under their own names; terms it
        does not name are dropped.  Terms of *different* fits may share a label (and then a
        row).  A fit none of whose terms it names is an error; a name no fit has is ignored
        with a warning.  ``params``, ``bse``, ... follow it.
    gof_map : dict or list of str, optional
        The rows below the coefficients to show, in this order and one block, likewise:
        selection rows (Method, Tested, Selected, Refused, Guarantee) and fit statistics
        (Observations, Log-likelihood, AIC, BIC, Deviance, R-squared; R's ``nobs``,
        ``logLik``, ``aic``, ``bic``, ``deviance`` and ``r.squared`` too).  ``[]`` shows none.
        A row no fit has is left out; a name that is no row is an error.
    title : str, optional
        Printed above the table (the caption in LaTeX and HTML; modelsummary's ``title``).
    label : str, optional
        The LaTeX float's ``\\label`` key, e.g. ``"tab:fits"``.
    notes : str or list of str, optional
        Notes of your own, printed after streamreg's.

    Returns
    -------
    ComparisonTable
        ``.as_text()``, ``.as_html()``, ``.as_latex()`` and ``.to_frame()``; the numbers
        behind it as ``.params``, ``.bse``, ``.pvalues``, ``.tvalues`` and ``.statistics``.

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.load("wdbc").data
    >>> f = "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)"
    >>> fits = {m: sr.streamreg(f, df, family="binomial", method=m) for m in ["lord++", "bic"]}
    >>> table = sr.compare(fits, stars=True)
    >>> table.selection.loc["Guarantee"].tolist()
    ['mFDR <= 0.05', 'none']
    >>> print(table)  # doctest: +SKIP

    Rename, order and drop as for a paper (R: ``modelsummary(fits, coef_map = c(...))``):

    >>> paper = sr.compare(fits, coef_map={"radius_worst": "Radius (worst)", "texture_mean": "Texture"},
    ...                    gof_map={"Selected": "Terms selected", "nobs": "N"}, title="Diagnosis",
    ...                    label="tab:wdbc")
    >>> paper.params.index.tolist(), paper.statistics.index.tolist()
    (['Radius (worst)', 'Texture'], ['N'])
    >>> print(paper.as_latex())  # doctest: +SKIP
    """
    items = _named(fits, names)
    if statistic is not None and statistic not in _STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(map(repr, _STATISTICS))} or None, got {statistic!r}")
    if not (isinstance(alpha, (int, float, np.floating)) and 0 < alpha < 1):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    try:
        float_format % 1.5
    except (TypeError, ValueError):
        raise ValueError(f"float_format must be a printf-style format for one number, such as '%.4f', "
                         f"got {float_format!r}") from None
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    check_label(label)
    if isinstance(notes, str):
        notes = [notes]
    if notes is not None and not (isinstance(notes, Sequence) and all(isinstance(n, str) for n in notes)):
        raise TypeError(f"notes must be a string or a list of strings, got {notes!r}")
    return ComparisonTable(items, statistic=statistic, alpha=float(alpha), stars=_stars(stars),
                           float_format=float_format, title=title, coef_map=coef_map, gof_map=gof_map,
                           label=label, notes=list(notes or []))


class ComparisonTable:
    """Fits side by side; build it with :func:`compare`.

    Parameters
    ----------
    items : list of (str, fit)
        Column name and fit (a streamreg result or a statsmodels result), in table order.
    statistic : {"std_err", "conf_int", "tvalue", "pvalue"} or None
        What is printed under each coefficient (see :func:`compare`).
    alpha : float
        Confidence intervals are at level ``1 - alpha``.
    stars : dict of str to float
        Star strings and the p-value thresholds below which they are appended (empty: none).
    float_format : str
        printf-style format of the printed numbers.
    title : str or None
        Printed above the table.

    Attributes
    ----------
    names : list of str
        Column names, one per fit.
    params, bse, pvalues, tvalues : DataFrame
        One row per coefficient (in order of first appearance, or ``coef_map``'s rows and
        labels), one column per fit; NaN where a fit lacks the term.  The statsmodels values,
        unrounded.
    statistics : DataFrame
        Observations, log-likelihood, AIC, BIC, deviance (GLMs) and R-squared (least
        squares), one column per fit; NaN where a fit has no such statistic.  R's for a
        streamreg result (its ``.llf``, ``.aic``, ``.bic`` and ``glance()``) and for a plain
        statsmodels least-squares or GLM result; statsmodels' own for other models.  The rows
        ``gof_map`` keeps, under its labels.
    selection : DataFrame
        Method, tested, selected, refused and guarantee of each streamreg fit (empty strings
        for plain statsmodels results); the rows ``gof_map`` keeps, under its labels.
    notes : list of str
        What the table's entries mean, printed below it (and the notes passed to ``compare``).
    title, label : str or None
        The caption and the LaTeX ``\\label`` key.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> x = sm.add_constant(rng.normal(size=(50, 2)))
    >>> y = x @ [1.0, 2.0, 0.0] + rng.normal(size=50)
    >>> table = sr.compare([sm.OLS(y, x).fit(), sm.OLS(y, x[:, :2]).fit()])
    >>> table.params.round(3)
             (1)    (2)
    const  1.030  1.029
    x1     2.178  2.178
    x2    -0.003    NaN
    """

    def __init__(self, items: list[tuple[str, Any]], *, statistic: str | None, alpha: float,
                 stars: dict[str, float], float_format: str, title: str | None,
                 coef_map: Mapping[str, str] | Sequence[str] | None = None,
                 gof_map: Mapping[str, str] | Sequence[str] | None = None, label: str | None = None,
                 notes: Sequence[str] = ()):
        self.names = [name for name, _ in items]
        self.title, self.label = title, label
        self._statistic, self._alpha, self._stars, self._fmt = statistic, alpha, stars, float_format
        results = [statsmodels_result(fit) for _, fit in items]
        params = [named_series(r, r.params) for r in results]
        self._ci = [ci_frame(r, alpha) for r in results]
        order = None
        renames: list[dict[str, str] | None] = [None] * len(results)
        if coef_map is not None:
            maps, order = coef_renames(coef_map, self.names, [list(p.index) for p in params])
            params = [p[list(kept)].rename(kept) for p, kept in zip(params, maps)]
            self._ci = [ci.loc[list(kept)].rename(index=kept) for ci, kept in zip(self._ci, maps)]
            renames = list(maps)
        self.params = side_by_side(self.names, params, order)
        self.bse, self.tvalues = (
            side_by_side(self.names, [named_series(r, getattr(r, what), kept) for r, kept in zip(results, renames)], order)
            for what in ("bse", "tvalues"))
        # a streamreg result's p-values follow its use_t (R's t for dispersion families); others' their own
        self.pvalues = side_by_side(
            self.names, [named_series(r, fit.pvalues, kept) for r, (_, fit), kept in zip(results, items, renames)], order)
        statistics = pd.concat([fit_statistics(fit) for _, fit in items], axis=1, keys=self.names)
        statistics = statistics.loc[statistics.notna().any(axis=1)]
        streamreg_fits = [fit if isinstance(fit, StreamRegResults) else None for _, fit in items]
        selection = pd.DataFrame({name: selection_rows(fit) for name, fit in zip(self.names, streamreg_fits)},
                                 index=list(SELECTION_ROWS), dtype=object)
        self._one_block = gof_map is not None  # gof_map's order runs across the two blocks
        wanted = [(row, row) for row in [*selection.index, *statistics.index]] if gof_map is None else gof_rows(gof_map)
        #: (part, label) of each row below the coefficients, in order, and each label's row
        self._below = [("selection" if row in selection.index else "statistics", label) for row, label in wanted
                       if row in selection.index or row in statistics.index]
        self._row = {label: row for row, label in wanted}
        kept = [(row, label) for row, label in wanted if row in selection.index]
        self.selection = selection.loc[[r for r, _ in kept]].set_axis([lab for _, lab in kept])
        kept = [(row, label) for row, label in wanted if row in statistics.index]
        self.statistics = statistics.loc[[r for r, _ in kept]].set_axis([lab for _, lab in kept])
        self.notes = self._notes(streamreg_fits, results) + list(notes)

    # -- the table as strings ------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """The table as printed, one string column per fit.

        Returns
        -------
        DataFrame
            Index levels ``part`` (``"coefficients"``, ``"selection"``, ``"statistics"``),
            ``term`` and ``statistic`` (``"estimate"`` or the statistic under it for a
            coefficient, ``""`` elsewhere); empty strings where a fit has no entry.
        """
        rows: list[tuple[tuple[str, str, str], list[str]]] = []
        for term in self.params.index:
            rows.append((("coefficients", term, "estimate"), [self._estimate(name, term) for name in self.names]))
            if self._statistic is not None:
                rows.append((("coefficients", term, self._statistic),
                             [self._under(i, name, term) for i, name in enumerate(self.names)]))
        for part, label in self._below:
            if part == "selection":
                rows.append((("selection", label, ""), [str(v) for v in self.selection.loc[label]]))
            else:
                rows.append((("statistics", label, ""), [self._number(label, v) for v in self.statistics.loc[label]]))
        index = pd.MultiIndex.from_tuples([key for key, _ in rows], names=["part", "term", "statistic"])
        return pd.DataFrame([cells for _, cells in rows], index=index, columns=self.names, dtype=object)

    def _estimate(self, name: str, term: str) -> str:
        value = cell(self.params, term, name)
        if np.isnan(value):
            return ""
        text = self._fmt % value
        p = cell(self.pvalues, term, name)
        marks = [symbol for symbol, level in self._stars.items() if p < level]
        return text + (min(marks, key=self._stars.__getitem__) if marks else "")

    def _under(self, i: int, name: str, term: str) -> str:
        if np.isnan(cell(self.params, term, name)):
            return ""
        if self._statistic == "conf_int":
            low, high = self._ci[i].loc[term]
            return f"[{self._fmt % low}, {self._fmt % high}]"
        assert self._statistic is not None  # no row under the estimate without a statistic
        table = {"std_err": self.bse, "tvalue": self.tvalues, "pvalue": self.pvalues}[self._statistic]
        return "(" + self._fmt % table.at[term, name] + ")"

    def _number(self, label: str, value: float) -> str:
        if np.isnan(value):
            return ""
        return str(int(value)) if self._row[label] == "Observations" else self._fmt % value

    def _label_of(self, row: str) -> str:
        return next(label for label, r in self._row.items() if r == row)

    def _notes(self, streamreg_fits: list[StreamRegResults | None], results: list[Any]) -> list[str]:
        notes = []
        shown = {self._row[label] for _, label in self._below}
        if self._statistic is not None:
            notes.append(_STATISTICS[self._statistic].format(level=100 * (1 - self._alpha)))
        if self._stars:
            notes.append(", ".join(f"{s} p < {level:g}" for s, level in self._stars.items()) + ".")
        described = [(n, f.policy.describe()) for n, f in zip(self.names, streamreg_fits) if f is not None]
        if described:
            notes.append("Methods: " + "; ".join(f"{n}: {d}" for n, d in described) + ".")
            if "Guarantee" in shown:
                notes.append(f"{self._label_of('Guarantee')}: the error rate the rule bounds under its assumptions "
                             "(each fit's guarantee() says which); none for rules that control no error rate.")
            held_out = [n for n, f in zip(self.names, streamreg_fits) if f is not None and f.validation]
            same = [n for n, f in zip(self.names, streamreg_fits) if f is not None and not f.validation]
            naive = ("come from refitting the selected terms on the data they were selected on: they ignore "
                     "the selection.")
            if same and not held_out:
                notes.append("Standard errors and p-values " + naive)
            elif same:
                notes.append(f"Standard errors and p-values of {', '.join(same)} " + naive)
            if held_out:
                notes.append(f"{', '.join(held_out)}: the selected terms were refit on held-out rows, so the "
                             "inference is conditional on the selected model.")
        if shown & {"Log-likelihood", "AIC", "BIC"}:
            notes.extend(criteria_notes(self.names, streamreg_fits, results))
        robust = covariance_note(self.names, results)
        if robust:
            notes.append(robust)
        return notes

    # -- renderings --------------------------------------------------------------------
    def _table(self, escape: Callable[[str], str], *, title: bool = True) -> SimpleTable:
        frame = self.to_frame()
        stubs = [escape(term if stat in ("estimate", "") else "") for _, term, stat in frame.index]
        table = SimpleTable([[escape(c) for c in row] for row in frame.to_numpy()],
                            headers=[escape(n) for n in self.names], stubs=stubs,
                            title=escape(self.title) if self.title and title else None, txt_fmt=_TXT, ltx_fmt=_LTX)
        parts = list(frame.index.get_level_values("part"))
        if self._one_block:  # gof_map's rows are one block in its order
            parts = [p if p == "coefficients" else "below" for p in parts]
        for i in range(len(parts) - 1):
            if parts[i] != parts[i + 1]:
                table[i + 1].dec_below = "block"  # row 0 is the header
        return table

    def as_text(self) -> str:
        """The table as plain text, the notes below it.

        Returns
        -------
        str
        """
        body = self._table(str).as_text()
        width = max(len(line) for line in body.splitlines())
        # as wide as the table (a very narrow one would leave a word a line)
        notes = [line for note in self.notes for line in textwrap.wrap(note, width=max(width, _MIN_NOTE_WIDTH))]
        return "\n".join([body, *notes])

    def as_html(self) -> str:
        """The table as an HTML ``<table>`` (title as caption), the notes in its footer.

        Each note is a footer row spanning every column, in a block that contributes no
        width of its own (``width: 0; min-width: 100%``): the notes wrap to the table's
        width instead of widening it.

        Returns
        -------
        str
        """
        table = self._table(html.escape).as_html()
        if not self.notes:
            return table
        span = len(self.names) + 1  # the stub column and one per fit
        rows = "".join(f'\n<tr><td colspan="{span}" style="text-align: left">'
                       f'<div style="width: 0; min-width: 100%">{html.escape(note)}</div></td></tr>'
                       for note in self.notes)
        end = table.rindex("</table>")
        return f"{table[:end]}<tfoot>{rows}\n</tfoot>\n{table[end:]}"

    def as_latex(self) -> str:
        """The table as a LaTeX ``table`` float: caption, label, a booktabs tabular, the notes.

        Every entry is escaped (``*``, ``_``, ``%``, ``&``, ``<=``, ...).  The notes are
        wrapped to the tabular's width (see :func:`~streamreg.results.latex.latex_float`).
        Needs ``\\usepackage{booktabs}``.

        Returns
        -------
        str
        """
        return latex_float(latex_tabular(self._table(str, title=False), center=False), caption=self.title,
                           label=self.label, notes=self.notes)

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()


# ------------------------------------------------------------------------------------------
# the fits' numbers
# ------------------------------------------------------------------------------------------


def _named(fits: Any, names: Sequence[str] | None) -> list[tuple[str, Any]]:
    """(name, fit) pairs, checked."""
    if isinstance(fits, Mapping):
        keys, values = [str(k) for k in fits], list(fits.values())
    elif isinstance(fits, (list, tuple)):
        keys, values = None, list(fits)
    else:
        keys, values = None, [fits]
    if not values:
        raise ValueError("compare() needs at least one fit")
    for i, fit in enumerate(values):
        if not isinstance(fit, StreamRegResults) and not is_statsmodels(fit):
            raise TypeError(f"compare() takes streamreg or statsmodels results; fit {i + 1} is a "
                            f"{type(fit).__name__}")
    if names is not None:
        if isinstance(names, str):
            raise TypeError("names must be a sequence of strings, one per fit, not a single string")
        keys = [str(n) for n in names]
        if len(keys) != len(values):
            raise ValueError(f"names has {len(keys)} entries for {len(values)} fits")
    if keys is None:
        keys = [f"({i + 1})" for i in range(len(values))]
    if len(set(keys)) != len(keys):
        raise ValueError(f"fit names must be unique, got {keys}")
    return list(zip(keys, values))


def _stars(stars: bool | Mapping[str, float] | None) -> dict[str, float]:
    if stars is True:
        return dict(DEFAULT_STARS)
    if stars is False or stars is None:
        return {}
    if not isinstance(stars, Mapping) or not stars:
        raise ValueError(f"stars must be True, False or a dict such as {DEFAULT_STARS}, got {stars!r}")
    seen: dict[float, str] = {}
    for symbol, level in stars.items():
        if not (isinstance(symbol, str) and symbol and isinstance(level, (int, float)) and 0 < level < 1):
            raise ValueError(f"stars must map non-empty strings to levels in (0, 1), got {symbol!r}: {level!r}")
        if float(level) in seen:  # which symbol a p-value below it gets would be arbitrary
            raise ValueError(f"stars must give each symbol its own level; {seen[float(level)]!r} and {symbol!r} "
                             f"both have {level:g}")
        seen[float(level)] = symbol
    return dict(stars)
