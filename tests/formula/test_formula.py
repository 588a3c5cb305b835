"""The formula layer: globs, streams, fixed terms, patsy terms and every error message."""
import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.formula import FormulaError, parse_formula
from streamreg.models.separation import is_separated


@pytest.fixture
def df():
    rng = np.random.default_rng(0)
    n = 120
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=["x1", "x2", "x3", "g_a", "g_b", "age"])
    d["weird col"] = rng.normal(size=n)
    d["sex"] = rng.choice(["F", "M"], size=n)
    d["region"] = rng.choice(["n", "s", "e"], size=n)
    d["y"] = d["x2"] + 0.5 * d["g_b"] + rng.normal(size=n)
    d["yb"] = (d["y"] > 0).astype(int)
    return d


def test_globs_in_data_order_and_fixed_columns_excluded(df):
    fit = sr.streamreg("y ~ x1 + stream(x*) + stream(g_*, 'weird col', name='other')", df, method="alpha-investing",
                       w0=0.05, alpha_delta=0.05)
    h = fit.history
    assert list(h.loc[h.stream == "x*", "term"]) == ["x2", "x3"]  # x1 is fixed
    assert list(h.loc[h.stream == "other", "term"]) == ["g_a", "g_b", "Q('weird col')"]
    assert list(fit.per_stream.index) == ["x*", "other"]
    assert "x2" in fit.selected_terms


def test_response_never_a_candidate_and_exclude(df):
    fit = sr.streamreg("y ~ stream(*, exclude=['yb', 'sex', 'region', 'weird col'])", df)
    assert "y" not in set(fit.history["term"])
    assert not {"yb", "sex", "region"} & set(fit.history["term"])


def test_patsy_term_candidates(df):
    df2 = df.assign(pos=np.exp(df["x1"]))
    fit = sr.streamreg("y ~ stream(np.log(pos), x2:x3, C(region), sex)", df2, method="alpha-investing")
    h = fit.history.set_index("term")
    assert list(h.index) == ["np.log(pos)", "x2:x3", "C(region)", "sex"]
    assert h.loc["C(region)", "df"] == 2 and h.loc["sex", "df"] == 1


def test_parse_splits_fixed_and_streams():
    p = parse_formula("y ~ age + C(sex) - 1 + stream(x*, order='variance') + stream(g_*, name='genes')")
    assert p.response == "y" and p.fixed == "age + C(sex) - 1"
    assert [s.name for s in p.streams] == ["x*", "genes"]
    assert p.streams[0].options == {"order": "variance"}


@pytest.mark.parametrize(
    "formula, message",
    [
        ("y ~ x1 + x2", "no stream() term"),
        ("y ~ stream(z*)", "matches no column"),
        ("y ~ stream(zz)", "no column has that name"),
        ("y ~ nosuch + stream(x*)", "unknown column(s) ['nosuch']"),
        ("y ~ stream(np.log(nosuch))", "unknown column(s) ['nosuch']"),
        ("y ~ age:stream(x*)", "cannot appear inside an interaction"),
        ("y ~ stream(x*", "unclosed '('"),
        ("y ~ stream(x*))", "unbalanced ')'"),
        ("~ stream(x*)", "no response"),
        ("y stream(x*)", "exactly one '~'"),
        ("nosuch ~ stream(x*)", "is not a column of the data"),
        ("y ~ stream()", "needs at least one column glob"),
        ("y ~ stream(x1) + stream(x1)", ("'x1' is taken (the response, a fixed term on its own, an offset or weights "
                                         "column, or a candidate of an earlier stream)")),
        ("y ~ stream(x1) + stream(x1, x2)", "or a candidate of an earlier stream"),
        ("y ~ stream(x1, name='a') + stream(x2, name='a')", "two streams are called 'a'"),
        ("y ~ x1 + stream(x1)", "'x1' is taken (the response, a fixed term on its own"),
        ("y ~ x1 + stream(x1*)", "no candidates left"),
    ],
)
def test_formula_errors(df, formula, message):
    with pytest.raises(FormulaError) as exc:
        sr.streamreg(formula, df)
    assert message in str(exc.value)


def test_fixed_terms_patsy_cannot_read(df):
    with pytest.raises(FormulaError, match="doubled"):
        sr.streamreg("y ~ x1 + + + stream(x2)", df)
    with pytest.raises(FormulaError, match="patsy cannot read the fixed terms"):
        sr.streamreg("y ~ x1 ** + stream(x2)", df)


