"""Grouped binomial data: a proportion response with the numbers of trials as ``var_weights``.

R's ``glm(p ~ x, weights = m, family = binomial)``, equal to ``glm(cbind(k, m - k) ~ x, ...)``.
Expected numbers: ``tests/reference/grouped_binomial_coef.csv``, ``grouped_binomial_glance.csv`` and
``grouped_binomial_obs.csv`` (augment), written by ``tests/reference/grouped_binomial.R`` (R 4.2.2,
base R) from the data it generates, ``tests/reference/data/grouped_binomial.csv`` (80 groups of 1 to
15 trials).  R is not needed to run these.

Tolerance 1e-8 relative: the same model at the MLE (IRLS to a relative deviance change of 1e-10
here, 1e-13 in R).  Besides R, the candidate tests are checked against statsmodels' score test and
against the same data expanded to 0/1 rows (two rows per group, the counts as ``freq_weights``, or
one row per trial): the score statistic is the same, so are the decisions.
"""
from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from reference_csv import REF, read_ref
from scipy import stats

import streamreg as sr
from streamreg.models.base import CandidateBlock, ObservationWeights
from streamreg.models.glm import GLMState

RTOL = 1e-8
CANDIDATES = [f"x{j}" for j in range(1, 7)]
COEF = read_ref("grouped_binomial_coef.csv", {"case", "model", "form", "name"})
GLANCE = read_ref("grouped_binomial_glance.csv", {"case", "model", "form", "rhs"}).set_index("case")
#: R's glance columns -> broom's names in streamreg's glance()
GLANCE_COLUMNS = {"null_deviance": "null.deviance", "df_null": "df.null", "logLik": "logLik", "AIC": "AIC",
                  "BIC": "BIC", "deviance": "deviance", "df_residual": "df.residual", "nobs": "nobs"}


@functools.cache
def _data() -> pd.DataFrame:
    d = pd.read_csv(REF / "data" / "grouped_binomial.csv")
    return d.assign(p=d["k"] / d["m"])


def data() -> pd.DataFrame:
    return _data().copy()


@functools.cache
def selected() -> sr.StreamRegResults:
    # the model-based score test (phi = 1), which 0/1 rows also use: proportions default to score-f
    return sr.streamreg("p ~ z + stream(x*)", data(), family="binomial", var_weights="m", method="alpha-investing",
                        test="score")


def test_proportions_default_to_the_dispersion_estimated_test():
    fit = sr.streamreg("p ~ z + stream(x*)", data(), family="binomial", var_weights="m")
    assert fit.test_description == "score (Rao) F, Pearson dispersion"
    # the first candidate's statistic is the score-f statistic against the fixed terms alone
    d = data()
    first = fit.history.iloc[0]
    state = GLMState(d["p"].to_numpy(float), sm.add_constant(d[["z"]]).to_numpy(), sm.families.Binomial(),
                     test="score-f", weights=ObservationWeights(var_weights=d["m"].to_numpy(float)))
    out, _ = state.score_block(CandidateBlock(d[[first["term"]]].to_numpy(float)))
    close(first["statistic"], out.statistic[0], "score-f statistic")
    close(first["pvalue"], out.pvalue[0], "score-f p-value")


@functools.cache
def fixed_only() -> sr.StreamRegResults:
    # the fixed term alone, refitted beside a stream that is never tested
    fit = sr.streamreg("p ~ z + stream(x1)", data(), family="binomial", var_weights="m", method="stepwise-aic",
                       max_steps=0)
    assert fit.selected_terms == []
    return fit


def close(actual: object, expected: object, what: str, relative: bool = False) -> None:
    """Equal to 1e-8 relative, or absolute for values within 1e-8 of 0 (unless ``relative``)."""
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert a.shape == e.shape and np.all(np.isfinite(e)), what
    bound = np.where((np.abs(e) < RTOL) & (not relative), RTOL, RTOL * np.abs(e))
    assert np.all(np.abs(a - e) <= bound), f"{what}: {a} != {e}"


def check_against_r(fit: sr.StreamRegResults, model: str, form: str) -> None:
    case = f"{model}_{form}"
    ref = COEF[COEF["case"] == case].set_index("name").rename(index={"(Intercept)": "Intercept"})
    assert list(fit.params.index) == list(ref.index)
    close(fit.params, ref["estimate"], f"{case} coefficients")
    close(fit.bse, ref["std_error"], f"{case} standard errors")
    close(fit.tvalues, ref["statistic"], f"{case} z values")
    close(fit.pvalues, ref["p_value"], f"{case} p-values", relative=True)  # some are 1e-13
    g, r = fit.glance().iloc[0], GLANCE.loc[case]
    for theirs, ours in GLANCE_COLUMNS.items():
        close(g[ours], r[theirs], f"{case} {ours}")
    assert (fit.llf, fit.aic, fit.bic) == (g["logLik"], g["AIC"], g["BIC"])


