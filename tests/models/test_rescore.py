"""Least-squares rescoring after an acceptance by rank-one updates (models/rescore.py),
against statsmodels' OLS t tests and against a fresh scoring of the same block."""
import numpy as np
import pytest
import statsmodels.api as sm
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.models.base import CandidateBlock
from streamreg.models.gaussian import GaussianState
from streamreg.models.rescore import KeptProducts
from streamreg.streams import passes


def _ols_t(y, design, cols):
    """statsmodels' t statistic of each column of ``cols`` added alone to ``design``."""
    return np.array([sm.OLS(y, np.column_stack([design, c])).fit().tvalues[-1] for c in cols.T])


@pytest.mark.parametrize("seed", range(4))
def test_rescored_block_equals_statsmodels_and_a_fresh_score(seed):
    rng = np.random.default_rng(seed)
    n, m = 400, 30
    x = rng.standard_normal((n, m))
    # near-collinear with a column accepted below: its residual norm is recomputed explicitly
    # (1e-5 of its squared norm left), yet not so close that statsmodels loses digits
    x[:, 5] = x[:, 2] + 3e-3 * rng.standard_normal(n)
    x[:, 9] *= 1e-200  # out of floating-point range for the products: rescored at another scale
    extra = rng.standard_normal((n, 2))  # a two-column term from elsewhere
    y = x[:, 2] - x[:, 11] + extra @ [0.5, -0.5] + rng.standard_normal(n)
    state = GaussianState(y, np.ones((n, 1)))
    block = CandidateBlock(x)
    state.score_block(block)
    design = np.ones((n, 1))
    # accept a column of the block, a two-column term, then two columns at once (the block is
    # rescored after one, after two directions, and after a tail is taken)
    for accepted, tail_from in ((x[:, [2]], 0), (extra, 3), (x[:, [11]], 12), (x[:, [0]], 12)):
        state.accept(accepted)
        design = np.column_stack([design, accepted])
        block = block.tail(tail_from) if tail_from else block
        if accepted is extra:
            continue  # scored after the next acceptance: two acceptances between scorings
        out, codes = state.score_block(block)
        assert block.projections is not None and block.projections.qb.shape[0] == state.k
        fresh, fresh_codes = state.score_block(CandidateBlock(np.array(block.values)))
        np.testing.assert_array_equal(codes, fresh_codes)
        np.testing.assert_allclose(out.statistic, fresh.statistic, rtol=1e-10, atol=1e-12)
        cols = block.values
        keep = codes == 0  # tested (the columns already in the model are collinear)
        ref = _ols_t(y, design, cols[:, keep] * np.where(np.abs(cols[:, keep]).max(0) < 1e-100, 1e200, 1.0)) ** 2
        np.testing.assert_allclose(out.statistic[keep], ref, rtol=1e-10)


def test_a_block_scored_by_another_state_is_scored_afresh():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((200, 12)), rng.standard_normal(200)
    a, b = GaussianState(y, np.ones((200, 1))), GaussianState(y, np.column_stack([np.ones(200), x[:, 0]]))
    block = CandidateBlock(x[:, 1:])
    a.score_block(block)
    out, _ = b.score_block(block)
    design = np.column_stack([np.ones(200), x[:, 0]])
    np.testing.assert_allclose(out.statistic, _ols_t(y, design, x[:, 1:]) ** 2, rtol=1e-10)


def _replayed_pvalues(y, x, history):
    """Each tested candidate's OLS t-test p-value in the model of the terms accepted before it."""
    names = {f"x{j}": j for j in range(x.shape[1])}
    accepted: list[int] = []
    out = []
    for term, status in zip(history["term"], history["status"].astype(str)):
        design = np.column_stack([np.ones(len(y))] + [x[:, j] for j in accepted])
        out.append(sm.OLS(y, np.column_stack([design, x[:, names[term]]])).fit().pvalues[-1])
        if status == "accepted":
            accepted.append(names[term])
    return np.array(out)


