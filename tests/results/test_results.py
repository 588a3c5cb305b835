"""Results: refit equals statsmodels on selected_formula; predict, pickle, summary, tables."""
import pickle

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from one_phase import ONE_PHASE

import streamreg as sr


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(42)
    n = 300
    d = pd.DataFrame(rng.normal(size=(n, 12)), columns=[f"x{i}" for i in range(12)])
    d["grp"] = rng.choice(["a", "b", "c"], size=n)
    d["age"] = rng.uniform(20, 70, size=n)
    eta = 0.5 * d["x1"] - 0.7 * d["x4"] + 0.4 * (d["grp"] == "b") + 0.01 * d["age"]
    d["y"] = eta + rng.normal(size=n)
    d["yb"] = rng.binomial(1, 1 / (1 + np.exp(-eta)))
    d["lab"] = np.where(d["yb"] == 1, "case", "ctrl")
    d["cnt"] = rng.poisson(np.exp(0.5 + 0.3 * d["x1"]))
    return d


CASES = [
    ("y ~ age + stream(x*) + stream(C(grp))", "gaussian"),
    ("yb ~ age + C(grp) + stream(x*)", "binomial"),
    ("lab ~ stream(x*, C(grp))", "binomial"),
    ("cnt ~ stream(x*)", "poisson"),
]


@pytest.mark.parametrize("formula, family", CASES)
def test_refit_equals_statsmodels_formula_api(data, formula, family):
    fit = sr.streamreg(formula, data, family=family)
    assert len(fit.selected) >= 1
    if family == "gaussian":
        ref = smf.ols(fit.selected_formula, data).fit()
    else:
        fam = {"binomial": sm.families.Binomial(), "poisson": sm.families.Poisson()}[family]
        ref = smf.glm(fit.selected_formula, data, family=fam).fit(tol=1e-10)
        # statsmodels takes the covariance from the weights of the step before the last; restarted at
        # the MLE its covariance is evaluated there (R's, and what streamreg's refit reports)
        ref = smf.glm(fit.selected_formula, data, family=fam).fit(start_params=ref.params, tol=1e-10)
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=1e-8)
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(fit.conf_int(), ref.conf_int(), rtol=1e-8)
    assert list(fit.params.index) == list(ref.params.index)
    new = data.sample(40, random_state=1).assign(x1=lambda d: d["x1"] + 1.0)
    np.testing.assert_allclose(fit.predict(new), ref.predict(new), rtol=1e-10)


def test_predict_new_data_with_subset_of_factor_levels(data):
    fit = sr.streamreg("y ~ C(grp) + stream(x*)", data)
    new = data[data["grp"] == "a"].head(5)
    ref = smf.ols(fit.selected_formula, data).fit()
    np.testing.assert_allclose(fit.predict(new), ref.predict(new), rtol=1e-10)
    with pytest.raises(ValueError, match="lacks the column"):
        fit.predict(new.drop(columns=["grp"]))


def test_pickle_roundtrip(data):
    fit = sr.streamreg("yb ~ C(grp) + stream(x*)", data, family="binomial")
    back = pickle.loads(pickle.dumps(fit))
    pd.testing.assert_series_equal(back.params, fit.params)
    pd.testing.assert_frame_equal(back.history, fit.history)
    pd.testing.assert_series_equal(back.predict(data.head(7)), fit.predict(data.head(7)))
    assert back.summary().as_text() .count("Streamwise selection") == 1


