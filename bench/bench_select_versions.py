"""``select()`` on wide data against one pass ``X'r``, this checkout against an earlier one.

paper 000's problem (n = 200 rows, m candidates, 4 signals spread over the stream, one at
the end), column-ordered X, at the default settings.  Each run is a fresh process that makes
the data, times the floor ``X.T @ r`` (best of 3), warms up (imports; under ``auto`` numba's
cached kernels, loaded explicitly, as ``auto`` now loads them for large blocks only) on a small
problem and times one ``select()`` (with ``--warm``, the second ``select()`` of the full problem
in the process: the first pays one-time costs, numba's load of its cached kernel for the
block's layout and the first touch of fresh memory).  "new" imports streamreg from this
checkout, "before" from ``--before`` (e.g. ``git archive <commit> | tar -x -C DIR``); both with
``STREAMREG_KERNEL=numpy`` and ``auto`` (numba when installed), alternating in rounds.
Ratios are per process (select over that process's floor); min and median over rounds.

Usage (from the repository root):
    python bench/bench_select_versions.py --before DIR [--m 1e6] [--rounds 3] [--warm]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd

CHILD = r'''
import json, os, sys, time
sys.path.insert(0, {root!r})
import numpy as np, streamreg as sr
assert os.path.abspath(sr.__file__).startswith(os.path.abspath({root!r})), sr.__file__
rng = np.random.default_rng(0)
n, m = 200, {m}
x = rng.standard_normal((m, n)).T
true = [m // 10, m // 3, m // 2, m - 7]
y = x[:, true] @ np.array([1.0, -1.0, 1.0, -1.0]) + rng.standard_normal(n)
r = y - y.mean()
x.T @ r
floor = []
for _ in range(3):
    t = time.perf_counter()
    x.T @ r
    floor.append(time.perf_counter() - t)
sr.select(y[:50], x[:50, :2000])
from streamreg.models import kernels
if os.environ.get("STREAMREG_KERNEL") != "numpy" and kernels.numba_available():
    kernels._numba()  # loaded in the warm-up: auto loads it only for large blocks, once per process
if {warm}:
    sr.select(y, x)
t = time.perf_counter()
fit = sr.select(y, x)
print(json.dumps({{"floor": min(floor), "select": time.perf_counter() - t, "terms": fit.selected_terms,
                  "load": os.getloadavg()[0]}}))
'''


def run(root: str, m: int, kernel: str, warm: bool = False) -> dict:
    env = dict(os.environ, STREAMREG_KERNEL=kernel, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD.format(root=root, m=m, warm=warm)], capture_output=True, text=True,
                         env=env, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="a checkout of the earlier commit")
    ap.add_argument("--m", default="1e6")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warm", action="store_true", help="time the second select() of the full problem in each process")
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = {"new": here, "before": os.path.abspath(args.before)}
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}, rounds: {args.rounds}")
    for m in (int(float(v)) for v in args.m.split(",")):
        rows = []
        runs = [(label, kernel) for label in roots for kernel in ("numpy", "auto")]
        for rnd in range(args.rounds):
            for label, kernel in runs[rnd % len(runs):] + runs[: rnd % len(runs)]:
                got = run(roots[label], m, kernel, args.warm)
                got["ratio"] = got["select"] / got["floor"]
                rows.append({"version": label, "kernel": kernel, **got})
                print(f"  m {m:,} round {rnd} {label} {kernel}: select {got['select']:.3f} s, floor "
                      f"{got['floor']:.4f} s, x floor {got['ratio']:.1f}, load {got['load']:.1f}", flush=True)
        tab = pd.DataFrame(rows)
        summary = tab.groupby(["version", "kernel"], sort=False).agg(
            select_min=("select", "min"), select_med=("select", "median"), floor_min=("floor", "min"),
            x_floor_min=("ratio", "min"), x_floor_med=("ratio", "median"))
        print(f"\n== n = 200, m = {m:,}, column-ordered X, default settings ==")
        print(summary.to_string(float_format=lambda v: f"{v:.3g}"))
        same = all(t == tab["terms"].iloc[0] for t in tab["terms"])
        speedup = {k: float(np.min(tab[(tab.version == "before") & (tab.kernel == k)]["select"])
                            / np.min(tab[(tab.version == "new") & (tab.kernel == k)]["select"]))
                   for k in ("numpy", "auto")}
        print(f"before / new (min): numpy {speedup['numpy']:.2f}, auto {speedup['auto']:.2f}; "
              f"selected {tab['terms'].iloc[0]}, the same in every run: {same}\n", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
