"""Stepwise selection with a fixed penalty (Zhou et al. 2006, section 2 and Table 2).

Forward stepwise (as R's ``step(direction="forward")``): at every step *all* remaining
candidates are scored against the current model with one block operation of the model
state (``score_block``: one projection ``B - Q (Q'B)`` for least squares), the one with the
largest penalised gain ``2 delta loglik - k d`` enters if that gain is positive (``k`` the
penalty per degree of freedom, R's ``step(k=)``; ``d`` the term's degrees of freedom, its
rank given the model), and the search stops when no
candidate passes.  ``direction="both"`` also considers dropping each selected term (gain
``k d - 2 delta loglik`` of the removal) and makes the better of the best addition and the
best removal, as ``step()`` does; each move strictly lowers the criterion, so it ends.
Fixed terms (the ``lower`` scope of ``step()``) are never dropped.

The comparison is always on the exact ``2 delta loglik``:

* least squares: ``n log(RSS0 / RSS1)`` straight from the block scores;
* GLMs with ``test="lr"``: the state refits every candidate (exact for all);
* GLMs with ``test="score"`` (default): the block's score statistics rank the candidates,
  the ``exact_top`` best by ``score - k d`` are refitted and the decision uses their exact
  gain.  ``exact_top=None`` refits every candidate, i.e. exactly R's ``step()``; a finite
  value can miss a candidate whose score badly under-states its likelihood gain.

The history's p-value of a move is that of the move's term against the smaller of the two
models: the state's own test where its statistic is exact (least squares' partial F or
robust Wald test, GLMs' ``test="lr"``), otherwise, for GLMs ranked by score statistics, the
exact ``2 delta loglik`` on the chi-square law with the term's degrees of freedom: R's
``add1(test = "LRT")`` and ``drop1(test = "LRT")`` for known-dispersion families.  With it,
"p-value below the history's level" is "gain above the penalty", the stepwise decision.

Stepwise needs every candidate in advance: the streams are read to the end (at most
``max_candidates`` terms) before the first step.  RIC with ``m`` not given uses the number
of candidates read; a stream of unknown length then raises ``ValueError`` up front.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from functools import partial
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy import special

from ..models.base import COLLINEAR, NO_DF, TESTED, CandidateBlock
from ..models.families import spec_of
from ..models.protocol import ComparableState
from ..outcomes import TestOutcomes
from ..policies.penalties import AIC, BIC, RIC, FixedPenalty
from ..progress import SearchProgress
from ..streams.base import AcceptedTerm, Stream, TermBlock
from ..validators import INTEGER, NONE, TEXT, check_choice, check_integer
from .history import HistoryRecorder, Status
from .method import OwnLoop
from .options import SearchOptions
from .result import SELECTED_COLUMNS, SearchResult, check_streams, per_stream_table

DIRECTIONS = ("forward", "both")
_PENALTIES = {"aic": AIC, "bic": BIC, "ric": RIC}
#: columns of the stepwise history after the common ones: the move, its step and its effect
STEP_COLUMNS = ("step", "action", "criterion_change", "model_size")


class StepwiseResult(SearchResult):
    """A :class:`SearchResult` plus what is particular to stepwise search.

    ``history`` has one row per move (an addition or a removal, its ``step``) and a last
    row with the best candidate that failed, when the search stopped for lack of one;
    ``n_tests`` counts candidate evaluations (candidates x steps).
    """

    def __init__(self, *, penalty: float, direction: str, test_description: str, steps: int, **base: Any) -> None:
        super().__init__(**base)
        self.penalty, self.direction = penalty, direction
        self.test_description, self.steps = test_description, steps


def collect_blocks(streams: Sequence[Stream], block_size: int, max_candidates: int | None) -> list[TermBlock]:
    """Read every stream to the end; ``ValueError`` past ``max_candidates`` terms."""
    blocks, total = [], 0
    for s in streams:
        while True:
            b = s.take(block_size)
            if b is None:
                break
            blocks.append(b)
            total += len(b)
            if max_candidates is not None and total > max_candidates:
                raise ValueError(
                    f"this method needs all candidates in advance, and the streams hold more than "
                    f"max_candidates={max_candidates} terms (an infinite stream?); raise max_candidates "
                    "or use a streamwise method")
    return blocks


def make_penalty(penalty: str | float | FixedPenalty, m: int | None = None) -> FixedPenalty:
    """A fixed-penalty policy from ``"aic"``, ``"bic"``, ``"ric"``, a number or an instance."""
    if isinstance(penalty, FixedPenalty):
        if m is not None:
            raise ValueError("m cannot be combined with a penalty instance; use RIC(m=...)")
        return cast(FixedPenalty, penalty.spawn())
    if isinstance(penalty, str):
        key = penalty.lower()
        if key not in _PENALTIES:
            raise ValueError(f"unknown penalty {penalty!r}; use 'aic', 'bic', 'ric', a number or a FixedPenalty")
        if key == "ric":
            return RIC(m=m)
        if m is not None:
            raise ValueError(f"m applies to RIC only, not to {penalty!r}")
        return _PENALTIES[key]()
    if isinstance(penalty, (int, float, np.floating)) and not isinstance(penalty, bool):
        return FixedPenalty(penalty=float(penalty))
    raise ValueError(f"penalty must be 'aic', 'bic', 'ric', a number or a FixedPenalty, got {penalty!r}")


class Stepwise(OwnLoop):
    """Stepwise selection with a fixed penalty, as ``method=`` for :func:`streamreg.streamreg`.

    Parameters
    ----------
    penalty : {"aic", "bic", "ric"}, float or FixedPenalty
        The penalty ``k`` per degree of freedom (R's ``step(k=)``): 2, ``log n`` or ``2 log m``.
    direction : {"forward", "both"}
        ``"both"`` also drops selected terms when that lowers the criterion (R's ``step``).
    m : int, optional
        Number of candidates for RIC (default: the number read from the streams).
    exact_top : int or None
        GLMs with score tests: candidates refitted per step for the exact gain (None: all).
    max_steps : int, optional
        Cap on moves.
    max_candidates : int
        Cap on the candidates read from streams of unknown length.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 30)); y = X[:, 2] - X[:, 7] + 0.5 * rng.normal(size=80)
    >>> sr.select(y, X, method="stepwise-bic").selected_terms
    ['x2', 'x7']
    """

    name = "stepwise"
    # penalty: a name, a number or a FixedPenalty (any kind: make_penalty decides)
    OPTION_KINDS = {"penalty": (), "direction": (TEXT,), "m": (INTEGER, NONE), "exact_top": (INTEGER, NONE),
                    "max_steps": (INTEGER, NONE), "max_candidates": (INTEGER,)}

    def __init__(self, penalty: str | float | FixedPenalty = "aic", *, direction: str = "forward", m: int | None = None,
                 exact_top: int | None = 10, max_steps: int | None = None, max_candidates: int = 1_000_000) -> None:
        check_choice("direction", direction, DIRECTIONS)
        check_integer("exact_top", exact_top, allow_none=True)
        check_integer("max_steps", max_steps, minimum=0, allow_none=True)
        self.penalty_arg, self.m = penalty, m
        self.policy = make_penalty(penalty, m)  # validates now, not after reading the data
        self.direction, self.exact_top = direction, exact_top
        self.max_steps, self.max_candidates = max_steps, max_candidates

    def parameters(self) -> dict:
        out = {"penalty": self.penalty_arg, "direction": self.direction}
        if self.m is not None:
            out["m"] = self.m
        return out

    def spawn(self) -> Stepwise:
        return Stepwise(self.penalty_arg, direction=self.direction, m=self.m, exact_top=self.exact_top,
                        max_steps=self.max_steps, max_candidates=self.max_candidates)

    @property
    def reads_lazily(self) -> bool:
        return False  # every candidate is read before the first step

    def check_family(self, family: Any) -> None:
        """Stepwise compares log-likelihoods, which a quasi family does not have (R's ``step()``
        stops: "AIC is not defined for this model")."""
        if family is not None and spec_of(family).loglik == "none":
            raise ValueError(f"stepwise search compares log-likelihoods, and the {spec_of(family).r_name} family has "
                             "none (R's step(): 'AIC is not defined for this model'); use a streamwise rule (the "
                             "default method) with it, or the family it extends (poisson, binomial)")

    def describe(self) -> str:
        args = f"direction={self.direction!r}"
        return f"stepwise {self.policy.describe()} k = {self._k_text()}, {args}"

    def _k_text(self) -> str:
        """The penalty per degree of freedom in force, "?" before the search."""
        k = getattr(self.policy, "_F", None)
        return "?" if k is None else f"{k:.4g}"

    def guarantee(self) -> str:
        return (f"Stepwise selection with a fixed penalty of k = {self._k_text()} per degree of freedom (R's "
                "step(k = ...)): fixed penalties control "
                "no error rate. Each step adds the best of all remaining candidates, so the entering "
                "statistic is a maximum over many tests and its nominal level is no false-selection "
                "probability.")

    # ------------------------------------------------------------------ search
    def run(self, state: ComparableState, streams: Sequence[Stream], *, fixed: np.ndarray, family: Any = None,
            options: SearchOptions) -> StepwiseResult:
        """Run the stepwise search; ``state`` is the fixed-terms model (changed in place)."""
        check_streams(streams)
        if isinstance(self.policy, RIC) and self.policy.m is None:
            unknown = [s.name for s in streams if s.n_candidates is None]
            if unknown:
                raise ValueError(
                    f"RIC needs the number of candidates m, and stream(s) {unknown} have no known length; "
                    "pass m=... (e.g. method='stepwise-ric', m=10000)")
        t0 = time.monotonic()
        # every step scores all blocks: read them about 8 MB at a time (views of array
        # streams; the block size never changes the decisions)
        read_size = max(options.block_size, (8 << 20) // max(8 * state.n, 1))
        blocks = collect_blocks(streams, read_size, self.max_candidates)
        if not blocks:
            raise ValueError("the streams hold no candidate term")
        cands = _Candidates(blocks)
        policy = self.policy
        # observations counted: sum(freq_weights) with frequency weights (statsmodels' BIC), else the rows
        policy.start(n_obs=getattr(state, "nobs", state.n), n_candidates=len(cands))
        run = _StepwiseRun(state, np.asarray(fixed, dtype=float), cands, policy.threshold, self.exact_top)
        # a bar of candidate evaluations (their number is unknown in advance), updated once per step
        with SearchProgress(options.verbose, total=options.max_tests, desc="stepwise") as bar:
            stopped, step = self._steps(run, options, t0, bar)
            bar.close(run.n_tests, len(run.in_model))
        return self._result(run, streams, stopped, step, time.monotonic() - t0)

    def _steps(self, run: _StepwiseRun, options: SearchOptions, t0: float, bar: SearchProgress) -> tuple[str, int]:
        """The moves until a stopping rule or no move improves the criterion: (why it stopped, steps)."""
        max_tests, max_selected, time_budget = options.max_tests, options.max_selected, options.time_budget
        stopped, step = "no candidate improves the criterion", 0
        while True:
            bar.update(run.n_tests, len(run.in_model))
            if self.max_steps is not None and step >= self.max_steps:
                stopped = "max_steps"
                break
            if max_selected is not None and len(run.in_model) >= max_selected:
                stopped = "max_selected"
                break
            if max_tests is not None and run.n_tests >= max_tests:
                stopped = "max_tests"
                break
            if time_budget is not None and time.monotonic() - t0 > time_budget:
                stopped = "time_budget"
                break
            run.step = step + 1  # the move being decided (refusals found while scoring carry it)
            add = run.best_addition()
            drop = run.best_removal() if self.direction == "both" else None
            if drop is not None and drop[1] > 0 and (add is None or drop[1] > add[1]):
                step += 1
                run.drop(drop[0], drop[2], step)
                continue
            if add is None or not add[1] > 0:
                if add is not None:
                    run.record(add[0], add[2], add[1], Status.REJECTED, step + 1)
                elif run.untestable:
                    stopped = "no residual degrees of freedom left for another term"
                break
            step += 1
            if not run.add(add[0], add[2], add[1], step):
                step -= 1  # refused: not a move
        return stopped, step

    def _result(self, run: _StepwiseRun, streams: Sequence[Stream], stopped: str, steps: int,
                elapsed: float) -> StepwiseResult:
        c = run.cands
        accepted, rows = [], []
        for order, j in enumerate(run.in_model, start=1):
            info = run.entry[j]
            term = c.accepted_term(j)
            accepted.append(term)
            rows.append({"order": order, "term": term.name, "stream": term.stream, "test": info["step"],
                         "stream_test": info["step"], "statistic": info["llr"], "df": info["df"],
                         "pvalue": _exp(info["log_p"]), "level": info["level"], "wealth": np.nan})
        # the tables are built on first access: on a small problem pandas costs more than the search
        selected = partial(pd.DataFrame, rows, columns=list(SELECTED_COLUMNS))
        per_stream = partial(per_stream_table, list(streams), [c.count(s.name) for s in streams], list(accepted))
        state = run.state
        if state.exact_gain:
            test = f"exact 2 delta loglik ({state.llr_description})"
        elif self.exact_top is None:
            test = "exact 2 delta loglik (LR refits)"
        else:
            test = f"score statistic ranks, exact 2 delta loglik for the best {self.exact_top} per step"
        return StepwiseResult(
            history=run.history.frame, accepted=accepted, selected=selected, policies={},
            stream_names=[s.name for s in streams], n_tests=run.n_tests, stopped_by=stopped, elapsed=elapsed,
            per_stream=per_stream, penalty=self.policy.threshold, direction=self.direction,
            test_description=f"penalised likelihood, 2 delta loglik > k d; {test}", steps=steps)


class _Candidates:
    """All candidate terms, kept as the blocks the streams handed out.

    The blocks are views of the user's matrix (never stacked into one copy), and each
    keeps its column norms from the first step on, so a step is one pass ``[Q r]'B``
    over the candidates, as in a plain forward search.
    """

    def __init__(self, blocks: list[TermBlock]):
        self.term_blocks = blocks  # names and specs are looked up only for the few reported terms
        self.blocks = [b.block for b in blocks]
        self.offsets = np.concatenate(([0], np.cumsum([len(b) for b in blocks]))).astype(int)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def _locate(self, j: int) -> tuple[TermBlock, int]:
        b = int(np.searchsorted(self.offsets, j, side="right")) - 1
        return self.term_blocks[b], j - int(self.offsets[b])

    def term(self, j: int) -> np.ndarray:
        block, i = self._locate(j)
        return block.block.term(i)

    def name(self, j: int) -> str:
        block, i = self._locate(j)
        return block.names[i]

    def stream(self, j: int) -> str:
        return self._locate(j)[0].stream

    def accepted_term(self, j: int) -> AcceptedTerm:
        block, i = self._locate(j)
        return AcceptedTerm(name=block.names[i], stream=block.stream, values=block.block.term(i).copy(),
                            columns=block.column_names(i), spec=block.spec(i))

    def count(self, stream: str) -> int:
        """Candidates read from ``stream``."""
        return sum(len(b) for b in self.term_blocks if b.stream == stream)

    def score(self, state: ComparableState, available: np.ndarray) -> tuple[TestOutcomes, np.ndarray]:
        """Outcomes and skip codes of every candidate against ``state``, block by block.

        Blocks with no available candidate are not scored; their entries are skipped
        (code ``COLLINEAR``, never chosen).
        """
        parts, codes = [], []
        for b, block in enumerate(self.blocks):
            lo, hi = self.offsets[b], self.offsets[b + 1]
            if available[lo:hi].any():
                out, code = state.score_block(block)
            else:
                out, code = _skipped(len(block), block.widths), np.full(len(block), COLLINEAR, dtype=np.int8)
            parts.append(out)
            codes.append(code)
        return TestOutcomes.concatenate(parts), np.concatenate(codes)


def _exp(log_p: float) -> float:
    """The p-value of a log p-value (NaN stays NaN)."""
    return float("nan") if math.isnan(log_p) else math.exp(log_p)


def _skipped(m: int, widths: np.ndarray) -> TestOutcomes:
    """Placeholder outcomes for candidates that are not scored at this step."""
    zero = np.zeros(m)
    return TestOutcomes(zero, widths.astype(int), np.ones(m), zero, lambda s, d, r: np.zeros(len(s)),
                        _log_p=zero, placeholder=True)


class _StepwiseRun:
    """The moving parts of one stepwise search."""

    def __init__(self, state: ComparableState, fixed: np.ndarray, cands: _Candidates, penalty: float,
                 exact_top: int | None):
        self.state, self.fixed, self.cands, self.penalty, self.exact_top = state, fixed, cands, penalty, exact_top
        self.in_model: list[int] = []
        self.available = np.ones(len(cands), dtype=bool)
        self.entry: dict[int, dict] = {}
        self.history = HistoryRecorder(extra=STEP_COLUMNS)
        self.n_tests = 0
        self.step = 1
        self.untestable = False  # the last scoring found no testable candidate for lack of df
        self._levels: dict[int, float] = {}  # the nominal level of each term width seen

    # ---------------------------------------------------------------- scoring
    def best_addition(self) -> tuple[int, float, dict[str, Any]] | None:
        """(candidate, exact gain llr - k d, info) of the best addition, or None."""
        idx = np.flatnonzero(self.available)
        if idx.size == 0:
            return None
        out, codes = self.cands.score(self.state, self.available)
        out, codes = out.take(idx), codes[idx]
        self.n_tests += int(idx.size)
        ok = codes == TESTED
        if not ok.any():
            # nothing could be tested: say why, rather than "no candidate improves the criterion"
            self.untestable = bool((codes == NO_DF).any())
            return None
        llr, df = out.llr.astype(float), out.df.astype(float)
        gain = np.where(ok, llr - self.penalty * df, -np.inf)
        exact = self.state.exact_gain
        if not exact:
            # rank by the score statistic, decide on exact refits of the best few
            order = np.argsort(-gain, kind="stable")
            order = order[np.isfinite(gain[order])]
            top = order if self.exact_top is None else order[: self.exact_top]
            exact_llr = np.full(len(idx), np.nan)
            for t in top:
                value, problem = self.state.llr_with(self.cands.term(idx[t]))
                if problem is not None:
                    # the term cannot enter (no MLE, or IRLS fails): recorded, never offered again
                    self.refuse(int(idx[t]), {"llr": float(llr[t]), "df": int(df[t]), "log_p": np.nan}, problem)
                    continue
                exact_llr[t] = value
            keep = np.isfinite(exact_llr)
            if not keep.any():
                return None
            llr = np.where(keep, exact_llr, llr)
            gain = np.where(keep, exact_llr - self.penalty * df, -np.inf)
        k = int(np.argmax(gain))  # first maximum: the earliest candidate on ties
        if not np.isfinite(gain[k]):
            return None
        # one p-value, not all: the state's test, or the exact gain's chi-square
        log_p = float(out.take([k]).log_p[0]) if exact else self._chi2_log_p(float(llr[k]), int(df[k]))
        info = {"llr": float(llr[k]), "df": int(df[k]), "log_p": log_p}
        return int(idx[k]), float(gain[k]), info

    def best_removal(self) -> tuple[int, float, dict[str, Any]] | None:
        """(candidate, gain k d - 2 delta loglik of removing it, info) of the best removal."""
        if not self.in_model:
            return None
        best = None
        for j in self.in_model:
            keep = [t for t in self.in_model if t != j]
            try:
                reduced = self.state.refit(self.fixed, [self.cands.term(t) for t in keep])
            except ValueError:  # the reduced model has no MLE: this removal is not a move
                continue
            llr = self.state.llr_over(reduced)  # R's drop1: at the current model's dispersion (or theta)
            d = self.entry[j]["df"]
            gain = self.penalty * d - llr
            if best is None or gain > best[1]:
                best = (j, gain, {"llr": llr, "df": d, "state": reduced})
        return best

    # ------------------------------------------------------------------ moves
    def refuse(self, j: int, info: dict, reason: str) -> None:
        """Record that candidate ``j`` cannot enter the model and take it out of the search."""
        self.available[j] = False
        self.record(j, info, np.nan, Status.refusal(reason), self.step)

    def add(self, j: int, info: dict, gain: float, step: int) -> bool:
        reason = self.state.accept(self.cands.term(j))
        self.available[j] = False
        if reason is not None:
            self.record(j, info, gain, Status.refusal(reason), step)
            return False
        self.in_model.append(j)
        self.entry[j] = {**info, "step": step, "level": self._level(info["df"])}
        self.record(j, info, gain, Status.ACCEPTED, step)
        return True

    def drop(self, j: int, info: dict, step: int) -> None:
        self.state = info.pop("state")
        info["log_p"] = self._removal_log_p(j, info["llr"], info["df"])
        self.in_model.remove(j)
        self.available[j] = True
        gain = self.penalty * info["df"] - info["llr"]
        self.record(j, info, -gain, Status.DROPPED, step, gain_of_move=gain)

    def _chi2_log_p(self, llr: float, df: int) -> float:
        """log p of an exact ``2 delta loglik`` on the chi-square law with ``df`` degrees of freedom
        (the likelihood-ratio test; accurate far in the tail)."""
        return float(self.state.log_pvalue(np.array([llr]), np.array([df]), np.array([np.inf]))[0])

    def _removal_log_p(self, j: int, llr: float, df: int) -> float:
        """log p of removing term ``j``: the current (reduced) state's test of adding it back
        where that test is exact (R's ``drop1(test = "F")`` for least squares), else the chi-square
        of the exact gain (R's ``drop1(test = "LRT")``)."""
        if not self.state.exact_gain:
            return self._chi2_log_p(llr, df)
        values = np.asarray(self.cands.term(j), dtype=float).reshape(self.state.n, -1)
        out, codes = self.state.score_block(CandidateBlock(values, np.array([values.shape[1]])))
        return float(out.log_p[0]) if codes[0] == TESTED else float("nan")

    def _level(self, df: int) -> float:
        """Nominal chi-square level of the threshold ``k d`` (scipy.stats' ``chi2.sf``, whose
        value is this function's; called per recorded move, so without its argument checks)."""
        level = self._levels.get(df)
        if level is None:
            level = self._levels[df] = float(special.chdtrc(df, self.penalty * df))
        return level

    def record(self, j: int, info: dict, gain: float, status: Status, step: int,
               gain_of_move: float | None = None) -> None:
        c = self.cands
        log_p = float(info.get("log_p", np.nan))
        pvalue = _exp(log_p)
        self.history.add_row(
            c.stream(j), c.name(j), test=step, stream_test=step, statistic=info["llr"], df=info["df"],
            pvalue=pvalue, log_p=log_p, level=self._level(info["df"]), status=status, step=step,
            action="drop" if status == Status.DROPPED else "add",
            criterion_change=-(gain if gain_of_move is None else gain_of_move), model_size=len(self.in_model))
