"""The scoring pass with each kernel against the one-pass floor, side by side in one run (issue 27, item 2).

For a block ``B`` the search needs ``[Q r]'B`` and the squared column norms.  numpy reads
``B`` twice (a BLAS GEMM, which also packs ``B``, and an ``einsum``); the numba kernel of the
``fast`` extra reads it once.  Printed, min / median of interleaved rounds (one BLAS thread):

1. the floor, one pass ``X.T @ r`` over the whole matrix; the numpy path and the numba path
   over blocks of 40,960 columns (what ``select()`` reaches at n = 200), each with the norms
   (a block's first scoring) and without (a rescoring, norms cached); ``k + 1 = 6``;
   at m = 1e6, n = 200, column-ordered and row-ordered X, and at m = 1e5; and a GLM's weighted
   scoring (the row scale W^1/2: numpy on the basis and the squares, numba on each tile) with each backend;
   with ``--tall``, the same rows at n = 1e6, m = 200 (blocks of 64 columns, the tall cap);
   each block's products are dropped before the next block is scored, as the search drops
   them (until 2026-11-28 they were kept to the end of the round, which added the first touch
   of every block's output, about 0.25x the floor at m = 1e6, to the block rows);
2. ``select()`` end to end with each backend on the same matrices (4 true features), with
   the selected terms (they must agree).

Usage:  python bench/bench_kernel.py [--rounds 5] [--quick]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import subprocess
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

import streamreg as sr
from streamreg.models.kernels import KERNEL_ENV, numpy_kernel

BLOCK = 40_960
#: the in-memory block of a search at 1e6 rows (streamwise_run.TALL_BLOCK_CELLS)
TALL_BLOCK = 64


def interleaved(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Wall times of each function, one call of each per round, in turn."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return times


def table(times: dict[str, list[float]], floor: str, extra: dict[str, dict] | None = None) -> pd.DataFrame:
    base_min, base_med = min(times[floor]), float(np.median(times[floor]))
    rows = []
    for name, ts in times.items():
        lo, med = min(ts), float(np.median(ts))
        rows.append({"what": name, "min s": lo, "median s": med, "min / floor": lo / base_min,
                     "median / floor": med / base_med, **(extra or {}).get(name, {})})
    return pd.DataFrame(rows)


def matrix(n: int, m: int, order: str, seed: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    x = np.empty((n, m), order=order)
    step = 100_000
    for a in range(0, m, step):  # filled in slices: no second full-size temporary
        x[:, a:a + step] = rng.standard_normal((n, min(step, m - a)))
    true = [m // 10, m // 3, m // 2, m - 7]
    y = x[:, true] @ np.array([1.0, -1.0, 0.8, 0.6]) + 0.5 * rng.standard_normal(n)
    return y, x, [f"x{j}" for j in sorted(true)]


def kernel_rows(x: np.ndarray, y: np.ndarray, rounds: int, block: int = 0) -> pd.DataFrame:
    from streamreg.models.kernels import numba_kernel

    n = x.shape[0]
    r = y - y.mean()
    q, _ = np.linalg.qr(np.column_stack([np.ones(n), x[:, :4]]))  # k = 5 model columns
    r = r - q @ (q.T @ r)
    qt = np.asfortranarray(np.column_stack([q, r]))  # column-ordered, as the search's basis storage
    block = block or BLOCK
    blocks = [x[:, a:a + block] for a in range(0, x.shape[1], block)]
    norms = [np.einsum("ij,ij->j", b, b) for b in blocks]
    numba_kernel.products(qt, blocks[0][:, :8], None)  # compiled (or loaded from numba's cache)

    def over_blocks(fn: Callable[..., object], cached: bool, scale: np.ndarray | None = None):
        def run() -> None:
            for b, nb in zip(blocks, norms):  # each block's products dropped before the next, as in a search
                fn(qt, b, nb if cached else None, scale)
        return run

    fns = {
        "floor: one pass X.T @ r": lambda: x.T @ r,
        "numpy: [Q r]'B + norms (2 passes)": over_blocks(numpy_kernel.products, False),
        "numba: [Q r]'B + norms (1 pass)": over_blocks(numba_kernel.products, False),
        "numpy: [Q r]'B, norms cached": over_blocks(numpy_kernel.products, True),
        "numba: [Q r]'B, norms cached": over_blocks(numba_kernel.products, True),
    }
    # a GLM's scoring: the row scale W^1/2 (numpy: on the basis side and the squares; numba: on each tile)
    sw = np.sqrt(np.random.default_rng(1).random(n) + 0.05)
    fns["numpy: weighted [Q r]'W^1/2 B + b'Wb"] = over_blocks(numpy_kernel.products, False, sw)
    fns["numba: weighted [Q r]'W^1/2 B + b'Wb"] = over_blocks(numba_kernel.products, False, sw)
    return table(interleaved(fns, rounds), "floor: one pass X.T @ r")


def select_rows(x: np.ndarray, y: np.ndarray, truth: list[str], rounds: int) -> pd.DataFrame:
    r = y - y.mean()
    settings = ("numpy", "auto", "numba")
    picked: dict[str, dict] = {}

    def run(setting: str) -> Callable[[], object]:
        def call() -> None:
            os.environ[KERNEL_ENV] = setting
            fit = sr.select(y, x, history="none")
            picked[f"select(), {KERNEL_ENV}={setting}"] = {
                "selected": ",".join(fit.selected_terms), "TP": len(set(truth) & set(fit.selected_terms))}
        return call

    fns: dict[str, Callable[[], object]] = {"floor: one pass X.T @ r": lambda: x.T @ r}
    fns.update({f"select(), {KERNEL_ENV}={s}": run(s) for s in settings})
    try:
        times = interleaved(fns, rounds)
    finally:
        os.environ.pop(KERNEL_ENV, None)
    return table(times, "floor: one pass X.T @ r", picked)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds per table")
    ap.add_argument("--quick", action="store_true", help="m = 1e5 only")
    ap.add_argument("--tall", action="store_true", help="the scoring rows at n = 1e6, m = 200 only")
    args = ap.parse_args()
    pd.set_option("display.width", 220)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"# python bench/bench_kernel.py --rounds {args.rounds}   ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"one BLAS thread; numpy {np.__version__})")
    print(f"# load before: {load}")
    if args.tall:
        y, x, truth = matrix(1_000_000, 200, "F", seed=7)
        print(f"\n== n = 1,000,000, m = 200, column-ordered X: the scoring pass over blocks of {TALL_BLOCK} columns ==")
        print(kernel_rows(x, y, args.rounds, TALL_BLOCK).to_string(index=False, float_format="%.4g"))
        print(f"\n# load after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        return
    cases = [(200, 100_000, "F")] if args.quick else [(200, 1_000_000, "F"), (200, 1_000_000, "C"), (200, 100_000, "F")]
    for n, m, order in cases:
        layout = "column-ordered" if order == "F" else "row-ordered"
        y, x, truth = matrix(n, m, order, seed=m + (order == "C"))
        print(f"\n== n = {n}, m = {m:,}, {layout} X: the scoring pass over blocks of {BLOCK:,} columns, k + 1 = 6 ==")
        print(kernel_rows(x, y, args.rounds).to_string(index=False, float_format="%.4g"))
        print(f"\n== n = {n}, m = {m:,}, {layout} X: select() end to end with each kernel ==")
        print(select_rows(x, y, truth, args.rounds).to_string(index=False, float_format="%.4g"))
        del x
    print(f"\n# load after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
