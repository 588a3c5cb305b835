"""A catalogue of bad inputs: each gets a deliberate, clear error naming the culprit.

Every case runs one call of ``streamreg()``, ``select()`` or ``fit.predict()`` and asserts
the exception type (ValueError or TypeError, or a subclass such as FormulaError -- never
a KeyError, IndexError or AttributeError from deep inside) and a fragment of its message.
The last tests check that nothing the user passed is modified, on success and on error.
"""
from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.policies import AlphaInvesting

N = 60


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    df = pd.DataFrame(rng.normal(size=(N, 4)), columns=["x1", "x2", "x3", "x4"])
    df["y"] = 2 * df["x1"] + rng.normal(size=N)
    df["g"] = rng.choice(["a", "b", "c"], N)
    df["one"] = "a"
    df["when"] = pd.date_range("2020-01-01", periods=N)
    df["lag"] = pd.to_timedelta(np.arange(N), unit="D")
    df["cnt"] = rng.poisson(2.0, N).astype(float)
    df["lab"] = (df["y"] > 0).astype(int)
    return df


@pytest.fixture(scope="module")
def ctx() -> SimpleNamespace:
    df = _frame()
    x = df[["x1", "x2", "x3", "x4"]].to_numpy()
    y = df["y"].to_numpy()
    wdbc = sr.datasets.load("wdbc").data
    fit = sr.streamreg("y ~ C(g) + stream(x*)", df)
    sfit = sr.select(y, pd.DataFrame(x, columns=["a", "b", "c", "d"]))
    return SimpleNamespace(df=df, x=x, y=y, ys=pd.Series(y, name="y"), wdbc=wdbc, fit=fit, sfit=sfit)


def _endless(n: int):
    rng = np.random.default_rng(0)
    for j in itertools.count():
        yield f"e{j}", rng.normal(size=n)


def _gen(items):
    yield from items


F = "y ~ stream(x*)"
FG = "y ~ C(g) + stream(x*)"

