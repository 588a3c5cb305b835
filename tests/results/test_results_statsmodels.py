"""StreamRegResults read like statsmodels results, and the refit stays refittable.

References are independent: statsmodels' formula API refitting ``selected_formula`` on the
same rows, statsmodels' influence measures, and closed forms.  (R's numbers are in
``test_broom_reference.py``.)
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.iolib.summary2 import summary_col

import streamreg as sr


def cube(x):
    """A user transform: statsmodels finds it in this module's scope when refitting."""
    return x**3


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 300
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"x{i}" for i in range(6)])
    d["grp"] = rng.choice(["a", "b", "c"], n)
    d["age"] = rng.uniform(20, 70, n)
    eta = 0.8 * d.x1 + 0.6 * d.x2**2 + 0.7 * (d.grp == "b") + 0.02 * d.age
    d["y"] = eta + rng.normal(size=n)
    d["yb"] = rng.binomial(1, 1 / (1 + np.exp(-(eta - 1.5))))
    d["cnt"] = rng.poisson(np.exp(0.3 + 0.4 * d.x1))
    return d


STRICT = {"w0": 0.05, "alpha_delta": 0.05}


@pytest.fixture(scope="module")
def ols_fit(data):
    return sr.streamreg("y ~ age + stream(x*) + stream(C(grp)) + squares(x*)", data.drop(columns=["yb", "cnt"]),
                        **STRICT)


@pytest.fixture(scope="module")
def logit_fit(data):
    return sr.streamreg("yb ~ age + stream(x*) + stream(C(grp))", data.drop(columns=["y", "cnt"]),
                        family="binomial", **STRICT)


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


def reference(fit, data):
    """statsmodels' formula API on selected_formula (streamreg refits with tol 1e-10)."""
    if isinstance(fit.family, sm.families.Gaussian) and isinstance(fit.family.link, sm.families.links.Identity):
        return smf.ols(fit.selected_formula, data).fit()
    return smf.glm(fit.selected_formula, data, family=fit.family).fit(tol=1e-10, maxiter=200)


def with_missing(new: pd.DataFrame) -> pd.DataFrame:
    new = new.copy()
    new.loc[new.index[1], "x1"] = np.nan
    new.loc[new.index[3], "grp"] = None
    return new


# -- statsmodels' accessors --------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["ols_fit", "logit_fit"])
def test_llf_aic_bic_resid_fitted_cov_equal_statsmodels(which, data, request):
    fit = request.getfixturevalue(which)
    ref = reference(fit, data)
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    k = len(ref.params) + (which == "ols_fit")  # sigma counted for least squares (R's convention)
    assert fit.aic == pytest.approx(-2 * ref.llf + 2 * k, rel=1e-12)
    assert fit.bic == pytest.approx(-2 * ref.llf + np.log(ref.nobs) * k, rel=1e-12)
    if which == "ols_fit":
        assert fit.aic - ref.aic == pytest.approx(2.0, abs=1e-9)
        assert fit.bic - ref.bic == pytest.approx(np.log(ref.nobs), abs=1e-9)
        resid = ref.resid
    else:
        assert fit.aic == pytest.approx(ref.aic, rel=1e-12)  # no dispersion: statsmodels' and R's agree
        assert fit.bic == pytest.approx(ref.bic_llf, rel=1e-12)
        resid = ref.resid_response
    np.testing.assert_allclose(fit.fittedvalues, ref.fittedvalues, rtol=1e-10)
    np.testing.assert_allclose(fit.resid, resid, rtol=1e-9, atol=1e-12)
    pd.testing.assert_index_equal(fit.resid.index, data.index)
    np.testing.assert_allclose(fit.cov_params().loc[ref.params.index, ref.params.index], ref.cov_params(),
                               rtol=1e-9)
    assert list(fit.cov_params().index) == list(fit.params.index)


def test_predict_gives_nan_for_rows_with_missing_values_as_statsmodels(ols_fit, logit_fit, data):
    for fit in (ols_fit, logit_fit):
        new = with_missing(data.head(8))
        ref = reference(fit, data).predict(new)
        got = fit.predict(new)
        assert got.isna().tolist() == ref.isna().tolist() == [False, True, False, True] + [False] * 4
        np.testing.assert_allclose(got, ref, rtol=1e-10)
        pd.testing.assert_index_equal(got.index, new.index)
    all_missing = fit.predict(data.head(3).assign(x1=np.nan))
    assert all_missing.isna().all() and len(all_missing) == 3


