"""scipy.sparse candidate matrices as streams scored at sparse cost, deciding as the dense path.

The reference is the same search on the dense array (``X.toarray()``): the same candidates
tested in the same order with the same statuses, statistics within 1e-8 (the products are
summed in another order), the same refit.  Block scores are checked against
``reduce_single_columns`` of the dense (weighted) columns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import streamreg as sr
from streamreg.models.base import (
    COLLINEAR,
    CONSTANT,
    TESTED,
    reduce_single_columns,
    skip_codes,
)
from streamreg.streams.sparse import SparseBlock, SparseMatrixStream


def _problem(seed: int, family: str, n: int = 300, m: int = 600, density: float = 0.05):
    """Sparse non-negative counts (a bag of words), 4 informative columns made denser."""
    rng = np.random.default_rng(seed)
    x = sp.random(n, m, density=density, format="csc", random_state=seed,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    x = x.tolil()
    true = rng.choice(m, 4, replace=False)
    for j in true:
        x[:, j] = (rng.random((n, 1)) < 0.4) * rng.integers(1, 4, (n, 1))
    x = x.tocsc()
    eta = np.asarray(x[:, true] @ np.array([0.8, -0.8, 0.6, -0.6])).ravel()
    eta -= eta.mean()
    if family == "gaussian":
        y = eta + rng.normal(size=n)
    elif family == "binomial":
        y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    else:
        y = rng.poisson(np.exp(0.5 + 0.5 * eta)).astype(float)
    return y, x


def _assert_same(a, b) -> None:
    ha, hb = a.history, b.history
    assert ha["term"].tolist() == hb["term"].tolist()
    assert ha["status"].astype(str).tolist() == hb["status"].astype(str).tolist()
    np.testing.assert_allclose(ha["statistic"].to_numpy(float), hb["statistic"].to_numpy(float),
                               rtol=1e-8, atol=1e-12)
    assert a.selected_terms == b.selected_terms
    np.testing.assert_allclose(a.params.to_numpy(), b.params.to_numpy(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("family", ["gaussian", "binomial", "poisson"])
def test_sparse_searches_decide_as_dense_ones(seed, family):
    y, x = _problem(seed, family)
    sparse = sr.select(y, x, family=family)
    dense = sr.select(y, x.toarray(), family=family)
    _assert_same(sparse, dense)
    assert len(sparse.selected_terms) >= 1


@pytest.mark.parametrize("fmt", ["csr", "coo", "lil", "dok"])
def test_every_sparse_format_is_a_stream(fmt):
    y, x = _problem(5, "binomial")
    _assert_same(sr.select(y, x.asformat(fmt), family="binomial"), sr.select(y, x.toarray(), family="binomial"))


def test_sparse_arrays_and_several_streams():
    y, x = _problem(6, "gaussian")
    streams = {"a": sp.csr_array(x[:, :300]), "b": x[:, 300:].toarray()}
    out = sr.select(y, streams, w0=0.5, alpha_delta=0.5)
    ref = sr.select(y, {"a": x[:, :300].toarray(), "b": x[:, 300:].toarray()}, w0=0.5, alpha_delta=0.5)
    _assert_same(out, ref)


def test_weighted_binomial_with_offsets_decides_as_dense():
    y, x = _problem(7, "binomial")
    rng = np.random.default_rng(1)
    opts = {"freq_weights": rng.integers(0, 3, len(y)).astype(float), "offset": rng.normal(0, 0.2, len(y))}
    _assert_same(sr.select(y, x, family="binomial", w0=0.5, alpha_delta=0.5, **opts),
                 sr.select(y, x.toarray(), family="binomial", w0=0.5, alpha_delta=0.5, **opts))


@pytest.mark.parametrize("order", ["random", "given"])
def test_passes_reread_sparse_blocks(order):
    y, x = _problem(8, "gaussian")
    kw = {"method": "lord++", "alpha": 0.1, "w0": 0.1, "spending": "uniform", "passes": 3, "block_size": 7}
    sparse = sr.select(y, x, order=order, seed=2, **kw)
    _assert_same(sparse, sr.select(y, x.toarray(), order=order, seed=2, **kw))
    assert (sparse.history["pass"] > 1).any()


def test_a_sparse_pandas_frame_is_a_sparse_stream():
    y, x = _problem(9, "binomial")
    frame = pd.DataFrame.sparse.from_spmatrix(x, columns=[f"w{j}" for j in range(x.shape[1])])
    from streamreg.streams.inputs import as_streams

    assert isinstance(as_streams(frame, len(y))[0], SparseMatrixStream)
    _assert_same(sr.select(y, frame, family="binomial"),
                 sr.select(y, pd.DataFrame(x.toarray(), columns=frame.columns), family="binomial"))


def test_block_scores_equal_the_dense_reduction():
    rng = np.random.default_rng(3)
    n = 80
    q, _ = np.linalg.qr(np.column_stack([np.ones(n), rng.standard_normal(n)]))
    t = rng.standard_normal(n)
    t -= q @ (q.T @ t)
    qt = np.column_stack([q, t])
    dense = sp.random(n, 9, density=0.2, random_state=3).toarray()
    dense[:, 1] = 0.0  # empty
    dense[:, 2] = 5.0  # constant: collinear with the intercept
    dense[:, 3] *= 1e250  # out of range: rescored by value
    dense[:4, 4] = 1e-300
    dense[:, 5] = q[:, 1] * 3 + 1e-9 * dense[:, 0]  # nearly in the model's span
    block = SparseBlock(sp.csc_matrix(dense))
    with np.errstate(all="ignore"):
        for w in (rng.uniform(0.2, 2.0, n), None):
            gain, rank = block.reduce_single(qt, w)
            ref_gain, ref_rank = reduce_single_columns(qt, dense if w is None else w[:, None] * dense)
            np.testing.assert_array_equal(rank, ref_rank)
            np.testing.assert_allclose(gain, ref_gain, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(block.sq_norms(), (dense * dense).sum(axis=0), rtol=1e-12)
    assert block.constant_columns().tolist() == (np.ptp(dense, axis=0) == 0).tolist()
    codes = skip_codes(block, rank, np.full(9, 50))  # the unweighted ranks
    assert codes[1] == CONSTANT and codes[2] == CONSTANT and codes[0] == TESTED
    assert codes[5] in (TESTED, COLLINEAR)
    np.testing.assert_array_equal(block.tail(4).term(1), dense[:, [5]])


def test_constant_columns_with_stored_values():
    dense = np.array([[2.0, 0.0, 1.0], [2.0, 0.0, 0.0], [2.0, 0.0, 1.0]])
    m = sp.csc_matrix(dense)
    m[1, 1] = 0.0  # an explicitly stored zero
    assert SparseBlock(m).constant_columns().tolist() == [True, True, False]


def test_scoring_reads_only_the_stored_values(monkeypatch):
    """No dense copy of the block on the way: its dense form is never asked for."""
    y, x = _problem(4, "binomial", m=400)

    def no_dense(self):
        raise AssertionError("the block was made dense")

    monkeypatch.setattr(SparseBlock, "values", property(no_dense))
    out = sr.select(y, x, family="binomial")
    monkeypatch.undo()
    _assert_same(out, sr.select(y, x.toarray(), family="binomial"))


def test_sparse_inputs_with_bad_values_are_refused_clearly():
    y, x = _problem(2, "gaussian")
    x = x.tocsc(copy=True)
    x.data[3] = np.nan
    col = int(np.searchsorted(x.indptr, 3, side="right") - 1)
    with pytest.raises(ValueError, match=rf"candidate 'x{col}' contains NaN or infinite values"):
        sr.select(y, x)
    with pytest.raises(ValueError, match="has 299 rows, y has 300"):
        sr.select(y, x[:299])
    with pytest.raises(ValueError, match="is empty"):
        sr.select(y, sp.csc_matrix((300, 0)))


def test_sparse_time_follows_the_non_zeros():
    """A block of 20,000 columns with 0.1% non-zeros scores in a small part of a dense block's
    time (same n, same columns): proportional to the stored values, not to n x m."""
    rng = np.random.default_rng(0)
    n, m = 2_000, 20_000
    x = sp.random(n, m, density=0.001, format="csc", random_state=0)
    q, _ = np.linalg.qr(np.column_stack([np.ones(n), rng.standard_normal(n)]))
    qt = np.column_stack([q, rng.standard_normal(n)])
    block, dense = SparseBlock(x), x.toarray()
    best_sparse = min(_timed(lambda: block.reduce_single(qt, None)) for _ in range(3))
    best_dense = min(_timed(lambda: reduce_single_columns(qt, dense)) for _ in range(3))
    assert best_sparse < best_dense / 5


def _timed(fn) -> float:
    import time

    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


@pytest.mark.parametrize("order", ["variance", "corr"])
def test_orders_that_score_columns_work_on_sparse_streams(order):
    rng = np.random.default_rng(11)
    n, m = 200, 300
    x = sp.random(n, m, density=0.1, format="csc", random_state=11, data_rvs=rng.standard_normal)
    y = np.asarray(x[:, 7].toarray()).ravel() * 2 + rng.normal(size=n)
    sparse = sr.select(y, x, order=order)
    dense = sr.select(y, x.toarray(), order=order)
    _assert_same(sparse, dense)
    assert sparse.history["term"].iloc[0] == dense.history["term"].iloc[0]
