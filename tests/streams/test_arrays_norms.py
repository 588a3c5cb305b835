"""Squared column norms of an in-memory matrix stream: computed over wide slices, the same
numbers and decisions whatever the block size."""
from __future__ import annotations

import numpy as np

import streamreg as sr
from streamreg.models.base import CandidateBlock
from streamreg.streams.arrays import MatrixStream
from streamreg.streams.base import NameRange


def test_block_norms_equal_the_blocks_own_and_do_not_depend_on_the_block_size():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 1000)) * rng.uniform(0.1, 10, size=1000)
    for k in (7, 64, 1000):
        st = MatrixStream("x", x, NameRange("x", 0, 1000))
        parts = []
        while (block := st.take(k)) is not None:
            assert block.block.norm2 is not None
            np.testing.assert_allclose(block.block.norm2, CandidateBlock(block.block.values.copy()).sq_norms(),
                                       rtol=1e-14)
            parts.append(block.block.norm2)
        norms = np.concatenate(parts)
        if k == 7:
            first = norms
        np.testing.assert_array_equal(norms, first)
        np.testing.assert_allclose(norms, (x ** 2).sum(axis=0), rtol=1e-13)


def test_ordered_and_integer_matrices(monkeypatch):
    # the stream's own norm pass is numpy's path: under numba a column-ordered block (the
    # permuted columns' copy is one) gets its norms from its first scoring instead
    monkeypatch.setenv("STREAMREG_KERNEL", "numpy")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 50))
    order = rng.permutation(50)
    block = MatrixStream("x", x, NameRange("x", 0, 50), order=order).take(20)
    assert block is not None
    np.testing.assert_allclose(block.block.norm2, (x[:, order[:20]] ** 2).sum(axis=0), rtol=1e-13)
    ints = rng.integers(-5, 5, size=(30, 50))
    block = MatrixStream("x", ints, NameRange("x", 0, 50)).take(20)
    assert block is not None  # the block's floats compute their own (integer squares could overflow)
    np.testing.assert_array_equal(block.block.sq_norms(), (ints[:, :20] ** 2).sum(axis=0))


def test_decisions_do_not_depend_on_the_block_size():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(80, 3000))
    y = x[:, 10] - x[:, 2000] + rng.normal(scale=0.5, size=80)
    fits = [sr.select(y, x, block_size=b) for b in (16, 512, 3000)]
    for fit in fits[1:]:
        assert fit.selected_terms == fits[0].selected_terms
        assert fit.history["term"].tolist() == fits[0].history["term"].tolist()
        assert fit.history["status"].tolist() == fits[0].history["status"].tolist()
        # a block rescored after an acceptance by rank-one updates (models/rescore.py) rounds
        # differently from a block scored afresh, and which blocks see which acceptances
        # depends on the block size: the statistics agree to rounding, not to the bit
        np.testing.assert_allclose(fit.history["statistic"].to_numpy(), fits[0].history["statistic"].to_numpy(),
                                   rtol=1e-11)
