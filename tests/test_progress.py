"""The progress bar of ``verbose=`` (streamreg.progress): what it shows, when, and that it closes."""
from __future__ import annotations

import io
import itertools
import math
import re

import numpy as np
import pytest
from tqdm import tqdm

import streamreg as sr
from streamreg.progress import SearchProgress
from streamreg.search import streamwise_run

N = 60


def data(m: int = 3000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, m))
    return X, X[:, 5] - X[:, 2 * m // 5] + 0.5 * rng.normal(size=N)


def states(err: str) -> list[str]:
    """Every state the bar was drawn in (tqdm redraws the line after a carriage return)."""
    return [s.strip() for s in re.split(r"[\r\n]", err) if s.strip()]


def count(state: str) -> int:
    """Tests done in one drawn state: ``123/3000`` with a known total, ``123test`` without."""
    m = re.search(r"(\d+)/\d+ \[", state) or re.search(r"(\d+)test \[", state)
    assert m, state
    return int(m.group(1))


def test_bar_shows_tests_selected_and_wealth(capsys):
    X, y = data()
    fit = sr.select(y, X, method="alpha-investing", w0=0.05, alpha_delta=0.05, verbose=True)
    out, err = capsys.readouterr()
    assert out == ""
    last = states(err)[-1]
    assert last.startswith("alpha-investing: 100%")
    assert "3000/3000 [" in last  # an array stream: its length is the total
    assert f"selected={len(fit.selected)}," in last and len(fit.selected) == 2
    wealth = float(re.search(r"wealth=([-0-9.e]+)", last).group(1))
    assert wealth == pytest.approx(fit.per_stream["final_wealth"].sum(), rel=1e-3)  # printed with 4 digits


def test_several_streams_report_their_total_wealth(capsys):
    X, y = data(m=400)
    fit = sr.select(y, {"a": X[:, :200], "b": X[:, 200:]}, method="alpha-investing", w0=0.05, alpha_delta=0.05,
                    verbose=True)
    last = states(capsys.readouterr().err)[-1]
    assert "400/400 [" in last
    wealth = float(re.search(r"wealth=([-0-9.e]+)", last).group(1))
    assert wealth == pytest.approx(fit.per_stream["final_wealth"].sum(), rel=1e-3)


def test_verbose_false_prints_nothing(capsys):
    X, y = data(m=500)
    sr.select(y, X, verbose=False)
    sr.select(y, X[:, :30], method="stepwise-bic", verbose=0)
    assert capsys.readouterr() == ("", "")


def test_verbose_n_redraws_each_time_n_more_tests_are_done(capsys, monkeypatch):
    # blocks of block_size columns, doubling (an array on few rows otherwise starts with a
    # block of SMALL_BLOCK_CELLS values, and this test counts redraws at block ends)
    monkeypatch.setattr(streamwise_run, "SMALL_BLOCK_CELLS", 0)
    X, y = data(m=3000)
    sr.select(y, X, method="alpha-investing", w0=0.05, alpha_delta=0.05, verbose=250, block_size=64)
    shown = [count(s) for s in states(capsys.readouterr().err)]
    assert shown[0] == 0 and shown[-1] == 3000
    middle = shown[1:-1]
    # one redraw per block that crosses a multiple of 250, never two within the same 250 tests
    assert middle == sorted(middle)
    assert all(a // 250 < b // 250 for a, b in itertools.pairwise(middle))
    assert len(middle) >= 4  # blocks of 64, 128, 256, ... tests: redrawn at their ends, not only at the last


def test_unknown_length_gives_an_open_ended_counter(capsys):
    rng = np.random.default_rng(3)
    y = rng.normal(size=N)

    def gen():
        for j in itertools.count():
            yield f"g{j}", rng.normal(size=N)

    sr.select(y, (c for c in itertools.islice(gen(), 700)), method="alpha-investing", max_tests=math.inf,
              verbose=True)
    last = states(capsys.readouterr().err)[-1]
    assert re.search(r"^alpha-investing: 700test \[", last), last  # no total, no percentage


def test_max_tests_is_the_total(capsys):
    X, y = data(m=3000)
    sr.select(y, X, max_tests=1000, verbose=True)
    assert "1000/1000 [" in states(capsys.readouterr().err)[-1]


def test_stepwise_bar_counts_candidate_evaluations(capsys):
    X, y = data(m=40)
    fit = sr.select(y, X, method="stepwise-bic", verbose=True)
    last = states(capsys.readouterr().err)[-1]
    assert last.startswith("stepwise: ")
    assert count(last) == fit.search.n_tests
    assert f"selected={len(fit.selected)}" in last


@pytest.mark.parametrize("exc", [ValueError, KeyboardInterrupt])
def test_bar_is_closed_when_the_search_fails(capsys, exc):
    rng = np.random.default_rng(4)
    y = rng.normal(size=N)

    def gen():
        for j in range(2000):
            if j == 1500:
                if exc is ValueError:
                    yield "bad", np.full(N, np.nan)  # the driver refuses a NaN candidate
                raise exc
            yield f"g{j}", rng.normal(size=N)

    with pytest.raises(exc):
        sr.select(y, gen(), max_tests=math.inf, verbose=True, block_size=100)
    err = capsys.readouterr().err
    assert err.endswith("\n")  # tqdm's close ends the line
    assert len(tqdm._instances) == 0  # type: ignore[attr-defined]
    assert count(states(err)[-1]) <= 1500  # the tests done before the failure


def test_search_progress_to_a_file_object():
    out = io.StringIO()
    with SearchProgress(100, total=None, desc="demo", file=out) as bar:
        for tests in (40, 90, 120, 180, 260):
            bar.update(tests, selected=tests // 100, wealth=lambda: 0.5)
    shown = [count(s) for s in states(out.getvalue())]
    assert shown == [0, 120, 260, 260]  # drawn at 100 and 200 crossed, then closed
    assert "selected=2, wealth=0.5" in states(out.getvalue())[-1]
    silent = io.StringIO()
    with SearchProgress(False, file=silent) as bar:
        bar.update(10, 1)
    assert silent.getvalue() == ""
