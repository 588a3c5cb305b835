"""The online L1 driver shared by grafting (Perkins and Theiler 2003) and BP-SFS (Wang and Luan 2019).

Terms arrive in stream order.  Each arriving term is expanded into weight columns
(:mod:`.basis`) and put through

1. an optional filter (BP-SFS rule 1: a column with ``|corr(x, y)| < c`` is discarded);
2. the gradient test ``|dL/dw_j| > lambda`` at ``w_j = 0`` for each of its columns.

A term none of whose columns passes is rejected; its columns wait in the *pool* (grafting's
"previously rejected features", BP-SFS's Possible set) when re-testing is on.  Otherwise
the column with the largest ``|dL/dw_j|`` enters, the model is re-optimised over all active
weights (weights reaching 0 are pruned, back to the pool), and the term's other columns
are tested again, one entry at a time (Perkins and Theiler 2003, 4.3.2).  After every change of the
active set the pool is re-tested the same way: the largest passing gradient enters,
re-optimise, repeat until no pooled column passes.  With re-testing and a fixed lambda
the final weights are the batch lasso optimum over all columns seen (KKT holds for all).

Only a change of the model changes the gradients, so each block of arriving terms is
scored with one matrix product, and rescored only after an entry -- the decisions are
those of the one-term-at-a-time definition whatever the block size.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ...models.base import CandidateBlock
from ...streams.base import TermBlock
from ..history import HistoryRecorder, Status
from .basis import ColumnSpec, Expander
from .engine import L1Model

#: history statuses of the online L1 searches
ENTERED, REJECTED, DISCARDED, CONSTANT, REENTERED, PRUNED = (
    Status.ACCEPTED, Status.REJECTED, Status.DISCARDED, Status.CONSTANT, Status.REENTERED, Status.PRUNED)


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
    """The outcome of one online L1 search (before it becomes a SearchResult); ``history``
    is built from ``recorder`` on first access, with any rows added until then."""

    model: L1Model
    rule: LambdaRule
    active: list[ColumnSpec]
    terms: dict[int, _Term]
    recorder: HistoryRecorder
    n_tests: int
    stopped_by: str
    tested_per_stream: dict[str, int]
    elapsed: float
    lambda_path: list[float] = field(default_factory=list)

    @cached_property
    def history(self) -> pd.DataFrame:
        return self.recorder.frame()

    def active_terms(self) -> list[int]:
        """Term ids with at least one active weight, in order of their (last) entry."""
        ids = {s.term for s in self.active}
        return sorted(ids, key=lambda t: self.terms[t].entered_at)

    def predict_eta(self, fixed: np.ndarray, raw_of: Callable[[int], np.ndarray]) -> np.ndarray:
        """Linear predictor on new rows; ``raw_of(term_id)`` gives the term's raw values there."""
        eta = np.asarray(fixed, dtype=float) @ self.model.b
        for spec, w in zip(self.active, self.model.w):
            eta = eta + w * spec.values(raw_of(spec.term))
        return eta


