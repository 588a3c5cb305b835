"""The p-values of a stepwise history (issue 28, item 7): R's add1/drop1 LRT, statsmodels' F test.

A GLM stepwise search ranks candidates by score statistics and decides on exact likelihood
gains; its history used to carry NaN p-values.  Each move now carries the p-value of the
move's term against the smaller model: for GLMs the exact ``2 delta loglik`` on the chi-square
law (R's ``add1(test = "LRT")`` / ``drop1(test = "LRT")``, recorded by
``tests/reference/step_pvalues.R`` along R's own ``step()`` paths), for least squares the
partial F test (statsmodels' ``compare_f_test``).  Tolerances: the statistic is the deviance
change of two fits converged to ~1e-12, so 1e-8 relative; the p-value follows (1e-7 relative,
the chi-square's tail multiplies the statistic's error by about the statistic / 2).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from reference_csv import REF, read_ref
from scipy import stats

import streamreg as sr

TEXT = {"case", "data", "family", "response", "fixed", "candidates", "factors", "direction", "penalty", "action",
        "term"}
CASES = read_ref("step_cases.csv", TEXT).set_index("case")
PVALUES = read_ref("step_pvalues.csv", TEXT)
# every data set once, both directions, the runs from fixed terms and the two with removals
# (biopsy and wdbc, both directions with AIC); wdbc's forward AIC is its both-AIC path without the removals
CHOSEN = [c for c in CASES.index if not c.startswith("wdbc") or c == "wdbc_both_aic"]


def _term(term: str, factors: list[str]) -> str:
    return f"C({term})" if term in factors else term


@functools.cache
def _fit(case: str, test: str | None = None) -> tuple[sr.StreamRegResults, list[str]]:
    spec = CASES.loc[case]
    factors = spec.factors.split()
    fixed = ["1"] + [_term(t, factors) for t in spec.fixed.split()]
    cands = [_term(t, factors) for t in spec.candidates.split() if t not in spec.fixed.split()]
    data = sr.datasets.load("wdbc").data if spec.data == "wdbc" else pd.read_csv(REF / "data" / f"{spec.data}.csv")
    formula = f"{spec.response} ~ {' + '.join(fixed)} + stream({', '.join(cands)})"
    fit = sr.streamreg(formula, data, family=spec.family, method=f"stepwise-{spec.penalty}",
                       direction=spec.direction, test=test)
    return fit, factors


@pytest.mark.parametrize("case", CHOSEN)
def test_glm_stepwise_history_has_rs_lrt_pvalues(case):
    fit, factors = _fit(case)
    ref = PVALUES[PVALUES["case"] == case]
    h = fit.history
    moves = h[h["status"].astype(str).isin(["accepted", "dropped"])]
    r_moves = ref[ref["action"] != "final"]
    assert list(moves["term"]) == [_term(t, factors) for t in r_moves["term"]]
    np.testing.assert_allclose(moves["statistic"].to_numpy(float), r_moves["statistic"], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(moves["pvalue"].to_numpy(float), r_moves["pvalue"], rtol=1e-7, atol=0)
    np.testing.assert_allclose(moves["log_p"].to_numpy(float), r_moves["log_p"], rtol=1e-8, atol=1e-12)
    # the last row: the best candidate that did not improve the criterion, as add1 scores it
    last = h.iloc[-1]
    if str(last["status"]) == "rejected":
        final = ref[ref["action"] == "final"].assign(py=lambda d: [_term(t, factors) for t in d["term"]])
        row = final.set_index("py").loc[last["term"]]
        assert last["statistic"] == pytest.approx(row["statistic"], rel=1e-8, abs=1e-9)
        assert last["pvalue"] == pytest.approx(row["pvalue"], rel=1e-7)
    # the selected table carries the entering p-values
    entered = moves[moves["status"].astype(str) == "accepted"].drop_duplicates("term", keep="last")
    sel = fit.selected.set_index("term")["pvalue"]
    kept = entered[entered["term"].isin(sel.index)]
    np.testing.assert_allclose(sel.loc[kept["term"]].to_numpy(float), kept["pvalue"].to_numpy(float), rtol=1e-12)


def test_pvalue_below_level_is_the_stepwise_decision():
    fit, _ = _fit("wdbc_both_aic")
    h = fit.history
    added = h[h["action"] == "add"]
    # the level is the chi-square level of the penalty k d: below it exactly when the gain is positive
    np.testing.assert_array_equal(added["pvalue"] < added["level"], added["criterion_change"] < 0)
    np.testing.assert_allclose(added["level"], stats.chi2.sf(2 * added["df"], added["df"]), rtol=1e-12)
    np.testing.assert_allclose(added["pvalue"], stats.chi2.sf(added["statistic"], added["df"]), rtol=1e-10)


def test_lr_tests_give_the_same_pvalues():
    """test="lr" takes the state's own LR test; the score-ranked search computes the same law."""
    score, _ = _fit("quine_both_aic")
    lr, _ = _fit("quine_both_aic", "lr")
    np.testing.assert_allclose(score.history["pvalue"].to_numpy(float), lr.history["pvalue"].to_numpy(float),
                               rtol=1e-8)


@pytest.fixture(scope="module")
def removal_data():
    """A least-squares search from both directions that drops a term: x1 enters first, and
    once x2 and x3 (whose sum is x1 up to noise) are in, it adds nothing."""
    rng = np.random.default_rng(0)
    n = 200
    x2, x3 = rng.normal(size=n), rng.normal(size=n)
    df = pd.DataFrame({"x1": x2 + x3 + 0.3 * rng.normal(size=n), "x2": x2, "x3": x3,
                       "x4": rng.normal(size=n)})
    df["y"] = 2 * x2 + 1.2 * x3 + rng.normal(size=n)
    return df


def test_least_squares_removal_has_the_partial_f_pvalue(removal_data):
    fit = sr.streamreg("y ~ stream(x1, x2, x3, x4)", removal_data, method="stepwise-bic", direction="both")
    h = fit.history
    moves = h[h["status"].astype(str).isin(["accepted", "dropped"])]
    assert list(zip(moves["term"], moves["status"].astype(str)))[-1] == ("x1", "dropped")
    terms: list[str] = []
    for _, row in moves.iterrows():
        smaller = terms if row["status"] == "accepted" else [t for t in terms if t != row["term"]]
        larger = smaller + [row["term"]]
        big = smf.ols("y ~ " + " + ".join(["1", *larger]), removal_data).fit()
        small = smf.ols("y ~ " + " + ".join(["1", *smaller]), removal_data).fit()
        _, p, _ = big.compare_f_test(small)
        assert row["pvalue"] == pytest.approx(p, rel=1e-9), (row["term"], row["status"])
        terms = larger if row["status"] == "accepted" else smaller