def test_missing_values_dropped_and_reported_or_raised(df):
    d = df.copy()
    d.loc[[3, 7], "x3"] = np.nan
    d.loc[5, "g_a"] = np.nan  # not used below: must not drop a row
    before = d.copy()
    with pytest.warns(UserWarning, match="dropped 2 rows"):
        fit = sr.streamreg("y ~ stream(x*)", d)
    assert fit.nobs == len(d) - 2 and fit.n_dropped == 2
    assert "Rows dropped (NaN):" in fit.summary().as_text()
    with pytest.raises(ValueError, match="2 rows have missing values"):
        sr.streamreg("y ~ stream(x*)", d, missing="raise")
    pd.testing.assert_frame_equal(d, before)


def test_callers_frame_never_modified(df):
    before = df.copy()
    sr.streamreg("yb ~ age + C(sex) + stream(x*, g_*)", df, family="binomial")
    sr.streamreg("y ~ stream(C(region), x*)", df)
    pd.testing.assert_frame_equal(df, before)


def test_collinear_fixed_terms_error(df):
    d = df.assign(age2=2 * df["age"])
    with pytest.raises(ValueError, match=r"the fixed terms are collinear: \['age2'\]"):
        sr.streamreg("y ~ age + age2 + stream(x*)", d)
    d = df.assign(c=3.0)
    with pytest.raises(ValueError, match="collinear"):
        sr.streamreg("y ~ c + stream(x*)", d)


def test_too_few_rows_for_fixed_terms(df):
    small = df.head(3)
    with pytest.raises(ValueError, match="no residual degrees of freedom"):
        sr.streamreg("y ~ x1 + age + stream(x2, x3)", small)


def test_binomial_response_checks(df):
    with pytest.raises(ValueError, match="binomial response must be 0/1"):
        sr.streamreg("y ~ stream(x*)", df, family="binomial")
    with pytest.raises(ValueError, match="exactly two levels; 'region' has 3"):
        sr.streamreg("region ~ stream(x*)", df, family="binomial")
    fit = sr.streamreg("sex ~ stream(x*)", df, family="binomial")
    assert fit.success_level == "M" and "P(sex = 'M')" in fit.summary().as_text()
    np.testing.assert_array_equal(fit.fit.model.endog, (df["sex"] == "M").astype(float))
    b = df.assign(flag=df["yb"].astype(bool))
    fitb = sr.streamreg("flag ~ stream(x*)", b, family="binomial")
    np.testing.assert_array_equal(fitb.fit.model.endog, df["yb"].astype(float))
    with pytest.raises(ValueError, match="not numeric"):
        sr.streamreg("sex ~ stream(x*)", df)


def test_categorical_response_first_level_is_failure(df):
    d = df.assign(sex=pd.Categorical(df["sex"], categories=["M", "F"]))
    fit = sr.streamreg("sex ~ stream(x*)", d, family="binomial")
    assert fit.success_level == "F"


def test_separation_is_recorded_not_raised(df):
    d = df.assign(sep=(df["x1"] > 0).astype(int))
    fit = sr.streamreg("sep ~ stream(x*)", d, family="binomial")
    h = fit.history.set_index("term")
    assert h.loc["x1", "status"].startswith("refused")
    assert "x1" not in fit.selected_terms
    assert "Refused (separation):" in fit.summary().as_text()


def test_duplicated_column_names_rejected(df):
    d = pd.concat([df[["y", "x1"]], df[["x1"]]], axis=1)
    with pytest.raises(ValueError, match="duplicated column names"):
        sr.streamreg("y ~ stream(x*)", d)


def test_unknown_family_and_method(df):
    with pytest.raises(ValueError, match="unknown family"):
        sr.streamreg("y ~ stream(x*)", df, family="weibull")
    with pytest.raises(ValueError, match="unknown method 'magic'"):
        sr.streamreg("y ~ stream(x*)", df, method="magic")
    with pytest.raises(ValueError, match="alpha_delta must lie in"):
        sr.streamreg("y ~ stream(x*)", df, alpha_delta=2)
    with pytest.raises(ValueError, match="test must be one of"):
        sr.streamreg("y ~ stream(x*)", df, test="wald")


def test_quasi_separation_is_refused():
    # p >> n binomial with strong signal: many candidates would separate the classes and
    # must be refused; the selected design must not (the exact LP test is the verdict --
    # fitted probabilities of 1e-38 alone are not separation: the MLE here exists)
    rng = np.random.default_rng(1)
    n, m = 100, 3000
    x = rng.normal(size=(n, m))
    y = rng.binomial(1, 1 / (1 + np.exp(-3 * x[:, :5].sum(axis=1))))
    fit = sr.select(y, x, family="binomial", method="alpha-investing")
    assert not is_separated(np.asarray(fit.fit.model.exog), y)
    assert fit.fit.converged
    refused = fit.history["status"].astype(str).str.startswith("refused")
    assert 0 < refused.sum() < 20
    assert {"x0", "x1"} <= set(fit.selected_terms)


