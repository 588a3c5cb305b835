"""``streamreg.compare``: whose AIC each column shows, the method row, star levels, robust notes.

References: R's logLik/AIC/BIC recorded by ``tests/reference/r_criteria.R`` (``r_criteria.csv``),
each streamreg fit's own ``.llf``/``.aic``/``.bic``/``glance()`` and each plain statsmodels
result's own ``llf``/``aic``/``bic_llf``/``cov_type``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr

REF = Path(__file__).parents[1] / "reference"
R = pd.read_csv(REF / "r_criteria.csv").set_index("case")
ROWS = ["Log-likelihood", "AIC", "BIC"]


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


@pytest.fixture(scope="module")
def invgauss(wdbc):
    return sr.streamreg("area_mean ~ stream(*_se)", wdbc, family="inverse_gaussian")  # the report's example


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(8)
    df = pd.DataFrame(rng.normal(size=(150, 8)), columns=[f"x_{i}" for i in range(8)])
    df["y"] = 1 + 2 * df["x_0"] - df["x_3"] + rng.normal(size=150)
    df["o"] = rng.normal(size=150)
    return df


def criteria_notes(table) -> list[str]:
    return [n for n in table.notes if n.startswith("Log-likelihood, AIC and BIC")]


# -- 3. one object, one AIC ------------------------------------------------------------------------
def test_streamreg_column_shows_its_own_r_criteria(invgauss):
    table = sr.compare(invgauss)
    stats = table.statistics["(1)"]
    assert (stats["Log-likelihood"], stats["AIC"], stats["BIC"]) == (invgauss.llf, invgauss.aic, invgauss.bic)
    ref = R.loc["wdbc_invgauss"]
    np.testing.assert_allclose(stats[ROWS].to_numpy(float), ref[["logLik", "AIC", "BIC"]].to_numpy(float),
                               rtol=1e-8)
    g = invgauss.glance().iloc[0]
    assert stats["Deviance"] == g["deviance"]
    assert criteria_notes(table) == [(
        "Log-likelihood, AIC and BIC of every fit: R's logLik(), AIC() and BIC(), as .llf, .aic, .bic and "
        "glance() report them (an estimated dispersion counts as a parameter; a GLM's is deviance / n in the "
        "log-likelihood).")]


def test_plain_statsmodels_column_shows_r_criteria_too(invgauss, wdbc):
    # one convention per row: a user read a 2-point AIC gap between two columns of one model
    plain = smf.glm(invgauss.selected_formula, wdbc, family=sm.families.InverseGaussian()).fit()
    table = sr.compare({"streamreg": invgauss, "statsmodels": plain})
    ref = R.loc["wdbc_invgauss"][["logLik", "AIC", "BIC"]].to_numpy(float)
    np.testing.assert_allclose(table.statistics.loc[ROWS, "statsmodels"].to_numpy(float), ref, rtol=1e-8)
    np.testing.assert_array_equal(table.statistics.loc[ROWS, "streamreg"], [invgauss.llf, invgauss.aic, invgauss.bic])
    assert abs(plain.aic - invgauss.aic) > 10  # statsmodels' own differs: the note says which is shown
    assert criteria_notes(table) == [(
        "Log-likelihood, AIC and BIC of every fit: R's logLik(), AIC() and BIC(), as .llf, .aic, .bic and "
        "glance() report them (an estimated dispersion counts as a parameter; a GLM's is deviance / n in the "
        "log-likelihood) (statsmodels: computed from the statsmodels result, whose own .aic and .bic do not count "
        "the dispersion).")]


def test_least_squares_streamreg_fit_and_statsmodels_ols_show_one_aic(gaussian):
    sel = sr.streamreg("y ~ stream(x_*)", gaussian, method="stepwise-bic")
    ols = sm.OLS(gaussian["y"], sm.add_constant(gaussian[["x_0", "x_3"]])).fit()
    assert sel.selected_terms == ["x_0", "x_3"]  # the same model in both columns
    table = sr.compare({"sel": sel, "ols": ols})
    assert table.statistics.at["AIC", "sel"] == sel.aic == pytest.approx(ols.aic + 2, rel=1e-12)
    assert table.statistics.at["BIC", "sel"] == pytest.approx(ols.bic + np.log(150), rel=1e-12)
    assert table.statistics.at["AIC", "ols"] == pytest.approx(sel.aic, rel=1e-12)
    assert table.statistics.at["BIC", "ols"] == pytest.approx(sel.bic, rel=1e-12)
    assert table.statistics.at["R-squared", "ols"] == ols.rsquared


def test_other_statsmodels_models_keep_their_own_criteria(wdbc):
    logit = smf.logit("I((diagnosis == 'M') * 1) ~ radius_mean", wdbc).fit(disp=0)
    gamma = smf.glm("smoothness_mean ~ radius_se", wdbc, family=sm.families.Gamma(sm.families.links.Log())).fit()
    table = sr.compare({"logit": logit, "gamma": gamma})
    assert table.statistics.at["AIC", "logit"] == logit.aic
    notes = criteria_notes(table)
    assert notes[0].startswith("Log-likelihood, AIC and BIC of gamma: R's logLik()")
    assert notes[1] == "Log-likelihood, AIC and BIC of logit: statsmodels' own."


def test_r_squared_of_a_streamreg_fit_is_glances(gaussian):
    # least squares with an offset is refit as a Gaussian GLM, which has no rsquared
    fit = sr.streamreg("y ~ stream(x_*)", gaussian, offset="o")
    assert not hasattr(fit.fit, "rsquared")
    assert sr.compare(fit).statistics.at["R-squared", "(1)"] == fit.glance().at[0, "r.squared"]


def test_no_criteria_note_when_no_fit_estimates_a_dispersion(wdbc):
    fit = sr.streamreg("diagnosis ~ stream(*_mean)", wdbc, family="binomial", method="bic")
    plain = smf.glm("I((diagnosis == 'M') * 1) ~ radius_mean", wdbc, family=sm.families.Binomial()).fit()
    table = sr.compare([fit, plain])
    assert criteria_notes(table) == []
    assert table.statistics.at["AIC", "(1)"] == pytest.approx(fit.fit.aic, rel=1e-12)  # R's and statsmodels' agree


def test_plain_statsmodels_gamma_alone_gets_the_note(wdbc):
    plain = smf.glm("smoothness_mean ~ radius_se", wdbc, family=sm.families.Gamma(sm.families.links.Log())).fit()
    table = sr.compare(plain)
    notes = criteria_notes(table)
    assert len(notes) == 1 and notes[0].startswith("Log-likelihood, AIC and BIC of every fit: R's logLik()")
    assert table.statistics.at["AIC", "(1)"] != pytest.approx(plain.aic)  # R counts the dispersion


# -- 4. method row, stars, robust covariance ---------------------------------------------------------
@pytest.mark.parametrize("method, extra, label", [
    ("stepwise-bic", {}, "stepwise-bic"),
    ("stepwise-aic", {}, "stepwise-aic"),
    ("stepwise-ric", {}, "stepwise-ric"),
    ("stepwise", {"penalty": 3.0}, "stepwise (k = 3)"),
    ("stepwise-bic", {"direction": "both"}, "stepwise-bic, both"),
    ("lord++", {}, "lord++"),
])
def test_method_row_names_the_penalty(gaussian, method, extra, label):
    fit = sr.streamreg("y ~ stream(x_*)", gaussian, method=method, **extra)
    assert sr.compare(fit).selection.at["Method", "(1)"] == label


def test_duplicate_star_levels_are_refused(gaussian):
    fit = sr.streamreg("y ~ stream(x_*)", gaussian, method="bic")
    with pytest.raises(ValueError, match=r"stars must give each symbol its own level; '\*' and '\*\*' both have 0\.5"):
        sr.compare(fit, stars={"*": 0.5, "**": 0.5})
    assert sr.compare(fit, stars={"*": 0.5, "**": 0.05}).notes[1] == "* p < 0.5, ** p < 0.05."


def test_robust_standard_errors_are_noted(gaussian):
    plain = sr.streamreg("y ~ stream(x_*)", gaussian, method="bic")
    hc3 = sr.streamreg("y ~ stream(x_*)", gaussian, method="bic", cov_type="HC3")
    ols = sm.OLS(gaussian["y"], sm.add_constant(gaussian[["x_0", "x_3"]])).fit(cov_type="HC1")
    table = sr.compare({"classical": plain, "hc3": hc3, "ols": ols})
    np.testing.assert_allclose(table.bse["hc3"].dropna(), hc3.fit.bse, rtol=1e-12)
    assert ("Robust covariance (standard errors, statistics, p-values, intervals and stars): HC3 for hc3; HC1 for "
            "ols; classical (nonrobust) for the others.") in table.notes
    every = sr.compare([hc3, hc3], names=["a", "b"]).notes
    assert "Robust covariance (standard errors, statistics, p-values, intervals and stars): HC3 for a, b." in every
    assert not any(n.startswith("Robust covariance") for n in sr.compare(plain).notes)


def test_gls_keeps_statsmodels_criteria(gaussian):
    gls = sm.GLS(gaussian["y"], sm.add_constant(gaussian[["x_0", "x_3"]])).fit()
    table = sr.compare({"gls": gls})
    assert table.statistics.at["AIC", "gls"] == gls.aic  # R's lm has no GLS: statsmodels' own, no R label
    assert criteria_notes(table) == []