@pytest.mark.parametrize(("n", "m", "seed", "block_size"), [
    (8_000, 60, 0, 512), (8_000, 60, 1, 7), (200, 300, 2, 64), (200, 300, 3, 512), (150, 80, 4, 13),
])
def test_select_history_equals_statsmodels(n, m, seed, block_size):
    """Tall and wide problems over three passes of the one-phase rule (the rescoring's subject;
    the default's confirmation tests against other models): every tested candidate's p-value
    is statsmodels' OLS t-test in the model of the terms accepted before it."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m)) + 0.3 * rng.standard_normal((n, 1))
    true = rng.choice(m, 5, replace=False)
    scale = 8.0 / np.sqrt(n)  # t statistics about 8: found at any n
    y = x[:, true] @ (scale * np.array([1.0, -1.0, 1.0, -1.0, 0.7])) + rng.standard_normal(n)
    fit = sr.select(y, x, block_size=block_size, passes=3, **ONE_PHASE)
    hist = fit.history[fit.history["test"].notna()]
    assert len(fit.selected_terms) >= 2  # acceptances happened, so blocks were rescored
    ref = _replayed_pvalues(y, x, hist)
    np.testing.assert_allclose(hist["pvalue"].to_numpy(), ref, rtol=1e-10, atol=1e-300)



def test_a_reoffered_block_resumes_from_the_products_its_last_test_kept():
    """A block read again in a later pass starts from its kept products against the model as it
    was, and is multiplied by the directions accepted since: the scores of a fresh scoring and
    statsmodels' t tests."""
    rng = np.random.default_rng(8)
    n = 3000
    x, extra = rng.standard_normal((n, 20)), rng.standard_normal((n, 4))
    y = extra @ [0.4, -0.3, 0.2, 0.1] + rng.standard_normal(n)
    state = GaussianState(y, np.ones((n, 1)))
    first = CandidateBlock(x)
    state.score_block(first)
    kept = KeptProducts.of(first, np.arange(20))
    assert kept is not None and KeptProducts.small_beside(first)
    for j in range(4):  # four directions enter before the candidates come round again
        state.accept(extra[:, j])
    again = CandidateBlock(np.array(x))
    state.resume_products(again, kept)
    assert again.projections is not None and again.projections.qb.shape[0] == 1
    out, codes = state.score_block(again)
    fresh, fresh_codes = state.score_block(CandidateBlock(np.array(x)))
    np.testing.assert_array_equal(codes, fresh_codes)
    np.testing.assert_allclose(out.statistic, fresh.statistic, rtol=1e-12)
    design = np.column_stack([np.ones(n), extra])
    np.testing.assert_allclose(out.statistic, _ols_t(y, design, x) ** 2, rtol=1e-10)
    # products of another model's basis do not apply: the block is scored afresh
    other = GaussianState(y, np.ones((n, 1)))
    third = CandidateBlock(np.array(x))
    other.resume_products(third, kept)
    assert third.projections is None


def test_wide_blocks_keep_no_products_for_a_reoffer():
    rng = np.random.default_rng(9)
    state = GaussianState(rng.standard_normal(200), np.ones((200, 1)))
    block = CandidateBlock(rng.standard_normal((200, 50)))
    state.score_block(block)
    assert not KeptProducts.small_beside(block)  # 3 numbers per candidate beside 200 values


def test_select_decides_as_without_the_kept_products(monkeypatch):
    rng = np.random.default_rng(10)
    n, m = 6000, 90
    x = rng.standard_normal((n, m))
    y = x[:, [4, 30, 31, 70]] @ np.array([0.1, -0.1, 0.08, 0.1]) + rng.standard_normal(n)
    monkeypatch.setattr(passes, "JOIN_CELLS", 1)  # re-offers stay the blocks they were (as tall ones do)
    resumed = []
    real = KeptProducts.resume
    monkeypatch.setattr(KeptProducts, "resume", lambda self, b, basis: resumed.append(1) or real(self, b, basis))
    with_kept = sr.select(y, x, block_size=30)
    assert resumed and len(with_kept.selected_terms) >= 2  # the second pass started from the first's products
    monkeypatch.setattr(KeptProducts, "small_beside", staticmethod(lambda block: False))
    without = sr.select(y, x, block_size=30)
    a, b = with_kept.history, without.history
    assert list(a["term"]) == list(b["term"]) and list(a["status"]) == list(b["status"])
    np.testing.assert_allclose(a["statistic"].to_numpy(float), b["statistic"].to_numpy(float), rtol=1e-10)


def test_outcomes_reused_in_the_last_pass_keep_their_products_for_the_confirmation(monkeypatch):
    """Candidates rejected against the final screened model in the first pass are not scored
    again in the second (same model): they keep the first pass's products, so a confirmation
    that drops screened terms scores them from products instead of reading them again."""
    rng = np.random.default_rng(0)
    n, m = 4000, 120
    x = np.asfortranarray(rng.standard_normal((n, m)))
    y = x[:, [20, 100]] @ np.array([2.6 / np.sqrt(n), 0.2]) + rng.standard_normal(n)
    joined = sr.select(y, x, block_size=40)
    monkeypatch.setattr(passes, "JOIN_CELLS", 1)  # re-offers stay the blocks they were (as tall ones do)
    reads = []
    real = passes.PassesStream.read
    monkeypatch.setattr(passes.PassesStream, "read", lambda self, entry: reads.append(len(entry)) or real(self, entry))
    fit = sr.select(y, x, block_size=40)
    h = fit.history
    assert (h["status"].astype(str) == "screened in").sum() > len(fit.selected_terms)  # the confirmation dropped some
    assert sum(reads) == int((h["pass"] == 2).sum())  # the second pass read its re-offers; the confirmation none
    assert list(h["term"]) == list(joined.history["term"]) and list(h["status"]) == list(joined.history["status"])
    np.testing.assert_allclose(h["statistic"].to_numpy(float), joined.history["statistic"].to_numpy(float),
                               rtol=1e-10, atol=1e-12)
