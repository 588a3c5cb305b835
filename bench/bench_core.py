"""Speed and accuracy of streamwise selection against peers, side by side in one run.

The synthetic problem of Zhou et al. (2006) (n = 100, 4 true features with coefficient 1, noise sd 0.1,
independent N(0, 1) features).  Because the features are independent standard normals, the
out-of-sample MSE of a linear predictor is exact:  sigma^2 + b0^2 + sum_j (beta_j - b_j)^2.

Usage:  python bench/bench_core.py [--quick] [--max-m 1000000]   (needs: pip install ".[bench]")
Prints one table per m, then ratios to the one-pass floor (X'r), then the lazy-stream and
memory measurements, then the logistic comparison.
"""
from __future__ import annotations

import os

# one BLAS thread for every method: fair on a 2-core machine and free of thread contention
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm

import streamreg as sr

warnings.filterwarnings("ignore")


def mse_linear(coef: dict[str, float], intercept: float, truth: list[str], noise: float) -> float:
    err = intercept**2 + noise**2
    for name in set(coef) | set(truth):
        err += (float(name in truth) - coef.get(name, 0.0)) ** 2
    return err


def score(name, secs, chosen, coef, intercept, sim):
    truth = set(sim.true_features)
    tp = len(truth & set(chosen))
    return {"method": name, "seconds": secs, "selected": len(chosen), "TP": tp, "FP": len(chosen) - tp,
            "test MSE": mse_linear(coef, intercept, sim.true_features, sim.noise)}


def run_streamreg(sim, x, names, w0, label):
    t = time.perf_counter()
    fit = sr.select(sim.y, x, w0=w0, alpha_delta=w0,
                    block_size=4096)
    secs = time.perf_counter() - t
    chosen = [names[int(t[1:])] for t in fit.selected_terms]
    coef = dict(zip(chosen, fit.params.to_numpy()[1:]))
    return score(label, secs, chosen, coef, float(fit.params.iloc[0]), sim)


def run_naive(sim, x, names):
    """Refit statsmodels OLS for every candidate: the definition, one fit per test."""
    t = time.perf_counter()
    y, n = sim.y, len(sim.y)
    w, i, chosen = 0.5, 1, []
    design = np.ones((n, 1))
    for j in range(x.shape[1]):
        res = sm.OLS(y, np.column_stack([design, x[:, j]])).fit()
        p = res.pvalues[-1]
        a = w / (2 * i)
        if p < a:
            w += 0.5 - a
            chosen.append(j)
            design = np.column_stack([design, x[:, j]])
        else:
            w -= a
        i += 1
    secs = time.perf_counter() - t
    fit = sm.OLS(y, design).fit()
    cn = [names[j] for j in chosen]
    return score("naive statsmodels loop", secs, cn, dict(zip(cn, fit.params[1:])), fit.params[0], sim)


def run_sklearn(sim, x, names, which):
    from sklearn.linear_model import LassoCV, LassoLarsIC

    t = time.perf_counter()
    # LassoLarsIC cannot estimate sigma when m > n: it is given the true noise variance (an oracle)
    model = LassoCV(cv=5, n_jobs=1) if which == "LassoCV" else LassoLarsIC(criterion="bic", noise_variance=sim.noise**2)
    model.fit(x, sim.y)
    secs = time.perf_counter() - t
    nz = np.flatnonzero(model.coef_)
    cn = [names[j] for j in nz]
    return score(which, secs, cn, dict(zip(cn, model.coef_[nz])), float(model.intercept_), sim)


def run_abess(sim, x, names):
    from abess.linear import LinearRegression

    t = time.perf_counter()
    model = LinearRegression(support_size=range(0, 21))
    model.fit(x, sim.y)
    secs = time.perf_counter() - t
    nz = np.flatnonzero(model.coef_)
    cn = [names[j] for j in nz]
    return score("abess", secs, cn, dict(zip(cn, model.coef_[nz])), float(model.intercept_), sim)


def floor(sim, x):
    t = time.perf_counter()
    _ = x.T @ (sim.y - sim.y.mean())
    return time.perf_counter() - t


