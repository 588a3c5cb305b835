"""Real binary-classification data: 5-fold CV model size and held-out misclassification.

Methods (all on the same folds, ``StratifiedKFold(folds, shuffle=True, random_state=seed)``):

* ``default``: ``sr.select(y, X, family="binomial")`` with no method argument -- the package
  default (``streamreg.config.DEFAULT_METHOD`` / ``DEFAULT_RULE_OPTIONS`` / ``DEFAULT_PASSES``,
  printed at the top of the output);
* ``alpha-investing``: ``method="alpha-investing"``, the papers' rule (w0 = alpha_delta = 0.5,
  one pass);
* ``abess``: ``abess.LogisticRegression()`` with its default tuning (path "seq", support sizes
  0 .. floor(n / (log log n * log p)) - 1, special information criterion ``ebic``, internal
  normalisation); abess refuses constant columns, so the columns constant on the training fold
  are dropped for abess only;
* ``l1cv``: scikit-learn ``LogisticRegressionCV(penalty="l1", solver=liblinear (default) or saga,
  Cs=20, cv=5, max_iter=100)`` (scikit-learn's default max_iter; 1000 made liblinear slow on
  wdbc and ionosphere at the largest C values) on X standardised by a ``StandardScaler`` fit on the training fold only
  (constant columns get scale 1, i.e. stay 0); model size = non-zero coefficients;
* any ``--extra 'name={...}'``: ``sr.select(y, X, family="binomial", **{...})``.

streamreg gets the raw training columns as an ndarray (its tests are invariant to column scale;
constant columns are skipped by streamreg itself).  Predictions: ``res.predict(DataFrame of the
selected columns, named "x<j>")``; the other methods' ``predict_proba``.  Error = mean of
``(p > 0.5) != y`` on the held-out fold (a NaN prediction counts as an error and is reported).
Reported per method: mean error +- SE over folds (sd / sqrt(folds)), mean model size +- SE,
median fit seconds (the fit only, not prediction), and for the streamreg rows the tests run,
the refused / skipped candidates, and the warnings raised.

Verdict per data set: the default's mean error is "within one SE of the best" when it is at
most (lowest mean error) + (SE of that best method); and whether its mean size is <= L1-CV's.

Each fit runs in a forked child process, so ``--time-limit`` is a hard limit (C code such as
abess and liblinear cannot be interrupted by a signal): a fit that exceeds it is killed; when
that happens on the first fold the method-data set pair is skipped (reported), on a later fold
the pair keeps the folds it finished (reported).

Data (``streamreg.datasets.load``; the fetched NIPS 2003 sets are read from the project's
shared data folder via ``STREAMREG_DATA_URL`` unless set, cached in ``$STREAMREG_DATA`` or
``streamreg_bench_data`` in the system's temporary folder): y = the class label coded 0/1 as ``Dataset.y`` codes it.
wdbc 569 x 30 (y=1 malignant), ionosphere 351 x 34 (y=1 bad; column 1 constant), spect
267 x 22 (train 80 + test 187 pooled; y=1 abnormal), and the NIPS 2003 *training* splits:
madelon 2000 x 500, arcene 100 x 10000, dexter 300 x 20000 (sparse, densified).  gisette: the
first 1000 training rows (1000 x 5000) when gisette_train.data is available, otherwise -- as in
the project's shared data, which lacks that file -- the 1000 x 5000 *validation* rows, said so
in the output.

Usage: python bench/bench_realdata.py [--datasets a,b] [--folds 5] [--seed 0]
       [--methods default,alpha-investing,abess,l1cv] [--extra 'name={"w0": 0.1}' ...]
       [--time-limit 120] [--l1-solver liblinear|saga] [--out FILE]
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before numpy: 2 shared cores
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

# the papers' data sets beside the repository (../shared/data, see its SOURCES.md), cached in the
# system's temporary folder; both can be set from outside
os.environ.setdefault("STREAMREG_DATA_URL", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
os.environ.setdefault("STREAMREG_DATA", str(Path(tempfile.gettempdir()) / "streamreg_bench_data"))

import argparse
import ast
import datetime
import math
import multiprocessing as mp
import platform
import re
import shlex
import subprocess
import sys
import time
import traceback
import warnings
from collections import Counter

import numpy as np
import pandas as pd

import streamreg as sr
from streamreg import config as sr_options

ALL_SETS = ("wdbc", "ionosphere", "spect", "madelon", "arcene", "gisette", "dexter")
BASE_METHODS = ("default", "alpha-investing", "abess", "l1cv")
LABELS = {"default": "streamreg default", "alpha-investing": "alpha-inv. 0.5/0.5 (papers)",
          "abess": "abess (default tuning)", "l1cv": "L1-logistic CV"}
_XNAME = re.compile(r"^x(\d+)$")

# ------------------------------------------------------------------------------ data


def load(name: str):
    """(X dense float ndarray, y 0/1 floats, note)."""
    ds = sr.datasets.load(name)
    x, y = ds.arrays()
    split = ds.meta["split"].to_numpy() if ds.meta is not None and "split" in ds.meta else None
    notes = {"wdbc": "y=1: malignant; ID dropped", "ionosphere": "y=1: bad ('b'); column x1 is constant",
             "spect": "y=1: abnormal; train (80) + test (187) pooled", "madelon": "training split",
             "arcene": "training split", "dexter": "training split, sparse -> dense"}
    if name in ("madelon", "arcene", "dexter"):
        rows = np.flatnonzero(split == "train")
        x, y = x[rows], y[rows]
        note = notes[name]
    elif name == "gisette":
        train = np.flatnonzero(split == "train")
        if len(train):
            rows, note = train[:1000], "first 1000 rows of the training split"
        else:
            rows = np.flatnonzero(split == "valid")
            note = ("gisette_train.data is missing from the shared data (SOURCES.md), so the 1000 x 5000 "
                    "VALIDATION split is used in place of 'the first 1000 training rows'")
        x, y = x[rows], y[rows]
    else:
        note = notes.get(name, "")
    if hasattr(x, "toarray"):
        x = x.toarray()
    x = np.ascontiguousarray(x, dtype=float)
    if np.isnan(y).any() or np.isnan(x).any():
        raise RuntimeError(f"{name}: missing values")
    return x, y.astype(float), note


# --------------------------------------------------------------------------- methods


def abess_sizes(n: int, p: int) -> str:
    """abess 0.4's default support sizes for path 'seq' (bess_base.py)."""
    top = max(min(p, int(n / (np.log(np.log(n)) * np.log(p)))), 1) if n > 1 and p > 1 else 2
    return f"0..{top - 1}"


