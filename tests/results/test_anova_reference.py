"""streamreg.anova() and fit.anova() against R's anova() (recorded by tests/reference/anova.R).

Comparisons of nested fits are R's ``anova.glmlist`` / ``anova.lmlist``, one fit's table is
``anova.glm`` / ``anova.lm``; R 4.2.2, glm.control(epsilon = 1e-13) and the compared glms
restarted at their estimates (so that R's working weights are those of the MLE).  The fits
here are streamreg's own: a rule that accepts every candidate puts the stream's terms in the
model in the order given.  Everything is compared to 1e-8 relative to the column's largest
value, except R's own Rao column of the one-fit tables, whose prefix fits R does not restart
(its working weights are those of the iterate before the last: 1e-6); the restarted values
("Rao (MLE)") are compared to 1e-8.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from reference_csv import REF, read_ref
from scipy import stats

import streamreg as sr
from streamreg.policies import Plan, Policy

CASES = read_ref("anova_cases.csv", {"case", "kind", "data", "response", "family", "models", "test", "weights",
                                     "offset"}).set_index("case")
TABLES = read_ref("anova_tables.csv", {"case", "rowname", "column"})
FACTORS = {"birthwt": {"race"}, "quine": {"Eth", "Sex", "Age", "Lrn"}, "ships": {"type", "year"}, "mtcars": set()}
FAMILIES = {"lm": "gaussian", "binomial": "binomial", "poisson": "poisson", "quasipoisson": "quasipoisson",
            "gamma_log": sm.families.Gamma(sm.families.links.Log())}
TOL, TOL_R_RAO = 1e-8, 1e-6


class AcceptAll(Policy):
    """Every candidate accepted: the model is the stream's terms in order."""

    name = "accept-all"

    def _reset(self) -> None:
        pass

    def plan(self, outcomes):
        n = len(outcomes)
        return Plan(accept=np.ones(n, dtype=bool), level=np.ones(n), wealth=np.full(n, np.nan))

    def record(self, outcomes, n, last_accepted):
        self.n_tested += n
        self.n_accepted += int(last_accepted)

    def parameters(self):
        return {}

    def guarantee(self):
        return "none"


@functools.cache
def data(name: str) -> pd.DataFrame:
    d = pd.read_csv(REF / "data" / ("mtcars_full.csv" if name == "mtcars" else f"{name}.csv"))
    return d.drop(columns=["model"]) if name == "mtcars" else d


def py_term(data_name: str, term: str) -> str:
    return f"C({term})" if term in FACTORS[data_name] else term


def fit_of(case: str, rhs: list[str]):
    """streamreg's fit of ``rhs`` (R's terms, in order) with the case's family, offset and weights."""
    spec = CASES.loc[case]
    intercept = "0" not in rhs
    terms = [py_term(spec.data, t) for t in rhs if t != "0"]
    fixed = ("0 + " if not intercept else "") + (terms[0] + " + " if not intercept else "")
    streamed = terms[1:] if not intercept else terms
    options = {}
    if spec.weights:
        options["var_weights"] = spec.weights
    if spec.offset:
        options["offset"] = spec.offset
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sr.RefitWarning)
        fit = sr.streamreg(f"{spec.response} ~ {fixed}stream({', '.join(streamed)})", data(spec.data),
                           family=FAMILIES[spec.family], method=AcceptAll(), **options)
    assert fit.selected_terms == streamed
    return fit


def r_table(case: str) -> pd.DataFrame:
    rows = TABLES[TABLES["case"] == case]
    table = rows.pivot(index="row", columns="column", values="value")
    table.index = rows.drop_duplicates("row").set_index("row").loc[table.index, "rowname"]
    return table


def close(actual, expected, tol: float, what: str) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=f"{what}: NaN where R has NA")
    scale = float(np.nanmax(np.abs(expected))) if np.isfinite(expected).any() else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=what)


