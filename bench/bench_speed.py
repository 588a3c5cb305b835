"""Speed of the main path against plain numpy, side by side in one run (issue "Speed of the main path").

The synthetic problem of Zhou et al. (2006) (n = 100, 4 true features with coefficient 1, noise sd 0.1,
independent N(0, 1) features), one BLAS thread.  Each table prints streamreg's time, the
peer's time measured in the same process a moment before or after, and their ratio:

1. ``select()`` in memory at m = 1e6 against the one-pass floor ``X.T @ r``, with the
   cost of the two memory passes any exact scorer needs (``[Q r]' X`` and the column
   norms) measured on the same matrix;
2. lazy streams at m = 1e6: ``select()`` on the synthetic stream and on a
   ``(name, column)`` generator against the time to generate the same columns;
3. fixed costs: ``select()`` at m = 1e3 against a plain numpy forward search;
4. ``method="stepwise-ric"`` at m = 1e3 (ten seeds), 1e5 and 1e6 against a plain numpy
   forward search with the same criterion (``n log(RSS0/RSS1) > 2 log m``), and whether the
   terms agree.

Sections 2-4 time their pairs in interleaved rounds (each round runs every contender once,
so a change of load falls on all of them) and report min and median; the header line gives
the machine's load (``uptime``).  Section 5 counts the Python function calls and the
driver's runs of one call, which the load does not change; section 6 splits a small call's time
into the search itself (the method's ``run``) and everything around it (checks, the fixed
design, the model state, the refit and the results object); ``--clock cpu`` times the rounds
by this process's CPU time, which a crowded machine stretches far less than wall time.

The formula path (item 1) and memory (item 5) have their own scripts:
``bench_formula.py`` and ``bench_memory.py``.

Usage:  python bench/bench_speed.py [--quick] [--repeat 3] [--sections 1,2,3,4,5,6] [--clock wall|cpu]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import itertools
import math
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import special

import streamreg as sr
from streamreg.datasets.synthetic import SyntheticStream


def small_calls(m: int, seed: int) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """The numpy forward search, select() and select(method="stepwise-ric") on one problem."""
    y, x, _ = problem(m, seed)
    return (("numpy fwd", lambda: numpy_forward(y, x, bonferroni(len(y), m))),
            ("select()", lambda: sr.select(y, x)),
            ("stepwise-ric", lambda: sr.select(y, x, method="stepwise-ric")))


def around_search(m: int, seeds: range, rounds: int) -> pd.DataFrame:
    """Per seed, the median milliseconds of select() (the default) and of select() with
    ``method="stepwise-ric"``, split into the method's ``run`` (the search) and the rest of
    the call, beside the plain numpy forward search: what a call costs before any search."""
    from streamreg.search.confirm import ScreenConfirm
    from streamreg.search.stepwise import Stepwise

    spent = [0.0]
    originals = {cls: cls.run for cls in (ScreenConfirm, Stepwise)}

    def timing(run: Callable[..., Any]) -> Callable[..., Any]:
        def timed_run(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return run(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t
        return timed_run

    for cls, run in originals.items():
        cls.run = timing(run)  # type: ignore[method-assign]
    rows = []
    try:
        for seed in seeds:
            row: dict[str, Any] = {"seed": seed}
            for label, call in small_calls(m, seed):
                whole, search = [], []
                for _ in range(rounds + 5):  # the first five warm up
                    spent[0] = 0.0
                    t = time.perf_counter()
                    call()
                    whole.append(time.perf_counter() - t)
                    search.append(spent[0])
                whole, search = whole[5:], search[5:]
                row[f"{label} ms"] = 1e3 * statistics.median(whole)
                if label != "numpy fwd":
                    row[f"{label}: search ms"] = 1e3 * statistics.median(search)
                    rest = [w - s for w, s in zip(whole, search)]
                    row[f"{label}: rest / numpy fwd"] = statistics.median(rest) / (row["numpy fwd ms"] / 1e3)
            rows.append(row)
    finally:
        for cls, run in originals.items():
            cls.run = run  # type: ignore[method-assign]
    return pd.DataFrame(rows)


def best_of(fn: Callable[..., Any], repeat: int, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    """Smallest wall time of ``fn(*args, **kwargs)`` over ``repeat`` runs, and the last run's value."""
    best, value = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best, value


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Wall times of each function over ``rounds`` rounds, the functions run in turn within a
    round (so that a change of machine load falls on all of them), and each one's last value."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    values: dict[str, Any] = {}
    for _ in range(rounds):
        for key, fn in fns.items():
            t = CLOCK[0]()
            values[key] = fn()
            times[key].append(CLOCK[0]() - t)
    return times, values


