"""False selections on null streams: is E[V] below what ``guarantee()`` promises?

Every stream is null: y is drawn independently of all m candidates (X: n x m i.i.d.
N(0, 1); y: N(0, 1) for the Gaussian family, Bernoulli(1/2) for the binomial family), so
every selection is false and V = R.  ``guarantee()`` of alpha-investing prints

    mFDR = E[V]/(E[R] + eta) <= alpha_delta,      eta = w0 / alpha_delta,

which, with V = R, bounds the expected number of false selections by

    E[V] <= alpha_delta * (E[R] + eta)     (printed from the realised E[R]),
    E[V] <= alpha_delta * eta / (1 - alpha_delta) = w0 / (1 - alpha_delta)   (closed form).

The bound column is parsed from the text ``fit.guarantee()`` returns (and checked against
the policy's parameters), so the bench follows the package's stated promise.

Per setting (family x {w0 = alpha_delta = 0.5 (default), 0.05}) the script runs ``--runs``
streams, run r with ``np.random.default_rng(seed + r)``, and prints E[V] with its standard
error, whether E[V] - 2 SE is below the bound, P(V >= 1), the mean number of tests, the
refusals and skips recorded in ``fit.history``, and a calibration check: the plug-in
``alpha_delta R + w0 - W_final`` equals the sum of the levels spent, sum_i alpha_i, and
E[V - sum_i alpha_i] = 0 exactly when every null p-value is Uniform(0, 1) given the past
(> 0: anti-conservative tests; < 0: conservative ones).

Rows "pure policy (U(0,1) p)" apply the same wealth rule (``streamreg.policies.AlphaInvesting``
through its plan/record interface) to m i.i.d. Uniform(0, 1) p-values: the wealth rule's own
behaviour, free of any test calibration.  They are checked against a plain transcription of
Zhou et al. (2006) Fig. 4.

Usage:  python bench/bench_null.py [--n 200] [--m 200,1000] [--runs 1000] [--seed 0]
                                  [--lr-runs 200] [--lr-m 200]
``--lr-runs 0`` skips the (slow: one GLM fit per candidate) likelihood-ratio rows.
"""
from __future__ import annotations

import os

# one BLAS thread: fair on a 2-core machine and free of thread contention
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import datetime
import math
import re
import subprocess
import sys
import time
import warnings

import numpy as np

import streamreg as sr
from streamreg.outcomes import TestOutcomes
from streamreg.policies import AlphaInvesting

warnings.filterwarnings("ignore")

TESTED = ("rejected", "accepted")  # plus every "refused: ..." status
GUARANTEE = re.compile(r"mFDR = E\[V\]/\(E\[R\] \+ ([0-9.eE+-]+)\) <= ([0-9.eE+-]+)")


def parse_guarantee(text: str, w0: float, alpha_delta: float) -> tuple[float, float]:
    """(eta, alpha_delta) read from the text of ``guarantee()``, checked against the policy."""
    mt = GUARANTEE.search(text)
    if mt is None:
        raise RuntimeError(f"guarantee() text not understood: {text!r}")
    eta, level = float(mt.group(1)), float(mt.group(2))
    if not (math.isclose(eta, w0 / alpha_delta, rel_tol=1e-3) and math.isclose(level, alpha_delta, rel_tol=1e-3)):
        raise RuntimeError(f"guarantee() says eta={eta}, level={level}; policy has w0={w0}, alpha_delta={alpha_delta}")
    return eta, level


