"""Peak memory of a long lazy stream with history="full" against history="none".

The synthetic problem of Zhou et al. (2006) as a lazy stream (n = 100, 4 true features first, then
noise candidates, never stored): ``select(y, stream, max_tests=N, history=...)`` for N
from 2e5 to 2e6 tests, with the stream given as blocks (``SyntheticStream``) and as a
generator of ``(name, column)`` pairs (``iter(SyntheticStream)``).  A generator's block of
items (up to 83,886 pairs of about 1 KB at n = 100) is held while it is stacked, so its
peak is higher and its growth is read from 5e5 tests, once the blocks have reached their
largest size.  Each run is a fresh process; its peak resident set (VmHWM, the process's own
high-water mark) is read after the selection.  The memory the history costs is the growth
of that peak with N: about 80 bytes per test with "full", nothing per rejected candidate
with "none" (target: growth < 25 MB from 2e5 to 2e6 tests).

Usage:  python bench/bench_memory.py [--quick] [--tests 200000,500000,1000000,2000000]
"""
from __future__ import annotations

import os

# one BLAS thread, as in every bench script
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import subprocess
import sys

import pandas as pd

CHILD = r"""
import sys, time, warnings
import streamreg as sr
warnings.filterwarnings("ignore")
n_tests, mode, source = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sim = sr.datasets.make_synthetic(n=100, m=n_tests, seed=5, lazy=True, positions="first")
def hwm():
    # VmHWM is this process's own peak (ru_maxrss would carry the parent's peak across exec)
    return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]) / 1024
before = hwm()
t = time.perf_counter()
fit = sr.select(sim.y, sim.stream if source == "blocks" else iter(sim.stream), max_tests=n_tests, history=mode,
                block_size=4096, w0=0.05, alpha_delta=0.05)
secs = time.perf_counter() - t
peak = hwm()
rows = len(fit.history)  # built only now, after the peak was read
print(secs, before, peak, int(fit.per_stream["tested"].sum()), len(fit.selected), rows,
      "|".join(fit.selected_terms))
"""


def run(n_tests: int, mode: str, source: str) -> dict:
    res = subprocess.run([sys.executable, "-c", CHILD, str(n_tests), mode, source], capture_output=True, text=True,
                         check=False)
    if res.returncode:
        raise RuntimeError(res.stderr)
    secs, before, peak, tested, selected, rows, terms = res.stdout.split(" ", 6)
    return {"stream": source, "history": mode, "tests": int(tested), "seconds": float(secs), "peak RSS MB": float(peak),
            "peak - start MB": float(peak) - float(before), "rows kept": int(rows), "selected": int(selected),
            "terms": terms.strip()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2e4 and 2e5 tests only")
    ap.add_argument("--tests", default="200000,500000,1000000,2000000")
    args = ap.parse_args()
    sizes = [20_000, 200_000] if args.quick else [int(float(v)) for v in args.tests.split(",")]
    pd.set_option("display.width", 140)
    pd.set_option("display.float_format", lambda v: f"{v:.4g}")
    for source in ("blocks", "generator"):
        rows = [run(n, mode, source) for n in sizes for mode in ("full", "none")]
        df = pd.DataFrame(rows)
        print(f"== select(y, lazy synthetic stream as {source}, max_tests=N, history=...) (n = 100; one process "
              "per run) ==")
        print(df.drop(columns=["terms", "stream"]).to_string(index=False))
        same = all(df[df["tests"] == n]["terms"].nunique() == 1 for n in sizes)
        print(f"\nsame selected terms with 'full' and 'none' at every N: {same}")
        # blocks double from 4,096 candidates up to the search's cap (83,886 at n = 100), reached
        # after about 210,000 tests: below that the peak still grows with the block, not the tests
        lo, hi = (sorted(sizes)[1] if source == "generator" and len(sizes) > 2 else min(sizes)), max(sizes)
        print(f"\n== {source}: growth of the peak from {lo:,} to {hi:,} tests ==")
        for mode in ("full", "none"):
            d = df[df["history"] == mode].set_index("tests")["peak RSS MB"]
            growth = d[hi] - d[lo]
            per = growth * 2**20 / (hi - lo)
            line = (f"history={mode!r}: {d[lo]:.1f} MB -> {d[hi]:.1f} MB, growth {growth:+.1f} MB "
                    f"({per:.1f} bytes per test)")
            if mode == "none":
                line += f"; target < 25 MB: {'met' if growth < 25 else 'NOT met'}"
            print(line)
        print()

if __name__ == "__main__":
    main()
