"""Candidates in Dask arrays and DataFrames: the decisions and statistics of the in-memory path.

A ``distributed.LocalCluster`` (2 worker processes, 1 thread each) runs inside the session;
the same searches also run on dask's default scheduler.
"""
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.streams.dask_array import DaskArrayStream

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(11)
    n, m = 120, 6000
    x = rng.standard_normal((n, m))
    x[:, 77] = 3.0  # a constant candidate: skipped, as in memory
    eta = x[:, [5, 900, 4100]].sum(axis=1)
    y = eta + 0.5 * rng.standard_normal(n)
    yb = (rng.random(n) < 1 / (1 + np.exp(-1.5 * eta))).astype(float)
    return x, y, yb


def _same(fit, ref):
    assert fit.selected_terms == ref.selected_terms
    h, r = fit.history, ref.history
    assert list(h["term"]) == list(r["term"])
    assert list(h["status"]) == list(r["status"])
    # the kernel is the in-memory one on the same values; BLAS rounds the last columns of a
    # block differently when blocks are cut elsewhere (observed: 2.5e-15 relative), and the
    # in-memory path rescores after an acceptance by rank-one updates (models/rescore.py),
    # whose rounding differs from a fresh product by about eps sqrt(n) ||r|| ||b||: absolute
    # in the statistic (observed: 1.2e-18 on a statistic of 1e-6)
    np.testing.assert_allclose(h["statistic"].to_numpy(), r["statistic"].to_numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("chunks", [(120, 500), (120, 1777), (40, 3000)])
@pytest.mark.parametrize("method", ["alpha-investing", "lord++"])
def test_default_scheduler_gives_the_numpy_decisions(problem, chunks, method):
    x, y, _ = problem
    ref = sr.select(y, x, method=method)
    with_dask = sr.select(y, da.from_array(x, chunks=chunks), method=method)
    _same(with_dask, ref)
    assert "x77" in set(ref.history.loc[ref.history["status"].astype(str).str.contains("constant"), "term"])


def test_workers_as_threads_of_this_process_give_the_numpy_decisions(client, problem):
    # a LocalCluster without processes (the faster choice on one machine, bench_dask.py (a))
    x, y, _ = problem
    ref = sr.select(y, x, passes=1, **ONE_PHASE)
    g = da.from_array(x, chunks=(120, 700))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as threads:
        assert distributed.default_client() is threads
        fit = sr.select(y, g, passes=1, **ONE_PHASE)
    _same(fit, ref)
    assert distributed.default_client() is client  # the session's cluster is the default again


@pytest.mark.parametrize("chunks", [(120, 700), (60, 2500)])
def test_binomial_score_tests_on_the_cluster(client, problem, chunks):
    x, _, yb = problem
    ref = sr.select(yb, x, family="binomial", method="alpha-investing")  # the liberal rule: several terms
    assert len(ref.selected_terms) >= 2
    _same(sr.select(yb, da.from_array(x, chunks=chunks), family="binomial", method="alpha-investing"), ref)


def test_gaussian_on_the_cluster_with_a_dask_response(client, problem):
    x, y, _ = problem
    ref = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    fit = sr.select(da.from_array(y, chunks=60), da.from_array(x, chunks=(60, 1000)), method="alpha-investing",
                    w0=0.05, alpha_delta=0.05)
    _same(fit, ref)


def test_a_dask_dataframe_keeps_its_column_names(client, problem):
    x, y, _ = problem
    frame = pd.DataFrame(x[:, :800], columns=[f"g{j}" for j in range(800)])
    ref = sr.select(y, frame, passes=1, **ONE_PHASE)
    fit = sr.select(y, dd.from_pandas(frame, npartitions=3), passes=1, **ONE_PHASE)
    _same(fit, ref)
    assert all(t.startswith("g") for t in fit.selected_terms)


def test_lazily_generated_candidates_are_generated_on_the_workers(client):
    rng = da.random.default_rng(3)
    g = rng.standard_normal((100, 40_000), chunks=(100, 5_000))
    col = g[:, 12_345].compute()
    y = 2 * col + 0.1 * np.random.default_rng(0).standard_normal(100)
    fit = sr.select(y, g, passes=1, **ONE_PHASE)
    assert "x12345" in fit.selected_terms
    _same(fit, sr.select(y, g.compute(), passes=1, **ONE_PHASE))


def _array(kind, x, client, chunk):
    if kind == "generated":  # drawn chunk by chunk on the workers; y is built from it below
        return da.random.default_rng(7).standard_normal(x.shape, chunks=(x.shape[0], chunk))
    if kind == "in memory":
        return da.from_array(x, chunks=(x.shape[0], chunk))
    if kind == "persisted":  # the chunks are futures: the tasks take them, no graph
        return client.persist(da.from_array(x, chunks=(x.shape[0], chunk)))
    # rows cut in two on the workers: each column chunk is joined there first (persisted per run)
    return client.persist(da.from_array(x, chunks=(x.shape[0] // 2, chunk)))


@pytest.mark.parametrize(("kind", "chunk", "group"), [
    ("in memory", 400, 3),  # 15 chunks: runs of 3 from the chunk after the 2nd acceptance hold the 3rd inside
    ("in memory", 500, 5),  # 12 chunks
    ("in memory", 430, 2),  # a narrower last chunk
    ("generated", 300, 4),
    ("persisted", 400, 3),
    ("rows on the workers", 600, 4),
])
def test_tasks_scoring_several_chunks_give_the_numpy_decisions(client, problem, monkeypatch, kind, chunk, group):
    """One task scores a run of chunks (each chunk on its own); runs are cut after a model
    change and near the end, and an acceptance may fall inside one: the decisions and the
    statistics are those of numpy, whatever the chunks and the group."""
    x, y, _ = problem
    g = _array(kind, x, client, chunk)
    if kind == "generated":
        x = g.compute()
        y = x[:, [5, 900, 4100]].sum(axis=1) + 0.5 * np.random.default_rng(2).standard_normal(x.shape[0])
    runs = []
    submit = DaskArrayStream._submit

    def recorded(self, client, q, w, lo, hi, hold):
        runs.append((lo, hi))
        return submit(self, client, q, w, lo, hi, hold)

    monkeypatch.setattr(DaskArrayStream, "_submit", recorded)
    stream = DaskArrayStream("x", g, group=group)
    assert stream.group == group
    ref = sr.select(y, x, passes=1, **ONE_PHASE)
    fit = sr.select(y, stream, passes=1, **ONE_PHASE)
    _same(fit, ref)
    assert len(ref.selected_terms) >= 2
    # runs of several chunks were scored, and one held an accepted candidate past its first chunk
    assert max(hi - lo for lo, hi in runs) > chunk
    accepted = [int(t[1:]) for t in ref.history.loc[ref.history["status"].astype(str) == "accepted", "term"]]
    assert any(lo // chunk < j // chunk and j < hi for lo, hi in runs for j in accepted)


def test_kept_values_are_scored_and_read_where_they_are_kept(client, monkeypatch):
    """Three acceptances in the first chunk: the runs scored ahead keep their values on the
    workers (an acceptance then voids their scoring only, so they are full-size at once).  No
    task scores kept chunks of two tasks, or kept chunks with chunks to generate (it runs where
    its values are, nothing copied between workers); accepted columns already kept are read on
    their worker, outside its task queue.  The decisions and statistics are numpy's."""
    from streamreg.streams import dask_array, dask_tasks

    g = da.random.default_rng(5).standard_normal((100, 60_000), chunks=(100, 2_000))
    x = g.compute()
    y = x[:, [3, 700, 1_500, 41_000]].sum(axis=1) + 0.3 * np.random.default_rng(6).standard_normal(100)
    homes, read = [], []
    sources, read_kept = DaskArrayStream._sources, dask_tasks.read_kept

    def recorded(self, *args):
        out = sources(self, *args)
        homes.append({id(v) if i is not None and not isinstance(v, dask_tasks.LazyChunks) else None
                      for v, i in out})
        return out

    def reading(*args):
        column = read_kept(*args)
        read.append(column is not None)
        return column

    monkeypatch.setattr(DaskArrayStream, "_sources", recorded)
    monkeypatch.setattr(dask_array, "read_kept", reading)
    ref = sr.select(y, x, passes=1, **ONE_PHASE)
    fit = sr.select(y, g, passes=1, **ONE_PHASE)
    _same(fit, ref)
    assert {"x3", "x700", "x1500"} <= set(ref.selected_terms)
    assert all(len(h) == 1 for h in homes)
    assert any(None not in h for h in homes) and any(read)


def test_a_kept_column_whose_holder_died_is_read_by_a_task(client, monkeypatch):
    """``read_kept`` asks the worker holding a chunk for one column; when that worker has died
    (the broadcast fails with CommClosedError, an OSError) it answers None, and the caller
    reads the column by a task instead of failing the search."""
    from distributed.comm.core import CommClosedError

    from streamreg.streams.dask_tasks import read_kept

    future = client.submit(np.arange, 12.0, key="kept-column-test")
    chunk = future.result().reshape(3, 4)
    future = client.scatter(chunk)
    np.testing.assert_array_equal(read_kept(client, future, None, 2), chunk[:, 2:3])

    def dead(*args, **kwargs):
        raise CommClosedError("in <TCP (closed) Scheduler Broadcast>: Connection reset by peer")

    monkeypatch.setattr(client, "run", dead)
    assert read_kept(client, future, None, 2) is None


def test_a_worker_killed_mid_search_changes_nothing(client):
    rng = da.random.default_rng(8)
    g = rng.standard_normal((100, 120_000), chunks=(100, 4_000))
    y = g[:, [10, 70_000]].sum(axis=1).compute() + 0.2 * np.random.default_rng(1).standard_normal(100)
    ref = sr.select(y, g.compute(), passes=1, **ONE_PHASE)
    pids = list(client.run(os.getpid).values())

    def kill_one():
        time.sleep(0.3)
        os.kill(pids[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    fit = sr.select(y, g, passes=1, **ONE_PHASE)
    killer.join()
    _same(fit, ref)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next tests


@pytest.mark.parametrize(("make", "message"), [
    (lambda x: da.from_array(x, chunks=(60, 1000))[da.from_array(np.arange(120) % 2 == 0)],
     "unknown chunk sizes; call x.compute_chunk_sizes()"),
    (lambda x: da.from_array(x[:100], chunks=(100, 1000)), "has 100 rows, y has 120"),
    (lambda x: da.from_array(np.full((120, 3), "a"), chunks=(120, 3)), "is not numeric"),
    (lambda x: dd.from_pandas(pd.DataFrame({"a": x[:, 0], "t": ["u"] * 120}), npartitions=2),
     "column 't' is not numeric"),
    (lambda x: da.from_array(x[:, :0], chunks=(120, 1)), "is empty"),
])
def test_bad_dask_input_gets_a_clear_message(problem, make, message):
    x, y, _ = problem
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sr.select(y, make(x), passes=1, **ONE_PHASE)


@pytest.mark.parametrize("option, value", [("group", 2.5), ("group", True), ("group", 0), ("ahead", 0)])
def test_group_and_ahead_must_be_positive_whole_numbers(option, value):
    import dask.array as da

    from streamreg.streams.dask_array import DaskArrayStream

    what = "chunks" if option == "group" else "tasks"
    with pytest.raises(ValueError, match=rf"^stream 's': {option} must be a positive whole number of {what}, "
                                         rf"got {value!r}$"):
        DaskArrayStream("s", da.zeros((5, 10), chunks=(5, 5)), **{option: value})


def test_empty_column_chunks_are_dropped_and_decisions_kept():
    import dask.array as da

    from streamreg.streams.dask_array import DaskArrayStream

    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 30))
    y = x[:, 12] + 0.3 * rng.normal(size=60)
    darr = da.from_array(x, chunks=(60, (10, 0, 10, 0, 10)))
    stream = DaskArrayStream("s", darr)
    assert stream.darr.chunks[1] == (10, 10, 10)
    fit = sr.select(y, DaskArrayStream("s", darr), passes=1, **ONE_PHASE)
    assert fit.selected_terms == sr.select(y, x, passes=1, **ONE_PHASE).selected_terms == ["x12"]


def test_chunks_sharing_a_source_are_not_recomputed_per_task():
    import dask.array as da
    import dask.dataframe as dd

    from streamreg.streams.dask_tasks import independent_chunks

    assert independent_chunks(da.random.default_rng(0).standard_normal((20, 400), chunks=(20, 100)))
    frame = pd.DataFrame(np.ones((40, 40)), columns=[f"c{i}" for i in range(40)])
    shared = dd.from_pandas(frame, npartitions=4).to_dask_array(lengths=True).rechunk({0: 40, 1: 10})
    assert not independent_chunks(shared)  # every column chunk reads all four partitions


def test_chunk_scores_flag_constancy_of_the_collinear_columns_as_the_search_asks():
    from streamreg.models.base import CandidateBlock
    from streamreg.streams.dask_tasks import chunk_scores

    rng = np.random.default_rng(4)
    n = 30
    x = rng.normal(size=(n, 6))
    x[:, 1] = 2.5  # constant: collinear with the intercept
    x[:, 4] = 3 * x[:, 0]  # collinear, not constant
    q = np.full((n, 1), 1 / np.sqrt(n))
    q = np.column_stack([q, x[:, 0] - x[:, 0].mean()])
    q[:, 1] /= np.linalg.norm(q[:, 1])
    r = rng.normal(size=n)
    r -= q @ (q.T @ r)
    scores = chunk_scores(x, np.column_stack([q, r]), None)
    gain, rank = CandidateBlock(x).reduce_single(np.column_stack([q, r]))
    np.testing.assert_array_equal(scores[0], gain)
    np.testing.assert_array_equal(scores[1], rank)
    assert scores[1].tolist() == [0, 0, 1, 1, 0, 1]
    assert scores[2].tolist() == [0, 1, 0, 0, 0, 0]  # x1 constant; x0 and x4 collinear, not constant
    np.testing.assert_array_equal(scores[2][scores[1] == 0] > 0, CandidateBlock(x).constant_terms(np.flatnonzero(rank == 0)))