def fit_streamreg(xtr, ytr, xte, kw):
    t0 = time.perf_counter()
    res = sr.select(ytr, xtr, family="binomial", **kw)
    sec = time.perf_counter() - t0
    cols = []
    for t in res.selected_terms:
        m = _XNAME.match(t)
        if not m:
            raise RuntimeError(f"unexpected term name {t!r}")
        cols.append(int(m.group(1)))
    new = pd.DataFrame(xte[:, cols], columns=[f"x{j}" for j in cols])
    prob = np.asarray(res.predict(new), dtype=float)
    hist = res.history
    status = hist["status"].astype(str)
    info = {
        "tests": int(len(hist)),
        "passes": int(hist["pass"].max()) if "pass" in hist and len(hist) else 1,
        "refused": int(status.str.startswith("refused").sum()),
        "refused_why": Counter(s.split("(")[0].strip() for s in status if s.startswith("refused")),
        "skipped": Counter(s for s in status if s.startswith("skipped")),
        "refit_warnings": [str(w)[:160] for w in (res.refit_warnings or [])],
        "stopped_by": str(res.stopped_by),
        "policy": str(res.policy_description),
    }
    return prob, len(cols), sec, info


def fit_abess(xtr, ytr, xte, kw):
    import abess
    keep = np.flatnonzero(xtr.std(axis=0) > 0)  # abess refuses constant columns
    t0 = time.perf_counter()
    model = abess.LogisticRegression(**kw).fit(xtr[:, keep], ytr)
    sec = time.perf_counter() - t0
    prob = np.asarray(model.predict_proba(xte[:, keep]), dtype=float)
    if prob.ndim == 2:
        prob = prob[:, -1]
    return prob, int(np.count_nonzero(model.coef_)), sec, {"dropped_constant": xtr.shape[1] - len(keep),
                                                           "sizes": abess_sizes(len(ytr), len(keep))}


