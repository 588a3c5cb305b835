"""Robust inference (``cov_type=``, ``cov_kwds=``) against statsmodels.

* Candidate tests (Gaussian family): each candidate's statistic and p-value equal those of its
  coefficient in ``OLS(y, [X, b]).fit(cov_type=..., cov_kwds=...)`` (``WLS`` with prior
  weights), for a whole block scored at once; a multi-column term's equal statsmodels' robust
  ``wald_test`` (chi-square).  Decisions equal a one-candidate-at-a-time alpha-investing loop
  over statsmodels refits.
* The refit: ``params``, ``bse``, ``pvalues`` and ``conf_int()`` equal
  ``OLS/WLS/GLM(...).fit(cov_type=..., cov_kwds=...)``, also on a rescaled design, and the
  summary names the covariance type.
* Bad options are refused with messages that name them.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr
from streamreg.models.base import (
    COLLINEAR,
    CONSTANT,
    TESTED,
    CandidateBlock,
    ObservationWeights,
)
from streamreg.models.gaussian import GaussianState
from streamreg.models.robust import RobustCov

TOL = 1e-8
COV_TYPES = ["HC0", "HC1", "HC2", "HC3", "cluster"]


@pytest.fixture(scope="module")
def problem():
    """Heteroscedastic data, a current design X (k = 4), 40 candidates and 11 clusters."""
    rng = np.random.default_rng(11)
    n = 120
    x = sm.add_constant(rng.normal(size=(n, 3)))
    y = x @ [1.0, 0.6, 0.0, -0.3] + rng.normal(size=n) * (0.5 + np.abs(x[:, 1]))
    b = rng.normal(size=(n, 40))
    b[:, 5] = b[:, 5] * (1 + x[:, 1] ** 2)  # a candidate whose variance follows the noise's
    b[:, 7] = x[:, 1] * x[:, 2] + 0.1 * b[:, 7]  # correlated with the model
    groups = rng.integers(0, 11, n)
    return x, y, b, groups


def cov_of(cov_type: str, groups: np.ndarray) -> RobustCov:
    return RobustCov(cov_type, groups if cov_type == "cluster" else None)


def sm_kwargs(cov_type: str, groups: np.ndarray) -> dict:
    return {"cov_type": cov_type, "cov_kwds": {"groups": groups}} if cov_type == "cluster" else {"cov_type": cov_type}


def assert_close(actual, expected, tol=TOL):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=0)


# ------------------------------------------------------------------ candidate tests


@pytest.mark.parametrize("cov_type", COV_TYPES)
def test_single_column_candidates_equal_statsmodels(problem, cov_type):
    x, y, b, groups = problem
    state = GaussianState(y, x, cov=cov_of(cov_type, groups))
    out, codes = state.score_block(CandidateBlock(b))
    assert (codes == TESTED).all()
    z2, p = [], []
    for j in range(b.shape[1]):
        res = sm.OLS(y, np.column_stack([x, b[:, j]])).fit(**sm_kwargs(cov_type, groups))
        assert not res.use_t  # statsmodels' robust inference is normal
        z2.append(res.tvalues[-1] ** 2)
        p.append(res.pvalues[-1])
    assert_close(out.statistic, z2)
    assert_close(out.pvalue, p)
    assert np.isinf(out.df_resid).all() and (out.df == 1).all()


@pytest.mark.parametrize("cov_type", COV_TYPES)
def test_multi_column_terms_equal_statsmodels_wald(problem, cov_type):
    x, y, b, groups = problem
    widths = np.array([2, 1, 3, 2, 1, 3, 1])
    block = CandidateBlock(b[:, : widths.sum()], widths)
    out, codes = GaussianState(y, x, cov=cov_of(cov_type, groups)).score_block(block)
    assert (codes == TESTED).all()
    stat, p = [], []
    for j, w in enumerate(widths):
        z = np.column_stack([x, block.term(j)])
        res = sm.OLS(y, z).fit(**sm_kwargs(cov_type, groups))
        r = np.zeros((w, z.shape[1]))
        r[:, x.shape[1]:] = np.eye(w)
        wald = res.wald_test(r, scalar=True)  # use_f follows use_t: chi-square
        stat.append(float(wald.statistic))
        p.append(float(wald.pvalue))
    assert_close(out.statistic, stat)
    assert_close(out.pvalue, p)
    assert_close(out.df, widths)


@pytest.mark.parametrize("cov_type", ["HC1", "HC3", "cluster"])
def test_rank_deficient_term_tests_its_independent_columns(problem, cov_type):
    x, y, b, groups = problem
    term = np.column_stack([b[:, 0], b[:, 1], b[:, 0] - 2 * b[:, 1]])  # rank 2
    other = b[:, 2:5]
    block = CandidateBlock(np.column_stack([term, other]), np.array([3, 3]))
    out, codes = GaussianState(y, x, cov=cov_of(cov_type, groups)).score_block(block)
    assert (codes == TESTED).all()
    assert list(out.df) == [2, 3]
    z = np.column_stack([x, b[:, :2]])
    res = sm.OLS(y, z).fit(**sm_kwargs(cov_type, groups))
    r = np.zeros((2, z.shape[1]))
    r[:, x.shape[1]:] = np.eye(2)
    assert_close(out.statistic[0], float(res.wald_test(r, scalar=True).statistic))


@pytest.mark.parametrize("cov_type", COV_TYPES)
def test_offset_and_var_weights_equal_wls(problem, cov_type):
    x, y, b, groups = problem
    rng = np.random.default_rng(5)
    offset, vw = rng.normal(size=len(y)), rng.uniform(0.3, 3.0, len(y))
    weights = ObservationWeights(offset=offset, var_weights=vw)
    out, _ = GaussianState(y, x, weights=weights, cov=cov_of(cov_type, groups)).score_block(CandidateBlock(b[:, :12]))
    ref = [sm.WLS(y - offset, np.column_stack([x, b[:, j]]), weights=vw).fit(**sm_kwargs(cov_type, groups)).pvalues[-1]
           for j in range(12)]
    assert_close(out.pvalue, ref)


@pytest.mark.parametrize("cov_type", ["HC0", "HC3", "cluster"])
def test_scale_free_and_skips(problem, cov_type):
    """Columns at 1e-200 and 1e150 score as their rescaled selves; constant and collinear
    candidates are skipped as in the plain test."""
    x, y, b, groups = problem
    cols = np.column_stack([b[:, 0] * 1e-200, b[:, 1] * 1e150, np.ones(len(y)), x[:, 1] - 2 * x[:, 2], b[:, 2]])
    out, codes = GaussianState(y, x, cov=cov_of(cov_type, groups)).score_block(CandidateBlock(cols))
    assert list(codes) == [TESTED, TESTED, CONSTANT, COLLINEAR, TESTED]
    ref = [sm.OLS(y, np.column_stack([x, b[:, j]])).fit(**sm_kwargs(cov_type, groups)).tvalues[-1] ** 2
           for j in range(3)]
    assert_close(out.statistic[[0, 1, 4]], ref)


def test_block_size_does_not_change_statistics(problem):
    x, y, b, groups = problem
    state = GaussianState(y, x, cov=RobustCov("cluster", groups))
    whole, _ = state.score_block(CandidateBlock(b))
    parts = [state.score_block(CandidateBlock(b[:, i:i + 7]))[0].statistic for i in range(0, b.shape[1], 7)]
    np.testing.assert_allclose(whole.statistic, np.concatenate(parts), rtol=1e-12)


def naive_robust_alpha_investing(y, fixed, candidates, kwargs, *, w0=0.5, alpha_delta=0.5):
    """The alpha-investing of Zhou et al. (2006) with one statsmodels robust refit per candidate."""
    w, i, chosen = w0, 1, []
    for j, c in enumerate(candidates):
        xc = np.column_stack([fixed] + [candidates[s] for s in chosen] + [c])
        p = sm.OLS(y, xc).fit(**kwargs).pvalues[-1]
        alpha = w / (2 * i)
        if p < alpha:
            w += alpha_delta - alpha
            chosen.append(j)
        else:
            w -= alpha
        i += 1
    return chosen


@pytest.mark.parametrize("cov_type", ["HC3", "cluster"])
def test_select_decides_as_a_loop_of_statsmodels_refits(cov_type):
    rng = np.random.default_rng(3)
    n, p = 150, 30
    xs = rng.normal(size=(n, p))
    y = xs[:, 2] + 0.7 * xs[:, 9] + rng.normal(size=n) * (0.3 + np.abs(xs[:, 2]))
    groups = rng.integers(0, 15, n)
    kw = sm_kwargs(cov_type, groups)
    fit = sr.select(y, xs, method="alpha-investing", cov_type=cov_type, cov_kwds=kw.get("cov_kwds"), block_size=4)
    expected = naive_robust_alpha_investing(y, np.ones((n, 1)), list(xs.T), kw)
    assert fit.selected_terms == [f"x{j}" for j in expected]
    tested = fit.history[fit.history["status"].isin(["accepted", "rejected"])]
    assert len(tested) == p


# ------------------------------------------------------------------ the refit


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(7)
    n = 200
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"x{i}" for i in range(6)])
    d["site"] = rng.choice(list("abcdefghijkl"), n)
    d["w"] = rng.uniform(0.5, 2.0, n)
    d["y"] = 1 + d.x0 - 0.8 * d.x3 + rng.normal(size=n) * (0.5 + d.x0**2)
    d["k"] = rng.poisson(np.exp(0.3 + 0.4 * d.x1))
    return d


def assert_refit_equal(fit, ref):
    assert list(fit.params.index) == list(ref.params.index)
    for name in ("params", "bse", "pvalues"):
        assert_close(getattr(fit, name), getattr(ref, name))
    assert_close(fit.conf_int(alpha=0.1), ref.conf_int(alpha=0.1))
    assert fit.fit.cov_type == ref.cov_type and fit.fit.use_t == ref.use_t


@pytest.mark.parametrize("cov_type", COV_TYPES)
def test_refit_equals_statsmodels_ols(frame, cov_type):
    kwds = {"groups": "site"} if cov_type == "cluster" else None
    fit = sr.streamreg("y ~ stream(x*)", frame, cov_type=cov_type, cov_kwds=kwds)
    assert fit.selected_terms
    ref_kw = {"groups": pd.factorize(frame["site"], sort=True)[0]} if cov_type == "cluster" else None
    ref = smf.ols("y ~ " + " + ".join(fit.selected_terms), frame).fit(cov_type=cov_type, cov_kwds=ref_kw)
    assert_refit_equal(fit, ref)
    text = fit.summary().as_text()
    assert re.search(rf"Covariance Type:\s+{cov_type}\s", text)
    assert fit.test_description.endswith("-robust" + (" (12 clusters)" if cov_type == "cluster" else f" ({cov_type})")
                                         + " Wald z (chi-square for multi-column terms)")


@pytest.mark.parametrize("cov_type", ["HC2", "cluster"])
def test_refit_equals_statsmodels_wls(frame, cov_type):
    groups = np.asarray(frame["site"])
    kwds = {"groups": groups} if cov_type == "cluster" else None
    fit = sr.streamreg("y ~ x0 + stream(x1, x2, x3)", frame, var_weights="w", cov_type=cov_type, cov_kwds=kwds)
    ref_kw = {"groups": groups} if cov_type == "cluster" else None
    ref = smf.wls("y ~ " + " + ".join(["x0"] + fit.selected_terms), frame, weights=frame["w"]).fit(
        cov_type=cov_type, cov_kwds=ref_kw)
    assert_refit_equal(fit, ref)


@pytest.mark.parametrize("cov_type", ["HC0", "cluster"])
def test_glm_refit_equals_statsmodels_glm(frame, cov_type):
    """A stepwise search's decisions take no covariance; its Poisson refit does."""
    kwds = {"groups": "site"} if cov_type == "cluster" else None
    fit = sr.streamreg("k ~ stream(x*)", frame, family="poisson", method="stepwise-bic", cov_type=cov_type,
                       cov_kwds=kwds)
    plain = sr.streamreg("k ~ stream(x*)", frame, family="poisson", method="stepwise-bic")
    assert fit.selected_terms == plain.selected_terms and fit.selected_terms
    ref_kw = {"groups": pd.factorize(frame["site"], sort=True)[0]} if cov_type == "cluster" else None
    ref = smf.glm("k ~ " + " + ".join(fit.selected_terms), frame, family=sm.families.Poisson()).fit(
        cov_type=cov_type, cov_kwds=ref_kw, tol=1e-12)
    assert_refit_equal(fit, ref)
    assert re.search(rf"Covariance Type:\s+{cov_type}\s", fit.summary().as_text())