# (id, call, exception, message fragment); the call gets the ctx fixture
STREAMREG_OPTIONS = [
    ("w0-string", lambda c: sr.streamreg(F, c.df, w0="0.5"), TypeError,
     r"option w0 of method 'screen-confirm' must be a number"),
    ("w0-above-one", lambda c: sr.streamreg(F, c.df, w0=2), ValueError, r"w0 must be a number in \(0, 1\]"),
    ("w0-bits-too-large", lambda c: sr.streamreg(F, c.df, method="information-investing", w0=3.0), ValueError,
     r"w0 must be below 2\^\(1 \+ w_delta\) = 2.82843 bits"),
    ("w0-nan", lambda c: sr.streamreg(F, c.df, w0=float("nan")), ValueError, "w0 .* must be finite"),
    ("w0-bool", lambda c: sr.streamreg(F, c.df, w0=True), TypeError, "w0 .* must be a number"),
    ("w0-zero", lambda c: sr.streamreg(F, c.df, w0=0), ValueError, "w0 must be a positive number"),
    ("alpha-delta-above-one", lambda c: sr.streamreg(F, c.df, alpha_delta=2), ValueError,
     r"alpha_delta must lie in \(0, 1\)"),
    ("alpha-delta-list", lambda c: sr.streamreg(F, c.df, alpha_delta=[0.1]), TypeError,
     "alpha_delta .* must be a number"),
    ("w-delta-string", lambda c: sr.streamreg(F, c.df, method="information-investing", w_delta="x"), TypeError,
     "w_delta .* must be a number"),
    ("block-size-float", lambda c: sr.streamreg(F, c.df, block_size=2.5), TypeError,
     "block_size must be a positive integer"),
    ("block-size-zero", lambda c: sr.streamreg(F, c.df, block_size=0), ValueError,
     "block_size must be a positive integer"),
    ("max-tests-negative", lambda c: sr.streamreg(F, c.df, max_tests=-1), ValueError, "max_tests must be an integer >= 0"),
    ("max-tests-float", lambda c: sr.streamreg(F, c.df, max_tests=2.5), TypeError, "max_tests must be an integer"),
    ("max-selected-negative", lambda c: sr.streamreg(F, c.df, max_selected=-1), ValueError,
     "max_selected must be an integer >= 0"),
    ("time-budget-negative", lambda c: sr.streamreg(F, c.df, time_budget=-1), ValueError,
     "time_budget must be a positive number"),
    ("time-budget-string", lambda c: sr.streamreg(F, c.df, time_budget="10"), TypeError,
     "time_budget must be a number of seconds"),
    ("missing-unknown", lambda c: sr.streamreg(F, c.df, missing="omit"), ValueError, "missing must be 'drop' or 'raise'"),
    ("passes-zero", lambda c: sr.streamreg(F, c.df, passes=0), ValueError, "passes must be a positive integer"),
    ("passes-with-stepwise", lambda c: sr.streamreg(F, c.df, method="stepwise-aic", passes=2), ValueError,
     "passes= applies to streamwise policies"),
    ("verbose-string", lambda c: sr.streamreg(F, c.df, verbose="yes"), TypeError, "verbose must be True, False"),
    ("verbose-negative", lambda c: sr.streamreg(F, c.df, verbose=-5), ValueError, "verbose must be a non-negative"),
    ("multistream-string", lambda c: sr.streamreg(F, c.df, multistream="no"), TypeError,
     "multistream must be True or False"),
    ("test-unknown", lambda c: sr.streamreg(F, c.df, test="wald"), ValueError,
     r"test must be one of \('t', 'paper'\) for the Gaussian family"),
    ("test-t-for-glm", lambda c: sr.streamreg("lab ~ stream(x*)", c.df, family="binomial", test="t"), ValueError,
     r"test must be one of \('score', 'score-f', 'lr'\) for GLMs"),
    ("family-unknown", lambda c: sr.streamreg(F, c.df, family="weibull"), ValueError, "unknown family 'weibull'"),
    ("family-class", lambda c: sr.streamreg(F, c.df, family=sm.families.Binomial), TypeError,
     r"pass sm.families.Binomial\(\) instead"),
    ("family-number", lambda c: sr.streamreg(F, c.df, family=3), TypeError, "family must be a name"),
    ("method-unknown", lambda c: sr.streamreg(F, c.df, method="magic"), ValueError,
     "unknown method 'magic'; known methods: .*lord"),
    ("method-number", lambda c: sr.streamreg(F, c.df, method=3), TypeError, "method must be a name"),
    ("option-unknown", lambda c: sr.streamreg(F, c.df, weights=np.ones(N)), TypeError,
     "unknown option 'weights' for method 'screen-confirm'; valid options: w0, alpha_delta, screen_w0"),
    ("option-misspelt", lambda c: sr.streamreg(F, c.df, max_test=3), TypeError, "did you mean max_tests="),
    ("option-for-optionless-method", lambda c: sr.streamreg(F, c.df, method="aic", w0=0.1), TypeError,
     "method 'aic' takes no options"),
    ("option-of-another-method", lambda c: sr.streamreg(F, c.df, method="stepwise-aic", lam=1.0), TypeError,
     "unknown option 'lam' for method 'stepwise-aic'; valid options: direction"),
    ("option-wrong-type-grafting", lambda c: sr.streamreg(F, c.df, method="grafting", cv="5"), TypeError,
     "option cv of method 'grafting' must be an integer"),
    ("policy-instance-w0", lambda c: sr.streamreg(F, c.df, method=AlphaInvesting(w0=2.0)), ValueError,
     r"w0 must be a number in \(0, 1\]"),
    ("policy-instance-with-options", lambda c: sr.streamreg(F, c.df, method=AlphaInvesting(), w0=0.1), TypeError,
     "options cannot be combined with a Policy instance"),
    ("grafting-poisson", lambda c: sr.streamreg("cnt ~ stream(x*)", c.df, family="poisson", method="grafting"),
     ValueError, "grafting and BP-SFS support the gaussian and binomial"),
    ("validate-string", lambda c: sr.streamreg(F, c.df, validate="half"), TypeError,
     "validate must be a fraction in"),
    ("validate-above-one", lambda c: sr.streamreg(F, c.df, validate=1.5), ValueError, r"must lie in \(0, 1\)"),
    ("seed-string", lambda c: sr.streamreg(F, c.df, validate=0.5, seed="x"), TypeError,
     "seed must be a non-negative integer"),
    ("functions-list", lambda c: sr.streamreg(F, c.df, functions=[np.log]), TypeError,
     "functions must be a mapping"),
]

