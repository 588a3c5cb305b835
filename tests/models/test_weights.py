"""Offsets and weights (``offset=``, ``exposure=``, ``freq_weights=``, ``var_weights=``) against statsmodels.

Every candidate test with the options equals statsmodels' fit with the same options:

* least squares: the partial t of ``WLS(y, [X, b], weights=var_weights)``; with an offset or
  ``freq_weights`` the Gaussian ``GLM(..., use_t=True)`` and the OLS of the repeated rows;
* GLMs: ``GLM(y, X, family, offset=, exposure=, freq_weights=, var_weights=).fit().score_test(
  exog_extra=b)`` (canonical links: observed and expected information agree) and twice the
  log-likelihood gain of the two fits;

and so does the refit.  The data are tests/reference/data (MASS's ships with its exposure,
quine, birthwt, mtcars).  Weights all equal to one decide exactly as no weights.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import patsy
import pytest
import statsmodels.api as sm
from one_phase import ONE_PHASE
from scipy import stats

import streamreg as sr
from streamreg.models.base import CandidateBlock, ObservationWeights
from streamreg.models.gaussian import GaussianState
from streamreg.models.glm import GLMState

DATA = Path(__file__).parents[1] / "reference" / "data"
TOL = 1e-8


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv")


@pytest.fixture(scope="module")
def mtcars():
    return read("mtcars_full")


@pytest.fixture(scope="module")
def ships():
    return read("ships")


@pytest.fixture(scope="module")
def quine():
    d = read("quine")
    d["w"] = np.where(d["Lrn"] == "SL", 2.0, 1.0)  # frequency weights: SL pupils counted twice
    d["v"] = 1.0 + (d["Age"] == "F3")  # variance weights
    return d


@pytest.fixture(scope="module")
def birthwt():
    return read("birthwt")


def rel(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def sm_score(fit, extra) -> float:
    """statsmodels' score statistic (expected information: the package's; equal to observed here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "score test has not been verified with var_weights"
        out = fit.score_test(exog_extra=extra, observed=False)
    return float(np.ravel(out[0])[0])


def fixed_and_candidates(d: pd.DataFrame, fixed: str, candidates: list[str]):
    x = np.asarray(patsy.dmatrix(fixed, d), dtype=float)
    cands = [np.asarray(patsy.dmatrix(f"0 + {c}", d), dtype=float) for c in candidates]
    # factors coded against the intercept: drop the first level (patsy's full coding under "0 +")
    cands = [c[:, 1:] if c.shape[1] > 1 and np.allclose(c.sum(axis=1), 1) else c for c in cands]
    return x, cands


# ---------------------------------------------------------------------------------- least squares
MT_CANDIDATES = ["cyl", "disp", "hp", "drat", "qsec", "vs", "am", "gear", "carb"]


def _mt_options(d: pd.DataFrame) -> dict[str, dict]:
    return {
        "var_weights": {"var_weights": d["hp"].to_numpy(float) / 100},
        "freq_weights": {"freq_weights": d["carb"].to_numpy(float)},
        "offset": {"offset": 0.5 * d["qsec"].to_numpy(float)},
        "all": {"offset": 0.5 * d["qsec"].to_numpy(float), "freq_weights": d["carb"].to_numpy(float),
                "var_weights": d["hp"].to_numpy(float) / 100},
    }


