"""Tall data (issue 27, items 1 and 5): ``select()`` at n = 1e6, m = 200 against one pass ``X'r``.

Four problems on the same column-ordered X (``bench_glm_speed.tall``: 5 true columns):

* binomial: ``y ~ Bernoulli(logistic(X beta))``, beta = +-2, ``select(y, X, family="binomial")``;
* Gaussian: ``y = X beta + e``, beta = +-0.02 (t statistics about 20), ``select(y, X)``;
* Poisson (``--families poisson``): ``y ~ Poisson(exp(0.5 + X beta))`` with the Gaussian's
  beta, ``select(y, X, family="poisson")``;
* negative binomial (``--families negbin``, R's ``glm.nb``: theta estimated):
  ``y ~ NB(mean exp(0.5 + X beta), theta = 2)``, beta = +-0.05, ``select(y, X, family="negbin")``.

All at the default settings (three passes).  Each run is a fresh process that makes the data,
times the floor ``X'r`` (best of 3, after a warm-up), then resets its peak resident set (Linux:
``/proc/self/clear_refs``) and times one ``select()``; its peak RSS beyond X is read from
``/proc/self/status``.  "new" imports streamreg from this checkout, "before" from the checkout
given by ``--before`` (the commit the change started from, e.g. made with
``git archive <commit> | tar -x -C DIR``); the two alternate in rounds, the order rotated
between rounds.  Ratios are per process (select time over that process's floor), min and
median over rounds, in wall-clock time and in CPU time (``time.process_time``: one BLAS
thread, so the process's own work, less disturbed than the wall clock by other jobs on a
loaded machine).  Decisions: the histories of new and before are compared -- the same
terms in the same order with the same statuses, statistics and p-values within 1e-10.

Usage (from the repository root):
    python bench/bench_tall.py --before DIR [--rounds 3] [--n 1000000] [--families binomial,gaussian,poisson,negbin] [--warm]
        [--m 200] [--row-ordered] [--repeats 1]

``--m`` and ``--row-ordered`` make other shapes of the same problems (a row-ordered X: the
same values in C order); ``--repeats`` times several ``select()`` calls per process and keeps
the best, for problems that take a fraction of a second.

``--warm`` times the second ``select()`` of each process (the first pays the imports, numba's
load and its cached kernels), as a session that selects more than once sees it.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import json
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

CHILD = """
import json, os, sys, time
sys.path.insert(0, {root!r})
sys.path.insert(1, {bench!r})
import numpy as np
import streamreg as sr
import bench_glm_speed as b
assert os.path.abspath(sr.__file__).startswith(os.path.abspath({root!r})), sr.__file__


def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) * 1024


y, x = b.tall({n}, {m})
if {row_ordered}:
    x = np.ascontiguousarray(x)  # the same values, rows contiguous
if {family!r} == "gaussian":
    rng = np.random.default_rng(5)
    y = x[:, [7, 24, 34, 40, 147]] @ np.array([0.02, -0.02, 0.02, -0.02, 0.02]) + rng.standard_normal({n})
if {family!r} == "poisson":
    rng = np.random.default_rng(5)
    y = rng.poisson(np.exp(0.5 + x[:, [7, 24, 34, 40, 147]] @ np.array([0.02, -0.02, 0.02, -0.02, 0.02])))
    y = y.astype(float)
if {family!r} == "negbin":
    rng = np.random.default_rng(5)
    mu = np.exp(0.5 + x[:, [7, 24, 34, 40, 147]] @ np.array([0.05, -0.05, 0.05, -0.05, 0.05]))
    y = rng.negative_binomial(2.0, 2.0 / (2.0 + mu)).astype(float)
r = y - y.mean()
x.T @ r
floor, floor_cpu = [], []
for _ in range(3):
    t, c = time.perf_counter(), time.process_time()
    x.T @ r
    floor.append(time.perf_counter() - t)
    floor_cpu.append(time.process_time() - c)
if {warm}:  # a first call pays the imports, numba's load and its cached kernels
    sr.select(y, x, family={family!r})
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) back to the current resident set: X, y and the imports
base = status("VmRSS")
secs = cpu = float("inf")
for _ in range({repeats}):  # the best of the timed calls (the peak is theirs too)
    t, c = time.perf_counter(), time.process_time()
    fit = sr.select(y, x, family={family!r})
    secs, cpu = min(secs, time.perf_counter() - t), min(cpu, time.process_time() - c)
