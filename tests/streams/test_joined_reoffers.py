"""Re-offers joined into one block per pass: the same candidates in the same order, the same
decisions and history as when each waits as its own block (``JOIN_CELLS = 0`` turns joining off)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from driver_runs import with_and_without

import streamreg as sr
from streamreg.streams import passes
from streamreg.streams.passes import Joined


def test_joined_reads_as_the_concatenation():
    parts = [["a", "b"], [], ["c"], ["d", "e", "f"]]
    flat = [v for p in parts for v in p]
    joined = Joined(parts)
    assert len(joined) == len(flat)
    assert [joined[i] for i in range(len(flat))] == flat
    assert [joined[-i] for i in range(1, len(flat) + 1)] == [flat[-i] for i in range(1, len(flat) + 1)]
    for lo in range(len(flat) + 1):
        for hi in range(lo, len(flat) + 2):
            assert list(joined[lo:hi]) == flat[lo:hi]
    assert list(joined[::2]) == flat[::2]
    with pytest.raises(IndexError):
        joined[len(flat)]
    assert len(Joined([])) == 0


def _problem(seed: int, n: int = 100, m: int = 600):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    y = x[:, [5, 90, 200, 410]] @ np.array([1.0, 0.8, 0.6, 0.5]) + rng.normal(size=n)
    return y, x


CALLS = {
    "array": lambda: sr.select(*_problem(0), passes=3),
    "c-ordered copy": lambda: sr.select(_problem(1)[0], np.ascontiguousarray(_problem(1)[1]), passes=3,
                                        w0=0.2, alpha_delta=0.2),
    "generator": lambda: sr.select(_problem(2)[0], ((f"g{j}", c) for j, c in enumerate(_problem(2)[1].T)),
                                   passes=3, max_tests=10**6),
    "frame": lambda: sr.streamreg("y ~ stream(x*)", pd.DataFrame(_problem(3)[1]).add_prefix("x").assign(
        y=_problem(3)[0]), passes=2),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_joined_reoffers_decide_as_separate_ones(monkeypatch, case):
    joined, runs_joined, separate, runs_separate = with_and_without(monkeypatch, CALLS[case], passes, "JOIN_CELLS")
    assert runs_joined < runs_separate  # fewer runs: what the joining is for
    assert joined.selected_terms == separate.selected_terms
    hist_j, hist_s = joined.history, separate.history
    assert (hist_j["pass"] > 1).any()
    pd.testing.assert_frame_equal(hist_j.drop(columns=["statistic", "pvalue", "log_p"]),
                                  hist_s.drop(columns=["statistic", "pvalue", "log_p"]))
    # a joined block is scored by one product where its parts took several: equal to rounding
    for col in ("statistic", "pvalue", "log_p"):
        np.testing.assert_allclose(hist_j[col].to_numpy(float), hist_s[col].to_numpy(float), rtol=1e-10,
                                   atol=0, equal_nan=True)
    np.testing.assert_allclose(joined.params.to_numpy(), separate.params.to_numpy(), rtol=1e-12)