class _Pool:
    """Columns waiting for a re-test, kept as one growing n x capacity matrix.

    Re-testing the pool is then one matrix-vector product however many columns wait.
    Removed columns are only marked dead; the matrix is compacted when it has to grow
    and half of it is dead.  ``tried`` flags columns that entered without changing the
    model (see :meth:`OnlineL1Search._retest_pool`).
    """

    def __init__(self, n: int):
        self.mat = np.empty((n, 0))
        self.specs: list[ColumnSpec] = []
        self.live = np.zeros(0, dtype=bool)
        self.tried = np.zeros(0, dtype=bool)
        self.rejections = np.zeros(0, dtype=int)
        self.where: dict[ColumnSpec, int] = {}
        self.count = 0

    def __len__(self) -> int:
        return self.count

    @property
    def size(self) -> int:
        return len(self.specs)

    def add(self, specs: list[ColumnSpec], cols: np.ndarray, rejections: np.ndarray | list[int]) -> None:
        k = len(specs)
        if k == 0:
            return
        if self.size + k > self.mat.shape[1]:
            if self.size - self.count > self.size // 2:
                self._compact()
            if self.size + k > self.mat.shape[1]:
                self._grow(max(self.size + k, 2 * self.mat.shape[1], 64))
        i = self.size
        self.mat[:, i : i + k] = cols
        self.live[i : i + k] = True
        self.tried[i : i + k] = False
        self.rejections[i : i + k] = rejections
        for off, spec in enumerate(specs):
            self.where[spec] = i + off
        self.specs.extend(specs)
        self.count += k

    def _grow(self, cap: int) -> None:
        n, size = self.mat.shape[0], self.size
        mat = np.empty((n, cap))
        mat[:, :size] = self.mat[:, :size]
        self.mat = mat
        for name in ("live", "tried", "rejections"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[:size] = old[:size]
            setattr(self, name, new)

    def _compact(self) -> None:
        keep = np.flatnonzero(self.live[: self.size])
        k = len(keep)
        self.mat[:, :k] = self.mat[:, keep]
        for name in ("live", "tried", "rejections"):
            arr = getattr(self, name)
            arr[:k] = arr[keep]
            arr[k:] = 0
        self.specs = [self.specs[i] for i in keep]
        self.where = {s: i for i, s in enumerate(self.specs)}

    def abs_gradients(self, model: L1Model) -> np.ndarray:
        """``|dL/dw_j|`` of every slot (dead slots included; mask with ``live``)."""
        return np.abs(model.gradients(self.mat[:, : self.size]))

    def take(self, i: int) -> tuple[ColumnSpec, np.ndarray, int]:
        self.live[i] = False
        self.count -= 1
        spec = self.specs[i]
        del self.where[spec]
        return spec, self.mat[:, i].copy(), int(self.rejections[i])

    def mark_tried(self, spec: ColumnSpec) -> None:
        i = self.where.get(spec)
        if i is not None:
            self.tried[i] = True

    def charge(self, max_rejections: int) -> None:
        """One more rejection for every waiting column; those at the limit leave."""
        size = self.size
        live = self.live[:size]
        self.rejections[:size][live] += 1
        out = np.flatnonzero(live & (self.rejections[:size] >= max_rejections))
        for i in out:
            self.take(int(i))


class _OutOfTime(Exception):
    """Raised between two decisions when the search's time budget is spent."""


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
        A pooled column rejected this many times leaves the pool for good (Perkins and Theiler 2003, 4.2).
    corr_filter : float, optional
        BP-SFS rule 1 threshold ``c``: columns with ``|corr(x, y)| < c`` are discarded.
    max_reentries : int, optional
        A column pruned after re-entering from the pool this many times leaves the pool
        for good.  Not needed with a fixed lambda (the convex criterion falls with every
        entry that counts); BP-SFS's adaptive lambda has no such criterion and can
        otherwise wander through active sets for a very long time on p >> n data.
    record : bool
        Keep a history (off for cross-validation fits).
    """

    def __init__(self, y: np.ndarray, fixed: np.ndarray, loss: str, rule: LambdaRule, expander: Expander, *, retest: bool = True,
                 max_rejections: int | None = None, corr_filter: float | None = None,
                 max_reentries: int | None = None, record: bool = True) -> None:
        self.model = L1Model(y, fixed, loss)
        self.rule = rule
        self.expander = expander
        self.retest = retest
        self.max_rejections = max_rejections
        self.corr_filter = corr_filter
        self.max_reentries = max_reentries
        self._reentries: dict[ColumnSpec, int] = {}
        self.record = record
        self.y = self.model.y
        self._yc = self.y - self.y.mean()
        self.active: list[ColumnSpec] = []
        self.pool = _Pool(self.model.n)
        self._rejections: dict[ColumnSpec, int] = {}  # counts of columns out of the pool
        self._last_pruned: list[ColumnSpec] = []
        self._seen: set[frozenset] = {frozenset()}  # active sets reached so far
        self.terms: dict[int, _Term] = {}
        self.hist = HistoryRecorder()
        self.n_terms = 0
        self.n_tests = 0
        self.tested: dict[str, int] = {}
        self._clock = 0
        self._pass = 1  # stream pass of the block being processed (history of pool events)
        self._deadline: float | None = None
        self.lambda_path: list[float] = [rule.lam]

    # ------------------------------------------------------------------ the run
    def run(self, blocks: Iterable[TermBlock], *, max_tests: int | None = None, max_selected: int | None = None,
            time_budget: float | None = None) -> OnlineL1Run:
        t0 = time.monotonic()
        self._deadline = None if time_budget is None else t0 + time_budget
        stopped = "exhausted"
        try:
            for block in blocks:
                self.tested.setdefault(block.stream, 0)
                if max_tests is not None and self.n_tests >= max_tests:
                    stopped = "max_tests"
                    break
                if max_selected is not None and len({s.term for s in self.active}) >= max_selected:
                    stopped = "max_selected"
                    break
                self._check_time()
                limit = None if max_tests is None else max_tests - self.n_tests
                self._block(block, limit, max_selected)
        except _OutOfTime:
            stopped = "time_budget"
        return OnlineL1Run(self.model, self.rule, list(self.active), self.terms, self.hist, self.n_tests,
                           stopped, dict(self.tested), time.monotonic() - t0, list(self.lambda_path))

    def _check_time(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise _OutOfTime

    def _block(self, block: TermBlock, limit: int | None, max_selected: int | None) -> None:
        m = len(block) if limit is None else min(len(block), limit)
        cand = block.block
        if m < len(block):
            cand = CandidateBlock(cand.values[:, : int(cand.starts[m - 1] + cand.widths[m - 1])] if m else
                                  cand.values[:, :0], cand.widths[:m])
        first = self.n_terms
        self.n_terms += m
        specs, values, owner = self.expander.expand_block(cand, first)
        status = np.full(m, None, dtype=object)  # terms decided before any test
        status[np.setdiff1d(np.arange(m), owner)] = CONSTANT
        if specs and self.corr_filter is not None:
            keep = self._rule1(values)
            discarded = np.setdiff1d(owner, owner[keep])
            status[discarded] = DISCARDED
            specs = [sp for sp, k in zip(specs, keep) if k]
            values, owner = values[:, keep], owner[keep]
        self._pass = block.pass_no
        # terms decided without a test are recorded in stream order, interleaved with the
        # tested ones: before recording term j, flush the pre-decided terms ahead of it
        predecided = list(np.flatnonzero(status != None))[::-1]  # noqa: E711 -- elementwise, on an object array

        def flush(upto: int) -> None:
            while predecided and predecided[-1] < upto:
                j = int(predecided.pop())
                self._record_arrival(block, j, first + j, np.nan, 0, status[j])

        if not specs:
            flush(m)
            return
        # column range [lo[j], hi[j]) of each remaining term (owner is sorted)
        terms_left = np.unique(owner)
        lo = np.searchsorted(owner, terms_left, side="left")
        hi = np.searchsorted(owner, terms_left, side="right")
        pos = 0  # first term (index into terms_left) not yet decided
        while pos < len(terms_left):
            self._check_time()
            lam = self.rule.lam
            c0 = lo[pos]
            grad = np.abs(self.model.gradients(values[:, c0:]))
            passing = np.flatnonzero(grad > lam)
            # decide whole terms: the first term owning a passing column enters
            t_in = np.searchsorted(hi, c0 + passing[0], side="right") if passing.size else len(terms_left)
            for t in range(pos, t_in):  # terms before it are rejected
                a, b = lo[t], hi[t]
                j = int(terms_left[t])
                flush(j)
                self._record_arrival(block, j, first + j, float(grad[a - c0 : b - c0].max()), b - a, REJECTED)
            if self.retest:
                cut = lo[t_in] if t_in < len(terms_left) else values.shape[1]
                self._to_pool(specs[c0:cut], values[:, c0:cut])
            if t_in == len(terms_left):
                break
            a, b = lo[t_in], hi[t_in]
            j = int(terms_left[t_in])
            flush(j)
            self._record_arrival(block, j, first + j, float(grad[a - c0 : b - c0].max()), b - a, ENTERED)
            self._enter_term(specs[a:b], values[:, a:b])
            self._retest_pool()
            pos = t_in + 1
            if max_selected is not None and len({s.term for s in self.active}) >= max_selected:
                return  # the terms after it were never examined
        flush(m)

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
            self._add_tracked(specs[c], values[:, c])
        self._to_pool([specs[c] for c in left], values[:, left])

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
        self._last_pruned = []
        if len(pruned):
            gone = [self.active[i] for i in pruned]
            keep = np.setdiff1d(np.arange(len(self.active)), pruned)
            self.active = [self.active[i] for i in keep]
            self._last_pruned = gone
            for spec in gone:
                if self.record:
                    t = self.terms[spec.term]
                    self.hist.add_row(t.stream, t.name, df=1, level=self.rule.lam, status=PRUNED,
                                      pass_=self._pass)
            if self.retest:
                back = np.ones(len(gone), dtype=bool)
                if self.max_reentries is not None:
                    back = np.array([self._reentries.get(s, 0) < self.max_reentries for s in gone])
                self.pool.add([s for s, b in zip(gone, back) if b], cols_before[:, pruned[back]],
                              [self._rejections.pop(s, 0) for s, b in zip(gone, back) if b])

    def _to_pool(self, specs: list[ColumnSpec], columns: np.ndarray) -> None:
        """Rejected columns wait in the pool (each charged one rejection)."""
        if not self.retest or not specs:
            return
        counts = np.array([self._rejections.pop(s, 0) + 1 for s in specs])
        if self.max_rejections is not None:
            keep = counts < self.max_rejections
            if not keep.all():
                specs = [s for s, k in zip(specs, keep) if k]
                columns, counts = columns[:, keep], counts[keep]
        self.pool.add(specs, columns, counts)

    def _retest_pool(self) -> None:
        """Re-test the pool after a change: the best passing column enters, repeat.

        See :meth:`_add_tracked` for when an entry counts as progress; a column whose entry
        made none is flagged ``tried`` and not offered again until some entry has made
        progress.  With nothing else passing the round ends.  Every round therefore
        terminates, and a fixed-lambda round still ends at the batch optimum (KKT holds
        for every pooled column) whenever the fits are exact.
        """
        pool = self.pool
        if not self.retest:
            return
        for _ in range(10 * len(pool) + 100):
            self._check_time()
            if not len(pool):
                return
            lam = self.rule.lam
            grad = pool.abs_gradients(self.model)
            size = pool.size
            ok = pool.live[:size] & ~pool.tried[:size] & (grad > lam)
            if not ok.any():
                if self.max_rejections is not None:
                    pool.charge(self.max_rejections)  # the columns that stay rejected
                return
            k = int(np.argmax(np.where(ok, grad, -np.inf)))
            spec, col, rejections = pool.take(k)
            self._rejections[spec] = rejections
            self._reentries[spec] = self._reentries.get(spec, 0) + 1
            t = self.terms[spec.term]
            if self.record:
                self.hist.add_row(t.stream, t.name, statistic=float(grad[k]), df=1, level=lam, status=REENTERED,
                                  pass_=self._pass)
            self._add_tracked(spec, col)

    def _add_tracked(self, spec: ColumnSpec, column: np.ndarray) -> bool:
        """Enter a column and re-optimise; returns whether that was progress.

        Progress means an active set never seen before in this search (and, with a fixed
        lambda, a lower convex criterion: a rounding-level "improvement" of a saturated
        fit is not progress).  An entry that was pruned at once, or that sent the model
        back to an earlier active set -- the adaptive lambda of BP-SFS can cycle -- leaves
        the model where it was, so the columns involved are flagged ``tried``: offering
        them again before the model has changed would repeat the same fits.
        """
        lam = self.rule.lam
        fixed_rule = type(self.rule) is LambdaRule
        before = self.model.objective(lam) if fixed_rule else None
        self._add(spec, column)
        after = frozenset(self.active)
        progress = after not in self._seen
        if progress and before is not None:  # a fixed rule
            progress = self.model.objective(lam) < before - 1e-13 * abs(before)
        if progress:
            self._seen.add(after)
            self.pool.tried[: self.pool.size] = False
        else:
            for s in [spec, *self._last_pruned]:
                self.pool.mark_tried(s)
        return progress

    # ---------------------------------------------------------------- history
    def _record_arrival(self, block: TermBlock, j: int, tid: int, stat: float, df: int, status: Status) -> None:
        stream = block.stream
        tested = status in (ENTERED, REJECTED)
        if tested:
            self.n_tests += 1
            self.tested[stream] = self.tested.get(stream, 0) + 1
        self.terms[tid] = _Term(block.names[j], stream, block.block.term(j), block.column_names(j), block.spec(j),
                                self.n_tests if tested else -1, self.tested.get(stream, 0) if tested else -1,
                                stat, self.rule.lam)
        if self.record:
            self.hist.add_row(stream, block.names[j], test=self.n_tests if tested else -1,
                              stream_test=self.tested[stream] if tested else -1, statistic=stat, df=max(df, 1),
                              level=self.rule.lam, status=status, pass_=block.pass_no)
