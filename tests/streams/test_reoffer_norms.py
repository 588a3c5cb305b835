"""Re-offered and held candidates carry the squared norms their first pass computed, and a
stream held in memory on tall data is read in blocks of at most ``TALL_BLOCK_CELLS`` values;
neither changes a decision."""
from __future__ import annotations

import numpy as np
import pandas as pd

import streamreg as sr
import streamreg.search.streamwise_run as run_module
from streamreg.models.base import CandidateBlock, column_norms
from streamreg.streams.arrays import MatrixStream
from streamreg.streams.base import TermBlock
from streamreg.streams.passes import PassesStream


def test_a_reread_reoffer_has_the_first_pass_norms():
    rng = np.random.default_rng(0)
    x = np.asfortranarray(rng.standard_normal((30, 12)))
    stream = PassesStream(MatrixStream("x", x, [f"x{j}" for j in range(12)]), 2)
    first = stream.take(12)
    assert isinstance(first, TermBlock) and isinstance(first.block, CandidateBlock)
    first.block.sq_norms()
    stream.on_rejected(first, np.array([1, 4, 5, 9]))
    again = stream.take(12)
    assert again is not None and again.pass_no == 2
    assert isinstance(again.block, CandidateBlock) and again.block.norm2 is not None
    np.testing.assert_allclose(again.block.norm2, column_norms(x[:, [1, 4, 5, 9]]), rtol=1e-14)


def test_tall_blocks_are_capped_and_decide_as_before(monkeypatch):
    rng = np.random.default_rng(1)
    n, m = 400, 120
    x = np.asfortranarray(rng.standard_normal((n, m)))
    y = x[:, [10, 50, 100]] @ np.array([0.6, -0.6, 0.6]) + rng.standard_normal(n)
    ref = sr.select(y, x)
    taken: list[int] = []
    original = MatrixStream._next_block

    def spy(self, k):
        block = original(self, k)
        if block is not None:
            taken.append(len(block))
        return block

    monkeypatch.setattr(run_module, "TALL_BLOCK_CELLS", 8 * n)  # 8 columns at most
    monkeypatch.setattr(MatrixStream, "_next_block", spy)
    capped = sr.select(y, x)
    assert taken and max(taken) <= 8
    assert capped.selected_terms == ref.selected_terms
    cols = ["term", "status", "statistic", "pvalue"]
    a, b = capped.history[cols], ref.history[cols]
    pd.testing.assert_frame_equal(a[["term", "status"]], b[["term", "status"]])
    np.testing.assert_allclose(a["statistic"], b["statistic"], rtol=1e-10)
