"""GLM search cost (issue 27, item 1): the fast path against the path it replaced and the peers.

Three problems, each timed in interleaved rounds (every method once per round, the order
rotated between rounds; min and median over rounds), one BLAS thread, in one process:

(a) logistic n = 200, m = 1e4, 4 true features with coefficient 1 (``bench_core.py``'s
    problem, ``np.random.default_rng(seed)``) at the default rule and at the papers'
    ``w0 = alpha_delta = 0.5``: ``select(family="binomial")`` against
    ``abess.linear.LogisticRegression(support_size=range(0, 21))`` and against the same
    search under the algorithm before the fast path ("main": every refit by statsmodels,
    the full separation LP, GLM scores on a row-weighted copy of the block, the refit's LP
    over every row);
(b) Poisson n = 400, m = 1,500, 6 true (+-0.25), ``y ~ Poisson(exp(1 + X beta))``
    (``power_problems.make_P``'s design) at the default test, against "main";
(c) tall binomial n = 1e6 (``--tall-n``), m = 200, column-ordered X, 5 true (+-2, so that
    fitted probabilities come within 1e-6 of 0 and 1): ``select()`` against the one-pass
    floor ``X'r`` and against "main"; then the peak resident memory beyond X of each, one
    fresh process per run (Linux: the peak is reset after the data are made, and read from
    ``/proc/self/status``).

Every table says whether the new path's decisions equal main's: the same terms tested in
the same order with the same statuses (accepted, rejected, refused), statistics within 1e-8.

Usage (from the repository root, with this checkout importable, e.g. ``PYTHONPATH=.``):
        python bench/bench_glm_speed.py [--rounds 3] [--seeds 0,1,2,3,10,13,17] [--tall-n 1000000]
            [--tall-rounds 2] [--skip-tall] [--skip-memory]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import contextlib
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

import streamreg as sr


@contextlib.contextmanager
def main_algorithm() -> Iterator[None]:
    """The search as it ran before the fast path: statsmodels refits with the full LP, GLM
    scores on a weighted copy of the block, the refit's separation check over every row."""
    from streamreg.models import (
        base as weighted,  # where the blocks find reduce_weighted_columns
        glm,
        glm_statsmodels,
    )
    from streamreg.models.base import reduce_single_columns
    from streamreg.models.separation import mle_exists
    from streamreg.results import refit

    saved = glm._fit_glm, weighted.reduce_weighted_columns, refit.separated_at
    glm._fit_glm = lambda y, x, f, s, o, w, verdict_only=False, new_columns=None: glm_statsmodels.statsmodels_fit(y, x, f, s, o, w)
    weighted.reduce_weighted_columns = lambda q, v, w: reduce_single_columns(q, w[:, None] * v)
    refit.separated_at = lambda x, y, f, mu, prior=1.0, rows=None: not mle_exists(
        x if rows is None else x[rows], y if rows is None else y[rows], f)
    try:
        yield
    finally:
        glm._fit_glm, weighted.reduce_weighted_columns, refit.separated_at = saved


def same_decisions(new: Any, old: Any) -> bool:
    hn, ho = new.history, old.history
    if hn["term"].tolist() != ho["term"].tolist():
        return False
    if hn["status"].astype(str).tolist() != ho["status"].astype(str).tolist():
        return False
    a, b = hn["statistic"].to_numpy(float), ho["statistic"].to_numpy(float)
    return bool(np.allclose(a, b, rtol=1e-8, atol=1e-10, equal_nan=True))


def logistic(seed: int, m: int = 10_000, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 4, replace=False)
    y = rng.binomial(1, 1 / (1 + np.exp(-x[:, true].sum(axis=1)))).astype(float)
    return y, x


def poisson(seed: int, n: int = 400, m: int = 1_500) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 6, replace=False)
    y = rng.poisson(np.exp(1 + x[:, true] @ rng.choice([-0.25, 0.25], 6))).astype(float)
    return y, x