def null_data(family: str, n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    y = rng.standard_normal(n) if family == "gaussian" else rng.binomial(1, 0.5, n).astype(float)
    return y, x


def run_streams(family: str, test: str | None, w: float, n: int, m: int, runs: int, seed: int) -> dict:
    v = np.empty(runs)
    spent = np.empty(runs)  # plug-in alpha_delta R + w0 - W_final = sum of the levels spent
    tests = np.empty(runs)
    refused = np.zeros(runs)
    skipped = np.zeros(runs)
    text = None
    t0 = time.perf_counter()
    for r in range(runs):
        y, x = null_data(family, n, m, seed + r)
        fit = sr.select(y, x, family=family, test=test, w0=w, alpha_delta=w)
        status = fit.history["status"].astype(str)
        v[r] = len(fit.selected)
        spent[r] = fit.false_selection_estimate()
        tests[r] = (status.isin(TESTED) | status.str.startswith("refused")).sum()
        refused[r] = status.str.startswith("refused").sum()
        skipped[r] = status.str.startswith("skipped").sum()
        if text is None:
            text = fit.guarantee()
            params = fit.policy.parameters()
    secs = time.perf_counter() - t0
    eta, level = parse_guarantee(text, params["w0"], params["alpha_delta"])
    return {"v": v, "spent": spent, "tests": tests, "refused": refused, "skipped": skipped,
            "eta": eta, "alpha_delta": level, "w0": params["w0"], "text": text, "secs": secs}


def plain_alpha_investing(p: np.ndarray, w0: float, alpha_delta: float) -> int:
    """Zhou et al. (2006) Fig. 4, line by line (as tests/naive.py): the number of acceptances."""
    w, v = w0, 0
    for i, pi in enumerate(p, start=1):
        a = w / (2 * i)
        if pi < a:
            w += alpha_delta - a
            v += 1
        else:
            w -= a
    return v


def run_pure_policy(w: float, n: int, m: int, runs: int, seed: int) -> dict:
    """The wealth rule alone, on m i.i.d. Uniform(0, 1) p-values per run."""
    v = np.empty(runs)
    spent = np.empty(runs)
    mismatches = 0
    t0 = time.perf_counter()
    for r in range(runs):
        p = np.random.default_rng(seed + r).uniform(size=m)
        s = -2.0 * np.log(p)  # a chi-square(2)-like statistic with log p = -s / 2
        out = TestOutcomes(statistic=s, df=np.full(m, 2), df_resid=np.full(m, np.inf), llr=s,
                           log_sf=lambda st, df, dfr: -0.5 * st, critical=None, _log_p=np.log(p))
        pol = AlphaInvesting(w0=w, alpha_delta=w)
        pol.start(n_obs=n, share=1.0, n_candidates=m)
        pos, acc = 0, 0
        while pos < m:
            sub = out.take(slice(pos, m))
            hits = np.flatnonzero(pol.plan(sub).accept)
            if hits.size:
                pol.record(sub, int(hits[0]) + 1, last_accepted=True)
                acc += 1
                pos += int(hits[0]) + 1
            else:
                pol.record(sub, len(sub), last_accepted=False)
                pos = m
        v[r] = acc
        spent[r] = w * acc + w - pol.wealth
        mismatches += acc != plain_alpha_investing(p, w, w)
    secs = time.perf_counter() - t0
    eta, level = parse_guarantee(pol.guarantee(), pol.w0, pol.alpha_delta)
    return {"v": v, "spent": spent, "tests": np.full(runs, float(m)), "refused": np.zeros(runs),
            "skipped": np.zeros(runs), "eta": eta, "alpha_delta": level, "w0": pol.w0,
            "text": pol.guarantee(), "secs": secs, "mismatches": mismatches}


HEAD = (f"{'setting':<34} {'runs':>5} {'E[V]':>7} {'SE':>6} {'E[V]-2SE':>8} {'bound':>6} {'below':>5} "
        f"{'closed':>6} {'P(V>=1)':>8} {'tests':>7} {'refused':>7} {'skipped':>7} "
        f"{'E[V-sum a]':>10} {'SE':>6} {'sec':>6}")


def row(label: str, res: dict) -> str:
    v, runs = res["v"], len(res["v"])
    ev, se = v.mean(), v.std(ddof=1) / math.sqrt(runs)
    bound = res["alpha_delta"] * (v.mean() + res["eta"])  # V = R under the null
    closed = res["w0"] / (1 - res["alpha_delta"])
    below = "yes" if ev - 2 * se < bound else "NO"
    d = v - res["spent"]
    dse = d.std(ddof=1) / math.sqrt(runs)
    return (f"{label:<34} {runs:>5} {ev:>7.4f} {se:>6.4f} {ev - 2 * se:>8.4f} {bound:>6.3f} {below:>5} "
            f"{closed:>6.3f} {np.mean(v >= 1):>8.3f} {res['tests'].mean():>7.1f} {int(res['refused'].sum()):>7} "
            f"{int(res['skipped'].sum()):>7} {d.mean():>+10.4f} {dse:>6.4f} {res['secs']:>6.1f}")


def git_state() -> str:
    """Commit of the package and any uncommitted changes under streamreg/ (others edit it)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "streamreg"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "git: unknown"
    dirty = [ln[3:] for ln in dirty if ln.strip()]
    return f"git: {head}" + (f" + uncommitted changes in {', '.join(dirty)}" if dirty else "")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="rows per stream")
    ap.add_argument("--m", default="200,1000", help="candidates per stream (comma-separated list)")
    ap.add_argument("--runs", type=int, default=1000, help="null streams per setting")
    ap.add_argument("--seed", type=int, default=0, help="run r uses default_rng(seed + r)")
    ap.add_argument("--alphas", default="0.5,0.05", help="w0 = alpha_delta values (comma-separated)")
    ap.add_argument("--lr-runs", type=int, default=200, help="runs of binomial test='lr' (0: skip)")
    ap.add_argument("--lr-m", type=int, default=200, help="candidates per stream for test='lr'")
    args = ap.parse_args(argv)
    ms = [int(s) for s in args.m.split(",")]
    alphas = [float(s) for s in args.alphas.split(",")]

    print("bench_null.py -- false selections of alpha-investing on null streams")
    print(f"command: python {' '.join(sys.argv)}")
    print(f"date: {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"streamreg {getattr(sr, '__version__', '?')}, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; {git_state()}")
    print(f"n = {args.n} rows; X i.i.d. N(0,1); y ~ N(0,1) (gaussian, exact t-test) or Bernoulli(1/2) "
          f"(binomial, score test; 'lr' rows: likelihood-ratio test); run r uses seed {args.seed} + r, "
          "the same X for every setting of one m")
    print("columns: E[V] mean false selections (= R, all selections) and its SE; bound = alpha_delta*(E[R] + eta) "
          "from the guarantee() text with the realised E[R]; below = E[V]-2SE < bound; closed = w0/(1-alpha_delta), "
          "the same bound solved with V = R; tests = mean candidates tested per run; refused/skipped = history rows "
          "over all runs; E[V-sum a] = mean of V minus the levels spent (plug-in alpha_delta*R + w0 - W_final), "
          "0 for exactly uniform null p-values, < 0 conservative, > 0 anti-conservative")
    t_all = time.perf_counter()
    texts = {}
    for m in ms:
        print(f"\n== m = {m} candidates per stream, {args.runs} runs per row ==")
        print(HEAD)
        print("-" * len(HEAD))
        for w in alphas:
            pure = run_pure_policy(w, args.n, m, args.runs, args.seed)
            print(row(f"pure policy (U(0,1) p) {w:g}/{w:g}", pure))
            for family in ("gaussian", "binomial"):
                res = run_streams(family, None, w, args.n, m, args.runs, args.seed)
                test = "t" if family == "gaussian" else "score"
                print(row(f"{family} ({test}) {w:g}/{w:g}", res))
                texts[w] = res["text"]
            if pure["mismatches"]:
                print(f"   !! pure policy: {pure['mismatches']} runs differ from the plain Fig. 4 transcription")
            sys.stdout.flush()
    if args.lr_runs:
        m = args.lr_m
        print(f"\n== binomial, test='lr', m = {m}, {args.lr_runs} runs per row (the first runs of the "
              f"score rows at the same m use the same data) ==")
        print(HEAD)
        print("-" * len(HEAD))
        for w in alphas:
            res = run_streams("binomial", "lr", w, args.n, m, args.lr_runs, args.seed)
            print(row(f"binomial (lr) {w:g}/{w:g}", res))
            sc = run_streams("binomial", None, w, args.n, m, args.lr_runs, args.seed)
            print(row(f"binomial (score) {w:g}/{w:g}, same runs", sc))
            sys.stdout.flush()
    print("\nguarantee() text, per setting:")
    for w, text in texts.items():
        print(f"  {w:g}/{w:g}: {text}")
    print(f"\ntotal {time.perf_counter() - t_all:.0f} s")


if __name__ == "__main__":
    main()
