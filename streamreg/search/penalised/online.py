"""The online L1 driver shared by grafting (paper 004) and BP-SFS (paper 003).

Terms arrive in stream order.  Each arriving term is expanded into weight columns
(:mod:`.basis`) and put through

1. an optional filter (BP-SFS rule 1: a column with ``|corr(x, y)| < c`` is discarded);
2. the gradient test ``|dL/dw_j| > lambda`` at ``w_j = 0`` for each of its columns.

A term none of whose columns passes is rejected; its columns wait in the *pool* (grafting's
"previously rejected features", BP-SFS's Possible set) when re-testing is on.  Otherwise
the column with the largest ``|dL/dw_j|`` enters, the model is re-optimised over all active
weights (weights reaching 0 are pruned, back to the pool), and the term's other columns
are tested again, one entry at a time (paper 004, 4.3.2).  After every change of the
active set the pool is re-tested the same way: the largest passing gradient enters,
re-optimise, repeat until no pooled column passes.  With re-testing and a fixed lambda
the final weights are the batch lasso optimum over all columns seen (KKT holds for all).

Only a change of the model changes the gradients, so each block of arriving terms is
scored with one matrix product, and rescored only after an entry -- the decisions are
those of the one-term-at-a-time definition whatever the block size.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
import pandas as pd

from ...streams.base import AcceptedTerm, TermBlock
from .basis import ColumnSpec, Expander
from .engine import L1Model

#: history statuses of the online L1 searches
ENTERED, REJECTED, DISCARDED, CONSTANT, REENTERED, PRUNED = (
    "accepted", "rejected", "discarded: rule 1 (|corr| < c)", "skipped: constant",
    "re-entered from the pool", "pruned (weights reached 0)")
STATUSES = [ENTERED, REJECTED, DISCARDED, CONSTANT, REENTERED, PRUNED]


class LambdaRule:
    """How the penalty is chosen during the search: fixed (grafting)."""

    def __init__(self, lam: float):
        self.lam = float(lam)

    def optimise(self, model: L1Model) -> np.ndarray:
        """Re-optimise the model; returns the pruned positions (active-set indices)."""
        return model.fit(self.lam)


@dataclass
class _Term:
    name: str
    stream: str
    raw: np.ndarray
    columns: list[str]
    spec: object
    test: int
    stream_test: int
    statistic: float
    level: float
    entered_at: int = 0


@dataclass
class OnlineL1Run:
    """The outcome of one online L1 search (before it becomes a SearchResult)."""

    model: L1Model
    rule: LambdaRule
    active: list[ColumnSpec]
    terms: dict[int, _Term]
    history: pd.DataFrame
    n_tests: int
    stopped_by: str
    tested_per_stream: dict[str, int]
    elapsed: float
    lambda_path: list[float] = field(default_factory=list)

    def active_terms(self) -> list[int]:
        """Term ids with at least one active weight, in order of their (last) entry."""
        ids = {s.term for s in self.active}
        return sorted(ids, key=lambda t: self.terms[t].entered_at)

    def predict_eta(self, fixed: np.ndarray, raw_of) -> np.ndarray:
        """Linear predictor on new rows; ``raw_of(term_id)`` gives the term's raw values there."""
        eta = np.asarray(fixed, dtype=float) @ self.model.b
        for spec, w in zip(self.active, self.model.w):
            eta = eta + w * spec.values(raw_of(spec.term))
        return eta