@pytest.mark.parametrize("which", ["var_weights", "freq_weights", "offset", "all"])
def test_gaussian_t_equals_statsmodels(mtcars, which):
    opts = _mt_options(mtcars)[which]
    y = mtcars["mpg"].to_numpy(float)
    x = np.column_stack([np.ones(len(y)), mtcars["wt"]])
    c = mtcars[MT_CANDIDATES].to_numpy(float)
    state = GaussianState(y, x, weights=ObservationWeights(**opts))
    out, codes = state.score_block(CandidateBlock(c))
    assert (codes == 0).all()
    r0 = sm.GLM(y, x, family=sm.families.Gaussian(), **opts).fit()
    assert state.loglik == pytest.approx(r0.llf, rel=1e-12)
    for j in range(c.shape[1]):
        xb = np.column_stack([x, c[:, j]])
        if which == "var_weights":
            ref = sm.WLS(y, xb, weights=opts["var_weights"]).fit()
            assert state.loglik == pytest.approx(sm.WLS(y, x, weights=opts["var_weights"]).fit().llf, rel=1e-12)
        else:
            ref = sm.GLM(y, xb, family=sm.families.Gaussian(), **opts).fit(use_t=True)
        assert rel(out.statistic[j], ref.tvalues[-1] ** 2) < TOL
        assert rel(np.exp(out.log_p[j]), ref.pvalues[-1]) < TOL
        assert out.df_resid[j] == pytest.approx(ref.df_resid)
        assert rel(out.llr[j], 2 * (ref.llf - (r0.llf if which != "var_weights" else
                                             sm.WLS(y, x, weights=opts["var_weights"]).fit().llf))) < TOL
    # a three-column term: statsmodels' F test of its coefficients
    out3, _ = state.score_block(CandidateBlock(c[:, :3], widths=np.array([3])))
    ref3 = sm.GLM(y, np.column_stack([x, c[:, :3]]), family=sm.families.Gaussian(), **opts).fit(use_t=True)
    f = ref3.f_test(np.eye(5)[2:])
    assert rel(out3.statistic[0] / 3, float(np.squeeze(f.fvalue))) < TOL
    assert rel(np.exp(out3.log_p[0]), float(f.pvalue)) < TOL


def test_gaussian_frequency_weights_are_repeated_rows(mtcars):
    fw = mtcars["carb"].to_numpy(int)
    rows = np.repeat(np.arange(len(mtcars)), fw)
    y = mtcars["mpg"].to_numpy(float)
    x = np.column_stack([np.ones(len(y)), mtcars["wt"]])
    c = mtcars[MT_CANDIDATES].to_numpy(float)
    state = GaussianState(y, x, weights=ObservationWeights(freq_weights=fw.astype(float)))
    out, _ = state.score_block(CandidateBlock(c))
    for j in range(c.shape[1]):
        ref = sm.OLS(y[rows], np.column_stack([x, c[:, j]])[rows]).fit()
        assert rel(out.statistic[j], ref.tvalues[-1] ** 2) < TOL
        assert rel(np.exp(out.log_p[j]), ref.pvalues[-1]) < TOL
    assert state.loglik == pytest.approx(sm.OLS(y[rows], x[rows]).fit().llf, rel=1e-12)
    # and the refit of a selection is the OLS of the repeated rows
    fit = sr.streamreg("mpg ~ wt + stream(cyl, disp, hp, drat, qsec)", mtcars, freq_weights="carb",
                       w0=0.05, alpha_delta=0.05)
    design = np.asarray(patsy.dmatrix(fit.selected_formula.split("~")[1], mtcars), dtype=float)
    ref = sm.OLS(y[rows], design[rows]).fit()
    assert rel(fit.params, ref.params) < 1e-10
    assert rel(fit.bse, ref.bse) < 1e-10
    assert rel(fit.pvalues, ref.pvalues) < 1e-8
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    assert float(fit.fit.df_resid) == ref.df_resid


# ---------------------------------------------------------------------------------- GLMs
def _glm_cases(ships, quine, birthwt):
    """(family, y, fixed, candidates, options) on the reference data."""
    sx, sc = fixed_and_candidates(ships, "1", ["C(type)", "C(year)", "C(period)", "log_service"])
    qx, qc = fixed_and_candidates(quine, "1 + C(Eth)", ["C(Sex)", "C(Age)", "C(Lrn)"])
    bx, bc = fixed_and_candidates(birthwt, "1 + lwt", ["age", "C(race)", "smoke", "ptl", "ht", "ui", "ftv"])
    n = len(birthwt)
    bw = 1.0 + (birthwt["ftv"].to_numpy(float) > 0)
    return {
        "ships exposure": (sm.families.Poisson(), ships["incidents"].to_numpy(float), sx, sc,
                           {"exposure": ships["service"].to_numpy(float)}),
        "ships offset": (sm.families.Poisson(), ships["incidents"].to_numpy(float), sx, sc,
                         {"offset": ships["log_service"].to_numpy(float)}),
        "quine freq": (sm.families.Poisson(), quine["Days"].to_numpy(float), qx, qc,
                       {"freq_weights": quine["w"].to_numpy(float)}),
        "quine var+offset": (sm.families.Poisson(), quine["Days"].to_numpy(float), qx, qc,
                             {"var_weights": quine["v"].to_numpy(float), "offset": 0.1 * (quine["Sex"] == "M")}),
        "birthwt var": (sm.families.Binomial(), birthwt["low"].to_numpy(float), bx, bc, {"var_weights": bw}),
        "birthwt all": (sm.families.Binomial(), birthwt["low"].to_numpy(float), bx, bc,
                        {"var_weights": bw, "freq_weights": np.where(np.arange(n) % 3 == 0, 2.0, 1.0),
                         "offset": 0.01 * birthwt["age"].to_numpy(float) - 0.2}),
    }


