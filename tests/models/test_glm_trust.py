"""GLM decisions on real data: separation decided by the exact test only, refusals explained.

References: statsmodels fits from a cold start and the score statistic written out as
``U' I^-1 U`` (canonical links), the LP separation test, and R's ``glm`` behaviour (R warns
about fitted probabilities of 0 or 1 but fits; it never refuses).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.models.glm import fit_glm
from streamreg.models.separation import is_separated, mle_exists

FORMULA = "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)"


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


def _score_statistic(y, x, c, family=sm.families.Binomial()):  # noqa: B008 -- only read
    """Rao statistic of extra columns c at a cold-started statsmodels fit of y on x (canonical link)."""
    res = sm.GLM(y, x, family=family).fit(tol=1e-12, maxiter=500)
    mu = np.asarray(res.fittedvalues)
    full = np.column_stack([x, c])
    u = full.T @ (y - mu)
    info = full.T @ (family.variance(mu)[:, None] * full)
    return float(u @ np.linalg.solve(info, u))


@pytest.mark.parametrize("settings", [{}, {"passes": 3, **ONE_PHASE}])
def test_readme_example_refuses_nothing_and_scores_match_cold_fits(wdbc, settings):
    fit = sr.streamreg(FORMULA, wdbc, family="binomial", **settings)
    h = fit.history
    status = h["status"].astype(str)
    assert not status.str.startswith("refused").any()
    y = (wdbc["diagnosis"] == "M").to_numpy(float)
    # the default screens, then tests every candidate once: the screened terms last-entered first,
    # each against the screened terms still kept less itself (a rejected one leaves), then the
    # others against the kept terms; a one-phase rule tests against the model of the moment
    confirming = (status == "screened in").any()
    last = h["pass"].max()
    kept = list(h.loc[status == "screened in", "term"])
    model = [np.ones(len(y))]
    for i, row in h.iterrows():
        if confirming and row["pass"] == last:
            x = np.column_stack([np.ones(len(y))] + [wdbc[t].to_numpy(float) for t in kept if t != row["term"]])
        else:
            x = np.column_stack(model)
        ref = _score_statistic(y, x, wdbc[row["term"]].to_numpy(float))
        np.testing.assert_allclose(row["statistic"], ref, rtol=1e-6)
        if confirming and row["pass"] == last and row["term"] in kept and not row["accepted"]:
            kept.remove(row["term"])
        if row["accepted"] or status[i] == "screened in":
            model.append(wdbc[row["term"]].to_numpy(float))
    assert not is_separated(np.asarray(fit.fit.model.exog), y)
    assert "Refused" not in fit.summary().as_text()


def test_probit_refuses_nothing(wdbc):
    fam = sm.families.Binomial(link=sm.families.links.Probit())
    fit = sr.streamreg("diagnosis ~ stream(*_mean)", wdbc, family=fam, passes=3, **ONE_PHASE)
    assert not fit.history["status"].astype(str).str.startswith("refused").any()
    assert len(fit.selected_terms) >= 5


def test_near_boundary_fit_is_kept_when_the_mle_exists(wdbc):
    # fitted probabilities of 1e-15 and exactly 1.0 occur, yet the data overlap (R: warning only)
    y = (wdbc["diagnosis"] == "M").to_numpy(float)
    cols = ["radius_worst", "texture_worst", "smoothness_worst", "concave_points_worst", "area_se", "symmetry_worst"]
    x = sm.add_constant(wdbc[cols].to_numpy(float))
    fit = fit_glm(y, x, sm.families.Binomial())
    assert fit.problem is None
    ref = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-12, maxiter=500)
    np.testing.assert_allclose(fit.result.params, ref.params, rtol=1e-7)


def test_lost_warm_start_is_redone_cold(wdbc):
    # accepting concavity_worst after 16 terms: statsmodels IRLS from the warm start
    # "converged" at llf -645 (the null model has -375); the cold fit finds the MLE
    fit = sr.streamreg(FORMULA, wdbc, family="binomial", method="alpha-investing")
    row = fit.history.set_index("term").loc["concave_points_worst"]
    assert row["statistic"] < 10


def _separating_frame(seed=0, n=60):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x0", "x1", "x2", "x3"])
    df["b"] = (df["x1"] > 0).astype(int)  # x1 separates completely
    return df


def test_lr_test_charges_and_records_the_refusal():
    df = _separating_frame()
    fit = sr.streamreg("b ~ stream(x*)", df, family="binomial", method="alpha-investing", test="lr")
    h = fit.history.set_index("term")
    assert h.loc["x1", "status"].startswith("refused: separation")
    assert pd.notna(h.loc["x1", "test"])  # tested and charged, not skipped
    # charged: the wealth after x1 is that of a rejection, w (1 - 1/(2i))
    w_before = h.loc["x0", "wealth"]
    np.testing.assert_allclose(h.loc["x1", "wealth"], w_before * (1 - 1 / (2 * 2)), rtol=1e-12)
    assert "Refused (separation):" in fit.summary().as_text()
    assert "x1" not in fit.selected_terms


def test_score_test_refusal_matches_lr_path():
    df = _separating_frame()
    score = sr.streamreg("b ~ stream(x*)", df, family="binomial")
    lr = sr.streamreg("b ~ stream(x*)", df, family="binomial", test="lr")
    for fit in (score, lr):
        assert fit.history.set_index("term").loc["x1", "status"].startswith("refused: separation")


def test_stepwise_records_refused_candidates():
    df = _separating_frame()
    df["x4"] = df["x1"] + np.random.default_rng(1).normal(size=len(df))
    fit = sr.streamreg("b ~ stream(x*)", df, family="binomial", method="stepwise-aic")
    h = fit.history
    refused = h[h["status"].astype(str).str.startswith("refused")]
    assert "x1" in set(refused["term"])
    assert "x1" not in fit.selected_terms
    assert "Refused (separation):" in fit.summary().as_text()


def test_poisson_nonexistent_mle_is_refused():
    # a group indicator whose group has only zero counts: the Poisson MLE does not exist
    rng = np.random.default_rng(2)
    n = 80
    g = np.repeat([0, 1], n // 2)
    k = np.where(g == 1, 0, rng.poisson(3.0, size=n))
    df = pd.DataFrame({"k": k, "g": g, "x0": rng.normal(size=n)})
    x = np.column_stack([np.ones(n), g])
    assert not mle_exists(x, k.astype(float), sm.families.Poisson())
    fit = sr.streamreg("k ~ stream(g, x0)", df, family="poisson")
    assert fit.history.set_index("term").loc["g", "status"].startswith("refused: separation")


def test_glm_search_leaks_no_library_warnings(wdbc):
    # statsmodels' convergence, separation and singular-matrix warnings are symptoms the
    # search interprets itself; none may reach the user from the search
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sr.streamreg(FORMULA, wdbc, family="binomial")
        sr.streamreg(FORMULA, wdbc, family="binomial", test="lr", max_tests=12)
        sr.streamreg("b ~ stream(x*)", _separating_frame(), family="binomial")


def test_refit_separation_verdict_is_the_exact_test(wdbc):
    # the final refit (used by every method, grafting and BP-SFS included) says "separated"
    # only when the LP test says so: steep wdbc fits pass, a separating design does not
    from streamreg.results.refit import refit

    y = (wdbc["diagnosis"] == "M").astype(float).rename("diagnosis")
    cols = ["radius_worst", "texture_worst", "smoothness_worst", "concave_points_worst", "area_se", "symmetry_worst"]
    fit, problems = refit(y, sm.add_constant(wdbc[cols]), sm.families.Binomial())
    assert problems == []
    df = _separating_frame()
    fit, problems = refit(df["b"].astype(float), sm.add_constant(df[["x0", "x1"]]), sm.families.Binomial())
    assert is_separated(sm.add_constant(df[["x0", "x1"]]).to_numpy(), df["b"].to_numpy(float))
    assert len(problems) == 1 and "separated by the selected terms (exact LP test)" in problems[0]


@pytest.mark.parametrize("method", ["grafting", "bp-sfs"])
def test_penalised_methods_refuse_a_separating_term(method):
    # the penalised fit exists under separation; the unpenalised refit does not, so the term
    # is refused with a history row and counted in the summary, as in every other path
    rng = np.random.default_rng(1)
    n = 200
    x1 = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * x1))).astype(int)
    df = pd.DataFrame({"y": y, "a_x1": x1, "a_sep": np.where(y == 1, 1.0, -1.0) + rng.normal(scale=0.1, size=n),
                       "a_noise": rng.normal(size=n)})
    assert is_separated(sm.add_constant(df[["a_sep"]]).to_numpy(), y.astype(float))
    fit = sr.streamreg("y ~ stream(a_*)", df, family="binomial", method=method)
    h = fit.history
    refused = h[h["status"].astype(str).str.startswith("refused: separation")]
    assert list(refused["term"]) == ["a_sep"]
    assert "a_sep" not in fit.selected_terms and fit.refit_warnings == []
    assert "Refused (separation):" in fit.summary().as_text()


def test_the_negativebinomial_name_estimates_theta_without_statsmodels_warning():
    import warnings

    import statsmodels.api as sm

    from streamreg.models import resolve_family
    from streamreg.models.families import NegBin

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # statsmodels warns "alpha not set, using 1.0" without an alpha
        fam, name = resolve_family("negativebinomial")
    # R's glm.nb (theta estimated); statsmodels' fixed alpha stays available as an instance
    assert isinstance(fam, NegBin) and isinstance(fam, sm.families.NegativeBinomial) and fam.theta is None
    assert name == "negbin"