STREAMREG_DATA = [
    ("data-array", lambda c: sr.streamreg(F, c.x), TypeError, "data must be a pandas or Dask DataFrame, got ndarray"),
    ("formula-number", lambda c: sr.streamreg(3, c.df), sr.FormulaError, "the formula must be a string"),
    ("constant-gaussian-response", lambda c: sr.streamreg(F, c.df.assign(y=1.5)), ValueError,
     "the response 'y' is constant"),
    ("constant-poisson-response", lambda c: sr.streamreg("cnt ~ stream(x*)", c.df.assign(cnt=3.0),
                                                         family="poisson"), ValueError, "the response 'cnt' is constant"),
    ("binomial-single-class-01", lambda c: sr.streamreg("lab ~ stream(x*)", c.df.assign(lab=1), family="binomial"),
     ValueError, r"binomial response 'lab' has a single class \(1\)"),
    ("binomial-single-class-label", lambda c: sr.streamreg("diagnosis ~ stream(*_mean)",
                                                           c.wdbc[c.wdbc["diagnosis"] == "M"], family="binomial"),
     ValueError, r"binomial response 'diagnosis' has a single class \('M'\)"),
    ("binomial-three-levels", lambda c: sr.streamreg("g ~ stream(x*)", c.df, family="binomial"), ValueError,
     "exactly two levels; 'g' has 3"),
    ("binomial-not-01", lambda c: sr.streamreg(F, c.df, family="binomial"), ValueError, "binomial response must be 0/1"),
    ("poisson-negative", lambda c: sr.streamreg(F, c.df, family="poisson"), ValueError,
     "Poisson response must be non-negative counts; 'y' has"),
    ("gamma-non-positive", lambda c: sr.streamreg(F, c.df, family="gamma"), ValueError,
     "Gamma response must be positive"),
    ("response-text-gaussian", lambda c: sr.streamreg("diagnosis ~ stream(*_mean)", c.wdbc), ValueError,
     "the response 'diagnosis' is not numeric"),
    ("response-infinite", lambda c: sr.streamreg(F, c.df.assign(y=np.r_[np.inf, c.y[1:]])), ValueError,
     "the response 'y' has infinite values"),
    ("response-not-a-column", lambda c: sr.streamreg("z ~ stream(x*)", c.df), sr.FormulaError,
     "the response 'z' is not a column"),
    ("all-missing-column", lambda c: sr.streamreg(F, c.df.assign(x2=np.nan)), ValueError,
     r"column\(s\) \['x2'\] are entirely missing"),
    ("no-complete-row", lambda c: sr.streamreg(F, c.df.assign(x2=np.where(np.arange(N) % 2, np.nan, 1.0),
                                                              x3=np.where(np.arange(N) % 2, 1.0, np.nan))),
     ValueError, "no row is complete in the columns used"),
    ("empty-frame", lambda c: sr.streamreg(F, c.df.iloc[:0]), ValueError, "the data have no rows"),
    ("missing-raise", lambda c: sr.streamreg(F, c.df.assign(x2=np.r_[np.nan, c.df["x2"].to_numpy()[1:]]),
                                             missing="raise"), ValueError, r"1 rows have missing values .*x2"),
    ("datetime-in-glob", lambda c: sr.streamreg("y ~ stream(x*, when)", c.df), ValueError,
     "column 'when' is a date .*days since a date"),
    ("datetime-fixed-term", lambda c: sr.streamreg("y ~ when + stream(x*)", c.df), ValueError,
     "column 'when' in the fixed terms is a date"),
    ("datetime-in-candidate-term", lambda c: sr.streamreg("y ~ stream(x*, C(when))", c.df), ValueError,
     "column 'when' in the candidate term 'C\\(when\\)' .* is a date"),
    ("timedelta-in-glob", lambda c: sr.streamreg("y ~ stream(x*, lag)", c.df), ValueError,
     "column 'lag' is a time difference"),
    ("one-level-factor-fixed", lambda c: sr.streamreg("y ~ one + stream(x*)", c.df), ValueError,
     "fixed column 'one' is a factor with a single level 'a'"),
    ("unknown-fixed-column", lambda c: sr.streamreg("y ~ age + stream(x*)", c.df), sr.FormulaError,
     r"unknown column\(s\) \['age'\] in the fixed terms"),
    ("glob-matches-nothing", lambda c: sr.streamreg("y ~ stream(z*)", c.df), sr.FormulaError, "matches no column"),
    ("duplicated-data-columns", lambda c: sr.streamreg(F, pd.concat([c.df, c.df[["x1"]]], axis=1)), ValueError,
     "duplicated column names"),
    ("infinite-candidate", lambda c: sr.streamreg(F, c.df.assign(x3=np.inf)), ValueError,
     r"column 'x3' has 60 infinite value\(s\)"),
    ("collinear-fixed", lambda c: sr.streamreg("y ~ x1 + x5 + stream(x2, x3)", c.df.assign(x5=2 * c.df["x1"])),
     ValueError, r"the fixed terms are collinear: \['x5'\]"),
]

