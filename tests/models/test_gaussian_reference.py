"""Gaussian streamwise selection against a naive statsmodels refit-per-candidate loop."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from naive import naive_alpha_investing

import streamreg as sr
from streamreg.models.base import CandidateBlock
from streamreg.models.gaussian import GaussianState


def _problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(25, 160))
    m = int(rng.integers(10, 90))
    rho = float(rng.choice([0.0, 0.3, 0.8]))
    z = rng.normal(size=(n, 1))
    x = np.sqrt(1 - rho) * rng.normal(size=(n, m)) + np.sqrt(rho) * z
    n_fixed = int(rng.integers(0, 3))
    fixed = np.column_stack([np.ones(n)] + [rng.normal(size=n) for _ in range(n_fixed)])
    true = rng.choice(m, size=min(3, m), replace=False)
    y = fixed @ rng.normal(size=fixed.shape[1]) + x[:, true] @ rng.uniform(0.3, 1.5, size=len(true))
    y = y + rng.normal(scale=float(rng.choice([0.3, 1.0, 3.0])), size=n)
    return y, fixed, x


@pytest.mark.parametrize("seed", range(60))
def test_matches_naive_refit_loop(seed):
    y, fixed, x = _problem(seed)
    w0, ad = (0.5, 0.5) if seed % 2 else (0.05, 0.05)
    chosen, trace = naive_alpha_investing(y, fixed, list(x.T), w0=w0, alpha_delta=ad)
    fx = pd.DataFrame(fixed[:, 1:], columns=[f"f{j}" for j in range(fixed.shape[1] - 1)])
    fit = sr.select(y, x, fixed=fx if fx.shape[1] else None, method="alpha-investing", w0=w0, alpha_delta=ad,
                    block_size=int(7 + seed % 50))
    assert fit.selected_terms == [f"x{j}" for j in chosen]
    tested = fit.history[fit.history["test"].notna()]
    ref = pd.DataFrame(trace, columns=["j", "p", "alpha", "accepted", "w"])
    assert list(tested["term"]) == [f"x{j}" for j in ref["j"]]
    np.testing.assert_allclose(tested["pvalue"].to_numpy(), ref["p"].to_numpy(), rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(tested["level"].to_numpy(), ref["alpha"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(tested["wealth"].to_numpy(), ref["w"].to_numpy(), rtol=1e-10)
    assert list(tested["accepted"]) == list(ref["accepted"])


def test_score_block_equals_ols_t_and_f():
    rng = np.random.default_rng(3)
    n = 80
    x = np.column_stack([np.ones(n), rng.normal(size=(n, 3))])
    y = x @ [1, 0.5, 0, -1] + rng.normal(size=n)
    cands = rng.normal(size=(n, 6))
    state = GaussianState(y, x)
    out, codes = state.score_block(CandidateBlock(cands))
    assert (codes == 0).all()
    for j in range(6):
        res = sm.OLS(y, np.column_stack([x, cands[:, j]])).fit()
        assert out.statistic[j] == pytest.approx(res.tvalues[-1] ** 2, rel=1e-10)
        assert np.exp(out.log_p[j]) == pytest.approx(res.pvalues[-1], rel=1e-9)
        assert out.df_resid[j] == res.df_resid
        assert out.llr[j] == pytest.approx(2 * (res.llf - sm.OLS(y, x).fit().llf), rel=1e-9)
    # a 3-column term: joint partial F test
    block = CandidateBlock(cands[:, :3], widths=np.array([3]))
    out, codes = state.score_block(block)
    res = sm.OLS(y, np.column_stack([x, cands[:, :3]])).fit()
    r = np.zeros((3, 7))
    r[:, 4:] = np.eye(3)
    f = res.f_test(r)
    assert out.statistic[0] / 3 == pytest.approx(float(f.fvalue), rel=1e-10)
    assert np.exp(out.log_p[0]) == pytest.approx(float(f.pvalue), rel=1e-9)


def test_paper_test_formula():
    rng = np.random.default_rng(4)
    n = 60
    x = np.ones((n, 1))
    y = rng.normal(size=n)
    c = rng.normal(size=(n, 4))
    state = GaussianState(y, x, test="paper")
    out, _ = state.score_block(CandidateBlock(c))
    rss0 = np.sum((y - y.mean()) ** 2)
    for j in range(4):
        rss1 = sm.OLS(y, np.column_stack([x, c[:, j]])).fit().ssr
        assert out.log_p[j] == pytest.approx(-(rss0 - rss1) / (2 * rss0 / n), rel=1e-10)


def test_accept_updates_match_fresh_fit():
    rng = np.random.default_rng(5)
    n = 50
    x = np.ones((n, 1))
    y = rng.normal(size=n)
    c = rng.normal(size=(n, 5))
    state = GaussianState(y, x)
    state.accept(c[:, 0])
    state.accept(c[:, 1])
    res = sm.OLS(y, np.column_stack([x, c[:, :2]])).fit()
    assert state.rss == pytest.approx(res.ssr, rel=1e-12)
    np.testing.assert_allclose(state.resid, res.resid, atol=1e-12)
