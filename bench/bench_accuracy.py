"""Accuracy at scale: TP/FP over many seeds, timed side by side with the peers.

Issue "Speed of the main path", items 6 and 7.

Item 6 -- the synthetic problem of Zhou et al. (2006) (n = 100, 4 true features with coefficient 1, noise
sd 0.1, independent N(0, 1) features; ``streamreg.datasets.make_synthetic``) at m = 1e6
candidates (and 1e5).  Peer: a plain numpy greedy forward search with a Bonferroni stop
(written here): at each step one pass over the candidates scores the partial t statistic of
every remaining candidate against the current model through an orthonormal basis Q, the
best one enters, and the search stops when its p-value exceeds 0.05 / m.  It keeps
``u = X'r`` and ``d2 = ||x||^2 - ||Q'x||^2`` up to date with one GEMV per step
(``X'q`` for the new basis vector q; ``X'r_new = X'r - (X'q)(q'r)``), i.e. it is
as fast as a numpy forward search gets: norms, one pass for the intercept, one for
``X'y`` and one per accepted feature.

A second peer row, "plain", is the same search computing ``[r, q]'X`` afresh at each step
(same selections; OpenBLAS runs that 2-row GEMM at about twice a GEMV's time).

Streamreg settings compared (every row of a table ran on the same data as the peers, in the
same process, one after the other):

* one pass: the default (alpha-investing w0 = alpha_delta = 0.5), w0 = alpha_delta = 0.05,
  Foster-Stine, LORD++, and alpha-spending with a flat level alpha / m (Bonferroni spread
  over the stream's known length);
* two passes of ``method="ric"`` (a flat llr threshold 2 log m; built in);
* RECOMMENDED, two passes of flat alpha-spending: pass 1 tests every candidate at level
  a1 / m; pass 2 re-tests them at level a2 / m against the model pass 1 chose (the
  accepted terms are given as ``fixed=``, so they are skipped, not charged).  By the union
  bound E[V] <= a1 + a2 and P(V >= 1) <= a1 + a2 (defaults 0.3 + 0.05).  The same rule
  runs three ways, and the script checks that they select the same columns on every seed:
  "(flat)" with ``FlatSpending`` below (a subclass of the built-in ``AlphaSpending`` whose
  flat sequence is a function, not a tuple of m Python floats); "(gammai)" with the
  built-in ``AlphaSpending(alpha, gammai=np.full(m, 1 / m))``; "(passes)" with the
  built-in ``PassesStream(stream, 2)`` that ``streamreg(..., passes=2)`` uses (select() has
  no ``passes=``), only up to ``--passes-max-m`` because it copies every rejected column in
  a Python loop.

Item 7 -- logistic, n = 200, m = 1e4, 4 true features (coefficient 1; the data of
``bench/bench_core.py``'s logistic section, ``np.random.default_rng(seed)`` per seed),
``family="binomial"``, against ``abess.linear.LogisticRegression(support_size=range(0, 21))``.
RECOMMENDED there: one pass of flat alpha-spending at ``--single`` / m.

Per setting the tables print: median seconds, the median of the per-seed time ratio to the
peer (``x peer``; < 1 is faster: item 6 asks for <= 0.33, item 7 for <= 0.2) and to the
one-pass floor ``X'r`` (``x floor``), the fraction of seeds with TP = 4, mean TP, mean FP,
the fraction of seeds with FP >= 1, median and max FP; then the seeds with TP < 4.

Usage:  python bench/bench_accuracy.py [--quick] [--seeds 20] [--ms 100000,1000000]
            [--logistic-seeds N] [--logistic-m 10000] [--a1 0.3] [--a2 0.05] [--single 0.35]
            [--no-gammai] [--passes-max-m 100000] [--skip-linear] [--skip-logistic]
(needs: pip install ".[bench]").  ``--quick``: 3 seeds, m = 1e4 and 1e5, logistic m = 2,000
(a smoke test).  The recorded run used ``--seeds 40``; each 1e6 data set holds 800 MB.
"""
from __future__ import annotations

import os

# one BLAS thread for every method: fair on a 2-core machine and free of thread contention
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import math
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import streamreg as sr
from streamreg.policies import AlphaSpending

warnings.filterwarnings("ignore")

N_LINEAR = 100


# --------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------


