"""A GLM sub-model refitted within its parent (the confirmation's drop-one model) tests one
left-out term from sums over the rows (:mod:`streamreg.models.glm_gram`) without forming its
weighted basis.  The statistic must be statsmodels' score test of the sub-model plus the term
(the robust score test, for the families tested with an estimated dispersion: numpy's QR of the
weighted design), and the basis path's number to rounding; near-collinear terms, ill-conditioned
designs and the LR test take the basis path."""
from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from naive import score_test

import streamreg as sr
from streamreg.models import glm
from streamreg.models.base import CandidateBlock
from streamreg.models.family_classes import NegBin
from streamreg.models.glm import GLMState
from streamreg.models.glm_gram import GRAM_MARGIN, single_term_products
from streamreg.models.negbin import NegBinState
from streamreg.models.observation_weights import ObservationWeights
from streamreg.models.robust_score import robust_score_block

FAMILIES = {"binomial": sm.families.Binomial(), "poisson": sm.families.Poisson()}


def _problem(name: str, seed: int = 0, n: int = 500):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)) * np.array([1.0, 1e3, 1.0, 1e-2])
    x[:, 2] += 0.6 * x[:, 0]  # correlated, well inside the margin
    eta = 0.2 + x @ np.array([0.7, -4e-4, 0.5, 30.0])
    y = rng.binomial(1, 1 / (1 + np.exp(-eta))) if name == "binomial" else rng.poisson(np.exp(0.3 * eta))
    return y.astype(float), np.ones((n, 1)), x


def _screened(name: str, weights: ObservationWeights | None = None, test: str = "score", seed: int = 0):
    y, fixed, x = _problem(name, seed)
    state = GLMState(y, fixed, FAMILIES[name], weights=weights, test=test)
    for j in range(4):
        assert state.accept(x[:, j]) is None
    return y, fixed, x, state


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("left_out", [0, 1, 3])
def test_left_out_term_from_sums_equals_statsmodels(name, left_out):
    y, fixed, x, state = _screened(name)
    others = [x[:, j] for j in range(4) if j != left_out]
    reduced = state.refit(fixed, others, within=True)
    out, codes = reduced.score_block(CandidateBlock(x[:, [left_out]]))
    assert reduced._basis_pending  # tested from sums: no basis formed
    design = np.column_stack([fixed, *others])
    ref = sm.GLM(y, design, family=FAMILIES[name]).fit(tol=1e-13, maxiter=200)
    stat, p, _ = score_test(ref, x[:, [left_out]], observed=False)
    assert codes.tolist() == [0]
    assert out.statistic[0] == pytest.approx(stat, rel=1e-9)
    assert np.exp(out.log_p[0]) == pytest.approx(p, rel=1e-9)
    # the basis path's number, from the same fit
    plain, _ = _materialised(reduced).score_block(CandidateBlock(x[:, [left_out]]))
    assert out.statistic[0] == pytest.approx(plain.statistic[0], rel=1e-11)


@pytest.mark.parametrize("field", ["basis", "z_resid", "restricted_score", "pearson_resid", "_qz"])
def test_basis_fields_are_read_only(field):
    y, fixed, x, state = _screened("binomial")
    reduced = state.refit(fixed, [x[:, 0]], within=True)
    with pytest.raises(AttributeError, match=f"'{field}' of a GLM state is read-only"):
        setattr(reduced, field, None)
    assert reduced._basis_pending  # the refused assignment formed nothing
    assert getattr(reduced, field) is not None and not reduced._basis_pending


def _materialised(state: GLMState) -> GLMState:
    state._form_basis()
    assert not state._basis_pending
    return state


def test_weights_and_offset_are_in_the_sums():
    n = 500
    rng = np.random.default_rng(4)
    weights = ObservationWeights(var_weights=rng.random(n) + 0.5, offset=0.1 * rng.standard_normal(n))
    y, fixed, x, state = _screened("poisson", weights=weights)
    reduced = state.refit(fixed, [x[:, 0], x[:, 1], x[:, 3]], within=True)
    out, _ = reduced.score_block(CandidateBlock(x[:, [2]]))
    assert reduced._basis_pending
    plain, _ = _materialised(reduced).score_block(CandidateBlock(x[:, [2]]))
    assert out.statistic[0] == pytest.approx(plain.statistic[0], rel=1e-11)


def test_near_collinear_term_and_other_tests_take_the_basis_path():
    y, fixed, x, state = _screened("binomial")
    reduced = state.refit(fixed, [x[:, 0], x[:, 1], x[:, 3]], within=True)
    near = x[:, [0]] + 1e-3 * np.random.default_rng(5).standard_normal((len(y), 1))  # inside the margin
    out, _ = reduced.score_block(CandidateBlock(near))
    assert not reduced._basis_pending  # formed: the sums would lose digits
    fresh = GLMState(y, np.column_stack([fixed, x[:, [0, 1, 3]]]), FAMILIES["binomial"])
    ref, _ = fresh.score_block(CandidateBlock(near))
    assert out.statistic[0] == pytest.approx(ref.statistic[0], rel=1e-7)
    for test in ("score-f", "lr"):
        _, _, _, other = _screened("poisson", test=test)
        sub = other.refit(fixed, [x[:, 0], x[:, 1], x[:, 3]], within=True)
        sub.score_block(CandidateBlock(x[:, [2]]))
        assert not sub._basis_pending
    two, _ = state.refit(fixed, [x[:, 0]], within=True).score_block(CandidateBlock(x[:, [1, 2]]))
    assert len(two.statistic) == 2  # several terms: the basis path


