"""Issue 4 benchmark: generated feature classes (Dhillon, Foster and Ungar 2010, section 4.2 and Table 2).

Part 1 -- arcene (NIPS 2003; train + valid = 200 rows x 10,000 integer features, labels
-1/+1).  Feature classes built inside every CV fold from the training rows only, never
from y: k-means clusters of the features (``clusters(x*, k=K)``, k = 1000 in the paper),
the top 50 principal components (``pca(x*, k=50)``) and the squares (``squares(x*)``).
Methods: MSFS (I) (multi-stream + ``interactions(cl)``, kinds 1-2 as in the paper), MSFS
(multi-stream), SFS (``multistream=False``), forward stepwise RIC (``method="stepwise-ric"``)
and an L1-logistic baseline (scikit-learn ``LogisticRegressionCV``, liblinear).

Part 2 -- UCI internet advertisements (3279 x 1558) with its six natural feature groups
(geometry, url, origurl, ancurl, alt, caption; ``Dataset.groups``) as six streams:
multi-stream vs single-stream, with and without ``interactions()``.

Choices (printed in the header):

* Columns are standardised with the training fold's mean and sd before the streams are
  formed (pca() and clusters() standardise internally anyway; squares() does not, so the
  squares are of the standardised columns).  Missing geometry values of the ads data are
  imputed with the training-fold median.
* Selection uses the least-squares model (``family="gaussian"``, exact partial t-tests) on
  the 0/1 response: the papers' own p-value is a least-squares one (Dhillon, Foster and Ungar 2010, section 2,
  ``exp(-dRSS / 2 sigma^2)``).  ``--family binomial`` runs the logistic score-test search
  instead; on arcene it is impractically slow (see the report: after a few acceptances the
  logistic fit is quasi-separated and nearly every candidate triggers a refit).
* Error: classification error on the held-out fold of a logistic model refitted on the
  selected terms (sklearn, essentially unpenalised, C=1e4), threshold 0.5 -- ``err``; and of
  the selection's own least-squares fit thresholded at 0.5 -- ``err(LS)``.

Usage: ``python bench/bench_generated.py [--quick] [--folds F] [--clusters K] [--alphas 0.5,0.05]``
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

import streamreg as sr

#: Dhillon, Foster and Ungar (2010), Table 2, arcene (k = 1000): mean error %, sd, mean #features
PAPER = {
    "MSFS (I)": (10.7, 0.8, 5.3),
    "MSFS": (12.9, 0.4, 4.4),
    "SFS": (16.5, 0.8, 4.4),
    "Stepwise RIC": (16.1, 0.9, 4.2),
    "Lasso (L1 logit)": (16.3, 1.0, 13.4),
}


def out(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------------------- data
def load_arcene():
    """train + valid (200 x 10,000), y = 1 for cancer (streamreg.datasets; downloaded on first use)."""
    return sr.datasets.load("arcene").arrays()


def load_ads():
    """The 1558 columns renamed ``<group>_<k>`` (geometry_1..4 too), so that ``stream(<group>_*)`` is a group."""
    ds = sr.datasets.load("internet_ads")
    x, y = ds.arrays()
    assert [c for cols in ds.groups.values() for c in cols] == list(ds.X.columns)
    names = [f"{g}_{k}" for g, cols in ds.groups.items() for k in range(1, len(cols) + 1)]
    return x, y, names, list(ds.groups)


def folds_of(y, k, seed=0):
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def standardise(x, tr):
    mu = np.nanmean(x[tr], axis=0)
    sd = np.nanstd(x[tr], axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x - mu) / sd


# ---------------------------------------------------------------------------- evaluation
def logit_error(fit, dtr, dte, ytr, yte):
    """Error of a logistic refit on the selected terms (training fold), threshold 0.5."""
    from sklearn.linear_model import LogisticRegression

    xtr = fit.design(dtr).drop(columns="Intercept", errors="ignore").to_numpy(dtype=float)
    xte = fit.design(dte).drop(columns="Intercept", errors="ignore").to_numpy(dtype=float)
    if xtr.shape[1] == 0:
        p = np.full(len(yte), ytr.mean())
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LogisticRegression(C=1e4, max_iter=5000).fit(xtr, ytr)
        p = m.predict_proba(xte)[:, 1]
    return float(np.mean((p > 0.5) != (yte > 0.5)))


def run_streamreg(formula, dtr, dte, ytr, yte, family, budget, **kw):
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sr.streamreg(formula, dtr, family=family, time_budget=budget, **kw)
    sec = time.perf_counter() - t
    err = logit_error(fit, dtr, dte, ytr, yte)
    pred = np.asarray(fit.predict(dte))
    err_ls = float(np.mean((pred > 0.5) != (yte > 0.5)))
    terms = fit.selected_terms
    h = fit.history
    streams = fit.selected["stream"].astype(str).tolist() if len(fit.selected) else []
    return {"err": err, "err_ls": err_ls, "nf": len(terms), "sec": sec,
            "tests": int(getattr(fit.search, "n_tests", len(h))), "terms": terms, "streams": streams}


def lasso(xtr, xte, ytr, yte, seed):
    from sklearn.linear_model import LogisticRegressionCV

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = LogisticRegressionCV(Cs=10, cv=5, penalty="l1", solver="liblinear", max_iter=2000,
                                 random_state=seed).fit(xtr, ytr)
    sec = time.perf_counter() - t
    err = float(np.mean((m.predict(xte) > 0.5) != (yte > 0.5)))
    return {"err": err, "err_ls": np.nan, "nf": int(np.sum(m.coef_ != 0)), "sec": sec, "tests": np.nan,
            "terms": [], "streams": []}


def table(rows: dict, paper: dict | None = None):
    lines = []
    head = f"{'method':<28} {'err %':>13} {'err(LS) %':>13} {'#feat':>6} {'tests':>8} {'sec/fold':>9}"
    if paper:
        head += f"   {'paper err % (#f)':>18}"
    lines.append(head)
    lines.append("-" * len(head))
    for label, res in rows.items():
        e = 100 * np.array([r["err"] for r in res])
        els = 100 * np.array([r["err_ls"] for r in res], dtype=float)
        nf = np.mean([r["nf"] for r in res])
        tests = np.array([r["tests"] for r in res], dtype=float)
        sec = np.mean([r["sec"] for r in res])
        ls = "" if np.isnan(els).all() else f"{els.mean():5.1f} ± {els.std(ddof=1) if len(els) > 1 else 0:4.1f}"
        line = (f"{label:<28} {e.mean():5.1f} ± {e.std(ddof=1) if len(e) > 1 else 0:4.1f} {ls:>13} {nf:6.1f} "
                f"{'' if np.isnan(tests).all() else f'{np.nanmean(tests):8.0f}':>8} {sec:9.1f}")
        if paper:
            base = label.split(" [")[0]
            if base in paper:
                pe, ps, pf = paper[base]
                line += f"   {pe:5.1f} ± {ps:3.1f} ({pf:4.1f})"
        lines.append(line)
    return "\n".join(lines)


def stream_counts(res):
    """Where the selected terms came from, summed over folds."""
    c = {}
    for r in res:
        for s in r["streams"]:
            key = "cl[*]" if s.startswith("cl[") else ("interactions[*]" if s.startswith("interactions") else s)
            c[key] = c.get(key, 0) + 1
    return ", ".join(f"{k}: {v}" for k, v in sorted(c.items(), key=lambda kv: -kv[1])) or "-"


# ---------------------------------------------------------------------------- part 1
def part_arcene(args):
    x, y = load_arcene()
    K = args.clusters
    folds = folds_of(y, args.folds)
    cols = [f"x{j}" for j in range(x.shape[1])]
    gen = f"clusters(x*, k={K}, name=cl) + pca(x*, k=50) + squares(x*)"
    specs = []
    for a in args.alphas:
        tag = f" [w0=ad={a:g}]"
        opts = {"w0": a, "alpha_delta": a}
        if not args.no_interactions:
            specs.append((f"MSFS (I){tag}", f"y ~ {gen} + interactions(cl)", dict(multistream=True, **opts)))
        specs.append((f"MSFS{tag}", f"y ~ {gen}", dict(multistream=True, **opts)))
        specs.append((f"SFS{tag}", f"y ~ {gen}", dict(multistream=False, **opts)))
    if not args.no_stepwise:
        # clusters are irrelevant to stepwise (it sees every candidate at each step)
        specs.append(("Stepwise RIC", "y ~ stream(x*) + pca(x*, k=50) + squares(x*)",
                      {"method": "stepwise-ric"}))
    rows = {s[0]: [] for s in specs}
    if not args.no_lasso:
        rows["Lasso (L1 logit)"] = []
    out(f"\n== Part 1: arcene, n = {len(y)} ({int(y.sum())} cancer), p = {x.shape[1]}; "
        f"{args.folds}-fold stratified CV (seed 0); clusters k = {K}; family = {args.family} ==")
    out(f"   classes per fold: {K} k-means clusters of the 10,000 columns + pca(k=50) + 10,000 squares "
        f"= {K + 2} streams (MSFS (I) adds interaction kinds 1 and 2 of the cluster columns)")
    t_all = time.perf_counter()
    for f, (tr, te) in enumerate(folds):
        z = standardise(x, tr)
        dtr = pd.DataFrame(z[tr], columns=cols)
        dtr["y"] = y[tr]
        dte = pd.DataFrame(z[te], columns=cols)
        for label, formula, kw in specs:
            r = run_streamreg(formula, dtr, dte, y[tr], y[te], args.family, args.time_budget, **kw)
            rows[label].append(r)
            out(f"   fold {f + 1:2d} {label:<26} err {100 * r['err']:5.1f}%  #f {r['nf']:3d}  "
                f"{r['sec']:6.1f}s  {' '.join(r['terms'][:8])}{' ...' if r['nf'] > 8 else ''}")
        if not args.no_lasso:
            r = lasso(z[tr], z[te], y[tr], y[te], f)
            rows["Lasso (L1 logit)"].append(r)
            out(f"   fold {f + 1:2d} {'Lasso (L1 logit)':<26} err {100 * r['err']:5.1f}%  #f {r['nf']:3d}  "
                f"{r['sec']:6.1f}s")
    out(f"\nTable: arcene, {args.folds}-fold CV, k = {K} clusters "
        f"(err: logistic refit on the selected terms; err(LS): the selection's least-squares fit > 0.5; "
        f"± is the sd over folds; paper: 10-fold CV, k = 1000, ± presumably over repeats)")
    out(table(rows, PAPER))
    out("\nSelected terms by class (summed over folds):")
    for label, res in rows.items():
        if res and res[0]["streams"]:
            out(f"   {label:<28} {stream_counts(res)}")
    out(f"Part 1 wall time: {time.perf_counter() - t_all:.0f} s")


# ---------------------------------------------------------------------------- part 2
def part_ads(args):
    x, y, names, groups = load_ads()
    folds = folds_of(y, args.ads_folds)
    base = " + ".join(f"stream({g}_*)" for g in groups)
    specs = []
    for a in args.alphas:
        tag = f" [w0=ad={a:g}]"
        opts = {"w0": a, "alpha_delta": a}
        specs.append((f"multi-stream{tag}", f"y ~ {base}", dict(multistream=True, **opts)))
        specs.append((f"single-stream{tag}", f"y ~ {base}", dict(multistream=False, **opts)))
        if not args.no_interactions:
            specs.append((f"multi-stream + inter.{tag}", f"y ~ {base} + interactions()",
                          dict(multistream=True, **opts)))
            specs.append((f"single-stream + inter.{tag}", f"y ~ {base} + interactions()",
                          dict(multistream=False, **opts)))
    rows = {s[0]: [] for s in specs}
    if not args.no_lasso:
        rows["Lasso (L1 logit)"] = []
    out(f"\n== Part 2: internet ads, n = {len(y)} ({int(y.sum())} ads), p = {x.shape[1]} in 6 groups "
        f"({', '.join(groups)}); {args.ads_folds}-fold stratified CV (seed 0); family = {args.family} ==")
    out("   missing geometry values (28% of rows) imputed with the training-fold median; columns standardised")
    t_all = time.perf_counter()
    for f, (tr, te) in enumerate(folds):
        med = np.nanmedian(x[tr], axis=0)
        xi = np.where(np.isnan(x), med, x)
        z = standardise(xi, tr)
        dtr = pd.DataFrame(z[tr], columns=names)
        dtr["y"] = y[tr]
        dte = pd.DataFrame(z[te], columns=names)
        for label, formula, kw in specs:
            r = run_streamreg(formula, dtr, dte, y[tr], y[te], args.family, args.time_budget, **kw)
            rows[label].append(r)
            out(f"   fold {f + 1:2d} {label:<32} err {100 * r['err']:5.2f}%  #f {r['nf']:3d}  {r['sec']:6.1f}s")
        if not args.no_lasso:
            r = lasso(z[tr], z[te], y[tr], y[te], f)
            rows["Lasso (L1 logit)"].append(r)
            out(f"   fold {f + 1:2d} {'Lasso (L1 logit)':<32} err {100 * r['err']:5.2f}%  #f {r['nf']:3d}  "
                f"{r['sec']:6.1f}s")
    out(f"\nTable: internet ads, {args.ads_folds}-fold CV (no published streamwise numbers to compare with)")
    out(table(rows))
    out("\nSelected terms by stream (summed over folds):")
    for label, res in rows.items():
        if res and res[0]["streams"]:
            out(f"   {label:<32} {stream_counts(res)}")
    out(f"Part 2 wall time: {time.perf_counter() - t_all:.0f} s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 folds, 20 clusters, w0=0.5 only")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--ads-folds", type=int, default=10)
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--alphas", default="0.5,0.05", help="w0 = alpha_delta values, comma-separated")
    ap.add_argument("--family", default="gaussian", choices=["gaussian", "binomial"])
    ap.add_argument("--time-budget", type=float, default=None, help="seconds per streamreg() fit")
    ap.add_argument("--no-interactions", action="store_true")
    ap.add_argument("--no-stepwise", action="store_true")
    ap.add_argument("--no-lasso", action="store_true")
    ap.add_argument("--skip-arcene", action="store_true")
    ap.add_argument("--skip-ads", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.folds, args.ads_folds, args.clusters = 3, 3, min(args.clusters, 20)
        args.alphas = "0.5"
    args.alphas = [float(a) for a in str(args.alphas).split(",")]
    out("bench_generated.py -- issue 4 / Dhillon, Foster and Ungar (2010) Table 2 protocol")
    out(f"command: python {' '.join(sys.argv)}")
    out(f"streamreg {getattr(sr, '__version__', '?')}, numpy {np.__version__}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    out(f"selection family: {args.family} (0/1 response); alpha-investing w0 = alpha_delta in {args.alphas}; "
        f"time budget per fit: {args.time_budget}")
    t0 = time.perf_counter()
    if not args.skip_arcene:
        part_arcene(args)
    if not args.skip_ads:
        part_ads(args)
    out(f"\ntotal wall time: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
