"""The Dask path: a lazily generated wide stream on 2 workers, and its overhead on in-memory data.

(a) ``select(y, g)`` where ``g`` is a ``100 x 4,000,000`` ``dask.array`` of N(0, 1) values
    generated chunk by chunk (never materialised on the driver): a ``distributed``
    LocalCluster with 2 worker processes of 1 thread, and with 2 workers as threads of this
    process, against the same graph on dask's synchronous scheduler in this process; the
    decisions must agree.
(b) Tall data: ``n = 10,000,000`` rows x 200 candidates generated on the workers in row
    chunks of 100,000 (16 GB in all, never gathered): the candidates are scored by sums over
    row chunks.  Time, the peak memory of each worker process (its RSS, sampled every 0.25 s)
    and of this driver; at n = 1,000,000 the same problem in memory with numpy, for the
    decisions and the time ratio.
(p) The ceiling of (a) on this machine: the same generation and scoring of every chunk as a
    bare dask pipeline (no search, no driver work), a few chunks in flight, against the
    synchronous scheduler; one task per chunk, and tasks of 4 chunks as the stream submits them.
(c) Overhead on data that fits in memory: ``select(y, X)`` with ``X`` a numpy array against
    ``select(y, da.from_array(X))`` (synchronous scheduler and the cluster).

(h) The machine's own ceiling: the per-chunk work of (a) split over 1 and 2 plain processes
    (no Dask), and arithmetic that stays in cache, for comparison.

Usage:  python bench/bench_dask.py [--quick] [--m 4000000] [--chunk 50000] [--only a|p|h|b|c] [--rows 10000000]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import contextlib
import threading
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
    # the workers' statistical profiler and GIL monitor off (their environment, read at start-up)
    quiet = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
             "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__GIL__ENABLED": "False"}
    saved = {k: os.environ.get(k) for k in quiet}
    os.environ.update(quiet)
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=50) as cluster, Client(cluster):
            secs, quiet_fit = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    rows.append({"run": "  the same, workers' profiler and GIL monitor off", "seconds": secs,
                 "selected": ",".join(quiet_fit.selected_terms)})
    # the workers as threads of this process: generation and BLAS release the GIL, and the
    # model and the scores cross no process boundary (nothing is serialised)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster):
        secs, thread_fit = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
    rows.append({"run": "LocalCluster, 2 workers x 1 thread, in this process", "seconds": secs,
                 "selected": ",".join(thread_fit.selected_terms)})
    out = pd.DataFrame(rows)
    out["speed-up"] = out["seconds"].iloc[0] / out["seconds"]
    out["same decisions"] = [True] + [f.selected_terms == ref.selected_terms for f in (fit, quiet_fit, thread_fit)]
    return out


def bare(m: int, chunk: int) -> pd.DataFrame:
    """Score every chunk of the (a) stream against one fixed model: the pipeline without a search."""
    from streamreg.streams.dask_array import DaskArrayStream
    from streamreg.streams.dask_tasks import chunk_scores, score_chunks

    _, g = problem(m, chunk)
    model = np.linalg.qr(np.random.default_rng(0).standard_normal((g.shape[0], 2)))[0]
    n_chunks = len(g.chunks[1])
    sliced = [g[:, i * chunk:(i + 1) * chunk] for i in range(n_chunks)]

    def by_slices(i: int):
        return sliced[i].map_blocks(chunk_scores, model, None, chunks=((3,), (chunk,)), dtype=float,
                                    meta=np.empty((0, 0)))

    pieces = g.to_delayed(optimize_graph=True)[0]

    def by_delayed(i: int):
        return dask.delayed(chunk_scores)(pieces[i], model, None)

    def pipeline(client: Client, make, ahead: int) -> float:
        pending: dict = {}
        t = time.perf_counter()
        for i in range(n_chunks):
            for j in range(i, min(i + ahead + 1, n_chunks)):
                if j not in pending:
                    pending[j] = client.compute(make(j), priority=-j)
            pending.pop(i).result()
        return time.perf_counter() - t

    with dask.config.set(scheduler="synchronous"):
        sync, _ = timed(lambda: [by_slices(i).compute() for i in range(n_chunks)])
    rows = [{"run": "synchronous scheduler", "in flight": 1, "seconds": sync}]
    stream = DaskArrayStream("g", g, group=4)

    def by_runs(client: Client, ahead: int) -> float:
        """Tasks of 4 chunks, generated inside the task (the stream's own, without the search)."""
        runs = [list(range(c, min(c + 4, n_chunks))) for c in range(0, n_chunks, 4)]
        pending: dict = {}
        t = time.perf_counter()
        for i in range(len(runs)):
            for j in range(i, min(i + ahead + 1, len(runs))):
                if j not in pending:
                    lazy = stream._lazy(runs[j], runs[j][0])
                    pending[j] = client.submit(score_chunks, model, None, 0, [(lazy, k) for k in range(len(runs[j]))],
                                               priority=-j, pure=False)
            pending.pop(i).result()
        return time.perf_counter() - t

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        for name, make in (("slices of the array", by_slices), ("per-chunk delayed graphs", by_delayed)):
            for ahead in (2, 4):
                rows.append({"run": f"2 workers, {name}", "in flight": ahead + 1,
                             "seconds": pipeline(client, make, ahead)})
        for ahead in (1, 2):
            rows.append({"run": "2 workers, tasks of 4 chunks", "in flight": 4 * (ahead + 1),
                         "seconds": by_runs(client, ahead)})
    out = pd.DataFrame(rows)
    out["speed-up"] = sync / out["seconds"]
    return out


def _chunks_in_process(first: int, n_chunks: int, chunk: int, model: np.ndarray) -> None:
    """(h): the per-chunk work of (a) without Dask: generate 100 x chunk N(0, 1), score it."""
    from streamreg.streams.dask_tasks import chunk_scores

    for i in range(first, first + n_chunks):
        chunk_scores(np.random.default_rng([4, i]).standard_normal((100, chunk)), model, None)


def _in_cache(steps: int) -> None:
    """(h): arithmetic on a 64 x 64 matrix that stays in the core's cache (no memory traffic)."""
    a = np.random.default_rng(0).standard_normal((64, 64))
    for _ in range(steps):
        a = np.tanh(0.01 * (a @ a))


def hardware(m: int, chunk: int) -> pd.DataFrame:
    """The same work in 1 and in 2 plain processes (no Dask): what the machine allows in parallel."""
    import multiprocessing as mp

    model = np.linalg.qr(np.random.default_rng(0).standard_normal((100, 2)))[0]
    n_chunks = m // chunk
    ctx = mp.get_context("fork")

    def run(target, jobs: list[tuple]) -> float:
        procs = [ctx.Process(target=target, args=a) for a in jobs]
        t = time.perf_counter()
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        return time.perf_counter() - t

    half = n_chunks // 2
    rows = []
    for what, one, two in (
        (f"generate and score {n_chunks} chunks of 100 x {chunk:,}",
         (_chunks_in_process, [(0, n_chunks, chunk, model)]),
         (_chunks_in_process, [(0, half, chunk, model), (half, n_chunks - half, chunk, model)])),
        ("in-cache arithmetic, 40,000 steps", (_in_cache, [(40_000,)]), (_in_cache, [(20_000,), (20_000,)])),
    ):
        t1, t2 = run(*one), run(*two)
        rows.append({"work": what, "1 process s": t1, "2 processes s": t2, "speed-up": t1 / t2})
    return pd.DataFrame(rows)


def tall_problem(n: int, row_chunk: int, seed: int = 6) -> tuple[da.Array, da.Array]:
    g = da.random.default_rng(seed).standard_normal((n, 200), chunks=(row_chunk, 200))
    noise = da.random.default_rng(seed + 1).standard_normal(n, chunks=row_chunk)
    y = 0.02 * g[:, [3, 50, 120, 199]].sum(axis=1) + noise  # a small signal: n is large
    return y, g


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def peak_rss_of_workers(client: Client, fn):
    """``fn()``'s value and the peak RSS of each worker process and of this driver while it ran (MB)."""
    peaks: dict[str, float] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError, TimeoutError, RuntimeError):  # a worker restarting: next time
                for worker, rss in client.run(_rss).items():
                    peaks[worker] = max(peaks.get(worker, 0.0), rss / 2**20)
            peaks["driver"] = max(peaks.get("driver", 0.0), _rss() / 2**20)
            done.wait(0.25)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        value = fn()
    finally:
        done.set()
        sampler.join()
    return value, peaks