def synthetic(m: int, seed: int):
    """y, X (n x m, C order) and the true column indices of make_synthetic(seed=seed).

    The columns are those of the lazy stream, written block by block into one array (the
    eager ``make_synthetic`` would also build a DataFrame of m columns).
    """
    sim = sr.datasets.make_synthetic(n=N_LINEAR, m=m, seed=seed, lazy=True)
    x = np.empty((N_LINEAR, m))
    b, start = 0, 0
    while start < m:
        blk = sim.stream.column_block(b)
        x[:, start:start + blk.shape[1]] = blk
        start += blk.shape[1]
        b += 1
    sim.stream._cache = None
    truth = {int(t[1:]) - 1 for t in sim.true_features}  # names are 1-based x1..xm
    return sim.y, x, truth


def logistic_data(m: int, seed: int, n: int = 200):
    """bench_core.py's logistic problem: 4 true features with coefficient 1."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    true = rng.choice(m, 4, replace=False)
    eta = x[:, true].sum(axis=1)
    y = rng.binomial(1, 1 / (1 + np.exp(-eta))).astype(float)
    return y, x, {int(j) for j in true}


# --------------------------------------------------------------------------------------
# the numpy peer
# --------------------------------------------------------------------------------------


def forward_bonferroni(y: np.ndarray, x: np.ndarray, alpha: float = 0.05) -> list[int]:
    """Greedy forward selection by partial t, stopping when the best p > alpha / m."""
    n, m = x.shape
    log_thr = math.log(alpha / m)
    q = np.full(n, 1.0 / math.sqrt(n))
    basis = q[:, None]
    r = y - y.mean()
    d2 = np.einsum("ij,ij->j", x, x)  # ||x_j||^2
    xq = q @ x
    d2 -= xq * xq                        # ||x_j - QQ'x_j||^2 with Q = [1/sqrt(n)]
    u = r @ x                            # x_j' r  (= x~_j' r since Q'r = 0)
    rss = float(r @ r)
    chosen: list[int] = []
    while True:
        dfr = n - basis.shape[1] - 1
        if dfr < 1 or len(chosen) >= m:
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = u * u / d2
        gain[chosen] = -np.inf
        gain[~np.isfinite(gain)] = -np.inf
        j = int(np.argmax(gain))
        g = float(gain[j])
        t2 = g / ((rss - g) / dfr)
        if math.log(2.0) + stats.t.logsf(math.sqrt(t2), dfr) > log_thr:
            break
        chosen.append(j)
        v = x[:, j].copy()
        for _ in range(2):  # twice is enough
            v -= basis @ (basis.T @ v)
        q = v / np.linalg.norm(v)
        basis = np.column_stack([basis, q])
        xq = q @ x                        # the step's one pass
        qr = float(q @ r)
        r = r - q * qr
        u -= xq * qr                      # X'r_new = X'r - (X'q)(q'r)
        d2 -= xq * xq
        rss = float(r @ r)
    return chosen


def forward_bonferroni_plain(y: np.ndarray, x: np.ndarray, alpha: float = 0.05) -> list[int]:
    """The same search written plainly: each step one GEMM ``[r, q]'X`` (X'r afresh, X'q for
    the norms).  Same selections as :func:`forward_bonferroni`; OpenBLAS runs the 2-row GEMM
    at about twice the time of a GEMV, so this peer is slower (shown for reference)."""
    n, m = x.shape
    log_thr = math.log(alpha / m)
    q = np.full(n, 1.0 / math.sqrt(n))
    basis = q[:, None]
    r = y - y.mean()
    d2 = np.einsum("ij,ij->j", x, x)
    chosen: list[int] = []
    while True:
        g2 = np.stack([r, q]) @ x
        u = g2[0]
        d2 -= g2[1] * g2[1]
        dfr = n - basis.shape[1] - 1
        if dfr < 1 or len(chosen) >= m:
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = u * u / d2
        gain[chosen] = -np.inf
        gain[~np.isfinite(gain)] = -np.inf
        j = int(np.argmax(gain))
        g = float(gain[j])
        rss = float(r @ r)
        t2 = g / ((rss - g) / dfr)
        if math.log(2.0) + stats.t.logsf(math.sqrt(t2), dfr) > log_thr:
            break
        chosen.append(j)
        v = x[:, j].copy()
        for _ in range(2):
            v -= basis @ (basis.T @ v)
        q = v / np.linalg.norm(v)
        basis = np.column_stack([basis, q])
        r = r - q * float(q @ r)
    return chosen


# --------------------------------------------------------------------------------------
# streamreg settings
# --------------------------------------------------------------------------------------


class FlatSpending(AlphaSpending):
    """Alpha-spending at the flat level ``alpha / horizon`` for tests 1..horizon.

    The same decisions as ``AlphaSpending(alpha, gammai=np.full(horizon, 1 / horizon))``,
    without storing the sequence as a tuple of ``horizon`` Python floats.
    """

    def __init__(self, alpha: float = 0.05, horizon: int = 1):
        super().__init__(alpha=alpha)
        self.horizon = int(horizon)
        h = self.horizon
        self._gamma = lambda idx: np.where(np.asarray(idx) <= h, 1.0 / h, 0.0)

    def parameters(self) -> dict:
        return {"alpha": self.alpha, "horizon": self.horizon}


class TwoLevelSpending(AlphaSpending):
    """Level ``a1 / m`` for tests 1..m and ``a2 / m`` for tests m+1..2m (``alpha = a1 + a2``).

    With ``PassesStream(stream, 2)`` over a stream of m candidates, tests 1..m are pass 1
    and the rest pass 2, so this reproduces the two-call setting with the built-in passes.
    """

    def __init__(self, a1: float = 0.3, a2: float = 0.05, m: int = 1):
        super().__init__(alpha=a1 + a2)
        self.a1, self.a2, self.m = a1, a2, int(m)
        g1, g2, mm = a1 / (a1 + a2) / m, a2 / (a1 + a2) / m, self.m
        self._gamma = lambda idx: np.where(np.asarray(idx) <= mm, g1, np.where(np.asarray(idx) <= 2 * mm, g2, 0.0))

    def parameters(self) -> dict:
        return {"a1": self.a1, "a2": self.a2, "m": self.m}


def _indices(fit) -> list[int]:
    return [int(t[1:]) for t in fit.selected_terms]  # select() names array columns x0..x{m-1}


def one_pass(y, x, family="gaussian", **kw):
    fit = sr.select(y, x, family=family, block_size=4096, history="none", **kw)
    return _indices(fit), [fit]


def two_pass(y, x, policies, family="gaussian"):
    """Pass 1 over all candidates; pass 2 re-tests them given pass 1's selections.

    ``policies`` is a pair of zero-argument callables building each pass's method.  When
    pass 1 selects nothing the model is unchanged, so pass 2 (at a lower level) could not
    select anything either and is skipped.
    """
    fit = sr.select(y, x, family=family, method=policies[0](), block_size=4096, history="none")
    keep = _indices(fit)
    if not keep:
        return keep, [fit]
    fit2 = sr.select(y, x, fixed=x[:, keep], family=family, method=policies[1](), block_size=4096,
                     history="none")
    return keep + _indices(fit2), [fit, fit2]


def builtin_passes(y, x, policy):
    """``passes=2`` as ``streamreg()`` runs it: a PassesStream over the matrix (select() has no
    ``passes=``; PassesStream copies each rejected column in a Python loop)."""
    from streamreg.streams.arrays import MatrixStream
    from streamreg.streams.base import NameRange
    from streamreg.streams.passes import PassesStream

    stream = PassesStream(MatrixStream("x", x, NameRange("x", 0, x.shape[1])), 2)
    fit = sr.select(y, stream, method=policy, block_size=4096, history="none")
    return _indices(fit), [fit]


def peer_row(peer):
    return lambda y, x: (peer(y, x), [])


def linear_settings(m: int, a1: float, a2: float, single: float, with_gammai: bool, with_passes: bool):
    flat = None

    def gammai():
        nonlocal flat
        if flat is None:
            flat = np.full(m, 1.0 / m)
        return flat

    rows = [
        ("numpy forward-Bonferroni, plain ([r, q]'X per step)", peer_row(forward_bonferroni_plain)),
        ("alpha-investing 0.5/0.5 (default), 1 pass", lambda y, x: one_pass(y, x)),
        ("alpha-investing 0.05/0.05, 1 pass", lambda y, x: one_pass(y, x, w0=0.05, alpha_delta=0.05)),
        ("foster-stine (default 0.0475/0.05), 1 pass", lambda y, x: one_pass(y, x, method="foster-stine")),
        ("lord++ alpha=0.5, 1 pass", lambda y, x: one_pass(y, x, method="lord++", alpha=0.5)),
        (f"alpha-spending flat {single}/m, 1 pass",
         lambda y, x: one_pass(y, x, method=FlatSpending(single, m))),
        ("ric (flat llr > 2 log m), 2 passes", lambda y, x: two_pass(y, x, (lambda: "ric", lambda: "ric"))),
        (f"RECOMMENDED alpha-spending flat {a1}/m then {a2}/m, 2 passes (flat)",
         lambda y, x: two_pass(y, x, (lambda: FlatSpending(a1, m), lambda: FlatSpending(a2, m)))),
    ]
    if with_gammai:
        rows.append((f"RECOMMENDED alpha-spending flat {a1}/m then {a2}/m, 2 passes (gammai)",
                     lambda y, x: two_pass(y, x, (lambda: AlphaSpending(a1, gammai=gammai()),
                                                  lambda: AlphaSpending(a2, gammai=gammai())))))
    if with_passes:
        rows.append((f"RECOMMENDED alpha-spending flat {a1}/m then {a2}/m, PassesStream(2) (passes)",
                     lambda y, x: builtin_passes(y, x, TwoLevelSpending(a1, a2, m))))
    return rows


def logistic_settings(m: int, a1: float, a2: float, single: float):
    return [
        ("alpha-investing 0.5/0.5 (default), 1 pass", lambda y, x: one_pass(y, x, "binomial")),
        ("alpha-investing 0.05/0.05, 1 pass",
         lambda y, x: one_pass(y, x, "binomial", w0=0.05, alpha_delta=0.05)),
        (f"RECOMMENDED alpha-spending flat {single}/m, 1 pass",
         lambda y, x: one_pass(y, x, "binomial", method=FlatSpending(single, m))),
        (f"alpha-spending flat {a1}/m then {a2}/m, 2 passes (flat)",
         lambda y, x: two_pass(y, x, (lambda: FlatSpending(a1, m), lambda: FlatSpending(a2, m)), "binomial")),
    ]


# --------------------------------------------------------------------------------------
# running and tabulating
# --------------------------------------------------------------------------------------


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def floor_time(y, x) -> float:
    """Best of 3: the one-pass floor ``X'r``."""
    r = y - y.mean()
    return min(timed(np.dot, r, x)[0] for _ in range(3))


