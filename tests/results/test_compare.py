"""``streamreg.compare``: several fits side by side (issue 14, item 1).

References: each fit's own statsmodels numbers (``params``, ``bse``, ``conf_int``, ...),
statsmodels' ``summary_col`` (the coefficient block must print the same strings), the
binomial log-likelihood and the AIC/BIC written out from their definitions, and the
selection records of the results.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy.special import xlogy
from statsmodels.iolib.summary2 import summary_col
from test_latex import compile_latex

import streamreg as sr
from streamreg.results.compare import short_guarantee

FORMULA = "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)"


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


@pytest.fixture(scope="module")
def fits(wdbc):
    out = {m: sr.streamreg(FORMULA, wdbc, family="binomial", method=m) for m in ("lord++", "bic")}
    out["alpha-investing"] = sr.streamreg(FORMULA, wdbc, family="binomial", method="alpha-investing", w0=0.05,
                                          alpha_delta=0.05)
    return out


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(8)
    df = pd.DataFrame(rng.normal(size=(150, 8)), columns=[f"x_{i}" for i in range(8)])
    df["y"] = 1 + 2 * df["x_0"] - df["x_3"] + rng.normal(size=150)
    return df


def test_coefficients_equal_each_fits_params_and_bse(fits):
    table = sr.compare(fits)
    assert table.names == list(fits)
    for name, fit in fits.items():
        for attr in ("params", "bse", "pvalues", "tvalues"):
            column = getattr(table, attr)[name]
            want = getattr(fit.fit, attr)
            assert set(column.dropna().index) == set(want.index)
            np.testing.assert_allclose(column[want.index].to_numpy(), want.to_numpy(), rtol=0, atol=1e-10)
    # the union of the terms, in order of first appearance
    terms = list(dict.fromkeys(t for f in fits.values() for t in f.params.index))
    assert list(table.params.index) == terms


@pytest.mark.parametrize("stars, float_format", [(False, "%.4f"), (True, "%.4f"), (True, "%.2f")])
def test_coefficient_block_prints_as_summary_col(fits, stars, float_format):
    frame = sr.compare(fits, stars=stars, float_format=float_format).to_frame().loc["coefficients"]
    col = summary_col([f.fit for f in fits.values()], stars=stars, float_format=float_format,
                      model_names=list(fits), include_r2=False).tables[0]
    expected = col.iloc[:len(frame)]
    assert list(expected.index[::2]) == list(frame.index.get_level_values("term")[::2])
    np.testing.assert_array_equal(frame.to_numpy(), expected.to_numpy())


def test_confidence_intervals_and_other_statistics(fits):
    fit = fits["bic"].fit
    frame = sr.compare(fits, statistic="conf_int", alpha=0.1).to_frame()
    ci = fit.conf_int(alpha=0.1)
    for term in fit.params.index:
        cell = frame.loc[("coefficients", term, "conf_int"), "bic"]
        low, high = (float(v) for v in re.fullmatch(r"\[(.*), (.*)\]", cell).groups())
        assert abs(low - ci.loc[term, 0]) <= 5e-5 and abs(high - ci.loc[term, 1]) <= 5e-5
        assert cell == f"[{ci.loc[term, 0]:.4f}, {ci.loc[term, 1]:.4f}]"
    # the interval is the Wald interval at 1 - alpha (z for a GLM)
    z = 1.6448536269514722
    np.testing.assert_allclose(ci[0], fit.params - z * fit.bse, rtol=1e-12)
    for statistic, source in (("tvalue", fit.tvalues), ("pvalue", fit.pvalues)):
        frame = sr.compare(fits, statistic=statistic).to_frame()
        term = fit.params.index[1]
        assert frame.loc[("coefficients", term, statistic), "bic"] == f"({source[term]:.4f})"
    frame = sr.compare(fits, statistic=None).to_frame()
    assert set(frame.loc["coefficients"].index.get_level_values("statistic")) == {"estimate"}


def test_custom_stars_take_the_smallest_level_passed(fits):
    table = sr.compare(fits, stars={"+": 0.1, "*": 0.05, "**": 0.01, "***": 0.001})
    frame = table.to_frame().loc["coefficients"]
    p = table.pvalues["lord++"]
    for term in table.params["lord++"].dropna().index:
        cell = frame.loc[(term, "estimate"), "lord++"]
        mark = next((s for s, lv in (("***", .001), ("**", .01), ("*", .05), ("+", .1)) if p[term] < lv), "")
        assert cell == f"{table.params.at[term, 'lord++']:.4f}" + mark
    assert "+ p < 0.1, * p < 0.05, ** p < 0.01, *** p < 0.001." in table.notes


def test_fit_statistics_against_their_definitions(fits, wdbc):
    table = sr.compare(fits)
    stats = table.statistics
    assert list(stats.index) == ["Observations", "Log-likelihood", "AIC", "BIC", "Deviance"]
    y = (wdbc["diagnosis"] == "M").to_numpy(float)
    for name, fit in fits.items():
        mu = np.asarray(fit.fit.fittedvalues)
        llf = float(np.sum(xlogy(y, mu) + xlogy(1 - y, 1 - mu)))
        k, n = len(fit.params), len(y)
        assert stats.at["Observations", name] == n
        assert stats.at["Log-likelihood", name] == pytest.approx(llf, rel=1e-10)
        assert stats.at["AIC", name] == pytest.approx(-2 * llf + 2 * k, rel=1e-10)
        assert stats.at["BIC", name] == pytest.approx(-2 * llf + k * math.log(n), rel=1e-10)
        assert stats.at["Deviance", name] == pytest.approx(-2 * llf, rel=1e-10)  # binary y: saturated llf = 0
    printed = table.to_frame().loc["statistics"]
    assert printed.loc[("AIC", ""), "bic"] == f"{stats.at['AIC', 'bic']:.4f}"
    assert printed.loc[("Observations", ""), "bic"] == "569"


def test_selection_rows(fits):
    table = sr.compare(fits)
    for name, fit in fits.items():
        column = table.selection[name]
        assert column["Method"] == fit.policy.name
        assert column["Tested"] == str(int(fit.per_stream["tested"].sum())) == "30"
        assert column["Selected"] == str(len(fit.selected_terms))
        assert column["Refused"] == "0"
    # LORD++ states mFDR first (valid under conditional super-uniformity); its FDR needs independence
    assert table.selection.loc["Guarantee"].tolist() == ["mFDR <= 0.05", "none", "mFDR <= 0.05"]
    assert any(n.startswith("Methods: lord++: lord++(alpha=0.05, w0=0.005);") for n in table.notes)


def test_refused_candidates_are_counted():
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.normal(size=(120, 5)), columns=[f"x{i}" for i in range(5)])
    df["sep"] = (df["x1"] > 0).astype(int)
    fit = sr.streamreg("sep ~ stream(x*)", df, family="binomial")
    refused = int(fit.history["status"].astype(str).str.startswith("refused").sum())
    assert refused >= 1
    assert sr.compare(fit).selection.at["Refused", "(1)"] == str(refused)


@pytest.mark.parametrize("method, expected", [
    ("alpha-investing", "mFDR <= 0.5"), ("information-investing", "mFDR <= 0.5"), ("lord++", "mFDR <= 0.05"),
    ("lond", "FDR <= 0.05"), ("saffron", "FDR <= 0.05"), ("addis", "FDR <= 0.05"),
    ("alpha-spending", "FWER <= 0.05"), ("alpha-investing-fdr", "FDR <= 0.05"), ("foster-stine", "mFDR <= 0.05"),
    ("aic", "none"), ("bic", "none"), ("ric", "none"), ("stepwise-aic", "none"), ("stepwise-bic", "none"),
    ("grafting", "none"), ("bp-sfs", "none"),
])
def test_guarantee_row_of_every_method(gaussian, method, expected):
    fit = sr.streamreg("y ~ stream(x_*)", gaussian, method=method)
    assert short_guarantee(fit.guarantee()) == expected
    assert sr.compare(fit).selection.at["Guarantee", "(1)"] == expected


def test_notes_say_which_fits_were_refit_on_held_out_rows(gaussian):
    same = sr.streamreg("y ~ stream(x_*)", gaussian)
    split = sr.streamreg("y ~ stream(x_*)", gaussian, validate=0.5, seed=1)
    notes = sr.compare([same, split]).notes
    assert "Standard errors and p-values of (1) come from refitting the selected terms on the data they were " \
           "selected on: they ignore the selection." in notes
    assert "(2): the selected terms were refit on held-out rows, so the inference is conditional on the " \
           "selected model." in notes
    assert sr.compare(split).statistics.at["Observations", "(1)"] == split.nobs < len(gaussian)


def test_void_guarantee():
    assert short_guarantee("FDR <= 0.05 (Ramdas). VOID here: the order of stream(s) ...") == "void"
    assert short_guarantee("A rule of one's own.") == "see guarantee()"


def test_plain_statsmodels_fits_sit_beside_streamreg_fits(fits, wdbc, gaussian):
    full = smf.glm("I((diagnosis == 'M') * 1) ~ radius_mean + texture_mean", wdbc, family=sm.families.Binomial()).fit()
    table = sr.compare([fits["lord++"], full], names=["selected", "two terms"])
    assert table.selection["two terms"].tolist() == [""] * 5
    np.testing.assert_allclose(table.params["two terms"].dropna(), full.params, rtol=0, atol=1e-10)
    # results of arrays carry their names on the model; OLS reports R-squared
    x = sm.add_constant(gaussian[["x_0", "x_3"]].to_numpy())
    ols = sm.OLS(gaussian["y"].to_numpy(), x).fit()
    sel = sr.streamreg("y ~ stream(x_*)", gaussian)
    both = sr.compare({"streamreg": sel, "arrays": ols})
    assert list(both.params["arrays"].dropna().index) == ["const", "x1", "x2"]
    np.testing.assert_allclose(both.bse["arrays"].dropna(), ols.bse, rtol=0, atol=1e-10)
    assert both.statistics.at["R-squared", "arrays"] == pytest.approx(ols.rsquared, rel=1e-12)
    assert both.statistics.at["R-squared", "streamreg"] == pytest.approx(sel.fit.rsquared, rel=1e-12)
    resid = gaussian["y"] - sel.predict()
    r2 = 1 - np.sum(resid**2) / np.sum((gaussian["y"] - gaussian["y"].mean()) ** 2)
    assert both.statistics.at["R-squared", "streamreg"] == pytest.approx(r2, rel=1e-10)
    assert both.statistics.at["AIC", "arrays"] == pytest.approx(ols.aic + 2, rel=1e-12)  # R's, as the other column
    assert any("arrays: computed from the statsmodels result" in n for n in both.notes)


def test_renderings(fits):
    table = sr.compare(fits, stars=True, title="wdbc & friends: 100% <= real")
    text = table.as_text()
    assert str(table) == text == repr(table)
    lines = text.splitlines()
    width = len(lines[1])
    assert "wdbc & friends" in lines[0] and lines.count("=" * width) == 2  # above and below the table
    assert lines.count("-" * width) == 3  # under the header and between the three blocks
    assert "Standard errors in parentheses." in text
    html = table.as_html()
    assert html == table._repr_html_()
    assert "<caption>wdbc &amp; friends: 100% &lt;= real</caption>" in html
    assert re.search(r"<td>\s*mFDR &lt;= 0.05\s*</td>", html) and "<=" not in html
    tex = table.as_latex()
    assert tex.startswith("\\begin{table}[htbp]\n\\centering\n\\caption{wdbc \\& friends: 100\\% \\ensuremath{\\leq} real}")
    assert tex.count("\\midrule") == 3 and "\\toprule" in tex and "\\bottomrule" in tex
    assert "radius\\_mean" in tex and "{*}{*}{*}" in tex and "<=" not in tex
    assert tex.count("\\begin{tabular}") == 1  # the header and the blocks share one tabular


def test_to_frame_layout(fits):
    frame = sr.compare(fits).to_frame()
    assert frame.index.names == ["part", "term", "statistic"]
    assert list(dict.fromkeys(frame.index.get_level_values("part"))) == ["coefficients", "selection", "statistics"]
    assert frame.loc[("selection", "Method", ""), "bic"] == "bic"
    assert (frame.map(type) == str).all().all()  # noqa: E721 -- elementwise


def test_latex_compiles_with_awkward_names(fits, tmp_path):
    named = dict(zip(["a & b", "50% *", "x_1 <= 2"], fits.values()))
    text = compile_latex(sr.compare(named, statistic="conf_int", title="A [first] look").as_latex(), tmp_path)
    if text is not None:
        assert "a & b" in text and "50% *" in text and "≤" in text and "¡" not in text


def test_bad_input(fits):
    fit = fits["bic"]
    with pytest.raises(ValueError, match="needs at least one fit"):
        sr.compare([])
    with pytest.raises(TypeError, match="fit 2 is a DataFrame"):
        sr.compare([fit, pd.DataFrame()])
    with pytest.raises(ValueError, match="names has 1 entries for 2 fits"):
        sr.compare([fit, fit], names=["a"])
    with pytest.raises(ValueError, match=r"fit names must be unique, got \['a', 'a'\]"):
        sr.compare([fit, fit], names=["a", "a"])
    with pytest.raises(TypeError, match="not a single string"):
        sr.compare([fit], names="a")
    with pytest.raises(ValueError, match="statistic must be one of 'std_err', 'tvalue', 'pvalue', 'conf_int'"):
        sr.compare(fit, statistic="se")
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        sr.compare(fit, alpha=5)
    with pytest.raises(ValueError, match="stars must map non-empty strings to levels in"):
        sr.compare(fit, stars={"*": 2})
    with pytest.raises(ValueError, match="stars must be True, False or a dict"):
        sr.compare(fit, stars="yes")
    with pytest.raises(ValueError, match="float_format must be a printf-style format"):
        sr.compare(fit, float_format="{:.3f}")
