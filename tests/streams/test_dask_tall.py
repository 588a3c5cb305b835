"""Tall data in Dask: candidates scored by sums over row chunks give the in-memory decisions.

A block whose column chunk is too large to gather on one worker keeps its rows chunked;
``[Q t]' B`` and the column norms are summed over row chunks and the driver finishes the
statistics.  The decisions must be those of the numpy path and the refit that of
statsmodels on the gathered data.
"""
import numpy as np
import pytest
import statsmodels.api as sm
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.streams import dask_array
from streamreg.streams.dask_array import DaskArrayStream

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def tall():
    rng = np.random.default_rng(5)
    n, m = 6000, 90
    x = rng.standard_normal((n, m))
    x[:, 7] = 2.0  # constant: skipped
    x[:, 8] = x[:, 3] * 1e-200  # squared norm underflows: fetched and scored at a safe scale
    x[:, 9] = x[:, 5] + 1e-9 * rng.standard_normal(n)  # nearly collinear once x5 is in: recomputed exactly
    eta = 0.08 * x[:, [5, 40, 77]].sum(axis=1)
    y = eta + rng.standard_normal(n)
    yb = (rng.random(n) < 1 / (1 + np.exp(-3 * eta))).astype(float)
    yp = rng.poisson(np.exp(0.5 + 2 * eta)).astype(float)
    return x, {"gaussian": y, "binomial": yb, "poisson": yp}


def _same(fit, ref, rtol=1e-9):
    h, r = fit.history, ref.history
    assert list(h["term"]) == list(r["term"])
    assert list(h["status"]) == list(r["status"])
    # sums over row chunks round differently from one GEMM; small statistics lose the most
    np.testing.assert_allclose(h["statistic"].to_numpy(), r["statistic"].to_numpy(), rtol=rtol, atol=1e-10)
    assert fit.selected_terms == ref.selected_terms
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)


def _stream(x, chunks):
    return DaskArrayStream("x", da.from_array(x, chunks=chunks), rows="reduce")


@pytest.mark.parametrize("family", ["gaussian", "binomial", "poisson"])
@pytest.mark.parametrize("chunks", [(1000, 90), (1500, 40), (777, 13)])
def test_row_sums_give_the_in_memory_decisions(tall, family, chunks):
    x, ys = tall
    ref = sr.select(ys[family], x, family=family, passes=1, **ONE_PHASE)
    assert len(ref.selected_terms) >= 2
    stream = _stream(x, chunks)
    assert stream.by_rows
    _same(sr.select(ys[family], stream, family=family, passes=1, **ONE_PHASE), ref)


@pytest.mark.parametrize("method", ["lord++", "stepwise-bic"])
def test_other_rules_on_the_cluster(client, tall, method):
    x, ys = tall
    ref = sr.select(ys["gaussian"], x, method=method)
    _same(sr.select(ys["gaussian"], _stream(x, (1200, 30)), method=method), ref)


def test_the_refit_is_statsmodels_on_the_gathered_data(client, tall):
    x, ys = tall
    fit = sr.select(da.from_array(ys["binomial"], chunks=1000), _stream(x, (1000, 45)), family="binomial", passes=1, **ONE_PHASE)
    cols = [int(t[1:]) for t in fit.selected_terms]
    model = sm.GLM(ys["binomial"], sm.add_constant(x[:, cols]), family=sm.families.Binomial())
    sm_fit = model.fit(start_params=model.fit().params)  # covariance at the converged MLE
    np.testing.assert_allclose(fit.params.to_numpy(), sm_fit.params, rtol=1e-8)
    np.testing.assert_allclose(fit.bse.to_numpy(), sm_fit.bse, rtol=1e-8)
    np.testing.assert_allclose(fit.pvalues.to_numpy(), sm_fit.pvalues, rtol=1e-8)


def test_large_column_chunks_are_summed_over_rows_by_default(tall, monkeypatch):
    x, ys = tall
    small = da.from_array(x, chunks=(1000, 90))
    assert not DaskArrayStream("x", small).by_rows  # 6000 x 90 doubles: gathered
    monkeypatch.setattr(dask_array, "GATHER_BYTES", 1000 * 90 * 8)
    assert DaskArrayStream("x", small).by_rows
    assert not DaskArrayStream("x", da.from_array(x, chunks=(6000, 10))).by_rows  # one row chunk
    _same(sr.select(ys["gaussian"], small, passes=1, **ONE_PHASE), sr.select(ys["gaussian"], x, passes=1, **ONE_PHASE))


def test_a_bad_rows_option_is_named(tall):
    x, _ = tall
    with pytest.raises(ValueError, match="rows must be one of 'auto', 'gather', 'reduce', got 'split'"):
        DaskArrayStream("x", da.from_array(x, chunks=(1000, 90)), rows="split")