def fit_l1cv(xtr, ytr, xte, kw):
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.preprocessing import StandardScaler
    t0 = time.perf_counter()
    scaler = StandardScaler().fit(xtr)
    clf = LogisticRegressionCV(penalty="l1", solver=kw["solver"], Cs=20, cv=5, max_iter=kw["max_iter"],
                               random_state=kw["seed"]).fit(scaler.transform(xtr), ytr)
    sec = time.perf_counter() - t0
    prob = clf.predict_proba(scaler.transform(xte))[:, 1]
    return prob, int(np.count_nonzero(clf.coef_)), sec, {"C": float(clf.C_[0])}


def run_one(kind, kw, xtr, ytr, xte):
    """One fit (in the child): prediction, size, seconds, info, warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if kind == "streamreg":
            out = fit_streamreg(xtr, ytr, xte, kw)
        elif kind == "abess":
            out = fit_abess(xtr, ytr, xte, kw)
        else:
            out = fit_l1cv(xtr, ytr, xte, kw)
    warns = Counter(f"{w.category.__name__}: {str(w.message).splitlines()[0][:140]}" for w in caught
                    if not issubclass(w.category, (FutureWarning, DeprecationWarning)))  # sklearn 1.9 API notices
    return out + (warns,)


def _child(conn, kind, kw, xtr, ytr, xte):
    try:
        conn.send(("ok", run_one(kind, kw, xtr, ytr, xte)))
    except BaseException as exc:  # noqa: BLE001 -- reported
        conn.send(("error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}",
                   traceback.format_exc(limit=3)))
    finally:
        conn.close()


def run_limited(kind, kw, xtr, ytr, xte, limit):
    """run_one in a forked child, killed after ``limit`` seconds: ("ok", result) / ("error", msg) / ("timeout",)."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, kind, kw, xtr, ytr, xte), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    try:
        ready = parent.poll(limit if limit else None)
    except BaseException:  # Ctrl-C / SIGTERM: do not leave the child running
        proc.kill()
        raise
    if not ready:
        proc.kill()
        proc.join()
        return ("timeout", time.perf_counter() - t0)
    try:
        msg = parent.recv()
    except EOFError:
        msg = ("error", f"child died (exit code {proc.exitcode})", "")
    proc.join()
    return msg


# ------------------------------------------------------------------------------ run


def fmt_pm(vals, digits=3):
    v = np.asarray(vals, dtype=float)
    if len(v) == 0:
        return "-"
    se = v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():.{digits}f} ± {se:.{digits}f}"


