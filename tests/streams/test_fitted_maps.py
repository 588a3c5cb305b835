"""Generated classes keep fitted state behind ``FittedMap``: a user class plugs in alone.

A class whose columns are fitted on the training rows (here: columns centred by their
training means) registers one builder; the design's refit frame, ``predict`` and
``model_frame`` rebuild its columns on new data through the protocol, and the results
equal statsmodels' OLS on the same columns centred by hand.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.formula import build_design
from streamreg.streams.generated import (
    ColumnsStream,
    DerivedColumns,
    FittedMap,
    fit_pca,
)
from streamreg.streams.registry import (
    ClassRequest,
    register_stream_class,
    unregister_stream_class,
)


class Centring:
    """Columns minus their training means, named ``c_<column>``."""

    def __init__(self, columns: list[str], means: np.ndarray):
        self.columns, self.means = list(columns), means

    @property
    def names(self) -> list[str]:
        return [f"c_{c}" for c in self.columns]

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        return frame[self.columns].to_numpy(dtype=float) - self.means


def centred(request: ClassRequest) -> list:
    fitted = Centring(request.columns, request.values.mean(axis=0))
    request.derived.maps.append(fitted)
    assert request.frame is not None
    values = fitted.transform(request.frame)
    request.frame[fitted.names] = values
    return [ColumnsStream(request.label, fitted.names, lambda idx: values[:, idx], request.order(values))]


@pytest.fixture
def registered():
    yield register_stream_class("centred", centred, summary="columns minus their training means")
    unregister_stream_class("centred")


def _data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(loc=3.0, size=(n, 3)), columns=["x1", "x2", "x3"])
    df["y"] = 2.0 * df.x1 - df.x3 + rng.normal(size=n)
    return df


def test_a_user_fitted_class_refits_and_predicts_as_statsmodels(registered):
    train, new = _data(200, 0), _data(30, 1)
    fit = sr.streamreg("y ~ centred(x*)", train, method="alpha-investing")
    assert fit.selected_terms == ["c_x1", "c_x3"]
    means = train[["x1", "x3"]].mean().to_numpy()
    x = sm.add_constant(train[["x1", "x3"]].to_numpy() - means)
    ref = sm.OLS(train["y"].to_numpy(), x).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-10)
    got = fit.predict(new).to_numpy()
    want = ref.predict(sm.add_constant(new[["x1", "x3"]].to_numpy() - means))
    np.testing.assert_allclose(got, want, rtol=1e-10)  # the training means, not the new rows'
    assert list(fit.model_frame(new).columns) == ["y", "c_x1", "c_x3"]


def test_a_map_satisfies_the_protocol_and_old_pickles_load():
    x = np.random.default_rng(2).normal(size=(40, 3))
    pmap = fit_pca(x, ["a", "b", "c"], 2, "pca", "pca(a, b, c)")
    maps: list[FittedMap] = [pmap, Centring(["a"], np.array([0.5]))]
    derived = DerivedColumns(maps)
    assert derived.columns == ["pca_1", "pca_2", "c_a"] and derived.sources == ["a", "b", "c", "a"]
    assert [id(m) for m in derived.used_by({"c_a"})] == [id(maps[1])]
    assert [id(m) for m in derived.pca] == [id(pmap)]
    old = DerivedColumns()  # as results pickled before the protocol held it: a field ``pca``
    old.__dict__ = {"pca": [pmap], "functions": {}}
    back = pickle.loads(pickle.dumps(old))
    assert "pca" not in back.__dict__ and back.columns == ["pca_1", "pca_2"]
    frame = pd.DataFrame(x, columns=["a", "b", "c"])
    np.testing.assert_array_equal(back.augment(frame)[["pca_1", "pca_2"]].to_numpy(),
                                  (x - pmap.center) / pmap.scale @ pmap.loadings)


def test_the_design_frame_gains_generated_columns_not_the_data():
    df = _data(50, 3)
    before = df.copy()
    d = build_design("y ~ pca(x*, k=2)", df, binomial=False)
    assert list(d.frame.columns) == ["x1", "x2", "x3", "y", "pca_1", "pca_2"]
    pd.testing.assert_frame_equal(df, before)
