"""Re-reading re-offered candidates by position (streams/arrays.py: reread_columns): the values a
fancy index gives, read in place when they are one run, copied run by run when a few."""
import dataclasses

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.streams.arrays import reread_columns
from streamreg.streams.passes import PassesStream


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("positions", [np.r_[0:100, 102:150, 153:300], np.r_[5:40], np.arange(0, 300, 3), np.r_[7]])
def test_a_reread_holds_the_fancy_index_values(order, dtype, positions):
    rng = np.random.default_rng(0)
    x = np.asarray(rng.standard_normal((50, 300)) * 10, order=order).astype(dtype)
    block = reread_columns(x, positions)
    np.testing.assert_array_equal(block.values, np.asarray(x[:, positions], dtype=float))
    assert block.values.dtype == np.float64
    one_run = bool((np.diff(positions) == 1).all())
    assert np.shares_memory(block.values, x) == (one_run and dtype is np.float64)  # a run is read in place
    if not one_run and positions.size > 100 and order == "C":  # a few runs: copied in the matrix's layout
        assert block.values.flags.c_contiguous


def test_rereads_of_a_row_ordered_matrix_decide_as_copies(monkeypatch):
    """Re-offered runs of a C-ordered matrix are read in place: the decisions of re-offers that
    keep (column-ordered) copies of their values, statistics equal to rounding."""
    rng = np.random.default_rng(1)
    n, m = 400, 500
    x = rng.normal(size=(n, m))
    eta = x[:, rng.choice(m, 8, replace=False)] @ np.linspace(0.25, 0.6, 8)
    on_rejected = PassesStream.on_rejected

    def copy_always(self, block, positions, scored=None):
        on_rejected(self, dataclasses.replace(block, positions=None), positions, scored)

    for family, y in (("binomial", (rng.random(n) < 1 / (1 + np.exp(-2 * eta))).astype(float)),
                      ("gaussian", eta + rng.normal(size=n))):
        new = sr.select(y, x, family=family, passes=3)
        with monkeypatch.context() as mp:
            mp.setattr(PassesStream, "on_rejected", copy_always)
            old = sr.select(y, x, family=family, passes=3)
        assert (new.history["pass"] > 1).sum() > 0 and len(new.selected_terms) >= 3
        a, b = new.history, old.history
        pd.testing.assert_series_equal(a["term"], b["term"])
        pd.testing.assert_series_equal(a["status"], b["status"])
        np.testing.assert_allclose(a["statistic"].to_numpy(float), b["statistic"].to_numpy(float), rtol=1e-10, atol=1e-12)
