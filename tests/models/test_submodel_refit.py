"""``refit(..., within=True)``: a sub-model of the current one, refitted faster, the same model.

Least squares rotates the current basis (``Q U``) instead of orthogonalising the columns again;
a GLM starts IRLS from the projected linear predictor.  Both must give the plain refit's state:
the same residual and scores (least squares, to rounding), the same estimate (GLM, against
statsmodels' own fit of the sub-model).
"""
from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from streamreg.models.base import CandidateBlock
from streamreg.models.basis import Basis
from streamreg.models.gaussian import GaussianState
from streamreg.models.glm import GLMState
from streamreg.models.observation_weights import ObservationWeights


def _data(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 6)) * np.array([1.0, 1e3, 1e-3, 1.0, 5.0, 1.0])
    y = x[:, :4] @ np.array([0.5, -2e-3, 300.0, 0.4]) + rng.standard_normal(n)
    return y, x, rng.standard_normal((n, 9))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("keep", [[0, 1, 2], [3], [], [0, 2, 3]])
def test_gaussian_submodel_equals_the_plain_refit(weighted, keep):
    y, x, cands = _data()
    weights = ObservationWeights(var_weights=np.linspace(0.5, 2.0, len(y))) if weighted else None
    fixed = np.ones((len(y), 1))
    full = GaussianState(y, fixed, weights=weights)
    for j in range(4):
        full.accept(x[:, j])
    terms = [x[:, j] for j in keep]
    fast, plain = full.refit(fixed, terms, within=True), full.refit(fixed, terms)
    assert fast.k == plain.k == 1 + len(keep)
    np.testing.assert_allclose(fast.resid, plain.resid, rtol=1e-10, atol=1e-12 * np.abs(plain.resid).max())
    assert fast.rss == pytest.approx(plain.rss, rel=1e-12)
    (a, _), (b, _) = fast.score_block(CandidateBlock(cands)), plain.score_block(CandidateBlock(cands))
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-10)
    np.testing.assert_allclose(fast.basis.q.T @ fast.basis.q, np.eye(fast.k), atol=1e-14)
    assert full.k == 5  # the state refitted from is unchanged


def test_gaussian_submodel_t_test_equals_statsmodels():
    y, x, _ = _data(1)
    fixed = np.ones((len(y), 1))
    full = GaussianState(y, fixed)
    for j in range(4):
        full.accept(x[:, j])
    reduced = full.refit(fixed, [x[:, 0], x[:, 2], x[:, 3]], within=True)
    out, _ = reduced.score_block(CandidateBlock(x[:, [1]]))
    ref = sm.OLS(y, sm.add_constant(x[:, [0, 2, 3, 1]])).fit()
    assert float(out.statistic[0]) == pytest.approx(float(ref.tvalues[-1]) ** 2, rel=1e-9)


def _full_model(y, x, fixed):
    full = GaussianState(y, fixed)
    for j in range(4):
        full.accept(x[:, j])
    return full


def test_gaussian_submodel_tests_a_term_of_its_parent_from_the_parents_products():
    y, x, _ = _data(1)
    fixed = np.ones((len(y), 1))
    full = _full_model(y, x, fixed)
    # a backward elimination's step: the term left out, tested against the others
    reduced = full.refit(fixed, [x[:, 0], x[:, 2], x[:, 3]], within=True)
    out, codes = reduced.score_block(CandidateBlock(x[:, [1]]))
    assert reduced._pending is not None  # no n-row basis formed for this test
    ref = sm.OLS(y, sm.add_constant(x[:, [0, 2, 3, 1]])).fit()
    assert float(out.statistic[0]) == pytest.approx(float(ref.tvalues[-1]) ** 2, rel=1e-9)
    assert int(codes[0]) == 0 and reduced.k == 4
    small = sm.OLS(y, sm.add_constant(x[:, [0, 2, 3]])).fit()
    assert reduced.rss == pytest.approx(small.ssr, rel=1e-12)
    assert reduced.loglik == pytest.approx(small.llf, rel=1e-12)


