"""A generated class inside ``stream()`` is a clear FormulaError, not patsy's
``SyntaxError: invalid syntax``."""
import re

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.formula import FormulaError


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(2)
    d = pd.DataFrame(rng.uniform(0.5, 2.0, size=(60, 4)), columns=["x1", "x2", "x3", "a"])
    d["y"] = d["x1"] + rng.normal(size=60)
    return d


GENERATED = "is a generated class, a top-level item of the formula like stream\\(\\), not a candidate term"


@pytest.mark.parametrize("inner", ["squares(x*)", "pca(x*, k=3)", "transform(x*, fn='log')", "clusters(x*, k=2)",
                                   "interactions(x1)"])
def test_generated_class_alone_in_stream(frame, inner):
    fn, quoted = inner.split("(")[0], re.escape(inner)
    message = rf"stream\({quoted}\): {fn}\(\) {GENERATED}; write y ~ {quoted} instead of y ~ stream\({quoted}\)"
    with pytest.raises(FormulaError, match=message):
        sr.streamreg(f"y ~ stream({inner})", frame)


def test_generated_class_beside_other_candidates(frame):
    with pytest.raises(FormulaError, match=rf"squares\(\) {GENERATED}; take it out of stream\(\) and add it to the "
                                           r"formula: y ~ \.\.\. \+ squares\(x\*\)"):
        sr.streamreg("y ~ stream(a, squares(x*), name=s)", frame)


def test_generated_class_inside_a_term(frame):
    with pytest.raises(FormulaError, match=r"it cannot appear inside the term 'np.log\(squares\(x1\)\)'"):
        sr.streamreg("y ~ stream(np.log(squares(x1)))", frame)


def test_nested_stream(frame):
    with pytest.raises(FormulaError, match=r"stream\(stream\(x1\)\): stream\(\) cannot be nested"):
        sr.streamreg("y ~ stream(stream(x1))", frame)


def test_inside_another_generated_class(frame):
    with pytest.raises(FormulaError, match=r"pca\(squares\(x1\)\): squares\(\) is a generated class"):
        sr.streamreg("y ~ pca(squares(x1))", frame)


def test_a_function_of_that_name_is_the_users(frame):
    fit = sr.streamreg("y ~ stream(squares(x1), x2)", frame, functions={"squares": lambda v: v ** 2},
                       w0=0.05, alpha_delta=0.05)
    assert "squares(x1)" in fit.history["term"].tolist()


def test_quoted_names_are_not_calls(frame):
    d = frame.rename(columns={"a": "pca(a)"})
    fit = sr.streamreg("y ~ stream(Q('pca(a)'), x1)", d, w0=0.05, alpha_delta=0.05)
    assert "Q('pca(a)')" in fit.history["term"].tolist()


def test_dask_frames_give_the_same_message(frame):
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(FormulaError, match=rf"squares\(\) {GENERATED}"):
        sr.streamreg("y ~ stream(squares(x*))", dd.from_pandas(frame, npartitions=2))