GLM_CASES = ["ships exposure", "ships offset", "quine freq", "quine var+offset", "birthwt var", "birthwt all"]


def _opts(o: dict) -> dict:
    return {k: np.asarray(v, dtype=float) for k, v in o.items()}


@pytest.mark.parametrize("case", GLM_CASES)
def test_glm_score_and_lr_equal_statsmodels(ships, quine, birthwt, case):
    fam, y, x, cands, opts = _glm_cases(ships, quine, birthwt)[case]
    opts = _opts(opts)
    widths = np.array([c.shape[1] for c in cands])
    block = CandidateBlock(np.column_stack(cands), widths)
    weights = ObservationWeights(**opts)
    score, codes = GLMState(y, x, fam, weights=weights).score_block(block)
    lr, _ = GLMState(y, x, fam, test="lr", weights=weights).score_block(block)
    assert (codes == 0).all()
    r0 = sm.GLM(y, x, family=fam, **opts).fit(tol=1e-12, maxiter=200)
    for j, c in enumerate(cands):
        stat = sm_score(r0, c)
        assert rel(score.statistic[j], stat) < TOL, j
        assert rel(np.exp(score.log_p[j]), stats.chi2.sf(stat, c.shape[1])) < TOL
        r1 = sm.GLM(y, np.column_stack([x, c]), family=fam, **opts).fit(tol=1e-12, maxiter=200)
        # R's add1(test = "LRT"): the deviance change over the base model's Pearson dispersion
        assert rel(lr.statistic[j], (r0.deviance - r1.deviance) / r0.scale) < TOL, j
        assert score.df[j] == lr.df[j] == c.shape[1]


def test_exposure_equals_offset_of_its_log(ships):
    y = ships["incidents"].to_numpy(float)
    x, cands = fixed_and_candidates(ships, "1", ["C(type)", "C(year)", "log_service"])
    block = CandidateBlock(np.column_stack(cands), np.array([c.shape[1] for c in cands]))
    a, _ = GLMState(y, x, sm.families.Poisson(), weights=ObservationWeights(
        exposure=ships["service"].to_numpy(float))).score_block(block)
    b, _ = GLMState(y, x, sm.families.Poisson(), weights=ObservationWeights(
        offset=np.log(ships["service"].to_numpy(float)))).score_block(block)
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-12)


def _replay_streamwise(fit, data, family, fixed: str, opts: dict, test: str) -> None:
    """Every tested row of the history against statsmodels on the model of its time."""
    y = np.asarray(patsy.dmatrix(f"0 + {fit.selected_formula.split('~')[0]}", data), dtype=float)[:, 0]
    x = np.asarray(patsy.dmatrix(fixed, data), dtype=float)
    rows = fit.history[fit.history["test"].notna()]
    assert len(rows) >= 3
    for row in rows.itertuples():
        _, (c,) = fixed_and_candidates(data, "1", [row.term])
        r0 = sm.GLM(y, x, family=family, **opts).fit(tol=1e-12, maxiter=200)
        if test == "score":
            expected = sm_score(r0, c)
        else:
            r1 = sm.GLM(y, np.column_stack([x, c]), family=family, **opts).fit(tol=1e-12, maxiter=200)
            expected = 2 * (r1.llf - r0.llf)
        assert rel(row.statistic, expected) < TOL, row.term
        assert rel(row.pvalue, stats.chi2.sf(expected, c.shape[1])) < TOL, row.term
        if row.accepted:
            x = np.column_stack([x, c])


