"""Decoys: does the decoy count track the false selections it estimates?

For each row, many independent streams; per stream the realised false selections V (selected
terms outside the truth) and the decoy hits H of ``decoys="permuted"`` and ``decoys="knockoff"``
(the decisions are the same with or without decoys, so one search per kind suffices).  The
one-pass result E[V] <= E[H] needs each null candidate and its decoy to be exchangeable given
the response and the earlier candidates: permuted copies are for independent columns, knockoff
copies for correlated ones.  Printed: mean V, mean H per kind (standard errors), the ratio.

Rows (the rule: ``w0 = alpha_delta = 0.05``, uniform spending, the package's default):

* gauss-iid      n 200, m 500 iid N(0,1), 5 signals beta 0.5, one pass;
* gauss-ar       n 200, m 500 AR(1) rho 0.8 columns, 5 signals beta 0.5, one pass (nulls near a
                 signal are correlated with it: a proxy counts as false);
* pois-score     n 300, m 500 iid, 6 signals beta 0.25, test="score" (dispersion fixed at 1,
                 anti-conservative while signals are omitted), one pass;
* pois-scoref    the same with the default test="score-f";
* gauss-default  gauss-iid with the default three passes (outside the one-pass result).

Usage: ``python bench/bench_decoys.py [--reps 200] [--out bench/results/bench_decoys.txt]``
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import streamreg as sr  # noqa: E402


def _ar_columns(rng: np.random.Generator, n: int, m: int, rho: float) -> np.ndarray:
    z = rng.standard_normal((n, m))
    x = np.empty_like(z)
    x[:, 0] = z[:, 0]
    for j in range(1, m):
        x[:, j] = rho * x[:, j - 1] + np.sqrt(1 - rho * rho) * z[:, j]
    return x


def make(row: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    rng = np.random.default_rng(seed)
    if row.startswith("pois"):
        n, m, k = 300, 500, 6
        x = rng.standard_normal((n, m))
        truth = np.sort(rng.choice(m, k, replace=False))
        y = rng.poisson(np.exp(1 + x[:, truth] @ (0.25 * rng.choice([-1.0, 1.0], k)))).astype(float)
        test = "score" if row == "pois-score" else "score-f"
        return x, y, truth, {"family": "poisson", "test": test, "passes": 1}
    n, m, k = 200, 500, 5
    x = _ar_columns(rng, n, m, 0.8) if row == "gauss-ar" else rng.standard_normal((n, m))
    truth = np.sort(rng.choice(m, k, replace=False))
    y = x[:, truth] @ np.full(k, 0.5) + rng.standard_normal(n)
    return x, y, truth, ({} if row == "gauss-default" else {"passes": 1})


ROWS = ("gauss-iid", "gauss-ar", "pois-score", "pois-scoref", "gauss-default")


def run_row(row: str, reps: int) -> str:
    v, h_perm, h_knock, sizes = [], [], [], []
    t0 = time.perf_counter()
    for seed in range(reps):
        x, y, truth, kw = make(row, seed)
        rule = {"w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"}
        perm = sr.select(y, x, decoys="permuted", seed=seed, **rule, **kw)
        knock = sr.select(y, x, decoys="knockoff", seed=seed, **rule, **kw)
        chosen = {int(t[1:]) for t in perm.selected_terms}
        assert perm.selected_terms == knock.selected_terms  # decoys alone change no decision
        v.append(len(chosen - set(truth.tolist())))
        sizes.append(len(chosen))
        h_perm.append(perm.decoys.hits)
        h_knock.append(knock.decoys.hits)

    def ms(a: list[int]) -> str:
        arr = np.asarray(a, dtype=float)
        return f"{arr.mean():6.3f} ({arr.std(ddof=1) / np.sqrt(len(arr)):.3f})"

    ratio_p = np.mean(h_perm) / max(np.mean(v), 1e-12)
    ratio_k = np.mean(h_knock) / max(np.mean(v), 1e-12)
    return (f"{row:14s} {reps:5d} {ms(sizes)}  {ms(v)}  {ms(h_perm)}  {ms(h_knock)}  "
            f"{ratio_p:7.2f} {ratio_k:7.2f}  {time.perf_counter() - t0:7.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    lines = [f"# python bench/bench_decoys.py --reps {args.reps} --rows {args.rows}",
             f"# date {datetime.datetime.now().isoformat(timespec='seconds')}, streamreg {sr.__version__}, threads 1",
             "# mean (se) over streams; H = decoy hits; ratio = mean H / mean V (>= 1: the estimate is not low)",
             f"{'row':14s} {'reps':>5s} {'size':>14s}  {'V (false)':>14s}  {'H permuted':>14s}  "
             f"{'H knockoff':>14s}  {'H/V perm':>7s} {'H/V knock':>7s}  {'seconds':>7s}"]
    print("\n".join(lines), flush=True)
    for row in args.rows.split(","):
        line = run_row(row, args.reps)
        print(line, flush=True)
        lines.append(line)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
