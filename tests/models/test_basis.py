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
    q, r = cholesky_qr2(x)
    np.testing.assert_allclose(q @ r, x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q, at_once.q, atol=1e-14)
    assert np.all(np.diagonal(r) > 0) and np.allclose(r, np.triu(r))


def test_collinear_and_nearly_collinear_blocks_go_column_by_column(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 4))
    calls = []
    cholesky = basis_module.cholesky_qr2_in_place
    monkeypatch.setattr(basis_module, "cholesky_qr2_in_place", lambda c: calls.append(c.shape) or cholesky(c))
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
    x[3, 1] = np.inf
    assert cholesky_qr2(x) is None


def test_the_factorisation_leaves_its_input_alone_and_checks_its_layout():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((200, 3))
    before = x.copy()
    q, r = cholesky_qr2(x)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(q, np.linalg.qr(x)[0] * np.sign(np.diagonal(np.linalg.qr(x)[1])), atol=1e-13)
    with pytest.raises(ValueError, match="column-ordered float64"):
        basis_module.cholesky_qr2_in_place(np.ascontiguousarray(x))


@pytest.mark.parametrize("collinear", [False, True])
def test_a_row_scaled_block_equals_the_scaled_columns(collinear):
    rng = np.random.default_rng(5)
    x = np.asfortranarray(rng.standard_normal((400, 4)))
    if collinear:  # Cholesky QR declines: the Gram-Schmidt path scales the columns itself
        x[:, 3] = x[:, 0] + x[:, 1]
    scale = rng.uniform(0.1, 2.0, 400)
    before = x.copy()
    scaled = Basis(400, capacity=5)
    added = scaled.append(x, row_scale=scale)
    reference = _column_by_column(scale[:, None] * x)
    assert added == reference.k == (3 if collinear else 4)
    np.testing.assert_allclose(scaled.q, reference.q, atol=1e-12)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("closeness", [1.0, 1e-3, 1e-6])
def test_a_column_projected_once_or_twice_leaves_q_orthonormal(closeness):
    """One projection where the column keeps most of its norm, two where it cancels: Q stays
    orthonormal to rounding either way, and spans the same space as numpy's QR."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3000, 5))
    # the last column: a mix of the others plus a part of relative size `closeness`
    x[:, 4] = x[:, :4] @ rng.standard_normal(4) * (1.0 - closeness) + closeness * x[:, 4]
    b = _column_by_column(x)
    assert b.k == 5
    np.testing.assert_allclose(b.q.T @ b.q, np.eye(5), rtol=0, atol=2e-15)
    q_ref, _ = np.linalg.qr(x)
    np.testing.assert_allclose(np.abs(b.q.T @ q_ref), np.eye(5), rtol=0, atol=1e-9)


def test_the_second_projection_runs_only_after_cancellation(monkeypatch):
    calls = []
    real_norm = np.linalg.norm
    monkeypatch.setattr(basis_module.np.linalg, "norm", lambda v: calls.append(1) or real_norm(v))
    rng = np.random.default_rng(3)
    base = rng.standard_normal((200, 1))
    for column, norms in ((rng.standard_normal((200, 1)), 2), (base + 1e-4 * rng.standard_normal((200, 1)), 3)):
        b = Basis(200)
        b.append(base)
        calls.clear()
        assert b.append(column) == 1
        assert len(calls) == norms  # the column's norm, then one per projection


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("scratch", [False, True])
def test_appended_columns_are_overwritten_only_when_given_as_scratch(order, scratch):
    """Gram-Schmidt works in place on a scratch column (no copy of it); the caller's columns are
    left alone otherwise, and both give numpy's QR directions."""
    rng = np.random.default_rng(5)
    x = np.asarray(rng.standard_normal((400, 4)), order=order)
    b = Basis(400)
    b.append(x[:, :2])
    given = np.asarray(x[:, 2:], order=order).copy(order="K")
    before = given.copy()
    assert b.append(given, scratch=scratch) == 2
    q_ref, _ = np.linalg.qr(x)
    np.testing.assert_allclose(np.abs(b.q.T @ q_ref), np.eye(4), rtol=0, atol=1e-12)
    if not scratch:
        np.testing.assert_array_equal(given, before)


def test_project_out_equals_the_two_products_and_leaves_q_alone():
    rng = np.random.default_rng(8)
    q, _ = np.linalg.qr(rng.standard_normal((1000, 5)))
    q = np.asfortranarray(q)
    q_before, v = q.copy(), rng.standard_normal(1000)
    expected = v - q @ (q.T @ v)
    out = basis_module.project_out(q, v)
    assert out is v  # written over v
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(q, q_before)
    empty = rng.standard_normal(1000)
    np.testing.assert_array_equal(basis_module.project_out(q[:, :0], empty.copy()), empty)
