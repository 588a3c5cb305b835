"""Plots: drawn with the Agg backend, each returns its Axes and shows what the results hold."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection

import streamreg as sr
from streamreg.results.plots import coefficient_plot, pvalue_plot, selection_path_plot


@pytest.fixture
def fit():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(90, 50))
    x[:, 10] = 1.0  # constant: skipped
    x[:, 20] = x[:, 2] * 2  # collinear once x2 is in: skipped
    y = x[:, 2] - x[:, 30] + 0.5 * rng.normal(size=90)
    return sr.select(y, {"a": x[:, :25], "b": x[:, 25:]})


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _offsets(ax, label):
    for coll in ax.collections:
        if coll.get_label() == label:
            return coll.get_offsets()
    raise AssertionError(f"no artist labelled {label!r}")


def test_pvalue_plot_marks_every_status(fit):
    _, ax = plt.subplots()
    assert pvalue_plot(fit, ax=ax) is ax
    h = fit.history
    status = h["status"].astype(str)
    assert len(_offsets(ax, "selected")) == int(h["accepted"].sum())
    assert len(_offsets(ax, "rejected")) == int((status == "rejected").sum())
    skipped = _offsets(ax, "skipped, not tested (constant or collinear)")
    assert len(skipped) == int(status.str.startswith("skipped").sum()) >= 2
    np.testing.assert_array_equal(skipped[:, 1], 1.0)
    sel = _offsets(ax, "selected")
    np.testing.assert_allclose(sel[:, 1], h.loc[h["accepted"], "pvalue"].to_numpy(), rtol=1e-12)
    assert ax.get_ylim()[1] >= 1 and ax.get_yscale() == "log"
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert {"selected", "rejected", "level (a)", "level (b)"} <= labels  # one level line per stream
    first = fit.plot_pvalues()
    second = fit.plot_coefficients()  # ax=None: a new figure each time, never drawn over the last plot
    assert first is not second and first.figure is not second.figure and second is plt.gca()
    assert second.get_ylabel() != first.get_ylabel()
    plt.close("all")


def test_pvalue_plot_marks_refusals():
    rng = np.random.default_rng(5)
    y = (rng.random(80) < 0.5).astype(float)
    x = rng.normal(size=(80, 20))
    x[:, 4] = y - 0.5 + 0.01 * rng.normal(size=80)  # separates the classes: no MLE, refused
    fit = sr.select(y, x, family="binomial")
    refused = fit.history["status"].astype(str).str.startswith("refused")
    assert refused.sum() == 1
    ax = pvalue_plot(fit)
    marks = _offsets(ax, "refused (no MLE, no convergence or invalid means)")
    np.testing.assert_allclose(marks[:, 0], fit.history.loc[refused, "test"].astype(float).to_numpy())


def test_selection_path_has_wealth_and_level_per_stream(fit):
    ax = selection_path_plot(fit)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["a: wealth", "a: level", "b: wealth", "b: level", "selected"]
    wealth_a = ax.get_lines()[0]
    rows = fit.history[(fit.history["stream"] == "a") & fit.history["test"].notna()]
    # from test 0 at the initial wealth (the plots' one convention), then after each test
    np.testing.assert_allclose(wealth_a.get_ydata(), np.r_[fit.search.initial_wealth["a"], rows["wealth"]],
                               rtol=1e-12)


def test_coefficient_plot_draws_the_refit_intervals(fit):
    ax = coefficient_plot(fit, alpha=0.1)
    ci = fit.conf_int(alpha=0.1).drop(index="Intercept")
    bars = ax.containers[0]
    # the estimates are points of their stream's colour over the interval bars
    points = np.concatenate([c.get_offsets()[:, 0] for c in ax.collections if isinstance(c, PathCollection)])
    np.testing.assert_allclose(np.sort(points), np.sort(fit.params.drop("Intercept").to_numpy()), rtol=1e-12)
    segments = bars.lines[2][0].get_segments()
    np.testing.assert_allclose([s[:, 0] for s in segments], ci.to_numpy(), rtol=1e-12)
    assert "not adjusted for the selection" in ax.get_xlabel()
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        coefficient_plot(fit, alpha=5)


def test_plots_needing_the_full_history_say_so():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 30))
    fit = sr.select(x[:, 1] + rng.normal(size=60), x, history="none")
    for plot in (pvalue_plot, selection_path_plot):
        with pytest.raises(ValueError, match="rerun with history='full'"):
            plot(fit)
