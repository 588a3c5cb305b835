"""After an acceptance, what is left of a tall block is scored again in pieces of doubling size
(``PIECE_CELLS``), the rest parked until the piece before is used up.  The decisions, the
history and the fit are those of the whole rest scored at once (``PIECE_CELLS`` so large that
nothing is parked); only the candidates read differ, fewer when acceptances come close together.
Least squares only: a GLM multiplies every piece by its whole weighted basis again."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.models.base import CandidateBlock, Projections
from streamreg.models.basis import Basis
from streamreg.models.gaussian import GaussianState
from streamreg.models.glm import GLMState
from streamreg.search import streamwise_run

N = 300


def _problem(seed: int, family: str = "gaussian", m: int = 240):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, m))
    true = [3, 9, 14, 20, 130]  # close together at the start of the first block
    eta = x[:, true] @ np.array([0.9, -0.8, 0.7, -0.6, 0.5])
    if family == "binomial":
        return (rng.random(N) < 1 / (1 + np.exp(-eta))).astype(float), x
    return eta + rng.normal(size=N), x


CALLS: dict[str, Callable[[], Any]] = {
    "default rule": lambda: sr.select(*_problem(0)),
    "0.5/0.5, one pass": lambda: sr.select(*_problem(1), w0=0.5, alpha_delta=0.5, passes=1),
    "row-ordered, weights": lambda: sr.select(_problem(2)[0], np.ascontiguousarray(_problem(2)[1]),
                                              var_weights=np.random.default_rng(2).random(N) + 0.5),
    "history none": lambda: sr.select(*_problem(3), history="none"),
    "max_tests inside a piece": lambda: sr.select(*_problem(4), passes=1, max_tests=17),
    "two streams": lambda: sr.select(_problem(6)[0], {"a": _problem(6)[1][:, :120], "b": _problem(6)[1][:, 120:]},
                                     method="alpha-investing", w0=0.25, alpha_delta=0.25),
    "frame": lambda: sr.select(_problem(7)[0], pd.DataFrame(_problem(7)[1]).add_prefix("c")),
}


def _counting_reads(monkeypatch: pytest.MonkeyPatch, call: Callable[[], Any], piece_cells: int) -> tuple[Any, int]:
    """``call()`` with ``PIECE_CELLS = piece_cells``, and the candidate columns its scorings read."""
    read = [0]
    with monkeypatch.context() as mp:
        mp.setattr(streamwise_run, "PIECE_CELLS", piece_cells)
        for cls in (GaussianState, GLMState):
            score = cls.score_block

            def counting(self: Any, block: Any, score: Any = score) -> Any:
                if isinstance(block, CandidateBlock):
                    read[0] += block.unchecked_values.shape[1]
                return score(self, block)

            mp.setattr(cls, "score_block", counting)
        return call(), read[0]


@pytest.mark.parametrize("case", sorted(CALLS))
def test_pieces_decide_as_the_whole_rest(monkeypatch, case):
    pieces, read_pieces = _counting_reads(monkeypatch, CALLS[case], 2 * N)  # pieces of 2, 4, 8, ... candidates
    whole, read_whole = _counting_reads(monkeypatch, CALLS[case], 1 << 62)  # nothing parked
    assert pieces.selected_terms == whole.selected_terms
    assert len(pieces.selected_terms) >= 2
    exact = [c for c in ("test", "stream", "stream_test", "term", "df", "level", "wealth", "status", "accepted",
                         "pass") if c in whole.history.columns]
    pd.testing.assert_frame_equal(pieces.history[exact], whole.history[exact])
    for col in ("statistic", "log_p"):  # products over fewer columns at a time: equal to rounding
        np.testing.assert_allclose(pieces.history[col].to_numpy(float), whole.history[col].to_numpy(float),
                                   rtol=1e-10, atol=1e-300, equal_nan=True)
    pd.testing.assert_frame_equal(pieces.selected.drop(columns="time", errors="ignore"),
                                  whole.selected.drop(columns="time", errors="ignore"), rtol=1e-10)
    np.testing.assert_allclose(pieces.params.to_numpy(), whole.params.to_numpy(), rtol=1e-12)
    assert read_pieces < read_whole  # the acceptances at 3, 9, 14 and 20 void fewer scorings


def test_a_piece_is_a_view_with_its_products():
    """The head and tail of a block share its values and keep their columns' norms and products."""
    rng = np.random.default_rng(0)
    x = np.asfortranarray(rng.normal(size=(50, 9)))
    block = CandidateBlock(x, np.array([1, 2, 1, 1, 3, 1]))
    block.sq_norms()
    head, tail = block.head(2), block.tail(2)
    assert np.shares_memory(head.values, x) and np.shares_memory(tail.values, x)
    np.testing.assert_array_equal(head.values, x[:, :3])
    np.testing.assert_array_equal(tail.values, x[:, 3:])
    assert head.widths.tolist() == [1, 2] and tail.widths.tolist() == [1, 1, 3, 1]
    np.testing.assert_array_equal(head.norm2, block.norm2[:3])  # kept, not computed again
    assert np.shares_memory(head.norm2, block.norm2)
    np.testing.assert_allclose(head.norm2, (x[:, :3] ** 2).sum(0), rtol=1e-14)
    np.testing.assert_array_equal(block.head(6).values, x)
    basis = Basis(50)
    basis.append(x[:, :1])
    target = rng.normal(size=50)
    block.projections = Projections(basis, basis.q.T @ x, target, target @ x)
    np.testing.assert_array_equal(block.head(2).projections.qb, block.projections.qb[:, :3])
    np.testing.assert_array_equal(block.head(2).projections.rb, block.projections.rb[:3])
    assert block.head(2).projections.basis is basis and block.head(2).projections.target is target


def test_glm_blocks_are_scored_whole(monkeypatch):
    """A GLM rescores with its whole weighted basis, so small pieces would cost more: none are cut."""
    call = lambda: sr.select(*_problem(5, "binomial"), family="binomial")  # noqa: E731
    small, read_small = _counting_reads(monkeypatch, call, 2 * N)
    whole, read_whole = _counting_reads(monkeypatch, call, 1 << 62)
    assert read_small == read_whole
    assert small.selected_terms == whole.selected_terms and len(whole.selected_terms) >= 2
    pd.testing.assert_frame_equal(small.history, whole.history)