def test_the_data_are_grouped():
    d = data()
    assert len(d) == 80 and d["m"].between(1, 15).all() and (d["k"] <= d["m"]).all()
    assert (d["p"] == 0).any() and (d["p"] == 1).any() and ((d["p"] > 0) & (d["p"] < 1)).any()


def test_the_selected_model_is_the_one_r_fitted():
    fit = selected()
    assert fit.selected_terms == ["x1", "x4"]
    assert fit.selected_formula == "p ~ " + GLANCE.loc["selected_weights", "rhs"]  # R's formula
    assert fit.success_level is None  # a proportion: no "Modelled: P(p = 1)" line
    assert "Modelled:" not in fit.summary().as_text()


@pytest.mark.parametrize("form", ["weights", "cbind"])
def test_refit_of_the_selected_model_equals_r(form):
    check_against_r(selected(), "selected", form)


@pytest.mark.parametrize("form", ["weights", "cbind"])
def test_refit_of_the_fixed_terms_equals_r(form):
    check_against_r(fixed_only(), "fixed", form)


def test_loglik_keeps_the_binomial_coefficients_as_r_does():
    fit = selected()
    mu = fit.fit.fittedvalues.to_numpy()
    d = data()
    close(fit.llf, stats.binom.logpmf(d["k"], d["m"], mu).sum(), "sum of log dbinom(k; m, mu)")
    # statsmodels' own llf of a one-column response leaves the coefficients out: its header says so
    assert fit.fit.llf < fit.llf - 50
    text = re.sub(r"\s+", " ", fit.summary().as_text())
    assert "The Log-Likelihood above is statsmodels' (without the binomial coefficients); R's logLik(), AIC() " \
           f"and BIC(), as fit.llf, fit.aic, fit.bic and glance() report them: {fit.llf:.6g}," in text


def test_select_with_arrays_gives_the_same_selection_and_refit():
    d = data()
    fit = sr.select(d["p"], d[CANDIDATES], fixed=d[["z"]], family="binomial", var_weights=d["m"].to_numpy(),
                    method="alpha-investing", test="score")
    assert fit.selected_terms == ["x1", "x4"]
    check_against_r(fit, "selected", "weights")
    pd.testing.assert_frame_equal(fit.history.drop(columns="stream"), selected().history.drop(columns="stream"))


def test_var_weights_as_an_array_and_with_a_dask_frame():
    d = data()
    check_against_r(sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights=d["m"].to_numpy()),
                    "selected", "weights")
    dd = pytest.importorskip("dask.dataframe")
    fit = sr.streamreg("p ~ z + stream(x*)", dd.from_pandas(d, npartitions=2), family="binomial", var_weights="m")
    check_against_r(fit, "selected", "weights")


def _ours_at(fit: sr.StreamRegResults, test: int) -> tuple[list[str], str]:
    """The terms in the model when history row ``test`` was tested, and its candidate."""
    h = fit.history
    before = h[(h["test"] < test) & h["accepted"]]["term"].tolist()
    return before, h.loc[h["test"] == test, "term"].item()


def test_score_statistics_equal_statsmodels_score_test():
    fit, d = selected(), data()
    assert len(fit.history) == len(CANDIDATES)
    for _, row in fit.history.iterrows():
        terms, cand = _ours_at(fit, row["test"])
        x = sm.add_constant(d[["z", *terms]])
        base = sm.GLM(d["p"], x, family=sm.families.Binomial(), var_weights=d["m"]).fit(tol=1e-13)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "score test has not been verified with var_weights"
            test = base.score_test(exog_extra=d[[cand]].to_numpy())
        close(row["statistic"], test.statistic.item(), f"score statistic of {cand}")
        close(row["pvalue"], test.pvalue.item(), f"p-value of {cand}")
        # the same statistic by hand: U' I^-1 U with U = X'(m (y - mu)), I = X' diag(m mu (1 - mu)) X
        xa = np.column_stack([x.to_numpy(), d[cand].to_numpy()])
        mu = base.fittedvalues.to_numpy()
        u = xa.T @ (d["m"].to_numpy() * (d["p"].to_numpy() - mu))
        info = xa.T @ (xa * (d["m"].to_numpy() * mu * (1 - mu))[:, None])
        close(row["statistic"], u @ np.linalg.solve(info, u), f"score statistic of {cand} by hand")


