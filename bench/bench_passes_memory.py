"""Peak memory and time of ``passes=3`` on an in-memory matrix: re-offers that keep
positions (re-read when offered) against re-offers that copy the rejected candidates.

``select(y, X, method="lord++", alpha=0.1, w0=0.1, spending="uniform", passes=3)`` at
n = 100 and m = 2e5 and 1e6 (X float64, 5 true columns among the first 1,000).  Each run
is a fresh process (as in ``bench_memory.py``); it builds X, reads its peak resident set,
runs the selection and reads the peak again: ``select MB`` is what the selection added.
The peak is the process's own high-water mark (VmHWM); ``ru_maxrss``
(``resource.getrusage``) is printed beside it and agrees, as the parent is small.

Modes:

* ``positions``: this package (arrays re-read their rejected candidates by position);
* ``copy``: the same search with every re-offer copying its values, as before positions
  (``PassesStream.on_rejected`` handed blocks without positions): the same decisions;
* ``generator``: X's columns as a generator of ``(name, column)`` pairs (a stream that
  cannot re-read, so it copies), ``max_tests=math.inf``: a stream of unknown length, so
  uniform spending falls back to the decaying sequence and decisions may differ.

With ``history="full"`` (the default) the history's rows (about 80 bytes per test, 3m
tests) are part of every peak; ``--history none`` leaves them out.

Usage:  python bench/bench_passes_memory.py [--sizes 200000,1000000] [--modes positions,copy,generator]
                                            [--history full|none]
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
import dataclasses, math, resource, sys, time, warnings
import numpy as np
import streamreg as sr
from streamreg.streams.passes import PassesStream
warnings.filterwarnings("ignore")
m, mode, history = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def hwm():
    return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]) / 1024
rng = np.random.default_rng(11)
X = rng.standard_normal((100, m))
y = X[:, [3, 150, 400, 720, 999]] @ np.array([2.0, 1.8, 1.6, 1.4, 1.2]) + rng.standard_normal(100)
if mode == "copy":  # the re-offers of before: every rejected candidate's values copied
    keep = PassesStream.on_rejected
    PassesStream.on_rejected = lambda self, b, pos: keep(self, dataclasses.replace(b, positions=None), pos)
stream, extra = X, {}
if mode == "generator":
    stream, extra = ((f"x{j}", X[:, j]) for j in range(m)), {"max_tests": math.inf}
before = hwm()
t = time.perf_counter()
fit = sr.select(y, stream, method="lord++", alpha=0.1, w0=0.1, spending="uniform", passes=3, history=history,
                **extra)
secs = time.perf_counter() - t
peak = hwm()
maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
h = fit.history
print(secs, before, peak, maxrss, int(fit.per_stream["tested"].sum()), int(h["pass"].max()) if len(h) else 0, "|".join(fit.selected_terms))
"""


def run(m: int, mode: str, history: str) -> dict:
    res = subprocess.run([sys.executable, "-c", CHILD, str(m), mode, history], capture_output=True, text=True,
                         check=False)
    if res.returncode:
        raise RuntimeError(res.stderr)
    secs, before, peak, maxrss, tests, passes, terms = res.stdout.split(" ", 6)
    return {"m": m, "mode": mode, "seconds": float(secs), "X built MB": float(before), "peak RSS MB": float(peak),
            "ru_maxrss MB": float(maxrss), "select MB": float(peak) - float(before), "tests": int(tests),
            "last pass kept": int(passes), "terms": terms.strip()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--modes", default="positions,copy,generator")
    ap.add_argument("--history", default="full", choices=["full", "none"],
                    help="'none' leaves out the history's ~80 bytes per test, so the re-offers' own cost shows")
    args = ap.parse_args()
    sizes = [int(float(v)) for v in args.sizes.split(",")]
    modes = args.modes.split(",")
    pd.set_option("display.width", 160)
    pd.set_option("display.float_format", lambda v: f"{v:.4g}")
    rows = [run(m, mode, args.history) for m in sizes for mode in modes]
    df = pd.DataFrame(rows)
    print("== select(y, X, method='lord++', alpha=0.1, w0=0.1, spending='uniform', passes=3, "
          f"history={args.history!r}), n = 100 (one process per run) ==")
    print(df.drop(columns=["terms"]).to_string(index=False))
    print()
    for m in sizes:
        d = df[df["m"] == m].set_index("mode")
        for mode in d.index:
            print(f"m = {m:,} {mode}: selected {d.loc[mode, 'terms'] or '(none)'}")
        if {"positions", "copy"} <= set(d.index):
            same = d.loc["positions", "terms"] == d.loc["copy", "terms"] and \
                d.loc["positions", "tests"] == d.loc["copy", "tests"]
            saved = d.loc["copy", "select MB"] - d.loc["positions", "select MB"]
            print(f"m = {m:,}: positions against copy: same selection and tests: {same}; the selection's peak "
                  f"{d.loc['copy', 'select MB']:.0f} MB -> {d.loc['positions', 'select MB']:.0f} MB "
                  f"({saved:.0f} MB less), {d.loc['copy', 'seconds']:.2f} s -> {d.loc['positions', 'seconds']:.2f} s")
        print()


if __name__ == "__main__":
    main()
