"""Selection quality (power, FDR, model size, time) of streamreg settings against peers.

Problems A, B, C, D, P, F are defined in ``bench/power_problems.py``.  For every seed the
problem's data are generated once and every method runs on the same data.  Per (problem,
method) over the seeds: power (mean TP / |true|), FDR (mean V / max(R, 1)) and mean model
size R, each +- its standard error (sd / sqrt(runs)), median seconds per fit (the fit alone:
not the data generation) and the number of failed fits (an exception in one seed is
recorded, not fatal; failed seeds are left out of the means).

streamreg settings are keyword arguments for ``sr.select(y, X, family=...)`` (problem F:
``sr.streamreg("y ~ stream(f*) + stream(x*)", df, family="binomial")``, factors being
single multi-column candidate terms).  A setting's value may be the string ``"flat2m"`` or
``"flatm"`` (``np.full(h, 1/h)`` with h = 2m or m, m the problem's number of candidates:
columns, or terms for F) or any callable of m.

Peers (``--methods``):

* ``abess``      abess.{Linear,Logistic,Poisson}Regression(support_size=range(0, min(n // 2, 50)))
                 with its default information criterion (ic_type="ebic"); selected = nonzero coef.
* ``knockoff``   knockoff+ (knockpy.KnockoffFilter(ksampler="gaussian", fstat="lasso"),
                 Sigma estimated (Ledoit-Wolf), fdr q = --fdr); Gaussian and binomial
                 problems, not D (size) nor P.
* ``stepwise-ric`` sr.select(..., method="stepwise-ric") (forward stepwise, threshold 2 log m).
* ``lassocv``    standardised X; LassoCV(cv=5) (Gaussian) or LogisticRegressionCV(penalty="l1",
                 solver="liblinear", cv=5, Cs=20) (binomial); not P (no L1 Poisson in sklearn).

For F peers see the one-hot (drop-first) design; a factor counts as selected if any of its
dummy columns is.

Usage::

    python bench/bench_power.py --problems A,B,C --seeds 3
    python bench/bench_power.py --settings "papers 0.5/0.5" \
        --extra 'LORD++ uniform={"method": "lord++", "alpha": 0.1, "w0": 0.1, "gammai": "flat2m", "passes": 2}' \
        --methods abess --out bench/results/bench_power.txt
    python bench/bench_power.py --problems D --skip lassocv:D     # LassoCV is slow on D's 100,000 columns

Options: --problems, --seeds (default 50, D 30), --seed-start, --methods (peers or 'none'),
--settings (names from SETTINGS, ','- or ';'-separated, or 'none'), --extra (repeatable),
--skip method:problem,..., --formula, --fdr, --knockoff-method, --out, --quiet.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import ast  # noqa: E402
import datetime  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import power_problems as pp  # noqa: E402

import streamreg as sr  # noqa: E402

# ----------------------------------------------------------------------------------------
# streamreg settings

FLAT2M, FLATM = "flat2m", "flatm"

SETTINGS: dict[str, dict[str, Any]] = {
    "default": dict(),  # the package's default rule (streamreg.config.DEFAULT_*)
    "papers 0.5/0.5": dict(method="alpha-investing", w0=0.5, alpha_delta=0.5),
    "AI 0.05": dict(method="alpha-investing", w0=0.05, alpha_delta=0.05),
    "LORD++ flat 2 passes": dict(method="lord++", alpha=0.1, w0=0.1, gammai=FLAT2M, passes=2),
}

DEFAULT_SEEDS = {"A": 50, "B": 50, "C": 50, "D": 30, "P": 50, "F": 50}

F_FORMULA = "y ~ stream(f*) + stream(x*)"


def resolve(options: dict[str, Any], m: int) -> dict[str, Any]:
    """Replace the ``"flat2m"`` / ``"flatm"`` sentinels and callables of m by their values."""
    out = {}
    for k, v in options.items():
        if isinstance(v, str) and v in (FLAT2M, FLATM):
            h = 2 * m if v == FLAT2M else m
            v = np.full(h, 1.0 / h)
        elif callable(v):
            v = v(m)
        out[k] = v
    return out


@dataclass
class Prob:
    key: str
    seed: int
    m: int
    true_idx: np.ndarray
    cache: dict = field(default_factory=dict)

    def dummies(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        if "dummies" not in self.cache:
            self.cache["dummies"] = pp.dummies(X)
        return self.cache["dummies"]


def _column_index(name: str) -> int:
    if not name.startswith("x"):
        raise ValueError(f"unexpected term name {name!r}")
    return int(name[1:])


def streamreg_method(options: dict[str, Any], formula: bool = False) -> Callable:
    def run(X, y, family, prob: Prob) -> list[int]:
        kw = resolve(options, prob.m)
        if prob.key == "F":
            fit = sr.streamreg(F_FORMULA, X.assign(y=y), family=family, **kw)
            return [pp.term_index(t) for t in fit.selected_terms]
        if formula:
            df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], copy=False)
            df["y"] = y
            fit = sr.streamreg("y ~ stream(x*)", df, family=family, **kw)
        else:
            fit = sr.select(y, X, family=family, **kw)
        return [_column_index(t) for t in fit.selected_terms]
    return run


# ----------------------------------------------------------------------------------------
# peers


def _design(X, prob: Prob) -> tuple[np.ndarray, np.ndarray | None]:
    """Numeric design and, for F, the term of each column."""
    if prob.key == "F":
        return prob.dummies(X)
    return X, None


def _to_terms(cols: np.ndarray, col_term: np.ndarray | None) -> list[int]:
    cols = np.asarray(cols, dtype=int)
    if col_term is None:
        return cols.tolist()
    return sorted(set(col_term[cols].tolist()))


def peer_abess(X, y, family, prob: Prob) -> list[int]:
    import abess
    Xd, col_term = _design(X, prob)
    cls = {"gaussian": abess.LinearRegression, "binomial": abess.LogisticRegression,
           "poisson": abess.PoissonRegression}[family]
    n = Xd.shape[0]
    model = cls(support_size=range(0, min(n // 2, 50)))
    model.fit(Xd, y)
    return _to_terms(np.flatnonzero(np.ravel(model.coef_)), col_term)


KNOCKOFF_FDR = 0.1
KNOCKOFF_KWARGS: dict[str, Any] = {}


def peer_knockoff(X, y, family, prob: Prob) -> list[int]:
    import knockpy
    Xd, col_term = _design(X, prob)
    np.random.seed(prob.seed)          # knockpy draws the knockoffs from the global state
    kf = knockpy.KnockoffFilter(ksampler="gaussian", fstat="lasso")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rej = kf.forward(X=Xd, y=y, fdr=KNOCKOFF_FDR, knockoff_kwargs=dict(KNOCKOFF_KWARGS))
    return _to_terms(np.flatnonzero(np.ravel(rej)), col_term)


def peer_stepwise_ric(X, y, family, prob: Prob) -> list[int]:
    if prob.key == "F":
        fit = sr.streamreg(F_FORMULA, X.assign(y=y), family=family, method="stepwise-ric")
        return [pp.term_index(t) for t in fit.selected_terms]
    fit = sr.select(y, X, family=family, method="stepwise-ric")
    return [_column_index(t) for t in fit.selected_terms]


def peer_lassocv(X, y, family, prob: Prob) -> list[int]:
    from sklearn.linear_model import LassoCV, LogisticRegressionCV
    from sklearn.preprocessing import StandardScaler
    Xd, col_term = _design(X, prob)
    Xs = StandardScaler().fit_transform(Xd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if family == "gaussian":
            model = LassoCV(cv=5).fit(Xs, y)
        elif family == "binomial":
            model = LogisticRegressionCV(penalty="l1", solver="liblinear", cv=5, Cs=20).fit(Xs, y)
        else:
            raise ValueError(f"lassocv: no {family}")
    return _to_terms(np.flatnonzero(np.ravel(model.coef_)), col_term)


PEERS: dict[str, Callable] = {
    "abess": peer_abess,
    "knockoff": peer_knockoff,
    "stepwise-ric": peer_stepwise_ric,
    "lassocv": peer_lassocv,
}

#: (peer, problem) pairs not run (too big / no such model); shown as "skipped"
SKIP = {("knockoff", "D"), ("knockoff", "P"), ("lassocv", "P")}


# ----------------------------------------------------------------------------------------
# harness


@dataclass
class Record:
    power: list = field(default_factory=list)
    fdr: list = field(default_factory=list)
    size: list = field(default_factory=list)
    secs: list = field(default_factory=list)
    fails: int = 0
    error: str = ""
    skipped: bool = False


def score(selected: list[int], true_idx: np.ndarray) -> tuple[float, float, int]:
    sel = set(int(s) for s in selected)
    tru = set(int(t) for t in true_idx)
    r = len(sel)
    tp = len(sel & tru)
    return tp / len(tru), (r - tp) / max(r, 1), r


def _mse(v: list) -> str:
    if not v:
        return "-"
    a = np.asarray(v, dtype=float)
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():.3f} ({se:.3f})"


def _msize(v: list) -> str:
    if not v:
        return "-"
    a = np.asarray(v, dtype=float)
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():.2f} ({se:.2f})"


def table(key: str, n_seeds: int, records: dict[str, Record], seeds_desc: str) -> str:
    doc = {"A": "n 100, m 1,000 iid, 4 true beta 1, sd 0.1, gaussian",
           "B": "n 200, m 2,000 AR(1) rho 0.5, 20 true beta +-U(.5,1)*.5, sd 1, gaussian",
           "C": "n 400, m 1,000 iid, 10 true beta +-1, binomial",
           "D": "n 200, m 100,000 iid, 10 true beta +-1, sd 1, gaussian",
           "P": "n 400, m 1,500 iid, 6 true beta +-0.25, poisson (log mean 1 + X beta)",
           "F": "n 400 binomial, 20 factors (3-5 levels) + 300 numeric, 2 factors + 5 numeric true (+-0.8); terms"}
    head = ["method", "power (se)", "FDR (se)", "size (se)", "median s", "runs", "fails"]
    rows = []
    for name, rec in records.items():
        if rec.skipped:
            rows.append([name, "skipped", "", "", "", "", ""])
            continue
        med = f"{np.median(rec.secs):.3f}" if rec.secs else "-"
        rows.append([name, _mse(rec.power), _mse(rec.fdr), _msize(rec.size), med,
                     str(len(rec.power)), str(rec.fails)])
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    lines = [f"Problem {key}: {doc.get(key, '')}; {seeds_desc}", fmt(head), fmt(["-" * w for w in widths])]
    lines += [fmt(r) for r in rows]
    errs = [f"  {name}: {rec.fails} failure(s), last: {rec.error}" for name, rec in records.items() if rec.fails]
    return "\n".join(lines + errs) + "\n"


def parse_extra(items: list[str]) -> dict[str, dict[str, Any]]:
    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"--extra {item!r}: expected 'name=python-dict-literal'")
        name, lit = item.split("=", 1)
        try:
            opts = ast.literal_eval(lit.strip())
        except (ValueError, SyntaxError) as e:
            raise SystemExit(f"--extra {item!r}: cannot parse the dict literal: {e}") from None
        if not isinstance(opts, dict):
            raise SystemExit(f"--extra {item!r}: not a dict")
        out[name.strip()] = opts
    return out


def _split(s: str | None) -> list[str]:
    if s is None:
        return []
    if s.strip().lower() in ("", "none"):
        return []
    return [t.strip() for t in s.split(",") if t.strip()]


def _git_rev() -> str:
    try:
        root = Path(__file__).resolve().parent.parent
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "streamreg"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + (" (streamreg/ modified)" if dirty else "")
    except Exception:  # noqa: BLE001
        return "?"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", default="A,B,C,D,P,F", help="comma list of A,B,C,D,P,F")
    ap.add_argument("--seeds", type=int, default=None,
                    help="seeds per problem (default 50; D 30)")
    ap.add_argument("--seed-start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--methods", default=",".join(PEERS),
                    help=f"peers, comma list of {','.join(PEERS)} or 'none'")
    ap.add_argument("--settings", default=None,
                    help="streamreg settings, ';'- or ','-separated names from: "
                         + "; ".join(SETTINGS) + " (default all; 'none' for none)")
    ap.add_argument("--extra", action="append", default=[],
                    help="extra streamreg setting 'name={\"method\": ..., ...}' (a Python dict "
                         "literal of sr.select keyword arguments; \"flat2m\"/\"flatm\" give a flat "
                         "gammai over 2m / m tests); repeatable; always run")
    ap.add_argument("--formula", action="store_true",
                    help="run streamreg settings through sr.streamreg('y ~ stream(x*)', DataFrame) "
                         "instead of sr.select (F always uses the formula)")
    ap.add_argument("--fdr", type=float, default=0.1, help="knockoff+ target FDR (default 0.1)")
    ap.add_argument("--knockoff-method", default=None,
                    help="knockpy S-matrix method (default knockpy's: mvr); e.g. equicorrelated, sdp")
    ap.add_argument("--skip", default="",
                    help="extra method:problem pairs not to run, e.g. 'knockoff:A,lassocv:D' "
                         "(knockoff+ can select nothing on A: 4 signals < 1/q)")
    ap.add_argument("--out", default=None, help="also write the printed output to this file")
    ap.add_argument("--quiet", action="store_true", help="no per-seed progress on stderr")
    args = ap.parse_args(argv)

    global KNOCKOFF_FDR
    KNOCKOFF_FDR = args.fdr
    if args.knockoff_method:
        KNOCKOFF_KWARGS["method"] = args.knockoff_method

    for pair in _split(args.skip):
        if ":" not in pair:
            raise SystemExit(f"--skip {pair!r}: expected method:problem")
        meth, prob_key = pair.rsplit(":", 1)
        SKIP.add((meth.strip(), prob_key.strip().upper()))

    problems = [p.upper() for p in _split(args.problems)]
    for p in problems:
        if p not in pp.PROBLEMS:
            raise SystemExit(f"unknown problem {p!r}; choose from {','.join(pp.PROBLEMS)}")
    if args.settings is None:
        set_names = list(SETTINGS)
    else:
        sep = ";" if ";" in args.settings else ","
        set_names = [] if args.settings.strip().lower() in ("", "none") else \
            [s.strip() for s in args.settings.split(sep) if s.strip()]
        for s in set_names:
            if s not in SETTINGS:
                raise SystemExit(f"unknown setting {s!r}; known: {list(SETTINGS)} (or use --extra)")
    settings = {s: SETTINGS[s] for s in set_names}
    settings.update(parse_extra(args.extra))
    peers = _split(args.methods)
    for p in peers:
        if p not in PEERS:
            raise SystemExit(f"unknown method {p!r}; choose from {','.join(PEERS)}")

    methods: dict[str, Callable] = {f"sr: {k}": streamreg_method(v, args.formula) for k, v in settings.items()}
    methods.update({k: PEERS[k] for k in peers})

    cmd = shlex.join([Path(sys.executable).name] + sys.argv) if argv is None else shlex.join(argv)
    header = [
        f"# {cmd}",
        f"# date {datetime.datetime.now().isoformat(timespec='seconds')}, streamreg "
        f"{getattr(sr, '__version__', '?')} at git {_git_rev()}, numpy {np.__version__}, "
        f"threads 1",
        "# streamreg settings (sr.select keyword arguments; F: sr.streamreg(" + repr(F_FORMULA) + ")"
        + (", --formula: sr.streamreg('y ~ stream(x*)')" if args.formula else "") + "):",
    ]
    header += [f"#   {k}: {v!r}" for k, v in settings.items()]
    header += ["# abess: support_size=range(0, min(n // 2, 50)), ic_type ebic (default); "
               f"knockoff+: knockpy gaussian/lasso, q={KNOCKOFF_FDR}, "
               f"S method {KNOCKOFF_KWARGS.get('method', 'default (mvr)')}; "
               "lassocv: standardised, LassoCV(cv=5) / LogisticRegressionCV(l1, liblinear, cv=5, Cs=20)",
               "# power = TP/|true|, FDR = V/max(R,1), size = R: means over seeds (se = sd/sqrt(runs)); "
               "median s = median seconds per fit", ""]
    output: list[str] = ["\n".join(header)]
    print(output[0], flush=True)

    def flush_out():
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text("\n".join(output))

    flush_out()
    t_all = time.perf_counter()
    for key in problems:
        n_seeds = args.seeds if args.seeds is not None else DEFAULT_SEEDS[key]
        seeds = range(args.seed_start, args.seed_start + n_seeds)
        records = {name: Record() for name in methods}
        for name in methods:
            if (name, key) in SKIP:
                records[name].skipped = True
        t_prob = time.perf_counter()
        for seed in seeds:
            X, y, true_idx, family = pp.PROBLEMS[key](seed)
            prob = Prob(key, seed, pp.n_candidates(key, X), np.asarray(true_idx))
            for name, fn in methods.items():
                rec = records[name]
                if rec.skipped:
                    continue
                t0 = time.perf_counter()
                try:
                    sel = fn(X, y, family, prob)
                except Exception as e:  # noqa: BLE001
                    rec.fails += 1
                    rec.error = f"seed {seed}: {type(e).__name__}: {e}".replace("\n", " ")[:300]
                    if not args.quiet:
                        traceback.print_exc(limit=3, file=sys.stderr)
                    continue
                dt = time.perf_counter() - t0
                pw, fd, r = score(sel, prob.true_idx)
                rec.power.append(pw)
                rec.fdr.append(fd)
                rec.size.append(r)
                rec.secs.append(dt)
                if not args.quiet:
                    print(f"  [{key} seed {seed}] {name}: power {pw:.2f} FDR {fd:.2f} size {r} "
                          f"{dt:.2f}s", file=sys.stderr, flush=True)
            del X, y
        tab = table(key, n_seeds, records,
                    f"seeds {seeds.start}..{seeds.stop - 1}; {time.perf_counter() - t_prob:.0f} s")
        print(tab, flush=True)
        output.append(tab)
        flush_out()
    tail = f"# total {time.perf_counter() - t_all:.0f} s\n"
    print(tail, flush=True)
    output.append(tail)
    flush_out()


if __name__ == "__main__":
    main()
