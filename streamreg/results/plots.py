"""Plots of a selection: p-values against the levels, the wealth path, the coefficients.

Each function takes the results of :func:`streamreg.streamreg` or :func:`streamreg.select`
and an optional Axes (``ax=None``: the current one), draws on it and returns it, so figures
compose with matplotlib as usual.  The results object's ``plot_*`` methods call these.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: marker styles of the history's statuses (prefixes of the status text)
_STYLE = {
    "rejected": {"marker": ".", "color": "0.6", "s": 8, "label": "rejected"},
    "accepted": {"marker": "o", "color": "C3", "s": 30, "label": "selected"},
    "refused": {"marker": "x", "color": "k", "s": 30, "label": "refused (no MLE, no convergence or invalid means)"},
}


def _axes(ax: Any) -> Any:
    """``ax``, or the Axes of a new figure (as statsmodels draws): never over an earlier plot."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.figure().add_subplot()


def _full_history(res: Any, what: str) -> pd.DataFrame:
    if not res.history_kept:
        raise ValueError(f"{what} needs the history of every test, but it was not kept (history='none'; only the "
                         f"{len(res.history)} selected and refused terms are recorded): rerun with history='full'")
    return res.history


def _status(h: pd.DataFrame) -> pd.Series:
    """Each row's status family: accepted, rejected, refused, skipped or other."""
    text = h["status"].astype(str)
    out = pd.Series("other", index=h.index)
    for key in ("accepted", "rejected", "refused", "skipped"):
        out[text.str.startswith(key)] = key
    return out


def pvalue_plot(res: Any, ax: Any = None) -> Any:
    """Every test's p-value (log scale, up to 1) and the level in force; returns the Axes.

    Selected, rejected and refused candidates have their own markers; candidates skipped
    without a test (constant, or collinear with the model) are ticks at ``p = 1`` just
    after the test they followed.  Rules that compare bits rather than p-values
    (information-investing) have no level line.

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
    x = h["test"].astype(float)
    for key, style in _STYLE.items():
        rows = tested & (kind == key)
        if rows.any():
            ax.scatter(x[rows], h.loc[rows, "pvalue"].clip(lower=1e-300), zorder=3 if key != "rejected" else 2,
                       **style)
    skipped = ~tested & (kind == "skipped")
    if skipped.any():
        after = x.ffill().fillna(0.0)[skipped] + 0.5
        ax.scatter(after, np.ones(int(skipped.sum())), marker="|", color="C0", s=40,
                   label="skipped, not tested (constant or collinear)")
    lev = h[tested & h["level"].notna()]
    several = lev["stream"].nunique() > 1
    for j, (name, rows) in enumerate(lev.groupby("stream", sort=False, observed=True)):
        # one step line per stream: each stream's level runs on its own wealth
        ax.step(rows["test"].astype(float), rows["level"], where="post", lw=1,
                color=f"C{(j + 1) % 10}" if several else "k", label=f"level ({name})" if several else "level")
    ax.set_yscale("log")
    low = float(np.nanmin(np.r_[h["pvalue"].clip(lower=1e-300).to_numpy(dtype=float), h["level"].to_numpy(float), 1]))
    ax.set_ylim(bottom=low / 3, top=1.5)
    ax.set_xlabel("test")
    ax.set_ylabel("p-value")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def selection_path_plot(res: Any, ax: Any = None) -> Any:
    """Wealth (solid) and level (dashed) of each stream along the tests, acceptances marked.

    Log scale: the wealth and the much smaller levels share one axis.  Returns the Axes.

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
    h = h[h["test"].notna()]
    ax = _axes(ax)
    for j, (name, rows) in enumerate(h.groupby("stream", sort=False, observed=True)):
        color = f"C{j % 10}"
        t = rows["test"].astype(float)
        ax.step(t, rows["wealth"], where="post", color=color, lw=1.2, label=f"{name}: wealth")
        if rows["level"].notna().any():
            ax.step(t, rows["level"], where="post", color=color, lw=1, ls="--", label=f"{name}: level")
        acc = rows["accepted"].to_numpy(bool)
        if acc.any():
            ax.scatter(t[acc], rows.loc[acc, "wealth"], color=color, edgecolor="k", zorder=3, s=30)
    if h["accepted"].any():
        ax.scatter([], [], color="w", edgecolor="k", s=30, label="selected")
    ax.set_yscale("log")
    ax.set_xlabel("test")
    ax.set_ylabel("wealth and level")
    ax.legend(loc="best", fontsize="small")
    return ax


def coefficient_plot(res: Any, ax: Any = None, *, alpha: float = 0.05, intercept: bool = False) -> Any:
    """Estimates of the refit with ``1 - alpha`` intervals; returns the Axes.

    The intervals are the refit's nominal ones: they ignore that the terms were selected
    on the same data (the x label says so).  Use ``validate=`` for intervals that hold.

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
    y = np.arange(len(params))[::-1]
    ax.errorbar(params.to_numpy(), y, xerr=[params - ci[0], ci[1] - params], fmt="o", color="C0", capsize=3)
    ax.axvline(0.0, color="0.5", lw=1, ls=":")
    ax.set_yticks(y)
    ax.set_yticklabels(list(params.index))
    level = f"{100 * (1 - alpha):g}%"
    ax.set_xlabel(f"estimate with {level} interval\n(nominal: not adjusted for the selection)")
    return ax


def wealth_plot(res: Any, ax: Any = None) -> Any:
    """Wealth per stream against the test index, acceptances marked; returns the Axes.

    With ``history="none"`` the wealth was kept at the acceptances only: those points are
    plotted (joined per stream) and the title says so.

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
    w = res.wealth
    if res.history_kept:
        for col in w.columns:
            ax.step(w.index.astype(float), w[col].to_numpy(), where="post", label=str(col))
    else:
        kept = res.history[res.history["test"].notna()]
        for name, rows in kept.groupby("stream", sort=False):
            ax.plot(rows["test"].astype(float), rows["wealth"].to_numpy(dtype=float), ls=":", marker=".",
                    label=str(name))
        ax.set_title("history='none': wealth at acceptances only (the path between them was not kept)",
                     fontsize="small")
    sel = res.selected
    if len(sel):
        ax.scatter(sel["test"], sel["wealth"], marker="o", color="k", zorder=3, label="selected")
    ax.set_xlabel("test")
    ax.set_ylabel("wealth")
    ax.legend(loc="best", fontsize="small")
    return ax