def test_gaussian_submodel_scores_near_copies_and_others_as_the_plain_refit():
    y, x, cands = _data(2)
    rng = np.random.default_rng(5)
    fixed = np.ones((len(y), 1))
    full = _full_model(y, x, fixed)
    terms = [x[:, 0], x[:, 3]]
    # a near copy of a kept term (its residual norm is recomputed from its values, which forms
    # the sub-model's basis), a dropped term and new candidates
    near = x[:, 0] + 1e-9 * rng.standard_normal(len(y))
    block = np.column_stack([near, x[:, 2], cands])
    fast, plain = full.refit(fixed, terms, within=True), full.refit(fixed, terms)
    (a, ca), (b, cb) = fast.score_block(CandidateBlock(block)), plain.score_block(CandidateBlock(block))
    np.testing.assert_array_equal(ca, cb)
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-8)
    assert fast._pending is None  # the near copy needed the basis


def test_gaussian_submodel_stays_right_after_its_parent_moves_on():
    y, x, cands = _data(3)
    fixed = np.ones((len(y), 1))
    full = _full_model(y, x, fixed)
    terms = [x[:, 1], x[:, 2]]
    fast, plain = full.refit(fixed, terms, within=True), full.refit(fixed, terms)
    full.accept(x[:, 4])  # the parent's basis grows and its residual moves
    (a, _), (b, _) = fast.score_block(CandidateBlock(x[:, [0, 3]])), plain.score_block(CandidateBlock(x[:, [0, 3]]))
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-10)
    np.testing.assert_allclose(fast.resid, plain.resid, rtol=1e-10, atol=1e-12 * np.abs(plain.resid).max())
    (a, _), (b, _) = fast.score_block(CandidateBlock(cands)), plain.score_block(CandidateBlock(cands))
    np.testing.assert_allclose(a.statistic, b.statistic, rtol=1e-10)


def test_gaussian_submodel_with_collinear_fixed_terms_is_refused():
    y, x, _ = _data()
    fixed = np.ones((len(y), 1))
    full = GaussianState(y, fixed)
    full.accept(x[:, 0])
    with pytest.raises(ValueError, match="the fixed terms are collinear"):
        full.refit(np.column_stack([fixed, 2 * fixed]), [], within=True)


@pytest.mark.parametrize("family", [sm.families.Binomial(), sm.families.Poisson()])
def test_glm_submodel_equals_statsmodels(family):
    rng = np.random.default_rng(2)
    n = 400
    x = rng.standard_normal((n, 4))
    eta = 0.3 + x @ np.array([0.8, -0.6, 0.5, 0.05])
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float) if isinstance(family, sm.families.Binomial) \
        else rng.poisson(np.exp(eta)).astype(float)
    fixed = np.ones((n, 1))
    full = GLMState(y, fixed, family)
    for j in range(4):
        assert full.accept(x[:, j]) is None
    reduced = full.refit(fixed, [x[:, 0], x[:, 2]], within=True)
    ref = sm.GLM(y, np.column_stack([fixed, x[:, [0, 2]]]), family=family).fit(tol=1e-12)
    assert reduced.k == 3 and np.isfinite(np.asarray(reduced.result.params)).all()
    np.testing.assert_allclose(reduced.llf, ref.llf, rtol=1e-12)
    np.testing.assert_allclose(reduced.x @ np.asarray(reduced.result.params),
                               np.column_stack([fixed, x[:, [0, 2]]]) @ np.asarray(ref.params), rtol=1e-8, atol=1e-10)


def test_basis_target_slot_is_a_view_until_the_next_append():
    rng = np.random.default_rng(3)
    basis = Basis(50, capacity=1)
    cols = rng.standard_normal((50, 3))
    for j in range(3):  # grows past the first capacity, keeping the spare column
        basis.append(cols[:, j])
        t = rng.standard_normal(50)
        qt = basis.with_target(t)
        assert qt.shape == (50, basis.k + 1) and np.shares_memory(qt, basis.q)
        np.testing.assert_array_equal(qt[:, -1], t)
        np.testing.assert_array_equal(qt[:, :-1], basis.q)
    np.testing.assert_allclose(basis.q.T @ basis.q, np.eye(3), atol=1e-15)
    q, _ = np.linalg.qr(cols[:, :2])
    t = rng.standard_normal(50)
    u, _ = np.linalg.qr(rng.standard_normal((2, 2)))
    d = rng.standard_normal(2)
    rotation = np.zeros((3, 3))
    rotation[:2, :2], rotation[:2, 2], rotation[2, 2] = u, d, 1.0
    target = basis.set_rotated(np.column_stack([q, t]), rotation)
    assert basis.k == 2
    np.testing.assert_allclose(basis.q, q @ u, rtol=0, atol=1e-15)
    np.testing.assert_allclose(target, t + q @ d, rtol=0, atol=1e-14)
    assert np.shares_memory(target, basis.with_target(target))