def test_predict_needs_only_the_columns_the_model_uses(ols_fit, data):
    used = ["age", "x1", "x2", "grp"]
    assert sorted(ols_fit.model_frame().columns[1:]) == sorted(used)
    np.testing.assert_allclose(ols_fit.predict(data[used].head()), ols_fit.predict(data.head()), rtol=0)
    with pytest.raises(ValueError, match=r"newdata lacks the column\(s\) \['x2'\] used by the selected model"):
        ols_fit.predict(data[["age", "x1", "grp"]])


@pytest.mark.parametrize("which", ["ols_fit", "logit_fit"])
def test_get_prediction_delegates_to_statsmodels(which, data, request):
    fit = request.getfixturevalue(which)
    new = with_missing(data.sample(10, random_state=4))
    ref = reference(fit, data)
    complete = new.index[[i not in (1, 3) for i in range(len(new))]]
    expected = ref.get_prediction(new.loc[complete]).summary_frame(alpha=0.1)  # statsmodels' default class
    got = fit.get_prediction(new).summary_frame(alpha=0.1)
    assert list(got.columns) == list(expected.columns)
    pd.testing.assert_index_equal(got.index, new.index)
    np.testing.assert_allclose(got.loc[complete].to_numpy(), expected.to_numpy(), rtol=1e-8)
    assert got.iloc[[1, 3]].isna().all().all()
    train = fit.get_prediction().summary_frame()
    assert len(train) == fit.nobs
    np.testing.assert_allclose(train.iloc[:, 0], fit.fittedvalues, rtol=1e-12)
    if which == "logit_fit":
        lin = fit.get_prediction(new, linear=True).summary_frame()
        np.testing.assert_allclose(lin["predicted"], fit.predict(new, linear=True), rtol=1e-12)


def test_summary2_has_the_selection_block(ols_fit, logit_fit):
    for fit in (ols_fit, logit_fit):
        s = fit.summary2(alpha=0.1)
        text = s.as_text()
        # the default rule runs 3 passes: the tests are counted over all of them
        assert "Selection method:" in text and "Tests (all passes):" in text and "final wealth" in text
        assert "mFDR" in text and "[0.05" in text  # the 90% interval columns of statsmodels' table
        assert text.index("Selection method:") < text.index("Coef.")
        assert "<table" in s.as_html() and "\\begin{tabular}" in s.as_latex()
    text = " ".join(ols_fit.summary2().as_text().split())
    # the note on R's AIC appears once (a user found it twice, in two wordings)
    assert text.count("AIC and BIC above are statsmodels'") == 1
    assert f"R's AIC() and BIC(), as fit.aic, fit.bic and glance() report them: {ols_fit.aic:.6g} and " \
           f"{ols_fit.bic:.6g}" in text
    assert "(fit.aic, fit.bic)" not in logit_fit.summary2().as_text()  # no dispersion: the table's are R's
    with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
        ols_fit.summary2(alpha=5)


def test_summary_col_needs_the_statsmodels_refits(ols_fit, logit_fit):
    with pytest.raises(AttributeError, match=r"summary_col\(\[f\.fit for f in fits\]\)"):
        summary_col([ols_fit, logit_fit])
    assert not hasattr(ols_fit, "model")
    table = summary_col([f.fit for f in (ols_fit, logit_fit)], model_names=["ols", "logit"]).tables[0]
    assert table.loc["x1", "ols"] == f"{ols_fit.params['x1']:.4f}"
    assert table.loc["x1", "logit"] == f"{logit_fit.params['x1']:.4f}"
    side = sr.compare({"ols": ols_fit, "logit": logit_fit})  # the other documented way, with selection rows
    assert side.params.loc["x1", "logit"] == logit_fit.params["x1"] and "Guarantee" in side.as_text()


# -- broom ---------------------------------------------------------------------------------------
def test_tidy_selection_columns_come_from_the_selected_table(ols_fit):
    t = ols_fit.tidy().set_index("term")
    sel = ols_fit.selected.set_index("term")
    assert list(t.columns[-4:]) == ["stream", "order", "selection.p.value", "selection.level"]
    coef_of = {"x1": ["x1"], "I(x2**2)": ["I(x2 ** 2)"], "C(grp)": ["C(grp)[T.b]", "C(grp)[T.c]"]}
    assert set(coef_of) == set(sel.index)
    for term, coefs in coef_of.items():
        for c in coefs:
            assert t.loc[c, "stream"] == sel.loc[term, "stream"]
            assert t.loc[c, "order"] == sel.loc[term, "order"]
            assert t.loc[c, "selection.p.value"] == sel.loc[term, "pvalue"]
            assert t.loc[c, "selection.level"] == sel.loc[term, "level"]
    for fixed in ("Intercept", "age"):
        assert t.loc[fixed, "stream"] is None and pd.isna(t.loc[fixed, "order"])
        assert np.isnan(t.loc[fixed, "selection.p.value"]) and np.isnan(t.loc[fixed, "selection.level"])
    assert str(t["order"].dtype) == "Int64"