#: the clock of the interleaved rounds: wall time, or with ``--clock cpu`` this process's CPU
#: time (one BLAS thread), which a machine crowded with other jobs does not stretch
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def min_med(times: list[float]) -> tuple[float, float]:
    return min(times), statistics.median(times)


def load_header() -> str:
    """The machine's load (``uptime``) and the time, for the record's header."""
    try:
        up = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        up = "uptime unavailable"
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC; uptime: {up}"


def numpy_forward(y: np.ndarray, x: np.ndarray, enters: Callable[[float, float, int], bool]) -> list[int]:
    """Plain forward selection: each step one pass ``[Q r]' X`` over all columns.

    ``enters(rss, rss1, k)`` decides whether the best column (largest RSS drop) enters a
    model with ``k`` columns.  Column norms are computed once.
    """
    n = len(y)
    norms = np.einsum("ij,ij->j", x, x)
    q = np.full((n, 1), 1.0 / math.sqrt(n))
    r = y - y.mean()
    chosen: list[int] = []
    while True:
        g = np.vstack([q.T, r]) @ x
        d2 = norms - np.einsum("ij,ij->j", g[:-1], g[:-1])
        ok = d2 > 1e-14 * norms
        gain = np.where(ok, g[-1] ** 2 / np.where(ok, d2, 1.0), 0.0)
        gain[chosen] = 0.0
        j = int(np.argmax(gain))
        rss = float(r @ r)
        if not enters(rss, rss - gain[j], q.shape[1]):
            return chosen
        v = x[:, j] - q @ (q.T @ x[:, j])
        v -= q @ (q.T @ v)
        v /= np.linalg.norm(v)
        q = np.column_stack([q, v])
        r = r - v * (v @ r)
        chosen.append(j)


def bonferroni(n: int, m: int, alpha: float = 0.05) -> Callable[[float, float, int], bool]:
    def enters(rss: float, rss1: float, k: int) -> bool:
        dfr = n - k - 1
        t2 = (rss - rss1) / (rss1 / dfr)
        return 2.0 * special.stdtr(dfr, -math.sqrt(t2)) < alpha / m
    return enters


def ric(n: int, m: int) -> Callable[[float, float, int], bool]:
    return lambda rss, rss1, k: n * math.log(rss / rss1) > 2.0 * math.log(m)


