"""Results branch on the statsmodels family object, not on a family name: a Gaussian family
with a log link is a GLM (``glance()`` and ``predict(linear=True)`` work as for any GLM);
the refit moved to ``results/`` and is unchanged."""
import dataclasses
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.formula.terms import rbf_term, selected_rhs, term_formulas
from streamreg.results import SelectedModel, SelectionRecord, fit_selected
from streamreg.search.penalised.basis import ColumnSpec
from streamreg.streams.base import AcceptedTerm


def gaussian_log():
    return sm.families.Gaussian(sm.families.links.Log())


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 300
    d = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    d["y"] = np.exp(0.6 + 0.5 * d.x1 - 0.4 * d.x5) + 0.2 * rng.normal(size=n)
    return d


@pytest.fixture(scope="module")
def log_fit(data):
    return sr.streamreg("y ~ stream(x*)", data, family=gaussian_log())


def _reference(fit, data):
    """statsmodels' GLM with the same family on the selected design."""
    x = fit.design(data)
    return x, sm.GLM(data["y"], x, family=gaussian_log()).fit(tol=1e-12, maxiter=500)


def test_gaussian_log_selects_and_refits_a_glm(log_fit, data):
    assert {"x1", "x5"} <= set(log_fit.selected_terms)
    assert isinstance(log_fit.family, sm.families.Gaussian)
    assert isinstance(log_fit.family.link, sm.families.links.Log)
    assert isinstance(log_fit.fit.model, sm.GLM)
    _, ref = _reference(log_fit, data)
    np.testing.assert_allclose(log_fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-8, atol=1e-10)


