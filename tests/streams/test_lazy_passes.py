"""The default rule's passes apply to streams held in memory; lazy streams get one pass.

Re-offering a rejected candidate means keeping its values until the next pass: free for an
array or a frame, but for a generator or a Dask array it would keep a copy of every rejected
candidate.  So the default (``method=None, passes=None``) runs three passes over the former
and one over the latter, while an explicit ``passes=`` applies to every stream.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.config import DEFAULT_PASSES
from streamreg.search import SearchOptions
from streamreg.streams.arrays import MatrixStream
from streamreg.streams.generated import ColumnsStream
from streamreg.streams.passes import PassesStream, arrange_streams


def _data(n: int = 100, m: int = 400):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, m))
    return X, X[:, [5, 300]].sum(axis=1) + rng.normal(size=n)


def _gen(X):
    return ((f"x{j}", X[:, j].copy()) for j in range(X.shape[1]))


def test_default_screens_an_array_over_two_passes_and_reads_a_generator_once():
    X, y = _data()
    held = sr.select(y, X)
    lazy = sr.select(y, _gen(X), max_tests=math.inf)
    # two screening passes, then the confirmation pass
    assert held.history["pass"].max() == DEFAULT_PASSES + 1
    assert f"screening ({DEFAULT_PASSES} passes)" in held.summary().as_text()
    assert lazy.history["pass"].max() == 1 and "passes)" not in lazy.summary().as_text()
    assert "one phase ran" in " ".join(lazy.summary().as_text().split())
    # a generator has no known length either: its bids keep the decaying schedule, and the
    # guarantee is that of the one phase that ran, not the screen-confirm text
    text = " ".join(lazy.guarantee().split())
    assert "length is unknown, so the spending follows the decaying sequence" in text
    assert "Screened by" not in text


def test_explicit_passes_apply_to_every_stream():
    X, y = _data()
    lazy = sr.select(y, _gen(X), max_tests=math.inf, passes=2)
    assert lazy.history["pass"].max() == 2


def test_formula_frame_streams_hold_their_candidates():
    X, y = _data()
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    fit = sr.streamreg("y ~ stream(x*)", df)
    assert fit.history["pass"].max() == 3
    assert fit.selected_terms == sr.select(y, X).selected_terms


def test_arrange_streams_wraps_only_held_streams():
    X, _ = _data()
    held = MatrixStream("m", X, [f"x{j}" for j in range(X.shape[1])])
    assert held.holds_candidates
    out = arrange_streams([held], passes=3, lazy_passes=1)
    assert isinstance(out[0], PassesStream) and out[0].passes == 3 and out[0].horizon == 3 * X.shape[1]
    with pytest.raises(ValueError, match="lazy_passes must be a positive integer, got 0"):
        arrange_streams([held], passes=3, lazy_passes=0)


def test_search_options_passes_for():
    opts = SearchOptions(passes=3, lazy_passes=1)
    assert (opts.passes_for(True), opts.passes_for(False)) == (3, 1)
    assert SearchOptions(passes=2).passes_for(False) == 2


def test_a_dask_array_gets_one_pass_and_the_one_pass_numpy_decisions():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    fit = sr.select(y, da.from_array(X, chunks=(X.shape[0], 150)))
    # the default's one-phase fallback for streams read once, spelt out over the array
    ref = sr.select(y, X, passes=1, method="alpha-investing", w0=0.05, alpha_delta=0.02, spending="uniform")
    assert fit.history["pass"].max() == 1
    assert fit.selected_terms == ref.selected_terms
    np.testing.assert_allclose(fit.history["level"].to_numpy(float), ref.history["level"].to_numpy(float), rtol=1e-12)


@pytest.mark.parametrize("lazy_passes", [None, 1, 2])
def test_arrange_streams_gives_each_stream_the_passes_of_search_options(lazy_passes):
    """The streams the search runs have the passes ``SearchOptions.passes_for`` reports (one rule)."""
    X, _ = _data()
    names = [f"x{j}" for j in range(X.shape[1])]
    held = MatrixStream("m", X, names)
    lazy = ColumnsStream("g", names, lambda idx: X[:, idx])
    assert not lazy.holds_candidates
    opts = SearchOptions(passes=3, lazy_passes=lazy_passes)
    out = arrange_streams([held, lazy], passes=opts.passes, lazy_passes=opts.lazy_passes)
    got = [getattr(s, "passes", 1) for s in out]
    assert got == [opts.passes_for(True), opts.passes_for(False)] == [3, 3 if lazy_passes is None else lazy_passes]
