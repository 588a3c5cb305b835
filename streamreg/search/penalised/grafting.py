"""Grafting for online feature selection (Perkins and Theiler 2003).

An L1-penalised linear (or RBF-additive) model is grown as terms arrive: a weight enters
iff ``|dL/dw_j| > lam`` at ``w_j = 0``, the model is re-optimised over all active weights,
weights that reach zero are pruned, and -- with ``retest=True`` -- every earlier rejected
or pruned weight is re-tested after each entry, so the result is the batch lasso optimum
over the features seen so far (Perkins and Theiler 2003, 4.2).  ``lam`` is given, or chosen by k-fold
cross-validation over a geometric grid below ``lam_max`` (the largest gradient at the
empty model), as in the paper's experiments; the CV fits standardise and place RBF
centres on their own training rows.

Scaling (see :mod:`.engine`): mean loss, ``||y - eta||^2 / (2n)`` or the mean binomial
negative log-likelihood, plus ``lam * sum |w|`` on standardised features; the intercept
and fixed terms are unpenalised.
"""
from __future__ import annotations

import math
import time
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...models import spec_of
from ...models.base import CandidateBlock, equilibrate
from ...models.protocol import ModelState
from ...models.separation import is_separated
from ...streams.base import AcceptedTerm, Stream, TermBlock
from ...validators import FLAG, INTEGER, NONE, NUMBER, TEXT, check_integer, check_number
from ..history import HistoryRecorder, Status
from ..method import OwnLoop
from ..options import SearchOptions
from ..result import SELECTED_COLUMNS, SearchResult, check_streams, per_stream_table
from ..stepwise import collect_blocks
from .basis import ColumnSpec, Expander
from .engine import L1Model, lasso_working_set, loss_value
from .online import LambdaRule, OnlineL1Run, OnlineL1Search

if TYPE_CHECKING:
    from typing_extensions import Self


class PenalisedSearchResult(SearchResult):
    """A :class:`SearchResult` plus the penalised fit behind it.

    ``lam`` is the final lambda (mean-loss scale), ``lambda_path`` its value after each
    re-optimisation, ``weights`` one row per active weight (term, basis column, weight on
    the standardised scale), ``cv`` the cross-validation table when lambda was chosen by
    CV, ``run`` the raw :class:`~.online.OnlineL1Run`.
    """

    def __init__(self, *, lam: float, lambda_path: list[float], weights: pd.DataFrame, cv: pd.DataFrame | None,
                 test_description: str, run: OnlineL1Run, **base: Any) -> None:
        super().__init__(**base)
        self.lam, self.lambda_path, self.weights, self.cv = lam, lambda_path, weights, cv
        self.test_description, self.run = test_description, run


def refuse_separating(accepted: list[AcceptedTerm], selected: pd.DataFrame, history: HistoryRecorder,
                      model: L1Model) -> tuple[list[AcceptedTerm], pd.DataFrame]:
    """Drop from the refit the terms whose unpenalised MLE would not exist, as every path does.

    The penalised estimates exist under separation (the penalty keeps them finite), but the
    refit of the selected terms is an unpenalised GLM.  Terms are added in selection order
    and one whose addition separates the classes (exact LP test) is refused: it gets a
    history row saying so and leaves the refit.  Returns the terms kept and their table.
    """
    design = model.fixed
    keep: list[AcceptedTerm] = []
    refused: list[AcceptedTerm] = []
    for t in accepted:
        trial = np.column_stack([design, equilibrate(t.values)])
        if is_separated(trial, model.y):
            refused.append(t)
            continue
        design = trial
        keep.append(t)
    if not refused:
        return accepted, selected
    kept = [t.name for t in keep]
    selected = selected[selected["term"].isin(kept)].reset_index(drop=True)
    selected["order"] = np.arange(1, len(selected) + 1)
    last_pass = history.last_pass()
    for t in refused:
        history.add_row(t.stream, t.name, df=t.values.shape[1], status=Status.REFUSED_SEPARATION, pass_=last_pass)
    return keep, selected


def loss_for_family(family: Any) -> str:
    """``"squared"`` for Gaussian identity, ``"logistic"`` for binomial logit; else ValueError.

    The loss is the family's ``FamilySpec.penalised_loss``.
    """
    loss = spec_of(family).loss_for(family)
    if loss is not None:
        return loss
    raise ValueError(f"grafting and BP-SFS support the gaussian and binomial (logit) families, "
                     f"not {type(family).__name__}")


