"""R's logLik(), AIC() and BIC() for families with an estimated dispersion, and broom's glance.lm F test.

Expected numbers: ``tests/reference/r_criteria.csv``, written by ``tests/reference/r_criteria.R``
(R 4.2.2, base R): ``logLik``, ``AIC``, ``BIC``, ``nobs`` and ``deviance`` of ``glm`` fits with the
Gamma (log and inverse links), inverse Gaussian and Gaussian (log link) families, with prior
weights (streamreg's ``var_weights=``) and on the rows repeated by frequency weights
(``freq_weights=``); and ``summary.lm``'s ``fstatistic`` of ``lm`` fits (weighted, with an offset,
without an intercept, of the intercept alone, on repeated rows).  R is not needed to run these.

The formulas are those streamreg selects (:func:`test_selected_formulas_are_recorded` runs the
calls); the other tests fit the recorded formula beside a stream that is never tested
(``method="stepwise-aic", max_steps=0``), so that they test the statistics and not the selection.

Tolerance 1e-8 relative: the same formulas, evaluated at the refit's estimates (IRLS stops at a
relative deviance change of 1e-10; the log-likelihood is stationary at the MLE).
"""
from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from reference_csv import read_ref as read_csv_ref

import streamreg as sr
from streamreg.results.fitstats import information_criteria

REF = Path(__file__).parents[1] / "reference"
TEXT = {"case", "data", "response", "rhs", "family", "link", "weights", "freq", "offset"}
RTOL = 1e-8



def read_ref(name: str) -> pd.DataFrame:
    return read_csv_ref(name, TEXT)


R = read_ref("r_criteria.csv").set_index("case")
GLM_CASES = [c for c in R.index if R.loc[c, "link"] != "identity"]
LM_CASES = [c for c in R.index if R.loc[c, "link"] == "identity"]

FAMILIES = {
    ("inverse.gaussian", "1/mu^2"): lambda: sm.families.InverseGaussian(),  # statsmodels' default link is 1/mu^2
    ("Gamma", "log"): lambda: sm.families.Gamma(sm.families.links.Log()),
    ("Gamma", "inverse"): lambda: sm.families.Gamma(),  # statsmodels' default link is the inverse
    ("gaussian", "log"): lambda: sm.families.Gaussian(sm.families.links.Log()),
    ("gaussian", "identity"): lambda: "gaussian",
}
#: a column of each data set that no formula uses: its stream is never tested
SPARE = {"wdbc": "texture_se", "clotting": "lot2"}


@functools.cache
def data(name: str) -> pd.DataFrame:
    d = sr.datasets.load("wdbc").data if name == "wdbc" else pd.read_csv(REF / "data" / f"{name}.csv")
    return d.assign(f=np.arange(len(d)) % 4)  # the frequency weights of r_criteria.R: 0, 1, 2, 3, 0, ...


def family(case: str):
    spec = R.loc[case]
    return FAMILIES[(spec.family, spec.link)]()


def options(case: str) -> dict[str, str]:
    spec = R.loc[case]
    out = {"var_weights": spec.weights, "freq_weights": spec.freq, "offset": spec.offset}
    return {k: v for k, v in out.items() if v}


@functools.cache
def fitted(case: str, cov_type: str = "nonrobust"):
    spec = R.loc[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.tools.sm_exceptions.DomainWarning)  # Gamma's inverse link
        fit = sr.streamreg(f"{spec.response} ~ {spec.rhs} + stream({SPARE[spec.data]})", data(spec.data),
                           family=family(case), method="stepwise-aic", max_steps=0, cov_type=cov_type,
                           **options(case))
    assert fit.selected_terms == []
    return fit


def close(actual: float, expected: float, what: str, rtol: float = RTOL) -> None:
    assert np.isfinite(expected), what
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, err_msg=what)


@pytest.mark.parametrize("call, family_, case", [
    ("area_mean ~ stream(*_se)", "inverse_gaussian", "wdbc_invgauss"),  # the report's example
    ("smoothness_mean ~ stream(*_se)", sm.families.Gamma(sm.families.links.Log()), "wdbc_gamma_log"),
    ("lot1 ~ stream(log_u, u)", "gamma", "clotting_gamma_inverse"),
    ("smoothness_mean ~ stream(*_se)", sm.families.Gaussian(sm.families.links.Log()), "wdbc_gaussian_log"),
    ("smoothness_mean ~ stream(*_se)", "gaussian", "wdbc_lm"),
])
def test_selected_formulas_are_recorded(call, family_, case):
    spec = R.loc[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sm.tools.sm_exceptions.DomainWarning)
        fit = sr.streamreg(call, data(spec.data).drop(columns="f"), family=family_, method="alpha-investing")
    assert fit.selected_formula == f"{spec.response} ~ 1 + {spec.rhs}"
    g = fit.glance().iloc[0]
    for ours, theirs in [("logLik", "logLik"), ("AIC", "AIC"), ("BIC", "BIC"), ("deviance", "deviance")]:
        close(g[ours], spec[theirs], ours)


