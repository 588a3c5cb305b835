"""The refit frame of a wide stream: the model's columns and the selected candidates only.

The search reads a stream's columns as one float matrix; the refit, the results and the
predictions need the selected columns alone, so the unselected ones are left out of the
frame kept by the results (a wide frame's labels are then never hashed).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

import streamreg as sr
from streamreg.formula.design import build_design
from streamreg.formula.frame_stream import FrameColumn
from streamreg.formula.names import fresh_labels
from streamreg.models.base import CandidateBlock


def _wide(n: int = 80, m: int = 60, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, m)), columns=[f"x{j}" for j in range(m)])
    df["age"] = rng.uniform(20, 70, size=n)
    df["g"] = rng.choice(["a", "b", "c"], size=n)
    df["y"] = 2 * df["x3"] - 1.5 * df["x17"] + 0.02 * df["age"] + rng.normal(scale=0.5, size=n)
    return df


def test_results_keep_the_model_columns_and_the_selected_candidates_only():
    df = _wide()
    fit = sr.streamreg("y ~ age + C(g) + stream(x*)", df)
    assert {"x3", "x17"} <= set(fit.selected_terms)
    kept = list(fit.selected_model.train.columns)
    assert sorted(kept) == sorted(["y", "age", "g", *fit.selected_terms])
    assert kept == [c for c in df.columns if c in kept]  # the data's order
    ref = smf.ols(fit.selected_formula, df).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.predict(df.iloc[:7]).to_numpy(), ref.predict(df.iloc[:7]).to_numpy(), rtol=1e-10)
    frame = fit.model_frame()
    assert set(frame.columns) == {"y", "age", "g", *fit.selected_terms}
    pd.testing.assert_frame_equal(frame, df[list(frame.columns)])


def test_an_interaction_of_stream_columns_keeps_both_columns():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(300, 6)), columns=[f"x{j}" for j in range(6)])
    df["y"] = df.x1 + df.x4 + 3 * df.x1 * df.x5 + rng.normal(scale=0.3, size=300)
    fit = sr.streamreg("y ~ stream(x*) + interactions()", df, w0=0.25, alpha_delta=0.25)
    assert "x1:x5" in fit.selected_terms and "x5" not in fit.selected_terms
    assert {"x1", "x5"} <= set(fit.selected_model.train.columns)
    ref = smf.ols(fit.selected_formula, df).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.predict(df.iloc[:5]).to_numpy(), ref.predict(df.iloc[:5]).to_numpy(), rtol=1e-10)


def test_a_column_the_fixed_terms_transform_stays_when_its_candidate_is_rejected():
    df = _wide()
    fit = sr.streamreg("y ~ np.log(age) + stream(age, x3)", df)
    assert "age" in fit.selected_model.train.columns
    ref = smf.ols(fit.selected_formula, df).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)


def test_validate_refits_the_held_out_rows_missing_only_in_unselected_columns():
    df = _wide(n=200)
    df.loc[df.index[150:160], "x40"] = np.nan  # held-out and selection rows alike
    with pytest.warns(UserWarning, match=r"x40 \(\d+\)"):
        fit = sr.streamreg("y ~ stream(x*)", df, validate=0.5, seed=2)
    assert "x40" not in fit.selected_terms
    held = df.loc[fit.selected_model.train.index]
    assert held.x40.isna().any()  # kept: the refit does not use x40
    assert "missing a value the refit uses" not in " ".join(str(fit.summary()).split())
    df.loc[held.index[:2], "x3"] = np.nan  # x3 is selected: those two held-out rows are left out
    with pytest.warns(UserWarning):
        refit = sr.streamreg("y ~ stream(x*)", df, validate=0.5, seed=2)
    assert "x3" in refit.selected_terms
    assert "2 held-out rows missing a value the refit uses were left out." in " ".join(str(refit.summary()).split())
    ref = smf.ols(fit.selected_formula, held).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)


def test_plain_stream_blocks_say_where_their_columns_are_and_carry_their_norms():
    df = _wide()
    design = build_design("y ~ age + stream(x*)", df, binomial=False)
    block = design.streams[0].take(25)
    assert block is not None and block.specs is not None
    positions = [s.position for s in block.specs]
    assert [s.column for s in block.specs] == [f"x{j}" for j in range(25)]
    assert [design.frame.columns[p] for p in positions] == [f"x{j}" for j in range(25)]
    assert list(block.specs[3:5]) == [FrameColumn("x3", positions[3]), FrameColumn("x4", positions[4])]
    assert block.block.norm2 is not None
    # one pass over the whole stream: the same numbers whatever the block size
    small = build_design("y ~ age + stream(x*)", df, binomial=False).streams[0].take(5)
    assert small is not None and small.block.norm2 is not None
    np.testing.assert_array_equal(small.block.norm2, block.block.norm2[:5])
    np.testing.assert_allclose(block.block.norm2, CandidateBlock(block.block.values.copy()).sq_norms(), rtol=1e-14)
    np.testing.assert_allclose(block.block.norm2, (df[[f"x{j}" for j in range(25)]] ** 2).sum().to_numpy(),
                               rtol=1e-13)


def test_norms_are_computed_again_on_the_rows_kept():
    df = _wide()
    df.loc[4, "x30"] = np.nan
    design = build_design("y ~ stream(x*)", df, binomial=False)
    assert design.n_dropped == 1
    block = design.streams[0].take(10)
    assert block is not None and block.block.norm2 is None
    kept = df.drop(index=4)
    np.testing.assert_allclose(block.block.sq_norms(), (kept[[f"x{j}" for j in range(10)]] ** 2).sum().to_numpy(),
                               rtol=1e-13)


def test_fresh_labels_shares_the_values_and_leaves_the_frame_alone():
    df = _wide()
    assert "x3" in df.columns  # the caller's Index has built its look-up table
    out = fresh_labels(df)
    assert out.columns is not df.columns and out.columns.equals(df.columns)
    assert np.shares_memory(out["x3"].to_numpy(), df["x3"].to_numpy())
    text = df.set_axis(pd.Index(df.columns.tolist(), dtype=object), axis=1)
    assert fresh_labels(text).columns.dtype == object  # not inferred again
    multi = pd.DataFrame(np.zeros((2, 2)), columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2)]))
    assert fresh_labels(multi) is multi


def test_labels_equal_as_text_are_duplicates():
    df = pd.DataFrame({"y": [1.0, 2.0, 3.5, 4.0], 1: [0.0, 1.0, 0.0, 1.0], "1": [1.0, 0.0, 2.0, 0.0]})
    with pytest.raises(ValueError, match=r"duplicated column names \['1'\]"):
        sr.streamreg("y ~ stream(x*)", df)


def test_text_labels_of_str_subclasses_are_used_as_plain_text():
    import enum

    class Dose(enum.StrEnum):  # labels that are str, but print otherwise
        one, two, three, y = "dose 1", "dose 2", "dose 3", "y"

    rng = np.random.default_rng(8)
    labels = pd.Index(list(Dose), dtype=object)
    assert type(labels[0]) is not str
    df = pd.DataFrame(rng.normal(size=(100, 4)), columns=labels)
    df["y"] = df["dose 1"] + 0.3 * rng.normal(size=100)
    fit = sr.streamreg("y ~ stream(dose*)", df)
    assert "Q('dose 1')" in fit.selected_terms and all(type(t) is str for t in fit.selected_terms)
    ref = smf.ols(fit.selected_formula, df.set_axis([str(c) for c in df.columns], axis=1)).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)


def test_fixed_terms_without_an_explicit_intercept_equal_patsy():
    import patsy

    from streamreg.formula.matrices import fixed_matrix

    df = _wide()
    for rhs in ("age", "0 + age", "1 + age + x3", "age - 1", "age + C(g)"):
        ours = fixed_matrix(rhs, df)
        ref = patsy.dmatrix(rhs, df, return_type="dataframe")
        assert list(ours.columns) == list(ref.columns), rhs
        np.testing.assert_array_equal(ours.to_numpy(), ref.to_numpy())


def test_column_positions_scan_for_a_few_names_and_hash_for_many():
    from streamreg.formula.names import ColumnPositions

    columns = [f"c{j}" for j in range(100)]
    where = ColumnPositions(columns)
    assert [where[f"c{j}"] for j in (5, 99, 5)] == [5, 99, 5]
    assert [where[f"c{j}"] for j in range(100)] == list(range(100))  # past 32 names: one table
    with pytest.raises(KeyError):
        where["nope"]


def test_integer_column_labels_are_named_as_text_and_predict_on_new_data():
    rng = np.random.default_rng(9)
    df = pd.DataFrame(rng.normal(size=(120, 6)))
    df["y"] = 2 * df[1] - df[4] + 0.3 * rng.normal(size=120)
    fit = sr.streamreg("y ~ stream(*)", df)
    assert fit.selected_terms == ["Q('1')", "Q('4')"]
    as_text = df.set_axis([str(c) for c in df.columns], axis=1)
    ref = smf.ols(fit.selected_formula, as_text).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.predict(df.iloc[:6]).to_numpy(), ref.predict(as_text.iloc[:6]).to_numpy(),
                               rtol=1e-10)
    assert list(df.columns[:6]) == list(range(6))  # the caller's frame keeps its labels


def test_nullable_boolean_columns_are_coded_as_booleans():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(80, 3)), columns=["x1", "x2", "x3"])
    df["b"] = pd.array(rng.random(80) > 0.5, dtype="boolean")
    df["y"] = df.x1 + 1.5 * df.b.astype(float) + 0.3 * rng.normal(size=80)
    as_bool = df.assign(b=df.b.astype(bool))
    for formula in ("y ~ b + stream(x*)", "y ~ stream(x*, b)", "y ~ stream(*)"):
        fit = sr.streamreg(formula, df)
        ours = sr.streamreg(formula, as_bool)
        assert fit.selected_terms == ours.selected_terms and "b" in fit.selected_formula
        ref = smf.ols(fit.selected_formula, as_bool).fit()
        assert list(fit.params.index) == list(ref.params.index)
        np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    new = df.iloc[:4].copy()
    new.loc[new.index[0], "b"] = pd.NA
    pred = fit.predict(new).to_numpy()
    assert np.isnan(pred[0])  # a missing input: NaN, as for any missing value
    np.testing.assert_allclose(pred[1:], ref.predict(as_bool.iloc[1:4]).to_numpy(), rtol=1e-10)
    assert df.b.dtype == "boolean"  # the caller's frame is left alone
