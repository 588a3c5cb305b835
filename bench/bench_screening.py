"""Benchmarks for streamreg.screening (not tests): thesis Tables 3.2-3.6 and Sec. 3.4.2.

Usage::

    python bench/bench_screening.py            # full run
    python bench/bench_screening.py --quick    # smaller grids, fewer rows in the drift run

Part 1 compares the online quantile screeners with the offline binning on the NIPS 2003
sets of ``streamreg.datasets`` (downloaded on first use; ``STREAMREG_DATA_URL`` may point at
a mirror): madelon, arcene, dexter and dorothea (sparse) train+valid; gisette valid only
unless its training data could be downloaded (the project's mirror lacks them).  Part 2 is the
concept-drift experiment (eqs. 3.20-3.22).  Tables are printed and also written to
bench/out/bench_screening.txt.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from streamreg import screening as S
from streamreg.datasets import load as load_dataset
from streamreg.screening import criteria

OUT = ROOT / "bench" / "out"
LINES: list[str] = []


def emit(s: str = "") -> None:
    print(s, flush=True)
    LINES.append(s)


# ---- data ----------------------------------------------------------------------------
def load(name: str) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Features (dense, or CSR for dexter and dorothea) and labels -1/+1, from streamreg.datasets."""
    X, y = load_dataset(name).arrays()  # y is 0/1 there
    if sp.issparse(X):
        X = X.astype(np.float64)
    return X, np.where(y > 0, 1, -1)


# ---- part 1: online vs offline --------------------------------------------------------
def run_online(X, y, eps: float, bs: int) -> tuple[S.OnlineQuantileScreener, float]:
    on = S.OnlineQuantileScreener("chi2", eps=eps, classes=[-1, 1])
    t0 = time.perf_counter()
    for i in range(0, X.shape[0], bs):
        on.partial_fit(X[i:i + bs], y[i:i + bs])
    counts = on.counts_
    return on, (time.perf_counter() - t0) * 1000, counts


def offline_counts(X, y) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    c = S.bin_counts(X, y)
    return c, (time.perf_counter() - t0) * 1000


def diff_ratio(on: np.ndarray, off: np.ndarray) -> float:
    """Eq. 3.19: mean |w_on - w_off| / (max W_off - min W_off)."""
    rng = off.max() - off.min()
    return float(np.mean(np.abs(on - off)) / rng) if rng > 0 else 0.0