def tall(n: int, m: int = 200, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, n)).T  # column-ordered without a row-ordered temporary
    true = rng.choice(m, 5, replace=False)
    eta = x[:, true] @ np.array([2.0, -2.0, 2.0, -2.0, 2.0])
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    return y, x


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def interleaved(methods: dict[str, Callable[[], Any]], rounds: int) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Each method once per round, the order rotated between rounds."""
    names = list(methods)
    times: dict[str, list[float]] = {k: [] for k in names}
    last: dict[str, Any] = {}
    for r in range(rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            secs, last[k] = timed(methods[k])
            times[k].append(secs)
    return times, last


def abess_logistic(y: np.ndarray, x: np.ndarray) -> Any:
    from abess.linear import LogisticRegression

    return LogisticRegression(support_size=range(21)).fit(x, y)


def old_select(*args: Any, **kwargs: Any) -> Any:
    with main_algorithm():
        return sr.select(*args, **kwargs)


def logistic_table(seeds: list[int], rounds: int) -> pd.DataFrame:
    rows = []
    for label, rule in (("default", {}), ("0.5/0.5", {"w0": 0.5, "alpha_delta": 0.5})):
        for seed in seeds:
            y, x = logistic(seed)
            methods = {
                "new": lambda y=y, x=x, rule=rule: sr.select(y, x, family="binomial", **rule),
                "main": lambda y=y, x=x, rule=rule: old_select(y, x, family="binomial", **rule),
                "abess": lambda y=y, x=x: abess_logistic(y, x),
            }
            times, last = interleaved(methods, rounds)
            new = last["new"]
            rows.append({
                "rule": label, "seed": seed, "terms": len(new.selected_terms), "stopped_by": new.stopped_by,
                "refused": int(new.history["status"].astype(str).str.startswith("refused").sum()),
                "new s (min)": min(times["new"]), "new s (med)": float(np.median(times["new"])),
                "main s (min)": min(times["main"]), "abess s (min)": min(times["abess"]),
                "new/abess (min)": min(times["new"]) / min(times["abess"]),
                "new/abess (med)": float(np.median(times["new"])) / float(np.median(times["abess"])),
                "main/abess (min)": min(times["main"]) / min(times["abess"]),
                "main/new (min)": min(times["main"]) / min(times["new"]),
                "same decisions": same_decisions(new, last["main"]),
            })
            print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1), flush=True)
    return pd.DataFrame(rows)


def poisson_table(seeds: list[int], rounds: int) -> pd.DataFrame:
    rows = []
    for seed in seeds:
        y, x = poisson(seed)
        methods = {"new": lambda y=y, x=x: sr.select(y, x, family="poisson"),
                   "main": lambda y=y, x=x: old_select(y, x, family="poisson")}
        times, last = interleaved(methods, rounds)
        rows.append({"seed": seed, "terms": len(last["new"].selected_terms),
                     "new s (min)": min(times["new"]), "main s (min)": min(times["main"]),
                     "main/new (min)": min(times["main"]) / min(times["new"]),
                     "main/new (med)": float(np.median(times["main"])) / float(np.median(times["new"])),
                     "same decisions": same_decisions(last["new"], last["main"])})
    return pd.DataFrame(rows)


def tall_table(n: int, rounds: int) -> pd.DataFrame:
    y, x = tall(n)
    r = y - y.mean()
    methods = {"floor X'r": lambda: x.T @ r,
               "new": lambda: sr.select(y, x, family="binomial"),
               "main": lambda: old_select(y, x, family="binomial")}
    times, last = interleaved(methods, rounds)
    floor_min, floor_med = min(times["floor X'r"]), float(np.median(times["floor X'r"]))
    rows = [{"method": k, "s (min)": min(v), "s (med)": float(np.median(v)),
             "x floor (min)": min(v) / floor_min, "x floor (med)": float(np.median(v)) / floor_med}
            for k, v in times.items()]
    out = pd.DataFrame(rows)
    out.attrs["same"] = same_decisions(last["new"], last["main"])
    out.attrs["terms"] = last["new"].selected_terms
    return out


MEMORY_CHILD = """
import sys
sys.path.insert(0, {bench!r})
import bench_glm_speed as b
import streamreg as sr


def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) * 1024


y, x = b.tall({n})
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak (VmHWM) to the current resident set: X and the response
base = status("VmRSS")
if {old}:
    with b.main_algorithm():
        sr.select(y, x, family="binomial")
else:
    sr.select(y, x, family="binomial")
print((status("VmHWM") - base) / 1e9, x.nbytes / 1e9)
"""


def memory_table(n: int) -> pd.DataFrame:
    rows = []
    for label, old in (("new", False), ("main", True)):
        code = MEMORY_CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), n=n, old=old)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        extra, xgb = map(float, res.stdout.split()[-2:])
        rows.append({"path": label, "peak RSS beyond X (GB)": extra, "X (GB)": xgb, "extra / X": extra / xgb})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seeds", default="0,1,2,3,10,13,17")
    ap.add_argument("--poisson-seeds", default="0,1,2")
    ap.add_argument("--tall-n", type=int, default=1_000_000)
    ap.add_argument("--tall-rounds", type=int, default=2)
    ap.add_argument("--skip-tall", action="store_true")
    ap.add_argument("--skip-memory", action="store_true")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", lambda v: f"{v:.3g}")
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}, rounds: {args.rounds}")
    seeds = [int(s) for s in args.seeds.split(",")]
    print("\n== (a) logistic n = 200, m = 1e4 (4 true, coefficient 1) ==", flush=True)
    tab = logistic_table(seeds, args.rounds)
    for rule, part in tab.groupby("rule", sort=False):
        print(f"{rule}: new/abess (min) max over seeds {part['new/abess (min)'].max():.3g}, "
              f"median {part['new/abess (min)'].median():.3g}; main/abess (min) max "
              f"{part['main/abess (min)'].max():.3g}; all decisions equal: {bool(part['same decisions'].all())}")
    print("\n== (b) Poisson n = 400, m = 1,500 (6 true, +-0.25), default test ==", flush=True)
    print(poisson_table([int(s) for s in args.poisson_seeds.split(",")], args.rounds).to_string(index=False))
    if not args.skip_tall:
        print(f"\n== (c) tall binomial n = {args.tall_n:,}, m = 200, column-ordered (5 true, +-2) ==", flush=True)
        tab = tall_table(args.tall_n, args.tall_rounds)
        print(tab.to_string(index=False))
        print(f"selected: {tab.attrs['terms']}; decisions equal to main's: {tab.attrs['same']}")
        if not args.skip_memory:
            print(memory_table(args.tall_n).to_string(index=False))
    print(f"\nload average at end: {os.getloadavg()}; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")


if __name__ == "__main__":
    main()