@pytest.mark.parametrize("cov_type", ["HC0", "cluster"])
def test_gaussian_refit_with_offset_is_the_robust_ols_of_y_minus_offset(frame, cov_type):
    d = frame.assign(o=np.linspace(-1, 1, len(frame)))
    kwds = {"groups": "site"} if cov_type == "cluster" else None
    fit = sr.streamreg("y ~ stream(x*)", d, offset="o", cov_type=cov_type, cov_kwds=kwds)
    ref_kw = {"groups": pd.factorize(d["site"], sort=True)[0]} if cov_type == "cluster" else None
    ref = smf.ols("I(y - o) ~ " + " + ".join(fit.selected_terms), d).fit(cov_type=cov_type, cov_kwds=ref_kw)
    for name in ("params", "bse", "pvalues"):
        assert_close(getattr(fit, name).to_numpy(), getattr(ref, name).to_numpy())


@pytest.mark.parametrize("cov_type", ["HC3", "cluster"])
def test_refit_on_a_rescaled_design(frame, cov_type):
    """A column at 1e9 is fitted at a power-of-two scale; the robust covariance is back-transformed."""
    d = frame.assign(x0=frame["x0"] * 1e9)
    kwds = {"groups": "site"} if cov_type == "cluster" else None
    fit = sr.streamreg("y ~ x0 + stream(x3)", d, cov_type=cov_type, cov_kwds=kwds)
    assert fit.selected_terms == ["x3"]
    ref_kw = {"groups": pd.factorize(d["site"], sort=True)[0]} if cov_type == "cluster" else None
    ref = smf.ols("y ~ I(x0 / 1e9) + x3", d).fit(cov_type=cov_type, cov_kwds=ref_kw)
    scale = np.array([1.0, 1e9, 1.0])
    assert_close(fit.params.to_numpy() * scale, ref.params.to_numpy())
    assert_close(fit.bse.to_numpy() * scale, ref.bse.to_numpy())
    assert_close(fit.pvalues.to_numpy(), ref.pvalues.to_numpy())