def test_ill_conditioned_design_declines_the_sums():
    rng = np.random.default_rng(6)
    n = 300
    a = rng.standard_normal(n)
    x = np.asfortranarray(np.column_stack([np.ones(n), a, a + 1e-3 * rng.standard_normal(n)]))
    sw, z, b = rng.random(n) + 0.5, rng.standard_normal(n), rng.standard_normal(n)
    assert single_term_products(x, sw, z, b) is None
    assert single_term_products(x[:, :2].copy(order="F"), sw, z, b) is not None
    # a term that keeps less than the margin of its norm outside the design's span
    inside = x[:, 1] + np.sqrt(GRAM_MARGIN / 4) * rng.standard_normal(n)
    assert single_term_products(x[:, :2].copy(order="F"), sw, z, inside) is None


@pytest.mark.parametrize(("family", "sums"), [("binomial", "single_term_products"),
                                               ("poisson", "single_term_robust")])
def test_the_confirmation_uses_the_sums(monkeypatch, family, sums):
    """The default search's drop-one tests go through the sums (the robust test's for Poisson,
    tested with an estimated dispersion), and decide as the basis path."""
    y, _, x = _problem(family, seed=1, n=400)
    cands = np.column_stack([x, np.random.default_rng(1).standard_normal((400, 30))])
    calls = []
    real = getattr(glm, sums)

    def counting(*args):
        found = real(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(glm, sums, counting)
    fast = sr.select(y, cands, family=family)
    assert calls and all(calls)
    monkeypatch.setattr(glm, sums, lambda *args: None)
    plain = sr.select(y, cands, family=family)
    assert fast.selected_terms == plain.selected_terms
    np.testing.assert_allclose(fast.history["statistic"].to_numpy(float), plain.history["statistic"].to_numpy(float),
                               rtol=1e-10)


def _robust_reference(y, design, b, family):
    """Boos's robust score statistic from statsmodels' fit of the sub-model and numpy's QR."""
    fit = sm.GLM(y, design, family=family).fit(tol=1e-13, maxiter=200)
    mu = np.asarray(fit.fittedvalues)
    var = family.variance(mu)
    sw = np.sqrt(1.0 / (family.link.deriv(mu) ** 2 * var))
    z = (y - mu) / np.sqrt(var)
    q = np.linalg.qr(sw[:, None] * design)[0]
    a = sw * b
    a_resid, z_resid = a - q @ (q.T @ a), z - q @ (q.T @ z)
    return float((a_resid @ z_resid) ** 2 / ((a_resid**2) @ (z_resid**2)))


@pytest.mark.parametrize("left_out", [0, 2, 3])
def test_robust_drop_one_test_from_sums_equals_the_reference(left_out):
    """score-f families confirm with the robust score test: from sums too, as numpy's QR gives it."""
    y, fixed, x, state = _screened("poisson", test="score-f")
    others = [x[:, j] for j in range(4) if j != left_out]
    reduced = state.refit(fixed, others, within=True)
    out, codes = robust_score_block(reduced, CandidateBlock(x[:, [left_out]]))
    assert reduced._basis_pending and codes.tolist() == [0]
    ref = _robust_reference(y, np.column_stack([fixed, *others]), x[:, left_out], FAMILIES["poisson"])
    assert out.statistic[0] == pytest.approx(ref, rel=1e-8)
    plain, _ = robust_score_block(_materialised(reduced), CandidateBlock(x[:, [left_out]]))
    assert out.statistic[0] == pytest.approx(plain.statistic[0], rel=1e-11)


def test_negative_binomial_drop_one_from_sums(monkeypatch):
    """glm.nb's sub-models (theta estimated again) defer their basis too; the same decisions."""
    rng = np.random.default_rng(7)
    n = 600
    x = rng.standard_normal((n, 4))
    mu = np.exp(0.5 + x @ np.array([0.5, -0.4, 0.3, 0.2]))
    y = rng.negative_binomial(2.0, 2.0 / (2.0 + mu)).astype(float)
    fixed = np.ones((n, 1))
    state = NegBinState(y, fixed, NegBin())
    for j in range(4):
        assert state.accept(x[:, j]) is None
    reduced = state.refit(fixed, [x[:, 0], x[:, 1], x[:, 3]], within=True)
    out, _ = reduced.score_block(CandidateBlock(x[:, [2]]))
    assert reduced._basis_pending
    plain, _ = _materialised(reduced).score_block(CandidateBlock(x[:, [2]]))
    assert out.statistic[0] == pytest.approx(plain.statistic[0], rel=1e-11)
    cands = np.column_stack([x, rng.standard_normal((n, 20))])
    calls = []
    real = glm.single_term_products
    monkeypatch.setattr(glm, "single_term_products", lambda *args: calls.append(1) or real(*args))
    fast = sr.select(y, cands, family="negbin")
    assert calls  # the confirmation's drop-one tests went through the sums
    monkeypatch.setattr(glm, "single_term_products", lambda *args: None)
    slow = sr.select(y, cands, family="negbin")
    assert fast.selected_terms == slow.selected_terms and len(fast.selected_terms) >= 3
    np.testing.assert_allclose(fast.history["statistic"].to_numpy(float), slow.history["statistic"].to_numpy(float),
                               rtol=1e-10)
