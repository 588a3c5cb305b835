"""Families that estimate their dispersion follow R (tests/reference/gamma_ig.R, MASS's Boston).

* the refit's p-values are t tests on the residual df, as R's ``summary.glm`` (Gamma, inverse
  Gaussian, Gaussian with a log link), while ``.fit`` keeps statsmodels' normal ones and the
  intervals stay R's ``confint.default``; ``use_t=`` chooses, as statsmodels' ``fit(use_t=)``;
* ``test="lr"`` is R's ``add1(test = "LRT")`` (the deviance change over the current model's
  Pearson dispersion; ``n log(D0 / D1)`` for the Gaussian), the score test R's ``test = "Rao"``,
  and stepwise removals R's ``drop1``;
* ``stepwise-aic``/``-bic`` make R's ``step()`` moves, each changing the criterion by what
  ``step()`` ranked it by (add1/drop1's AIC column).

The R script continues glm's IRLS until the coefficients settle (glm's deviance criterion leaves
them 1.6e-7 from the maximum with these log links).  Measured against it: coefficients, standard
errors and t values within 4e-13 (Gamma, inverse Gaussian) and 5e-10 (Gaussian, log link),
p-values 3.4e-8 (t values near 18 magnify their last digits), add1's LR statistics 1e-10 and
score statistics 1.3e-12 (2.7e-8 on a statistic of 0.0098), every step's ranking criterion within
2e-11 (absolute) and the final log-likelihoods 2e-15.  add1's printed Rao column, which it
computes at a refit of the base model to glm's tolerance, differs by up to 2e-5.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import patsy
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from reference_csv import read_ref
from test_r_reference import load_data

import streamreg as sr
from streamreg.models import make_state
from streamreg.models.base import TESTED, CandidateBlock

TEXT = {"case", "family", "terms", "name", "base", "term", "lrt_column", "direction", "penalty", "action"}
REFIT = read_ref("gamma_ig_refit.csv", TEXT)
ADD1 = read_ref("gamma_ig_add1.csv", TEXT)
DROP1 = read_ref("gamma_ig_drop1.csv", TEXT)
STEP = read_ref("gamma_ig_step.csv", TEXT)
FINAL = read_ref("gamma_ig_final.csv", TEXT).set_index("case")
LOG = sm.families.links.Log
FAMILIES = {"gamma_log": lambda: sm.families.Gamma(LOG()), "invgauss_log": lambda: sm.families.InverseGaussian(LOG()),
            "gaussian_log": lambda: sm.families.Gaussian(LOG())}
BOSTON = load_data("boston")
CANDIDATES = [c for c in BOSTON.columns if c != "medv"]
REL = 1e-8


def _refit(case: str, **options) -> tuple[pd.DataFrame, sr.StreamRegResults]:
    ref = REFIT[REFIT["case"] == case]
    terms = ref["terms"].iloc[0].split()
    # max_tests=0: the refit is glm(medv ~ terms); the stream is never tested
    fit = sr.streamreg(f"medv ~ {' + '.join(terms)} + stream(np.log(crim))", BOSTON,
                       family=FAMILIES[ref["family"].iloc[0]](), max_tests=0, **options)
    return ref.assign(py=[n.replace("(Intercept)", "Intercept") for n in ref["name"]]).set_index("py"), fit


@pytest.mark.parametrize("case", sorted(set(REFIT["case"])))
def test_refit_p_values_are_summary_glm_t_tests_and_fit_keeps_statsmodels(case):
    ref, fit = _refit(case)
    names = list(ref.index)
    np.testing.assert_allclose(fit.params[names], ref["estimate"], rtol=REL)
    np.testing.assert_allclose(fit.bse[names], ref["std_error"], rtol=REL)
    np.testing.assert_allclose(fit.tvalues[names], ref["t_value"], rtol=REL)
    assert fit.use_t
    # R's Pr(>|t|); p-values down to 1e-75 magnify the t values' last digits (relative 2e-9 -> 3e-8)
    np.testing.assert_allclose(fit.pvalues[names], ref["p_value"], rtol=1e-6)
    np.testing.assert_allclose(fit.tidy().set_index("term").loc[names, "p.value"], ref["p_value"], rtol=1e-6)
    np.testing.assert_allclose(sr.compare([fit]).pvalues.loc[names, "(1)"], ref["p_value"], rtol=1e-6)
    # .fit is statsmodels' own: normal p-values, as smf.glm(...).fit() gives them
    assert not fit.fit.use_t
    np.testing.assert_allclose(fit.fit.pvalues[names], ref["p_normal"], rtol=1e-6)
    # the intervals stay normal Wald intervals, R's confint.default
    ci = fit.conf_int()
    np.testing.assert_allclose(ci.loc[names, 0], ref["conf_low"], rtol=REL)
    np.testing.assert_allclose(ci.loc[names, 1], ref["conf_high"], rtol=REL)
    assert float(fit.fit.scale) == pytest.approx(ref["dispersion"].iloc[0], rel=REL)
    assert float(fit.fit.df_resid) == ref["df_residual"].iloc[0]
    assert fit.llf == pytest.approx(ref["loglik"].iloc[0], rel=1e-10) and fit.aic == pytest.approx(ref["aic"].iloc[0])
    text = " ".join(fit.summary().as_text().split())
    df = int(ref["df_residual"].iloc[0])
    assert "P>|t|" in text and f"P>|t| above: t tests on the {df} residual degrees of freedom, as R's summary.glm" in text
    assert "The intervals are normal Wald intervals, R's confint.default" in text
    assert "P>|t|" in fit.summary2().as_text()
    table = fit.summary().tables[-1].data  # the coefficient table prints the t p-values and normal intervals
    row = next(r for r in table if r[0].strip() == names[-1])
    assert float(row[4]) == pytest.approx(float(ref["p_value"].iloc[-1]), abs=5e-4)
    assert float(row[5]) == pytest.approx(float(ref["conf_low"].iloc[-1]), abs=5e-4)


def test_use_t_false_gives_statsmodels_normal_p_values_and_says_so():
    ref, fit = _refit("gamma_log_full", use_t=False)
    np.testing.assert_allclose(fit.pvalues[list(ref.index)], ref["p_normal"], rtol=1e-6)
    assert not fit.use_t and not fit.fit.use_t
    text = " ".join(fit.summary().as_text().split())
    assert "P>|z| above: normal p-values (use_t=False, statsmodels' default); R's summary.glm uses t" in text


def test_use_t_true_is_passed_to_statsmodels():
    ref, fit = _refit("gamma_log_full", use_t=True)
    assert fit.fit.use_t and fit.use_t
    np.testing.assert_allclose(fit.fit.pvalues[list(ref.index)], ref["p_value"], rtol=1e-6)


@pytest.mark.parametrize("use_t", [None, True, False])
def test_robust_p_values_are_statsmodels_normal_unless_use_t(use_t):
    """A robust covariance: statsmodels' fit(cov_type="HC0", use_t=...) is the reference."""
    formula = "medv ~ lstat + rm + ptratio"
    # a GLM search has no robust candidate test: stepwise with no step, whose refit alone is robust
    fit = sr.streamreg(f"{formula} + stream(np.log(crim))", BOSTON, family=FAMILIES["gamma_log"](),
                       method="stepwise-aic", max_steps=0, cov_type="HC0", use_t=use_t)
    ref = smf.glm(formula, BOSTON, family=FAMILIES["gamma_log"]()).fit(cov_type="HC0", use_t=use_t)
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-7)
    np.testing.assert_allclose(fit.conf_int(), ref.conf_int(), rtol=1e-7)
    assert fit.use_t is bool(use_t)
    text = " ".join(fit.summary().as_text().split())
    if use_t:
        assert "Robust (HC0) standard errors: p-values and intervals from t on the 502 residual degrees" in text
    else:
        assert ("Robust (HC0) standard errors: p-values and intervals from the normal distribution, statsmodels' "
                "default for robust covariances; use_t=True for t") in text


