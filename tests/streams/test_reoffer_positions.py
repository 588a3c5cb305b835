"""Re-offers that keep stream positions (re-read when offered) against re-offers that keep copies.

``passes=k`` re-offers rejected candidates.  Streams over data still in memory (arrays,
DataFrames, formula streams, generated columns) keep their positions and re-read the values
when a re-offer is taken; generators keep a copy.  The ``copying`` runs force the copy for
every stream (the behaviour before positions), and everything the search reports -- the
history with its ``pass`` column, the selected table, per-stream counts, coefficients --
must be the same for every block size: bit for bit where the matrix is column-ordered, the
decisions exactly and the statistics to rounding where a row-ordered one is read in place.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.streams.arrays import IterableStream, MatrixStream
from streamreg.streams.base import ScoredAt, TermBlock
from streamreg.streams.passes import ConcatStream, PassesStream

LORD = {"method": "lord++", "alpha": 0.1, "w0": 0.1, "spending": "uniform"}


def _data(seed: int, n: int = 120, m: int = 400, binomial: bool = False):
    """Weak signals spread over the stream, so that later passes accept some."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    true = rng.choice(m, 8, replace=False)
    eta = x[:, true] @ np.linspace(0.25, 0.6, 8)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * eta))).astype(float) if binomial else eta + rng.normal(size=n)
    return y, x


def _frame(seed: int) -> pd.DataFrame:
    y, x = _data(seed, m=300)
    df = pd.DataFrame(x, columns=[f"a{j}" for j in range(150)] + [f"b{j}" for j in range(150)])
    df["y"] = y
    return df


def _gen(x: np.ndarray):
    return ((f"x{j}", x[:, j]) for j in range(x.shape[1]))


CASES = {
    "gaussian": lambda bs, k: sr.select(*_data(0), block_size=bs, passes=k, **LORD),
    "binomial": lambda bs, k: sr.select(*_data(1, binomial=True), family="binomial", block_size=bs, passes=k, **LORD),
    "frame-random-order": lambda bs, k: sr.select(
        _data(2)[0], pd.DataFrame(_data(2)[1]).add_prefix("c"), order="random", seed=3, block_size=bs, passes=k,
        **LORD),
    "float32-variance-order": lambda bs, k: sr.select(
        _data(3)[0], _data(3)[1].astype(np.float32), order="variance", block_size=bs, passes=k, **LORD),
    "two-arrays": lambda bs, k: sr.select(
        _data(4)[0], {"p": _data(4)[1][:, :150], "q": _data(4)[1][:, 150:]}, block_size=bs, passes=k, **LORD),
    "formula": lambda bs, k: sr.streamreg(
        "y ~ stream(a*) + stream(b*) + squares(a1*)", _frame(5), block_size=bs, passes=k, **LORD),
    "formula-single-stream": lambda bs, k: sr.streamreg(
        "y ~ stream(a*) + stream(b*) + squares(a1*)", _frame(6), multistream=False, block_size=bs, passes=k,
        **LORD),
    "generator-and-array": lambda bs, k: sr.select(
        _data(7)[0], {"g": _gen(_data(7)[1][:, :200]), "a": _data(7)[1][:, 200:]}, block_size=bs, passes=k,
        max_tests=10**6, **LORD),
}


@pytest.fixture
def copying(monkeypatch):
    """Re-offers copy the values of every stream, as they all did before positions."""
    on_rejected = PassesStream.on_rejected

    def copy_always(self, block: TermBlock, positions: np.ndarray, scored: ScoredAt | None = None) -> None:
        on_rejected(self, dataclasses.replace(block, positions=None), positions, scored)

    def run(case, bs, k):
        with monkeypatch.context() as mp:
            mp.setattr(PassesStream, "on_rejected", copy_always)
            return CASES[case](bs, k)

    return run


#: cases whose matrices are column-ordered (data frames): a re-read is a view in the layout of
#: a copy, so the two searches agree bit for bit.  A row-ordered matrix's re-reads are read in
#: place, row-ordered, where a copy is column-ordered: the same decisions, statistics equal to
#: rounding (their sums are ordered differently)
COLUMN_ORDERED = {"frame-random-order", "formula", "formula-single-stream"}


def _assert_same(new, old, exact: bool = True) -> None:
    close = {"check_exact": True} if exact else {"check_exact": False, "rtol": 1e-10, "atol": 1e-12}
    pd.testing.assert_frame_equal(new.history, old.history, **close)
    pd.testing.assert_frame_equal(new.selected, old.selected, **close)
    pd.testing.assert_frame_equal(new.per_stream, old.per_stream, check_exact=True)
    pd.testing.assert_series_equal(new.params, old.params, **close)
    for col in ("term", "status", "pass", "stream"):
        if col in new.history:
            pd.testing.assert_series_equal(new.history[col], old.history[col], check_exact=True)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("passes", [2, 3])
@pytest.mark.parametrize("block_size", [1, 7, 512])
def test_positions_match_copies(copying, case, passes, block_size):
    old = copying(case, block_size, passes)
    new = CASES[case](block_size, passes)
    _assert_same(new, old, exact=case in COLUMN_ORDERED)
    assert new.history["pass"].max() == passes  # every pass was reached


def test_cases_accept_in_later_passes():
    """The comparisons above are only telling if re-offered candidates are also accepted."""
    later = [case for case in CASES if (CASES[case](7, 3).history.query("accepted")["pass"] > 1).any()]
    assert len(later) >= 4, later


def _reject_all(stream: PassesStream, m: int, k: int) -> None:
    """Offer the ``m`` candidates of ``stream``'s first pass ``k`` at a time and reject them all."""
    seen = 0
    while seen < m:
        block = stream.take(k)
        assert block is not None and block.pass_no == 1
        stream.on_rejected(block, np.arange(len(block)))
        seen += len(block)


def test_arrays_keep_positions_generators_keep_copies():
    x = _data(0, m=50)[1]
    matrix = PassesStream(MatrixStream("a", x, [f"x{j}" for j in range(50)], order=np.arange(50)[::-1]), 3)
    generator = PassesStream(IterableStream("g", list(_gen(x)), len(x)), 3)
    concat = PassesStream(ConcatStream("all", [MatrixStream("a", x[:, :20], [f"a{j}" for j in range(20)]),
                                               MatrixStream("b", x[:, 20:], [f"b{j}" for j in range(30)])]), 3)
    for stream in (matrix, generator, concat):
        _reject_all(stream, 50, 25)
        assert stream.pending
        for entry in stream.pending:
            if stream is generator:  # a generator cannot be read twice: its values are copied
                assert entry.positions is None and entry.block is not None
            else:
                assert entry.block is None and entry.positions is not None and entry.positions.dtype == np.int64
    # re-read values are the first offer's, in the same order, under the same names
    again = matrix.take(10)
    assert again is not None and again.pass_no == 2
    np.testing.assert_array_equal(again.block.values, x[:, ::-1][:, :10])
    assert list(again.names) == [f"x{j}" for j in range(49, 39, -1)]
    first, second = concat.take(50), concat.take(50)  # as offered: a's 20, then 25 of b's 30
    assert first is not None and second is not None and first.pass_no == second.pass_no == 2
    np.testing.assert_array_equal(first.block.values, x[:, :20])
    np.testing.assert_array_equal(second.block.values, x[:, 20:45])
    assert list(second.names) == [f"b{j}" for j in range(25)]
    assert list(second.positions) == list(range(20, 45))  # numbered across the children
