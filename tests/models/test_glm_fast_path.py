"""The GLM search's fast path against the path it replaces and against statsmodels.

* :func:`streamreg.models.irls.irls` is statsmodels' IRLS: same iterations, same estimates,
  log-likelihood, deviance and scale (statsmodels as the reference).
* :mod:`streamreg.models.boundary` gives the separation LP's verdict
  (:func:`~streamreg.models.separation.is_separated` as the reference).
* :func:`streamreg.models.base.reduce_weighted_columns` scores as the weighted copy did.
* Whole searches decide exactly as with the statsmodels path, the full LP and the weighted copy
  (the algorithm before the fast path, restored by the ``main_algorithm`` fixture): same
  candidates, same statuses (accepted, rejected, refused for separation), statistics within
  1e-8, on logistic problems at n = 200, m = 1e4 (the default rule and the papers' 0.5/0.5,
  with and without separation stops), a Poisson problem and weighted binomial fits.
"""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.models import base, glm, glm_fit, glm_statsmodels
from streamreg.models.base import reduce_single_columns
from streamreg.models.boundary import (
    LPRows,
    a_column_separates,
    overlap_certified,
    separated_at,
    separated_by_cuts,
    separates,
)
from streamreg.models.irls import GLMData, irls
from streamreg.models.separation import is_separated, mle_exists
from streamreg.results import refit
from streamreg.streams.passes import PassesStream

FAMILIES = {
    "logit": sm.families.Binomial(),
    "probit": sm.families.Binomial(sm.families.links.Probit()),
    "poisson": sm.families.Poisson(),
    "gamma-log": sm.families.Gamma(sm.families.links.Log()),
    "gaussian-log": sm.families.Gaussian(sm.families.links.Log()),
}


def _response(kind: str, eta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if kind in ("logit", "probit"):
        return (rng.random(len(eta)) < 1 / (1 + np.exp(-eta))).astype(float)
    if kind == "poisson":
        return rng.poisson(np.exp(eta)).astype(float)
    if kind == "gamma-log":
        return rng.gamma(2.0, np.exp(eta) / 2)
    return np.exp(eta) + rng.normal(scale=0.3, size=len(eta))


# ------------------------------------------------------------------------------ IRLS
@pytest.mark.parametrize("kind", list(FAMILIES))
@pytest.mark.parametrize("weighted_fit", [False, True])
@pytest.mark.parametrize("warm", [False, True])
def test_irls_is_statsmodels_irls(kind, weighted_fit, warm):
    rng = np.random.default_rng(len(kind) + 10 * weighted_fit)
    n, k = 300, 6
    x = np.column_stack([np.ones(n), rng.standard_normal((n, k - 1))])
    y = _response(kind, 0.5 + x[:, 1:] @ rng.normal(0, 0.3, k - 1), rng)
    family = FAMILIES[kind]
    opts = {}
    if weighted_fit:
        opts = {"offset": rng.normal(0, 0.1, n), "freq_weights": rng.integers(1, 4, n).astype(float),
                "var_weights": rng.uniform(0.5, 2.0, n)}
    start = None
    if warm:  # the search's start: the smaller model's estimates and a zero for the new column
        small = sm.GLM(y, x[:, :-1], family=family, **opts).fit(tol=1e-12, rtol=1e-13)
        start = np.r_[small.params, 0.0]
    ref = sm.GLM(y, x, family=family, **opts).fit(start_params=start, tol=1e-12, rtol=1e-13, maxiter=200)
    data = GLMData(y, x, family, opts.get("offset"), opts.get("freq_weights"), opts.get("var_weights"))
    fit = irls(data, start, maxiter=200, tol=1e-12, rtol=1e-13)
    assert fit is not None and fit.converged and ref.converged
    assert fit.iterations == ref.fit_history["iteration"]
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fit.fittedvalues, ref.fittedvalues, rtol=1e-10)
    for attr in ("llf", "deviance", "scale"):
        assert getattr(fit, attr) == pytest.approx(float(getattr(ref, attr)), rel=1e-10), attr
    if warm:
        model = sm.GLM(y, x, family=family, **opts)
        assert fit.start_llf == pytest.approx(float(model.loglike(start)), rel=1e-10)


def test_irls_hands_statsmodels_the_cases_it_does_not_own():
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(50), rng.standard_normal(50)])
    y = (rng.random(50) < 0.5).astype(float)
    family = sm.families.Binomial()
    assert irls(GLMData(y, np.column_stack([x, x[:, 1]]), family), None, maxiter=50, tol=1e-12, rtol=0) is None
    bad = x.copy()
    bad[3, 1] = np.nan
    assert irls(GLMData(y, bad, family), None, maxiter=50, tol=1e-12, rtol=0) is None
    # a perfect fit: statsmodels warns (PerfectSeparationWarning), so it decides
    sep = (x[:, 1] > 0).astype(float)
    assert irls(GLMData(sep, x, family), None, maxiter=200, tol=1e-12, rtol=0) is None


