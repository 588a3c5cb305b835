"""GLM score and LR tests against statsmodels, and the GLM search against a naive loop."""
import numpy as np
import pytest
import statsmodels.api as sm
from naive import naive_alpha_investing, score_test
from scipy import stats

import streamreg as sr
from streamreg.models.base import CandidateBlock
from streamreg.models.glm import GLMState

FAMILIES = {
    "binomial": (sm.families.Binomial(), lambda rng, eta: rng.binomial(1, 1 / (1 + np.exp(-eta)))),
    "poisson": (sm.families.Poisson(), lambda rng, eta: rng.poisson(np.exp(eta))),
}


def _data(seed, n=150):
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.ones(n), rng.normal(size=(n, 2))])
    eta = x @ [0.2, 0.8, -0.4]
    cands = rng.normal(size=(n, 8))
    cands[:, 5] = 0.6 * cands[:, 4] + 0.8 * rng.normal(size=n)
    return rng, x, eta, cands


@pytest.mark.parametrize("name", ["binomial", "poisson"])
@pytest.mark.parametrize("seed", range(5))
def test_score_statistics_equal_statsmodels_score_test(name, seed):
    fam, draw = FAMILIES[name]
    rng, x, eta, cands = _data(seed)
    y = draw(rng, eta)
    state = GLMState(y, x, fam)
    out, codes = state.score_block(CandidateBlock(cands))
    ref_fit = sm.GLM(y, x, family=fam).fit(tol=1e-12, maxiter=200)
    for j in range(cands.shape[1]):
        stat, p, _ = score_test(ref_fit, cands[:, [j]])
        assert out.statistic[j] == pytest.approx(stat, rel=1e-8)
        assert np.exp(out.log_p[j]) == pytest.approx(p, rel=1e-8)
    # a 3-column term, tested jointly
    out3, _ = state.score_block(CandidateBlock(cands[:, :3], widths=np.array([3])))
    stat, p, df = score_test(ref_fit, cands[:, :3])
    assert df == 3
    assert out3.statistic[0] == pytest.approx(stat, rel=1e-8)
    assert np.exp(out3.log_p[0]) == pytest.approx(p, rel=1e-8)


def test_score_test_with_estimated_dispersion_gamma_log_link():
    rng = np.random.default_rng(11)
    n = 200
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = rng.gamma(3.0, np.exp(0.5 + 0.3 * x[:, 1]) / 3.0)
    fam = sm.families.Gamma(sm.families.links.Log())
    cands = rng.normal(size=(n, 4))
    state = GLMState(y, x, fam)
    out, _ = state.score_block(CandidateBlock(cands))
    ref_fit = sm.GLM(y, x, family=fam).fit(tol=1e-12, maxiter=200)
    assert state.scale == pytest.approx(ref_fit.scale, rel=1e-10)
    for j in range(4):
        # non-canonical link: streamreg uses expected information (Fisher scoring)
        stat, p, _ = score_test(ref_fit, cands[:, [j]], observed=False)
        assert out.statistic[j] == pytest.approx(stat, rel=1e-8)


@pytest.mark.parametrize("name", ["binomial", "poisson"])
def test_lr_statistic_equals_two_statsmodels_fits(name):
    fam, draw = FAMILIES[name]
    rng, x, eta, cands = _data(21)
    y = draw(rng, eta)
    state = GLMState(y, x, fam, test="lr")
    out, codes = state.score_block(CandidateBlock(cands[:, :4]))
    r0 = sm.GLM(y, x, family=fam).fit(tol=1e-12)
    for j in range(4):
        r1 = sm.GLM(y, np.column_stack([x, cands[:, j]]), family=fam).fit(tol=1e-12)
        lr = 2 * (r1.llf - r0.llf)
        assert out.statistic[j] == pytest.approx(lr, rel=1e-7)
        assert np.exp(out.log_p[j]) == pytest.approx(stats.chi2.sf(lr, 1), rel=1e-7)


@pytest.mark.parametrize("name", ["binomial", "poisson"])
@pytest.mark.parametrize("seed", range(4))
def test_glm_search_matches_naive_loop(name, seed):
    fam, draw = FAMILIES[name]
    rng = np.random.default_rng(100 + seed)
    n, m = 200, 25
    c = rng.normal(size=(n, m))
    eta = 0.3 + c[:, 2] * 0.9 - c[:, 7] * 0.7 + 0.5 * c[:, 15]
    y = draw(rng, eta)
    chosen, trace = naive_alpha_investing(y, np.ones((n, 1)), list(c.T), family=fam, test="score")
    fit = sr.select(y, c, family=name, method="alpha-investing", test="score", block_size=5)  # the naive loop's test
    assert fit.selected_terms == [f"x{j}" for j in chosen]
    tested = fit.history[fit.history["test"].notna()]
    np.testing.assert_allclose(tested["pvalue"], [t[1] for t in trace], rtol=1e-7)
    np.testing.assert_allclose(tested["level"], [t[2] for t in trace], rtol=1e-12)


def test_lr_search_matches_naive_loop():
    fam, draw = FAMILIES["binomial"]
    rng = np.random.default_rng(7)
    n, m = 150, 12
    c = rng.normal(size=(n, m))
    y = draw(rng, 1.2 * c[:, 1] - 0.8 * c[:, 6])
    chosen, trace = naive_alpha_investing(y, np.ones((n, 1)), list(c.T), family=fam, test="lr")
    fit = sr.select(y, c, family="binomial", method="alpha-investing", test="lr", block_size=4)
    assert fit.selected_terms == [f"x{j}" for j in chosen]
    tested = fit.history[fit.history["test"].notna()]
    np.testing.assert_allclose(tested["pvalue"], [t[1] for t in trace], rtol=1e-6)
