"""Plots that agree and are never silently empty (issue 28, item 7), checked on the artists (Agg).

* one colour per stream: every line and point of a stream has ``stream_colors(fit)[stream]``
  in the p-value plot, the selection path, the wealth plot and the coefficient plot;
* one convention for the curves (``streamreg.results.plots``' docstring): each stream's wealth
  starts at test 0 at its initial wealth and steps after each of its tests; its level starts at
  test 0 at its first test's level and steps up to each test; both end at its last test;
* a stepwise GLM's plots draw its p-values (from R's LRT law, ``tests/search/test_stepwise_pvalues.py``);
* a plot with nothing to show says so on the Axes and warns.
"""
from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgba
from reference_csv import REF

import streamreg as sr
from streamreg.results.plots import (
    STREAM_PALETTE,
    EmptyPlotWarning,
    coefficient_plot,
    pvalue_plot,
    selection_path_plot,
    stream_colors,
    wealth_plot,
)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def three_streams():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(150, 45))
    y = x[:, 2] - x[:, 17] + 0.8 * x[:, 40] + 0.6 * rng.normal(size=150)
    return sr.select(y, {"a": x[:, :15], "b": x[:, 15:30], "c": x[:, 30:]}, method="alpha-investing")


@pytest.fixture(scope="module")
def stepwise_glm():
    df = pd.read_csv(REF / "data" / "birthwt.csv")
    return sr.streamreg("low ~ lwt + stream(C(race), smoke, ht, ui, age) + stream(ptl, ftv)", df,
                        family="binomial", method="stepwise-aic", direction="both")


def _lines(ax, suffix=""):
    """Labelled lines (legend label -> Line2D)."""
    return {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label().endswith(suffix)}


def _assert_drawn(line):
    x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    assert len(x) >= 2 and np.isfinite(x).all() and np.isfinite(y).all(), line.get_label()


def test_one_colour_per_stream_in_every_plot(three_streams):
    fit = three_streams
    colors = stream_colors(fit)
    assert list(colors) == ["a", "b", "c"] and list(colors.values()) == list(STREAM_PALETTE[:3])
    # the palette keeps clear of the p-value plot's status colours (selected red, rejected grey)
    assert to_rgba("#d62728") not in {to_rgba(c) for c in STREAM_PALETTE}
    seen: dict[str, set] = {name: set() for name in colors}
    path = selection_path_plot(fit)
    for name in colors:
        for what in ("wealth", "level"):
            line = _lines(path)[f"{name}: {what}"]
            _assert_drawn(line)
            seen[name].add(to_rgba(line.get_color()))
    pv = pvalue_plot(fit)
    for name in colors:
        line = _lines(pv)[f"level ({name})"]
        _assert_drawn(line)
        seen[name].add(to_rgba(line.get_color()))
    wealth = wealth_plot(fit)
    for name in colors:
        line = _lines(wealth)[name]
        _assert_drawn(line)
        seen[name].add(to_rgba(line.get_color()))
    coef = coefficient_plot(fit)
    for coll in coef.collections:
        if isinstance(coll, PathCollection) and coll.get_label() in colors:
            seen[coll.get_label()].add(tuple(coll.get_facecolor()[0]))
    # the selection path's and the wealth plot's acceptance markers, by their position
    for ax in (path, wealth):
        for coll in ax.collections:
            if isinstance(coll, PathCollection) and len(coll.get_offsets()):
                tests = coll.get_offsets()[:, 0]
                streams = fit.history.set_index("test").loc[tests, "stream"].astype(str).unique()
                assert len(streams) == 1
                seen[streams[0]].add(tuple(coll.get_facecolor()[0]))
    assert {name: len(c) for name, c in seen.items()} == {name: 1 for name in colors}
    assert {name: c.pop() for name, c in seen.items()} == {name: to_rgba(c) for name, c in colors.items()}


def test_curves_start_at_test_zero_and_end_at_the_streams_last_test(three_streams):
    fit = three_streams
    h = fit.history[fit.history["test"].notna()]
    path, pv, wealth = selection_path_plot(fit), pvalue_plot(fit), wealth_plot(fit)
    for name, rows in h.groupby(h["stream"].astype(str)):
        tests = rows["test"].to_numpy(float)
        for line in (_lines(path)[f"{name}: wealth"], _lines(wealth)[name]):
            assert line.get_drawstyle() == "steps-post"
            np.testing.assert_array_equal(line.get_xdata(), np.r_[0.0, tests])
            np.testing.assert_allclose(line.get_ydata(), np.r_[fit.search.initial_wealth[name], rows["wealth"]],
                                       rtol=1e-15)
        for line in (_lines(path)[f"{name}: level"], _lines(pv)[f"level ({name})"]):
            assert line.get_drawstyle() == "steps-pre"
            np.testing.assert_array_equal(line.get_xdata(), np.r_[0.0, tests])
            np.testing.assert_allclose(line.get_ydata(), np.r_[rows["level"].iloc[0], rows["level"]], rtol=1e-15)


def test_stepwise_glm_plots_draw_its_pvalues(stepwise_glm):
    fit = stepwise_glm
    h = fit.history
    assert h["pvalue"].notna().all()
    ax = fit.plot_pvalues()
    points = np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    np.testing.assert_allclose(np.sort(points[:, 1]), np.sort(h["pvalue"].to_numpy(float)), rtol=1e-12)
    assert len(points) == len(h) and not ax.texts
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"selected", "level (C(race), smoke, ht, ui, age)"}
    path = fit.plot_selection_path()
    assert path.get_ylabel() == "level" and not path.texts  # no wealth: the levels, acceptances on them
    for line in path.get_lines():
        _assert_drawn(line)
    marks = [c for c in path.collections if isinstance(c, PathCollection) and len(c.get_offsets())]
    assert sum(len(c.get_offsets()) for c in marks) == int(h["accepted"].sum())


def test_a_plot_with_nothing_to_show_says_so(stepwise_glm):
    with pytest.warns(EmptyPlotWarning, match="No wealth to plot: stepwise has no wealth"):
        ax = stepwise_glm.plot_wealth()
    assert [t.get_text() for t in ax.texts] == ["No wealth to plot: stepwise has no wealth (it spends none)."]
    assert ax.get_legend() is None and not ax.get_lines()

    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 10))
    y = x[:, 0] + rng.normal(size=100)
    fsa = sr.select(y, x, method="fsa", k=2)
    for plot, text in ((pvalue_plot, "No p-values to plot: fsa records no p-values."),
                       (selection_path_plot, "No selection path to plot: fsa records neither wealth nor levels."),
                       (wealth_plot, "No wealth to plot: fsa has no wealth (it spends none).")):
        with pytest.warns(EmptyPlotWarning, match=text.split(":")[0]):
            ax = plot(fsa)
        assert [t.get_text() for t in ax.texts] == [text]

    noise = sr.select(rng.normal(size=100), x)
    assert noise.selected_terms == []
    with pytest.warns(EmptyPlotWarning, match="No coefficient to plot"):
        ax = coefficient_plot(noise)
    assert "intercept=True shows the intercept" in ax.texts[0].get_text()
    # with something to show, no text and no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = coefficient_plot(noise, intercept=True)
    assert not ax.texts
