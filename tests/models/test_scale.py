"""Decisions and estimates do not depend on a column's scale (issue: trust on the main path).

References: the same data at unit scale (selection, history) and statsmodels fits on
well-scaled columns with the estimates transformed back by hand.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.models.glm import GLMState

M = 10


def _frame(seed: int = 3, n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, M))
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(M)])
    eta = X[:, 2] - 0.8 * X[:, 5]
    df["y"] = eta + rng.normal(size=n)
    df["b"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    df["k"] = rng.poisson(np.exp(0.5 * eta))
    return df


FAMILIES = [("gaussian", "y"), ("binomial", "b"), ("poisson", "k")]


@pytest.fixture(scope="module")
def base_fits():
    df = _frame()
    return df, {fam: sr.streamreg(f"{resp} ~ stream(x*)", df, family=fam, w0=0.25, alpha_delta=0.25)
                for fam, resp in FAMILIES}


@pytest.mark.parametrize("factor", [1e17, 1e-17])
@pytest.mark.parametrize("fam,resp", FAMILIES)
def test_scaling_any_column_leaves_the_selection_unchanged(base_fits, fam, resp, factor):
    df, fits = base_fits
    base = fits[fam]
    for j in range(M):
        col = f"x{j}"
        d = df.copy()
        d[col] = d[col] * factor
        with warnings.catch_warnings():
            warnings.simplefilter("error", sr.RefitWarning)
            fit = sr.streamreg(f"{resp} ~ stream(x*)", d, family=fam, w0=0.25, alpha_delta=0.25)
        assert fit.selected_terms == base.selected_terms, col
        np.testing.assert_allclose(fit.history["statistic"], base.history["statistic"], rtol=1e-9)
        np.testing.assert_array_equal(fit.history["accepted"], base.history["accepted"])
        if col in base.params:
            # back-transformed estimates: beta(c x) = beta(x) / c, se likewise
            np.testing.assert_allclose(fit.params[col] * factor, base.params[col], rtol=1e-9)
            np.testing.assert_allclose(fit.bse[col] * factor, base.bse[col], rtol=1e-9)
            np.testing.assert_allclose(fit.params.drop(col), base.params.drop(col), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(fit.fit.llf, base.fit.llf, rtol=1e-11)
            assert fit.fit.df_model == base.fit.df_model


def test_state_and_refit_agree_on_the_design_with_a_huge_column():
    # a binomial search that accepts a column at 1e17: the model state and the refit must be
    # the same model, or every later score test is inflated (formerly: all selected)
    df = _frame(seed=11)
    d = df.assign(x2=df["x2"] * 1e17)
    fit = sr.streamreg("b ~ stream(x*)", d, family="binomial", w0=0.25, alpha_delta=0.25)
    assert "x2" in fit.selected_terms
    state = GLMState(d["b"].to_numpy(float), np.column_stack([np.ones(len(d)), d[fit.selected_terms]]),
                     sm.families.Binomial())
    np.testing.assert_allclose(state.llf, fit.fit.llf, rtol=1e-10)
    ref = sm.GLM(d["b"], sm.add_constant(df[fit.selected_terms]), family=sm.families.Binomial()).fit(tol=1e-12)
    np.testing.assert_allclose(fit.fit.llf, ref.llf, rtol=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_nanosecond_timestamp_behaves_like_seconds(seed):
    # a datetime64[ns] column read as int64 (about 1.6e18) among binomial candidates
    rng = np.random.default_rng(seed)
    n = 150
    df = pd.DataFrame(rng.normal(size=(n, 20)), columns=[f"x{j}" for j in range(20)])
    stamps = pd.Timestamp("2021-01-01").value + rng.integers(0, 365 * 86400, size=n) * 10**9
    df.insert(3, "x_time", stamps.astype(np.int64))
    df["b"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-df["x0"]))).astype(int)
    ns = sr.streamreg("b ~ stream(x*)", df, family="binomial")
    secs = sr.streamreg("b ~ stream(x*)", df.assign(x_time=df["x_time"] / 1e9), family="binomial")
    assert ns.selected_terms == secs.selected_terms
    assert len(ns.selected_terms) < 12  # formerly: everything after the timestamp was selected


def test_int64_near_2_to_62_gives_exact_coefficients():
    rng = np.random.default_rng(5)
    n = 120
    offset = rng.integers(0, 2**40, size=n)
    big = (np.int64(2**62) + offset * 4096).astype(np.int64)  # multiples of 4096: exact in float64
    x1 = rng.normal(size=n)
    y = 3e-15 * (offset * 4096.0) + x1 + 0.1 * rng.normal(size=n)
    df = pd.DataFrame({"y": y, "big": big, "x1": x1})
    fit = sr.streamreg("y ~ stream(big, x1)", df, w0=0.25, alpha_delta=0.25)
    assert fit.selected_terms == ["big", "x1"]
    # reference: statsmodels on the centred, unit-scale column (computed in integer arithmetic)
    u = (big - np.int64(2**62)).astype(float) / 2.0**52
    ref = sm.OLS(y, sm.add_constant(np.column_stack([u, x1]))).fit()
    np.testing.assert_allclose(fit.params["big"] * 2.0**52, ref.params[1], rtol=1e-8)
    np.testing.assert_allclose(fit.bse["big"] * 2.0**52, ref.bse[1], rtol=1e-8)
    np.testing.assert_allclose(fit.params["x1"], ref.params[2], rtol=1e-8)


def test_tiny_signal_column_is_selected_not_called_collinear():
    df = _frame()
    base = sr.streamreg("y ~ stream(x*)", df, w0=0.25, alpha_delta=0.25)
    with pytest.warns(sr.RefitWarning, match="x2 lies outside floating-point range"):
        fit = sr.streamreg("y ~ stream(x*)", df.assign(x2=df["x2"] * 1e-300), w0=0.25, alpha_delta=0.25)
    assert fit.selected_terms == base.selected_terms
    np.testing.assert_allclose(fit.params["x2"] * 1e-300, base.params["x2"], rtol=1e-9)


def test_column_with_a_large_offset_is_a_candidate():
    # a nanosecond timestamp spread over hours: 1.6e18 + 1e13 x.  R's lm keeps it (tolerance
    # 1e-7 of the norm); the search must test and accept it, with the right slope
    rng = np.random.default_rng(3)
    n = 400
    X = rng.normal(size=(n, 5))
    y = 0.8 * X[:, 0] - 0.6 * X[:, 2] + 0.3 * X[:, 4] + rng.normal(size=n)
    d = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(y=y)
    stamp = (np.int64(16 * 10**17) + np.round(X[:, 0] * 1e13)).astype(np.int64)
    fit = sr.streamreg("y ~ stream(x*)", d.assign(x0=stamp), passes=3, **ONE_PHASE)
    assert fit.history.loc[0, "status"] == "accepted"
    # reference: statsmodels on the offset removed in integer arithmetic
    u = (stamp - np.int64(16 * 10**17)).astype(float) / 1e13
    ref = sm.OLS(y, sm.add_constant(np.column_stack([u] + [X[:, j] for j in range(1, 5)]))).fit()
    base = sr.streamreg("y ~ stream(x*)", d.assign(x0=u))
    assert fit.selected_terms == base.selected_terms
    cols = [0] + [int(t[1:]) for t in fit.selected_terms[1:]]
    ref = sm.OLS(y, sm.add_constant(np.column_stack([u] + [X[:, j] for j in cols[1:]]))).fit()
    np.testing.assert_allclose(fit.params["x0"] * 1e13, ref.params[1], rtol=1e-6)


def test_constant_terms_of_a_few_terms_equal_the_whole_block_reduction():
    from streamreg.models.base import CandidateBlock

    rng = np.random.default_rng(4)
    values = rng.normal(size=(6, 10))
    values[:, [2, 5, 6, 9]] = [3.0, 1.0, -2.0, 0.0]  # terms (widths 1,2,1,3,2,1): cols 0|1,2|3|4,5,6|7,8|9
    block = CandidateBlock(values, np.array([1, 2, 1, 3, 2, 1]))
    whole = np.logical_and.reduceat(np.ptp(values, axis=0) == 0, block.starts)
    for terms in ([0, 1, 2, 3, 4, 5], [1, 3], [5], [3, 5], []):
        idx = np.array(terms, dtype=int)
        np.testing.assert_array_equal(block.constant_terms(idx), whole[idx])
    values[:, 4] = 7.0  # now term 3 (cols 4, 5, 6) is constant
    block = CandidateBlock(values, np.array([1, 2, 1, 3, 2, 1]))
    np.testing.assert_array_equal(block.constant_terms(np.array([1, 3, 5])), [False, True, True])