def test_tidy_exponentiate_and_conf_level(logit_fit):
    base = logit_fit.tidy(conf_level=0.8)
    ex = logit_fit.tidy(conf_level=0.8, exponentiate=True)
    ci = logit_fit.fit.conf_int(alpha=0.2)
    np.testing.assert_allclose(base[["conf.low", "conf.high"]], ci, rtol=1e-15)
    np.testing.assert_allclose(ex["estimate"], np.exp(logit_fit.params), rtol=1e-15)
    np.testing.assert_allclose(ex[["conf.low", "conf.high"]], np.exp(ci), rtol=1e-15)
    np.testing.assert_array_equal(ex["std.error"], base["std.error"])  # not transformed, as broom
    assert "conf.low" not in logit_fit.tidy(conf_int=False)


@pytest.mark.parametrize("bad", [0, 1, 95, -0.5, "0.95", True, None])
def test_tidy_refuses_a_bad_conf_level(ols_fit, bad):
    with pytest.raises(ValueError, match=r"conf_level must be a number between 0 and 1 \(e\.g\. 0\.95\)"):
        ols_fit.tidy(conf_level=bad)


def test_tidy_options_are_keyword_only(ols_fit):
    with pytest.raises(TypeError):
        ols_fit.tidy(False)


def test_glance_columns(ols_fit, logit_fit):
    g = ols_fit.glance()
    assert list(g.columns) == ["r.squared", "adj.r.squared", "sigma", "statistic", "p.value", "df", "logLik", "AIC",
                               "BIC", "deviance", "df.residual", "nobs", "df.model", "tested", "selected", "method"]
    assert g.loc[0, "adj.r.squared"] == pytest.approx(ols_fit.fit.rsquared_adj, rel=1e-12)
    assert g.loc[0, "AIC"] == ols_fit.aic and g.loc[0, "BIC"] == ols_fit.bic
    g = logit_fit.glance()
    assert list(g.columns[:8]) == ["null.deviance", "df.null", "logLik", "AIC", "BIC", "deviance", "df.residual",
                                   "nobs"]
    assert g.loc[0, "null.deviance"] == pytest.approx(logit_fit.fit.null_deviance, rel=1e-12)
    assert g.loc[0, "df.null"] == logit_fit.nobs - 1


def test_augment_influence_equals_statsmodels(ols_fit, logit_fit, data):
    a = ols_fit.augment()
    infl = reference(ols_fit, data).get_influence()
    np.testing.assert_allclose(a[".hat"], infl.hat_matrix_diag, rtol=1e-10)
    np.testing.assert_allclose(a[".cooksd"], infl.cooks_distance[0], rtol=1e-9)
    np.testing.assert_allclose(a[".std.resid"], infl.resid_studentized_internal, rtol=1e-9)
    np.testing.assert_allclose(a[".sigma"], np.sqrt(infl.sigma2_not_obsi), rtol=1e-10)
    pd.testing.assert_index_equal(a.index, data.index)
    b = logit_fit.augment(type_residuals="pearson")
    ginfl = reference(logit_fit, data).get_influence(observed=False)
    np.testing.assert_allclose(b[".hat"], ginfl.hat_matrix_diag, rtol=1e-8)
    np.testing.assert_allclose(b[".cooksd"], ginfl.cooks_distance[0], rtol=1e-7)
    np.testing.assert_allclose(b[".std.resid"], ginfl.resid_studentized, rtol=1e-7)


def test_augment_new_rows_with_missing_values(ols_fit, logit_fit, data):
    new = with_missing(data.head(6))
    a = ols_fit.augment(new, se_fit=True)
    assert list(a.columns) == list(new.columns) + [".fitted", ".se.fit", ".resid"]
    assert a[".fitted"].isna().tolist() == [False, True, False, True, False, False]
    np.testing.assert_allclose(a[".fitted"], ols_fit.predict(new), rtol=1e-12)
    b = logit_fit.augment(new, type_predict="response")
    assert list(b.columns) == list(new.columns) + [".fitted"]
    np.testing.assert_allclose(b[".fitted"], logit_fit.predict(new), rtol=1e-12)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"type_predict": "terms"}, ValueError, r"type_predict must be one of \['link', 'response'\], got 'terms'"),
    ({"type_residuals": "working"}, ValueError, r"type_residuals must be one of \['deviance', 'pearson'\]"),
    ({"se_fit": "yes"}, TypeError, "se_fit must be True or False, got 'yes'"),
])
def test_augment_refuses_bad_options(logit_fit, kwargs, error, message):
    with pytest.raises(error, match=message):
        logit_fit.augment(**kwargs)