SELECT = [
    ("y-two-dimensional", lambda c: sr.select(c.x, c.x), ValueError, "y must be one-dimensional"),
    ("y-text", lambda c: sr.select(np.array(["a"] * N), c.x), ValueError, "y must be numeric"),
    ("y-nan", lambda c: sr.select(np.r_[c.y[:-1], np.nan], c.x), ValueError,
     "y contains NaN or infinite values .*position 59"),
    ("y-empty", lambda c: sr.select(np.array([]), np.ones((0, 2))), ValueError, "y is empty"),
    ("y-none", lambda c: sr.select(None, c.x), TypeError, "y must be an array-like of numbers"),
    ("y-datetime", lambda c: sr.select(c.df["when"], c.x), ValueError, "y must be numeric .*datetime64"),
    ("y-constant", lambda c: sr.select(np.full(N, 0.3), c.x), ValueError, "the response 'y' is constant"),
    ("y-constant-poisson", lambda c: sr.select(np.ones(N), c.x, family="poisson"), ValueError, "is constant"),
    ("y-binomial-not-01", lambda c: sr.select(c.y, c.x, family="binomial"), ValueError,
     "binomial response must be 0/1"),
    ("y-binomial-single-class", lambda c: sr.select(np.zeros(N), c.x, family="binomial"), ValueError,
     "has a single class: every row is 0"),
    ("y-poisson-negative", lambda c: sr.select(c.y, c.x, family="poisson"), ValueError,
     "Poisson response must be non-negative"),
    ("fixed-named-like-response", lambda c: sr.select(c.ys, c.x, fixed=pd.DataFrame({"y": c.df["x2"]})), ValueError,
     "fixed column 'y' has the name of the response"),
    ("candidate-named-like-response", lambda c: sr.select(c.ys, c.df[["x1", "y"]].rename(columns={"x1": "a"})),
     ValueError, "candidate 'y' has the name of the response"),
    ("candidate-named-like-fixed", lambda c: sr.select(c.y, c.df[["x1", "x2"]], fixed=c.df[["x1"]]), ValueError,
     "candidate 'x1' has the name of a fixed column"),
    ("array-candidate-named-like-fixed", lambda c: sr.select(c.y, c.x, fixed=pd.DataFrame({"x0": c.df["x4"]})),
     ValueError, "candidate 'x0' has the name of a fixed column"),
    ("generator-named-like-response", lambda c: sr.select(c.ys, iter([("y", c.x[:, 0])])), ValueError,
     "candidate 'y' has the name of the response"),
    ("generator-duplicate-names", lambda c: sr.select(c.y, iter([("a", c.x[:, 0]), ("a", c.x[:, 1])])), ValueError,
     "duplicate candidate name 'a'"),
    ("duplicate-names-across-streams", lambda c: sr.select(c.y, {"s1": [("a", c.x[:, 0])], "s2": [("a", c.x[:, 1])]}),
     ValueError, "duplicate candidate name 'a' in streams 's1' and 's2'"),
    ("frame-duplicate-columns", lambda c: sr.select(c.y, pd.DataFrame(c.x, columns=["a", "a", "b", "c"])), ValueError,
     "duplicated candidate name 'a'"),
    ("generator-strings", lambda c: sr.select(c.y, iter(["a", "b"])), TypeError,
     r"item 1 is a str \('a'\); expected a \(name, column\) pair or a numeric column of length 60"),
    ("generator-dicts", lambda c: sr.select(c.y, iter([{"a": c.x[:, 0]}])), TypeError, "item 1 is a dict"),
    ("generator-scalars", lambda c: sr.select(c.y, iter([1.0, 2.0])), TypeError, "is a single value"),
    ("generator-wrong-length", lambda c: sr.select(c.y, iter([("g", np.ones(10))])), ValueError,
     "candidate 'g' has 10 rows, the response has 60"),
    ("generator-name-not-string", lambda c: sr.select(c.y, iter([(1, c.x[:, 0])])), TypeError,
     "has the name 1 .*names must be strings"),
    ("generator-text-column", lambda c: sr.select(c.y, iter([("t", ["a"] * N)])), ValueError, "'t'.* is not numeric"),
    ("generator-three-dimensional", lambda c: sr.select(c.y, iter([np.ones((N, 2, 2))])), ValueError, "3 dimensions"),
    ("generator-without-stopping-rule", lambda c: sr.select(c.y, _endless(N)), ValueError,
     "unknown length and no stopping rule.*max_tests=, max_selected= or time_budget="),
    ("map-without-stopping-rule", lambda c: sr.select(c.y, map(lambda j: c.x[:, j], range(4))), ValueError,
     "no stopping rule"),
    ("grafting-generator-without-stopping-rule", lambda c: sr.select(c.y, _endless(N), method="grafting", lam=0.1),
     ValueError, "no stopping rule"),
    ("fixed-nan", lambda c: sr.select(c.y, c.x, fixed=np.r_[np.nan, np.ones(N - 1)]), ValueError,
     r"fixed column 'fixed0' has 1 missing or infinite value\(s\)"),
    ("fixed-frame-nan", lambda c: sr.select(c.y, c.x, fixed=pd.DataFrame({"age": np.r_[np.ones(N - 1), np.nan]})),
     ValueError, "fixed column 'age' has 1 missing"),
    ("fixed-wrong-length", lambda c: sr.select(c.y, c.x, fixed=np.ones(N - 1)), ValueError, "fixed has 59 rows, y has 60"),
    ("fixed-text-array", lambda c: sr.select(c.y, c.x, fixed=np.array(["a"] * N)), ValueError,
     "fixed must be numeric .*pass a DataFrame"),
    ("fixed-dict", lambda c: sr.select(c.y, c.x, fixed={"a": 1}), TypeError, "fixed must be an array or a DataFrame"),
    ("fixed-one-level-factor", lambda c: sr.select(c.y, c.x, fixed=pd.DataFrame({"k": ["a"] * N})), ValueError,
     "fixed column 'k' is a factor with a single level 'a'"),
    ("fixed-date", lambda c: sr.select(c.y, c.x, fixed=c.df[["when"]]), ValueError, "fixed column 'when' is a date"),
    ("fixed-duplicate-columns", lambda c: sr.select(c.y, c.x, fixed=pd.DataFrame(c.x[:, :2], columns=["a", "a"])),
     ValueError, "fixed has duplicated column names"),
    ("streams-none", lambda c: sr.select(c.y, None), TypeError, "streams must be an array"),
    ("streams-string", lambda c: sr.select(c.y, "x"), TypeError, "expected an array, a DataFrame or an iterable"),
    ("streams-empty-list", lambda c: sr.select(c.y, []), ValueError, "streams is empty"),
    ("streams-empty-iterator", lambda c: sr.select(c.y, iter([])), ValueError, "is empty: the iterable yielded"),
    ("stream-three-dimensional", lambda c: sr.select(c.y, np.ones((N, 2, 2))), ValueError,
     "expected a 2-D array .*got shape"),
    ("stream-empty-matrix", lambda c: sr.select(c.y, np.empty((N, 0))), ValueError, "is empty"),
    ("stream-text-column", lambda c: sr.select(c.y, c.df[["x1", "g"]]), ValueError,
     "column 'g' is not numeric .*pd.get_dummies"),
    ("stream-date-column", lambda c: sr.select(c.y, c.df[["x1", "when"]]), ValueError,
     "column 'when' is a date or time"),
    ("stream-text-array", lambda c: sr.select(c.y, np.array([["a"] * 3] * N)), ValueError, "is not numeric"),
    ("stream-wrong-rows", lambda c: sr.select(c.y, c.x[:29]), ValueError, "has 29 rows, y has 60"),
    ("stream-nan", lambda c: sr.select(c.y, np.where(np.arange(N)[:, None] == 2, np.nan, c.x)), ValueError,
     "contains NaN or infinite values"),
    ("stream-infinite", lambda c: sr.select(c.y, {"s": c.df[["x1", "x2"]].assign(x2=np.inf)}), ValueError,
     "stream 's': candidate 'x2' contains NaN or infinite values"),
    ("generator-nan", lambda c: sr.select(c.y, iter([("a", np.r_[np.nan, c.x[1:, 0]])])), ValueError,
     "candidate 'a' contains NaN or infinite values"),
    ("order-wrong-type", lambda c: sr.select(c.y, c.x, order=3), TypeError, "order must be a name"),
    ("order-unknown", lambda c: sr.select(c.y, c.x, order="wobbly"), ValueError, "unknown order 'wobbly'"),
    ("order-on-generator", lambda c: sr.select(c.y, iter([("a", c.x[:, 0])]), order="variance"), ValueError,
     "generator"),
    ("intercept-string", lambda c: sr.select(c.y, c.x, intercept="no"), TypeError, "intercept must be True or False"),
    ("no-fixed-column", lambda c: sr.select(c.y, c.x, intercept=False), ValueError, "the model has no fixed column"),
    ("ric-generator", lambda c: sr.select(c.y, _endless(N), method="stepwise-ric"), ValueError,
     "RIC needs the number of candidates m"),
]

