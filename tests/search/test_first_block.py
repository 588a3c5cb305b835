"""Streams held in memory on few rows start with a larger block (SMALL_BLOCK_CELLS values):
fewer runs of the driver, the same decisions and history as with ``block_size`` blocks
(``SMALL_BLOCK_CELLS = 0`` gives the previous reading)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from driver_runs import with_and_without

import streamreg as sr
from streamreg.search import streamwise_run


def _problem(seed: int, n: int = 80, m: int = 1500):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    y = x[:, [30, 700, 1200]] @ np.array([1.0, 0.7, 0.5]) + rng.normal(size=n)
    return y, x


CALLS = {
    "array": lambda: sr.select(*_problem(0)),
    "two arrays, stepwise rule": lambda: sr.select(_problem(1)[0], {"a": _problem(1)[1][:, :700],
                                                                    "b": _problem(1)[1][:, 700:]},
                                                   method="alpha-investing", w0=0.25, alpha_delta=0.25),
    "frame, one pass": lambda: sr.select(_problem(2)[0], pd.DataFrame(_problem(2)[1]).add_prefix("c"), passes=1),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_a_larger_first_block_decides_as_block_size_blocks(monkeypatch, case):
    big, runs_big, small, runs_small = with_and_without(monkeypatch, CALLS[case], streamwise_run, "SMALL_BLOCK_CELLS")
    assert runs_big < runs_small
    assert big.selected_terms == small.selected_terms
    exact = ["test", "stream", "stream_test", "term", "df", "level", "wealth", "status", "accepted", "pass"]
    pd.testing.assert_frame_equal(big.history[exact], small.history[exact])
    for col in ("statistic", "log_p"):  # one product over a wider block: equal to rounding
        np.testing.assert_allclose(big.history[col].to_numpy(float), small.history[col].to_numpy(float),
                                   rtol=1e-10, atol=0, equal_nan=True)
    np.testing.assert_allclose(big.params.to_numpy(), small.params.to_numpy(), rtol=1e-12)


def test_generators_keep_reading_block_size_items():
    """A generator is read ``block_size`` items at a time whatever its rows (it may be infinite)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20, 300))
    y = x[:, 5] + rng.normal(size=20)
    read = [0]

    def items():
        for j in range(x.shape[1]):
            read[0] += 1
            yield f"g{j}", x[:, j]

    sr.select(y, items(), max_tests=100, block_size=64)
    assert read[0] <= 64 * math.ceil(100 / 64) + 1
