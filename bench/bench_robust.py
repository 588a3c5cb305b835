"""Robust candidate tests (``cov_type=``): false selections under heteroscedasticity, and speed.

**False selections.**  y = x1 + x2 + g * x1 * x2 + eps (eps ~ N(0, 1)); the model has x1 and
x2, not their interaction, so its residual ``g x1 x2 + eps`` has a variance that grows with
x1^2.  The stream offers m products ``x1 * z_j`` of x1 with independent noise columns z_j:
every one is null (its coefficient is 0 given x1 and x2), but the plain t-test's standard
error assumes a constant residual variance and is too small exactly where these candidates
are large (for g = 2, ``E[b^2 sigma^2] / (E[b^2] E[sigma^2]) = 13 / 5``, a t statistic inflated
by about 1.6).  Per seed, alpha-investing (the default w0 = alpha_delta = 0.5) runs with the
plain t-test and with HC3 tests; every selection is false.  Also printed: the fraction of the
null candidates each test rejects at the fixed level 0.05 against the starting model (the
test's size), from one block score.

**Speed.**  One ``score_block`` of m candidates against a model with k columns, plain
(``[Q r]'B`` in one GEMM) against each robust type, best of ``--repeat`` runs, one BLAS thread.

Usage:  python bench/bench_robust.py [--seeds 40] [--n 400] [--m 200] [--gamma 2]
                                     [--speed-n 5000] [--speed-m 4000] [--speed-k 10]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time

import numpy as np

import streamreg as sr
from streamreg.models.base import CandidateBlock
from streamreg.models.gaussian import GaussianState
from streamreg.models.robust import RobustCov


def one_seed(seed: int, n: int, m: int, gamma: float) -> dict[str, float]:
    """False selections and size at 0.05 of the plain and HC3 tests on one data set."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    y = x1 + x2 + gamma * x1 * x2 + rng.normal(size=n)
    products = x1[:, None] * rng.normal(size=(n, m))
    fixed = np.column_stack([x1, x2])
    out: dict[str, float] = {}
    for label, cov in (("plain", "nonrobust"), ("HC3", "HC3")):
        fit = sr.select(y, products, fixed=fixed, cov_type=cov)
        out[f"V_{label}"] = len(fit.selected_terms)
        state = GaussianState(y, np.column_stack([np.ones(n), fixed]), cov=RobustCov(cov))
        scored, _ = state.score_block(CandidateBlock(products))
        out[f"size_{label}"] = float(np.mean(scored.pvalue < 0.05))
    return out


def false_selections(seeds: int, n: int, m: int, gamma: float) -> None:
    rows = [one_seed(s, n, m, gamma) for s in range(seeds)]
    print(f"False selections: y = x1 + x2 + {gamma:g} x1 x2 + N(0,1), model y ~ x1 + x2, stream of {m} "
          f"null products x1 * z_j, n = {n}, {seeds} seeds, alpha-investing w0 = alpha_delta = 0.5")
    print(f"{'test':<8}{'E[V]':>8}{'SE':>8}{'P(V>=1)':>10}{'size at 0.05':>15}")
    for label in ("plain", "HC3"):
        v = np.array([r[f"V_{label}"] for r in rows], dtype=float)
        size = np.array([r[f"size_{label}"] for r in rows])
        print(f"{label:<8}{v.mean():>8.2f}{v.std(ddof=1) / np.sqrt(len(v)):>8.2f}{np.mean(v >= 1):>10.2f}"
              f"{size.mean():>15.3f}")
    ratio = np.mean([r["V_plain"] for r in rows]) / max(np.mean([r["V_HC3"] for r in rows]), 1e-12)
    print(f"E[V] plain / HC3: {ratio:.1f}")


def speed(n: int, m: int, k: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    fixed = np.column_stack([np.ones(n), rng.normal(size=(n, k - 1))])
    y = fixed @ rng.normal(size=k) + rng.normal(size=n) * (1 + np.abs(fixed[:, 1]))
    block = rng.normal(size=(n, m))
    groups = rng.integers(0, 100, n)
    print(f"\nSpeed: one score_block of m = {m} candidates, n = {n}, k = {k}, best of {repeat}, one BLAS thread")
    print(f"{'cov_type':<10}{'seconds':>10}{'/ plain':>10}{'ns per value':>14}")
    base = None
    for cov_type in ("nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"):
        state = GaussianState(y, fixed, cov=RobustCov(cov_type, groups if cov_type == "cluster" else None))
        best = np.inf
        for _ in range(repeat):
            cand = CandidateBlock(block)  # fresh: no cached norms
            t0 = time.perf_counter()
            state.score_block(cand)
            best = min(best, time.perf_counter() - t0)
        base = best if base is None else base
        print(f"{cov_type:<10}{best:>10.3f}{best / base:>10.2f}{1e9 * best / (n * m):>14.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--m", type=int, default=200)
    ap.add_argument("--gamma", type=float, default=2.0)
    ap.add_argument("--speed-n", type=int, default=5000)
    ap.add_argument("--speed-m", type=int, default=4000)
    ap.add_argument("--speed-k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    false_selections(a.seeds, a.n, a.m, a.gamma)
    speed(a.speed_n, a.speed_m, a.speed_k, a.repeat)


if __name__ == "__main__":
    main()
