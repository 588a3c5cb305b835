"""The scoring kernels: numba's fused pass against numpy's two passes, and the choice between them.

The products ``[Q t]'B`` are checked against numpy's BLAS product within 1e-12 of the size
of the terms summed (``|Q|'|B|``: a sum's rounding error is relative to that, not to the sum,
which may cancel to near zero), the norms within 1e-12 relative (sums of squares do not
cancel).  select() runs each problem with both backends and compares the decisions.  The
tests that need numba skip without it (CI installs only the test extra).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.models import kernels
from streamreg.models.kernels import KERNEL_ENV, block_products, kernel_for, numpy_kernel


def _problem(n: int, m: int, p: int, order: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m)) * rng.uniform(0.1, 10.0, m) + rng.standard_normal(m)
    return rng.standard_normal((n, p)), (np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x))


def _assert_same_products(qt: np.ndarray, x: np.ndarray, g: np.ndarray, norm2: np.ndarray) -> None:
    scale = np.abs(qt).T @ np.abs(x)
    assert np.all(np.abs(g - qt.T @ x) <= 1e-12 * scale)
    ref = np.einsum("ij,ij->j", x, x)
    np.testing.assert_allclose(norm2, ref, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------- the choice
def test_the_numpy_setting_and_other_dtypes_choose_numpy(monkeypatch):
    x = np.asfortranarray(np.ones((5, 3)))
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    assert kernel_for(x) == "numpy"
    monkeypatch.setenv(KERNEL_ENV, "auto")
    assert kernel_for(x.astype(np.float32)) == "numpy"
    assert kernel_for(np.ones((5, 3))) == "numpy"  # row-ordered: numpy under auto


def test_an_unknown_setting_is_refused_by_name(monkeypatch):
    monkeypatch.setenv(KERNEL_ENV, "cuda")
    with pytest.raises(ValueError, match=r"STREAMREG_KERNEL='cuda' is not a scoring kernel; use one of auto, numpy, numba"):
        kernel_for(np.ones((3, 2)))


def test_without_numba_auto_uses_numpy_and_forcing_numba_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # what find_spec sees when numba is not installed
    assert not kernels.numba_available()
    x = np.asfortranarray(np.ones((4, 2)))
    monkeypatch.setenv(KERNEL_ENV, "auto")
    assert kernel_for(x) == "numpy" and not kernels.vectors_on_numba(10**8)
    monkeypatch.setenv(KERNEL_ENV, "numba")
    with pytest.raises(ValueError, match=r"numba is not installed: pip install \"streamreg\[fast\]\""):
        kernel_for(x)
    with pytest.raises(ValueError, match=r"numba is not installed: pip install \"streamreg\[fast\]\""):
        kernels.vectors_on_numba(10)


def test_the_plain_path_never_imports_numba(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # an import of numba would now fail
    monkeypatch.setattr(kernels, "_numba_module", None)
    monkeypatch.setenv(KERNEL_ENV, "auto")
    rng = np.random.default_rng(3)
    x = np.asfortranarray(rng.standard_normal((60, 40)))
    y = x[:, 5] + 0.5 * rng.standard_normal(60)
    assert sr.select(y, x, passes=3, **ONE_PHASE).selected_terms == ["x5"]
    assert kernels._numba_module is None
    # a GLM search too: its scoring, IRLS's X'WX and working weights stay on numpy
    yb = (x[:, 5] + 0.3 * rng.standard_normal(60) > 0).astype(float)
    assert "x5" in sr.select(yb, x, family="binomial").selected_terms
    assert kernels._numba_module is None


def test_numpy_products_reuse_given_norms():
    qt, x = _problem(30, 6, 3, "F")
    norms = np.arange(6.0)
    g, out = numpy_kernel.products(qt, x, norms)
    assert out is norms
    np.testing.assert_array_equal(g, qt.T @ x)


# ---------------------------------------------------------------------- numba against numpy
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("n", [1, 7, 300, 4200])  # 4200 rows: more than one strip of rows
@pytest.mark.parametrize("p", [1, 2, 3, 6, 7])
def test_numba_products_equal_numpy(order, n, p):
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    for m in (1, 3, 4, 5, 37):
        qt, x = _problem(n, m, p, order, seed=n + m + p)
        g, norm2 = numba_kernel.products(qt, x, None)
        _assert_same_products(qt, x, g, norm2)


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("n", [1, 7, 300, 4200])
def test_row_scaled_products_equal_those_of_the_scaled_copy(order, n):
    """``(s [Q t])' B`` and ``sum_i s_i^2 b_ij^2`` with both backends, against the scaled
    copy ``diag(s) B`` (widths that fill whole tiles and that leave a padded last tile)."""
    backends = [numpy_kernel]
    try:
        from streamreg.models.kernels import numba_kernel
        backends.append(numba_kernel)
    except ImportError:
        pass
    rng = np.random.default_rng(n)
    for m in (1, 3, 4, 5, 37):
        qt, x = _problem(n, m, 3, order, seed=n + m)
        s = rng.random(n) + 0.1
        scaled = s[:, None] * x
        ref_norms, ref_g = (scaled**2).sum(0), qt.T @ scaled
        for backend in backends:
            before = x.copy()
            g, norm2 = backend.products(qt, x, None, s)
            np.testing.assert_allclose(norm2, ref_norms, rtol=1e-12, atol=0)
            assert np.all(np.abs(g - ref_g) <= 1e-12 * (np.abs(qt).T @ np.abs(scaled)))
            np.testing.assert_array_equal(x, before)
            # given unscaled norms do not stand in for the scaled ones
            g2, norm2_again = backend.products(qt, x, (x * x).sum(0), s)
            np.testing.assert_allclose(norm2_again, ref_norms, rtol=1e-12, atol=0)


@pytest.mark.parametrize("module", ["numpy_kernel", "numba_kernel"])
def test_row_scales_of_the_wrong_length_are_refused(module):
    backend = pytest.importorskip(f"streamreg.models.kernels.{module}")
    qt, x = _problem(20, 4, 2, "F")
    with pytest.raises(ValueError, match=r"19 row scales for a block of 20 rows"):
        backend.products(qt, x, None, np.ones(19))


def test_numba_products_on_strided_views_and_given_norms():
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    qt, x = _problem(500, 90, 4, "F", seed=5)
    for view in (x[:, 3:70], x[::3, ::2], np.ascontiguousarray(x)[:, 10:80], np.ascontiguousarray(x)[::2, 1::3]):
        q = qt[: view.shape[0]]
        g, norm2 = numba_kernel.products(q, view, None)
        _assert_same_products(q, view, g, norm2)
    with pytest.raises(ValueError, match=r"the basis has 500 rows and the block 167"):
        numba_kernel.products(qt, x[::3], None)
    norms = np.ones(x.shape[1])
    g, out = numba_kernel.products(qt, x, norms)
    assert out is norms
    _assert_same_products(qt, x, g, np.einsum("ij,ij->j", x, x))


def test_numba_products_propagate_nan_and_inf_as_numpy_does():
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    for order in "FC":
        qt, x = _problem(50, 9, 3, order, seed=2)
        x[7, 2], x[0, 6] = np.nan, np.inf
        g, norm2 = numba_kernel.products(qt, x, None)
        with np.errstate(invalid="ignore"):
            ref_g, ref_n = qt.T @ x, np.einsum("ij,ij->j", x, x)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(ref_g))
        np.testing.assert_array_equal(norm2[[2, 6]], ref_n[[2, 6]])  # NaN and +inf
        ok = np.isfinite(ref_n)
        _assert_same_products(qt, x[:, ok], g[:, ok], norm2[ok])


def test_empty_blocks_give_empty_products():
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    g, norm2 = numba_kernel.products(np.ones((4, 2)), np.asfortranarray(np.ones((4, 0))), None)
    assert g.shape == (2, 0) and norm2.shape == (0,)
    g, norm2 = numba_kernel.products(np.ones((0, 2)), np.asfortranarray(np.ones((0, 3))), None)
    np.testing.assert_array_equal(g, np.zeros((2, 3)))
    np.testing.assert_array_equal(norm2, np.zeros(3))


def test_auto_loads_numba_for_a_large_block_only(monkeypatch):
    """A small block in a process that has not loaded numba stays with numpy (loading numba
    costs more than a small search); a block of AUTO_NUMBA_CELLS values loads it, and from
    then on every column-ordered block uses it."""
    pytest.importorskip("numba")
    monkeypatch.setenv(KERNEL_ENV, "auto")
    monkeypatch.setattr(kernels, "_numba_module", None)
    small = np.asfortranarray(np.ones((80, 12)))
    assert kernel_for(small) == "numpy"
    large = np.empty((1024, kernels.AUTO_NUMBA_CELLS // 1024), order="F")
    assert kernel_for(large) == "numba"
    block_products(np.ones((80, 2)), small)
    assert kernels._numba_module is None  # the small block did not load numba
    monkeypatch.setattr(kernels, "_numba_module", kernels._numba())
    assert kernel_for(small) == "numba"


def test_block_products_route_to_the_chosen_backend(monkeypatch):
    pytest.importorskip("numba")
    qt, x = _problem(80, 12, 3, "F", seed=9)
    monkeypatch.setenv(KERNEL_ENV, "auto")
    monkeypatch.setattr(kernels, "_numba_module", kernels._numba())  # loaded: small blocks use it too
    assert kernel_for(x) == "numba"
    g_fast, n_fast = block_products(qt, x)
    monkeypatch.setenv(KERNEL_ENV, "numpy")
    g_np, n_np = block_products(qt, x)
    np.testing.assert_array_equal(g_np, qt.T @ x)
    _assert_same_products(qt, x, g_fast, n_fast)
    np.testing.assert_allclose(n_fast, n_np, rtol=1e-12)


# ---------------------------------------------------------------------- select() with each backend
def _fit(monkeypatch, setting: str, y: np.ndarray, x: np.ndarray, **kw) -> sr.StreamRegResults:
    monkeypatch.setenv(KERNEL_ENV, setting)
    return sr.select(y, x, **kw)


def _assert_same_decisions(a, b) -> None:
    assert a.selected_terms == b.selected_terms
    ha, hb = a.history, b.history
    assert list(ha.columns) == list(hb.columns) and len(ha) == len(hb)
    for col in ha.columns:
        if ha[col].dtype.kind == "f":
            np.testing.assert_allclose(ha[col].to_numpy(), hb[col].to_numpy(), rtol=1e-9, atol=1e-12, err_msg=col)
        else:
            assert ha[col].tolist() == hb[col].tolist(), col


def _gaussian(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    x[:, 11] = x[:, 3] + 1e-9 * rng.standard_normal(n)  # nearly collinear with a signal
    x[:, 20] = 2.0  # constant
    y = x[:, [3, m // 2, m - 5]] @ [1.0, -0.7, 0.5] + rng.standard_normal(n)
    return y, x


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("block_size", [1, 7, 64, 4096])
def test_select_gaussian_decisions_are_the_same_with_both_backends(monkeypatch, order, block_size):
    pytest.importorskip("numba")
    y, x = _gaussian(120, 900, seed=block_size)
    x = np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)
    base = _fit(monkeypatch, "numpy", y, x, block_size=block_size)
    fast = _fit(monkeypatch, "numba", y, x, block_size=block_size)  # both layouts through numba
    auto = _fit(monkeypatch, "auto", y, x, block_size=block_size)
    _assert_same_decisions(base, fast)
    _assert_same_decisions(base, auto)
    assert {"x3", f"x{x.shape[1] // 2}"} <= set(base.selected_terms)


@pytest.mark.parametrize("method", ["stepwise-ric", "alpha-investing"])
def test_select_other_methods_decide_the_same_with_both_backends(monkeypatch, method):
    pytest.importorskip("numba")
    y, x = _gaussian(200, 300, seed=4)
    x = np.asfortranarray(x)
    _assert_same_decisions(_fit(monkeypatch, "numpy", y, x, method=method),
                           _fit(monkeypatch, "numba", y, x, method=method))


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("block_size", [16, 512])
def test_select_binomial_decisions_are_the_same_with_both_backends(monkeypatch, order, block_size):
    pytest.importorskip("numba")
    rng = np.random.default_rng(7 + block_size)
    x = rng.standard_normal((300, 400))
    eta = 1.2 * x[:, 2] - 1.0 * x[:, 150] + 0.3
    y = (rng.random(300) < 1 / (1 + np.exp(-eta))).astype(float)
    x = np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)
    base = _fit(monkeypatch, "numpy", y, x, family="binomial", block_size=block_size)
    fast = _fit(monkeypatch, "numba", y, x, family="binomial", block_size=block_size)
    _assert_same_decisions(base, fast)
    assert {"x2", "x150"} <= set(base.selected_terms)


@pytest.mark.parametrize("setting", ["numpy", "auto", "numba"])
def test_a_nan_candidate_is_named_whichever_backend_scores_it(monkeypatch, setting):
    if setting != "numpy":
        pytest.importorskip("numba")
    rng = np.random.default_rng(1)
    x = np.asfortranarray(rng.standard_normal((40, 30)))
    x[5, 17] = np.nan
    y = rng.standard_normal(40)
    monkeypatch.setenv(KERNEL_ENV, setting)
    with pytest.raises(ValueError, match=r"stream 'stream1': candidate 'x17' contains NaN or infinite values; drop or impute"):
        sr.select(y, x, block_size=8)


def test_a_deferred_check_runs_once_with_the_norms_before_the_values_are_read():
    from streamreg.models.base import CandidateBlock

    seen: list[np.ndarray] = []
    x = np.asfortranarray(np.arange(12.0).reshape(4, 3))
    block = CandidateBlock(x, check=lambda b: seen.append(b.sq_norms().copy()))
    assert block.check_pending and block.norm2 is None
    assert block.values is x  # reading the values runs the check first
    assert not block.check_pending and len(seen) == 1
    np.testing.assert_array_equal(seen[0], (x * x).sum(axis=0))
    block.values  # once only
    assert len(seen) == 1
    scored = CandidateBlock(x, check=lambda b: seen.append(b.sq_norms().copy()))
    q = np.linalg.qr(np.ones((4, 1)))[0]
    scored.reduce_single(np.column_stack([q, [1.0, -1.0, 1.0, -1.0]]))  # the scoring pass computes the norms
    assert not scored.check_pending and len(seen) == 2
    np.testing.assert_allclose(seen[1], (x * x).sum(axis=0), rtol=1e-15)


@pytest.mark.parametrize("order", ["F", "C"])
def test_numba_products_of_a_candidate_do_not_depend_on_its_block(order):
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    qt, x = _problem(2300, 23, 5, order, seed=11)  # several strips of rows, the last partial; 23 = 5 tiles of four and 3 more
    g, norm2 = numba_kernel.products(qt, x, None)
    for lo, hi in ((0, 1), (1, 3), (2, 9), (5, 23), (22, 23)):
        g_part, n_part = numba_kernel.products(qt, x[:, lo:hi], None)
        np.testing.assert_array_equal(g_part, g[:, lo:hi])
        np.testing.assert_array_equal(n_part, norm2[lo:hi])


def test_select_statistics_do_not_depend_on_the_block_size_with_numba(monkeypatch):
    pytest.importorskip("numba")
    rng = np.random.default_rng(4)
    x = np.asfortranarray(rng.normal(size=(80, 3000)))
    y = x[:, 10] - x[:, 2000] + rng.normal(scale=0.5, size=80)
    fits = [_fit(monkeypatch, "numba", y, x, block_size=b) for b in (16, 509, 3000)]
    for fit in fits[1:]:
        assert fit.selected_terms == fits[0].selected_terms
        # least-squares blocks are rescored by rank-one updates after an acceptance (models/rescore.py),
        # which round differently from a fresh product by ~1e-15 relative: terms exact, statistics 1e-11
        np.testing.assert_allclose(fit.history["statistic"].to_numpy(), fits[0].history["statistic"].to_numpy(),
                                   rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 40_000])
def test_weighted_gram_of_both_backends_equals_the_weighted_products(order, n, monkeypatch):
    """``X'WX`` and ``X'Wz`` (IRLS's least-squares step): numpy's strips and numba's pass
    against the products of the weighted copy, across strip boundaries of both."""
    from streamreg.models import irls

    rng = np.random.default_rng(n)
    x = np.asarray(rng.standard_normal((n, 6)), order=order)
    w, z = rng.random(n) + 0.01, rng.standard_normal(n)
    ref_gram, ref_rhs = x.T @ (w[:, None] * x), x.T @ (w * z)
    scale = np.abs(x).T @ (w[:, None] * np.abs(x))
    monkeypatch.setattr(irls, "_GRAM_ROWS", 1000)  # several numpy strips at 40,000 rows
    settings = ["numpy"] + (["numba"] if kernels.numba_available() else [])
    for setting in settings:
        monkeypatch.setenv(kernels.KERNEL_ENV, setting)
        gram, rhs = irls.weighted_gram(x, w, z)
        assert np.all(np.abs(gram - ref_gram) <= 1e-13 * scale), setting
        np.testing.assert_array_equal(gram, gram.T)
        assert np.all(np.abs(rhs - ref_rhs) <= 1e-13 * (np.abs(x).T @ (w * np.abs(z)))), setting


def test_numba_weighted_gram_refuses_vectors_of_the_wrong_length():
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    x = np.asfortranarray(np.ones((10, 2)))
    with pytest.raises(ValueError, match=r"9 weights and 10 responses for a design of 10 rows"):
        numba_kernel.weighted_gram(x, np.ones(9), np.ones(10))