def _expanded(d: pd.DataFrame, per_trial: bool) -> pd.DataFrame:
    """0/1 rows: a success row of weight k and a failure row of weight m - k per group, or one per trial."""
    rows = pd.concat([d.assign(y=1, n=d["k"]), d.assign(y=0, n=d["m"] - d["k"])]).sort_index(kind="stable")
    rows = rows[rows["n"] > 0].reset_index(drop=True)
    if per_trial:
        rows = rows.iloc[np.repeat(np.arange(len(rows)), rows["n"])].assign(n=1).reset_index(drop=True)
    return rows.drop(columns=["k", "m", "p"])


@pytest.mark.parametrize("per_trial", [False, True], ids=["freq_weights", "one-row-per-trial"])
def test_decisions_equal_those_of_the_expanded_0_1_data(per_trial):
    grouped = selected().history
    rows = _expanded(data(), per_trial)
    assert rows["n"].sum() == data()["m"].sum()
    kw = {} if per_trial else {"freq_weights": "n"}
    expanded = sr.streamreg("y ~ z + stream(x*)", rows, family="binomial", method="alpha-investing", **kw)
    h = expanded.history
    assert expanded.selected_terms == ["x1", "x4"]
    assert h["term"].tolist() == grouped["term"].tolist()
    assert h["status"].tolist() == grouped["status"].tolist()
    close(h["statistic"], grouped["statistic"], "score statistics")
    close(h["pvalue"], grouped["pvalue"], "p-values")
    close(h["wealth"], grouped["wealth"], "wealth")
    close(expanded.params, selected().params, "coefficients")
    close(expanded.bse, selected().bse, "standard errors")


def test_other_searches_and_the_lr_test_run_on_grouped_data():
    d = data()
    lr = sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m", test="lr")
    assert lr.selected_terms == ["x1", "x4"]
    step = sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m", method="stepwise-aic")
    assert set(step.selected_terms) >= {"x1", "x4"}


def test_augment_and_predict_equal_r():
    fit, d = selected(), data()
    r = read_ref("grouped_binomial_obs.csv", set())
    aug = fit.augment(se_fit=True)
    for ours, theirs in [(".fitted", "fitted_link"), (".se.fit", "se_fit_link"), (".resid", "resid_deviance"),
                         (".std.resid", "std_resid_deviance"), (".hat", "hat"), (".sigma", "sigma"),
                         (".cooksd", "cooksd")]:
        close(aug[ours], r[theirs], f"augment's {ours}")
    close(fit.augment(type_residuals="pearson")[".resid"], r["resid_pearson"], "augment's Pearson residuals")
    close(fit.predict(), r["fitted_response"], "predicted probabilities")
    close(fit.predict(d.head(5)), r["fitted_response"].head(5), "predicted probabilities on new data")


def test_validate_refits_the_held_out_groups_with_their_trials():
    d = data()
    held = np.arange(len(d)) % 3 == 0
    fit = sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m", validate=held)
    rows = d[held]
    x = sm.add_constant(rows[["z", *fit.selected_terms]])
    ref = sm.GLM(rows["p"], x, family=sm.families.Binomial(), var_weights=rows["m"]).fit(tol=1e-13)
    close(fit.params, ref.params, "held-out refit")
    # a held-out group with a fractional number of trials is refused too
    bad = d.assign(m=d["m"].astype(float))
    bad.loc[3, ["p", "m"]] = [0.4, 2.5]
    with pytest.raises(ValueError, match="need whole numbers of trials var_weights; 1 row has not, the first "
                                         "at row 3: p = 0.4, var_weights = 2.5, 1 successes"):
        sr.streamreg("p ~ z + stream(x*)", bad, family="binomial", var_weights="m", validate=held)


def test_the_callers_data_are_not_modified():
    d = data()
    copy = d.copy()
    sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m")
    pd.testing.assert_frame_equal(d, copy)


def test_successes_within_rounding_of_whole_numbers_are_accepted():
    d = data()
    d["p"] = d["p"] * (1 + 1e-12)  # k / m computed another way
    d.loc[d["p"] > 1, "p"] = 1.0
    assert sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m").selected_terms == ["x1", "x4"]


