"""Paper 000, Tables 4-5 protocol: streamwise vs stepwise AIC/BIC/RIC vs alpha-investing.

n = 100 observations, 4 beneficial features (coefficient 1) placed at random among the first
1,000 candidates, noise sd 0.1 (``streamreg.datasets.make_synthetic``); m = 1,000 or 10,000
(and 100,000 with ``--big``): the candidates beyond the first 1,000 are extra spurious
N(0, 1) columns appended to the stream (paper 000, Table 5).  For each method: features
selected, false positives and the out-of-sample mean squared error on 1,000 fresh rows,
averaged over the runs, beside the paper's numbers where it gives them.

The paper's "error" column has no stated definition (its caption says noise variance 0.1,
its text sd 0.1); our error is test MSE, whose floor is the noise variance 0.01, so compare
orderings and ratios, not levels.

Usage: ``python bench/bench_methods.py [--quick] [--big] [--runs R]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import streamreg as sr

N, K, NOISE, N_TEST = 100, 4, 0.1, 1000

METHODS = [
    # label, method, options
    ("streamwise AIC", "aic", {}),
    ("streamwise BIC", "bic", {}),
    ("streamwise RIC", "ric", {}),
    ("alpha-inv. (t)", "alpha-investing", {"test": "t"}),
    ("alpha-inv. (paper)", "alpha-investing", {"test": "paper"}),
    ("stepwise AIC", "stepwise-aic", {}),
    ("stepwise BIC", "stepwise-bic", {}),
    ("stepwise RIC", "stepwise-ric", {}),
]

#: paper 000: Table 4 (m = 1,000; features and error) and Table 5 (RIC, alpha-investing)
PAPER = {
    ("streamwise AIC", 1000): (100, None, 6.13),
    ("streamwise BIC", 1000): (90, None, 1.91),
    ("stepwise AIC", 1000): (100, None, 0.54),
    ("stepwise BIC", 1000): (100, None, 0.54),
    ("stepwise RIC", 1000): (4.5, None, 0.33),
    ("streamwise RIC", 1000): (4.3, 0.3, 0.33),
    ("streamwise RIC", 10000): (4.0, 0.2, 0.42),
    ("streamwise RIC", 100000): (4.0, 0.2, 0.50),
    ("alpha-inv. (paper)", 1000): (4.2, 0.3, 0.42),
    ("alpha-inv. (paper)", 10000): (4.1, 0.2, 0.42),
    ("alpha-inv. (paper)", 100000): (4.7, 0.7, 0.43),
}


def problem(m: int, seed: int):
    """Candidates (n x m), response, true column indices, and a test-set generator."""
    sim = sr.datasets.make_synthetic(n=N, m=1000, k=K, noise=NOISE, seed=seed)
    x = sim.data.drop(columns="y").to_numpy()
    if m > 1000:
        extra = np.random.default_rng([seed, 99]).standard_normal((N, m - 1000))
        x = np.concatenate([x, extra], axis=1)
    true = [int(name[1:]) - 1 for name in sim.true_features]
    return x, sim.y, true


def test_error(res, true: list[int], seed: int) -> float:
    """MSE on fresh rows: true features drive y, selected spurious ones are fresh noise."""
    rng = np.random.default_rng([seed, 7])
    xt = rng.standard_normal((N_TEST, K))
    yt = xt.sum(axis=1) + NOISE * rng.standard_normal(N_TEST)
    pred = np.full(N_TEST, float(res.params.iloc[0]))
    for name, coef in zip(res.params.index[1:], res.params.to_numpy()[1:]):
        j = int(name[1:])
        col = xt[:, true.index(j)] if j in true else rng.standard_normal(N_TEST)
        pred += coef * col
    return float(np.mean((yt - pred) ** 2))


def run(ms: list[int], runs: int) -> dict:
    out = {}
    for m in ms:
        for r in range(runs):
            x, y, true = problem(m, seed=1000 + r)
            for label, method, opts in METHODS:
                t0 = time.perf_counter()
                res = sr.select(y, x, method=method, **opts)
                sel = [int(t[1:]) for t in res.selected_terms]
                fp = sum(j not in true for j in sel)
                err = test_error(res, true, seed=1000 + r)
                out.setdefault((label, m), []).append((len(sel), fp, err, time.perf_counter() - t0))
    return out


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def report(out: dict, ms: list[int], runs: int) -> None:
    print(f"paper 000 Tables 4-5 protocol: n={N}, {K} true features among the first 1,000, "
          f"noise sd {NOISE}, {runs} runs; error = test MSE on {N_TEST} fresh rows")
    for m in ms:
        print(f"\nm = {m:,}")
        head = f"{'method':<20}{'features':>9}{'false pos':>10}{'test MSE':>10}{'sec/run':>9}   " \
               f"{'paper: features':>15}{'false pos':>10}{'error':>7}"
        print(head)
        print("-" * len(head))
        for label, _, _ in METHODS:
            a = np.array(out[(label, m)])
            pf, pfp, perr = PAPER.get((label, m), (None, None, None))
            print(f"{label:<20}{a[:, 0].mean():>9.1f}{a[:, 1].mean():>10.1f}{a[:, 2].mean():>10.4f}"
                  f"{a[:, 3].mean():>9.2f}   {fmt(pf, '.1f'):>15}{fmt(pfp, '.1f'):>10}{fmt(perr):>7}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 runs instead of 20")
    ap.add_argument("--big", action="store_true", help="also m = 100,000")
    ap.add_argument("--runs", type=int, default=None)
    args = ap.parse_args(argv)
    runs = args.runs or (5 if args.quick else 20)
    ms = [1000, 10000] + ([100000] if args.big else [])
    t0 = time.perf_counter()
    out = run(ms, runs)
    report(out, ms, runs)
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
