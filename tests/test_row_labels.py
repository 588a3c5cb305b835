"""pandas inputs whose row labels disagree are refused (select() and streamreg() pair rows by position)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import streamreg as sr


@pytest.fixture(scope="module")
def wdbc() -> tuple[pd.DataFrame, pd.Series]:
    ds = sr.datasets.load("wdbc")
    return ds.X.iloc[:, :6], ds.y


def test_shuffled_response_is_refused(wdbc):
    x, y = wdbc
    ys = y.sample(frac=1, random_state=0)
    with pytest.raises(ValueError, match=r"^y and the candidates \(streams\) have different row labels "
                       r"\(at position 0: \d+ against \d+\); select\(\) pairs rows by position.*X\.loc\[y\.index\]"):
        sr.select(ys, x, family="binomial")


def test_misaligned_fixed_and_named_streams_are_refused(wdbc):
    x, y = wdbc
    with pytest.raises(ValueError, match=r"^fixed and the candidates \(streams\) have different row labels"):
        sr.select(y.to_numpy(), x.iloc[:, :3], fixed=x[["area_mean"]].iloc[::-1], family="binomial")
    with pytest.raises(ValueError, match=r"^y and stream 'b' have different row labels"):
        sr.select(y, {"a": x.iloc[:, :3], "b": x.iloc[::-1, 3:]}, family="binomial")
    with pytest.raises(ValueError, match=r"^y and stream 'stream2' have different row labels"):
        sr.select(y, [x.iloc[:, :3], x.iloc[::-1, 3:]], family="binomial")
    with pytest.raises(ValueError, match=r"^y and offset have different row labels"):
        sr.select(y, x, family="binomial", offset=pd.Series(np.zeros(len(y))))


def test_weights_of_streamreg_follow_the_data_labels():
    d = pd.DataFrame({"y": [1.0, 2, 3, 4, 5, 6], "x1": [1.0, 3, 2, 5, 4, 7]}, index=list("uvwxyz"))
    with pytest.raises(ValueError, match=r"^data and freq_weights have different row labels \(at position 0: "
                       r"'u' against 0\); streamreg\(\) pairs rows by position.*freq_weights\.loc\[data\.index\]"):
        sr.streamreg("y ~ stream(x*)", d, freq_weights=pd.Series(np.ones(6)))
    aligned = sr.streamreg("y ~ stream(x*)", d, freq_weights=pd.Series(np.ones(6), index=d.index))
    plain = sr.streamreg("y ~ stream(x*)", d, freq_weights=np.ones(6))
    np.testing.assert_allclose(aligned.params, plain.params, rtol=1e-12)


def test_aligned_labels_in_any_order_give_the_array_fit(wdbc):
    x, y = wdbc
    perm = np.random.default_rng(0).permutation(len(y))
    xs, ys = x.iloc[perm], y.iloc[perm]  # the same rows, shuffled together: labels agree
    before = (xs.copy(), ys.copy())
    fit = sr.select(ys, xs, fixed=xs[["area_mean"]].rename(columns={"area_mean": "a"}), family="binomial",
                    w0=0.05, alpha_delta=0.05)
    ref = sr.select(ys.to_numpy(), xs, fixed=xs[["area_mean"]].to_numpy(), family="binomial", w0=0.05,
                    alpha_delta=0.05)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    pd.testing.assert_frame_equal(xs, before[0])
    pd.testing.assert_series_equal(ys, before[1])
