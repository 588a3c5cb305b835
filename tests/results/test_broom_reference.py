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
from reference_csv import read_ref as read_csv_ref
from scipy import stats

import streamreg as sr
from streamreg.results.fitstats import information_criteria

REF = Path(__file__).parents[1] / "reference"
TEXT = {"case", "data", "response", "rhs", "factors", "family", "link", "candidate", "shift", "name", "term", "level",
        "weights", "offset", "exposure"}



def read_ref(name: str) -> pd.DataFrame:
    return read_csv_ref(name, TEXT)


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
    # least squares: t; binomial and Poisson: normal; families that estimate their dispersion: t on the
    # residual df as R's summary.glm (statsmodels' .fit keeps its normal p-values)
    close(t["p.value"], ref["p_value"], tol, "p.value")
    if kind(case) == "other":
        np.testing.assert_allclose(fit.fit.pvalues.loc[ref.index], 2 * stats.norm.sf(np.abs(t["statistic"])),
                                   rtol=1e-12)
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
        assert "null.deviance" not in g
        close(g["deviance"], ref["deviance"], tol, "deviance")  # broom's glance.lm: the residual sum of squares
    else:
        close(g["null.deviance"], ref["null_deviance"], tol, "null.deviance")
        assert g["df.null"] == ref["df_null"]
        close(g["deviance"], ref["deviance"], tol, "deviance")
        assert "r.squared" not in g
    ic = information_criteria(fit.fit, fit.family)
    assert ic.df == ref["df_logLik"]  # R counts the dispersion of gaussian and Gamma fits
    if kind(case) == "other":
        # statsmodels' llf plugs in the Pearson dispersion (kept on .fit.llf); R's logLik, our .llf, uses deviance / n
        fam, y, mu = fit.family, fit.fit.model.endog, fit.fit.fittedvalues
        close(fit.fit.llf, fam.loglike(y, mu, scale=fit.fit.scale), 1e-12, "statsmodels' llf")
        close(ref["logLik"], fam.loglike(y, mu, scale=fit.fit.deviance / fit.nobs), tol, "R's logLik: dev / n")
        close(fit.llf, ref["logLik"], tol, "logLik")
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
    # get_prediction delegates to statsmodels: the same means and standard errors (statsmodels' default
    # class, columns mean and mean_se, for lm and glm alike; which="linear" is its newer class for a glm)
    frame = fit.get_prediction(new).summary_frame(alpha=0.05)
    close(frame["mean"], ref["fitted_response"], tol, "get_prediction mean")
    close(frame["mean_se"], ref["se_fit_response"], tol_se, "get_prediction se")
    lin = fit.get_prediction(new, linear=True).summary_frame()
    close(lin["mean" if kind(case) == "lm" else "predicted"], ref["fitted_link"], tol, "get_prediction linear")
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


# -- prior weights and offsets: R's lm(weights =, offset =) and glm(weights =, offset = log(exposure)) ----------
# recorded by tests/reference/broom_weighted.R; the tolerances are those above (least squares and the
# Poisson fit: the same arithmetic; the Gamma fit with a log link: linear IRLS convergence)

W_CASES = read_ref("broom_weighted_cases.csv").set_index("case")
W_COEF = read_ref("broom_weighted_coef.csv")
W_GLANCE = read_ref("broom_weighted_glance.csv").set_index("case")
W_OBS = read_ref("broom_weighted_obs.csv")
W_NEW = read_ref("broom_weighted_newdata.csv")
W_FAMILIES = {"gaussian": "gaussian", "poisson": "poisson", "Gamma": sm.families.Gamma(sm.families.links.Log())}
W_TOL = {"gaussian": 1e-11, "poisson": 1e-11, "Gamma": 5e-9}


@functools.cache
def weighted_data(case: str) -> pd.DataFrame:
    return pd.read_csv(REF / "data" / f"{W_CASES.loc[case, 'data']}.csv")


@functools.cache
def weighted_fit(case: str):
    spec = W_CASES.loc[case]
    options = {k: spec[k] for k in ("offset", "exposure") if spec[k]}
    if spec.weights:
        options["var_weights"] = spec.weights
    candidate = "disp" if spec.data == "mtcars_full" else "lage"
    fit = sr.streamreg(f"{spec.response} ~ {spec.rhs} + stream({candidate})", weighted_data(case),
                       family=W_FAMILIES[spec.family], method="stepwise-aic", max_steps=0, **options)
    assert fit.selected_terms == []
    return fit


