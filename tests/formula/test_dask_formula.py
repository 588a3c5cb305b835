"""``streamreg(formula, ddf)`` with a Dask DataFrame: the decisions and the refit of pandas.

The response, fixed terms and role columns are gathered; each ``stream()`` of numeric
columns stays a Dask array scored on the workers (here dask's default scheduler).
"""
import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr

dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame(rng.standard_normal((n, 60)), columns=[f"x{j}" for j in range(60)])
    df["age"] = rng.uniform(20, 70, n)
    df["sex"] = rng.choice(["f", "m"], n)
    df["group"] = rng.choice(["a", "b", "c"], n)
    df["y"] = 0.05 * df["age"] + df["x3"] - df["x30"] + rng.standard_normal(n)
    df["hours"] = rng.uniform(1, 5, n)
    df["count"] = rng.poisson(df["hours"] * np.exp(0.3 * df["x12"] - 0.4 * df["x50"]))
    return df


def _same(fit, ref):
    assert fit.selected_terms == ref.selected_terms
    assert fit.selected_formula == ref.selected_formula
    assert list(fit.history["status"]) == list(ref.history["status"])
    np.testing.assert_allclose(fit.history["statistic"], ref.history["statistic"], rtol=1e-10)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse.to_numpy(), rtol=1e-10)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_fixed_terms_and_two_streams_as_with_pandas(frame, npartitions):
    formula = "y ~ age + C(sex) + stream(x1*, x2*) + stream(x3*, x4*, x5*)"
    ref = sr.streamreg(formula, frame, passes=1, **ONE_PHASE)
    fit = sr.streamreg(formula, dd.from_pandas(frame, npartitions=npartitions), passes=1, **ONE_PHASE)
    assert "x3" in fit.selected_terms
    _same(fit, ref)
    new = frame.iloc[:5]
    np.testing.assert_allclose(fit.predict(new), ref.predict(new), rtol=1e-10)


def test_a_binomial_response_coded_as_text(frame):
    df = frame.assign(high=np.where(frame["y"] > frame["y"].median(), "yes", "no"))
    formula = "high ~ C(group) + stream(x*)"
    ref = sr.streamreg(formula, df, family="binomial", passes=1, **ONE_PHASE)
    _same(sr.streamreg(formula, dd.from_pandas(df, npartitions=4), family="binomial", passes=1, **ONE_PHASE),
          ref)


def test_an_offset_column_is_gathered_with_the_model(frame):
    df = frame.assign(log_hours=np.log(frame["hours"]))
    formula = "count ~ stream(x*)"
    ref = sr.streamreg(formula, df, family="poisson", offset="log_hours", passes=1, **ONE_PHASE)
    fit = sr.streamreg(formula, dd.from_pandas(df, npartitions=2), family="poisson", offset="log_hours", passes=1, **ONE_PHASE)
    assert {"x12", "x50"} <= set(fit.selected_terms)
    _same(fit, ref)


@pytest.mark.parametrize(("formula", "options", "message"), [
    ("y ~ age + stream(x*) + interactions(x1, x2)", {}, "only stream\\(\\) items of numeric columns"),
    ("y ~ stream(x1*, group)", {}, "streams take numeric columns only"),
    ("y ~ stream(x*, order=variance)", {}, "order= is not available with a Dask DataFrame"),
    ("y ~ age", {}, "no stream\\(\\) term"),
    ("y ~ stream(x*)", {"validate": 0.3}, "validate= needs the rows in memory"),
])
def test_what_the_dask_path_cannot_do_is_said(frame, formula, options, message):
    with pytest.raises(ValueError, match=message):
        sr.streamreg(formula, dd.from_pandas(frame, npartitions=2), **options)


def test_missing_values_in_the_gathered_columns_must_be_dropped_first(frame):
    df = frame.copy()
    df.loc[[3, 9], "age"] = np.nan
    with pytest.raises(ValueError, match=r"2 rows have missing values in \['y', 'age'\].*dropna\(subset="):
        sr.streamreg("y ~ age + stream(x*)", dd.from_pandas(df, npartitions=2), passes=1, **ONE_PHASE)
    fit = sr.streamreg("y ~ age + stream(x*)", dd.from_pandas(df, npartitions=2).dropna(subset=["age"]), passes=1, **ONE_PHASE)
    _same(fit, sr.streamreg("y ~ age + stream(x*)", df.dropna(subset=["age"]), passes=1, **ONE_PHASE))


def test_the_callers_frame_is_not_computed_into_pandas_for_the_candidates(frame, monkeypatch):
    ddf = dd.from_pandas(frame, npartitions=3)
    seen = []
    original = type(ddf).compute

    def spy(self, *args, **kwargs):
        seen.append(list(self.columns))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(ddf), "compute", spy)
    sr.streamreg("y ~ age + stream(x*)", ddf, passes=1, **ONE_PHASE)
    assert seen == [["y", "age"]]  # only the model's own columns were gathered as a frame
