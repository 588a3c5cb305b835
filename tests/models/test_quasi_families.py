"""``family="quasipoisson"`` and ``"quasibinomial"`` against R's glm (tests/reference/quasi_refit.R).

The refit reports R's ``summary.glm`` of a quasi family: coefficients of the underlying family,
standard errors scaled by the Pearson dispersion, t tests on the residual degrees of freedom,
and no log-likelihood (R's ``logLik`` is NA).  Candidates are tested with ``score-f``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference_csv import read_ref
from test_r_reference import load_data, py_coef_name, py_term, words

import streamreg as sr
from streamreg.models.families import QUASIBINOMIAL, QUASIPOISSON, QuasiPoisson, spec_of

CASES = read_ref("quasi_cases.csv", text={"case", "data", "response", "family", "rhs", "weights", "factors"})
COEF = read_ref("quasi_coef.csv", text={"case", "name", "term", "level"})
REL = 1e-8


def _fit(spec) -> sr.StreamRegResults:
    frame = load_data(spec.data)
    factors = words(spec.factors)
    if spec.data == "grouped_binomial":
        frame = frame.assign(p=frame["k"] / frame["m"])
    fixed = " + ".join(py_term(t, factors) for t in words(spec.rhs))
    other = next(c for c in frame.columns if c not in {spec.response, *words(spec.rhs), "k", "m"})
    options = {"var_weights": spec.weights} if spec.weights else {}
    # max_tests=0: no candidate is tested, the refit is glm(response ~ rhs)
    return sr.streamreg(f"{spec.response} ~ {fixed} + stream({py_term(other, factors)})", frame,
                        family=spec.family, max_tests=0, **options)


@pytest.mark.parametrize("case", list(CASES["case"]))
def test_refit_equals_r_summary_glm(case):
    spec = CASES.set_index("case").loc[case]
    fit = _fit(spec)
    ref = COEF[COEF["case"] == case]
    names = [py_coef_name(row, words(spec.factors)) for row in ref.itertuples()]
    np.testing.assert_allclose(fit.params[names], ref["estimate"], rtol=REL, atol=1e-10)
    np.testing.assert_allclose(fit.bse[names], ref["std_error"], rtol=REL)
    np.testing.assert_allclose(fit.tvalues[names], ref["t_value"], rtol=REL)
    np.testing.assert_allclose(fit.pvalues[names], ref["p_value"], rtol=1e-6)
    assert float(fit.fit.scale) == pytest.approx(spec.dispersion, rel=REL)
    assert float(fit.fit.df_resid) == spec.df_residual
    assert np.isnan(fit.llf) and np.isnan(fit.aic) and np.isnan(fit.bic) and pd.isna(spec.loglik)
    text = " ".join(fit.summary().as_text().split())
    assert f"A {spec.family} family has no likelihood" in text and "P>|t|" in text


def test_the_quasi_specs():
    fam, name = sr.models.resolve_family("quasipoisson")
    assert isinstance(fam, QuasiPoisson) and name == "quasipoisson"
    assert spec_of(fam) is QUASIPOISSON and spec_of("quasibinomial") is QUASIBINOMIAL
    for spec in (QUASIPOISSON, QUASIBINOMIAL):
        assert spec.default_test == "score-f" and spec.estimates_dispersion and spec.loglik == "none"


def test_candidates_of_a_quasi_family_are_tested_as_r_add1_rao():
    """The first candidate's statistics equal R's add1(quasipoisson fit, test = "Rao") (add1_quasi.csv)."""
    quasi = read_ref("add1_quasi.csv", text={"case", "term"})
    r = quasi[quasi["case"] == "quine_Eth-Age"].set_index("term")
    quine = load_data("quine")
    fit = sr.streamreg("Days ~ C(Eth) + C(Age) + stream(C(Sex), C(Lrn))", quine, family="quasipoisson",
                       passes=1, max_tests=1)
    first = fit.history.iloc[0]
    term = first["term"].removeprefix("C(").removesuffix(")")
    assert fit.test_description == "score (Rao) F, Pearson dispersion"
    assert first["statistic"] * first["df"] == pytest.approx(r.loc[term, "f_statistic"], rel=1e-8)
    assert first["pvalue"] == pytest.approx(r.loc[term, "f_pvalue"], rel=1e-6)


@pytest.mark.parametrize("method", ["stepwise-aic", "stepwise-bic", "stepwise-ric"])
def test_stepwise_refuses_a_quasi_family_as_r_step_does(method):
    quine = load_data("quine")
    with pytest.raises(ValueError, match=r"stepwise search compares log-likelihoods, and the quasipoisson family "
                                         r"has none \(R's step\(\): 'AIC is not defined for this model'\)"):
        sr.streamreg("Days ~ stream(C(Eth), C(Sex))", quine, family="quasipoisson", method=method)


@pytest.mark.parametrize("test", ["score", "lr"])
def test_a_quasi_family_tests_only_with_its_estimated_dispersion(test):
    quine = load_data("quine")
    with pytest.raises(ValueError, match=r"test must be one of \('score-f',\) for a quasi family, got '" + test):
        sr.streamreg("Days ~ stream(C(Eth), C(Sex))", quine, family="quasipoisson", test=test)
