"""The Dask path: a lazily generated wide stream on 2 workers, and its overhead on in-memory data.

(a) ``select(y, g)`` where ``g`` is a ``100 x 4,000,000`` ``dask.array`` of N(0, 1) values
    generated chunk by chunk (never materialised on the driver): a ``distributed``
    LocalCluster with 2 worker processes of 1 thread against the same graph on dask's
    synchronous scheduler in this process; the decisions must agree.
(c) Overhead on data that fits in memory: ``select(y, X)`` with ``X`` a numpy array against
    ``select(y, da.from_array(X))`` (synchronous scheduler and the cluster).

Tall data (many rows) is not implemented yet.

Usage:  python bench/bench_dask.py [--quick] [--m 4000000] [--chunk 50000]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time

import dask
import dask.array as da
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster, wait

import streamreg as sr

TRUE = (7, 1_234_567, 2_500_001, 3_999_000)


def problem(m: int, chunk: int, seed: int = 4) -> tuple[np.ndarray, da.Array]:
    g = da.random.default_rng(seed).standard_normal((100, m), chunks=(100, chunk))
    cols = [j % m for j in TRUE]
    y = g[:, cols].sum(axis=1).compute() + 0.1 * np.random.default_rng(seed).standard_normal(100)
    return y, g


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def wide(m: int, chunk: int) -> pd.DataFrame:
    y, g = problem(m, chunk)
    rows = []
    with dask.config.set(scheduler="synchronous"):
        secs, ref = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
    rows.append({"run": "synchronous scheduler, 1 process", "seconds": secs, "selected": ",".join(ref.selected_terms)})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster):
        secs, fit = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
    rows.append({"run": "LocalCluster, 2 workers x 1 thread", "seconds": secs,
                 "selected": ",".join(fit.selected_terms)})
    out = pd.DataFrame(rows)
    out["speed-up"] = out["seconds"].iloc[0] / out["seconds"]
    out["same decisions"] = [True, fit.selected_terms == ref.selected_terms]
    return out


def overhead(m: int, chunk: int) -> pd.DataFrame:
    y, g = problem(m, chunk)
    x = g.compute()
    rows = []
    secs, ref = timed(sr.select, y, x)
    rows.append({"run": "numpy array in memory", "seconds": secs})
    with dask.config.set(scheduler="synchronous"):
        secs, fit = timed(sr.select, y, da.from_array(x, chunks=(100, chunk)))
    rows.append({"run": "da.from_array, synchronous", "seconds": secs, "same": fit.selected_terms == ref.selected_terms})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        xd = client.persist(da.from_array(x, chunks=(100, chunk)))  # the chunks live on the workers
        wait(xd)
        secs, fit = timed(sr.select, y, xd)
    rows.append({"run": "persisted on 2 workers", "seconds": secs, "same": fit.selected_terms == ref.selected_terms})
    out = pd.DataFrame(rows)
    out["x numpy"] = out["seconds"] / out["seconds"].iloc[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="m = 400,000")
    ap.add_argument("--m", type=int, default=4_000_000)
    ap.add_argument("--chunk", type=int, default=50_000)
    args = ap.parse_args()
    m = 400_000 if args.quick else args.m
    pd.set_option("display.width", 200)
    print(f"== (a) lazily generated stream, 100 x {m:,}, chunks of {args.chunk:,} columns ==")
    print(wide(m, args.chunk).to_string(index=False, float_format="%.3g"))
    print(f"\n== (c) overhead on data in memory, 100 x {min(m, 1_000_000):,} ==")
    print(overhead(min(m, 1_000_000), args.chunk).to_string(index=False, float_format="%.3g"))


if __name__ == "__main__":
    main()
