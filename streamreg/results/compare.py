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
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
from statsmodels.iolib.table import SimpleTable

from ..formula.names import has_intercept
from ..models import spec_of
from .compare_notes import covariance_note, criteria_notes, method_label, r_family
from .fitstats import information_criteria, r_squared
from .latex import latex_escape, latex_tabular
from .results import StreamRegResults

#: summary_col's stars: a coefficient gets the symbol of the smallest level its p-value is below
DEFAULT_STARS = {"*": 0.1, "**": 0.05, "***": 0.01}
_STATISTICS = {
    "std_err": "Standard errors in parentheses.",
    "tvalue": "Wald statistics (t or z) in parentheses.",
    "pvalue": "p-values in parentheses.",
    "conf_int": "{level:g}% confidence intervals in brackets.",
}
_SELECTION_ROWS = ("Method", "Tested", "Selected", "Refused", "Guarantee")
_TXT = {"table_dec_above": "=", "header_dec_below": "-", "table_dec_below": "=", "block": "-",
        "data_aligns": "r", "stub_align": "l", "colsep": "  "}
_LTX = {"table_dec_above": r"\toprule", "header_dec_below": r"\midrule", "table_dec_below": r"\bottomrule",
        "block": r"\midrule", "data_aligns": "c", "header_align": "c", "stub": "%s", "header": "%s"}


def compare(fits: Any, names: Sequence[str] | None = None, *, statistic: str | None = "std_err", alpha: float = 0.05,
            stars: bool | Mapping[str, float] = False, float_format: str = "%.4f",
            title: str | None = None) -> ComparisonTable:
    """Several fits in one table: coefficients, selection rows and fit statistics.

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
    title : str, optional
        Printed above the table (a caption in LaTeX and HTML).

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
    return ComparisonTable(items, statistic=statistic, alpha=float(alpha), stars=_stars(stars),
                           float_format=float_format, title=title)


class ComparisonTable:
    """Fits side by side; build it with :func:`compare`.

    Attributes
    ----------
    names : list of str
        Column names, one per fit.
    params, bse, pvalues, tvalues : DataFrame
        One row per coefficient (in order of first appearance), one column per fit; NaN
        where a fit lacks the term.  The statsmodels values, unrounded.
    statistics : DataFrame
        Observations, log-likelihood, AIC, BIC, deviance (GLMs) and R-squared (least
        squares), one column per fit; NaN where a fit has no such statistic.  R's for a
        streamreg result (its ``.llf``, ``.aic``, ``.bic`` and ``glance()``) and for a plain
        statsmodels least-squares or GLM result; statsmodels' own for other models.
    selection : DataFrame
        Method, tested, selected, refused and guarantee of each streamreg fit (empty strings
        for plain statsmodels results).
    notes : list of str
        What the table's entries mean, printed below it.

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
                 stars: dict[str, float], float_format: str, title: str | None):
        self.names = [name for name, _ in items]
        self.title = title
        self._statistic, self._alpha, self._stars, self._fmt = statistic, alpha, stars, float_format
        results = [_statsmodels(fit) for _, fit in items]
        self.params = _side_by_side(self.names, [_series(r, r.params) for r in results])
        self.bse = _side_by_side(self.names, [_series(r, r.bse) for r in results])
        self.pvalues = _side_by_side(self.names, [_series(r, r.pvalues) for r in results])
        self.tvalues = _side_by_side(self.names, [_series(r, r.tvalues) for r in results])
        self._ci = [_ci_frame(r, alpha) for r in results]
        self.statistics = pd.concat([_fit_statistics(fit) for _, fit in items], axis=1, keys=self.names)
        self.statistics = self.statistics.loc[self.statistics.notna().any(axis=1)]
        streamreg_fits = [fit if isinstance(fit, StreamRegResults) else None for _, fit in items]
        self.selection = pd.DataFrame({name: _selection(fit) for name, fit in zip(self.names, streamreg_fits)},
                                      index=list(_SELECTION_ROWS), dtype=object)
        self.notes = self._notes(streamreg_fits, results)

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
        for label in self.selection.index:
            rows.append((("selection", label, ""), [str(v) for v in self.selection.loc[label]]))
        for label in self.statistics.index:
            rows.append((("statistics", label, ""), [self._number(label, v) for v in self.statistics.loc[label]]))
        index = pd.MultiIndex.from_tuples([key for key, _ in rows], names=["part", "term", "statistic"])
        return pd.DataFrame([cells for _, cells in rows], index=index, columns=self.names, dtype=object)

    def _estimate(self, name: str, term: str) -> str:
        value = _cell(self.params, term, name)
        if np.isnan(value):
            return ""
        text = self._fmt % value
        p = _cell(self.pvalues, term, name)
        marks = [symbol for symbol, level in self._stars.items() if p < level]
        return text + (min(marks, key=self._stars.__getitem__) if marks else "")

    def _under(self, i: int, name: str, term: str) -> str:
        if np.isnan(_cell(self.params, term, name)):
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
        return str(int(value)) if label == "Observations" else self._fmt % value

    def _notes(self, streamreg_fits: list[StreamRegResults | None], results: list[Any]) -> list[str]:
        notes = []
        if self._statistic is not None:
            notes.append(_STATISTICS[self._statistic].format(level=100 * (1 - self._alpha)))
        if self._stars:
            notes.append(", ".join(f"{s} p < {level:g}" for s, level in self._stars.items()) + ".")
        described = [(n, f.policy.describe()) for n, f in zip(self.names, streamreg_fits) if f is not None]
        if described:
            notes.append("Methods: " + "; ".join(f"{n}: {d}" for n, d in described) + ".")
            notes.append("Guarantee: the error rate the rule bounds under its assumptions (each fit's guarantee() "
                         "says which); none for rules that control no error rate.")
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
        parts = frame.index.get_level_values("part")
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
        # as wide as the table, and no narrower than the summary's 78 columns
        notes = [line for note in self.notes for line in textwrap.wrap(note, width=max(width, 78))]
        return "\n".join([body, *notes])

    def as_html(self) -> str:
        """The table as an HTML ``<table>`` (title as caption), the notes as paragraphs.

        Returns
        -------
        str
        """
        notes = "".join(f"\n<p>{html.escape(note)}</p>" for note in self.notes)
        return self._table(html.escape).as_html() + notes

    def as_latex(self) -> str:
        """The table as a LaTeX ``table`` float: a booktabs tabular and the notes below it.

        Every entry is escaped (``*``, ``_``, ``%``, ``&``, ``<=``, ...).  Needs
        ``\\usepackage{booktabs}``.

        Returns
        -------
        str
        """
        head = ["\\begin{table}[htbp]", "\\centering"]
        if self.title:
            head.append(f"\\caption{{{latex_escape(self.title)}}}")
        notes = "\n\n".join(latex_escape(note) for note in self.notes)
        tail = ["", "\\smallskip", "\\raggedright\\footnotesize", notes, "\\end{table}"]
        return "\n".join([*head, latex_tabular(self._table(str, title=False), center=False), *tail])

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
        if not isinstance(fit, StreamRegResults) and not _is_statsmodels(fit):
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