def test_an_unconverged_run_reports_itself_and_its_drift():
    x = np.column_stack([np.ones(8), [0, 0, 0, 1, 1, 1, 1, 1.0]])
    y = np.array([1, 1, 1, 1, 0, 1, 0, 0.0])  # quasi-complete: y = 1 wherever x = 0
    ref = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-12, rtol=1e-13, maxiter=10)
    fit = irls(GLMData(y, x, sm.families.Binomial()), None, maxiter=10, tol=1e-12, rtol=1e-13)
    assert fit is not None and not fit.converged and not ref.converged
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-9)
    assert separates(LPRows.build(x, y, sm.families.Binomial()), fit.step)


# ------------------------------------------------------------------------------ the LP's verdict
def _designs(seed: int, n: int):
    """Overlapping, completely and quasi-completely separated binary data, and a steep overlap."""
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.ones(n), rng.standard_normal((n, 3)), (rng.random(n) < 0.3).astype(float)])
    eta = x[:, 1:4] @ np.array([1.0, -2.0, 0.5])
    overlap = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    steep = (rng.random(n) < 1 / (1 + np.exp(-8 * eta))).astype(float)
    complete = (eta > 0).astype(float)
    quasi = np.where(x[:, 4] == 1, 1.0, overlap)  # the indicator's rows are all 1
    return x, {"overlap": overlap, "steep": steep, "complete": complete, "quasi": quasi}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n", [300, 12_000])
def test_the_cutting_plane_lp_gives_the_full_lp_verdict(seed, n):
    x, responses = _designs(seed, n)
    family = sm.families.Binomial()
    for name, y in responses.items():
        want = is_separated(x, y)
        assert want == (name in ("complete", "quasi")) or name == "steep"
        rows = LPRows.build(x, y, family)
        assert rows is not None
        near = np.zeros(n, bool)
        near[: n // 50] = True
        assert separated_by_cuts(rows) == want, name
        assert separated_by_cuts(rows, near) == want, name


@pytest.mark.parametrize("n", [12_000])
def test_cuts_with_equality_rows_give_the_full_lp_verdict(n):
    rng = np.random.default_rng(4)
    x = np.column_stack([np.ones(n), rng.standard_normal((n, 2)), (rng.random(n) < 0.05).astype(float)])
    counts = rng.poisson(np.exp(0.3 * x[:, 1]))
    family = sm.families.Poisson()
    for y in (counts.astype(float), np.where(x[:, 3] == 1, 0.0, counts + 1.0)):
        rows = LPRows.build(x, y, family)
        assert rows is not None
        assert separated_by_cuts(rows) == (not mle_exists(x, y, family))
    props = np.clip(rng.random(n), 0.05, 0.95)
    props[x[:, 1] > 2.5] = 1.0  # a tail of ones beside proportions: overlapping
    rows = LPRows.build(x, props, sm.families.Binomial())
    assert rows is not None
    assert separated_by_cuts(rows) == is_separated(x, props)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [400, 20_000])
def test_the_score_certificate_never_contradicts_the_lp(seed, n):
    x, responses = _designs(seed, n)
    family = sm.families.Binomial()
    for name, y in responses.items():
        fit = sm.GLM(y, x, family=family).fit(tol=1e-12, rtol=1e-13, maxiter=100)
        rows = LPRows.build(x, y, family)
        assert rows is not None
        certified = overlap_certified(rows, y - np.asarray(fit.fittedvalues))
        if certified:
            assert not is_separated(x, y), name
        if name == "overlap":
            assert certified  # the point of it: a converged interior fit needs no LP
        assert separated_at(x, y, family, np.asarray(fit.fittedvalues)) == is_separated(x, y), name


def test_the_steep_tall_fit_near_the_boundary_is_certified_without_an_lp(monkeypatch):
    # n = 2e5 with fitted probabilities of 1e-9: the trigger fires, the score certifies
    rng = np.random.default_rng(1)
    n = 200_000
    x = np.column_stack([np.ones(n), rng.standard_normal((n, 5))])
    eta = x[:, 1:] @ np.array([2.0, -2, 2, -2, 2])
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-12, rtol=1e-13)
    mu = np.asarray(fit.fittedvalues)
    assert glm_fit.needs_mle_check(sm.families.Binomial(), y, mu)

    def no_lp(*args, **kwargs):
        raise AssertionError("the LP ran")

    monkeypatch.setattr("streamreg.models.boundary.linprog", no_lp)
    monkeypatch.setattr("streamreg.models.boundary.is_separated", no_lp)
    assert not separated_at(x, y, sm.families.Binomial(), mu)