peak = status("VmHWM") - base
h = fit.history
h[["term", "status", "statistic", "pvalue"]].astype({{"status": str}}).to_csv({out!r}, index=False)
print(json.dumps({{"floor": min(floor), "select": secs, "floor_cpu": min(floor_cpu), "select_cpu": cpu,
                  "peak": peak, "x": x.nbytes,
                  "selected": fit.selected_terms, "load": os.getloadavg()[0]}}))
"""


def run(root: str, family: str, n: int, out: str, warm: bool = False, m: int = 200, row_ordered: bool = False,
        repeats: int = 1) -> dict:
    code = CHILD.format(root=root, bench=os.path.dirname(os.path.abspath(__file__)), n=n, family=family, out=out,
                        warm=warm, m=m, row_ordered=row_ordered, repeats=repeats)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def same_history(a: str, b: str) -> bool:
    ha, hb = pd.read_csv(a), pd.read_csv(b)
    if ha["term"].tolist() != hb["term"].tolist() or ha["status"].tolist() != hb["status"].tolist():
        return False
    return all(np.allclose(ha[c].to_numpy(float), hb[c].to_numpy(float), rtol=1e-10, atol=0, equal_nan=True)
               for c in ("statistic", "pvalue"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="a checkout of the commit before the change")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--families", default="binomial,gaussian")
    ap.add_argument("--warm", action="store_true", help="time a second select() in each process (the first warms up)")
    ap.add_argument("--m", type=int, default=200, help="candidates (at least 148: the true columns)")
    ap.add_argument("--row-ordered", action="store_true", help="X row-ordered (C order) instead of column-ordered")
    ap.add_argument("--repeats", type=int, default=1, help="timed select() calls per process, the best kept")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = {"new": here, "before": os.path.abspath(args.before)}
    layout = "row-ordered" if args.row_ordered else "column-ordered"
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}, rounds: {args.rounds}, n = {args.n:,}, "
          f"m = {args.m:,}, {layout} X")
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families.split(","):
            rows = []
            for rnd in range(args.rounds):
                order = ["new", "before"] if rnd % 2 == 0 else ["before", "new"]
                for label in order:
                    out = os.path.join(tmp, f"{family}-{label}-{rnd}.csv")
                    got = run(roots[label], family, args.n, out, args.warm, args.m, args.row_ordered, args.repeats)
                    rows.append({"version": label, "round": rnd, **got, "history": out})
                    print(f"  {family} round {rnd} {label}: select {got['select']:.2f} s, floor {got['floor']:.3f} s, "
                          f"x floor {got['select'] / got['floor']:.1f}; CPU {got['select_cpu']:.2f} s, floor "
                          f"{got['floor_cpu']:.3f} s, x floor {got['select_cpu'] / got['floor_cpu']:.1f}; "
                          f"peak beyond X {got['peak'] / 1e9:.2f} GB, "
                          f"load {got['load']:.1f}", flush=True)
            tab = pd.DataFrame(rows)
            tab["ratio"] = tab["select"] / tab["floor"]
            tab["cpu_ratio"] = tab["select_cpu"] / tab["floor_cpu"]
            tab["extra/X"] = tab["peak"] / tab["x"]
            summary = tab.groupby("version", sort=False).agg(
                select_min=("select", "min"), select_med=("select", "median"), floor_min=("floor", "min"),
                x_floor_min=("ratio", "min"), x_floor_med=("ratio", "median"),
                cpu_min=("select_cpu", "min"), cpu_med=("select_cpu", "median"), floor_cpu_min=("floor_cpu", "min"),
                cpu_x_floor_min=("cpu_ratio", "min"), cpu_x_floor_med=("cpu_ratio", "median"),
                extra_GB=("peak", lambda v: v.min() / 1e9), extra_over_X=("extra/X", "min"))
            ref = tab[tab["version"] == "before"]["history"].iloc[0]
            same = all(same_history(h, ref) for h in tab["history"])
            print(f"\n== {family}, n = {args.n:,}, m = {args.m:,}, {layout} X ==")
            print(summary.to_string(float_format=lambda v: f"{v:.3g}"))
            print(f"before / new: wall (min) {summary.loc['before', 'select_min'] / summary.loc['new', 'select_min']:.2f}, "
                  f"CPU (min) {summary.loc['before', 'cpu_min'] / summary.loc['new', 'cpu_min']:.2f}, "
                  f"CPU (median) {summary.loc['before', 'cpu_med'] / summary.loc['new', 'cpu_med']:.2f}")
            print(f"selected: {tab['selected'].iloc[0]}; histories equal to before's (terms, statuses, "
                  f"statistics and p-values within 1e-10) in every run: {same}\n", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