def run_dataset(name, args, methods, out):
    t_load = time.perf_counter()
    x, y, note = load(name)
    t_load = time.perf_counter() - t_load
    n, p = x.shape
    const = int(np.sum(x.std(axis=0) == 0))
    from sklearn.model_selection import StratifiedKFold
    folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=args.seed).split(x, y))
    ntr = len(folds[0][0])
    out(f"\n=== {name}: n={n}, p={p}, {int(y.sum())}/{n} y=1, {const} constant columns; {note}; "
        f"load {t_load:.1f}s; abess support sizes {abess_sizes(ntr, p)} (n_train~{ntr})")
    stats = {}
    t_set = time.perf_counter()
    for label, kind, kw in methods:
        st = stats[label] = {"err": [], "size": [], "sec": [], "nan": 0, "info": [], "warn": Counter(),
                             "problem": None}
        for k, (tr, te) in enumerate(folds):
            msg = run_limited(kind, kw, x[tr], y[tr], x[te], args.time_limit)
            if msg[0] == "timeout":
                st["problem"] = (f"killed at the {args.time_limit:g}s time limit on fold {k + 1}"
                                 + ("; pair skipped" if k == 0 else f"; {k} fold(s) kept"))
                break
            if msg[0] == "error":
                st["problem"] = f"error on fold {k + 1}: {msg[1]}"
                break
            prob, size, sec, info, warns = msg[1]
            yhat = (prob > 0.5).astype(float)
            bad = ~np.isfinite(prob)
            st["nan"] += int(bad.sum())
            st["err"].append(float(np.mean((yhat != y[te]) | bad)))
            st["size"].append(size)
            st["sec"].append(sec)
            st["info"].append(info)
            st["warn"].update(warns)
    # ------------------------------------------------------------------ table
    head = f"{'method':<32} {'error ± SE':>15} {'size ± SE':>15} {'med s':>8} {'folds':>5}"
    out(head)
    out("-" * len(head))
    for label, _kind, _kw in methods:
        st = stats[label]
        if st["err"]:
            out(f"{label:<32} {fmt_pm(st['err']):>15} {fmt_pm(st['size'], 1):>15} "
                f"{np.median(st['sec']):>8.2f} {len(st['err']):>5}")
        else:
            out(f"{label:<32} {'not run: ' + (st['problem'] or '?')}")
    notes = []
    for label, kind, _kw in methods:
        st = stats[label]
        if st["problem"] and st["err"]:
            notes.append(f"  {label}: {st['problem']}")
        if st["nan"]:
            notes.append(f"  {label}: {st['nan']} held-out predictions NaN (counted as errors)")
        if kind == "streamreg" and st["info"]:
            inf = st["info"]
            refused = Counter()
            skipped = Counter()
            for i in inf:
                refused.update(i["refused_why"])
                skipped.update(i["skipped"])
            rw = sum(len(i["refit_warnings"]) for i in inf)
            line = (f"  {label}: {inf[0]['policy']}, stopped by {sorted({i['stopped_by'] for i in inf})}; "
                    f"tests/fold {np.mean([i['tests'] for i in inf]):.0f} over {max(i['passes'] for i in inf)} "
                    f"pass(es); refused/fold {np.mean([i['refused'] for i in inf]):.1f}")
            if refused:
                line += " (" + ", ".join(f"{k}: {v}" for k, v in refused.most_common()) + " in all folds)"
            if skipped:
                line += "; skipped in all folds: " + ", ".join(f"{k[9:]} {v}" for k, v in skipped.most_common())
            line += f"; sizes per fold {st['size']}"
            if rw:
                first = next(w for i in inf for w in i["refit_warnings"])
                line += f"; refit warnings {rw} (first: {first})"
            notes.append(line)
        if kind == "abess" and st["info"]:
            d = st["info"][0]["dropped_constant"]
            notes.append(f"  {label}: sizes per fold {st['size']}; support sizes {st['info'][0]['sizes']}"
                         + (f"; {d} constant training-fold column(s) dropped (fold 1)" if d else ""))
        if kind == "l1cv" and st["info"]:
            notes.append(f"  {label}: sizes per fold {st['size']}; chosen C per fold "
                         f"{[round(i['C'], 4) for i in st['info']]}")
        if st["warn"]:
            tot = sum(st["warn"].values())
            top = "; ".join(f"{v}x {k}" for k, v in st["warn"].most_common(3))
            notes.append(f"  {label}: {tot} warning(s) over its folds (Future/DeprecationWarnings not counted): {top}")
    for line in notes:
        out(line)
    verdict = verdict_line(name, stats, methods, args.folds)
    out(verdict)
    out(f"  (data set time {time.perf_counter() - t_set:.0f}s)")
    return stats, verdict


