"""tidy(), glance(), augment(), aic/bic and get_prediction() against R's lm / glm (recorded).

The expected numbers are in ``tests/reference/broom_*.csv``, written by
``tests/reference/broom_refit.R`` (R 4.2.2; see ``tests/reference/README.md``): R's ``summary``,
``confint`` (``confint.default`` for a glm), ``logLik``, ``AIC``, ``BIC``, ``influence``,
``rstandard``, ``cooks.distance`` and ``predict(se.fit = TRUE)`` of fixed models, the glm
restarted at its own maximum-likelihood fit so that R's numbers are those of the MLE.
streamreg fits the same model (a stream it never tests: ``method="stepwise-aic",
max_steps=0``).  R is not needed to run these tests.

Tolerances are relative to the largest magnitude of each column:

* least squares: the same arithmetic, 1e-11 (largest measured: 4.7e-13, Cook's distance);
* binomial and Poisson: 1e-11 throughout, standard errors included (largest measured: 4.5e-13,
  ``conf.low`` of ``birthwt_logit_noint``).  statsmodels' IRLS takes the covariance from the
  weights of the iteration before the last, 4.4e-7 away from R's at the MLE on
  ``birthwt_logit_noint``; the refit restarts IRLS once from its estimates, so the covariance
  is that of the MLE (``streamreg.results.refit``);
* Gaussian with log link and Gamma: IRLS converges linearly for a non-canonical link and the
  refit stops at a relative deviance change of 1e-10, so 5e-9 throughout (measured 6.1e-10,
  ``.hat`` of ``mtcars_gaussian_log``; 4.6e-9 without the restart).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

import streamreg as sr
from streamreg.results.fitstats import information_criteria

REF = Path(__file__).parents[1] / "reference"
TEXT = {"case", "data", "response", "rhs", "factors", "family", "link", "candidate", "shift", "name", "term", "level"}


def read_ref(name: str) -> pd.DataFrame:
    df = pd.read_csv(REF / name, dtype=str, keep_default_na=False)
    for col in df.columns:
        if col not in TEXT:
            df[col] = pd.to_numeric(df[col].replace("", np.nan))
    return df


CASES = read_ref("broom_cases.csv").set_index("case")
COEF = read_ref("broom_coef.csv")
GLANCE = read_ref("broom_glance.csv").set_index("case")
OBS = read_ref("broom_obs.csv")
NEW = read_ref("broom_newdata.csv")

FAMILIES = {
    ("gaussian", "identity"): lambda: "gaussian",
    ("gaussian", "log"): lambda: sm.families.Gaussian(sm.families.links.Log()),
    ("Gamma", "log"): lambda: sm.families.Gamma(sm.families.links.Log()),
    ("binomial", "logit"): lambda: "binomial",
    ("poisson", "log"): lambda: "poisson",
}
#: (values at the fitted means, standard errors) tolerances, see the module docstring
TOL = {"lm": (1e-11, 1e-11), "canonical": (1e-11, 1e-11), "other": (5e-9, 5e-9)}


def kind(case: str) -> str:
    spec = CASES.loc[case]
    if spec.family == "gaussian" and spec.link == "identity":
        return "lm"
    return "canonical" if spec.family in ("binomial", "poisson") else "other"


def factors(case: str) -> list[str]:
    return CASES.loc[case, "factors"].split()


def py_rhs(case: str) -> str:
    return " + ".join(f"C({t})" if t in factors(case) else t for t in CASES.loc[case, "rhs"].split(" + "))


def py_coef_name(row, facs: list[str]) -> str:
    if row.term == "(Intercept)":
        return "Intercept"
    return f"C({row.term})[T.{row.level}]" if row.level != "" and row.term in facs else row.term


@functools.cache
def data(case: str) -> pd.DataFrame:
    return pd.read_csv(REF / "data" / f"{CASES.loc[case, 'data']}.csv")


@functools.cache
def fitted(case: str):
    spec = CASES.loc[case]
    family = FAMILIES[(spec.family, spec.link)]()
    fit = sr.streamreg(f"{spec.response} ~ {py_rhs(case)} + stream({spec.candidate})", data(case), family=family,
                       method="stepwise-aic", max_steps=0)
    assert fit.selected_terms == []
    return fit


def newdata(case: str) -> pd.DataFrame:
    new = data(case).iloc[:8].copy()
    shift = CASES.loc[case, "shift"]
    if shift:
        new[shift] = new[shift] * 1.1
    return new


def close(actual, expected, tol: float, what: str) -> None:
    """``actual`` equals ``expected`` to ``tol`` relative to the largest expected magnitude."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = float(np.max(np.abs(expected))) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=what)