class _OnlineL1Method(OwnLoop):
    """Parameters and result building shared by :class:`Grafting` and :class:`BPSFS`."""

    name = "online-l1"
    takes_weights = False  # their penalised fits take no offset or weights
    #: the kinds of the options both take (checked by ``_init_common``)
    COMMON_KINDS = {"basis": (TEXT,), "k_max": (INTEGER,), "rbf_width": (NUMBER,), "standardize": (FLAG,),
                    "max_rejections": (INTEGER, NONE), "max_candidates": (INTEGER,)}

    def _init_common(self, basis: str, k_max: int, rbf_width: float, standardize: bool, max_rejections: int | None,
                     max_candidates: int) -> None:
        self.expander = Expander(basis, k_max=k_max, width=rbf_width, standardize=standardize)
        check_integer("max_rejections", max_rejections, allow_none=True)
        self.basis, self.k_max, self.rbf_width, self.standardize = basis, k_max, rbf_width, standardize
        self.max_rejections, self.max_candidates = max_rejections, max_candidates

    @abstractmethod
    def parameters(self) -> dict:
        """The constructor's arguments (``spawn`` rebuilds the method from them)."""

    def spawn(self) -> Self:
        return type(self)(**self.parameters())

    def check_family(self, family: Any) -> None:
        loss_for_family(family)  # ValueError naming the supported families

    def _blocks(self, streams: Sequence[Stream], block_size: int) -> Iterator[TermBlock]:
        for s in streams:
            while True:
                b = s.take(block_size)
                if b is None:
                    break
                yield b

    def _result(self, run: OnlineL1Run, streams: Sequence[Stream], loss: str, elapsed: float,
                cv: pd.DataFrame | None = None) -> PenalisedSearchResult:
        accepted, selected = run_to_terms(run)
        if loss == "logistic":
            accepted, selected = refuse_separating(accepted, selected, run.recorder, run.model)
        names = [s.name for s in streams]
        per_stream = per_stream_table(streams, [run.tested_per_stream.get(n, 0) for n in names], accepted)
        weights = pd.DataFrame({
            "term": [run.terms[s.term].name for s in run.active],
            "column": [f"rbf c={s.centre:.4g}" if s.is_rbf else run.terms[s.term].columns[s.source]
                       for s in run.active],
            "weight": run.model.w,
        })
        what = "squared-error loss / 2n" if loss == "squared" else "mean binomial negative log-likelihood"
        return PenalisedSearchResult(
            history=run.history, accepted=accepted, selected=selected, policies={},
            stream_names=names, n_tests=run.n_tests, stopped_by=run.stopped_by, elapsed=elapsed,
            per_stream=per_stream, lam=run.rule.lam, lambda_path=run.lambda_path, weights=weights, cv=cv,
            test_description=(f"gradient test |dL/dw| > lambda = {run.rule.lam:.4g} ({what} + lambda*sum|w|, "
                              f"{self.expander.describe()} features)"),
            run=run)


