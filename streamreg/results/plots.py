"""Plots of a selection: p-values against the levels, the wealth path, the coefficients.

Each function takes the results of :func:`streamreg.streamreg` or :func:`streamreg.select`
and an optional Axes (``ax=None``: the Axes of a new figure), draws on it and returns it, so
figures compose with matplotlib as usual.  The results object's ``plot_*`` methods call these.

The plots agree with each other:

* **One colour per stream** (:func:`stream_colors`): a stream's wealth, its level and its
  coefficients have the same colour in every plot.  The palette leaves out red and grey,
  which mark the statuses of tests (selected, rejected) in the p-value plot.
* **One convention for the curves**: a curve shows what is in force at each point of the
  test axis, and every stream's curves start at test 0, before any test.  The wealth is
  the wealth after the stream's latest test (a step after each of its tests, from its
  initial wealth at 0); the level is the level the stream's next test is held to (a step
  up to each of its tests, so at a test's abscissa it is the level that test faced, and
  from 0 it is the first test's).  Each curve ends at the stream's last test.
* **Nothing silently empty**: a plot with nothing to show (no p-values, no wealth, no
  coefficient) says so in a text on the Axes and an :class:`EmptyPlotWarning`.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

#: the streams' colours, in the order of the results' streams: matplotlib's tab10 without its
#: red and grey (the p-value plot's "selected" and "rejected"); more streams reuse them in turn
STREAM_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")
#: marker styles of the history's statuses (prefixes of the status text)
_STYLE = {
    "rejected": {"marker": ".", "color": "0.6", "s": 8, "label": "rejected"},
    "accepted": {"marker": "o", "color": "#d62728", "s": 30, "label": "selected"},
    "dropped": {"marker": "v", "facecolor": "none", "edgecolor": "#d62728", "s": 36, "label": "dropped (stepwise)"},
    "refused": {"marker": "x", "color": "k", "s": 30, "label": "refused (no MLE, no convergence or invalid means)"},
}


class EmptyPlotWarning(UserWarning):
    """A plot had nothing to show; the Axes say why."""


def stream_colors(res: Any) -> dict[str, str]:
    """The colour of each stream in every plot of ``res``, in the order of its streams.

    Parameters
    ----------
    res : StreamRegResults

    Returns
    -------
    dict of str to str
        Stream name to a matplotlib colour (hex), from :data:`STREAM_PALETTE`.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.results.plots import stream_colors
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(80, 6)); y = X[:, 0] + rng.normal(size=80)
    >>> stream_colors(sr.select(y, {"a": X[:, :3], "b": X[:, 3:]}))
    {'a': '#1f77b4', 'b': '#ff7f0e'}
    """
    names = [str(n) for n in res.per_stream.index]
    names += [str(n) for n in pd.unique(res.history["stream"].astype(str)) if str(n) not in names]
    return {name: STREAM_PALETTE[i % len(STREAM_PALETTE)] for i, name in enumerate(names)}


def _axes(ax: Any) -> Any:
    """``ax``, or the Axes of a new figure (as statsmodels draws): never over an earlier plot."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.figure().add_subplot()


def _nothing_to_show(ax: Any, message: str) -> Any:
    """Say on ``ax`` (and in a warning) that the plot has nothing to show, and why."""
    ax.text(0.5, 0.5, message, transform=ax.transAxes, ha="center", va="center", wrap=True, color="0.3")
    warnings.warn(message, EmptyPlotWarning, stacklevel=3)
    return ax


def _method(res: Any) -> str:
    return str(getattr(res.policy, "name", "this method"))


def _full_history(res: Any, what: str) -> pd.DataFrame:
    if not res.history_kept:
        raise ValueError(f"{what} needs the history of every test, but it was not kept (history='none'; only the "
                         f"{len(res.history)} selected and refused terms are recorded): rerun with history='full'")
    return res.history


def _status(h: pd.DataFrame) -> pd.Series:
    """Each row's status family: accepted, rejected, dropped, refused, skipped or other."""
    text = h["status"].astype(str)
    out = pd.Series("other", index=h.index)
    for key in ("accepted", "rejected", "dropped", "refused", "skipped"):
        out[text.str.startswith(key)] = key
    return out


