"""``online_fdr`` checks its method options as ``streamreg()``/``select()`` do
(an initial wealth above 1 is refused), and refuses text and boolean p-values."""
import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.policies import get_policy

P = [0.9, 0.01, 0.2, 0.03]
W0 = r"w0 must be a number in \(0, 1\], got 2"


@pytest.mark.parametrize("method", ["alpha-investing", "foster-stine"])
def test_initial_wealth_above_one_is_refused_as_by_the_search(method):
    with pytest.raises(ValueError, match=W0):
        sr.online_fdr(P, method=method, w0=2)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    with pytest.raises(ValueError, match=W0):  # the same message from the search
        sr.select(X[:, 0] + rng.normal(size=30), X, method=method, w0=2)


def test_policy_instances_with_a_large_wealth_are_refused_too():
    with pytest.raises(ValueError, match=W0):
        sr.online_fdr(P, get_policy("alpha-investing", w0=2))


def test_option_types_are_checked_before_the_rule_runs():
    with pytest.raises(TypeError, match="option w0 of method 'alpha-investing' must be a number, got '0.5'"):
        sr.online_fdr(P, method="alpha-investing", w0="0.5")


def test_valid_options_still_work():
    out = sr.online_fdr(P, method="alpha-investing", w0=1.0, alpha_delta=0.05)
    assert list(out.columns) == ["pval", "alphai", "R"]
    assert sr.online_fdr(P, method="lord++", alpha=0.1, w0=0.01)["R"].dtype == np.int64


@pytest.mark.parametrize("pvalues, message", [
    (["0.01", "0.2"], "pvalues must be numbers, not text; position 0 holds '0.01'"),
    ([0.01, "0.2"], "pvalues must be numbers, not text; position 1 holds '0.2'"),
    (np.array(["0.01"]), "pvalues must be numbers, not text"),
    (pd.Series(["0.01", "0.2"]), "pvalues must be numbers, not text"),
    (pd.DataFrame({"pval": ["0.01"]}), "pvalues must be numbers, not text"),
    ([True, False], "pvalues must be numbers in \\[0, 1\\], got booleans: pass the p-values, not the rejections"),
    ([0.5, True], "got booleans.*position 1 holds True"),
    (np.array([True, False]), "got booleans"),
    (pd.Series([True, False], dtype="boolean"), "got booleans"),
])
def test_text_and_booleans_are_refused(pvalues, message):
    with pytest.raises(ValueError, match=message):
        sr.online_fdr(pvalues)


def test_the_callers_input_is_not_modified():
    p = pd.Series([0.01, 0.5])
    before = p.copy()
    sr.online_fdr(p)
    pd.testing.assert_series_equal(p, before)