def test_validate_refits_the_held_out_rows_with_their_clusters(frame):
    fit = sr.streamreg("y ~ stream(x*)", frame, validate=0.5, seed=1, cov_type="cluster", cov_kwds={"groups": "site"})
    held = frame.loc[fit.fit.model.data.row_labels]
    ref = smf.ols("y ~ " + " + ".join(fit.selected_terms), held).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(held["site"], sort=True)[0]})
    assert_refit_equal(fit, ref)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"cov_type": "HC4"}, ValueError, r"cov_type must be one of .*'HC3', 'cluster'.*got 'HC4'"),
    ({"cov_type": 3}, TypeError, r"cov_type must be one of .* got 3 \(int\)"),
    ({"cov_type": "cluster"}, ValueError, r"cov_type='cluster' needs the clusters: cov_kwds=\{'groups'"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": "nope"}}, ValueError,
     r"cov_kwds\['groups'\]='nope' is not a column of the data"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": np.arange(5)}}, ValueError,
     r"cov_kwds\['groups'\] has 5 values, but the data have 200 rows"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": np.zeros(200)}}, ValueError,
     r"single cluster .* at least two clusters"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": np.r_[np.nan, np.arange(199.0)]}}, ValueError,
     r"cov_kwds\['groups'\] has 1 missing value\(s\), the first at position 0"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": np.zeros((200, 2))}}, ValueError,
     r"must be one-dimensional"),
    ({"cov_type": "cluster", "cov_kwds": {"groups": "site", "use_correction": False}}, ValueError,
     r"cov_kwds takes only 'groups'.*use_correction"),
    ({"cov_type": "HC1", "cov_kwds": {"groups": "site"}}, ValueError,
     r"cov_kwds applies to cov_type='cluster' only"),
    ({"cov_type": "cluster", "cov_kwds": ["site"]}, TypeError, r"cov_kwds must be a dict"),
    ({"cov_type": "HC3", "freq_weights": "w"}, ValueError, r"cannot be combined with freq_weights"),
    ({"cov_type": "HC3", "test": "paper"}, ValueError, r"needs test='t'"),
    ({"cov_type": "HC3", "offset": "w"}, ValueError, r"HC1, HC2 and HC3 as HC0.*'HC0' or 'cluster'"),
])
def test_bad_options_are_refused_by_name(frame, kwargs, error, match):
    with pytest.raises(error, match=match):
        sr.streamreg("y ~ stream(x*)", frame, **kwargs)