def test_gaussian_log_predict_linear_is_the_linear_predictor(log_fit, data):
    new = data.sample(30, random_state=2)
    x, ref = _reference(log_fit, data)
    lin = log_fit.predict(new, linear=True)
    mean = log_fit.predict(new)
    xn = log_fit.design(new)
    np.testing.assert_allclose(lin.to_numpy(), ref.predict(xn, which="linear"), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(mean.to_numpy(), ref.predict(xn, which="mean"), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(mean.to_numpy(), np.exp(lin.to_numpy()), rtol=1e-12)
    assert not np.allclose(lin.to_numpy(), mean.to_numpy())  # the old bug: the mean under both names
    np.testing.assert_allclose(log_fit.predict(linear=True).to_numpy(), x.to_numpy() @ ref.params.to_numpy(),
                               rtol=1e-8, atol=1e-8)


def test_gaussian_log_glance_summary_tidy(log_fit, data):
    _, ref = _reference(log_fit, data)
    g = log_fit.glance()
    assert len(g) == 1 and "r.squared" not in g and "sigma" not in g
    np.testing.assert_allclose(g["deviance"].iloc[0], ref.deviance, rtol=1e-8)
    r_loglik = ref.family.loglike(ref.model.endog, ref.fittedvalues, scale=ref.deviance / ref.nobs)  # R's logLik
    np.testing.assert_allclose(g["logLik"].iloc[0], r_loglik, rtol=1e-8)
    assert g["selected"].iloc[0] == len(log_fit.selected_terms)
    assert "Generalized Linear Model" in log_fit.summary().as_text()
    assert list(log_fit.tidy()["term"]) == list(log_fit.params.index)
    back = pickle.loads(pickle.dumps(log_fit))
    pd.testing.assert_frame_equal(back.glance(), g)


def test_gaussian_log_with_select(data):
    x = data[[f"x{j}" for j in range(8)]]
    fit = sr.select(data["y"], x, family=gaussian_log())
    assert {"x1", "x5"} <= set(fit.selected_terms)
    lin = fit.predict(linear=True)
    np.testing.assert_allclose(np.exp(lin), fit.predict(), rtol=1e-12)
    assert "deviance" in fit.glance()


@pytest.mark.parametrize("family, column", [("gaussian", "y"), ("binomial", "b"), ("poisson", "k")])
def test_other_families_keep_their_tables_and_predictions(data, family, column):
    rng = np.random.default_rng(1)
    d = data.assign(b=(rng.uniform(size=len(data)) < 1 / (1 + np.exp(-data.x1))).astype(int),
                    k=rng.poisson(np.exp(0.3 * data.x1)))
    fit = sr.streamreg(f"{column} ~ stream(x*)", d.drop(columns=[c for c in ("y", "b", "k") if c != column]),
                       family=family)
    assert fit.family_name == family
    g = fit.glance()
    if family == "gaussian":
        assert {"r.squared", "sigma", "deviance"} <= set(g) and "null.deviance" not in g
        np.testing.assert_array_equal(fit.predict(d, linear=True), fit.predict(d))
    else:
        assert "deviance" in g and "r.squared" not in g
        lin, mean = fit.predict(d, linear=True), fit.predict(d)
        np.testing.assert_allclose(fit.family.link.inverse(lin.to_numpy()), mean.to_numpy(), rtol=1e-12)


# -- the refit, now in results/ ---------------------------------------------------------------------

def test_fit_selected_equals_statsmodels(data):
    search_fit = sr.streamreg("y ~ stream(x*)", data)
    model = SelectedModel(rhs="1 + x1 + x5", response_label="y", response_name="y", train=data,
                          y=data["y"].to_numpy(), family=sm.families.Gaussian())
    res = fit_selected(model, SelectionRecord(search=search_fit.search, policy=search_fit.policy,
                                              test_description="t"))
    ref = sm.OLS(data["y"], sm.add_constant(data[["x1", "x5"]])).fit()
    np.testing.assert_allclose(res.params.to_numpy(), ref.params.to_numpy(), rtol=1e-12)
    assert res.selected_formula == "y ~ 1 + x1 + x5"
    assert res.glance()["r.squared"].iloc[0] == pytest.approx(ref.rsquared, rel=1e-12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.rhs = "1"


@pytest.mark.parametrize("entry", ["streamreg", "select"])
def test_refit_warning_points_at_the_callers_line(entry):
    rng = np.random.default_rng(3)
    n = 200
    d = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x0", "x1", "x2", "x3"])
    d["y"] = d.x2 - 0.8 * d.x1 + rng.normal(size=n)
    d["x2"] = d["x2"] * 1e-300
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if entry == "streamreg":
            fit = sr.streamreg("y ~ stream(x*)", d, w0=0.25, alpha_delta=0.25)
        else:
            fit = sr.select(d["y"], d.drop(columns="y"), w0=0.25, alpha_delta=0.25)
    refit = [w for w in caught if issubclass(w.category, sr.RefitWarning)]
    assert len(refit) == 1 and "x2 lies outside floating-point range" in str(refit[0].message)
    assert refit[0].filename == __file__
    assert fit.refit_warnings and "x2" in fit.refit_warnings[0]


# -- the formula layer writes the selected terms -------------------------------------------------

def test_rbf_basis_is_data_and_the_formula_layer_writes_its_terms():
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame(rng.uniform(-2, 2, size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    df["y"] = np.sin(2 * df["x1"]) + 0.2 * rng.normal(size=n)
    fit = sr.streamreg("y ~ stream(x*)", df, method="grafting", lam=0.01, basis="rbf")
    rbf = [t for t in fit.search.accepted if t.extra.get("basis")]
    assert rbf
    for t in fit.search.accepted:
        assert not any(isinstance(v, str) or (isinstance(v, (list, tuple)) and v and isinstance(v[0], str))
                       for v in t.extra.values())  # no patsy strings from the search layer
        assert all(isinstance(s, ColumnSpec) and s.is_rbf for s in t.extra.get("basis", ()))
    assert fit.selected_formula == "y ~ " + selected_rhs("1", fit.search.accepted)
    spec = rbf[0].extra["basis"][0]
    z = (df[rbf[0].name] - spec.mean) / spec.sd
    column = fit.design(df)[rbf_term(rbf[0].name, spec)]
    np.testing.assert_allclose(column, np.exp(-(((z - spec.centre) / spec.width) ** 2)), rtol=1e-12)


def test_term_formulas_of_plain_and_rbf_terms():
    plain = AcceptedTerm(name="np.log(x1)", stream="s", values=np.zeros((3, 1)), columns=["np.log(x1)"])
    assert term_formulas(plain) == ["np.log(x1)"]
    spec = ColumnSpec(0, 0, 0.5, 2.0, -1.25, 0.3)
    rbf = AcceptedTerm(name="x1", stream="s", values=np.zeros((3, 1)), columns=["x1_rbf1"], extra={"basis": (spec,)})
    assert term_formulas(rbf) == ["I(np.exp(-((((x1) - 0.5) / 2.0 - -1.25) / 0.3) ** 2))"]
    assert selected_rhs("1 + a", [plain, rbf]) == "1 + a + np.log(x1) + " + term_formulas(rbf)[0]
    with pytest.raises(ValueError, match="linear term is refit whole"):
        rbf_term("x1", ColumnSpec(0, 0, 0.0, 1.0))
