"""A least-squares confirmation after backward elimination dropped a screened term scores the other
candidates from the products their last screening test kept (``GaussianState.score_kept``), without
reading them again: every test equals the re-read one (1e-10) and statsmodels' partial F (1e-8)."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.models.gaussian import GaussianState
from streamreg.streams.passes import PassesStream


def _problem(seed: int, extra: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Screened terms of which backward elimination drops at least one (screen_w0=1.0); with
    ``extra``, a copy of x3 and a near-copy of x50 (1e-3 apart: its residual on the model is
    recomputed from its values) after them in the stream."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((120, 300))
    y = x[:, [3, 50, 200]] @ np.array([0.5, -0.5, 0.5]) + rng.standard_normal(120)
    if extra:
        x = np.column_stack([x, x[:, 3], x[:, 50] + 1e-3 * rng.standard_normal(120)])
    return x, y


def _select(x: np.ndarray, y: np.ndarray) -> sr.SelectResults:
    return sr.select(y, x, method="screen-confirm", passes=2, screen_w0=1.0)


def _confirmation(fit: sr.SelectResults) -> pd.DataFrame:
    h = fit.history
    return h[h["pass"] == h["pass"].max()].reset_index(drop=True)


@pytest.mark.parametrize("seed", [1, 6])
@pytest.mark.parametrize("extra", [False, True])
def test_tests_from_kept_products_equal_the_re_read_tests(seed: int, extra: bool, monkeypatch) -> None:
    x, y = _problem(seed, extra)
    calls: list[bool] = []
    score_kept = GaussianState.score_kept

    def spied(self, parent, kept, read):
        out = score_kept(self, parent, kept, read)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(GaussianState, "score_kept", spied)
    fit = _select(x, y)
    assert calls and all(calls)  # every held entry was scored from its products
    monkeypatch.setattr(GaussianState, "score_kept", lambda self, parent, kept, read: None)
    reread = _select(x, y)
    new, old = _confirmation(fit), _confirmation(reread)
    assert fit.selected_terms == reread.selected_terms == ["x3", "x50", "x200"]
    assert new["term"].tolist() == old["term"].tolist() and new["status"].tolist() == old["status"].tolist()
    for col in ("statistic", "df", "pvalue", "wealth"):
        np.testing.assert_allclose(new[col].to_numpy(float), old[col].to_numpy(float), rtol=1e-10, atol=1e-300)
    if extra:  # the copy of x3 is collinear with the kept terms: not tested, in either run
        assert "x300" not in set(new["term"]) and "x300" not in set(old["term"])


@pytest.mark.parametrize("seed", [1, 6])
def test_tests_from_kept_products_equal_statsmodels(seed: int) -> None:
    x, y = _problem(seed, extra=True)
    fit = _select(x, y)
    confirming = _confirmation(fit)
    screened = fit.history.loc[fit.history["status"] == "screened in", "term"].tolist()
    kept = [int(t[1:]) for t in fit.selected_terms]
    base = sm.OLS(y, sm.add_constant(x[:, kept])).fit()
    others = confirming[~confirming["term"].isin(screened)]
    near = others[others["term"] == "x301"]
    assert len(near) == 1  # the near-copy of x50 is tested: its residual recomputed from its values
    for row in pd.concat([others.head(40), near]).itertuples():
        full = sm.OLS(y, sm.add_constant(x[:, kept + [int(row.term[1:])]])).fit()
        f, p, _ = full.compare_f_test(base)
        assert row.statistic == pytest.approx(f, rel=1e-8)
        assert row.pvalue == pytest.approx(p, rel=1e-8, abs=1e-300)


def test_the_confirmation_reads_no_candidate_it_scores_from_products(monkeypatch) -> None:
    x, y = _problem(1)
    reads: list[int] = []
    read = PassesStream.read

    def counted(self, entry):
        if sys._getframe(1).f_code.co_filename.endswith("confirm.py"):  # the confirmation's reads only
            reads.append(len(entry))
        return read(self, entry)

    monkeypatch.setattr(PassesStream, "read", counted)
    fit = _select(x, y)
    entered = len(fit.selected_terms) - 3  # beyond the three kept screened terms
    assert len(reads) == entered  # only the blocks of candidates the confirmation accepted