def verdict_line(name, stats, methods, folds):
    done = {lab: st for lab, st in stats.items() if len(st["err"]) == folds}
    d = LABELS["default"]
    if d not in done:
        return f"VERDICT {name}: default not run on all {folds} folds -- no verdict"
    means = {lab: np.mean(st["err"]) for lab, st in done.items()}
    best = min(means, key=means.get)
    se_best = np.std(done[best]["err"], ddof=1) / math.sqrt(folds)
    within = means[d] <= means[best] + se_best + 1e-12
    text = (f"VERDICT {name}: default error {means[d]:.3f} {'IS' if within else 'is NOT'} within one SE of the best "
            f"({best}: {means[best]:.3f} + SE {se_best:.3f} = {means[best] + se_best:.3f})")
    l1 = LABELS["l1cv"]
    if l1 in done:
        sd, sl = np.mean(done[d]["size"]), np.mean(done[l1]["size"])
        text += f"; size {sd:.1f} {'<=' if sd <= sl else '>'} L1-CV's {sl:.1f} ({'yes' if sd <= sl else 'no'})"
    else:
        text += "; L1-CV not complete -- no size comparison"
    return text


def git_state(repo: Path) -> str:
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        subj = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%s"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "streamreg"],
                               capture_output=True, text=True).stdout.strip().splitlines()
        return (f"{head[:12]} ({subj[:90]}{'...' if len(subj) > 90 else ''})"
                + (f"; uncommitted changes in streamreg/: {len(dirty)} file(s)" if dirty else "; streamreg/ clean"))
    except Exception as exc:  # noqa: BLE001
        return f"unknown ({exc})"


