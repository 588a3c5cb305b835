"""``family="negbin"`` (theta estimated) against R's ``MASS::glm.nb`` (tests/reference/negbin.R).

* the refit: coefficients, standard errors, z and p-values, theta, its standard error, twice
  the log-likelihood, logLik/AIC/BIC and deviances, on quine, epil, warpbreaks and a synthetic
  data set with an exposure and prior weights;
* the candidate tests: the score and LR statistics of a model state equal R's ``add1(test =
  "Rao" | "LRT")`` on a ``glm.nb`` fit, which tests at the fit's theta held fixed with
  dispersion 1;
* ``stepwise-aic`` makes R's ``step()`` moves on a ``glm.nb`` fit.

Tolerances.  The ``*_at_mle`` references continue glm.nb to the maximum likelihood (see the
script).  The largest relative differences measured against them: theta 8e-12, SE(theta)
1.3e-11, coefficients 8e-11, standard errors 3e-12, twice the log-likelihood 4e-15; against
glm.nb's own numbers the same, except ``SE.theta``, which differs by up to 3e-6: glm.nb
computes it at ``theta.ml``'s Newton iterate before the last, which may lie 1e-4 away.  The
tests ask for 1e-10 (theta, SE), 1e-9 (coefficients), 1e-8 (standard errors, statistics) and
1e-5 for glm.nb's ``SE.theta``.
"""
from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pandas as pd
import patsy
import pytest
from reference_csv import read_ref
from scipy import optimize, stats
from test_r_reference import load_data, py_coef_name, py_term, words

import streamreg as sr
from streamreg.models import make_state
from streamreg.models.base import TESTED, CandidateBlock, ObservationWeights
from streamreg.models.families import (
    NEGATIVE_BINOMIAL,
    NEGBIN,
    NegBin,
    resolve_family,
    spec_of,
)
from streamreg.models.negbin import NegBinState, fit_negbin
from streamreg.models.theta import (
    THETA_MAX,
    nb_loglik,
    theta_information,
    theta_ml,
    theta_score,
)
from streamreg.results.refit import RefitWarning

TEXT = {"case", "data", "response", "rhs", "factors", "weighted", "name", "term", "level", "base", "rao_column",
        "lrt_column"}
CASES = read_ref("negbin_cases.csv", TEXT).set_index("case")
COEF = read_ref("negbin_coef.csv", TEXT)
ADD1 = read_ref("negbin_add1.csv", TEXT)
STEP = read_ref("negbin_step.csv", TEXT)
REL = 1e-8


def _frame(data: str) -> pd.DataFrame:
    return load_data("negbin_synthetic" if data == "synthetic" else data)


def _options(data: str) -> dict:
    return {"exposure": "exposure", "var_weights": "w"} if data == "synthetic" else {}


@pytest.fixture(scope="module", params=list(CASES.index))
def refit_case(request):
    case = request.param
    spec = CASES.loc[case]
    factors = words(spec.factors)
    frame = _frame(spec.data)
    fixed = " + ".join(py_term(t, factors) for t in words(spec.rhs))
    unused = [c for c in frame.columns if c not in {spec.response, *words(spec.rhs), "exposure", "w"}]
    other = unused[0] if unused else py_term(words(spec.rhs)[0], factors)  # never tested:
    # max_tests=0: no candidate is tested, the refit is glm.nb(response ~ rhs)
    fit = sr.streamreg(f"{spec.response} ~ {fixed} + stream({other})", frame, family="negbin", max_tests=0,
                       **_options(spec.data))
    return case, spec, factors, fit