@pytest.mark.parametrize("test", ["score", "lr"])
def test_streamwise_search_with_exposure_column_replays_in_statsmodels(ships, test):
    fit = sr.streamreg("incidents ~ stream(C(type), C(year), C(period), log_service)", ships, family="poisson",
                       exposure="service", test=test, passes=3, **ONE_PHASE)
    assert "service" not in fit.history["term"].tolist()  # the exposure column is never a candidate
    _replay_streamwise(fit, ships, sm.families.Poisson(), "1", {"exposure": ships["service"].to_numpy(float)}, test)
    ref = sm.GLM(fit.fit.model.endog, fit.fit.model.exog, family=sm.families.Poisson(),
                 exposure=ships["service"]).fit(tol=1e-12)
    assert rel(fit.params, ref.params) < 1e-10
    assert rel(fit.bse, ref.bse) < 1e-7  # statsmodels' own covariance lags one IRLS step
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)


def test_select_with_weight_arrays_replays_in_statsmodels(birthwt):
    d = birthwt
    _, cands = fixed_and_candidates(d, "1", ["age", "lwt", "smoke", "ptl", "ht", "ui", "ftv"])
    c = np.column_stack(cands)
    opts = _opts({"var_weights": 1.0 + (d["ftv"] > 0), "offset": 0.01 * d["age"] - 0.2})
    fit = sr.select(d["low"], pd.DataFrame(c, columns=["age", "lwt", "smoke", "ptl", "ht", "ui", "ftv"]),
                    family="binomial", passes=3, **{**ONE_PHASE, "w0": 0.25, "alpha_delta": 0.25}, **opts)
    assert fit.selected_terms
    data = d.assign(low=d["low"].astype(float))
    _replay_streamwise(fit, data, sm.families.Binomial(), "1", opts, "score")


def test_stepwise_with_weights_equals_a_statsmodels_forward_search(quine):
    """Forward stepwise AIC: each step adds the candidate of largest 2 delta llf - 2 df (statsmodels fits)."""
    opts = _opts({"freq_weights": quine["w"], "var_weights": quine["v"]})
    terms = ["C(Eth)", "C(Sex)", "C(Age)", "C(Lrn)"]
    fit = sr.streamreg(f"Days ~ stream({', '.join(terms)})", quine, family="poisson", method="stepwise-aic",
                       freq_weights="w", var_weights="v", direction="both")
    y = quine["Days"].to_numpy(float)
    x = np.ones((len(y), 1))
    remaining, chosen, gains = list(terms), [], []
    while remaining:
        r0 = sm.GLM(y, x, family=sm.families.Poisson(), **opts).fit(tol=1e-12)
        best = None
        for t in remaining:
            _, (c,) = fixed_and_candidates(quine, "1", [t])
            r1 = sm.GLM(y, np.column_stack([x, c]), family=sm.families.Poisson(), **opts).fit(tol=1e-12)
            llr = 2 * (r1.llf - r0.llf)
            if best is None or llr - 2 * c.shape[1] > best[1] - 2 * best[2].shape[1]:
                best = (t, llr, c)
        if best[1] - 2 * best[2].shape[1] <= 0:
            break
        chosen.append(best[0])
        gains.append(best[1])
        remaining.remove(best[0])
        x = np.column_stack([x, best[2]])
    assert fit.selected_terms == chosen
    np.testing.assert_allclose(fit.selected["statistic"], gains, rtol=TOL)
    ref = sm.GLM(y, x, family=sm.families.Poisson(), **opts).fit(tol=1e-12)
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    assert fit.aic == pytest.approx(-2 * ref.llf + 2 * x.shape[1], rel=1e-12)