def weighted_newdata(case: str) -> pd.DataFrame:
    spec = W_CASES.loc[case]
    new = weighted_data(case).iloc[:8].copy()
    new[spec["shift"]] = new[spec["shift"]] * 1.1
    moved = spec.offset or spec.exposure
    if moved:
        new[moved] = new[moved] * 1.05
    return new


W_ALL = list(W_CASES.index)


@pytest.mark.parametrize("case", W_ALL)
def test_weighted_coefficients_equal_r(case):
    fit, tol = weighted_fit(case), W_TOL[W_CASES.loc[case, "family"]]
    ref = W_COEF[W_COEF["case"] == case].set_index("name")
    ref.index = ["Intercept" if n == "(Intercept)" else n for n in ref.index]
    t = fit.tidy().set_index("term").loc[ref.index]
    close(t["estimate"], ref["estimate"], tol, "estimate")
    close(t["std.error"], ref["std_error"], tol, "std.error")


@pytest.mark.parametrize("case", W_ALL)
def test_weighted_glance_equals_r(case):
    fit, spec = weighted_fit(case), W_CASES.loc[case]
    tol = W_TOL[spec.family]
    g, ref = fit.glance().iloc[0], W_GLANCE.loc[case]
    assert g["nobs"] == ref["nobs"] and g["df.residual"] == ref["df_residual"]
    if spec.family == "gaussian":  # R's summary.lm: mss / (mss + rss), weighted sums
        for ours, theirs in [("r.squared", "r_squared"), ("adj.r.squared", "adj_r_squared"), ("sigma", "sigma")]:
            close(g[ours], ref[theirs], tol, ours)
    else:
        close(g["null.deviance"], ref["null_deviance"], tol, "null.deviance")
        close(g["deviance"], ref["deviance"], tol, "deviance")
        assert g["df.null"] == ref["df_null"]
    for ours, theirs in [("logLik", "logLik"), ("AIC", "AIC"), ("BIC", "BIC")]:
        close(g[ours], ref[theirs], tol, ours)


@pytest.mark.parametrize("case", W_ALL)
def test_weighted_augment_equals_r(case):
    fit, spec = weighted_fit(case), W_CASES.loc[case]
    tol = W_TOL[spec.family]
    ref = W_OBS[W_OBS["case"] == case]
    link = fit.augment(se_fit=True)
    resp = fit.augment(se_fit=True, type_predict="response", type_residuals="pearson")
    close(link[".fitted"], ref["fitted_link"], tol, ".fitted (link, offset included)")
    close(link[".se.fit"], ref["se_fit_link"], tol, ".se.fit (link)")
    close(resp[".fitted"], ref["fitted_response"], tol, ".fitted (response)")
    close(resp[".se.fit"], ref["se_fit_response"], tol, ".se.fit (response)")
    close(link[".resid"], ref["resid_deviance"], tol, ".resid (deviance; lm: y - fitted)")
    close(resp[".resid"], ref["resid_pearson"], tol, ".resid (pearson; lm: y - fitted)")
    close(link[".std.resid"], ref["std_resid_deviance"], tol, ".std.resid (deviance)")
    close(resp[".std.resid"], ref["std_resid_pearson"], tol, ".std.resid (pearson)")
    for col in (".hat", ".sigma", ".cooksd"):
        close(link[col], ref[col[1:]], tol, col)


@pytest.mark.parametrize("case", W_ALL)
def test_weighted_predictions_on_new_rows_equal_r(case):
    fit, spec = weighted_fit(case), W_CASES.loc[case]
    tol = W_TOL[spec.family]
    ref, new = W_NEW[W_NEW["case"] == case], weighted_newdata(case)
    link = fit.augment(new, se_fit=True)
    close(link[".fitted"], ref["fitted_link"], tol, ".fitted on new rows (their offset)")
    close(link[".se.fit"], ref["se_fit_link"], tol, ".se.fit on new rows")
    close(fit.predict(new), ref["fitted_response"], tol, "predict")
    close(fit.predict(new, linear=True), ref["fitted_link"], tol, "predict(linear=True)")
    frame = fit.get_prediction(new).summary_frame()  # statsmodels' default class for lm and glm alike
    close(frame["mean"], ref["fitted_response"], tol, "get_prediction mean")
    close(frame["mean_se"], ref["se_fit_response"], tol, "get_prediction se")