def test_glm_candidate_tests_are_refused_and_hc3_glm_refit_too(frame):
    with pytest.raises(ValueError, match=r"cov_type for candidate tests is supported for the gaussian family"):
        sr.streamreg("k ~ stream(x*)", frame, family="poisson", cov_type="HC0")
    with pytest.raises(ValueError, match=r"'HC3' is not available for this family"):
        sr.streamreg("k ~ stream(x*)", frame, family="poisson", method="stepwise-aic", cov_type="HC3")


def test_select_takes_groups_as_an_array_only(frame):
    y, xs = frame["y"].to_numpy(), frame[["x0", "x1"]].to_numpy()
    with pytest.raises(TypeError, match=r"must be an array with one value per observation in select\(\)"):
        sr.select(y, xs, cov_type="cluster", cov_kwds={"groups": "site"})
    with pytest.raises(ValueError, match=r"has 3 values, but the data have 200 rows"):
        sr.select(y, xs, cov_type="cluster", cov_kwds={"groups": [1, 2, 3]})


def test_groups_column_with_missing_values_drops_rows_like_other_columns(frame):
    d = frame.assign(site=frame["site"].where(np.arange(len(frame)) % 10 != 0))
    with pytest.warns(UserWarning, match="dropped 20 rows"):
        fit = sr.streamreg("y ~ stream(x*)", d, cov_type="cluster", cov_kwds={"groups": "site"})
    assert fit.nobs == 180
    with pytest.raises(ValueError, match="site"):
        sr.streamreg("y ~ stream(x*)", d, cov_type="cluster", cov_kwds={"groups": "site"}, missing="raise")


def test_glm_refit_on_a_rescaled_design(frame):
    d = frame.assign(x1=frame["x1"] * 1e9)
    fit = sr.streamreg("k ~ x1 + stream(x0, x2)", d, family="poisson", method="stepwise-bic", cov_type="HC0")
    ref = smf.glm("k ~ " + " + ".join(["I(x1 / 1e9)"] + fit.selected_terms), d, family=sm.families.Poisson()).fit(
        cov_type="HC0", tol=1e-12)
    scale = np.r_[1.0, 1e9, np.ones(len(fit.selected_terms))]
    assert fit.fit.cov_type == "HC0"
    assert_close(fit.params.to_numpy() * scale, ref.params.to_numpy())
    assert_close(fit.bse.to_numpy() * scale, ref.bse.to_numpy())
