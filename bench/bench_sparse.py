"""Sparse candidate matrices (issue 27, item 4): ``select()`` on scipy.sparse against dense.

(a) dexter (600 x 20,000, 0.47% non-zero; ``streamreg.datasets.load("dexter")``, from the
    local cache) with ``family="binomial"`` and ``"gaussian"`` at the default rule: the CSR
    matrix as given against its dense array, interleaved rounds (min / median), and whether
    the decisions are the same (terms, statuses, statistics within 1e-8);
(b) time against the number of non-zeros: n = 2,000 rows, m columns at a density that keeps
    the non-zeros at 2e5 (m = 1e4, 1e5, 1e6; ``random_sparse``), Gaussian, one pass of the default rule at
    ``w0 = alpha_delta = 0.05`` (so that nothing about m but its non-zeros changes the work);
    the dense array beside it while it fits in memory (m = 1e4, 1e5), and the sparse one-pass
    floor ``X'r``.  The first 5 columns (density 0.1) carry the signal at every m.  A search
    also keeps a history row and a test per candidate: that part grows with m, not with the
    non-zeros.

Usage (from the repository root, with this checkout importable, e.g. ``PYTHONPATH=.``):
        python bench/bench_sparse.py [--rounds 3] [--skip-dexter]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from bench_glm_speed import (  # this folder is on the path when run
    interleaved,
    same_decisions,
)

import streamreg as sr


def dexter_table(rounds: int) -> pd.DataFrame:
    from streamreg import datasets

    x, y = datasets.load("dexter").arrays()
    dense = x.toarray()
    rows = []
    for family in ("binomial", "gaussian"):
        times, last = interleaved({"sparse": lambda f=family: sr.select(y, x, family=f),
                                   "dense": lambda f=family: sr.select(y, dense, family=f)}, rounds)
        rows.append({"family": family, "nnz": x.nnz, "terms": len(last["sparse"].selected_terms),
                     "sparse s (min)": min(times["sparse"]), "sparse s (med)": float(np.median(times["sparse"])),
                     "dense s (min)": min(times["dense"]),
                     "sparse/dense (min)": min(times["sparse"]) / min(times["dense"]),
                     "sparse/dense (med)": float(np.median(times["sparse"])) / float(np.median(times["dense"])),
                     "same decisions": same_decisions(last["sparse"], last["dense"])})
    return pd.DataFrame(rows)


def random_sparse(n: int, m: int, nnz: int, rng: np.random.Generator) -> Any:
    """``nnz`` standard normal values at uniform positions of an ``n x m`` CSC matrix
    (``sp.random`` draws a permutation of all ``n m`` positions: 15 GB at 2e9)."""
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, m, nnz)
    x = sp.coo_matrix((rng.standard_normal(nnz), (rows, cols)), shape=(n, m)).tocsc()
    x.sum_duplicates()
    return x


def scaling_table(rounds: int, nnz: int = 200_000, n: int = 2_000) -> pd.DataFrame:
    rows = []
    rule = {"w0": 0.05, "alpha_delta": 0.05, "passes": 1}
    for m in (10_000, 100_000, 1_000_000):
        rng = np.random.default_rng(m)
        signal = random_sparse(n, 5, n // 2, rng)
        x = sp.hstack([signal, random_sparse(n, m - 5, nnz - signal.nnz, rng)], format="csc")
        y = np.asarray(signal.sum(axis=1)).ravel() + rng.normal(size=n)
        r = y - y.mean()
        methods: dict[str, Callable[[], Any]] = {"sparse X'r": lambda x=x, r=r: x.T @ r,
                                                 "sparse": lambda x=x, y=y: sr.select(y, x, **rule)}
        dense = x.toarray() if n * m <= 2e8 else None
        if dense is not None:
            methods["dense"] = lambda d=dense, y=y: sr.select(y, d, **rule)
        times, last = interleaved(methods, rounds)
        row = {"m": m, "nnz": x.nnz, "sparse s (min)": min(times["sparse"]),
               "sparse s (med)": float(np.median(times["sparse"])),
               "x sparse X'r (min)": min(times["sparse"]) / min(times["sparse X'r"]),
               "terms": len(last["sparse"].selected_terms)}
        if dense is not None:
            row.update({"dense s (min)": min(times["dense"]),
                        "sparse/dense (min)": min(times["sparse"]) / min(times["dense"]),
                        "same decisions": same_decisions(last["sparse"], last["dense"])})
        rows.append(row)
        print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-dexter", action="store_true")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", lambda v: f"{v:.3g}")
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}, rounds: {args.rounds}")
    if not args.skip_dexter:
        print("\n== (a) dexter 600 x 20,000, default rule ==", flush=True)
        print(dexter_table(args.rounds).to_string(index=False))
    print("\n== (b) time against the non-zeros: n = 2,000, nnz = 2e5, Gaussian, one pass at 0.05/0.05 ==", flush=True)
    print(scaling_table(args.rounds).to_string(index=False))
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