class Grafting(_OnlineL1Method):
    """Grafting (Perkins and Theiler 2003) as ``method=`` of :func:`streamreg.streamreg` and :func:`streamreg.select`.

    Parameters
    ----------
    lam : float, optional
        The L1 penalty on the mean-loss scale (``alpha`` of scikit-learn's ``Lasso``).
        None: chosen by ``cv``-fold cross-validation.
    cv : int
        Folds for choosing ``lam`` (at least 2).
    n_lambdas, lambda_ratio : int, float
        The CV grid: ``n_lambdas`` values from ``lam_max`` down to ``lambda_ratio * lam_max``.
    basis : {"linear", "rbf"}
        The paper's linear model or its non-linear model (up to ``k_max`` Gaussian RBFs per
        feature, width ``rbf_width`` in standard deviations).
    retest : bool
        Re-test earlier rejected and pruned weights after each entry (needed for the batch
        optimum); ``max_rejections`` limits how often one weight may be rejected.
    random_state : int
        Seed of the CV fold split.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 40)); y = 2 * X[:, 5] - X[:, 9] + rng.normal(size=100)
    >>> sr.select(y, X, method="grafting", lam=0.3).selected_terms
    ['x5', 'x9']
    """

    name = "grafting"
    OPTION_KINDS = {"lam": (NUMBER, NONE), "cv": (INTEGER,), "n_lambdas": (INTEGER,), "lambda_ratio": (NUMBER,),
                    "retest": (FLAG,), "random_state": (INTEGER,), **_OnlineL1Method.COMMON_KINDS}

    def __init__(self, lam: float | None = None, *, cv: int = 5, n_lambdas: int = 20, lambda_ratio: float = 0.01,
                 basis: str = "linear", k_max: int = 10, rbf_width: float = 0.3, standardize: bool = True,
                 retest: bool = True, max_rejections: int | None = None, random_state: int = 0,
                 max_candidates: int = 1_000_000) -> None:
        if lam is not None:
            check_number("lam", lam, what="a finite non-negative number")
        check_integer("cv", cv, minimum=2)
        check_integer("n_lambdas", n_lambdas)
        check_number("lambda_ratio", lambda_ratio, high=1.0, open_low=True)
        self.lam, self.cv, self.n_lambdas, self.lambda_ratio = lam, cv, n_lambdas, lambda_ratio
        self.retest, self.random_state = retest, random_state
        self._init_common(basis, k_max, rbf_width, standardize, max_rejections, max_candidates)

    def parameters(self) -> dict:
        return {"lam": self.lam, "cv": self.cv, "n_lambdas": self.n_lambdas, "lambda_ratio": self.lambda_ratio,
                "basis": self.basis, "k_max": self.k_max, "rbf_width": self.rbf_width,
                "standardize": self.standardize, "retest": self.retest, "max_rejections": self.max_rejections,
                "random_state": self.random_state, "max_candidates": self.max_candidates}

    def describe(self) -> str:
        lam = getattr(self, "lam_", self.lam)
        how = "given" if self.lam is not None else f"{self.cv}-fold CV"
        lam_txt = "?" if lam is None else f"{lam:.4g}"
        return (f"grafting(lambda={lam_txt} ({how}), basis={self.expander.describe()}, "
                f"retest={self.retest})")

    def guarantee(self) -> str:
        return ("Grafting minimises an L1-penalised loss; it controls no error rate. With re-testing the "
                "weights are the batch lasso optimum over the features seen; lambda chosen by "
                "cross-validation targets prediction error, not false selections.")

    @property
    def reads_lazily(self) -> bool:
        return self.lam is not None  # cross-validation reads every candidate first

    def run(self, state: ModelState, streams: Sequence[Stream], *, fixed: np.ndarray, family: Any,
            options: SearchOptions) -> PenalisedSearchResult:
        """Grafting over ``streams`` (the state gives the response and is not changed)."""
        check_streams(streams)
        loss = loss_for_family(family)
        y, fixed = np.asarray(state.y, dtype=float), np.asarray(fixed, dtype=float)
        block_size, max_tests, max_selected = options.block_size, options.max_tests, options.max_selected
        time_budget = options.time_budget
        t0 = time.monotonic()
        cv_table = None
        if self.lam is None:
            blocks = collect_blocks(streams, block_size, self.max_candidates)
            # cross-validation may use half the time budget; the final fit the rest
            deadline = None if time_budget is None else t0 + time_budget / 2
            lam, cv_table = self.choose_lambda(y, fixed, loss, blocks, deadline=deadline)
            source = iter(blocks)
            if time_budget is not None:
                time_budget = max(time_budget - (time.monotonic() - t0), 0.0)
        else:
            lam, source = float(self.lam), self._blocks(streams, block_size)
        self.lam_ = lam
        search = OnlineL1Search(y, fixed, loss, LambdaRule(lam), self.expander, retest=self.retest,
                                max_rejections=self.max_rejections)
        run = search.run(source, max_tests=max_tests, max_selected=max_selected, time_budget=time_budget)
        return self._result(run, streams, loss, time.monotonic() - t0, cv_table)

    # -------------------------------------------------------------- lambda by CV
    def lambda_grid(self, y: np.ndarray, fixed: np.ndarray, loss: str, blocks: list[TermBlock]) -> np.ndarray:
        """``n_lambdas`` values from ``lam_max`` (no weight enters) down, geometrically."""
        g = L1Model(y, fixed, loss).loss_gradient()
        lam_max, first = 0.0, 0
        for b in blocks:
            _, v, _ = self.expander.expand_block(b.block, first)
            first += len(b)
            if v.shape[1]:
                lam_max = max(lam_max, float(np.abs(v.T @ g).max()))
        if lam_max == 0:
            raise ValueError("no candidate has a non-zero gradient: nothing to select")
        return lam_max * np.geomspace(1.0, self.lambda_ratio, self.n_lambdas)

    def choose_lambda(self, y: np.ndarray, fixed: np.ndarray, loss: str, blocks: list[TermBlock], *,
                      deadline: float | None = None
                      ) -> tuple[float, pd.DataFrame]:
        """k-fold CV of the mean validation loss over the grid; the smallest mean wins
        (ties: the larger lambda).

        With re-testing and no rejection limit the online fit at a fixed lambda is the
        batch L1 optimum over the features seen (Perkins and Theiler 2003, 4.2), so each fold follows the
        grid from ``lam_max`` down with warm-started working-set solves
        (:func:`~.engine.lasso_working_set`); otherwise every (fold, lambda) pair is a full
        online run.  The grid is walked from the top for all folds together; past
        ``deadline`` the walk stops and the choice is made among the lambdas done (the
        table's ``completed`` column says which).
        """
        y = np.asarray(y, dtype=float)
        fixed = np.asarray(fixed, dtype=float).reshape(len(y), -1)
        n = len(y)
        if n < 2 * self.cv:
            raise ValueError(f"cv={self.cv} folds need at least {2 * self.cv} rows, got {n}")
        grid = self.lambda_grid(y, fixed, loss, blocks)
        where = [(bi, j) for bi, b in enumerate(blocks) for j in range(len(b))]
        perm = np.random.default_rng(self.random_state).permutation(n)
        folds = np.array_split(perm, self.cv)
        batch = self.retest and self.max_rejections is None
        fits = [_FoldFit(self, y, fixed, loss, blocks, where, va, batch) for va in folds]
        losses = np.full((len(grid), self.cv), np.nan)
        for li, lam in enumerate(grid):
            if li > 0 and deadline is not None and time.monotonic() > deadline:
                break
            for f, fit in enumerate(fits):
                losses[li, f] = fit.validation_loss(lam)
        done = ~np.isnan(losses).any(axis=1)
        mean = losses.mean(axis=1)
        best = int(np.flatnonzero(done & (mean <= np.nanmin(mean[done])))[0])
        table = pd.DataFrame({"lam": grid, "cv_loss": mean, "cv_se": losses.std(axis=1, ddof=1) / math.sqrt(self.cv)})
        table["completed"] = done
        table["chosen"] = np.arange(len(grid)) == best
        return float(grid[best]), table


