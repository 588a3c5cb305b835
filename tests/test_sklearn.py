"""streamreg.sklearn.StreamwiseSelector: scikit-learn's estimator checks, the same answer as
streamreg.select, pipelines, grid searches and set_output; scikit-learn stays optional."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import streamreg as sr
from streamreg.sklearn import StreamwiseSelector

# scikit-learn's checks fit on its own data: a regression-like response (0, 1, 2, ... or
# continuous) that the binomial family cannot model.  These checks are about fitting and
# validating X; the binomial selector is checked on 0/1 responses in the tests below.
_BINOMIAL_Y = ("the binomial family needs a 0/1 (or two-level) response; this check fits a response with "
               "three or more levels, which streamreg refuses with a ValueError")
_BINOMIAL_FAILURES = {
    name: _BINOMIAL_Y
    for name in (
        "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
        "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
        "check_estimators_dtypes", "check_dtype_object", "check_f_contiguous_array_estimator",
        "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1feature",
        "check_dict_unchanged", "check_fit2d_predict1d",
    )
}
_BINOMIAL_FAILURES["check_positive_only_tag_during_fit"] = (
    _BINOMIAL_Y + " (the check reads that ValueError as a refusal of negative X values)")


def _expected_failures(estimator: StreamwiseSelector) -> dict[str, str]:
    return _BINOMIAL_FAILURES if estimator.family == "binomial" else {}


@parametrize_with_checks(
    [
        StreamwiseSelector(),
        StreamwiseSelector(family="poisson"),
        StreamwiseSelector(family="binomial"),
        StreamwiseSelector(method="alpha-investing", method_options={"w0": 0.5}),  # a liberal rule
    ],
    expected_failed_checks=_expected_failures,
    xfail_strict=True,
)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "No features were selected", UserWarning)
        check(estimator)


def _data(n=200, p=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    eta = 1.5 * X[:, 3] - X[:, 17] + 0.8 * X[:, 30]
    return X, eta, rng


def _same(a: sr.StreamRegResults, b: sr.StreamRegResults) -> None:
    assert a.selected_terms == b.selected_terms
    pd.testing.assert_frame_equal(a.history, b.history)
    pd.testing.assert_series_equal(a.params, b.params)
    assert a.stopped_by == b.stopped_by


@pytest.mark.parametrize("kwargs", [
    {},
    {"method_options": {"w0": 0.1, "alpha_delta": 0.1}},
    {"passes": 1},
    {"method": "alpha-investing"},
    {"method": "lord++", "block_size": 7},
    {"order": "random", "seed": 3},
    {"max_selected": 2},
])
def test_gaussian_equals_select_on_an_array(kwargs):
    X, eta, rng = _data()
    y = eta + rng.normal(size=len(eta))
    sel = StreamwiseSelector(**kwargs).fit(X, y)
    opts = dict(kwargs)
    ref = sr.select(y, X, **{k: v for k, v in opts.items() if k != "method_options"}, **opts.get("method_options", {}))
    _same(sel.results_, ref)
    assert sel.selected_ == ref.selected_terms
    expected = np.zeros(X.shape[1], bool)
    expected[[int(t[1:]) for t in ref.selected_terms]] = True
    np.testing.assert_array_equal(sel.support_, expected)
    np.testing.assert_array_equal(sel.transform(X), X[:, expected])
    assert sel.n_features_in_ == X.shape[1]
    assert not hasattr(sel, "feature_names_in_")


def test_a_frame_keeps_its_column_names():
    X, eta, rng = _data()
    y = eta + rng.normal(size=len(eta))
    df = pd.DataFrame(X, columns=[f"gene {j}" for j in range(X.shape[1])], index=np.arange(1000, 1200))
    sel = StreamwiseSelector().fit(df, pd.Series(y, index=df.index))
    _same(sel.results_, sr.select(y, df.reset_index(drop=True)))
    assert sel.selected_ == ["gene 3", "gene 17", "gene 30"]
    np.testing.assert_array_equal(sel.feature_names_in_, df.columns)
    np.testing.assert_array_equal(sel.get_feature_names_out(), ["gene 3", "gene 17", "gene 30"])
    out = sel.set_output(transform="pandas").transform(df)
    pd.testing.assert_frame_equal(out, df[["gene 3", "gene 17", "gene 30"]])


def test_a_column_named_like_the_response():
    X, eta, rng = _data()
    y = eta + rng.normal(size=len(eta))
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).rename(columns={"x17": "y"})
    sel = StreamwiseSelector().fit(df, y)
    assert sel.selected_ == ["x3", "y", "x30"]
    assert sel.results_.response_name == "y_"


def test_binomial_and_poisson_equal_select():
    X, eta, rng = _data(n=400)
    yb = (rng.random(len(eta)) < 1 / (1 + np.exp(-eta))).astype(float)
    sel = StreamwiseSelector(family="binomial").fit(X, yb)
    _same(sel.results_, sr.select(yb, X, family="binomial"))
    assert {"x3", "x17"} <= set(sel.selected_)
    labels = np.where(yb == 1, "case", "control")  # two levels as text, as select() takes them
    _same(StreamwiseSelector(family="binomial").fit(X, labels).results_, sr.select(labels, X, family="binomial"))
    yp = rng.poisson(np.exp(0.3 * eta)).astype(float)
    sel = StreamwiseSelector(family="poisson", test="lr").fit(X, yp)
    _same(sel.results_, sr.select(yp, X, family="poisson", test="lr"))


def test_fit_params_reach_select():
    X, eta, rng = _data()
    y = eta + rng.normal(size=len(eta))
    w = rng.integers(1, 4, size=len(y)).astype(float)
    sel = StreamwiseSelector().fit(X, y, freq_weights=w)
    _same(sel.results_, sr.select(y, X, freq_weights=w))
    with pytest.raises(TypeError, match="sample_weight"):
        StreamwiseSelector().fit(X, y, sample_weight=w)


def test_nothing_selected_gives_no_columns():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(60, 5)), rng.normal(size=60)
    sel = StreamwiseSelector(method_options={"w0": 1e-6, "alpha_delta": 1e-6}).fit(X, y)
    assert not sel.support_.any() and sel.selected_ == []
    with pytest.warns(UserWarning, match="No features were selected"):
        assert sel.transform(X).shape == (60, 0)


def test_pipeline_and_grid_search_over_the_rules_options():
    X, eta, rng = _data(n=300)
    y = eta + rng.normal(size=len(eta))
    pipe = Pipeline([("select", StreamwiseSelector()), ("ols", LinearRegression())])
    grid = GridSearchCV(pipe, {"select__method_options": [{"w0": 0.01}, {"w0": 0.05, "alpha_delta": 0.2}],
                               "select__passes": [1, 3]}, cv=3)
    grid.fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    best = grid.best_estimator_.named_steps["select"]
    _same(best.results_, sr.select(y, X, passes=grid.best_params_["select__passes"],
                                   **grid.best_params_["select__method_options"]))
    assert grid.score(X, y) > 0.5
    # the grid's template is untouched (store-only constructor, clone-able parameters)
    assert pipe.named_steps["select"].method_options is None
    assert clone(best).get_params()["method_options"] == best.method_options

    yb = (eta > 0).astype(int)
    clf = Pipeline([("select", StreamwiseSelector(family="binomial")), ("logit", LogisticRegression())])
    assert clf.fit(X, yb).score(X, yb) > 0.8


def test_importing_streamreg_does_not_import_scikit_learn():
    code = "import sys, streamreg; assert 'sklearn' not in sys.modules, 'streamreg imported sklearn'"
    subprocess.run([sys.executable, "-c", code], check=True)
