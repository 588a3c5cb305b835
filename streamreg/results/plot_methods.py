"""The plot methods of :class:`~streamreg.results.StreamRegResults` (drawn by :mod:`.plots`).

The plots share one colour per stream and one convention for the curves (each stream's
from test 0); a plot with nothing to show says so on its Axes and warns
(:class:`~streamreg.results.plots.EmptyPlotWarning`).  See :mod:`streamreg.results.plots`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .plots import coefficient_plot, pvalue_plot, selection_path_plot, wealth_plot

if TYPE_CHECKING:
    from matplotlib.axes import Axes


class ResultPlots:
    """``plot_*`` methods: each draws on ``ax`` (default: a new figure's Axes) and returns it."""

    def plot_wealth(self, ax: Axes | None = None) -> Axes:
        """Wealth per stream against the test index; returns the Axes.

        With ``history="none"`` the wealth was kept at the acceptances only: those points
        are plotted (joined per stream) and the title says so.  Methods without wealth
        (stepwise, the penalised searches) have nothing to plot: the Axes say so, with a
        warning.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure's Axes if None (as in statsmodels).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> ax = fit.plot_wealth(ax=Figure().subplots())
        >>> ax.get_xlabel(), ax.get_ylabel()
        ('test', 'wealth')
        """
        return wealth_plot(self, ax=ax)

    def plot_pvalues(self, ax: Axes | None = None) -> Axes:
        """p-values of every test (log scale) against the level in force; returns the Axes.

        Needs the full history: raises ValueError after ``history="none"``.  Stepwise
        searches plot the p-value of each move (the likelihood-ratio test of the term).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure's Axes if None (as in statsmodels).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> ax = fit.plot_pvalues(ax=Figure().subplots())
        >>> ax.get_ylabel(), ax.get_yscale()
        ('p-value', 'log')
        """
        res: Any = self
        if not res.history_kept:
            raise ValueError("plot_pvalues needs the p-value of every test, but the history was not kept "
                             f"(history='none'; only the {len(res.history)} selected and refused terms are "
                             "recorded): rerun with history='full' to plot it")
        return pvalue_plot(self, ax=ax)

    def plot_selection_path(self, ax: Axes | None = None) -> Axes:
        """Wealth and level of each stream along the tests, acceptances marked; returns the Axes.

        See :func:`streamreg.results.plots.selection_path_plot`.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure's Axes if None (as in statsmodels).

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.plot_selection_path(ax=Figure().subplots()).get_yscale()
        'log'
        """
        return selection_path_plot(self, ax=ax)

    def plot_coefficients(self, ax: Axes | None = None, *, alpha: float = 0.05, intercept: bool = False) -> Axes:
        """Refit estimates with their nominal ``1 - alpha`` intervals; returns the Axes.

        See :func:`streamreg.results.plots.coefficient_plot` (the intervals ignore the selection).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure's Axes if None (as in statsmodels).
        alpha : float, default 0.05
            The intervals are at level ``1 - alpha``.
        intercept : bool, default False
            Also plot the intercept.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> [t.get_text() for t in fit.plot_coefficients(ax=Figure().subplots()).get_yticklabels()]
        ['x2']
        """
        return coefficient_plot(self, ax=ax, alpha=alpha, intercept=intercept)