ALL = list(CASES.index)


@pytest.mark.parametrize("case", ALL)
def test_tidy_equals_r(case):
    fit, (tol, tol_se) = fitted(case), TOL[kind(case)]
    ref = COEF[COEF["case"] == case].copy()
    ref.index = [py_coef_name(r, factors(case)) for r in ref.itertuples()]
    t = fit.tidy().set_index("term")
    assert sorted(t.index) == sorted(ref.index)
    ref = ref.loc[t.index]
    close(t["estimate"], ref["estimate"], tol, "estimate")
    close(t["std.error"], ref["std_error"], tol_se, "std.error")
    close(t["statistic"], ref["statistic"], tol_se, "statistic")
    close(t["conf.low"], ref["conf_low_95"], tol_se, "conf.low")
    close(t["conf.high"], ref["conf_high_95"], tol_se, "conf.high")
    t90 = fit.tidy(conf_level=0.90).set_index("term").loc[ref.index]
    close(t90["conf.low"], ref["conf_low_90"], tol_se, "conf.low at 0.90")
    close(t90["conf.high"], ref["conf_high_90"], tol_se, "conf.high at 0.90")
    if kind(case) != "other":
        # least squares: t; binomial and Poisson: statsmodels' (so tidy's) normal p-values are R's
        close(t["p.value"], ref["p_value"], tol, "p.value")
    else:
        # R's summary.glm uses t with the residual df when it estimates the dispersion
        np.testing.assert_allclose(t["p.value"], 2 * stats.norm.sf(np.abs(t["statistic"])), rtol=1e-12)
    if kind(case) == "canonical":
        np.testing.assert_allclose(ref["p_value"], 2 * stats.norm.sf(np.abs(ref["statistic"])), rtol=1e-12)


@pytest.mark.parametrize("case", ALL)
def test_glance_equals_r(case):
    fit, (tol, _) = fitted(case), TOL[kind(case)]
    g, ref = fit.glance().iloc[0], GLANCE.loc[case]
    assert g["nobs"] == ref["nobs"] and g["df.residual"] == ref["df_residual"]
    if kind(case) == "lm":
        for ours, theirs in [("r.squared", "r_squared"), ("adj.r.squared", "adj_r_squared"), ("sigma", "sigma")]:
            close(g[ours], ref[theirs], tol, ours)
        assert "null.deviance" not in g and "deviance" not in g
    else:
        close(g["null.deviance"], ref["null_deviance"], tol, "null.deviance")
        assert g["df.null"] == ref["df_null"]
        close(g["deviance"], ref["deviance"], tol, "deviance")
        assert "r.squared" not in g
    ic = information_criteria(fit.fit, fit.family)
    assert ic.df == ref["df_logLik"]  # R counts the dispersion of gaussian and Gamma fits
    if kind(case) == "other":
        # statsmodels' llf plugs in the Pearson dispersion; R's logLik uses deviance / n
        fam, y, mu = fit.family, fit.fit.model.endog, fit.fit.fittedvalues
        close(fit.llf, fam.loglike(y, mu, scale=fit.fit.scale), 1e-12, "statsmodels' llf")
        close(ref["logLik"], fam.loglike(y, mu, scale=fit.fit.deviance / fit.nobs), tol, "R's logLik: dev / n")
        close(g["AIC"], -2 * g["logLik"] + 2 * ref["df_logLik"], 1e-14, "AIC")
        close(g["BIC"], -2 * g["logLik"] + np.log(ref["nobs"]) * ref["df_logLik"], 1e-14, "BIC")
    else:
        close(g["logLik"], ref["logLik"], tol, "logLik")
        close(g["AIC"], ref["AIC"], tol, "AIC")
        close(g["BIC"], ref["BIC"], tol, "BIC")
        assert (fit.aic, fit.bic, fit.llf) == (g["AIC"], g["BIC"], g["logLik"])


