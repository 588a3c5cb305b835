"""One contract for a user ordering callable, in every place that takes ``order=``.

``f(X) -> scores`` never sees the response; ``f(X, y) -> scores`` does, and the order is
reported as looking at it (unless ``f.needs_y = False``, which gets None for y).  Scores
are one per column, largest first.  Checked through ``screening.order_columns``,
``select(order=)`` and a formula's ``order=name`` with ``functions=``.
"""
import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg import screening as S
from streamreg.screening.ordering import order_scores, order_takes_y
from streamreg.streams.ordering import candidate_order, order_uses_y

P = 6


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.normal(size=(n, P)), columns=[f"x{j}" for j in range(P)])
    y = (x.x2 + rng.normal(size=n)).rename("y")
    return x, y


class Recorder:
    """An ordering callable that records what it was called with: last column first."""

    def __init__(self, needs_y=None):
        self.calls = []
        if needs_y is not None:
            self.needs_y = needs_y

    def scores(self, X):
        return np.arange(np.shape(X)[1], dtype=float)


def _f_of_x(rec):
    def f(X):
        rec.calls.append((np.asarray(X).copy(),))
        return rec.scores(X)
    if hasattr(rec, "needs_y"):
        f.needs_y = rec.needs_y
    return f


def _f_of_xy(rec):
    def f(X, y):
        rec.calls.append((np.asarray(X).copy(), None if y is None else np.asarray(y).copy()))
        return rec.scores(X)
    if hasattr(rec, "needs_y"):
        f.needs_y = rec.needs_y
    return f


def _make(takes_y, needs_y=None):
    rec = Recorder(needs_y)
    return rec, (_f_of_xy if takes_y else _f_of_x)(rec)


def _run_everywhere(f):
    """(order, whether the run reported a y-dependent order) for the three entry points."""
    x, y = _data()
    out = {"order_columns": (S.order_columns(x.to_numpy(), y.to_numpy(), order=f).tolist(), S.order_needs_y(f))}
    fit = sr.select(y, x, method="alpha-investing", order=f)
    out["select"] = (fit.history["term"].map(lambda t: int(t[1:])).tolist(), bool(fit.order_used_y))
    df = x.assign(y=y)
    fit = sr.streamreg("y ~ stream(x*, order=mine)", df, method="alpha-investing", functions={"mine": f})
    out["formula"] = (fit.history["term"].map(lambda t: int(t[1:])).tolist(), bool(fit.order_used_y))
    return out, y.to_numpy()


def test_f_of_x_never_sees_y_and_keeps_the_guarantee():
    rec, f = _make(takes_y=False)
    assert not order_takes_y(f) and not S.order_needs_y(f) and not order_uses_y(f)
    out, _ = _run_everywhere(f)
    for where, (order, used_y) in out.items():
        assert order == list(range(P))[::-1], where
        assert not used_y, where
    assert len(rec.calls) == 3 and all(len(c) == 1 and c[0].shape[1] == P for c in rec.calls)


def test_f_of_x_y_gets_the_response_and_is_reported():
    rec, f = _make(takes_y=True)
    assert order_takes_y(f) and S.order_needs_y(f) and order_uses_y(f)
    out, y = _run_everywhere(f)
    for where, (order, used_y) in out.items():
        assert order == list(range(P))[::-1], where
        assert used_y, where
    assert len(rec.calls) == 3
    for _, got_y in rec.calls:
        np.testing.assert_array_equal(got_y, y)


def test_needs_y_false_is_kept_to_its_word():
    rec, f = _make(takes_y=True, needs_y=False)
    assert order_takes_y(f) and not S.order_needs_y(f) and not order_uses_y(f)
    out, _ = _run_everywhere(f)
    assert all(not used_y for _, used_y in out.values())
    assert [got_y for _, got_y in rec.calls] == [None, None, None]


def test_needs_y_true_marks_an_f_of_x_as_looking_at_y():
    rec, f = _make(takes_y=False, needs_y=True)
    assert not order_takes_y(f) and S.order_needs_y(f)
    out, _ = _run_everywhere(f)
    assert all(used_y for _, used_y in out.values())
    assert all(len(c) == 1 for c in rec.calls)


def test_ties_keep_column_order_and_nan_goes_last():
    X = np.zeros((3, 4))
    perm = S.order_columns(X, order=lambda X: np.array([1.0, np.nan, 1.0, 2.0]))
    assert perm.tolist() == [3, 0, 2, 1]
    assert candidate_order(X, lambda X: np.array([1.0, np.nan, 1.0, 2.0])).tolist() == [3, 0, 2, 1]


@pytest.mark.parametrize("bad, message", [
    (lambda: np.zeros(P), r"called as f\(X\) or f\(X, y\).*takes no positional argument"),
    (lambda X, y, z: np.zeros(P), r"called as f\(X\) or f\(X, y\).*takes 3 required positional arguments"),
    (lambda X, *, w: np.zeros(P), r"called as f\(X\) or f\(X, y\).*required keyword-only argument\(s\) \['w'\]"),
])
def test_a_callable_of_the_wrong_shape_is_refused(bad, message):
    x, y = _data()
    with pytest.raises(TypeError, match=message):
        S.order_columns(x, y, order=bad)
    with pytest.raises(TypeError, match=message):
        sr.select(y, x, order=bad)
    with pytest.raises(TypeError, match=message):
        sr.streamreg("y ~ stream(x*, order=bad)", x.assign(y=y), functions={"bad": bad})


@pytest.mark.parametrize("bad, message", [
    (lambda X: np.zeros(P - 1), rf"returned {P - 1} scores \(shape \({P - 1},\)\) for {P} columns; it must return one score per column"),
    (lambda X: np.zeros((P, 2)), rf"returned {2 * P} scores \(shape \({P}, 2\)\) for {P} columns"),
    (lambda X: "high", "returned str, not numbers; it must return one score per column"),
    (lambda X: None, "returned NoneType, not numbers"),
])
def test_a_callable_returning_the_wrong_thing_is_refused(bad, message):
    x, y = _data()
    with pytest.raises(ValueError, match=message):
        S.order_columns(x, y, order=bad)
    with pytest.raises(ValueError, match=f"stream 'stream1': the order callable .* {message}"):
        sr.select(y, x, order=bad)
    with pytest.raises(ValueError, match=rf"x\*: the order callable .* {message}"):
        sr.streamreg("y ~ stream(x*, order=bad)", x.assign(y=y), functions={"bad": bad})


def test_f_of_x_y_without_a_response_says_so():
    x, _ = _data()
    with pytest.raises(ValueError, match=r"takes the response, f\(X, y\), but no response was given"):
        S.order_columns(x, order=lambda X, y: np.zeros(P))
    # a callable without a readable signature is f(X)
    assert not order_takes_y(np.nanvar)
    assert order_scores(lambda X: np.ones(2), np.zeros((3, 2)), None, 2, "s").tolist() == [1.0, 1.0]
