"""The model basis: a block appended to an empty basis at once (Cholesky QR twice) gives the Q of
column-by-column Gram-Schmidt, and the cases Cholesky QR declines go column by column."""
import numpy as np
import pytest

from streamreg.models import basis as basis_module
from streamreg.models.basis import Basis, cholesky_qr2


def _column_by_column(x: np.ndarray) -> Basis:
    b = Basis(x.shape[0], capacity=x.shape[1])
    for j in range(x.shape[1]):
        b.append(x[:, j : j + 1])
    return b


@pytest.mark.parametrize("n, k", [(40, 3), (500, 6), (20_000, 8)])
def test_a_block_on_an_empty_basis_equals_gram_schmidt(n, k):
    rng = np.random.default_rng(n + k)
    x = rng.standard_normal((n, k)) * rng.uniform(0.5, 1.0, k) + rng.standard_normal(k)
    at_once = Basis(n, capacity=k)
    assert at_once.append(x) == k
    one_by_one = _column_by_column(x)
    np.testing.assert_allclose(at_once.q, one_by_one.q, atol=1e-12)
    np.testing.assert_allclose(at_once.q.T @ at_once.q, np.eye(k), atol=1e-14)
    qt, r = cholesky_qr2(x)
    np.testing.assert_allclose(qt.T @ r, x, rtol=1e-12, atol=1e-12)
    assert np.all(np.diagonal(r) > 0) and np.allclose(r, np.triu(r))


def test_collinear_and_nearly_collinear_blocks_go_column_by_column(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 4))
    calls = []
    cholesky = basis_module.cholesky_qr2
    monkeypatch.setattr(basis_module, "cholesky_qr2", lambda c: calls.append(c.shape) or cholesky(c))
    copy = np.column_stack([x, x[:, 1]])  # a repeated column: Cholesky fails, Gram-Schmidt skips it
    b = Basis(300, capacity=6)
    assert b.append(copy) == 4 and calls == [(300, 5)]
    np.testing.assert_allclose(b.q, _column_by_column(x).q, atol=1e-12)
    near = np.column_stack([x, x[:, 2] + 1e-6 * rng.standard_normal(300)])  # independent, but within 1e-5
    assert cholesky_qr2(near) is None
    b = Basis(300, capacity=6)
    assert b.append(near) == 5  # kept by Gram-Schmidt (above its 1e-7 cut-off)
    np.testing.assert_allclose(b.q.T @ b.q, np.eye(5), atol=1e-12)


def test_non_finite_columns_are_not_factored():
    x = np.ones((10, 2))
    x[3, 1] = np.nan
    assert cholesky_qr2(x) is None