def tall(n: int, row_chunk: int = 100_000) -> pd.DataFrame:
    rows = []
    small_n = min(n, 1_000_000)
    y_small, g_small = tall_problem(small_n, row_chunk)
    y_mem, x_mem = dask.compute(y_small, g_small)
    secs, ref = timed(sr.select, y_mem, x_mem)
    rows.append({"run": f"numpy in memory, n = {small_n:,}", "seconds": secs, "selected": ",".join(ref.selected_terms)})
    del y_mem, x_mem  # the driver's memory below is the Dask path's own
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="8GiB", silence_logs=50) as cluster, Client(cluster) as client:
        for size in dict.fromkeys([small_n, n]):
            y, g = tall_problem(size, row_chunk)
            t = time.perf_counter()
            (secs_y, y_np), _ = peak_rss_of_workers(client, lambda y=y: timed(y.compute))
            (secs, fit), peaks = peak_rss_of_workers(client, lambda y_np=y_np, g=g: timed(sr.select, y_np, g))
            same = fit.selected_terms == ref.selected_terms if size == small_n else None
            rows.append({"run": f"2 workers, n = {size:,} (rows summed)", "seconds": secs,
                         "selected": ",".join(fit.selected_terms), "same as numpy": same,
                         "y s": secs_y, "driver MB": peaks.pop("driver", float("nan")),
                         "peak MB per worker": ", ".join(f"{v:.0f}" for v in peaks.values()),
                         "data GB": size * 200 * 8 / 1e9, "wall s": time.perf_counter() - t})
    out = pd.DataFrame(rows)
    out["x numpy (n = 1e6)"] = out["seconds"] / out["seconds"].iloc[0]
    print(f"driver MB: peak RSS of this process during the search (y and 5 selected columns alone are "
          f"{8 * n * 6 / 2**20:.0f} MB at n = {n:,})")
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
    ap.add_argument("--rows", type=int, default=10_000_000, help="n of the tall problem (b)")
    ap.add_argument("--only", choices=["a", "p", "h", "b", "c"], help="run one part")
    args = ap.parse_args()
    m = 400_000 if args.quick else args.m
    n = 1_000_000 if args.quick else args.rows
    pd.set_option("display.width", 200)
    if args.only in (None, "a"):
        print(f"== (a) lazily generated stream, 100 x {m:,}, chunks of {args.chunk:,} columns ==")
        print(wide(m, args.chunk).to_string(index=False, float_format="%.3g"))
    if args.only in (None, "p"):
        print(f"\n== (p) the same chunks as a bare pipeline (no search), 100 x {m:,}, chunks of {args.chunk:,} ==")
        print(bare(m, args.chunk).to_string(index=False, float_format="%.3g"))
    if args.only in (None, "h"):
        print(f"\n== (h) the machine: the same work in 1 and 2 plain processes (no Dask), 100 x {m:,} ==")
        print(hardware(m, args.chunk).to_string(index=False, float_format="%.3g"))
    if args.only in (None, "b"):
        print(f"\n== (b) tall data, {n:,} x 200 generated on the workers, row chunks of 100,000 ==")
        print(tall(n).to_string(index=False, float_format="%.3g"))
    if args.only in (None, "c"):
        print(f"\n== (c) overhead on data in memory, 100 x {min(m, 1_000_000):,} ==")
        print(overhead(min(m, 1_000_000), args.chunk).to_string(index=False, float_format="%.3g"))


if __name__ == "__main__":
    main()