PREDICT = [
    ("predict-missing-column", lambda c: c.fit.predict(c.df.drop(columns=["x1"])), ValueError,
     r"newdata lacks the column\(s\) \['x1'\]"),
    ("predict-new-level", lambda c: c.fit.predict(c.df.assign(g="zzz")), ValueError,
     "'zzz' does not match any of the expected levels"),
    ("predict-number-for-factor", lambda c: c.fit.predict(c.df.assign(g=1.0)), ValueError,
     "does not match any of the expected levels"),
    ("predict-text-for-number", lambda c: c.fit.predict(c.df.assign(x1="a")), ValueError,
     "newdata column 'x1' is not numeric"),
    ("predict-array", lambda c: c.fit.predict(c.x), TypeError, "newdata must be a pandas DataFrame"),
    ("predict-dict-missing-column", lambda c: c.fit.predict({"x1": [1.0]}), ValueError,
     r"newdata lacks the column\(s\) \['g'\]"),
    ("predict-select-missing-column", lambda c: c.sfit.predict(pd.DataFrame({"b": c.x[:, 1]})), ValueError,
     "newdata lacks the column"),
]

CATALOGUE = STREAMREG_OPTIONS + STREAMREG_DATA + SELECT + PREDICT


def test_catalogue_is_large_and_distinct():
    ids = [case[0] for case in CATALOGUE]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 60