def problem(m: int, seed: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    sim = sr.datasets.make_synthetic(n=100, m=m, seed=seed)
    x = np.ascontiguousarray(sim.data.drop(columns="y").to_numpy())
    return sim.y, x, sim.true_features


def terms(idx: list[int]) -> list[str]:
    """Column positions as the synthetic problem's names (x1, x2, ...)."""
    return [f"x{j + 1}" for j in idx]


def selected(fit) -> list[str]:
    """A fit's terms as the synthetic problem's names (array columns are named x0, x1, ...)."""
    return terms([int(t[1:]) for t in fit.selected_terms])


def scoring_floor(m: int, seed: int, repeat: int) -> pd.DataFrame:
    y, x, truth = problem(m, seed)
    r = y - y.mean()
    floor, _ = best_of(np.matmul, repeat, x.T, r)
    rows = [{"what": "one-pass floor X'r", "seconds": floor}]
    for k in (1, 5):  # the model's columns before and after the four true features enter
        qr = np.column_stack([np.linalg.qr(np.random.default_rng(k).standard_normal((len(y), k)))[0], r])
        secs, _ = best_of(np.matmul, repeat, qr.T, x)
        rows.append({"what": f"  [Q r]'X with k = {k} (BLAS GEMM, one pass)", "seconds": secs})
    secs, _ = best_of(np.einsum, repeat, "ij,ij->j", x, x)
    rows.append({"what": "  column norms (einsum, one pass)", "seconds": secs})
    for history in ("full", "none"):
        for block in (512, 4096):
            secs, fit = best_of(sr.select, repeat, y, x, block_size=block, history=history)
            tp = len(set(truth) & set(selected(fit)))
            rows.append({"what": f"select(), history={history!r}, block_size={block}", "seconds": secs,
                         "selected": len(fit.selected_terms), "TP": tp})
    out = pd.DataFrame(rows)
    out["x floor"] = out["seconds"] / floor
    return out


def lazy(m: int, seed: int, repeat: int) -> pd.DataFrame:
    """Interleaved rounds: generating the columns (blocks, items), taking and stacking the
    items, and select() on each lazy stream; ratios of min to min and median to median."""
    sim = sr.datasets.make_synthetic(n=100, m=m, seed=seed, lazy=True)

    def generate_blocks():
        s = SyntheticStream(100, m, seed)
        while s.take(4096) is not None:
            pass

    def generate_items():
        for _ in SyntheticStream(100, m, seed):
            pass

    def gather_items():
        # the least any consumer does: take the items a block at a time and stack the columns
        it = iter(SyntheticStream(100, m, seed))
        names: list[str] = []
        while items := list(itertools.islice(it, 4096)):
            names = [name for name, _ in items]
            np.array([col for _, col in items])
        return names

    times, fits = interleaved({
        "blocks": generate_blocks,
        "select blocks": lambda: sr.select(sim.y, SyntheticStream(100, m, seed), block_size=4096),
        "items": generate_items,
        "gather": gather_items,
        "select items": lambda: sr.select(sim.y, iter(SyntheticStream(100, m, seed)), block_size=4096,
                                          max_tests=math.inf),
    }, repeat)
    rows = []
    for label, gen, sel in ((f"synthetic stream (blocks), m = {m:,}", "blocks", "select blocks"),
                            (f"(name, column) generator, m = {m:,}", "items", "select items"),
                            ("  its items taken and stacked 4,096 at a time, no test", "items", "gather")):
        (g_min, g_med), (s_min, s_med) = min_med(times[gen]), min_med(times[sel])
        fit = fits.get(sel)
        rows.append({"stream": label, "generate s (min)": g_min, "select s (min)": s_min,
                     "ratio min": s_min / g_min, "ratio median": s_med / g_med,
                     "selected": len(fit.selected_terms) if sel != "gather" else None})
    return pd.DataFrame(rows)


def numpy_forward_refit(y: np.ndarray, x: np.ndarray, m: int):
    """The numpy forward search, then the statsmodels OLS fit a user needs for inference."""
    idx = numpy_forward(y, x, bonferroni(len(y), m))
    return sm.OLS(y, sm.add_constant(x[:, idx], has_constant="add")).fit()


def small(m: int, seeds: range, repeat: int) -> pd.DataFrame:
    """Per seed, interleaved rounds of the numpy forward search, it plus statsmodels' OLS
    refit, and select(); min and median milliseconds and their ratios."""
    rows = []
    for seed in seeds:
        y, x, _ = problem(m, seed)
        times, out = interleaved({
            "np": lambda y=y, x=x: numpy_forward(y, x, bonferroni(len(y), m)),
            "np+ols": lambda y=y, x=x: numpy_forward_refit(y, x, m),
            "sr": lambda y=y, x=x: sr.select(y, x),
        }, repeat)
        (np_min, np_med), (fit_min, fit_med), (sr_min, sr_med) = (min_med(times[k]) for k in ("np", "np+ols", "sr"))
        rows.append({"seed": seed, "numpy fwd ms": 1e3 * np_min, "+ sm.OLS ms": 1e3 * fit_min,
                     "select() ms": 1e3 * sr_min, "select() median ms": 1e3 * sr_med,
                     "/ numpy fwd min": sr_min / np_min, "/ numpy fwd median": sr_med / np_med,
                     "/ fwd + OLS min": sr_min / fit_min, "/ fwd + OLS median": sr_med / fit_med,
                     "numpy terms": ",".join(terms(out["np"])), "select() terms": ",".join(selected(out["sr"]))})
    return pd.DataFrame(rows)


def stepwise(ms: list[int], seeds: range, repeat: int) -> pd.DataFrame:
    """Interleaved rounds of the numpy forward-RIC search and method="stepwise-ric"."""
    rows = []
    for m in ms:
        for seed in seeds:
            y, x, _ = problem(m, seed)
            times, out = interleaved({
                "np": lambda y=y, x=x, m=m: numpy_forward(y, x, ric(len(y), m)),
                "sr": lambda y=y, x=x: sr.select(y, x, method="stepwise-ric"),
            }, repeat)
            (np_min, np_med), (sr_min, sr_med) = min_med(times["np"]), min_med(times["sr"])
            same = sorted(terms(out["np"])) == sorted(selected(out["sr"]))
            rows.append({"m": m, "seed": seed, "numpy forward-RIC s": np_min, "stepwise-ric s": sr_min,
                         "ratio min": sr_min / np_min, "ratio median": sr_med / np_med,
                         "selected": len(out["sr"].selected_terms), "same terms": same})
    return pd.DataFrame(rows)


def python_calls(m: int, seeds: range) -> pd.DataFrame:
    """Python function calls (cProfile's count) and driver runs per call: measures of the
    fixed costs that the machine's load does not change."""
    import cProfile
    import pstats

    from streamreg.search import streamwise_run

    runs = [0]
    decide = streamwise_run.StreamwiseRun.decide

    def counting(self: Any, lane: Any, tested_pos: Any) -> Any:
        runs[0] += 1
        return decide(self, lane, tested_pos)

    streamwise_run.StreamwiseRun.decide = counting  # type: ignore[method-assign]
    rows = []
    try:
        for seed in seeds:
            row: dict[str, Any] = {"seed": seed}
            for label, call in small_calls(m, seed):
                call()  # warm
                runs[0] = 0
                prof = cProfile.Profile()
                prof.enable()
                call()
                prof.disable()
                row[f"{label} calls"] = pstats.Stats(prof).total_calls  # type: ignore[attr-defined]
                if label == "select()":
                    row["select() runs"] = runs[0]
            rows.append(row)
    finally:
        streamwise_run.StreamwiseRun.decide = decide  # type: ignore[method-assign]
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="m = 1e5 instead of 1e6, fewer seeds")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing (the best is kept) or rounds")
    ap.add_argument("--sections", default="1,2,3,4,5,6", help="comma-separated sections to run")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="time the interleaved rounds (sections 2-4) by wall clock or by this process's CPU time")
    args = ap.parse_args()
    if args.clock == "cpu":
        CLOCK[0] = time.process_time
    big = 100_000 if args.quick else 1_000_000
    sections = {int(v) for v in args.sections.split(",")}
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 60)
    print(f"# {load_header()}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; clock: {args.clock}")
    if 1 in sections:
        print(f"== 1. select() in memory at m = {big:,} against the one-pass floor ==")
        print(scoring_floor(big, seed=1, repeat=args.repeat).to_string(index=False, float_format="%.4g"))
    if 2 in sections:
        print(f"\n== 2. lazy streams at m = {big:,} against generating the same columns "
              f"({args.repeat} interleaved rounds) ==")
        print(lazy(big, seed=2, repeat=args.repeat).to_string(index=False, float_format="%.4g"))
    if 3 in sections:
        rounds = max(args.repeat, 15)
        print(f"\n== 3. fixed costs: select() at m = 1,000 against a plain numpy forward search "
              f"({rounds} interleaved rounds) ==")
        tab = small(1000, range(3 if args.quick else 10), repeat=rounds)
        print(tab.to_string(index=False, float_format="%.4g"))
        print(f"median over seeds of the ratios: {tab['/ numpy fwd min'].median():.3g} / "
              f"{tab['/ numpy fwd median'].median():.3g} (min / median, search only), "
              f"{tab['/ fwd + OLS min'].median():.3g} / {tab['/ fwd + OLS median'].median():.3g} "
              "(with the statsmodels fit)")
    if 4 in sections:
        rounds = max(args.repeat, 15)
        print(f"\n== 4. stepwise-ric against a plain numpy forward search with the same criterion, m = 1,000 "
              f"({rounds} interleaved rounds) ==")
        tab = stepwise([1000], range(3 if args.quick else 10), repeat=rounds)
        print(tab.to_string(index=False, float_format="%.4g"))
        print(f"median over seeds of the ratios: {tab['ratio min'].median():.3g} / {tab['ratio median'].median():.3g} "
              "(min / median)")
        print(f"\n== 4b. the same at m = {big:,} ({args.repeat} interleaved rounds) ==")
        print(stepwise([100_000] if args.quick else [100_000, 1_000_000], range(3, 4), repeat=args.repeat)
              .to_string(index=False, float_format="%.4g"))
    if 5 in sections:
        print("\n== 5. Python function calls per call at m = 1,000 (cProfile's count; the load does not change it) ==")
        tab = python_calls(1000, range(3 if args.quick else 10))
        print(tab.to_string(index=False))
        print("medians: " + ", ".join(f"{c} {tab[c].median():.0f}" for c in tab.columns if c != "seed"))
    if 6 in sections:
        rounds = max(args.repeat, 40)
        print(f"\n== 6. a call at m = 1,000 with and without its search (median of {rounds} calls each; rest: the "
              "call's time outside the method's run, in units of the numpy forward search) ==")
        tab = around_search(1000, range(3 if args.quick else 10), rounds)
        print(tab.to_string(index=False, float_format="%.3g"))
        print("medians: " + ", ".join(f"{c} {tab[c].median():.3g}" for c in tab.columns if c != "seed"))


if __name__ == "__main__":
    main()