# -- frequency weights: statsmodels' GLM(freq_weights=), and the data expanded to one row per observation --------

@functools.cache
def freq_data() -> pd.DataFrame:
    rng = np.random.default_rng(14)
    n = 40
    d = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n), "x3": rng.normal(size=n)})
    d["f"] = rng.integers(1, 5, n).astype(float)
    d["v"] = rng.uniform(0.5, 2.0, n)
    d["e"] = rng.uniform(0.5, 3.0, n)
    d["y"] = 1 + d.x1 - 0.5 * d.x2 + rng.normal(size=n) / np.sqrt(d.v)
    d["count"] = rng.poisson(np.exp(0.3 + 0.4 * d.x1) * d.e)
    return d


FREQ_CASES = {  # family, response, options
    "gaussian_freq": ("gaussian", "y", {"freq_weights": "f"}),
    "gaussian_freq_var": ("gaussian", "y", {"freq_weights": "f", "var_weights": "v"}),
    "poisson_freq_exposure": ("poisson", "count", {"freq_weights": "f", "exposure": "e"}),
}


def freq_fits(case: str):
    family, response, options = FREQ_CASES[case]
    d = freq_data()
    fit = sr.streamreg(f"{response} ~ x1 + x2 + stream(x3)", d, family=family, method="stepwise-aic", max_steps=0,
                       **options)
    fam = sm.families.Gaussian() if family == "gaussian" else sm.families.Poisson()
    model = sm.GLM(d[response], sm.add_constant(d[["x1", "x2"]]), family=fam, **{k: d[v] for k, v in options.items()})
    # restarted once from its estimates, as the refit is: the covariance at the MLE
    return fit, model.fit(start_params=model.fit(tol=1e-12).params, tol=1e-12)


@pytest.mark.parametrize("case", list(FREQ_CASES))
def test_frequency_weights_count_observations_in_bic(case):
    fit, ref = freq_fits(case)
    dk = int(FREQ_CASES[case][0] == "gaussian")  # R's convention: sigma counted
    np.testing.assert_allclose(fit.bic, ref.info_criteria("bic", dk_params=dk), rtol=1e-10)
    np.testing.assert_allclose(fit.aic, ref.info_criteria("aic", dk_params=dk), rtol=1e-10)
    g = fit.glance().iloc[0]
    assert g["nobs"] == freq_data()["f"].sum() == ref.model.wnobs
    assert g["BIC"] == fit.bic


