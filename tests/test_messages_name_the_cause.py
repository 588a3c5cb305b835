"""Messages name the real cause: a response too large for floating point, an unquoted character
class, a repeated stream, a candidate with NaN."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.formula.parse import FormulaError


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    d = pd.DataFrame({f"x{j}": rng.standard_normal(50) for j in range(5)})
    d["y"] = rng.poisson(2, 50).astype(float)
    return d


def test_poisson_response_too_large_is_named(frame):
    frame.loc[3, "y"] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            sr.streamreg("y ~ stream(x*)", frame, family="poisson")
    assert str(info.value) == (
        "the GLM of the response on the fixed terms alone did not converge: the response has values as large as "
        "1e+300, whose squares overflow floating point (beyond 1.8e308); rescale it, e.g. divide it by 1e298")


def test_huge_response_is_not_blamed_on_a_candidate(frame):
    frame["y"] = frame["y"] * 1e200
    with pytest.raises(ValueError) as info:
        sr.streamreg("y ~ stream(x*)", frame)
    assert str(info.value) == (
        "the residual sum of squares overflowed floating point: the response has values as large as 9e+200, whose "
        "squares overflow floating point (beyond 1.8e308); rescale it, e.g. divide it by 1e198")


def test_overflowing_statistic_is_blamed_on_the_response_scale():
    from streamreg.models.base import CandidateBlock
    from streamreg.search.run_records import check_finite as _check_finite
    from streamreg.streams.base import TermBlock

    block = TermBlock("s", ["a", "b"], CandidateBlock(np.ones((3, 2))))
    with pytest.raises(ValueError) as info:
        _check_finite(np.array([1.0, np.nan]), block, np.array([1.0, 3e180, 2.0]))
    assert str(info.value) == (
        "stream 's': the test of candidate 'b' overflowed floating point: the response has values as large as "
        "3e+180, whose squares overflow floating point (beyond 1.8e308); rescale it, e.g. divide it by 1e178")


def test_a_candidate_with_nan_is_still_named(frame):
    x = frame[[f"x{j}" for j in range(5)]].to_numpy().copy()
    x[4, 2] = np.nan
    with pytest.raises(ValueError, match=r"^stream 'stream1': candidate 'x2' contains NaN or infinite values"):
        sr.select(frame["y"].to_numpy(), iter([(f"x{j}", x[:, j]) for j in range(5)]))


def test_unquoted_character_class_says_to_quote(frame):
    with pytest.raises(FormulaError) as info:
        sr.streamreg("y ~ stream(x[1-3])", frame)
    assert str(info.value) == ("stream(x[1-3]): 'x[1-3]' is read as code (a column indexed by [1-3]), not as a "
                               "pattern, because of its '-'; quote the pattern: stream('x[1-3]')")
    assert sr.streamreg("y ~ stream('x[1-3]')", frame, passes=1, **ONE_PHASE).history["term"].tolist() == ["x1", "x2", "x3"]


def test_repeated_stream_names_the_earlier_stream(frame):
    with pytest.raises(FormulaError) as info:
        sr.streamreg("y ~ stream(x*) + stream(x*)", frame)
    assert str(info.value) == ("stream(x*) has no candidates left: the columns it matches are offered by an earlier "
                               "stream() (a column is a candidate of one stream only); remove the repeated stream() "
                               "or narrow its pattern")
    with pytest.raises(FormulaError, match="every matched column is the response, a fixed term or excluded"):
        sr.streamreg("y ~ stream(x*, exclude='x*')", frame)