@pytest.mark.parametrize("case", GLM_CASES)
def test_glm_criteria_equal_r(case):
    fit, ref = fitted(case), R.loc[case]
    g = fit.glance().iloc[0]
    assert g["nobs"] == ref["nobs"] and g["df.residual"] == ref["df_residual"]
    assert information_criteria(fit.fit, fit.family).df == ref["df_logLik"]  # the dispersion counted
    close(g["deviance"], ref["deviance"], "deviance")
    close(g["logLik"], ref["logLik"], "logLik")
    close(g["AIC"], ref["AIC"], "AIC")
    close(g["BIC"], ref["BIC"], "BIC")
    # one object, one convention: the attributes are glance()'s
    assert (fit.llf, fit.aic, fit.bic) == (g["logLik"], g["AIC"], g["BIC"])


@pytest.mark.parametrize("case", ["wdbc_invgauss", "wdbc_gamma_log", "wdbc_gaussian_log"])
def test_statsmodels_own_llf_is_still_on_the_refit(case):
    # statsmodels plugs in the Pearson dispersion: a different number, kept as .fit.llf
    fit = fitted(case)
    assert abs(fit.fit.llf - R.loc[case, "logLik"]) > 1e-6 * abs(R.loc[case, "logLik"])
    assert fit.fit.llf == fit.fit.model.family.loglike(fit.fit.model.endog, fit.fit.fittedvalues,
                                                       scale=fit.fit.scale)


@pytest.mark.parametrize("case", LM_CASES)
def test_lm_glance_equals_summary_lm(case):
    fit, ref = fitted(case), R.loc[case]
    g = fit.glance().iloc[0]
    assert list(g.index[:12]) == ["r.squared", "adj.r.squared", "sigma", "statistic", "p.value", "df", "logLik",
                                  "AIC", "BIC", "deviance", "df.residual", "nobs"]  # broom's glance.lm order
    assert g["nobs"] == ref["nobs"] and g["df.residual"] == ref["df_residual"]
    for ours, theirs in [("r.squared", "r_squared"), ("adj.r.squared", "adj_r_squared"), ("sigma", "sigma"),
                         ("logLik", "logLik"), ("AIC", "AIC"), ("BIC", "BIC"), ("deviance", "deviance")]:
        if ref[theirs] == 0:
            assert abs(g[ours]) < 1e-12, ours
        else:
            close(g[ours], ref[theirs], ours)
    if np.isnan(ref["statistic"]):  # the intercept alone: summary.lm has no F statistic
        assert np.isnan(g["statistic"]) and np.isnan(g["p.value"]) and np.isnan(g["df"])
    else:
        close(g["statistic"], ref["statistic"], "statistic")
        close(g["p.value"], ref["p_value"], "p.value")
        assert g["df"] == ref["df"]
        if hasattr(fit.fit, "fvalue"):  # OLS and WLS: statsmodels' classical F is the same test
            close(g["statistic"], fit.fit.fvalue, "statsmodels' fvalue", rtol=1e-10)


# not with freq_weights (refused); a least-squares GLM refit (offset) has HC0 only
@pytest.mark.parametrize("case, cov_type", [("wdbc_lm", "HC3"), ("wdbc_lm_weights", "HC3"), ("wdbc_lm_offset", "HC0")])
def test_robust_standard_errors_keep_the_classical_f(case, cov_type):
    fit, ref = fitted(case, cov_type), R.loc[case]
    assert fit.fit.cov_type == cov_type
    assert not np.allclose(fit.bse, fitted(case).bse, rtol=1e-3)
    g = fit.glance().iloc[0]
    close(g["statistic"], ref["statistic"], "statistic")  # broom's statistic is summary.lm's
    close(g["p.value"], ref["p_value"], "p.value")
    if hasattr(fit.fit, "fvalue"):  # statsmodels' fvalue is the robust Wald test here
        assert abs(fit.fit.fvalue - ref["statistic"]) > 1e-3 * ref["statistic"]


def test_families_without_an_r_dispersion_keep_statsmodels_llf():
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"x": rng.normal(size=200), "z": rng.normal(size=200)})
    mu = np.exp(0.5 + 0.4 * d.x)
    d["k"] = rng.poisson(mu)
    d["t"] = rng.gamma(2.0, mu / 2.0) * (rng.uniform(size=200) < 0.8)  # Tweedie: zeros and positive values
    nb = sr.streamreg("k ~ x + stream(z)", d, family=sm.families.NegativeBinomial(alpha=0.5), method="stepwise-aic",
                      max_steps=0)
    assert nb.llf == nb.fit.llf and nb.aic == pytest.approx(-2 * nb.fit.llf + 2 * 2, rel=1e-14)
    tw = sr.streamreg("t ~ x + stream(z)", d, family=sm.families.Tweedie(var_power=1.5), method="stepwise-aic",
                      max_steps=0)
    assert tw.llf == tw.fit.llf and tw.aic == pytest.approx(-2 * tw.fit.llf + 2 * 3, rel=1e-14)