# ------------------------------------------------------------------------------ weighted scores
def test_weighted_scores_equal_the_weighted_copy():
    rng = np.random.default_rng(2)
    n = 60
    q, _ = np.linalg.qr(rng.standard_normal((n, 3)))
    t = rng.standard_normal(n)
    t -= q @ (q.T @ t)
    qt = np.column_stack([q, t])
    sw = rng.uniform(0.1, 2.0, n)
    b = rng.standard_normal((n, 8))
    b[:, 1] *= 1e200  # out of range: rescored by value
    b[:, 2] *= 1e-200
    b[:, 3] = q[:, 0] / sw  # collinear with the model once weighted
    b[:, 4] = 0.0
    b[:, 5] = q[:, 1] / sw + 1e-6 * rng.standard_normal(n)  # near-collinear: recomputed
    b[7, 6] = np.nan
    gain, rank = base.reduce_weighted_columns(qt, b, sw)
    with np.errstate(all="ignore"):
        ref_gain, ref_rank = reduce_single_columns(qt, sw[:, None] * b)
    np.testing.assert_array_equal(rank, ref_rank)
    np.testing.assert_allclose(gain, ref_gain, rtol=1e-9, atol=1e-300)
    assert np.isnan(gain[6]) and np.isnan(ref_gain[6])


# ------------------------------------------------------------------------------ whole searches
@pytest.fixture
def main_algorithm(monkeypatch):
    """Runs under the algorithm the fast path replaced: every fit by statsmodels with the full
    LP, GLM scores on a weighted copy of the block, the refit's separation check by the full LP."""

    @contextlib.contextmanager
    def context():
        with monkeypatch.context() as mp:
            mp.setattr(glm, "_fit_glm", lambda y, x, f, s, o, w, verdict_only=False, new_columns=None: glm_statsmodels.statsmodels_fit(y, x, f, s, o, w))
            mp.setattr(base, "reduce_weighted_columns", lambda q, v, w: reduce_single_columns(q, w[:, None] * v))
            mp.setattr(refit, "separated_at", lambda x, y, f, mu, prior=1.0, rows=None: not mle_exists(
                x if rows is None else x[rows], y if rows is None else y[rows], f))
            yield

    return context


def _assert_same_decisions(new, old) -> None:
    hn, ho = new.history, old.history
    assert hn["term"].tolist() == ho["term"].tolist()
    assert hn["status"].astype(str).tolist() == ho["status"].astype(str).tolist()
    # LR statistics are differences of log-likelihoods: their rounding is absolute (~1e-13)
    np.testing.assert_allclose(hn["statistic"].to_numpy(float), ho["statistic"].to_numpy(float), rtol=1e-8, atol=1e-10)
    assert new.selected_terms == old.selected_terms and new.stopped_by == old.stopped_by
    np.testing.assert_allclose(new.params.to_numpy(), old.params.to_numpy(), rtol=1e-8, atol=1e-10)
    assert new.refit_warnings == old.refit_warnings