def test_least_squares_and_counts_keep_their_p_values():
    """OLS was t and Poisson normal in both R and statsmodels: no change, no note."""
    ols = sr.streamreg("medv ~ lstat + stream(np.log(crim))", BOSTON, max_tests=0)
    assert ols.use_t and ols.fit.use_t and ols.pvalues.equals(ols.fit.pvalues)
    pois = sr.streamreg("chas ~ lstat + stream(np.log(crim))", BOSTON, family="poisson", max_tests=0)
    assert not pois.use_t and pois.pvalues.equals(pois.fit.pvalues)
    for fit in (ols, pois):
        assert "above: t tests" not in fit.summary().as_text() and "P>|z| above" not in fit.summary().as_text()


def test_use_t_must_be_a_bool_or_none():
    with pytest.raises(ValueError, match=r"use_t must be True, False or None \(R's convention: t for families that "
                                         r"estimate their dispersion\), got 'yes'"):
        sr.streamreg("medv ~ stream(lstat)", BOSTON, use_t="yes")
    with pytest.raises(ValueError, match="use_t must be True, False or None"):
        sr.select(BOSTON["medv"], BOSTON[["lstat"]], use_t=1)


# ----------------------------------------------------------------------------- add1, drop1
def _design(terms: list[str]) -> np.ndarray:
    return patsy.dmatrix(" + ".join(["1", *terms]), BOSTON).view(np.ndarray)