@pytest.mark.parametrize("case", ALL)
def test_augment_training_rows_equal_r(case):
    fit, (tol, tol_se) = fitted(case), TOL[kind(case)]
    ref = OBS[OBS["case"] == case]
    link = fit.augment(se_fit=True)
    resp = fit.augment(se_fit=True, type_predict="response", type_residuals="pearson")
    assert len(link) == len(ref) == fit.nobs
    close(link[".fitted"], ref["fitted_link"], tol, ".fitted (link)")
    close(link[".se.fit"], ref["se_fit_link"], tol_se, ".se.fit (link)")
    close(resp[".fitted"], ref["fitted_response"], tol, ".fitted (response)")
    close(resp[".se.fit"], ref["se_fit_response"], tol_se, ".se.fit (response)")
    close(link[".resid"], ref["resid_deviance"], tol, ".resid (deviance)")
    close(resp[".resid"], ref["resid_pearson"], tol, ".resid (pearson)")
    close(link[".std.resid"], ref["std_resid_deviance"], tol, ".std.resid (deviance)")
    close(resp[".std.resid"], ref["std_resid_pearson"], tol, ".std.resid (pearson)")
    for col in (".hat", ".sigma", ".cooksd"):
        close(link[col], ref[col[1:]], tol, col)
        np.testing.assert_array_equal(resp[col], link[col])  # they do not depend on the types


@pytest.mark.parametrize("case", ALL)
def test_augment_and_get_prediction_on_new_rows_equal_r(case):
    fit, (tol, tol_se) = fitted(case), TOL[kind(case)]
    ref = NEW[NEW["case"] == case]
    new = newdata(case)
    link = fit.augment(new, se_fit=True)
    resp = fit.augment(new, se_fit=True, type_predict="response")
    close(link[".fitted"], ref["fitted_link"], tol, ".fitted (link)")
    close(link[".se.fit"], ref["se_fit_link"], tol_se, ".se.fit (link)")
    close(resp[".fitted"], ref["fitted_response"], tol, ".fitted (response)")
    close(resp[".se.fit"], ref["se_fit_response"], tol_se, ".se.fit (response)")
    # get_prediction delegates to statsmodels: the same means and standard errors
    frame = fit.get_prediction(new).summary_frame(alpha=0.05)
    mean, se = ("mean", "mean_se") if kind(case) == "lm" else ("predicted", "se")
    close(frame[mean], ref["fitted_response"], tol, "get_prediction mean")
    close(frame[se], ref["se_fit_response"], tol_se, "get_prediction se")
    lin = fit.get_prediction(new, linear=True).summary_frame()
    close(lin[mean], ref["fitted_link"], tol, "get_prediction linear")
    assert list(frame.index) == list(new.index)
    if kind(case) == "lm":  # R's predict(interval = "confidence" | "prediction")
        close(frame["mean_ci_lower"], ref["conf_low"], tol, "confidence interval")
        close(frame["mean_ci_upper"], ref["conf_high"], tol, "confidence interval")
        close(frame["obs_ci_lower"], ref["pred_low"], tol, "prediction interval")
        close(frame["obs_ci_upper"], ref["pred_high"], tol, "prediction interval")
        close(link[".resid"], new[CASES.loc[case, "response"]] - link[".fitted"], 1e-15, "newdata .resid")
    else:
        assert ".resid" not in link  # broom's augment.glm: no residuals on new data


@pytest.mark.parametrize("case", ALL)
def test_model_frame_refits_the_same_coefficients(case):
    fit = fitted(case)
    frame = fit.model_frame()
    assert frame.columns[0] == CASES.loc[case, "response"]
    if kind(case) == "lm":
        ref = smf.ols(fit.selected_formula, frame).fit()
    else:
        family = fit.family
        ref = smf.glm(fit.selected_formula, frame, family=family).fit(tol=1e-10, maxiter=200)
        # restarted once from its estimates, as the refit is (one more step for a non-canonical link)
        ref = ref.model.fit(start_params=ref.params, tol=1e-10, maxiter=200)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10, atol=1e-13)
    assert list(fit.params.index) == list(ref.params.index)