def _streams(h: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """Each stream's tested rows, in test order."""
    tested = h[h["test"].notna()]
    for name, rows in tested.groupby(tested["stream"].astype(str), sort=False, observed=True):
        yield str(name), rows.sort_values("test", kind="stable")


def _from_zero(rows: pd.DataFrame, column: str, start: float) -> tuple[np.ndarray, np.ndarray]:
    """The test index and ``column`` of a stream's rows, preceded by test 0 at ``start``
    (unless ``start`` is not known: the curve then starts at the stream's first test)."""
    x, v = rows["test"].to_numpy(dtype=float), rows[column].to_numpy(dtype=float)
    if not np.isfinite(start):
        return x, v
    return np.r_[0.0, x], np.r_[start, v]


def _initial_wealth(res: Any, name: str) -> float:
    return float(res.search.initial_wealth.get(name, np.nan))


def _wealth_line(ax: Any, res: Any, name: str, rows: pd.DataFrame, color: str, **style: Any) -> None:
    """The wealth after each of the stream's tests, from its initial wealth at test 0."""
    x, w = _from_zero(rows, "wealth", _initial_wealth(res, name))
    ax.step(x, w, where="post", color=color, **style)


def _level_line(ax: Any, rows: pd.DataFrame, color: str, **style: Any) -> None:
    """The level each of the stream's tests is held to, in force from the test before it (from 0)."""
    rows = rows[rows["level"].notna()]
    x, lev = _from_zero(rows, "level", float(rows["level"].iloc[0]))
    ax.step(x, lev, where="pre", color=color, **style)


def _legend(ax: Any, **kwargs: Any) -> None:
    if ax.get_legend_handles_labels()[0]:  # no empty legend box
        ax.legend(fontsize="small", **kwargs)


def pvalue_plot(res: Any, ax: Any = None) -> Any:
    """Every test's p-value (log scale, up to 1) and the level in force; returns the Axes.

    Selected, rejected, dropped and refused candidates have their own markers; candidates
    skipped without a test (constant, or collinear with the model) are ticks at ``p = 1``
    just after the test they followed.  Each stream's level is a line of its colour (see
    the module's conventions).  Rules that compare bits rather than p-values
    (information-investing) have no level line.  With no p-value to plot the Axes say so.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.results.plots import pvalue_plot
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 40)); y = X[:, 3] + 0.5 * rng.normal(size=80)
    >>> ax = pvalue_plot(sr.select(y, X))
    >>> bool(ax.get_ylim()[1] >= 1)
    True
    """
    h = _full_history(res, "the p-value plot")
    ax = _axes(ax)
    kind = _status(h)
    tested = h["test"].notna()
    p = h["pvalue"].to_numpy(dtype=float)
    if not (tested & np.isfinite(p)).any():
        why = "no candidate was tested" if not tested.any() else f"{_method(res)} records no p-values"
        return _nothing_to_show(ax, f"No p-values to plot: {why}.")
    x = h["test"].astype(float)
    for key, style in _STYLE.items():
        rows = tested & (kind == key) & np.isfinite(p)
        if rows.any():
            ax.scatter(x[rows], h.loc[rows, "pvalue"].clip(lower=1e-300), zorder=3 if key != "rejected" else 2,
                       **style)
    skipped = ~tested & (kind == "skipped")
    if skipped.any():
        after = x.ffill().fillna(0.0)[skipped] + 0.5
        ax.scatter(after, np.ones(int(skipped.sum())), marker="|", color="0.35", s=40,
                   label="skipped, not tested (constant or collinear)")
    colors = stream_colors(res)
    with_level = [(name, rows) for name, rows in _streams(h) if rows["level"].notna().any()]
    for name, rows in with_level:
        label = f"level ({name})" if len(with_level) > 1 else "level"
        _level_line(ax, rows, colors[name], lw=1, label=label)
    ax.set_yscale("log")
    low = float(np.nanmin(np.r_[h["pvalue"].clip(lower=1e-300).to_numpy(dtype=float), h["level"].to_numpy(float), 1]))
    ax.set_ylim(bottom=low / 3, top=1.5)
    ax.set_xlabel("test")
    ax.set_ylabel("p-value")
    _legend(ax, loc="lower right")
    return ax


def selection_path_plot(res: Any, ax: Any = None) -> Any:
    """Wealth (solid) and level (dashed) of each stream along the tests, acceptances marked.

    Log scale: the wealth and the much smaller levels share one axis.  Acceptances sit on
    the wealth, or on the level for rules without wealth (stepwise).  Returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.results.plots import selection_path_plot
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(80, 60)); y = X[:, 5] - X[:, 50] + 0.5 * rng.normal(size=80)
    >>> ax = selection_path_plot(sr.select(y, {"a": X[:, :30], "b": X[:, 30:]}))
    >>> sorted(t.get_text() for t in ax.get_legend().get_texts())[:2]
    ['a: level', 'a: wealth']
    """
    h = _full_history(res, "the selection path")
    ax = _axes(ax)
    colors = stream_colors(res)
    drawn = {"wealth": False, "level": False}
    marked = False
    for name, rows in _streams(h):
        color = colors[name]
        has_wealth, has_level = rows["wealth"].notna().any(), rows["level"].notna().any()
        if has_wealth:
            _wealth_line(ax, res, name, rows, color, lw=1.2, label=f"{name}: wealth")
        if has_level:
            _level_line(ax, rows, color, lw=1, ls="--", label=f"{name}: level")
        drawn["wealth"] |= bool(has_wealth)
        drawn["level"] |= bool(has_level)
        acc = rows["accepted"].to_numpy(bool)
        on = rows["wealth"] if has_wealth else rows["level"]
        if acc.any() and (has_wealth or has_level):
            ax.scatter(rows["test"].astype(float)[acc], on[acc], color=color, edgecolor="k", zorder=3, s=30)
            marked = True
    if not any(drawn.values()):
        why = "no candidate was tested" if h["test"].notna().sum() == 0 else \
            f"{_method(res)} records neither wealth nor levels"
        return _nothing_to_show(ax, f"No selection path to plot: {why}.")
    if marked:
        ax.scatter([], [], color="w", edgecolor="k", s=30, label="selected")
    ax.set_yscale("log")
    ax.set_xlabel("test")
    ax.set_ylabel(" and ".join(k for k, v in drawn.items() if v))
    _legend(ax, loc="best")
    return ax


def _term_streams(res: Any) -> dict[str, str]:
    """The stream of each selected coefficient (a factor's columns share their term's)."""
    return {col: str(term.stream) for term in res.search.accepted for col in term.columns}


def coefficient_plot(res: Any, ax: Any = None, *, alpha: float = 0.05, intercept: bool = False) -> Any:
    """Estimates of the refit with ``1 - alpha`` intervals, coloured by stream; returns the Axes.

    The intervals are the refit's nominal ones: they ignore that the terms were selected
    on the same data (the x label says so).  Use ``validate=`` for intervals that hold.
    Selected coefficients have their stream's colour; fixed terms are black.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.results.plots import coefficient_plot
    >>> rng = np.random.default_rng(2)
    >>> X = rng.normal(size=(80, 20)); y = 2 * X[:, 3] + rng.normal(size=80)
    >>> fit = sr.select(y, X)
    >>> ax = coefficient_plot(fit)
    >>> [t.get_text() for t in ax.get_yticklabels()] == fit.selected_terms
    True
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    ax = _axes(ax)
    params = pd.Series(np.asarray(res.params, dtype=float), index=list(res.params.index))
    ci = pd.DataFrame(np.asarray(res.conf_int(alpha=alpha), dtype=float), index=params.index)
    if not intercept:
        keep = [c for c in params.index if c != "Intercept"]
        params, ci = params[keep], ci.loc[keep]
    if params.empty:
        return _nothing_to_show(ax, "No coefficient to plot: no term was selected and the model has no other "
                                    "terms" + ("" if intercept else " (intercept=True shows the intercept)") + ".")
    y = np.arange(len(params))[::-1]
    ax.errorbar(params.to_numpy(), y, xerr=[params - ci[0], ci[1] - params], fmt="none", ecolor="0.4", capsize=3)
    of = _term_streams(res)
    colors = stream_colors(res)
    groups = pd.Series([of.get(c, "") for c in params.index], index=params.index)
    for name in dict.fromkeys(groups):
        rows = (groups == name).to_numpy()
        ax.scatter(params.to_numpy()[rows], y[rows], color=colors[name] if name else "k", zorder=3, s=25,
                   label=name if name else "fixed terms")
    ax.axvline(0.0, color="0.5", lw=1, ls=":")
    ax.set_yticks(y)
    ax.set_yticklabels(list(params.index))
    level = f"{100 * (1 - alpha):g}%"
    ax.set_xlabel(f"estimate with {level} interval\n(nominal: not adjusted for the selection)")
    if len(colors) > 1 or "" in set(groups):
        _legend(ax, loc="best")
    return ax


def wealth_plot(res: Any, ax: Any = None) -> Any:
    """Wealth per stream against the test index, acceptances marked; returns the Axes.

    Each stream's wealth starts at test 0 with its initial wealth and steps after each of
    its tests (see the module's conventions).  With ``history="none"`` the wealth was kept
    at the acceptances only: those points are plotted (joined per stream) and the title says
    so.  Rules without wealth (stepwise, the penalised searches) have nothing to plot: the
    Axes say so.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.results.plots import wealth_plot
    >>> rng = np.random.default_rng(3)
    >>> X = rng.normal(size=(80, 40)); y = X[:, 3] + 0.5 * rng.normal(size=80)
    >>> wealth_plot(sr.select(y, X)).get_ylabel()
    'wealth'
    """
    ax = _axes(ax)
    h = res.history
    if not h["wealth"].notna().any():
        why = "no candidate was tested" if h["test"].notna().sum() == 0 else \
            f"{_method(res)} has no wealth (it spends none)"
        return _nothing_to_show(ax, f"No wealth to plot: {why}.")
    colors = stream_colors(res)
    marked = False
    for name, rows in _streams(h):
        rows = rows[rows["wealth"].notna()]
        if rows.empty:
            continue
        if res.history_kept:
            _wealth_line(ax, res, name, rows, colors[name], label=name)
        else:
            x, w = _from_zero(rows, "wealth", _initial_wealth(res, name))
            ax.plot(x, w, ls=":", marker=".", color=colors[name], label=name)
        acc = rows["accepted"].to_numpy(bool)
        if acc.any():
            ax.scatter(rows["test"].astype(float)[acc], rows.loc[acc, "wealth"], color=colors[name], edgecolor="k",
                       zorder=3, s=30)
            marked = True
    if not res.history_kept:
        ax.set_title("history='none': wealth at acceptances only (the path between them was not kept)",
                     fontsize="small")
    if marked:
        ax.scatter([], [], color="w", edgecolor="k", s=30, label="selected")
    ax.set_xlabel("test")
    ax.set_ylabel("wealth")
    _legend(ax, loc="best")
    return ax