def test_summary_text_html_latex_and_honesty_lines(data):
    fit = sr.streamreg("y ~ stream(x*)", data, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    s = fit.summary()
    text = s.as_text()
    assert "OLS Regression Results" in text
    assert "alpha-investing(w0=0.05, alpha_delta=0.05)" in text
    assert "mFDR = E[V]/(E[R] + 1) <= 0.05" in text
    assert "not valid post-selection p-values" in text
    assert text.index("Streamwise selection") < text.index("coef")
    assert "<table" in s.as_html() and "Streamwise selection" in s.as_html()
    latex = s.as_latex()
    assert latex.count("\\begin{tabular}") >= 4
    est = fit.false_selection_estimate()
    k = len(fit.selected)
    assert est == pytest.approx(0.05 * k + 0.05 - fit.per_stream["final_wealth"].sum())


def test_selected_table_matches_history(data):
    fit = sr.streamreg("y ~ stream(x*) + stream(C(grp))", data)
    h = fit.history
    acc = h[h["accepted"]]
    assert list(fit.selected["term"]) == fit.selected_terms  # the model's order
    by_test = fit.selected.sort_values("test")  # the default lists them in stream order
    assert list(by_test["term"]) == list(acc["term"])
    np.testing.assert_allclose(by_test["pvalue"], acc["pvalue"])
    np.testing.assert_allclose(by_test["level"], acc["level"])
    assert (fit.selected["pvalue"] < fit.selected["level"]).all()
    assert list(fit.selected.columns) == ["order", "term", "stream", "test", "stream_test", "statistic", "df",
                                          "pvalue", "level", "wealth"]


def test_tidy_glance_and_wealth(data):
    fit = sr.streamreg("y ~ stream(x*)", data, passes=3, **ONE_PHASE)
    t = fit.tidy()
    assert list(t.columns[:5]) == ["term", "estimate", "std.error", "statistic", "p.value"]
    np.testing.assert_allclose(t["estimate"], fit.fit.params)
    np.testing.assert_allclose(t["statistic"], fit.fit.tvalues)
    g = fit.glance()
    assert len(g) == 1 and g.loc[0, "nobs"] == 300
    assert g.loc[0, "r.squared"] == pytest.approx(fit.fit.rsquared)
    w = fit.wealth
    assert list(w.columns) == ["x*"]
    assert w.iloc[-1, 0] == pytest.approx(fit.per_stream["final_wealth"].iloc[0])


def test_plots_return_axes(data):
    fit = sr.streamreg("y ~ stream(x*) + stream(C(grp))", data)
    fig, (a1, a2) = plt.subplots(1, 2)
    assert fit.plot_wealth(ax=a1) is a1
    assert fit.plot_pvalues(ax=a2) is a2
    plt.close(fig)


def test_select_api_with_dataframe_and_fixed(data):
    x = data[[f"x{i}" for i in range(12)]]
    fit = sr.select(data["y"], {"xs": x}, fixed=data[["age"]])
    ref = smf.ols(fit.selected_formula, data).fit()
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-8)
    assert fit.selected_formula.startswith("y ~ 1 + age")
    np.testing.assert_allclose(fit.predict(data.head()), ref.predict(data.head()), rtol=1e-10)


def test_long_selection_facts_wrap_to_the_summary_width(data):
    """A penalised method's long test description wraps instead of widening the block."""
    fit = sr.streamreg("y ~ stream(x*)", data, method="grafting", lam=0.05)
    text = fit.summary().as_text()
    block = text[text.index("Streamwise selection"):text.index("stream tested")]
    assert max(len(line.rstrip()) for line in block.splitlines()) <= 78
    # nothing is lost: the wrapped pieces join back into the full description
    lines = block.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Test:"))
    col = lines[first].index("gradient")  # where the value column starts
    joined = " ".join(line[col:].strip() for line in lines[first:] if line[:col].strip() in ("Test:", ""))
    assert fit.test_description in " ".join(joined.split())


def test_guarantee_of_the_paper_test_carries_its_caveat():
    df = sr.datasets.make_synthetic(100, 30, 2, noise=1.0, seed=0).data
    paper = sr.streamreg("y ~ stream(x*)", df, test="paper", w0=0.05, alpha_delta=0.05).guarantee()
    exact = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).guarantee()
    assert "CAVEAT: test='paper'" in paper and "CAVEAT" not in exact