def table_for(m: int, seed: int) -> pd.DataFrame:
    sim = sr.datasets.make_synthetic(n=100, m=m, seed=seed)
    x = sim.data.drop(columns="y").to_numpy()
    x = np.ascontiguousarray(x)
    names = list(sim.data.columns[1:])
    rows = [{"method": "one-pass X'r (floor)", "seconds": min(floor(sim, x) for _ in range(3))}]
    rows.append(run_streamreg(sim, x, names, 0.5, "streamreg alpha-inv 0.5/0.5"))
    rows.append(run_streamreg(sim, x, names, 0.05, "streamreg alpha-inv 0.05/0.05"))
    if m <= 10_000:
        rows.append(run_naive(sim, x, names))
    if m <= 100_000:
        rows.append(run_sklearn(sim, x, names, "LassoLarsIC(bic, oracle sigma)"))
        rows.append(run_abess(sim, x, names))
    if m <= 10_000:
        rows.append(run_sklearn(sim, x, names, "LassoCV"))
    df = pd.DataFrame(rows)
    df["x floor"] = df["seconds"] / df["seconds"].iloc[0]
    return df


LAZY_CHILD = r"""
import sys, time, numpy as np, streamreg as sr
from streamreg.datasets.synthetic import SyntheticStream
m, mode = int(sys.argv[1]), sys.argv[2]
sim = sr.datasets.make_synthetic(n=100, m=m, seed=5, lazy=True)
t = time.perf_counter()
if mode == "generate":
    s = SyntheticStream(100, m, 5)
    while s.take(4096) is not None:
        pass
else:
    fit = sr.select(sim.y, SyntheticStream(100, m, 5), block_size=4096, w0=0.05, alpha_delta=0.05)
secs = time.perf_counter() - t
# VmHWM is this process's own peak (ru_maxrss would carry the parent's peak across exec)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(secs, int(hwm) / 1024)
"""


def lazy_runs(ms):
    rows = []
    for m in ms:
        out = {}
        for mode in ("generate", "select"):
            res = subprocess.run([sys.executable, "-c", LAZY_CHILD, str(m), mode], capture_output=True, text=True)
            secs, rss = map(float, res.stdout.split())
            out[mode] = (secs, rss)
        rows.append({"m": m, "generate s": out["generate"][0], "select s": out["select"][0],
                     "select / generate": out["select"][0] / out["generate"][0],
                     "peak RSS MB (select)": out["select"][1]})
    return pd.DataFrame(rows)


def logistic(m=10_000, seed=3):
    from sklearn.linear_model import LogisticRegressionCV

    rng = np.random.default_rng(seed)
    n = 200
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 4, replace=False)
    eta = x[:, true].sum(axis=1)
    y = rng.binomial(1, 1 / (1 + np.exp(-eta)))
    truth = {f"x{j}" for j in true}
    rows = []

    def add(name, secs, chosen):
        tp = len(truth & set(chosen))
        rows.append({"method": name, "seconds": secs, "selected": len(chosen), "TP": tp, "FP": len(chosen) - tp})

    t = time.perf_counter()
    _ = x.T @ (y - y.mean())
    rows.append({"method": "one-pass X'r (floor)", "seconds": time.perf_counter() - t})
    for w in (0.5, 0.05):
        t = time.perf_counter()
        fit = sr.select(y, x, family="binomial", w0=w, alpha_delta=w, block_size=4096)
        add(f"streamreg alpha-inv {w}/{w}", time.perf_counter() - t, fit.selected_terms)
    t = time.perf_counter()
    lr = LogisticRegressionCV(Cs=10, cv=5, penalty="l1", solver="liblinear").fit(x, y)
    add("LogisticRegressionCV(l1)", time.perf_counter() - t, [f"x{j}" for j in np.flatnonzero(lr.coef_[0])])
    from abess.linear import LogisticRegression as AbessLogit

    t = time.perf_counter()
    ab = AbessLogit(support_size=range(0, 21)).fit(x, y)
    add("abess logistic", time.perf_counter() - t, [f"x{j}" for j in np.flatnonzero(ab.coef_)])
    df = pd.DataFrame(rows)
    df["x floor"] = df["seconds"] / df["seconds"].iloc[0]
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--max-m", type=int, default=1_000_000)
    args = ap.parse_args()
    ms = [1_000, 10_000] if args.quick else [m for m in (1_000, 10_000, 100_000, 1_000_000) if m <= args.max_m]
    pd.set_option("display.width", 140)
    pd.set_option("display.float_format", lambda v: f"{v:.4g}")
    for m in ms:
        print(f"\n== m = {m:,} (n = 100, 4 true, noise sd 0.1), in memory ==")
        print(table_for(m, seed=m % 97).to_string(index=False))
    print("\n== lazy stream (generated block by block; separate processes) ==")
    print(lazy_runs([10_000, 100_000] if args.quick else [100_000, 1_000_000]).to_string(index=False))
    print("\n== logistic: n = 200, m = 10,000, 4 true (coef 1) ==")
    print(logistic(2_000 if args.quick else 10_000).to_string(index=False))


if __name__ == "__main__":
    main()