def run_problem(make, peer_name, peer, settings, seeds, floor=True):
    """Per-seed rows (method, seed, seconds, TP, FP, peer seconds) for every setting."""
    rows, guarantees = [], {}
    for seed in seeds:
        y, x, truth = make(seed)
        floor_s = floor_time(y, x) if floor else None
        peer_s, chosen = timed(peer, y, x)
        rec = {"seed": seed, "peer s": peer_s, "floor s": floor_s}
        rows.append({**rec, "method": peer_name, "seconds": peer_s,
                     "TP": len(truth & set(chosen)), "FP": len(set(chosen) - truth), "chosen": tuple(sorted(chosen))})
        for name, fn in settings:
            secs, (chosen, fits) = timed(fn, y, x)
            if fits and len(guarantees.get(name, ())) < len(fits):
                guarantees[name] = [f.guarantee() for f in fits]
            rows.append({**rec, "method": name, "seconds": secs, "TP": len(truth & set(chosen)),
                         "FP": len(set(chosen) - truth), "chosen": tuple(sorted(chosen))})
        x = None  # free the 800 MB before the next data set is drawn
    return pd.DataFrame(rows), guarantees


def summarise(df: pd.DataFrame, peer_name: str) -> pd.DataFrame:
    df = df.assign(ratio=df["seconds"] / df["peer s"])
    order = list(dict.fromkeys(df["method"]))
    out = df.groupby("method", sort=False).agg(
        seconds=("seconds", "median"),
        x_peer=("ratio", "median"),
        TP4=("TP", lambda s: float(np.mean(s == 4))),
        mean_TP=("TP", "mean"),
        mean_FP=("FP", "mean"),
        any_FP=("FP", lambda s: float(np.mean(s >= 1))),
        median_FP=("FP", "median"),
        max_FP=("FP", "max"),
    ).loc[order]
    if df["floor s"].notna().any():
        fl = df.assign(xf=df["seconds"] / df["floor s"]).groupby("method", sort=False)["xf"].median()
        out.insert(2, "x floor", fl.loc[order])
    out = out.rename(columns={"x_peer": "x peer", "TP4": "frac TP=4", "mean_TP": "mean TP",
                              "mean_FP": "mean FP", "any_FP": "frac FP>=1", "median_FP": "median FP", "max_FP": "max FP"})
    out.index.name = f"method (peer: {peer_name})"
    return out.reset_index()