def test_a_weighted_0_1_response_keeps_taking_fractional_weights():
    rows = _expanded(data(), per_trial=False)
    fit = sr.streamreg("y ~ z + stream(x*)", rows, family="binomial", var_weights=rows["n"].to_numpy() + 0.5)
    assert fit.fit.model.var_weights[0] % 1 == 0.5


# ---------------------------------------------------------------------------------------------------------
# refused responses: the messages
# ---------------------------------------------------------------------------------------------------------

PROPORTION = ("the binomial response 'p' holds proportions (values in [0, 1] such as 0.5); grouped binomial data "
              "need the number of trials of each row as var_weights= (R's glm(weights=)), the response being "
              "successes / trials")


@pytest.mark.parametrize("call", [
    lambda d: sr.streamreg("p ~ z + stream(x*)", d, family="binomial"),
    lambda d: sr.streamreg("p ~ z + stream(x*)", d, family="binomial", freq_weights="m"),  # not the trials
    lambda d: sr.select(d["p"], d[CANDIDATES], family="binomial"),
], ids=["streamreg", "freq_weights", "select"])
def test_a_proportion_without_trials_is_refused(call):
    d = data()
    d.loc[0, "p"] = 0.5  # the first proportion the message shows
    with pytest.raises(ValueError) as err:
        call(d)
    assert str(err.value) == PROPORTION
    assert "Recode" not in str(err.value) and "threshold" not in str(err.value)


def test_fractional_successes_are_refused_naming_the_first_row():
    d = data().set_index(np.arange(100, 180))
    d.loc[[105, 107], ["p", "m"]] = [[0.3, 4], [0.3, 4]]
    msg = ("grouped binomial data (the response 'p' a proportion, var_weights the numbers of trials) need whole "
           "numbers of successes p * var_weights; 2 rows have not, the first at row 105: p = 0.3, var_weights = 4, "
           "1.2 successes")
    with pytest.raises(ValueError) as err:
        sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m")
    assert str(err.value) == msg
    with pytest.raises(ValueError) as err:
        sr.select(d["p"], d[CANDIDATES], family="binomial", var_weights=d["m"].to_numpy(dtype=float))
    assert str(err.value) == msg.replace("row 105", "position 5")


def test_fractional_trials_are_refused():
    d = data().assign(m=lambda f: f["m"] * 1.5)
    with pytest.raises(ValueError, match=re.escape("need whole numbers of trials var_weights; ")):
        sr.streamreg("p ~ z + stream(x*)", d, family="binomial", var_weights="m")


@pytest.mark.parametrize("call", [
    lambda d: sr.streamreg("y ~ z + stream(x*)", d, family="binomial"),
    lambda d: sr.streamreg("y ~ z + stream(x*)", d, family="binomial", var_weights="m"),
    lambda d: sr.select(d["y"], d[CANDIDATES], family="binomial"),
], ids=["streamreg", "var_weights", "select"])
def test_a_response_coded_1_2_is_told_to_code_the_success_level(call):
    d = data().assign(y=lambda f: np.where(f["x1"] > 0, 2, 1))
    with pytest.raises(ValueError) as err:
        call(d)
    assert str(err.value) == ("a binomial response must be 0/1 when numeric (or proportions in [0, 1] with the trials as "
                              "var_weights=); 'y' has the two values [1.0, 2.0]: code the success level as 0/1 or "
                              "boolean first, e.g. (y == 2)")


def test_counts_of_successes_are_told_to_divide_by_the_trials():
    with pytest.raises(ValueError) as err:
        sr.streamreg("k ~ z + stream(x*)", data(), family="binomial", var_weights="m")
    assert str(err.value) == ("a binomial response must be 0/1 when numeric, or proportions in [0, 1] with the "
                              "trials as var_weights=; 'k' has values [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] ...: for k "
                              "successes of m trials pass k / m with var_weights=m, otherwise recode it (e.g. "
                              "y > threshold) first")


def test_a_constant_proportion_is_called_constant_not_one_class():
    d = pd.DataFrame({"p": 0.5, "m": 2.0, "x1": np.random.default_rng(0).normal(size=20)})
    with pytest.raises(ValueError, match=r"^the response 'p' is constant \(every proportion is 0.5\): there is "
                                         "nothing for the candidates to explain$"):
        sr.streamreg("p ~ stream(x1)", d, family="binomial", var_weights="m")
    with pytest.raises(ValueError, match=r"^the response 'y' is constant \(every value is 0.5\)"):
        sr.select(d["p"].to_numpy(), d[["x1"]], family="binomial", var_weights=d["m"].to_numpy())