@pytest.mark.parametrize("call, exc, message", [pytest.param(*case[1:], id=case[0]) for case in CATALOGUE])
def test_bad_input_gets_a_clear_error(ctx, call, exc, message):
    assert issubclass(exc, (ValueError, TypeError))
    with pytest.raises(exc, match=message) as info:
        call(ctx)
    # deliberate errors only: no KeyError / IndexError / AttributeError dressed as one
    assert not isinstance(info.value, (KeyError, IndexError, AttributeError))


# -- what is accepted ------------------------------------------------------------------------


def test_stopping_rules_accept_generators_and_explicit_infinity(ctx):
    x = ctx.x
    items = [(f"c{j}", x[:, j]) for j in range(4)]
    assert sr.select(ctx.y, _gen(items), max_tests=math.inf).selected_terms == ["c0"]
    assert sr.select(ctx.y, _gen(items), max_tests=100).selected_terms == ["c0"]
    assert sr.select(ctx.y, iter(items)).selected_terms == ["c0"]  # iter(list) has a known length
    assert sr.select(ctx.y, items).selected_terms == ["c0"]
    assert sr.select(ctx.y, _gen(items), method="stepwise-aic").selected_terms[0] == "c0"  # reads all first
    fit = sr.select(ctx.y, _endless(N), time_budget=0.2)
    assert fit.search.stopped_by == "time_budget"