@pytest.mark.parametrize("case", list(FREQ_CASES))
def test_frequency_weights_augment_equals_statsmodels_influence(case):
    fit, ref = freq_fits(case)
    infl = ref.get_influence(observed=False)
    a = fit.augment(type_residuals="pearson")
    np.testing.assert_allclose(a[".hat"], infl.hat_matrix_diag, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a[".std.resid"], infl.resid_studentized, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a[".cooksd"], infl.cooks_distance[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", ["gaussian_freq", "gaussian_freq_var"])
def test_frequency_weights_sigma_is_the_refit_without_the_row(case):
    fit, _ = freq_fits(case)
    d = freq_data()
    options = FREQ_CASES[case][2]
    sigma = fit.augment()[".sigma"].to_numpy()
    x = sm.add_constant(d[["x1", "x2"]])
    for i in range(0, len(d), 7):
        keep = np.arange(len(d)) != i
        without = sm.GLM(d.y[keep], x[keep], **{k: d[v][keep] for k, v in options.items()}).fit()
        np.testing.assert_allclose(sigma[i], np.sqrt(without.scale), rtol=1e-10)


def test_frequency_weights_r_squared_equals_the_expanded_data():
    fit, _ = freq_fits("gaussian_freq")
    d = freq_data()
    rows = np.repeat(np.arange(len(d)), d["f"].astype(int))
    expanded = sm.OLS(d.y.to_numpy()[rows], sm.add_constant(d[["x1", "x2"]]).to_numpy()[rows]).fit()
    g = fit.glance().iloc[0]
    np.testing.assert_allclose([g["r.squared"], g["adj.r.squared"], g["sigma"], g["logLik"]],
                               [expanded.rsquared, expanded.rsquared_adj, np.sqrt(expanded.scale), expanded.llf],
                               rtol=1e-12)
    assert g["df.residual"] == expanded.df_resid


def test_predict_with_offset_and_exposure_equals_statsmodels():
    fit, ref = freq_fits("poisson_freq_exposure")
    d = freq_data()
    new = d.iloc[:6].assign(x1=lambda t: t.x1 + 0.5)
    exog = sm.add_constant(new[["x1", "x2"]], has_constant="add")
    exposure, offset = np.linspace(0.5, 2.0, 6), np.linspace(-0.3, 0.3, 6)
    # the exposure column of newdata by default, an array or a column name when given
    np.testing.assert_allclose(fit.predict(new), ref.predict(exog, exposure=new.e), rtol=1e-12)
    np.testing.assert_allclose(fit.predict(new, exposure=exposure), ref.predict(exog, exposure=exposure), rtol=1e-12)
    np.testing.assert_allclose(fit.predict(new.assign(z=exposure), exposure="z"),
                               ref.predict(exog, exposure=exposure), rtol=1e-12)
    np.testing.assert_allclose(fit.predict(new, offset=offset, linear=True),
                               ref.predict(exog, offset=offset, exposure=new.e, which="linear"), rtol=1e-12)
    ours = fit.get_prediction(new, exposure=exposure).summary_frame()
    theirs = ref.get_prediction(exog, exposure=exposure).summary_frame()
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.predict(exposure=2.0), ref.predict(exposure=np.full(len(d), 2.0)), rtol=1e-12)


def test_predict_offset_errors():
    fit, _ = freq_fits("poisson_freq_exposure")
    new = freq_data().iloc[:4]
    with pytest.raises(ValueError, match="exposure has 3 values but 4 rows are predicted"):
        fit.predict(new, exposure=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="exposure must be positive"):
        fit.predict(new, exposure=[1.0, 2.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="offset='nope' is not a column of newdata"):
        fit.predict(new, offset="nope")
    with pytest.raises(ValueError, match="offset must be numeric"):
        fit.predict(new, offset=["a", "b", "c", "d"])
    ols = sr.streamreg("y ~ x1 + stream(x3)", freq_data(), method="stepwise-aic", max_steps=0)
    with pytest.raises(ValueError, match="this least-squares fit has neither"):
        ols.predict(new, offset=np.zeros(4))


def test_glance_of_least_squares_with_an_offset_and_no_intercept():
    d = freq_data().assign(o=lambda t: 0.3 * t.x3)
    fit = sr.streamreg("y ~ 0 + x1 + stream(x2)", d, offset="o", method="stepwise-aic", max_steps=0)
    g = fit.glance().iloc[0]
    # R's summary.lm without an intercept: mss = sum(f^2), f the fitted values (the offset included)
    f = fit.fit.fittedvalues
    r = d.y - fit.fit.fittedvalues
    r2 = np.sum(f**2) / (np.sum(f**2) + np.sum(r**2))
    np.testing.assert_allclose([g["r.squared"], g["adj.r.squared"]], [r2, 1 - (1 - r2) * 40 / 39], rtol=1e-12)


def test_frequency_weights_df_null_counts_observations_as_the_expanded_data_do():
    # a user found df.null counting rows (39) beside df.residual counting observations
    fit, _ = freq_fits("poisson_freq_exposure")
    d = freq_data()
    long = d.loc[d.index.repeat(d["f"].astype(int))]
    expanded = sm.GLM(long["count"], sm.add_constant(long[["x1", "x2"]]), family=sm.families.Poisson(),
                      exposure=long["e"]).fit(tol=1e-12)
    g = fit.glance().iloc[0]
    assert g["df.null"] == expanded.nobs - 1 == d["f"].sum() - 1
    assert g["df.null"] - g["df.residual"] == 2  # x1 and x2 beside the intercept
    np.testing.assert_allclose(g["null.deviance"], expanded.null_deviance, rtol=1e-10)