class _History:
    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, test, stream, stream_test, term, statistic, df, level, status, pass_):
        self.rows.append((test, stream, stream_test, term, statistic, df, level, status, pass_))

    def frame(self) -> pd.DataFrame:
        cols = ["test", "stream", "stream_test", "term", "statistic", "df", "level", "status", "pass"]
        h = pd.DataFrame(self.rows, columns=cols)
        h["test"] = pd.array(h["test"], dtype="Int64")
        h["stream_test"] = pd.array(h["stream_test"], dtype="Int64")
        h["df"] = h["df"].astype(int)
        h["statistic"] = h["statistic"].astype(float)
        h["level"] = h["level"].astype(float)
        # no p-values or wealth: the gradient test is a threshold, not a test of a hypothesis
        h["pvalue"] = np.nan
        h["log_p"] = np.nan
        h["wealth"] = np.nan
        h["accepted"] = h["status"].isin([ENTERED, REENTERED])
        h["status"] = pd.Categorical(h["status"], categories=STATUSES)
        h["pass"] = h["pass"].astype(int)
        return h[["test", "stream", "stream_test", "term", "statistic", "df", "pvalue", "log_p", "level",
                  "wealth", "status", "accepted", "pass"]]


class OnlineL1Search:
    """One online L1 search over blocks of terms (see the module docstring).

    Parameters
    ----------
    y, fixed, loss
        Response, unpenalised columns, ``"squared"`` or ``"logistic"``.
    rule : LambdaRule
        Fixed lambda (grafting) or an adaptive rule (BP-SFS).
    expander : Expander
    retest : bool
        Keep rejected and pruned columns in a pool re-tested after each entry.
    max_rejections : int, optional
        A pooled column rejected this many times leaves the pool for good (paper 004, 4.2).
    corr_filter : float, optional
        BP-SFS rule 1 threshold ``c``: columns with ``|corr(x, y)| < c`` are discarded.
    record : bool
        Keep a history (off for cross-validation fits).
    """

    def __init__(self, y, fixed, loss: str, rule: LambdaRule, expander: Expander, *, retest: bool = True,
                 max_rejections: int | None = None, corr_filter: float | None = None, record: bool = True):
        self.model = L1Model(y, fixed, loss)
        self.rule = rule
        self.expander = expander
        self.retest = retest
        self.max_rejections = max_rejections
        self.corr_filter = corr_filter
        self.record = record
        self.y = self.model.y
        self._yc = self.y - self.y.mean()
        self.active: list[ColumnSpec] = []
        self.pool: list[ColumnSpec] = []
        self._pool_vals: list[np.ndarray] = []
        self._rejections: dict[ColumnSpec, int] = {}
        self.terms: dict[int, _Term] = {}
        self.hist = _History()
        self.n_terms = 0
        self.n_tests = 0
        self.tested: dict[str, int] = {}
        self._clock = 0
        self.lambda_path: list[float] = [rule.lam]

    # ------------------------------------------------------------------ the run
    def run(self, blocks: Iterable[TermBlock], *, max_tests=None, max_selected=None, time_budget=None) -> OnlineL1Run:
        t0 = time.monotonic()
        stopped = "exhausted"
        for block in blocks:
            self.tested.setdefault(block.stream, 0)
            if max_tests is not None and self.n_tests >= max_tests:
                stopped = "max_tests"
                break
            if max_selected is not None and len({s.term for s in self.active}) >= max_selected:
                stopped = "max_selected"
                break
            if time_budget is not None and time.monotonic() - t0 > time_budget:
                stopped = "time_budget"
                break
            limit = None if max_tests is None else max_tests - self.n_tests
            self._block(block, limit, max_selected)
        return OnlineL1Run(self.model, self.rule, list(self.active), self.terms, self.hist.frame(), self.n_tests,
                           stopped, dict(self.tested), time.monotonic() - t0, list(self.lambda_path))

    def _block(self, block: TermBlock, limit: int | None, max_selected: int | None) -> None:
        m = len(block) if limit is None else min(len(block), limit)
        specs, vals, owner = [], [], []
        ids = []
        for j in range(m):
            tid = self.n_terms
            self.n_terms += 1
            ids.append(tid)
            s, v = self.expander.expand(block.block.term(j), tid)
            if s and self.corr_filter is not None:
                keep = self._rule1(v)
                s, v = [sp for sp, k in zip(s, keep) if k], v[:, keep]
                if not s:
                    self._record_arrival(block, j, tid, np.nan, 0, DISCARDED)
                    continue
            elif not s:
                self._record_arrival(block, j, tid, np.nan, 0, CONSTANT)
                continue
            specs.extend(s)
            vals.append(v)
            owner.extend([j] * len(s))
        if not specs:
            return
        values = np.column_stack(vals)
        owner = np.asarray(owner)
        pos = 0  # first column not yet decided
        while pos < len(specs):
            lam = self.rule.lam
            grad = self.model.gradients(values[:, pos:])
            passing = np.flatnonzero(np.abs(grad) > lam)
            # decide whole terms: the first term owning a passing column enters
            if passing.size:
                j_in = owner[pos + passing[0]]
                first = int(np.flatnonzero(owner == j_in)[0])
            else:
                j_in, first = None, len(specs)
            # terms wholly before ``first`` are rejected
            for j in np.unique(owner[pos:first]):
                sl = np.flatnonzero(owner == j)
                stat = float(np.abs(grad[sl - pos]).max())
                self._record_arrival(block, j, ids[j], stat, len(sl), REJECTED)
                for c in sl:
                    self._to_pool(specs[c], values[:, c])
            if j_in is None:
                break
            sl = np.flatnonzero(owner == j_in)
            stat = float(np.abs(grad[sl - pos]).max())
            self._record_arrival(block, j_in, ids[j_in], stat, len(sl), ENTERED)
            self._enter_term([specs[c] for c in sl], values[:, sl])
            self._retest_pool()
            pos = int(sl[-1]) + 1
            if max_selected is not None and len({s.term for s in self.active}) >= max_selected:
                break

    def _rule1(self, v: np.ndarray) -> np.ndarray:
        vc = v - v.mean(axis=0)
        den = np.sqrt((vc * vc).sum(axis=0) * (self._yc @ self._yc))
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(den > 0, (vc.T @ self._yc) / np.where(den > 0, den, 1.0), 0.0)
        return np.abs(r) >= self.corr_filter

    # ----------------------------------------------------------- entries and pool
    def _enter_term(self, specs: list[ColumnSpec], values: np.ndarray) -> None:
        """Add the term's passing columns one at a time, largest gradient first."""
        left = list(range(len(specs)))
        while left:
            grad = self.model.gradients(values[:, left])
            k = int(np.argmax(np.abs(grad)))
            if not np.abs(grad[k]) > self.rule.lam:
                break
            c = left.pop(k)
            self._add(specs[c], values[:, c])
        for c in left:
            self._to_pool(specs[c], values[:, c])

    def _add(self, spec: ColumnSpec, column: np.ndarray) -> None:
        self._clock += 1
        self.terms[spec.term].entered_at = self._clock
        self.model.add(column)
        self.active.append(spec)
        self._optimise()

    def _optimise(self) -> None:
        cols_before = self.model.cols
        pruned = self.rule.optimise(self.model)
        self.lambda_path.append(self.rule.lam)
        if len(pruned):
            gone = [self.active[i] for i in pruned]
            keep = np.setdiff1d(np.arange(len(self.active)), pruned)
            self.active = [self.active[i] for i in keep]
            for i, spec in zip(pruned, gone):
                if self.record:
                    t = self.terms[spec.term]
                    self.hist.add(pd.NA, t.stream, pd.NA, t.name, np.nan, 1, self.rule.lam, PRUNED, 0)
                self._to_pool(spec, cols_before[:, i], count=False)

    def _to_pool(self, spec: ColumnSpec, column: np.ndarray, count: bool = True) -> None:
        if not self.retest:
            return
        if count:
            self._rejections[spec] = self._rejections.get(spec, 0) + 1
            if self.max_rejections is not None and self._rejections[spec] >= self.max_rejections:
                return
        self.pool.append(spec)
        self._pool_vals.append(np.asarray(column, dtype=float))

    def _retest_pool(self) -> None:
        """Re-test the pool after a change: best passing column enters, repeat.

        With an adaptive lambda a column can enter and be pruned at once; such a column is
        not offered again until the active set has changed in some other way, so the loop
        ends (and a hard cap guards against cycles of a non-convex rule).
        """
        if not self.retest or not self.pool:
            return
        tried: set[ColumnSpec] = set()
        for _ in range(10 * len(self.pool) + 100):
            if not self.pool:
                return
            mat = np.column_stack(self._pool_vals)
            grad = np.abs(self.model.gradients(mat))
            ok = (grad > self.rule.lam) & np.array([s not in tried for s in self.pool])
            if not ok.any():
                # the columns that stay rejected are charged one more rejection
                self._charge_pool(grad)
                return
            k = int(np.argmax(np.where(ok, grad, -np.inf)))
            spec, col = self.pool.pop(k), self._pool_vals.pop(k)
            before = {s for s in self.active}
            t = self.terms[spec.term]
            if self.record:
                self.hist.add(pd.NA, t.stream, pd.NA, t.name, float(grad[k]), 1, self.rule.lam, REENTERED, 2)
            self._add(spec, col)
            after = {s for s in self.active}
            if after == before:  # entered and was pruned straight away
                tried.add(spec)
            else:
                tried.clear()

    def _charge_pool(self, grad: np.ndarray) -> None:
        if self.max_rejections is None:
            return
        keep = []
        for s in self.pool:
            self._rejections[s] = self._rejections.get(s, 0) + 1
            keep.append(self._rejections[s] < self.max_rejections)
        self.pool = [s for s, k in zip(self.pool, keep) if k]
        self._pool_vals = [v for v, k in zip(self._pool_vals, keep) if k]

    # ---------------------------------------------------------------- history
    def _record_arrival(self, block: TermBlock, j: int, tid: int, stat: float, df: int, status: str) -> None:
        stream = block.stream
        tested = status in (ENTERED, REJECTED)
        if tested:
            self.n_tests += 1
            self.tested[stream] = self.tested.get(stream, 0) + 1
        self.terms[tid] = _Term(block.names[j], stream, block.block.term(j), block.column_names(j), block.spec(j),
                                self.n_tests if tested else -1, self.tested.get(stream, 0) if tested else -1,
                                stat, self.rule.lam)
        if self.record:
            self.hist.add(self.n_tests if tested else pd.NA, stream,
                          self.tested[stream] if tested else pd.NA, block.names[j], stat,
                          max(df, 1), self.rule.lam, status, block.pass_no)


