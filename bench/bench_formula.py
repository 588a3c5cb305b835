"""Speed of the formula path against the array path on the same data, side by side in one run.

The synthetic problem of Zhou et al. (2006) (n = 100, 4 true features with coefficient 1, noise sd 0.1,
independent N(0, 1) features) at m = 1e3 .. 1e6 candidate columns:
``streamreg("y ~ stream(x*)", df)`` against ``select(y, X)`` on the same values, best of
``--repeats`` runs each (one run at m = 1e6).  The selected terms must be the same.

With pyarrow installed, pandas 3 keeps text labels as Arrow strings, which streamreg reads
once as Python strings (and hashes, to refuse repeated names); ``--object-labels`` gives the
frame an object-dtype column Index instead, to show what that conversion costs.

Usage:  python bench/bench_formula.py [--skip-1e6] [--repeats 3] [--repeats-1e6 1] [--m 1e5,1e6] [--seed 1]
                                      [--object-labels]
"""
from __future__ import annotations

import os

# one BLAS thread: the ratio measures Python and pandas overhead, not thread scheduling
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import gc
import time
import warnings

import pandas as pd

import streamreg as sr
from streamreg.datasets import make_synthetic

warnings.filterwarnings("ignore")


def best_of(fn, repeats: int):
    best, out = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-1e6", action="store_true", help="leave out m = 1e6 (about 1 GB of data)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs (below m = 1e6)")
    ap.add_argument("--repeats-1e6", type=int, default=1, help="best of this many runs at m = 1e6")
    ap.add_argument("--m", type=str, default=None, help="comma-separated sizes instead of 1e3,1e4,1e5,1e6")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--object-labels", action="store_true", help="column labels as Python objects, not Arrow strings")
    args = ap.parse_args()

    ms = [1_000, 10_000, 100_000] + ([] if args.skip_1e6 else [1_000_000])
    if args.m:
        ms = [int(float(v)) for v in args.m.split(",")]
    print(f"Zhou et al. (2006) synthetic problem: n = {args.n}, 4 true features, noise sd 0.1, seed {args.seed}; "
          "one BLAS thread; column labels " + ("object" if args.object_labels else "as pandas stores them"))
    print(f"{'m':>9}  {'select(y, X) s':>14}  {'formula s':>10}  {'ratio':>6}  {'selected':>8}  same terms  "
          f"{'validate=0.3 s':>14}")
    for m in ms:
        sim = make_synthetic(n=args.n, m=m, seed=args.seed)
        df = sim.data
        if args.object_labels:
            df = df.set_axis(pd.Index(df.columns.tolist(), dtype=object), axis=1)
        names = [c for c in df.columns if c != "y"]
        x = df[names].to_numpy(dtype=float)
        y = df["y"].to_numpy(dtype=float)
        reps = args.repeats_1e6 if m >= 1_000_000 else args.repeats
        t_arr, fit_arr = best_of(lambda y=y, x=x: sr.select(y, x), reps)
        t_frm, fit_frm = best_of(lambda df=df: sr.streamreg("y ~ stream(x*)", df), reps)
        arr_terms = [names[int(t[1:])] for t in fit_arr.selected_terms]  # select() names columns x0, x1, ...
        same = arr_terms == list(fit_frm.selected_terms)
        # the held-out refit: the same search on 70% of the rows, then the refit on the other 30%
        t_val, _ = best_of(lambda df=df: sr.streamreg("y ~ stream(x*)", df, validate=0.3, seed=1), reps)
        print(f"{m:>9}  {t_arr:>14.3f}  {t_frm:>10.3f}  {t_frm / t_arr:>6.2f}  {len(arr_terms):>8}  {same!s:>10}  "
              f"{t_val:>14.3f}", flush=True)
        assert same, (arr_terms, fit_frm.selected_terms)
        del sim, df, x, fit_arr, fit_frm
        gc.collect()


if __name__ == "__main__":
    main()