def test_augment_refuses_newdata_that_is_not_a_frame(logit_fit):
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame"):
        logit_fit.augment(np.zeros((3, 3)))


# -- model_frame: generated terms stay refittable ------------------------------------------------------
def test_pca_terms_refit_with_statsmodels_on_the_model_frame(wdbc):
    """The issue's example: selected_formula after pca() failed in smf.glm ('pca_3' is not defined)."""
    fit = sr.streamreg("diagnosis ~ pca(*_mean, k=5) + stream(*_se)", wdbc, family="binomial")
    assert any(t.startswith("pca_") for t in fit.selected_terms)
    with pytest.raises(Exception, match=r"name 'pca_\d' is not defined"):
        smf.glm(fit.selected_formula, wdbc, family=fit.family).fit()
    frame = fit.model_frame()
    assert frame.columns[0] == "diagnosis"
    same_tol = smf.glm(fit.selected_formula, frame, family=fit.family).fit(tol=1e-10, maxiter=200)
    np.testing.assert_allclose(same_tol.params, fit.params, rtol=1e-10)
    default = smf.glm(fit.selected_formula, frame, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(default.params, fit.params, rtol=1e-8)  # statsmodels' default tolerance
    # on new rows the components come from the training loadings: the same rows give the same frame
    again = fit.model_frame(wdbc)
    pd.testing.assert_frame_equal(again[frame.columns], frame, check_exact=False, rtol=1e-13)
    np.testing.assert_allclose(same_tol.predict(fit.model_frame(wdbc.head(20))), fit.predict(wdbc.head(20)),
                               rtol=1e-10)
    with pytest.raises(ValueError, match=r"newdata lacks the column\(s\) \['radius_mean'\]"):
        fit.model_frame(wdbc.drop(columns=["radius_mean"]))


def test_model_frame_of_held_out_rows_select_and_functions(wdbc):
    held = sr.streamreg("diagnosis ~ pca(*_mean, k=5) + stream(*_se)", wdbc, family="binomial", validate=0.5, seed=1)
    frame = held.model_frame()
    assert len(frame) == held.nobs == held.validation["n_validation"]
    ref = smf.glm(held.selected_formula, frame, family=held.family).fit(tol=1e-10, maxiter=200)
    np.testing.assert_allclose(ref.params, held.params, rtol=1e-10)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 5))
    chosen = sr.select(x[:, 0] + rng.normal(size=200), x, **STRICT)
    ref = smf.ols(chosen.selected_formula, chosen.model_frame()).fit()
    np.testing.assert_allclose(ref.params, chosen.params, rtol=1e-12)

    d = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    d["y"] = d.a**3 + rng.normal(size=200)
    fn = sr.streamreg("y ~ transform(a, b, fn=cube)", d, functions={"cube": cube}, **STRICT)
    assert fn.selected_formula == "y ~ 1 + cube(a)"
    ref = smf.ols(fn.selected_formula, fn.model_frame()).fit()  # cube is in this module's scope
    np.testing.assert_allclose(ref.params, fn.params, rtol=1e-12)


def test_model_frame_keeps_rows_and_missing_values(ols_fit, data):
    new = with_missing(data.head(5))
    frame = ols_fit.model_frame(new)
    assert list(frame.columns) == ["y", "x1", "x2", "grp", "age"]  # the response, then in data order
    pd.testing.assert_index_equal(frame.index, new.index)
    assert frame.isna().sum().sum() == 2
    assert list(ols_fit.model_frame(new.drop(columns=["y"])).columns) == ["x1", "x2", "grp", "age"]


def test_results_still_pickle_with_the_new_methods(ols_fit, logit_fit, data):
    back = pickle.loads(pickle.dumps(ols_fit))  # patsy's design info is rebuilt for the selection columns
    pd.testing.assert_frame_equal(back.tidy(), ols_fit.tidy())
    back = pickle.loads(pickle.dumps(logit_fit))
    pd.testing.assert_frame_equal(back.augment(), logit_fit.augment())
    pd.testing.assert_frame_equal(back.tidy(), logit_fit.tidy())
    pd.testing.assert_frame_equal(back.glance(), logit_fit.glance())


@pytest.mark.parametrize("family", ["gaussian", "gamma"])
def test_summary2_states_r_criteria_once(family):
    import warnings

    wpbc = sr.datasets.load("wpbc").data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows with missing values dropped
        fit = sr.streamreg("time ~ stream(*_mean)", wpbc, family=family)
    text = " ".join(fit.summary2().as_text().split())
    assert text.count(f"{fit.aic:.6g}") + text.count(f"{fit.aic:.4f}") == 1  # R's AIC, stated in one note