def run_to_terms(run: OnlineL1Run) -> tuple[list[AcceptedTerm], pd.DataFrame]:
    """The selected terms (for the refit) and the ``selected`` table of a run.

    A linear term is refitted whole (all its design columns) when any of its weights is
    active; an RBF feature contributes its active basis columns, each with a patsy
    expression so that the formula path can rebuild it on new data.
    """
    accepted, rows = [], []
    for order, tid in enumerate(run.active_terms(), start=1):
        t = run.terms[tid]
        idx = [i for i, s in enumerate(run.active) if s.term == tid]
        specs = [run.active[i] for i in idx]
        extra: dict = {"weights": run.model.w[idx].copy()}
        if specs[0].is_rbf:
            values = np.column_stack([s.values(t.raw) for s in specs])
            columns = [f"{t.columns[0]}_rbf{k + 1}" for k in range(len(specs))]
            extra["rhs"] = [s.expression(f"({t.name})") for s in specs]
        else:
            values, columns = np.asarray(t.raw, dtype=float).reshape(len(t.raw), -1).copy(), list(t.columns)
        accepted.append(AcceptedTerm(name=t.name, stream=t.stream, values=values, columns=columns, spec=t.spec,
                                     extra=extra))
        rows.append({"order": order, "term": t.name, "stream": t.stream, "test": t.test,
                     "stream_test": t.stream_test, "statistic": t.statistic, "df": len(idx), "pvalue": np.nan,
                     "level": t.level, "wealth": np.nan, "abs_weight": float(np.abs(extra["weights"]).sum())})
    cols = ["order", "term", "stream", "test", "stream_test", "statistic", "df", "pvalue", "level", "wealth",
            "abs_weight"]
    return accepted, pd.DataFrame(rows, columns=cols)