class _FoldFit:
    """One cross-validation fold: fits on the other folds' rows, loss on its own."""

    def __init__(self, method: Grafting, y: np.ndarray, fixed: np.ndarray, loss: str, blocks: list[TermBlock],
                 where: list[tuple[int, int]], va: np.ndarray, batch: bool) -> None:
        n = len(y)
        self.method, self.loss, self.blocks, self.where, self.va = method, loss, blocks, where, va
        self.tr = np.setdiff1d(np.arange(n), va)
        self.y, self.fixed = y, fixed
        self.sub = [_rows(b, self.tr) for b in blocks]
        self.batch = batch
        if batch:
            specs: list[ColumnSpec] = []
            cols: list[np.ndarray] = []
            first = 0
            for b in self.sub:
                s, v, _ = method.expander.expand_block(b.block, first)
                specs.extend(s)
                cols.append(v)
                first += len(b)
            self.specs = specs
            self.columns = np.column_stack(cols) if cols else np.empty((len(self.tr), 0))
            self.model = L1Model(y[self.tr], fixed[self.tr], loss)
            self.active = np.zeros(0, dtype=int)

    def _raw(self, tid: int) -> np.ndarray:
        bi, j = self.where[tid]
        return self.blocks[bi].block.term(j)[self.va]

    def validation_loss(self, lam: float) -> float:
        if self.batch:
            self.active, _ = lasso_working_set(self.model, self.columns, lam, self.active)
            eta = self.fixed[self.va] @ self.model.b
            for k, w in zip(self.active, self.model.w):
                spec = self.specs[k]
                eta = eta + w * spec.values(self._raw(spec.term))
        else:
            m = self.method
            search = OnlineL1Search(self.y[self.tr], self.fixed[self.tr], self.loss, LambdaRule(lam), m.expander,
                                    retest=m.retest, max_rejections=m.max_rejections, record=False)
            run = search.run(iter(self.sub))
            eta = run.predict_eta(self.fixed[self.va], self._raw)
        return loss_value(self.loss, self.y[self.va], eta)


def _rows(block: TermBlock, rows: np.ndarray) -> TermBlock:
    """The same candidates restricted to some rows (for CV fits)."""
    b = block.block
    return TermBlock(block.stream, block.names, CandidateBlock(b.values[rows], b.widths), block.columns,
                     block.specs, block.pass_no)


def run_to_terms(run: OnlineL1Run) -> tuple[list[AcceptedTerm], pd.DataFrame]:
    """The selected terms (for the refit) and the ``selected`` table of a run.

    A linear term is refitted whole (all its design columns) when any of its weights is
    active; an RBF feature contributes its active basis columns, whose specs
    (``extra["basis"]``) let the formula path rebuild them on new data.
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
            extra["basis"] = tuple(specs)  # the formula layer writes them as refit terms
        else:
            values, columns = np.asarray(t.raw, dtype=float).reshape(len(t.raw), -1).copy(), list(t.columns)
        accepted.append(AcceptedTerm(name=t.name, stream=t.stream, values=values, columns=columns, spec=t.spec,
                                     extra=extra))
        rows.append({"order": order, "term": t.name, "stream": t.stream, "test": t.test,
                     "stream_test": t.stream_test, "statistic": t.statistic, "df": len(idx), "pvalue": np.nan,
                     "level": t.level, "wealth": np.nan, "abs_weight": float(np.abs(extra["weights"]).sum())})
    return accepted, pd.DataFrame(rows, columns=[*SELECTED_COLUMNS, "abs_weight"])
