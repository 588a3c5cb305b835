"""False selections on streams of null candidates, with and without omitted signals.

Every candidate is independent of the response and of the other candidates, so every
selection is false (V = R).  The response is pure noise ("no signal") or carries ``k``
signals that are *not* in the stream ("omitted"): the model the candidates are tested against
then always lacks true terms, as a streamwise model does until its signals have entered.  For
counts this overdisperses the response (Pearson dispersion 2-3 on the Poisson rows below), the
situation in which a score test that assumes phi = 1 fails.

For each row (family x signal x setting) the script runs ``--runs`` streams (run r with
``np.random.default_rng(seed + r)``) and prints:

* E[V] with its standard error, and P(V >= 1), the probability of any selection;
* the bounds the rule's ``guarantee()`` states for this case: P(any selection) <= w0 (a
  union bound over the levels spent before the first selection), and a bound on E[V]: for
  LORD++ ``E[V] <= alpha E[max(R, 1)]`` (its levels at null tests add up to at most
  ``alpha max(R, 1)``), from the realised R; for alpha-investing, whose mFDR bound
  ``E[V] <= alpha_delta (E[R] + w0 / alpha_delta)`` reads ``E[V] <= w0 / (1 - alpha_delta)``
  when V = R;
* a calibration check: E[V - sum of the levels spent] is 0 when every null p-value is exactly
  Uniform(0, 1) given the past, > 0 when the test is anti-conservative.

Usage:  python bench/bench_null_glm.py [--n 400] [--m 500] [--runs 1000] [--seed 0]
        [--families gaussian,binomial,poisson] [--k 6] [--beta 0.5]
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import datetime
import subprocess
import sys
import time
import warnings

import numpy as np

import streamreg as sr

warnings.filterwarnings("ignore")

#: settings: (label, select() keyword arguments); "default" is select()'s own default
SETTINGS: dict[str, dict] = {
    "default": {},
    "default, test=score": {"test": "score"},
    "alpha-investing 0.5/0.5 (papers)": {"method": "alpha-investing", "w0": 0.5, "alpha_delta": 0.5},
    "one phase 0.05/0.05 uniform, 3 passes": {"method": "alpha-investing", "w0": 0.05, "alpha_delta": 0.05,
                                              "spending": "uniform", "passes": 3},
    "screen-confirm (screen_w0 0.5, 2 passes)": {"method": "screen-confirm", "screen_w0": 0.5, "passes": 2},
}


def make_data(family: str, n: int, m: int, k: int, beta: float, omitted: bool,
              seed: int) -> tuple[np.ndarray, np.ndarray]:
    """y with k omitted signals (or none) and m null candidate columns."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    eta = rng.standard_normal((n, k)) @ (beta * rng.choice([-1.0, 1.0], k)) if omitted else np.zeros(n)
    if family == "gaussian":
        y = eta + rng.standard_normal(n)
    elif family == "binomial":
        y = rng.binomial(1, 1 / (1 + np.exp(-eta))).astype(float)
    else:
        y = rng.poisson(np.exp(1.0 + eta)).astype(float)
    return y, x


def run_row(family: str, omitted: bool, setting: dict, args: argparse.Namespace, runs: int) -> dict:
    v, spent, t0 = [], [], time.perf_counter()
    guarantee, w0, rule, test, params = "", np.nan, "", "", {}
    for r in range(runs):
        y, x = make_data(family, args.n, args.m, args.k, args.beta, omitted, args.seed + r)
        fit = sr.select(y, x, family=family, **setting)
        h = fit.history
        tested = h[h["status"].isin(["accepted", "rejected"])]
        if fit.policy.name == "screen-confirm":  # the levels the selection was decided at: the confirmation's
            tested = tested[tested["pass"] == tested["pass"].max()]
        v.append(len(fit.selected_terms))
        spent.append(float(tested["level"].sum()))
        if r == 0:
            guarantee = fit.guarantee()
            params = fit.policy.parameters()
            w0 = float(params.get("w0", np.nan))
            rule = fit.policy.name
            test = fit.test_description
    v_arr, spent_arr = np.array(v, float), np.array(spent)
    n = len(v_arr)
    return {
        "EV": v_arr.mean(), "EV_se": v_arr.std(ddof=1) / np.sqrt(n), "P": (v_arr > 0).mean(),
        "P_se": np.sqrt((v_arr > 0).mean() * (1 - (v_arr > 0).mean()) / n),
        "bound_EV": (params["alpha"] * np.maximum(v_arr, 1).mean() if rule == "lord++"
                     else w0 / (1 - params["alpha_delta"]) if rule in ("alpha-investing", "screen-confirm")
                     else np.nan),
        "w0": w0,
        "calib": (v_arr - spent_arr).mean(), "calib_se": (v_arr - spent_arr).std(ddof=1) / np.sqrt(n),
        "secs": time.perf_counter() - t0, "guarantee": guarantee, "test": test, "runs": n,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--m", type=int, default=500)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--k", type=int, default=6, help="omitted signals")
    ap.add_argument("--beta", type=float, default=0.5, help="size of each omitted signal")
    ap.add_argument("--families", default="gaussian,binomial,poisson")
    ap.add_argument("--slow-runs", type=int, default=100,
                    help="streams for the rows of the model-based score test with omitted Poisson signals, "
                         "which select hundreds of terms per stream (each a refit)")
    ap.add_argument("--settings", default=";".join(SETTINGS), help="semicolon list of " + "; ".join(SETTINGS))
    args = ap.parse_args()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()
    except OSError:
        commit = "?"
    print("# " + " ".join(["python", *sys.argv]))
    print(f"# {datetime.datetime.now().isoformat(timespec='seconds')}, streamreg at git {commit}, "
          f"n {args.n}, m {args.m} null candidates, {args.runs} streams per row, omitted: {args.k} signals "
          f"of +-{args.beta}")
    header = (f"{'family':9s} {'signal':8s} {'setting':34s} {'E[V] (se)':>15s} {'P(V>=1) (se)':>15s} "
              f"{'<= w0':>6s} {'E[V] bound':>13s} {'E[V-sum lvl] (se)':>19s} {'secs':>6s}")
    print(header)
    print("-" * len(header))
    texts = {}
    for family in args.families.split(","):
        for omitted in (False, True):
            for label in args.settings.split(";"):
                setting = SETTINGS[label]
                if family == "gaussian" and "test" in setting:
                    continue  # least squares has no model-based score test to compare
                slow = family == "poisson" and omitted and setting.get("test") == "score"
                row = run_row(family, omitted, setting, args, args.slow_runs if slow else args.runs)
                texts[label] = row["guarantee"]
                print(f"{family:9s} {'omitted' if omitted else 'none':8s} {label:34s} "
                      f"{row['EV']:7.3f} ({row['EV_se']:.3f}) {row['P']:7.3f} ({row['P_se']:.3f}) "
                      f"{row['w0']:6.3g} {row['bound_EV']:13.3f} {row['calib']:9.3f} ({row['calib_se']:.3f}) "
                      f"{row['secs']:6.0f}   [{row['test']}; {row['runs']} streams]", flush=True)
    print()
    for label, text in texts.items():
        print(f"# guarantee() of {label!r}: {text}")


if __name__ == "__main__":
    main()