def _is_statsmodels(fit: Any) -> bool:
    return all(hasattr(fit, a) for a in ("params", "bse", "pvalues", "model", "llf"))


def _statsmodels(fit: Any) -> Any:
    return fit.fit if isinstance(fit, StreamRegResults) else fit


def _series(result: Any, values: Any) -> pd.Series:
    """Named values of a statsmodels result (results of arrays carry names on the model)."""
    if isinstance(values, pd.Series):
        return values.astype(float)
    return pd.Series(np.asarray(values, dtype=float), index=list(result.model.exog_names))


def _cell(frame: pd.DataFrame, term: str, name: str) -> float:
    """One number of a side-by-side table (pandas' stubs type a cell as any scalar)."""
    return float(cast(float, frame.at[term, name]))


def _side_by_side(names: list[str], columns: list[pd.Series]) -> pd.DataFrame:
    """Columns aligned on the terms, in order of first appearance (as summary_col orders them)."""
    order = list(dict.fromkeys(term for col in columns for term in col.index))
    return pd.DataFrame({name: col.reindex(order) for name, col in zip(names, columns)}, index=order)


def _ci_frame(result: Any, alpha: float) -> pd.DataFrame:
    ci = result.conf_int(alpha=alpha)
    if isinstance(ci, pd.DataFrame):
        return ci
    return pd.DataFrame(np.asarray(ci), index=list(result.model.exog_names))


def _fit_statistics(fit: Any) -> pd.Series:
    """Observations, log-likelihood, AIC, BIC, deviance and R-squared of one fit.

    A streamreg result's are its own, R's (``.llf``, ``.aic``, ``.bic``, ``glance()``'s
    ``r.squared``); a plain statsmodels least-squares or GLM result's are R's too, computed
    from it; other statsmodels models keep their own.
    """
    result = _statsmodels(fit)
    family = fit.family if isinstance(fit, StreamRegResults) else r_family(result)
    if isinstance(fit, StreamRegResults):
        ic = information_criteria(result, fit.family)
        llf, aic, bic = ic.llf, ic.aic, ic.bic
        r2 = r_squared(result, has_intercept(fit.selected_model.rhs))[0] if spec_of(fit.family).least_squares else np.nan
    elif family is not None:  # least squares or a GLM: R's criteria, as the streamreg columns show them
        ic = information_criteria(result, family)
        llf, aic, bic = ic.llf, ic.aic, ic.bic
        r2 = float(getattr(result, "rsquared", np.nan))
    else:
        llf, aic = float(result.llf), float(result.aic)
        bic = float(result.bic_llf if hasattr(result, "bic_llf") else result.bic)  # GLM's .bic is deviance-based
        r2 = float(getattr(result, "rsquared", np.nan))
    return pd.Series({
        "Observations": float(result.nobs),
        "Log-likelihood": llf,
        "AIC": aic,
        "BIC": bic,
        "Deviance": float(getattr(result, "deviance", np.nan)),
        "R-squared": r2,
    })


def _selection(fit: StreamRegResults | None) -> list[str]:
    """Method, tested, selected, refused and guarantee of one fit (empty for statsmodels results)."""
    if fit is None:
        return [""] * len(_SELECTION_ROWS)
    status = fit.history["status"].astype(str)
    return [
        method_label(fit.policy),
        str(int(fit.per_stream["tested"].sum())),
        str(len(fit.selected)),
        str(int(status.str.startswith("refused").sum())),
        short_guarantee(fit.guarantee()),
    ]


def short_guarantee(text: str) -> str:
    """The error rate a guarantee sentence bounds, e.g. ``"FDR <= 0.05"``, ``"none"`` or ``"void"``.

    Examples
    --------
    >>> from streamreg.results.compare import short_guarantee
    >>> short_guarantee("mFDR = E[V]/(E[R] + 1) <= 0.05 (V false, R all selections), valid when ...")
    'mFDR <= 0.05'
    >>> short_guarantee("BIC (F = log n) controls no error rate: it aims at ...")
    'none'
    """
    if "VOID" in text:
        return "void"
    found = re.search(r"\b(mFDR|FDR|FWER)(?:_eta)?\b[^<]*?<=\s*([0-9][0-9.e+-]*[0-9])", text)
    if found:
        return f"{found.group(1)} <= {found.group(2)}"
    if "no error rate" in text:
        return "none"
    return "see guarantee()"