# ---------------------------------------------------------------------------------- unit weights
@pytest.mark.parametrize("family, formula", [
    ("gaussian", "mpg ~ wt + stream(cyl, disp, hp, drat, qsec, vs, am, gear, carb)"),
    ("poisson", "carb ~ stream(cyl, disp, hp, drat, wt, qsec, vs, am, gear)"),
    ("binomial", "am ~ stream(cyl, disp, hp, drat, wt, qsec, vs, gear)"),
])
@pytest.mark.parametrize("method", ["alpha-investing", "stepwise-aic"])
def test_unit_weights_decide_as_no_weights(mtcars, family, formula, method):
    d = mtcars.assign(one=1.0, zero=0.0)
    extra = {"w0": 0.25, "alpha_delta": 0.25} if method == "alpha-investing" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sr.RefitWarning)
        plain = sr.streamreg(formula, d, family=family, method=method, **extra)
        unit = sr.streamreg(formula, d, family=family, method=method, freq_weights="one", var_weights="one",
                            offset="zero", **extra)
    assert unit.selected_terms == plain.selected_terms
    assert len(plain.selected_terms) >= 1
    h0, h1 = plain.history, unit.history
    assert h1["term"].tolist() == h0["term"].tolist()
    assert h1["status"].tolist() == h0["status"].tolist()
    np.testing.assert_allclose(h1["statistic"], h0["statistic"], rtol=1e-9)
    np.testing.assert_allclose(h1["pvalue"], h0["pvalue"], rtol=1e-8)
    np.testing.assert_allclose(unit.params, plain.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(unit.bse, plain.bse, rtol=1e-9)


# ---------------------------------------------------------------------------------- refit and prediction
def test_gaussian_refit_is_wls_with_var_weights(mtcars):
    fit = sr.streamreg("mpg ~ wt + stream(cyl, disp, hp, qsec)", mtcars, var_weights="drat", w0=0.25,
                       alpha_delta=0.25)
    x = np.asarray(patsy.dmatrix(fit.selected_formula.split("~")[1], mtcars), dtype=float)
    ref = sm.WLS(mtcars["mpg"], x, weights=mtcars["drat"]).fit()
    assert type(fit.fit.model).__name__ == "WLS"
    for name in ("params", "bse", "pvalues", "fittedvalues", "resid"):
        assert rel(getattr(fit.fit, name), getattr(ref, name)) < 1e-10, name
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    assert fit.resid.to_numpy() == pytest.approx(np.asarray(ref.resid), rel=1e-10)


def test_gaussian_refit_with_offset_is_the_gaussian_glm(mtcars):
    fit = sr.streamreg("mpg ~ wt + stream(cyl, disp, hp)", mtcars, offset="qsec", w0=0.25, alpha_delta=0.25)
    x = np.asarray(patsy.dmatrix(fit.selected_formula.split("~")[1], mtcars), dtype=float)
    ref = sm.GLM(mtcars["mpg"], x, family=sm.families.Gaussian(), offset=mtcars["qsec"]).fit(use_t=True)
    assert rel(fit.params, ref.params) < 1e-10 and rel(fit.bse, ref.bse) < 1e-10
    assert rel(fit.pvalues, ref.pvalues) < 1e-8  # t with n - k df, as R's lm(offset=)
    np.testing.assert_allclose(fit.resid, mtcars["mpg"] - ref.fittedvalues, rtol=1e-10)
    np.testing.assert_allclose(fit.predict(), ref.fittedvalues, rtol=1e-12)
    new = mtcars.iloc[:4].assign(qsec=[10.0, 20.0, np.nan, 15.0])
    expected = np.asarray(ref.predict(x[:4], offset=new["qsec"].to_numpy()))
    np.testing.assert_allclose(fit.predict(new), expected, rtol=1e-12)
    assert np.isnan(fit.predict(new).iloc[2])  # the offset is missing there


def test_prediction_reads_the_exposure_column_of_new_data(ships):
    fit = sr.streamreg("incidents ~ stream(C(type), C(year), C(period))", ships, family="poisson",
                       exposure="service", w0=0.05, alpha_delta=0.05)
    new = ships.iloc[:6].assign(service=[100.0, 1000, 50, 7, 1, 3000])
    x = fit.design(new).to_numpy()
    ref = sm.GLM(ships["incidents"], fit.fit.model.exog, family=sm.families.Poisson(),
                 exposure=ships["service"]).fit(tol=1e-12)
    np.testing.assert_allclose(fit.predict(new), ref.predict(x, exposure=new["service"]), rtol=1e-9)
    np.testing.assert_allclose(fit.predict(new, linear=True),
                               x @ fit.params.to_numpy() + np.log(new["service"]), rtol=1e-12)
    np.testing.assert_allclose(fit.predict(), ref.fittedvalues, rtol=1e-9)  # the training rows: their exposure
    frame = fit.get_prediction(new).summary_frame()
    np.testing.assert_allclose(frame.iloc[:, 0], fit.predict(new), rtol=1e-12)
    with pytest.raises(ValueError, match="service"):
        fit.predict(new.drop(columns="service"))
    assert "service" in fit.model_frame().columns
    # given as an array, the exposure of new rows is statsmodels' default, 1
    arr = sr.streamreg("incidents ~ stream(C(type), C(year), C(period))", ships, family="poisson",
                       exposure=ships["service"].to_numpy(), w0=0.05, alpha_delta=0.05)
    np.testing.assert_allclose(arr.predict(new), np.exp(x @ arr.params.to_numpy()), rtol=1e-12)
    np.testing.assert_allclose(arr.params, fit.params, rtol=1e-12)


def test_glm_standard_errors_are_those_of_the_mle(ships):
    """Inverse Fisher information at the fitted means (statsmodels' own lags one IRLS step)."""
    fit = sr.streamreg("incidents ~ stream(C(type), C(year), C(period))", ships, family="poisson",
                       exposure="service", var_weights=np.linspace(0.5, 2, len(ships)), w0=0.05, alpha_delta=0.05)
    x = fit.fit.model.exog
    mu = np.asarray(fit.fit.fittedvalues)
    info = x.T @ ((np.linspace(0.5, 2, len(ships)) * mu)[:, None] * x)
    np.testing.assert_allclose(fit.bse, np.sqrt(np.diag(np.linalg.inv(info))), rtol=1e-11)


def test_missing_weight_in_a_column_drops_the_row(quine):
    d = quine.copy()
    d.loc[[3, 10], "w"] = np.nan
    with pytest.warns(UserWarning, match="dropped 2 rows"):
        fit = sr.streamreg("Days ~ stream(C(Sex), C(Age), C(Lrn))", d, family="poisson", freq_weights="w",
                           w0=0.05, alpha_delta=0.05)
    assert fit.nobs == len(d) - 2
    np.testing.assert_array_equal(fit.fit.model.freq_weights, d["w"].dropna().to_numpy())


def test_validate_refits_the_held_out_rows_with_their_weights(quine):
    w = np.where(quine["Lrn"] == "SL", 2.0, 1.0)
    fit = sr.streamreg("Days ~ stream(C(Sex), C(Age), C(Lrn), C(Eth))", quine, family="poisson",
                       freq_weights=w, var_weights="v", validate=0.5, seed=1, w0=0.05, alpha_delta=0.05)
    held = fit.model_frame().index
    np.testing.assert_array_equal(fit.fit.model.freq_weights, w[quine.index.get_indexer(held)])
    np.testing.assert_array_equal(fit.fit.model.var_weights, quine.loc[held, "v"].to_numpy())


def test_non_integer_frequency_weights_are_allowed_as_statsmodels_does(quine):
    fw = np.linspace(0.5, 1.5, len(quine))
    fit = sr.streamreg("Days ~ stream(C(Sex), C(Age), C(Lrn))", quine, family="poisson", freq_weights=fw,
                       w0=0.05, alpha_delta=0.05)
    ref = sm.GLM(quine["Days"], fit.fit.model.exog, family=sm.families.Poisson(), freq_weights=fw).fit()
    assert rel(fit.params, ref.params) < 1e-10


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("options, error, match", [
    ({"weights": "w"}, TypeError, "var_weights= .* or freq_weights="),
    ({"offset": "nope"}, ValueError, "offset='nope' is not a column of the data"),
    ({"var_weights": "days"}, ValueError, "did you mean 'Days'"),
    ({"offset": np.zeros(5)}, ValueError, "offset has 5 values, but the data have 146 rows"),
    ({"freq_weights": -np.ones(146)}, ValueError, "freq_weights must be non-negative"),
    ({"var_weights": np.zeros(146)}, ValueError, "var_weights must be positive"),
    ({"offset": np.r_[np.nan, np.zeros(145)]}, ValueError, r"offset has 1 missing \(NaN\) value"),
    ({"exposure": np.r_[0.0, np.ones(145)]}, ValueError, "exposure must be positive"),
    ({"offset": "w", "exposure": "v"}, ValueError, "not both"),
    ({"offset": np.zeros((146, 2))}, ValueError, "one-dimensional"),
    ({"offset": 1.0}, TypeError, "column name of the data or an array"),
    ({"freq_weights": np.zeros(146)}, ValueError, "all zero"),
    ({"offset": np.array(["a"] * 146)}, ValueError, "must be numeric"),
])
def test_bad_options_are_refused_with_their_name(quine, options, error, match):
    with pytest.raises(error, match=match):
        sr.streamreg("Days ~ stream(C(Sex), C(Age))", quine, family="poisson", **options)


def test_exposure_needs_a_log_link(mtcars):
    with pytest.raises(ValueError, match="exposure= needs a log link"):
        sr.streamreg("mpg ~ stream(cyl)", mtcars, exposure="wt")
    with pytest.raises(ValueError, match="exposure= needs a log link"):
        sr.streamreg("am ~ stream(cyl)", mtcars, family="binomial", exposure="wt")


def test_select_takes_arrays_not_names_and_penalised_methods_refuse_weights(mtcars):
    y, c = mtcars["mpg"], mtcars[["cyl", "disp"]]
    with pytest.raises(TypeError, match="array with one value per observation in select"):
        sr.select(y, c, offset="wt")
    with pytest.raises(ValueError, match="cannot be used with method 'grafting'"):
        sr.select(y, c, method="grafting", var_weights=np.ones(len(y)))
    with pytest.raises(ValueError, match="var_weights has 3 values, but the data have 32 rows"):
        sr.select(y, c, var_weights=np.ones(3))


@pytest.mark.parametrize("family", ["gaussian", "binomial"])
def test_dask_streams_take_the_weights(family):
    """Candidates in a Dask array: the weighted statistics are the in-memory ones (default scheduler)."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(5)
    n, m = 120, 1500
    x = rng.standard_normal((n, m))
    eta = x[:, [5, 900]].sum(axis=1)
    y = eta + 0.5 * rng.standard_normal(n) if family == "gaussian" else (rng.random(n) < 1 / (1 + np.exp(-eta)))
    # (random counts as freq_weights would make these rows repeated observations: the fit to
    # 120 distinct rows then overfits, e.g. 119 terms selected by least squares)
    opts = {"var_weights": rng.uniform(0.5, 2.0, n), "offset": 0.3 * rng.standard_normal(n),
            "method": "alpha-investing", "w0": 0.05, "alpha_delta": 0.05}
    ref = sr.select(y, x, family=family, **opts)
    fit = sr.select(y, da.from_array(x, chunks=(n, 400)), family=family, **opts)
    assert fit.selected_terms == ref.selected_terms and "x5" in ref.selected_terms
    np.testing.assert_allclose(fit.history["statistic"], ref.history["statistic"], rtol=1e-12)
    plain = sr.select(y, x, family=family, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    assert not np.allclose(plain.history["statistic"], ref.history["statistic"])  # the weights mattered


def test_estimated_dispersion_gamma_log_link_with_weights_and_exposure():
    """Non-canonical link, dispersion estimated: the score test with expected information (observed=False),
    and the LR statistic as R's add1 scales it."""
    rng = np.random.default_rng(11)
    n = 200
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = rng.gamma(3.0, np.exp(0.5 + 0.3 * x[:, 1]) / 3.0)
    fam = sm.families.Gamma(sm.families.links.Log())
    c = rng.normal(size=(n, 4))
    opts = {"var_weights": rng.uniform(0.5, 2, n), "freq_weights": rng.integers(1, 3, n).astype(float),
            "exposure": rng.uniform(1, 3, n)}
    score, _ = GLMState(y, x, fam, weights=ObservationWeights(**opts)).score_block(CandidateBlock(c))
    lr, _ = GLMState(y, x, fam, test="lr", weights=ObservationWeights(**opts)).score_block(CandidateBlock(c))
    r0 = sm.GLM(y, x, family=fam, **opts).fit(tol=1e-12, maxiter=200)
    for j in range(c.shape[1]):
        assert rel(score.statistic[j], sm_score(r0, c[:, [j]])) < TOL
        r1 = sm.GLM(y, np.column_stack([x, c[:, j]]), family=fam, **opts).fit(tol=1e-12, maxiter=200)
        # R's add1(test = "LRT"): the deviance change over the base model's Pearson dispersion
        assert rel(lr.statistic[j], (r0.deviance - r1.deviance) / r0.scale) < TOL
