"""validate=: factor levels missing from the held-out rows are refused (fixed, one level left) or reported."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.results.refit import RefitWarning


@pytest.fixture(scope="module")
def cleve() -> pd.DataFrame:
    d = sr.datasets.load("cleve").data.dropna().reset_index(drop=True)
    return d.assign(grp=np.where(d.age > 55, "o", "y"))


def test_fixed_factor_with_one_held_out_level_is_refused(cleve):
    hold = np.zeros(len(cleve), bool)
    hold[np.flatnonzero(cleve.grp == "y")[:40]] = True
    before = cleve.copy(deep=True)
    with pytest.raises(ValueError, match=r"^fixed column 'grp' is a factor with a single level 'y' in the held-out "
                       r"rows \(validate=\): the refit cannot estimate its effect there"):
        sr.streamreg("chol ~ C(grp) + stream(thalach, trestbps)", cleve, validate=hold)
    pd.testing.assert_frame_equal(cleve, before)


def test_fixed_factor_losing_a_level_is_reported(cleve):
    levels = sorted(cleve.cp.unique())
    hold = np.zeros(len(cleve), bool)
    hold[np.flatnonzero(cleve.cp != levels[0])[::2]] = True  # the baseline level only on the selection side
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = sr.streamreg("chol ~ C(cp) + stream(thalach, trestbps)", cleve, validate=hold)
    msgs = [str(w.message) for w in caught if issubclass(w.category, RefitWarning)]
    expected = (f"level(s) {levels[0]!r} of 'cp' do not occur in the held-out rows: the refit codes it with the "
                "levels present there")
    assert len(msgs) == 1 and expected in msgs[0]
    assert any(expected in p for p in fit.refit_warnings)
    text = " ".join(str(fit.summary()).split())  # the summary wraps its notes
    assert f"WARNING: Level(s) {levels[0]!r} of 'cp' do not occur in the held-out rows" in text
    # the refit itself is the held-out rows' own fit: its intercept is now the mean of another baseline
    assert f"C(cp)[T.{levels[0]}]" not in fit.params.index


def test_complete_levels_give_no_warning(cleve):
    rng = np.random.default_rng(0)
    hold = rng.random(len(cleve)) < 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", RefitWarning)
        fit = sr.streamreg("chol ~ C(sex) + stream(thalach, trestbps)", cleve, validate=hold)
    assert fit.refit_warnings == []