def check(ours: pd.DataFrame, ref: pd.DataFrame, case: str) -> None:
    expected_columns = [c for c in ref.columns if c != "Rao (MLE)"]
    assert sorted(ours.columns) == sorted(expected_columns), case
    names = [py_term(CASES.loc[case, "data"], str(r)) for r in ref.index]  # R's race is C(race) here
    assert [str(i) for i in ours.index] == names, case
    mle = "Rao (MLE)" in ref.columns
    for column in ours.columns:
        if column == "Rao" and mle:
            close(ours[column], ref["Rao (MLE)"], TOL, f"{case}: Rao at the MLE")
            close(ours[column], ref["Rao"], TOL_R_RAO, f"{case}: R's Rao")
        elif column == "Pr(>Chi)" and mle:  # p-values of the Rao statistic: R's own to its precision, and at the MLE
            close(ours[column], ref[column], TOL_R_RAO, f"{case}: {column}")
            close(ours[column], stats.chi2.sf(ref["Rao (MLE)"].to_numpy(float), ref["Df"].to_numpy(float)), TOL,
                  f"{case}: {column} of the Rao statistic at the MLE")
        else:
            close(ours[column], ref[column], TOL, f"{case}: {column}")


def r_test(case: str) -> str | None:
    test = CASES.loc[case, "test"]
    return None if test == "none" else test


COMPARE = [c for c in CASES.index if CASES.loc[c, "kind"] == "compare"]
SEQUENTIAL = [c for c in CASES.index if CASES.loc[c, "kind"] == "sequential"]


@pytest.mark.parametrize("case", COMPARE)
def test_comparison_equals_r(case):
    fits = [fit_of(case, models.split()) for models in CASES.loc[case, "models"].split("|")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = sr.anova(*fits, test=r_test(case))
    check(ours, r_table(case), case)
    f_with_fixed = r_test(case) == "F" and CASES.loc[case, "family"] in ("binomial", "poisson")
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert said == (["using F test with a 'binomial' family is inappropriate"] if f_with_fixed else []), said
    assert ours.heading.startswith("Analysis of " + ("Variance" if CASES.loc[case, "family"] == "lm" else "Deviance"))


@pytest.mark.parametrize("case", SEQUENTIAL)
def test_one_fit_table_equals_r(case):
    fit = fit_of(case, CASES.loc[case, "models"].split())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # R's F-test warning, checked above
        ours = fit.anova(test=r_test(case)) if CASES.loc[case, "family"] != "lm" else fit.anova()
        again = sr.anova(fit, test=r_test(case)) if CASES.loc[case, "family"] != "lm" else sr.anova(fit)
    check(ours, r_table(case), case)
    pd.testing.assert_frame_equal(ours, again)


def test_statsmodels_fits_compare_with_streamreg_fits():
    # the R case compare_birthwt_Chisq, its largest model fitted by statsmodels' formula API
    case = "compare_birthwt_Chisq"
    import statsmodels.formula.api as smf

    small, middle = fit_of(case, ["lwt"]), fit_of(case, ["lwt", "race"])
    big = smf.glm("low ~ lwt + C(race) + smoke + ht", data("birthwt"), family=sm.families.Binomial()).fit(tol=1e-13)
    check(sr.anova(small, middle, big, test="Chisq"), r_table(case), case)


def test_the_default_test_is_r_4_4_s():
    chisq, f = "compare_birthwt_Chisq", "compare_quine_quasi_F"
    fixed = [fit_of(chisq, m.split()) for m in CASES.loc[chisq, "models"].split("|")]
    assert "Pr(>Chi)" in sr.anova(*fixed).columns
    pd.testing.assert_frame_equal(sr.anova(*fixed), sr.anova(*fixed, test="Chisq"))
    estimated = [fit_of(f, m.split()) for m in CASES.loc[f, "models"].split("|")]
    pd.testing.assert_frame_equal(sr.anova(*estimated), sr.anova(*estimated, test="F"))