def top_mismatch(on: np.ndarray, off: np.ndarray) -> float:
    """Share of the offline top-10% features whose online rank differs."""
    p = off.size
    r_off = np.empty(p, int)
    r_off[np.argsort(-off, kind="stable")] = np.arange(p)
    r_on = np.empty(p, int)
    r_on[np.argsort(-on, kind="stable")] = np.arange(p)
    top = r_off < max(1, p // 10)
    return float(np.mean(r_on[top] != r_off[top]))


def table(title: str, cols: list[str], rows: list[tuple[str, list]], fmt: str) -> None:
    emit()
    emit(title)
    w = max(10, max(len(c) for c in cols) + 2)
    emit(f"{'':>12}" + "".join(f"{c:>{w}}" for c in cols))
    for label, vals in rows:
        emit(f"{label:>12}" + "".join(f"{format(v, fmt):>{w}}" for v in vals))


def part1(quick: bool) -> None:
    names = ["madelon", "arcene", "gisette", "dexter", "dorothea"]
    data = {}
    for nm in names:
        t0 = time.perf_counter()
        data[nm] = load(nm)
        X = data[nm][0]
        emit(f"loaded {nm}: {X.shape[0]} x {X.shape[1]} "
             f"{'sparse' if sp.issparse(X) else 'dense'} ({time.perf_counter() - t0:.1f}s)")
    off = {nm: offline_counts(*data[nm]) for nm in names}
    off = {nm: offline_counts(*data[nm]) for nm in names}  # second call: warm timings
    off_scores = {nm: {m: criteria.contingency_score(m, off[nm][0]) for m in ("chi2", "gini", "mi")}
                  for nm in names}

    batches = [1, 16, 256, 2048] if quick else [2 ** k for k in range(12)]
    rows = [("offline", [off[nm][1] for nm in names])]
    for bs in batches:
        rows.append((str(bs), [run_online(*data[nm], 0.001, bs)[1] for nm in names]))
    table("Table 3.2 analogue: time (ms) to bin counts vs minibatch size (eps = 0.001)",
          names, rows, ".0f")

    fs = [5, 50, 100, 500, 1000] if quick else [5, 50, 100, 500, 1000, 1500, 2000]
    eps_list = [1.0 / f for f in fs]
    results = {eps: {nm: run_online(*data[nm], eps, 250) for nm in names} for eps in eps_list}
    rows = [("offline", [off[nm][1] for nm in names])]
    rows += [(f"{eps:.6g}", [results[eps][nm][1] for nm in names]) for eps in eps_list]
    table("Table 3.3 analogue: time (ms) vs eps (minibatch 250)", names, rows, ".0f")

    rows = [(f"{eps:.6g}", [float(np.abs(results[eps][nm][2] - off[nm][0]).mean())
                            for nm in names]) for eps in eps_list]
    table("Table 3.4 analogue: mean |count difference| per feature per bin per class",
          names, rows, ".3g")
    rows = [(f"{eps:.6g}", [float(results[eps][nm][0].sketch_.error_.max()) for nm in names])
            for eps in eps_list]
    table("Certified rank error / N (max over features), must be <= eps", names, rows, ".3g")
    rows = [(f"{eps:.6g}", [results[eps][nm][0].sketch_.n_tuples / data[nm][0].shape[1]
                            for nm in names]) for eps in eps_list]
    table("Stored tuples per feature in the levels", names, rows, ".0f")

    for m in ("chi2", "gini", "mi"):
        dr_rows, mis_rows = [], []
        for eps in eps_list:
            dr, mis = [], []
            for nm in names:
                on_s = criteria.contingency_score(m, results[eps][nm][2])
                dr.append(diff_ratio(on_s, off_scores[nm][m]))
                mis.append(top_mismatch(on_s, off_scores[nm][m]))
            dr_rows.append((f"{eps:.6g}", dr))
            mis_rows.append((f"{eps:.6g}", mis))
        table(f"Table 3.5 analogue ({m}): score difference ratio DR (3.19)", names, dr_rows, ".2g")
        table(f"Table 3.6 analogue ({m}): top-10% rank mismatch", names, mis_rows, ".2g")

    # moment screeners: exact; report the largest relative deviation and the time
    rows = []
    for m in ("t", "fisher"):
        vals = []
        for nm in names:
            X, y = data[nm]
            ref = S.score(X, y, m).to_numpy()
            on = S.OnlineMomentScreener(m, classes=[-1, 1])
            t0 = time.perf_counter()
            for i in range(0, X.shape[0], 250):
                on.partial_fit(X[i:i + 250], y[i:i + 250])
            got = on.scores_.to_numpy()
            ok = np.isfinite(ref) & (ref > 0)
            vals.append(float(np.max(np.abs(got[ok] / ref[ok] - 1))))
        rows.append((m, vals))
    table("Moment screeners: max relative |online/offline - 1| (minibatch 250)",
          names, rows, ".1e")


# ---- part 2: concept drift -------------------------------------------------------------
def drift_stream(n: int, shift: int, p: int = 1000, k: int = 100, nu: float = 0.5,
                 chunk: int = 250, seed: int = 0):
    """Chunks of eqs. 3.20-3.22 (b = 1, c = 0); labels are the sign of y."""
    rng = np.random.default_rng(seed)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        i = start + np.arange(m)
        X = nu * rng.normal(size=(m, 1)) + rng.normal(size=(m, p))
        first = (i // shift) % p
        idx = (first[:, None] + np.arange(k)[None, :]) % p
        y = np.take_along_axis(X, idx, axis=1).sum(axis=1) + rng.normal(size=m)
        yield X, (y > 0).astype(int)


def true_set(n: int, shift: int, p: int = 1000, k: int = 100) -> np.ndarray:
    first = ((n - 1) // shift) % p
    return (first + np.arange(k)) % p


def part2(quick: bool) -> None:
    n = 40000 if quick else 100000
    shifts = [250, 500, 1000, 2000]
    fadings = [None, 0.9999, 0.9995, 0.999]
    ks = [100, 200, 500]
    methods = [("t", "moment"), ("fisher", "moment"), ("mi", "quantile"), ("gini", "quantile")]
    if quick:
        methods = methods[:3]
    emit()
    emit(f"Concept drift (3.20-3.22): p=1000, 100 true, nu=0.5, b=1, n={n} rows in "
         "chunks of 250; label = sign(y); detection rate @k of the support at the last row")
    emit("fading is per row (a row seen a rows ago weighs alpha^a); quantile methods use "
         "eps=0.05")
    head = f"{'method':>8}{'shift l':>9}{'fading':>8}" + "".join(f"{'@' + str(k):>8}" for k in ks) \
        + f"{'sec':>7}"
    emit(head)
    for m, kind in methods:
        for shift in shifts:
            for a in fadings:
                # the quantile screeners are ~50x slower here: a reduced grid
                if kind == "quantile" and (a not in (None, 0.9995) or shift not in (250, 2000)):
                    continue
                scr = (S.OnlineMomentScreener(m, fading=a, classes=[0, 1]) if kind == "moment"
                       else S.OnlineQuantileScreener(m, eps=0.05, fading=a, classes=[0, 1]))
                t0 = time.perf_counter()
                for X, y in drift_stream(n, shift):
                    scr.partial_fit(X, y)
                s = scr.scores_.to_numpy()
                order = np.argsort(-s, kind="stable")
                tru = set(true_set(n, shift).tolist())
                rates = [len(tru & set(order[:k].tolist())) / len(tru) for k in ks]
                emit(f"{m:>8}{shift:>9}{a!s:>8}" + "".join(f"{r:>8.2f}" for r in rates)
                     + f"{time.perf_counter() - t0:>7.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small grids and a short drift run")
    ap.add_argument("--part", choices=["1", "2", "all"], default="all")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.part in ("1", "all"):
        part1(args.quick)
    if args.part in ("2", "all"):
        part2(args.quick)
    emit()
    emit(f"total wall time {time.perf_counter() - t0:.0f}s")
    OUT.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    (OUT / f"bench_screening{suffix}.txt").write_text("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
