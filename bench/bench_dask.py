"""The Dask path: a lazily generated wide stream on 2 workers, and its overhead on in-memory data.

(a) ``select(y, g)`` where ``g`` is a ``100 x 4,000,000`` ``dask.array`` of N(0, 1) values
    generated chunk by chunk (never materialised on the driver): a ``distributed``
    LocalCluster with 2 worker processes of 1 thread, and with 2 workers as threads of this
    process, against the same graph on dask's synchronous scheduler in this process; the
    decisions must agree.  Two problems: the signals spread over the stream ("late") and all
    three in the first chunk ("early": three acceptances before the rest of the stream).  All
    runs warm, interleaved over ``--rounds`` rounds; min and median seconds, the CPU seconds
    used (driver and workers) and each worker's busy share, with the machine's load.
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
        [--rounds 3]
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
from distributed import Client, LocalCluster, get_task_stream, wait

import streamreg as sr

#: where the signals sit: spread over the stream (one acceptance in the first chunk), or all three
#: in the first chunk of 50,000 columns (three acceptances there, the rest of the stream after them)
PROBLEMS = {"late": (7, 1_234_567, 2_500_001, 3_999_000), "early": (7, 21_000, 42_000)}
TRUE = PROBLEMS["late"]
RUNS = ("synchronous scheduler, 1 process", "LocalCluster, 2 worker processes x 1 thread",
        "LocalCluster, 2 workers x 1 thread, in this process")


def problem(m: int, chunk: int, seed: int = 4, true: tuple[int, ...] = TRUE) -> tuple[np.ndarray, da.Array]:
    g = da.random.default_rng(seed).standard_normal((100, m), chunks=(100, chunk))
    cols = [j % m for j in true]
    y = g[:, cols].sum(axis=1).compute() + 0.1 * np.random.default_rng(seed).standard_normal(100)
    return y, g


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def _cpu(client: Client | None) -> float:
    """CPU seconds used so far by this process (its threads: driver, scheduler, thread workers)
    and by the worker processes of ``client``'s cluster."""
    own = time.process_time()
    if client is None or not client.cluster.processes:
        return own
    return own + sum(client.run(time.process_time).values())


def _busy(stream: list[dict], wall: float) -> str:
    """Share of the wall time each worker spent computing tasks (task stream)."""
    per: dict[str, float] = {}
    for task in stream:
        for s in task["startstops"]:
            if s["action"] == "compute":
                per[task["worker"]] = per.get(task["worker"], 0.0) + s["stop"] - s["start"]
    return ", ".join(f"{v / wall:.2f}" for v in per.values())


def _one(y: np.ndarray, g: da.Array, client: Client | None) -> dict:
    """One timed search (synchronous scheduler when ``client`` is None): seconds, CPU, busy, terms."""
    c0 = _cpu(client)
    if client is None:
        with dask.config.set(scheduler="synchronous"):
            secs, fit = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
        busy = ""
    else:
        with client.as_current(), get_task_stream(client) as ts:
            secs, fit = timed(sr.select, y, g, w0=0.05, alpha_delta=0.05)
        busy = _busy(ts.data, secs)
    return {"seconds": secs, "cpu": _cpu(client) - c0, "busy": busy, "selected": tuple(fit.selected_terms)}


def wide(m: int, chunk: int, rounds: int = 3) -> pd.DataFrame:
    """Both problems on the synchronous scheduler, 2 worker processes and 2 worker threads, all warm
    (a search on a tenth of each stream first) and interleaved: round after round, each problem
    runs once on each, in an order that rotates, so a change in the machine's load falls on all."""
    problems = {name: problem(m, chunk, true=true) for name, true in PROBLEMS.items()}
    rows = []
    with contextlib.ExitStack() as stack:
        clusters = [LocalCluster(n_workers=2, threads_per_worker=1, processes=procs, dashboard_address=None,
                                 silence_logs=50) for procs in (True, False)]
        clients = [None] + [stack.enter_context(Client(stack.enter_context(c), set_as_default=False))
                            for c in clusters]
        for y, g in problems.values():  # warm: imports, graph code, the workers' first tasks
            for client in clients:
                _one(y, g[:, : m // 10], client)
        loads = [os.getloadavg()[0]]
        for r in range(rounds):
            for name, (y, g) in problems.items():
                for i in np.roll(np.arange(len(clients)), r):
                    rows.append({"problem": name, "run": RUNS[i], "round": r, **_one(y, g, clients[i])})
            loads.append(os.getloadavg()[0])
    out = pd.DataFrame(rows)
    table = out.groupby(["problem", "run"], sort=False).agg(
        min_s=("seconds", "min"), median_s=("seconds", "median"), cpu_s=("cpu", "median"),
        busy=("busy", "last"), same=("selected", lambda s: s.nunique() == 1)).reset_index()
    sync = table[table["run"] == RUNS[0]].set_index("problem")
    table["x min"] = table["problem"].map(sync["min_s"]) / table["min_s"]
    table["x median"] = table["problem"].map(sync["median_s"]) / table["median_s"]
    chosen = out.groupby("problem")["selected"].agg(lambda s: s.nunique() == 1)
    table["same decisions"] = table["same"] & table["problem"].map(chosen)
    table["selected"] = table["problem"].map(out.groupby("problem")["selected"].first().map(",".join))
    print(f"load average (1 min) before the rounds and after each: {', '.join(f'{v:.2f}' for v in loads)}; "
          f"{rounds} rounds; cpu s: median CPU seconds of this process and the worker processes; busy: each "
          "worker's share of the wall time spent in tasks (last round)")
    return table.drop(columns="same")


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
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of (a)")
    args = ap.parse_args()
    m = 400_000 if args.quick else args.m
    n = 1_000_000 if args.quick else args.rows
    pd.set_option("display.width", 200)
    if args.only in (None, "a"):
        print(f"== (a) lazily generated stream, 100 x {m:,}, chunks of {args.chunk:,} columns; signals "
              f"late {PROBLEMS['late']}, early {PROBLEMS['early']} ==")
        print(wide(m, args.chunk, args.rounds).to_string(index=False, float_format="%.3g"))
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