def test_refit_equals_glm_nb(refit_case):
    case, spec, factors, fit = refit_case
    ref = COEF[COEF["case"] == case]
    names = [py_coef_name(row, factors) for row in ref.itertuples()]
    np.testing.assert_allclose(fit.params[names], ref["estimate"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fit.params[names], ref["estimate_glmnb"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fit.bse[names], ref["std_error"], rtol=REL)
    np.testing.assert_allclose(fit.tvalues[names], ref["z_value"], rtol=REL)
    np.testing.assert_allclose(fit.pvalues[names], ref["p_value"], rtol=1e-6)
    assert fit.theta == pytest.approx(spec.theta_at_mle, rel=1e-10)
    assert fit.theta == pytest.approx(spec.theta_glmnb, rel=1e-10)
    assert fit.theta_se == pytest.approx(spec.se_theta_at_mle, rel=1e-10)
    assert fit.theta_se == pytest.approx(spec.se_theta_glmnb, rel=1e-5)
    assert 2 * fit.llf == pytest.approx(spec.twologlik_at_mle, rel=1e-13)
    assert 2 * fit.llf == pytest.approx(spec.twologlik_glmnb, rel=1e-13)
    assert fit.family.estimate.twologlik == pytest.approx(spec.twologlik_at_mle, rel=1e-12)
    g = fit.glance().iloc[0]
    assert g["logLik"] == pytest.approx(spec.loglik_at_mle, rel=1e-12)
    assert g["AIC"] == pytest.approx(spec.aic_at_mle, rel=1e-12) and fit.aic == pytest.approx(spec.aic_glmnb, rel=1e-12)
    assert g["BIC"] == pytest.approx(spec.bic_at_mle, rel=1e-12) and fit.bic == pytest.approx(spec.bic_glmnb, rel=1e-12)
    assert g["deviance"] == pytest.approx(spec.deviance_at_mle, rel=REL)
    assert g["null.deviance"] == pytest.approx(spec.null_deviance, rel=REL)
    assert g["df.residual"] == spec.df_residual and g["nobs"] == spec.nobs
    assert len(fit.params) + 1 == spec.logLik_df  # theta counted, as logLik.negbin counts it


def test_the_summary_prints_theta_and_its_standard_error(refit_case):
    _, spec, _, fit = refit_case
    text = " ".join(fit.summary().as_text().split())
    assert (f"(R's MASS::glm.nb): theta = {spec.theta_at_mle:.6g} (SE {spec.se_theta_at_mle:.4g}), 2 x "
            f"log-likelihood = {spec.twologlik_at_mle:.6g}") in text
    assert "P>|z|" in text and "hold theta at its estimate, as R's summary.negbin" in text
    assert fit.refit_warnings == []


# ----------------------------------------------------------------------------- add1 on glm.nb
def _add1_inputs(case: str):
    rows = ADD1[ADD1["case"] == case]
    data = rows["data"].iloc[0]
    frame = _frame(data)
    factors = words(CASES.loc[CASES["data"] == data, "factors"].iloc[0])
    response = CASES.loc[CASES["data"] == data, "response"].iloc[0]
    fixed = patsy.dmatrix(" + ".join(["1"] + [py_term(t, factors) for t in words(rows["base"].iloc[0])]), frame,
                          return_type="dataframe").to_numpy(dtype=float)
    cols, widths = [], []
    for t in rows["term"]:
        c = patsy.dmatrix("1 + " + py_term(t, factors), frame, return_type="dataframe").drop(columns="Intercept")
        cols.append(c.to_numpy(dtype=float))
        widths.append(c.shape[1])
    weights = ObservationWeights()
    if data == "synthetic":
        weights = ObservationWeights(exposure=frame["exposure"].to_numpy(float), var_weights=frame["w"].to_numpy(float))
    block = CandidateBlock(np.column_stack(cols), np.array(widths))
    return rows, frame[response].to_numpy(dtype=float), fixed, block, weights


@pytest.mark.parametrize("case", sorted(set(ADD1["case"])))
@pytest.mark.parametrize("test", ["score", "lr"])
def test_candidate_statistics_equal_add1_on_glm_nb(case, test):
    """At the base model's theta, held fixed with dispersion 1: add1's "Rao score" and "LRT"."""
    rows, y, fixed, block, weights = _add1_inputs(case)
    assert set(rows["rao_column"]) == {"Rao score"} and set(rows["lrt_column"]) == {"LRT"}  # not "scaled"
    state = make_state(y, fixed, NegBin(), test, weights=weights)
    assert isinstance(state, NegBinState)
    assert state.theta.theta == pytest.approx(rows["theta"].iloc[0], rel=1e-9)
    out, codes = state.score_block(block)
    assert (codes == TESTED).all()
    np.testing.assert_array_equal(out.df, rows["df"].to_numpy(dtype=int))
    if test == "score":
        expected, p = rows["rao_at_mle"], rows["rao_pvalue_at_mle"]
        if case == "synthetic_x1":  # an offset: R's add1 Rao column is not the score statistic (see the script)
            assert (rows["rao_add1"] == 0).all()
        else:  # add1's own column, at the IRLS iterate before the last
            np.testing.assert_allclose(out.statistic, rows["rao_add1"], rtol=2e-6)
    else:
        expected, p = rows["lrt"], rows["lrt_pvalue"]
    np.testing.assert_allclose(out.statistic, expected, rtol=REL, atol=1e-10)
    np.testing.assert_allclose(out.pvalue, p, rtol=1e-6)


def test_a_streamwise_search_tests_candidates_as_add1_does():
    """The first candidate of a search is tested against the fixed terms' glm.nb fit (score, the default)."""
    rows = ADD1[ADD1["case"] == "quine_Eth_Age"].set_index("term")
    fit = sr.streamreg("Days ~ C(Eth) + C(Age) + stream(C(Lrn), C(Sex))", load_data("quine"), family="negbin",
                       passes=1, max_tests=1)
    first = fit.history.iloc[0]
    assert first["term"] == "C(Lrn)" and fit.test_description == "score (Rao) chi-square"
    assert first["statistic"] == pytest.approx(rows.loc["Lrn", "rao_at_mle"], rel=REL)


def test_stepwise_aic_makes_the_moves_of_step_on_glm_nb():
    ref = STEP.sort_values("step")
    fit = sr.streamreg("Days ~ stream(C(Eth), C(Sex), C(Age), C(Lrn))", load_data("quine"), family="negbin",
                       method="stepwise-aic", test="lr")
    assert fit.selected_terms == [f"C({t})" for t in ref["term"].iloc[1:]]
    assert fit.theta == pytest.approx(ref["final_theta"].iloc[0], rel=1e-9)
    assert 2 * fit.llf == pytest.approx(ref["final_twologlik"].iloc[0], rel=1e-12)
    # step's AIC column is extractAIC.negbin, -twologlik + 2 rank (theta not counted)
    assert fit.aic - 2 == pytest.approx(ref["aic"].iloc[-1], rel=1e-12)


# ----------------------------------------------------------------------------- theta alone
def test_theta_score_and_information_equal_mpmath():
    """The score's large-theta series against 50-digit digamma (independent of scipy)."""
    rng = np.random.default_rng(0)
    y = rng.poisson(3.0, 60).astype(float)
    y[:2] = [45.0, 0.0]
    mu = 3.0 * rng.uniform(0.8, 1.2, 60)
    w = rng.integers(1, 4, 60).astype(float)
    mpmath.mp.dps = 50

    def score(th):
        return sum(wi * (mpmath.digamma(th + yi) - mpmath.digamma(th) - mpmath.log1p(mi / th) + (mi - yi) / (mi + th))
                   for yi, mi, wi in zip(map(mpmath.mpf, y), map(mpmath.mpf, mu), map(mpmath.mpf, w)))

    for theta in (0.3, 7.0, 49.9, 50.0, 1e3, 1e6, 1e8):
        ref = float(score(mpmath.mpf(theta)))
        assert theta_score(theta, y, mu, w) == pytest.approx(ref, rel=5e-9 if theta > 1e7 else 1e-11)
        info = -float(mpmath.diff(score, mpmath.mpf(theta)))
        assert theta_information(theta, y, mu, w) == pytest.approx(info, rel=5e-9 if theta > 1e7 else 1e-11)


def test_theta_ml_maximises_scipys_negative_binomial_likelihood():
    rng = np.random.default_rng(3)
    mu = np.exp(rng.normal(1.0, 0.5, 500))
    y = rng.negative_binomial(1.7, 1.7 / (1.7 + mu)).astype(float)
    theta, capped = theta_ml(y, mu)

    def minus_loglik(log_theta):
        t = np.exp(log_theta)
        return -stats.nbinom.logpmf(y, t, t / (t + mu)).sum()

    best = optimize.minimize_scalar(minus_loglik, bracket=(-1.0, 2.0), tol=1e-12)
    assert not capped and theta == pytest.approx(np.exp(best.x), rel=1e-6)
    assert nb_loglik(theta, y, mu, np.ones_like(y)) >= -best.fun - 1e-9


def test_without_overdispersion_theta_is_capped_and_the_refit_says_so():
    """R's glm.nb warns "iteration limit reached"; streamreg caps theta and warns in words."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x": rng.normal(size=100), "z": rng.normal(size=100)})
    d["k"] = rng.binomial(10, 1 / (1 + np.exp(-d.x)))  # binomial counts: less spread than Poisson
    with pytest.warns(RefitWarning) as caught:
        fit = sr.streamreg("k ~ x + stream(z)", d, family="negbin", max_tests=0)
    message = str(caught[0].message)
    assert (f"the negative binomial's theta diverges: the likelihood still rises at theta = {THETA_MAX:g} (the counts "
            "show no overdispersion given the selected terms; R's glm.nb warns 'iteration limit reached')") in message
    assert fit.theta == THETA_MAX and np.isnan(fit.theta_se) and fit.family.estimate.capped
    assert "capped: it diverges" in fit.summary().as_text().replace("\n", " ")
    poisson = sr.streamreg("k ~ x + stream(z)", d, family="poisson", max_tests=0)
    np.testing.assert_allclose(fit.params, poisson.params, rtol=1e-4)  # the Poisson limit


def test_the_names_resolve_to_the_estimated_theta_and_the_fixed_one_stays_available():
    for name in ("negbin", "negativebinomial", "negative_binomial", "NegativeBinomial"):
        fam, short = resolve_family(name)
        assert isinstance(fam, NegBin) and fam.theta is None and short == "negbin" and spec_of(fam) is NEGBIN
    assert NEGBIN.default_test == "score" and NEGBIN.theta_estimated and NEGBIN.extra_parameters == 1
    import statsmodels.api as sm

    fixed = sm.families.NegativeBinomial(alpha=0.5)
    assert spec_of(fixed) is NEGATIVE_BINOMIAL and not NEGATIVE_BINOMIAL.theta_estimated
    with pytest.raises(ValueError, match=r"theta must be a positive number \(R's init.theta\), got -1"):
        NegBin(theta=-1)


def test_the_users_family_is_not_modified_and_init_theta_does_not_change_the_estimate():
    quine = load_data("quine")
    mine = NegBin(theta=5.0)
    fit = sr.streamreg("Days ~ C(Eth) + C(Age) + stream(C(Sex))", quine, family=mine, max_tests=0)
    assert mine.theta == 5.0 and mine.estimate is None and fit.family is not mine
    x = patsy.dmatrix("C(Eth) + C(Age)", quine).view(np.ndarray)
    _, fam = fit_negbin(quine["Days"].to_numpy(float), x, NegBin())
    assert fit.theta == pytest.approx(fam.theta, rel=1e-10)


def test_an_accepted_term_re_estimates_theta_as_update_does():
    quine = load_data("quine")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = sr.streamreg("Days ~ 1 + stream(C(Eth), C(Age), C(Lrn))", quine, family="negbin",
                           method="stepwise-aic")
    ref = CASES.loc["quine"]
    assert fit.selected_terms == ["C(Eth)", "C(Age)", "C(Lrn)"]
    assert fit.theta != pytest.approx(ref.theta_at_mle, rel=1e-3)  # a different model, its own theta
    assert fit.theta == pytest.approx(STEP["final_theta"].iloc[0], rel=1e-9)
