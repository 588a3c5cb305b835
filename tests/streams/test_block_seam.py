"""Where candidate values live is a declared seam: ``models.base.CandidateValues``.

A block backed by a scipy.sparse matrix, written here against the protocol alone (no
package file changes), runs the streamwise search with the same decisions and p-values as
the numpy path: least squares and a logistic GLM (whose scoring weights the rows), over two
passes (a re-offered block is copied through ``values``).  Its one pass per block is a
sparse product; only the few columns the scoring rescues are made dense.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import streamreg as sr
from streamreg.models.base import (
    CandidateBlock,
    CandidateValues,
    column_norms,
    gain_from_products,
)
from streamreg.streams.base import NameRange, Stream, TermBlock


class SparseBlock:
    """Consecutive single-column candidates held as columns of a CSC matrix."""

    def __init__(self, x: sp.csc_matrix):
        self.x = x
        self.widths = np.ones(x.shape[1], dtype=int)
        self.starts = np.arange(x.shape[1])

    @property
    def values(self) -> np.ndarray:
        return self.x.toarray()

    def __len__(self) -> int:
        return self.x.shape[1]

    def term(self, j: int) -> np.ndarray:
        return self.x[:, [j]].toarray()

    def sq_norms(self) -> np.ndarray:
        return np.asarray(self.x.multiply(self.x).sum(axis=0)).ravel()

    def reduce_single(self, q_and_target: np.ndarray,
                      row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        x = self.x if row_weights is None else sp.csc_matrix(sp.diags(row_weights) @ self.x)
        products = np.asarray((x.T @ q_and_target).T)
        norm2 = np.asarray(x.multiply(x).sum(axis=0)).ravel()
        return gain_from_products(q_and_target, products, norm2, lambda idx: x[:, idx].toarray())

    def constant_terms(self, terms: np.ndarray) -> np.ndarray:
        sub = self.x[:, terms].toarray()
        return np.ptp(sub, axis=0) == 0 if sub.shape[0] else np.ones(len(terms), dtype=bool)

    def tail(self, start: int) -> SparseBlock:
        return SparseBlock(self.x[:, start:])


class SparseStream(Stream):
    """The columns of a sparse matrix as single-column candidates, named ``x0``, ``x1``, ..."""

    def __init__(self, name: str, x: sp.spmatrix):
        super().__init__(name)
        self.x, self.position = sp.csc_matrix(x, dtype=float), 0
        self.n_candidates = self.x.shape[1]
        self.names = NameRange("x", 0, self.n_candidates)

    def _next_block(self, k: int) -> TermBlock | None:
        start, stop = self.position, min(self.position + k, self.x.shape[1])
        self.position = stop
        if start >= stop:
            return None
        return TermBlock(self.name, self.names[start:stop], SparseBlock(self.x[:, start:stop]))


def _data(seed: int, n: int = 400, m: int = 400) -> tuple[sp.csc_matrix, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = sp.random(n, m, density=0.2, random_state=seed, format="csc", data_rvs=rng.standard_normal)
    x = x.tolil()
    x[:, 7] = 0.0  # an all-zero column: skipped as constant on both paths
    x = sp.csc_matrix(x)
    signal = x[:, [3, 50, 220]].toarray() @ np.array([3.0, -2.5, 2.0])
    return x, signal + rng.normal(size=n)


def test_the_dense_and_the_sparse_block_implement_the_protocol():
    blocks: list[CandidateValues] = [CandidateBlock(np.eye(3)), SparseBlock(sp.csc_matrix(np.eye(3)))]
    for block in blocks:
        np.testing.assert_array_equal(block.sq_norms(), column_norms(np.eye(3)))
        assert len(block.tail(1)) == 2


@pytest.mark.parametrize("family", ["gaussian", "binomial"])
def test_a_sparse_block_searches_as_the_dense_one(family):
    x, eta = _data(0)
    y = eta if family == "gaussian" else (eta > np.median(eta)).astype(float)
    options = {"family": family, "method": "alpha-investing", "passes": 2, "block_size": 64}
    dense = sr.select(y, x.toarray(), **options)
    sparse = sr.select(y, SparseStream("stream1", x), **options)
    assert sparse.selected_terms == dense.selected_terms and len(dense.selected_terms) >= 3
    hd, hs = dense.history, sparse.history
    assert list(hs["term"]) == list(hd["term"]) and list(hs["status"]) == list(hd["status"])
    assert set(hd["pass"]) == {1, 2}
    np.testing.assert_allclose(hs["statistic"], hd["statistic"], rtol=1e-8)
    np.testing.assert_allclose(hs["log_p"], hd["log_p"], rtol=1e-8)
    np.testing.assert_allclose(sparse.params, dense.params, rtol=1e-10)