def parse_extra(items):
    out = []
    for item in items or []:
        name, sep, lit = item.partition("=")
        if not sep:
            raise SystemExit(f"--extra wants name=python-dict-literal, got {item!r}")
        kw = ast.literal_eval(lit)
        if not isinstance(kw, dict):
            raise SystemExit(f"--extra {name}: not a dict literal: {lit!r}")
        out.append((name.strip(), kw))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(ALL_SETS))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default=",".join(BASE_METHODS), help="subset of " + ",".join(BASE_METHODS))
    ap.add_argument("--extra", action="append", default=[],
                    help="name=python-dict-literal: an extra streamreg row, sr.select(..., **dict) (repeatable)")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per fit (0: none)")
    ap.add_argument("--l1-solver", default="liblinear", choices=("liblinear", "saga"))
    ap.add_argument("--l1-max-iter", type=int, default=100, help="scikit-learn's default")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.datasets.split(",") if s.strip()]
    chosen = [s.strip() for s in args.methods.split(",") if s.strip()]
    unknown = [m for m in chosen if m not in BASE_METHODS]
    if unknown:
        raise SystemExit(f"unknown method(s) {unknown}; choose from {BASE_METHODS} (and --extra)")
    methods = []
    for m in BASE_METHODS:
        if m not in chosen:
            continue
        if m == "default":
            methods.append((LABELS[m], "streamreg", {}))
        elif m == "alpha-investing":
            methods.append((LABELS[m], "streamreg", {"method": "alpha-investing"}))
        elif m == "abess":
            methods.append((LABELS[m], "abess", {}))
        else:
            methods.append((LABELS[m], "l1cv", {"solver": args.l1_solver, "max_iter": args.l1_max_iter,
                                                "seed": args.seed}))
    for name, kw in parse_extra(args.extra):
        methods.append((f"extra {name}", "streamreg", kw))

    fh = None
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        fh = open(args.out, "w")  # noqa: SIM115 -- written line by line for the whole run

    def out(line=""):
        print(line, flush=True)
        if fh:
            fh.write(line + "\n")
            fh.flush()

    import signal
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))  # so that run_limited kills its child
    import abess
    import sklearn
    repo = Path(__file__).resolve().parents[1]
    t_all = time.perf_counter()
    out("bench_realdata.py -- 5-fold CV misclassification and model size on real binary data")
    out(f"command: python {' '.join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], repo)] + sys.argv[1:])}")
    out(f"date: {datetime.datetime.now().isoformat(timespec='seconds')}; host {platform.node()}, "
        f"{os.cpu_count()} cores; OMP/OPENBLAS/MKL_NUM_THREADS=1; one fit at a time, each in a forked child")
    out(f"git: {git_state(repo)}")
    out(f"versions: streamreg {getattr(sr, '__version__', '?')}, numpy {np.__version__}, abess {abess.__version__}, "
        f"scikit-learn {sklearn.__version__}")
    rule = dict(sr_options.DEFAULT_RULE_OPTIONS)
    out(f"streamreg default (streamreg/config/method.py): DEFAULT_METHOD={sr_options.DEFAULT_METHOD!r}, "
        f"DEFAULT_RULE_OPTIONS={rule}, DEFAULT_PASSES={sr_options.DEFAULT_PASSES}; check_options resolves "
        f"method=None to {sr_options.default_method(None, None, {})}")
    out("papers' setting: method='alpha-investing' -> "
        f"{sr_options.default_method('alpha-investing', None, {})} (its constructor defaults w0 = alpha_delta = 0.5)")
    out("abess: LogisticRegression() defaults (path 'seq', ic 'ebic', support sizes 0..floor(n/(loglog n log p))-1); "
        "constant training-fold columns dropped for abess only (it refuses them)")
    out(f"L1-CV: StandardScaler (training fold) + LogisticRegressionCV(penalty='l1', solver={args.l1_solver!r}, "
        f"Cs=20, cv=5, max_iter={args.l1_max_iter})")
    out(f"folds: StratifiedKFold({args.folds}, shuffle=True, random_state={args.seed}); error = mean((p > 0.5) != y) "
        f"on the held-out fold; ± = SE over folds (sd/sqrt({args.folds})); med s = median fit seconds")
    out(f"time limit per fit: {args.time_limit:g}s (hard: the child is killed; first-fold overrun skips the pair)")
    out(f"methods: {[m[0] for m in methods]}" + (f"; extras {[(m[0], m[2]) for m in methods[len(chosen):]]}"
                                                  if len(methods) > len(chosen) else ""))
    verdicts = []
    summary = {}
    for name in names:
        try:
            stats, verdict = run_dataset(name, args, methods, out)
        except Exception as exc:  # noqa: BLE001
            out(f"\n=== {name}: FAILED to run: {type(exc).__name__}: {exc}")
            verdicts.append(f"VERDICT {name}: not run ({type(exc).__name__})")
            continue
        summary[name] = stats
        verdicts.append(verdict)
    # ------------------------------------------------------------------ summary
    out("\n=== summary: mean held-out error / mean model size (folds completed)")
    head = f"{'data set':<11}" + "".join(f" {m[0][:24]:>24}" for m in methods)
    out(head)
    out("-" * len(head))
    for name, stats in summary.items():
        row = f"{name:<11}"
        for label, _, _ in methods:
            st = stats[label]
            cell = (f"{np.mean(st['err']):.3f} / {np.mean(st['size']):.1f}" if st["err"] else "not run")
            if st["err"] and len(st["err"]) < args.folds:
                cell += f" ({len(st['err'])}f)"
            row += f" {cell:>24}"
        out(row)
    out("")
    for v in verdicts:
        out(v)
    out(f"\ntotal run time {time.perf_counter() - t_all:.0f}s")
    if fh:
        fh.close()


if __name__ == "__main__":
    main()
