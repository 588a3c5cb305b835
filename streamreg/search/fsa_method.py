"""``method="fsa"``: Feature Selection with Annealing (M. Wang 2021) as a search method.

FSA reads every candidate, fits a penalised model while it removes the weakest columns on
an annealing schedule, and keeps ``k`` (:func:`streamreg.screening.fsa`).  As a method it
hands the ``k`` terms to the common refit, so they get the same summary, ``tidy()``,
plots and :func:`~streamreg.compare` as any other search.  It controls no error rate.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..models.families import spec_of
from ..models.protocol import ComparableState
from ..screening.fsa import fsa
from ..streams.base import AcceptedTerm, Stream
from ..validators import INTEGER, NUMBER, check_integer
from .history import HistoryRecorder, Status
from .method import OwnLoop
from .options import SearchOptions
from .result import SELECTED_COLUMNS, SearchResult, check_streams, per_stream_table
from .stepwise import collect_blocks


class FSA(OwnLoop):
    """Keep ``k`` terms by Feature Selection with Annealing (Algorithm 1 of M. Wang (2021)).

    Parameters
    ----------
    k : int
        Terms to keep (at most the number of candidates).
    mu : float
        Annealing parameter (eq. 2.26): larger removes more columns early.
    n_iter : int
        Gradient iterations.
    ridge : float
        Shrinkage on the standardised scale (keeps a logistic fit finite on separable data).
    max_candidates : int
        Cap on the candidates read (FSA holds them all in memory).

    Notes
    -----
    Candidates must be single columns, the family Gaussian (identity link) or binomial
    (logit link), and the fixed part the intercept alone: FSA penalises every coefficient.
    The history's ``statistic`` is each kept term's coefficient on the standardised scale
    (``|coef| * sd``); the others are rejected.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 40)); y = 2 * X[:, 3] - X[:, 17] + rng.normal(size=100)
    >>> sr.select(y, X, method="fsa", k=2).selected_terms
    ['x3', 'x17']
    """

    name = "fsa"
    takes_weights = False  # its penalised fit takes no offset or weights
    OPTION_KINDS = {"k": (INTEGER,), "mu": (NUMBER,), "n_iter": (INTEGER,), "ridge": (NUMBER,),
                    "max_candidates": (INTEGER,)}

    def __init__(self, k: int, *, mu: float = 100.0, n_iter: int = 500, ridge: float = 1e-3,
                 max_candidates: int = 1_000_000) -> None:
        check_integer("k", k, minimum=1)
        check_integer("n_iter", n_iter, minimum=1)
        for label, value in (("mu", mu), ("ridge", ridge)):
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= 0) or (
                    label == "mu" and value == 0):
                raise ValueError(f"{label} must be a {'positive' if label == 'mu' else 'non-negative'} number, "
                                 f"got {value!r}")
        self.k, self.mu, self.n_iter, self.ridge = int(k), float(mu), int(n_iter), float(ridge)
        self.max_candidates = max_candidates

    def parameters(self) -> dict:
        return {"k": self.k, "mu": self.mu, "n_iter": self.n_iter}

    def spawn(self) -> FSA:
        return FSA(self.k, mu=self.mu, n_iter=self.n_iter, ridge=self.ridge, max_candidates=self.max_candidates)

    @property
    def reads_lazily(self) -> bool:
        return False  # FSA needs every candidate at once

    def describe(self) -> str:
        return f"FSA(k={self.k}, mu={self.mu:g}, n_iter={self.n_iter})"

    def guarantee(self) -> str:
        return (f"FSA keeps the k = {self.k} terms that survive annealed thresholding of a penalised fit; it "
                "controls no error rate, and k is the user's choice.")

    def check_family(self, family: Any) -> None:
        _loss(family)

    def run(self, state: ComparableState, streams: Sequence[Stream], *, fixed: np.ndarray, family: Any,
            options: SearchOptions) -> SearchResult:
        check_streams(streams)
        loss = _loss(family)
        fixed = np.asarray(fixed, dtype=float)
        if fixed.shape[1] > 1 or (fixed.shape[1] == 1 and np.ptp(fixed[:, 0]) != 0):
            raise ValueError("method='fsa' takes no fixed terms besides the intercept (it penalises every "
                             "coefficient): move them into a stream or use another method")
        t0 = time.monotonic()
        blocks = collect_blocks(streams, options.block_size, self.max_candidates)
        widths = np.concatenate([b.block.widths for b in blocks]) if blocks else np.zeros(0, dtype=int)
        if not blocks or widths.size == 0:
            raise ValueError("the streams hold no candidate term")
        if (widths != 1).any():
            raise ValueError("method='fsa' takes single-column candidates only; code factors as indicator "
                             "columns in their own stream(s)")
        if self.k > widths.size:
            raise ValueError(f"k={self.k} is more than the {widths.size} candidates in the streams")
        x = np.concatenate([b.block.values for b in blocks], axis=1)
        y = np.asarray(state.y, dtype=float)
        fit = fsa(x, y, self.k, family=loss, mu=self.mu, n_iter=self.n_iter, ridge=self.ridge,
                  feature_names=[str(j) for j in range(x.shape[1])])
        kept = np.array(sorted(int(c) for c in fit.coef.index), dtype=int)
        strength = np.full(x.shape[1], np.nan)
        strength[kept] = np.abs(fit.coef.loc[[str(j) for j in kept]].to_numpy()) * x[:, kept].std(axis=0)
        owner = [(b, i) for b in blocks for i in range(len(b))]
        history = HistoryRecorder()
        accepted: list[AcceptedTerm] = []
        at = 0
        for b in blocks:
            status = np.where(np.isin(np.arange(at, at + len(b)), kept), Status.ACCEPTED, Status.REJECTED)
            history.add(b.stream, list(b.names), test=np.arange(at, at + len(b)),
                        statistic=strength[at:at + len(b)], df=1, status=status)
            at += len(b)
        for j in kept:
            b, i = owner[j]
            accepted.append(AcceptedTerm(name=b.names[i], stream=b.stream, values=b.block.term(i).copy(),
                                         columns=b.column_names(i), spec=b.spec(i)))
        selected = pd.DataFrame({"order": np.arange(1, kept.size + 1), "term": [a.name for a in accepted],
                                 "stream": [a.stream for a in accepted], "test": kept, "stream_test": kept,
                                 "statistic": strength[kept], "df": 1, "pvalue": np.nan, "level": np.nan,
                                 "wealth": np.nan}, columns=list(SELECTED_COLUMNS))
        tested = [sum(len(b) for b in blocks if b.stream == s.name) for s in streams]
        out = SearchResult(history.frame(), accepted, selected, {}, [s.name for s in streams], int(widths.size),
                           "end of streams", time.monotonic() - t0, per_stream_table(streams, tested, accepted))
        out.test_description = "FSA: |coefficient| on the standardised scale after annealing"
        return out


#: FSA's names of the penalised methods' losses (``FamilySpec.penalised_loss``)
_FSA_LOSS = {"squared": "gaussian", "logistic": "binomial"}


def _loss(family: Any) -> str:
    """FSA's loss for a statsmodels family: squared error or logistic, else ValueError."""
    loss = spec_of(family).loss_for(family)
    link = type(getattr(family, "link", None)).__name__
    if loss is not None and link in ("Identity", "Logit"):  # the exact link class (not probit, a Logit subclass)
        return _FSA_LOSS[loss]
    raise ValueError(f"method='fsa' fits the gaussian (identity link) and binomial (logit link) families only, "
                     f"got {type(family).__name__} with link {link}")
