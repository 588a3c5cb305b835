"""Unusual inputs get the right answer or a clear refusal: generators that reuse one buffer,
complex values, names that need escaping in HTML, numbers with a stray string."""
from __future__ import annotations

import math

import numpy as np
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.streams.arrays import IterableStream

N, M = 200, 50


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, M))
    return x, x[:, 0] + 0.5 * x[:, 20] + rng.standard_normal(N)


def _fresh(x: np.ndarray):
    for j in range(x.shape[1]):
        yield f"x{j}", x[:, j].copy()


def _one_buffer(x: np.ndarray, bare: bool = False, view: bool = False):
    buf = np.empty(x.shape[0])
    for j in range(x.shape[1]):
        buf[:] = x[:, j]
        col = buf[:] if view else buf  # a new view of the same memory, or the same object
        yield col if bare else (f"x{j}", col)


@pytest.mark.parametrize("block_size", [1, 3, 512])
@pytest.mark.parametrize("bare,view", [(False, False), (True, False), (False, True)])
def test_generator_reusing_one_buffer_gives_the_fresh_answer(data, block_size, bare, view):
    x, y = data
    want = sr.select(y, _fresh(x), max_tests=math.inf, block_size=block_size)
    got = sr.select(y, _one_buffer(x, bare, view), max_tests=math.inf, block_size=block_size)
    stats = got.history["statistic"].to_numpy()
    np.testing.assert_array_equal(stats, want.history["statistic"].to_numpy())
    if not bare:
        assert got.selected_terms == want.selected_terms


def test_reused_buffers_of_mixed_items_are_read_as_they_were():
    """Per-item path (a 2-D term and a list among 1-D columns), every item from one buffer."""
    x = np.random.default_rng(1).standard_normal((20, 9))

    def items(reuse: bool):
        one, two = np.empty(20), np.empty((20, 2))
        for j in range(0, 9, 3):
            one[:] = x[:, j]
            yield f"a{j}", one if reuse else one.copy()
            two[:] = x[:, j + 1:j + 3]
            yield f"b{j}", two if reuse else two.copy()
            yield f"c{j}", list(x[:, j])

    for k in (1, 2, 4, 64):
        blocks = []
        for reuse in (False, True):
            s, vals = IterableStream("s", items(reuse), 20), []
            while (b := s.take(k)) is not None:
                vals.append(np.asarray(b.block.values))
            blocks.append(np.concatenate(vals, axis=1))
        np.testing.assert_array_equal(blocks[0], blocks[1])


def test_a_generator_error_is_not_taken_for_a_bad_item():
    def items():
        yield "a", np.ones(5)
        raise RuntimeError("boom from the generator")

    with pytest.raises(RuntimeError, match="boom from the generator"):
        IterableStream("s", items(), 5).take(8)


def test_complex_generator_item_is_refused_by_name():
    items = iter([("a", np.arange(5.0)), ("z", np.arange(5) + 1j)])
    with pytest.raises(ValueError, match=r"stream 's': item 2 \('z'\) is not numeric \(dtype complex128\)"):
        IterableStream("s", items, 5).take(8)


def test_the_user_buffer_is_not_modified(data):
    x, y = data
    before = x.copy()
    sr.select(y, _fresh(x), max_tests=math.inf)
    np.testing.assert_array_equal(x, before)


# -- HTML outputs escape names and notes (item 2) ----------------------------------------------

SCRIPT = "<script>alert(1)</script>"


def test_summaries_escape_names_in_html():
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({SCRIPT: rng.standard_normal(100), "x1": rng.standard_normal(100)})
    fit = sr.select(2 * frame[SCRIPT].to_numpy() + rng.standard_normal(100), frame)
    for page in (fit.summary().as_html(), fit.summary2().as_html(), fit.summary()._repr_html_()):
        assert "<script>" not in page
        assert "<th>Q(&#x27;&lt;script&gt;alert(1)&lt;/script&gt;&#x27;)</th>" in page
    assert f"Q('{SCRIPT}')" in fit.summary().as_text()  # text output shows the name as it is


# -- complex columns and numbers with stray text (item 4) --------------------------------------

def _frame(n: int = 60):
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"x{j}": rng.standard_normal(n) for j in range(4)})
    frame["y"] = frame.x0 + rng.standard_normal(n)
    return frame


@pytest.mark.parametrize("formula", ["y ~ stream(x*)", "x1 ~ stream(x0)", "y ~ x1 + stream(x0)"])
def test_complex_column_is_refused_by_name(formula):
    frame = _frame()
    frame["x1"] = frame["x1"] + 1j
    with pytest.raises(ValueError) as info:
        sr.streamreg(formula, frame)
    assert str(info.value) == ("column 'x1' holds complex numbers (complex128); streamreg models real values: give "
                               "it as its real part, e.g. data['x1'] = np.real(data['x1']), or its modulus (np.abs)")


def test_unused_complex_column_is_no_matter():
    frame = _frame()
    frame["x1"] = frame["x1"] + 1j
    assert sr.streamreg("y ~ stream(x0, x2)", frame).selected_terms == ["x0"]


@pytest.mark.parametrize("formula", ["y ~ stream(x*)", "y ~ x2 + stream(x0)", "x2 ~ stream(x0)"])
def test_numbers_with_a_stray_string_are_refused(formula):
    frame = _frame()
    frame["x2"] = frame["x2"].astype(object)
    frame.loc[5, "x2"] = "n/a"
    before = frame.copy()
    with pytest.raises(ValueError) as info:
        sr.streamreg(formula, frame)
    assert str(info.value) == (
        "column 'x2' holds numbers but also the text 'n/a' (row 5), so it would be read as a factor, not as "
        "numbers: make such entries missing, e.g. data['x2'] = pd.to_numeric(data['x2'], errors='coerce') (or "
        "read the CSV with na_values=['n/a'])")
    assert frame.equals(before)


def test_a_text_factor_is_still_a_factor():
    frame = _frame()
    frame["g"] = np.where(frame.x0 > 0, "hi", "lo")
    fit = sr.streamreg("y ~ stream(g, x3)", frame, passes=3, **ONE_PHASE)
    assert fit.history["term"].tolist() == ["g", "x3"]


def test_select_frame_with_a_stray_string_names_it():
    frame = _frame().drop(columns="y").astype(object)
    frame.loc[7, "x1"] = "?"
    with pytest.raises(ValueError) as info:
        sr.select(np.arange(60.0), frame)
    assert str(info.value) == ("stream 'stream1': column 'x1' holds numbers but also the text '?' (row 7); make "
                               "such entries missing and drop or impute those rows, e.g. pd.to_numeric(column, "
                               "errors='coerce')")