def abess_logistic(y, x):
    from abess.linear import LogisticRegression as AbessLogit

    model = AbessLogit(support_size=range(0, 21)).fit(x, y)
    return [int(j) for j in np.flatnonzero(model.coef_)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per m (default 20; 3 with --quick)")
    ap.add_argument("--ms", default=None, help="comma-separated m values (default 100000,1000000)")
    ap.add_argument("--logistic-seeds", type=int, default=None)
    ap.add_argument("--logistic-m", type=int, default=None)
    ap.add_argument("--a1", type=float, default=0.3, help="pass-1 level budget of the recommended setting")
    ap.add_argument("--a2", type=float, default=0.05, help="pass-2 level budget of the recommended setting")
    ap.add_argument("--single", type=float, default=0.35,
                    help="budget of the one-pass flat rows (recommended for the logistic problem)")
    ap.add_argument("--no-gammai", action="store_true", help="skip the built-in gammai rows (slow at 1e6)")
    ap.add_argument("--passes-max-m", type=int, default=100_000,
                    help="largest m for the built-in PassesStream row (about 9 s per run at 1e6)")
    ap.add_argument("--skip-linear", action="store_true")
    ap.add_argument("--skip-logistic", action="store_true")
    args = ap.parse_args()
    seeds = args.seeds if args.seeds is not None else (3 if args.quick else 20)
    ms = [int(float(v)) for v in args.ms.split(",")] if args.ms else ([10_000, 100_000] if args.quick
                                                                       else [100_000, 1_000_000])
    lseeds = args.logistic_seeds if args.logistic_seeds is not None else seeds
    lm = args.logistic_m or (2_000 if args.quick else 10_000)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 80)
    pd.set_option("display.float_format", lambda v: f"{v:.3g}")
    t_all = time.perf_counter()

    if not args.skip_linear:
        for m in ms:
            print(f"\n== linear: n = {N_LINEAR}, m = {m:,}, 4 true (coef 1), noise sd 0.1; seeds 0..{seeds - 1} ==")
            peer_name = "numpy forward-Bonferroni 0.05/m"
            settings = linear_settings(m, args.a1, args.a2, args.single, not args.no_gammai,
                                       m <= args.passes_max_m)
            df, guar = run_problem(lambda s, m=m: synthetic(m, s), peer_name, forward_bonferroni, settings,
                                   range(seeds))
            print(summarise(df, "numpy forward-Bonferroni").to_string(index=False))
            print(misses(df, peer_name))
            same = _same_decisions(df)
            if same is not None:
                print(f"the RECOMMENDED rows (same rule, different plumbing) made the same selections on every "
                      f"seed: {same}")
            rec = next(k for k in guar if k.startswith("RECOMMENDED"))
            print("fit.guarantee() of the recommended setting's passes:")
            for i, text in enumerate(guar[rec]):
                print(f"  pass {i + 1}: {text}")
            print(f"  both passes: E[V] <= P(V >= 1) <= {args.a1} + {args.a2} = {args.a1 + args.a2:g} "
                  "(union bound over every test of both passes)")

    if not args.skip_logistic:
        print(f"\n== logistic: n = 200, m = {lm:,}, 4 true (coef 1); seeds 0..{lseeds - 1} ==")
        settings = logistic_settings(lm, args.a1, args.a2, args.single)
        df, guar = run_problem(lambda s: logistic_data(lm, s), "abess logistic (support 0..20)",
                               abess_logistic, settings, range(lseeds))
        print(summarise(df, "abess").to_string(index=False))
        print(misses(df, "abess logistic (support 0..20)"))
    print(f"\n(total {time.perf_counter() - t_all:.0f} s)")


def misses(df: pd.DataFrame, peer_name: str) -> str:
    """Seeds on which the peer and the first RECOMMENDED row found fewer than 4 true features."""
    out = []
    for name in [peer_name] + [m for m in dict.fromkeys(df["method"]) if m.startswith("RECOMMENDED")][:1]:
        sub = df[(df["method"] == name) & (df["TP"] < 4)]
        out.append(f"{name}: {list(zip(sub['seed'], sub['TP']))}")
    return "seeds with TP < 4 as (seed, TP) -- " + "; ".join(out)


def _same_decisions(df: pd.DataFrame):
    """Whether every RECOMMENDED variant selected the same columns on every seed."""
    rec = df[df["method"].str.startswith("RECOMMENDED")]
    variants = list(dict.fromkeys(rec["method"]))
    if len(variants) < 2:
        return None
    first = list(rec.loc[rec["method"] == variants[0], "chosen"])
    return all(list(rec.loc[rec["method"] == v, "chosen"]) == first for v in variants[1:])


if __name__ == "__main__":
    main()