@pytest.mark.parametrize("case", sorted(set(ADD1["case"])))
@pytest.mark.parametrize("test", ["score", "lr"])
def test_candidate_statistics_equal_add1(case, test):
    rows = ADD1[ADD1["case"] == case]
    base = rows["base"].iloc[0].split()
    family = FAMILIES[rows["family"].iloc[0]]()
    state = make_state(BOSTON["medv"].to_numpy(float), _design(base), family, test)
    out, codes = state.score_block(CandidateBlock(BOSTON[list(rows["term"])].to_numpy(float)))
    assert (codes == TESTED).all()
    if test == "lr":
        # "scaled dev.": the deviance change over the base model's Pearson dispersion (Gaussian: n log D0/D1)
        assert set(rows["lrt_column"]) == {"scaled dev."}
        np.testing.assert_allclose(out.statistic, rows["lrt"], rtol=REL)
        np.testing.assert_allclose(out.pvalue, rows["lrt_pvalue"], rtol=1e-6)
    else:
        np.testing.assert_allclose(out.statistic, rows["rao_at_mle"], rtol=REL, atol=1e-9)
        # add1's own column: add1 refits the base model (to glm's deviance tolerance) and scores there
        np.testing.assert_allclose(out.statistic, rows["rao"], rtol=2e-6, atol=1e-6)


def test_the_issue_number_lr_of_ptratio_after_lstat_is_rs_62_30():
    """Issue 28: test="lr" gave 75.70 (twice statsmodels' loglik change); R's add1 says 62.30."""
    fit = sr.streamreg("medv ~ lstat + stream(ptratio)", BOSTON, family=FAMILIES["gamma_log"](), test="lr",
                       passes=1)
    r = ADD1[(ADD1["case"] == "gamma_log_lstat") & (ADD1["term"] == "ptratio")]
    assert fit.history["statistic"].iloc[0] == pytest.approx(float(r["lrt"].iloc[0]), rel=REL)
    assert round(float(r["lrt"].iloc[0]), 2) == 62.30
    text = " ".join(fit.summary().as_text().split())
    assert ("Likelihood-ratio statistics of this Gamma family are R's add1/drop1(test = \"LRT\"), which step() ranks "
            "by: the change in deviance over the Pearson dispersion") in text


@pytest.mark.parametrize("case", sorted(set(DROP1["case"])))
def test_removal_statistics_equal_drop1(case):
    rows = DROP1[DROP1["case"] == case]
    ref = REFIT[REFIT["case"] == case]
    terms = ref["terms"].iloc[0].split()
    family = FAMILIES[ref["family"].iloc[0]]()
    y = BOSTON["medv"].to_numpy(float)
    full = make_state(y, _design(terms), family, "lr")
    for term, expected in zip(rows["term"], rows["lrt"]):
        smaller = full.refit(_design([t for t in terms if t != term]), [])
        assert full.llr_over(smaller) == pytest.approx(expected, rel=REL), term


# ----------------------------------------------------------------------------- step()
@pytest.mark.parametrize("case", sorted(set(STEP["case"])))
@pytest.mark.parametrize("test", [None, "lr"])
def test_stepwise_makes_the_moves_of_step(case, test):
    r = STEP[STEP["case"] == case].sort_values("step")
    fit = sr.streamreg(f"medv ~ stream({', '.join(CANDIDATES)})", BOSTON, family=FAMILIES[r["family"].iloc[0]](),
                       method=f"stepwise-{r['penalty'].iloc[0]}", direction=r["direction"].iloc[0], test=test)
    h = fit.history
    moves = h[h["status"].isin(["accepted", "dropped"])]
    r = r.iloc[1:]
    assert list(zip(moves["status"].map({"accepted": "add", "dropped": "drop"}), moves["term"])) == \
        list(zip(r["action"], r["term"]))
    # the criterion change step() ranked each move by: add1/drop1's AIC column
    np.testing.assert_allclose(moves["criterion_change"].to_numpy(float), r["rank_change"], rtol=0, atol=1e-8)
    np.testing.assert_allclose(moves["statistic"].to_numpy(float), r["lrt"], rtol=1e-8)
    final = FINAL.loc[case]
    assert fit.selected_terms == final["terms"].split()
    assert fit.llf == pytest.approx(final["loglik"], rel=1e-10)
    assert fit.aic == pytest.approx(final["aic"], rel=1e-10) and fit.bic == pytest.approx(final["bic"], rel=1e-10)