def test_a_column_the_fixed_terms_only_transform_may_be_named_as_a_candidate():
    # R's add1(lm(chol ~ log(age)), ~ . + age) tests age beside log(age); so does stream(age)
    import statsmodels.formula.api as smf

    from streamreg.formula.names import bare_rhs_columns

    rng = np.random.default_rng(11)
    d = pd.DataFrame({"age": rng.uniform(30, 80, size=60), "z": rng.normal(size=60)})
    d["chol"] = 200 + 0.8 * d.age - 40 * np.log(d.age) + 5 * rng.normal(size=60)
    fit = sr.streamreg("chol ~ np.log(age) + stream(age, z)", d, w0=0.5)
    small, big = smf.ols("chol ~ np.log(age)", d).fit(), smf.ols("chol ~ np.log(age) + age", d).fit()
    f_value, p_value, _ = big.compare_f_test(small)
    first = fit.history.iloc[0]
    assert first["term"] == "age"
    assert abs(first["statistic"] - f_value) <= 1e-8 * f_value and abs(first["pvalue"] - p_value) <= 1e-8 * p_value
    # a glob still skips it; a bare fixed term, C(), Q() or the response stays refused by name
    assert "age" not in sr.streamreg("chol ~ np.log(age) + stream(*)", d).history["term"].tolist()
    for formula in ("chol ~ age + stream(age)", "chol ~ C(age) + stream(age)", "chol ~ Q('age') + stream(age)",
                    "chol ~ np.log(age) + stream(chol)"):
        with pytest.raises(FormulaError, match="is taken"):
            sr.streamreg(formula, d)
    assert bare_rhs_columns("1 + a + C(g, Sum) + Q('b c') + np.log(x) + a:z + I(z**2)",
                            {"a", "g", "b c", "x", "z"}) == {"a", "g", "b c"}


@pytest.mark.parametrize("call, option", [("offset(o)", "offset"), ("weights(o)", "var_weights")])
def test_r_formula_offset_points_to_the_option(call, option):
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(30, 3)), columns=["y", "x1", "o"])
    with pytest.raises(FormulaError, match=rf"is not available in a formula: .*; pass the option {option}=COLUMN "
                                           "instead"):
        sr.streamreg(f"y ~ {call} + stream(x1)", d)


def test_dropped_rows_name_the_columns_with_missing_values():
    # a user saw 40 rows go for a rejected candidate's NaN, with no column named
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(100, 4)), columns=["y", "x1", "x2", "x3"])
    d["y"] += 2 * d["x1"]
    d.loc[rng.choice(100, 40, replace=False), "x3"] = np.nan
    d.loc[[3, 5], "x2"] = np.nan
    d.loc[3, "x3"] = 1.0  # row 3 now misses x2 only
    expect = {"x2": 2, "x3": int(d["x3"].isna().sum())}
    n_dropped = int(d[["x2", "x3"]].isna().any(axis=1).sum())
    with pytest.warns(UserWarning) as caught:
        fit = sr.streamreg("y ~ stream(x*)", d)
    text = str(caught[0].message)
    assert text == (f"dropped {n_dropped} rows with missing values in the columns used: x2 (2), x3 ({expect['x3']}); "
                    f"the search and the refit use the other {100 - n_dropped} rows, whichever terms are selected "
                    "(drop or impute those columns to keep the rows, or pass missing='raise')")
    assert fit.missing_by_column == expect and fit.n_dropped == n_dropped and int(fit.fit.nobs) == 100 - n_dropped
    assert f"Rows dropped (NaN):  {n_dropped} (x2: 2, x3: {expect['x3']})" in str(fit.summary())


def test_an_r_product_in_a_stream_says_star_is_a_glob():
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(30, 3)), columns=["y", "x1", "x4"])
    with pytest.raises(FormulaError, match=r"^stream\(x1\*x4\): 'x1\*x4' matches no column of the data \('\*' is a "
                                           r"glob here; for the product of x1 and x4 offer the candidate term x1:x4, "
                                           r"or I\(x1 \* x4\)\)$"):
        sr.streamreg("y ~ stream(x1*x4)", d)
