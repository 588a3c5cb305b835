"""gisette (1000 x 5000, binomial) through ``select()``: time and model size, with abess and L1-CV.

Issue 27's row: the whole stream through ``select(y, X, family="binomial")`` at the default
did not finish in 15 minutes under load; target < 60 s.  Rows, each fit on all 1000 rows of
the shared data's gisette (the validation split: ``gisette_train.data`` is missing, see
``bench_realdata.py``), each in a forked child killed after ``--time-limit`` seconds:

* ``default``: ``sr.select(y, X, family="binomial")``, the package default;
* ``default without the separation stop``: the same with the search's separation stop off
  (``streamwise_run.SEPARATION_STOP`` set beyond reach), i.e. every pass over the whole
  stream however many candidates in a row would separate the response: what the stop spares;
* ``papers' rule``: ``method="alpha-investing"`` (w0 = alpha_delta = 0.5, one pass);
* ``abess``: ``abess.LogisticRegression()`` at its default tuning (constant columns dropped:
  abess refuses them);
* ``L1-logistic CV``: scikit-learn ``LogisticRegressionCV(penalty="l1", solver="liblinear",
  Cs=20, cv=5)`` on standardised columns; size = non-zero coefficients.

Reported: seconds (min and median of ``--rounds`` interleaved rounds), model size, training
misclassification, and for streamreg the tests, passes, refusals for separation and why it
stopped.  The machine's load average is printed with the rows.

Usage: python bench/bench_gisette.py [--rounds 3] [--time-limit 600] [--out FILE]
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before numpy: 2 shared cores
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

os.environ.setdefault("STREAMREG_DATA_URL", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
os.environ.setdefault("STREAMREG_DATA", str(Path(tempfile.gettempdir()) / "streamreg_bench_data"))

import argparse  # noqa: E402
import multiprocessing as mp  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import streamreg as sr  # noqa: E402

METHODS = ("default", "default without the separation stop", "papers' rule", "abess", "L1-logistic CV")


def load() -> tuple[np.ndarray, np.ndarray]:
    ds = sr.datasets.load("gisette")
    x, y = ds.arrays()
    rows = np.flatnonzero(ds.meta["split"].to_numpy() == "valid")
    return np.ascontiguousarray(x[rows], dtype=float), y[rows].astype(float)


def fit(method: str, x: np.ndarray, y: np.ndarray) -> dict:
    """One fit: seconds, size, training error and (streamreg) how the search went."""
    info: dict = {}
    t = time.perf_counter()
    if method.startswith("default") or method == "papers' rule":
        if method == "default without the separation stop":
            import streamreg.search.streamwise_run as run

            run.SEPARATION_STOP = 1 << 62
        kw = {"method": "alpha-investing"} if method == "papers' rule" else {}
        res = sr.select(y, x, family="binomial", **kw)
        secs = time.perf_counter() - t
        cols = [int(name[1:]) for name in res.selected_terms]
        prob = np.asarray(res.predict(), dtype=float)
        status = res.history["status"].astype(str)
        info = {"tests": len(status), "passes": int(res.history["pass"].max()),
                "separation refusals": int(status.str.startswith("refused: separation").sum()),
                "stopped by": str(res.stopped_by)}
    elif method == "abess":
        import abess

        keep = np.flatnonzero(x.std(axis=0) > 0)
        model = abess.LogisticRegression().fit(x[:, keep], y)
        secs = time.perf_counter() - t
        cols = list(np.flatnonzero(model.coef_))
        prob = np.asarray(model.predict_proba(x[:, keep]), dtype=float)
        prob = prob[:, -1] if prob.ndim == 2 else prob
    else:
        from sklearn.linear_model import LogisticRegressionCV
        from sklearn.preprocessing import StandardScaler

        z = StandardScaler().fit_transform(x)
        clf = LogisticRegressionCV(penalty="l1", solver="liblinear", Cs=20, cv=5, random_state=0).fit(z, y)
        secs = time.perf_counter() - t
        cols = list(np.flatnonzero(clf.coef_))
        prob = clf.predict_proba(z)[:, 1]
    return {"seconds": secs, "size": len(cols), "training error": float(np.mean((prob > 0.5) != y)), **info}


def _child(conn, method, x, y) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conn.send(fit(method, x, y))


def limited(method: str, x: np.ndarray, y: np.ndarray, limit: float) -> dict:
    """``fit`` in a forked child, killed after ``limit`` seconds (C code ignores signals)."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, method, x, y), daemon=True)
    t = time.perf_counter()
    proc.start()
    if parent.poll(limit):
        out = parent.recv()
        proc.join()
        return out
    proc.kill()
    proc.join()
    return {"seconds": time.perf_counter() - t, "stopped by": f"killed at the {limit:.0f} s limit"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()
    methods = args.methods.split(",")
    x, y = load()
    print(f"gisette: {x.shape[0]} x {x.shape[1]}, {int(y.sum())} y=1, "
          f"{int((x.std(axis=0) == 0).sum())} constant columns; streamreg {sr.__version__}")
    rows, loads = [], [os.getloadavg()[0]]
    for r in range(args.rounds):
        for method in np.roll(np.array(methods, dtype=object), r):
            rows.append({"method": method, **limited(str(method), x, y, args.time_limit)})
        loads.append(os.getloadavg()[0])
    out = pd.DataFrame(rows)
    table = out.groupby("method", sort=False).agg(min_s=("seconds", "min"), median_s=("seconds", "median"),
                                                  **{c: (c, "last") for c in out.columns
                                                     if c not in ("method", "seconds")})
    pd.set_option("display.width", 200)
    print(f"load average (1 min) before the rounds and after each: {', '.join(f'{v:.2f}' for v in loads)}")
    print(table.reindex(methods).to_string(float_format="%.3g"))


if __name__ == "__main__":
    main()