def _logistic(seed: int, m: int = 10_000, n: int = 200):
    """The issue's logistic problem (bench_core.py): 4 true features with coefficient 1."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 4, replace=False)
    y = rng.binomial(1, 1 / (1 + np.exp(-x[:, true].sum(axis=1)))).astype(float)
    return y, x


@pytest.mark.parametrize("seed", [0, 2, 3, 10])
@pytest.mark.parametrize("rule", [{}, {"w0": 0.5, "alpha_delta": 0.5}])
def test_logistic_searches_decide_as_before(main_algorithm, seed, rule):
    # seeds 3 and 10 at 0.5/0.5 end in a run of refusals for separation (stopped_by="separation")
    y, x = _logistic(seed)
    new = sr.select(y, x, family="binomial", **rule)
    with main_algorithm():
        old = sr.select(y, x, family="binomial", **rule)
    _assert_same_decisions(new, old)


def test_separation_refusals_decide_as_before(main_algorithm):
    y, x = _logistic(3)
    new = sr.select(y, x, family="binomial", w0=0.5, alpha_delta=0.5)
    assert new.stopped_by == "separation"
    assert new.history["status"].astype(str).str.startswith("refused: separation").sum() >= 10
    with main_algorithm():
        old = sr.select(y, x, family="binomial", w0=0.5, alpha_delta=0.5)
    _assert_same_decisions(new, old)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("test", ["score-f", "score"])
def test_poisson_searches_decide_as_before(main_algorithm, seed, test):
    rng = np.random.default_rng(seed)
    n, m = 400, 1_500
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 6, replace=False)
    y = rng.poisson(np.exp(1 + x[:, true] @ rng.choice([-0.25, 0.25], 6))).astype(float)
    new = sr.select(y, x, family="poisson", test=test)
    with main_algorithm():
        old = sr.select(y, x, family="poisson", test=test)
    _assert_same_decisions(new, old)


@pytest.mark.parametrize(("family", "m"), [("binomial", 250), (sm.families.Binomial(sm.families.links.Probit()), 150)])
def test_weighted_binomial_searches_decide_as_before(main_algorithm, family, m):
    rng = np.random.default_rng(7)
    n = 300
    x = rng.standard_normal((n, m))
    y = (rng.random(n) < 1 / (1 + np.exp(-(x[:, 3] - x[:, 50] + 0.5 * x[:, 100])))).astype(float)
    freq = rng.integers(0, 3, n).astype(float)  # zero weights leave rows out of the LP
    offset = rng.normal(0, 0.2, n)
    new = sr.select(y, x, family=family, freq_weights=freq, offset=offset, w0=0.5, alpha_delta=0.5)
    with main_algorithm():
        old = sr.select(y, x, family=family, freq_weights=freq, offset=offset, w0=0.5, alpha_delta=0.5)
    _assert_same_decisions(new, old)


def test_lr_tests_decide_as_before(main_algorithm):
    y, x = _logistic(3, m=300)
    new = sr.select(y, x, family="binomial", test="lr", w0=0.5, alpha_delta=0.5)
    with main_algorithm():
        old = sr.select(y, x, family="binomial", test="lr", w0=0.5, alpha_delta=0.5)
    _assert_same_decisions(new, old)


def test_tall_binomial_search_near_the_boundary_decides_as_before(main_algorithm):
    rng = np.random.default_rng(1)
    n, m = 50_000, 40
    x = np.asfortranarray(rng.standard_normal((n, m)))
    eta = x[:, [3, 17, 30]] @ np.array([3.0, -3.0, 3.0])  # fitted probabilities below 1e-6
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    new = sr.select(y, x, family="binomial")
    with main_algorithm():
        old = sr.select(y, x, family="binomial")
    _assert_same_decisions(new, old)
    assert {"x3", "x17", "x30"} <= set(new.selected_terms)


def test_rereads_of_a_column_ordered_matrix_are_views_with_the_same_results(monkeypatch):
    """Re-offered runs of a Fortran-ordered matrix are views, bit-identical to copies."""
    rng = np.random.default_rng(0)
    n, m = 300, 400
    x = np.asfortranarray(rng.normal(size=(n, m)))
    eta = x[:, rng.choice(m, 8, replace=False)] @ np.linspace(0.25, 0.6, 8)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * eta))).astype(float)
    lord = {"method": "lord++", "alpha": 0.1, "w0": 0.1, "spending": "uniform"}
    new = sr.select(y, x, family="binomial", passes=3, **lord)
    on_rejected = PassesStream.on_rejected
    monkeypatch.setattr(PassesStream, "on_rejected", lambda self, block, positions, scored=None: on_rejected(
        self, dataclasses.replace(block, positions=None), positions, scored))
    old = sr.select(y, x, family="binomial", passes=3, **lord)
    assert (new.history["pass"] > 1).sum() > 0
    pd.testing.assert_frame_equal(new.history, old.history, check_exact=True)


@pytest.mark.parametrize("seed", range(6))
def test_a_lone_separating_column_is_a_separation_the_lp_confirms(seed):
    rng = np.random.default_rng(seed)
    n = 60
    y = (rng.random(n) < 0.5).astype(float)
    rare = np.zeros((n, 4))
    for j in range(4):  # indicators of 1-3 rows, some with one outcome only
        rare[rng.choice(n, int(rng.integers(1, 4)), replace=False), j] = rng.integers(1, 3)
    x = np.column_stack([np.ones(n), rng.standard_normal(n), rare])
    family = sm.families.Binomial()
    rows = LPRows.build(x, y, family)
    assert rows is not None
    for first in (0, 2, 5):
        lone = [j for j in range(max(first, 2), 6) if is_separated(x[:, [0, j]], y) and
                len(set(y[x[:, j] != 0])) == 1]
        found = a_column_separates(rows, first)
        assert found == bool(lone)
        if found:
            assert is_separated(x, y)


def test_rare_indicator_candidates_are_refused_as_before(main_algorithm):
    # a bag of rare words: candidates that would separate the response alone are refused
    rng = np.random.default_rng(3)
    n, m = 150, 300
    x = np.zeros((n, m))
    for j in range(m):
        x[rng.choice(n, int(rng.integers(1, 6)), replace=False), j] = 1.0
    x[:, :3] = rng.standard_normal((n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * x[:, 0] - 2 * x[:, 1])))).astype(float)
    rule = {"method": "alpha-investing", "w0": 0.5, "alpha_delta": 0.5}
    new = sr.select(y, x, family="binomial", **rule)
    assert new.history["status"].astype(str).str.startswith("refused: separation").sum() == 2
    with main_algorithm():
        old = sr.select(y, x, family="binomial", **rule)
    _assert_same_decisions(new, old)