def test_one_level_factor_candidate_is_skipped_as_constant(ctx):
    fit = sr.streamreg("y ~ stream(x*, one)", ctx.df)
    h = fit.history.set_index("term")
    assert h.loc["one", "status"] == "skipped: constant"
    assert fit.selected_terms == ["x1"]


@pytest.mark.parametrize("method", ["alpha-investing", "lord++", "stepwise-bic"])
@pytest.mark.parametrize("option", ["max_tests", "max_selected"])
def test_a_zero_stopping_rule_fits_the_fixed_terms_only(ctx, option, method):
    fit = sr.select(ctx.y, ctx.x, method=method, **{option: 0})
    assert fit.selected_terms == [] and fit.search.n_tests == 0 and fit.search.stopped_by == option


# -- nothing the user passed is modified ------------------------------------------------------


def test_streamreg_leaves_the_data_unchanged(ctx):
    df = ctx.df.copy()
    df.loc[3, "x2"] = np.nan  # rows are dropped from a copy
    before = df.copy(deep=True)
    functions = {"double": lambda a: 2 * a}
    with pytest.warns(UserWarning, match="dropped 1 rows"):
        fit = sr.streamreg("y ~ C(g) + stream(x*) + transform(x3, fn=double)", df, functions=functions,
                           validate=0.3, seed=1)
    fit.predict(df.dropna())
    sr.streamreg("lab ~ stream(x*)", df.dropna(), family="binomial", method="stepwise-aic")
    pd.testing.assert_frame_equal(df, before)
    assert list(functions) == ["double"]
    wdbc = ctx.wdbc
    wdbc_before = wdbc.copy(deep=True)
    sr.streamreg("diagnosis ~ stream(*_mean)", wdbc, family="binomial", w0=0.05, alpha_delta=0.05)
    pd.testing.assert_frame_equal(wdbc, wdbc_before)


def test_select_leaves_arrays_and_frames_unchanged(ctx):
    x, y = ctx.x.copy(), ctx.ys.copy()
    # pandas inputs must share the response's row labels (else select() refuses them)
    cand = pd.DataFrame(ctx.x[:, 1:], columns=["b", "c", "d"], index=y.index)
    fixed = pd.DataFrame({"f": ctx.df["x4"].to_numpy()}, index=y.index)
    saved = (x.copy(), y.copy(), cand.copy(deep=True), fixed.copy(deep=True))
    for method in ("alpha-investing", "stepwise-aic", "grafting", "bp-sfs"):
        sr.select(y, {"arr": x[:, :1], "frame": cand}, fixed=fixed, method=method)
    sr.select(y, x, order="variance")
    sr.select(y, x, order="corr")
    np.testing.assert_array_equal(x, saved[0])
    pd.testing.assert_series_equal(y, saved[1])
    pd.testing.assert_frame_equal(cand, saved[2])
    pd.testing.assert_frame_equal(fixed, saved[3])


def test_failing_calls_leave_the_data_unchanged(ctx):
    df = ctx.df.copy()
    before = df.copy(deep=True)
    for formula in ("y ~ stream(x*, when)", "y ~ one + stream(x*)", "lab ~ stream(x*)"):
        with pytest.raises(ValueError):
            sr.streamreg(formula, df, family="poisson" if formula.startswith("lab") else "gaussian", w0=2)
    with pytest.raises(ValueError):
        sr.streamreg("y ~ stream(x*)", df.assign(x2=np.nan))
    pd.testing.assert_frame_equal(df, before)
    fixed = pd.DataFrame({"y": df["x2"]})
    fixed_before = fixed.copy(deep=True)
    with pytest.raises(ValueError):
        sr.select(df["y"], df[["x1"]], fixed=fixed)
    pd.testing.assert_frame_equal(fixed, fixed_before)
    pd.testing.assert_frame_equal(df, before)


def test_predict_on_missing_values_gives_nan_rows_as_statsmodels(ctx):
    """Not an error: rows with a missing value in a used column predict NaN (statsmodels' rule)."""
    new = ctx.df.assign(x1=np.nan)
    pred = ctx.fit.predict(new)
    assert len(pred) == len(new) and bool(np.isnan(np.asarray(pred, dtype=float)).all())
