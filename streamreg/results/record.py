"""The public record of a selection: the selected model, how it was chosen, and what reads them.

:class:`SelectedModel` is the selected terms as a formula on the rows they are refit on;
:class:`SelectionRecord` is the search and what the summary says about it.  A
:class:`~streamreg.results.StreamRegResults` keeps both as ``selected_model`` and
``selection`` beside its statsmodels refit ``fit``.  The helpers that predict, tabulate and
summarise (:mod:`.prediction`, :mod:`.broom`, :mod:`.summary`) read those three public
attributes through the :class:`FittedSelection` protocol, so they never import the results
class and never read its private state.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..formula.matrices import design_matrix
from ..models.base import NO_WEIGHTS, ObservationWeights
from ..models.robust import NONROBUST, RobustCov
from ..search.result import SearchResult
from ..seeds import SeedUse
from ..streams.generated import DerivedColumns


@dataclass(frozen=True, eq=False)
class SelectedModel:
    """The selected model as a formula on the rows it is refit on.

    Attributes
    ----------
    rhs : str
        patsy right-hand side: the fixed terms, then the selected terms in order.
    response_label : str
        The response as a formula expression (``I((d == 'M') * 1)`` for a two-level factor).
    response_name : str
        The response's column name.
    train : DataFrame
        The columns the terms use, on the refit rows (generated PCA columns included).
    y : ndarray
        The response on the rows of ``train``, as modelled (0/1 for the binomial family).
    family : statsmodels family
        Gaussian with identity link is refit by OLS, every other family by a GLM.
    derived : DerivedColumns, optional
        State of generated terms (PCA loadings, user transforms) for rebuilding them.
    functions : mapping, optional
        The formula's functions that the terms call, as
        :func:`~streamreg.formula.namespace.term_functions` gives them.
    weights : ObservationWeights, optional
        Offset, exposure and weights on the rows of ``train`` (none by default).
    cov : RobustCov, optional
        The covariance type of the refit (statsmodels' ``cov_type``; clusters on the rows
        of ``train``).  ``"nonrobust"`` by default.
    use_t : bool, optional
        statsmodels' ``fit(use_t=)`` of the refit; None (the default) keeps statsmodels' choice
        on ``.fit`` and R's convention for the results' p-values (:mod:`.inference`).

    Examples
    --------
    >>> import pandas as pd, streamreg as sr
    >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
    >>> model = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).selected_model
    >>> model.formula, model.train.shape
    ('y ~ 1 + x2', (100, 2))
    >>> model.design(pd.DataFrame({"x2": [0.5, 2.0]}))
       Intercept   x2
    0        1.0  0.5
    1        1.0  2.0
    """

    rhs: str
    response_label: str
    response_name: str
    train: pd.DataFrame
    y: np.ndarray
    family: sm.families.Family
    derived: DerivedColumns | None = None
    functions: Mapping[str, Callable] = field(default_factory=dict)
    weights: ObservationWeights = NO_WEIGHTS
    cov: RobustCov = NONROBUST
    use_t: bool | None = None

    @property
    def formula(self) -> str:
        """The refit as a plain formula, usable with ``statsmodels.formula.api``."""
        return f"{self.response_label} ~ {self.rhs}"

    def design(self, newdata: pd.DataFrame, nonfinite: Literal["raise", "nan"] = "raise") -> pd.DataFrame:
        """The refit's design coded on ``newdata`` as on the training rows (factor levels, PCA loadings).

        ``nonfinite`` as :func:`~streamreg.formula.matrices.design_matrix` takes it.
        """
        return design_matrix(self.rhs, self.train, newdata, self.derived, self.functions, nonfinite=nonfinite)


@dataclass(frozen=True, eq=False)
class SelectionRecord:
    """How the terms were chosen: the search and what the summary reports about it.

    Attributes
    ----------
    search : SearchResult
        History, selected table, per-stream counts and the stopping reason.
    policy : Policy or search method
        The rule that selected (``describe()`` and ``guarantee()`` are reported).
    test_description : str
        The test in words (see :func:`~streamreg.results.selected.describe_test`).
    formula : str, optional
        The formula as the user wrote it (None for :func:`streamreg.select`).
    success_level : object, optional
        The level modelled as success by a binomial response with two levels.
    n_dropped : int
        Rows dropped for missing values.
    y_ordered : tuple of str
        Streams whose candidate order looked at the response.
    validation : mapping, optional
        Sample-splitting sizes when the refit rows are held-out rows.
    missing_by_column : mapping
        The used columns holding missing values, and how many each holds.
    seed : SeedUse
        The seed of the random split, orders and decoys (given, or drawn when none was) and what it
        drove; ``SeedUse()`` when nothing was random.

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
    >>> record = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).selection
    >>> record.policy_description, record.stopped_by, list(record.selected["term"])
    ('screen-confirm(w0=0.05, alpha_delta=0.05, screen_w0=0.5)', 'exhausted', ['x2'])
    """

    search: SearchResult
    policy: Any
    test_description: str
    formula: str | None = None
    success_level: object | None = None
    n_dropped: int = 0
    y_ordered: tuple[str, ...] = ()
    validation: Mapping[str, int] | None = None
    missing_by_column: Mapping[str, int] = field(default_factory=dict)
    seed: SeedUse = SeedUse()

    @property
    def selected(self) -> pd.DataFrame:
        """One row per selected term (the search's table)."""
        return self.search.selected

    @property
    def per_stream(self) -> pd.DataFrame:
        """Candidates tested, terms selected and final wealth per stream."""
        return self.search.per_stream

    @property
    def history_mode(self) -> str:
        """``"full"`` or ``"none"`` (the ``history=`` option of the call)."""
        return str(getattr(self.search, "history_mode", "full"))

    @property
    def stopped_by(self) -> str:
        """Why the search stopped."""
        return str(self.search.stopped_by)

    @property
    def policy_description(self) -> str:
        """The rule with its parameters, ``name(param=value, ...)``; for a screen-confirm search
        that fell back to one phase, the rule that ran and what it stands in for."""
        if self._one_phase_fallback:
            ran = next(iter(self.search.policies.values()), None)
            if ran is not None:
                return f"{ran.describe()}, in one phase for {self.policy.describe()}"
        return str(self.policy.describe())

    @property
    def _one_phase_fallback(self) -> bool:
        """screen-confirm ran the confirmation's rule alone (see its "Confirmation:" line)."""
        return str(getattr(self.search, "confirmation", "")).startswith("none")

    @cached_property
    def history(self) -> pd.DataFrame:
        """One row per candidate examined, as the rule explains it (built once, on first access)."""
        # a started policy explains the history (its columns may depend on n_obs);
        # the methods with their own loop have none and explain their own
        started = next(iter(self.search.policies.values()), None)
        history = self.search.history
        return started.annotate(history) if started is not None else history

    def guarantee(self) -> str:
        """What the rule guarantees, under which assumption, and when this selection voids it."""
        policy = self.policy
        if self._one_phase_fallback:
            # screen-confirm ran the confirmation's rule alone, in one phase: that rule's guarantee
            policy = next(iter(self.search.policies.values()), policy)
        text = str(policy.guarantee())
        if self.test_description.startswith("paper 000 code"):
            # exp(-dRSS / (2 RSS0 / n)) is super-uniform only while k/n is small (anti-conservative beyond)
            text += (" CAVEAT: test='paper' computes p = exp(-dRSS / (2 RSS0 / n)), which is a valid p-value "
                     "only while the model is small against n; with many terms it admits more null terms than "
                     "its level, and the bound above may fail (test='t' is exact).")
        if self.y_ordered:
            text += (f" VOID here: the order of stream(s) {list(self.y_ordered)} was chosen by a "
                     "screening score that looked at the response, so the candidates were not "
                     "generated independently of y and the wealth guarantee does not apply.")
        return text

    def false_selection_estimate(self) -> float | None:
        """The rule's plug-in estimate of false selections from the wealth left (None without one)."""
        w_final = float(np.nansum(self.per_stream["final_wealth"]))
        estimate = self.policy.false_selection_estimate(len(self.selected), w_final)
        return None if estimate is None else float(estimate)


class FittedSelection(Protocol):
    """What the results helpers read: the selected model, its selection record and the refit.

    :class:`~streamreg.results.StreamRegResults` is one; the helpers take any object with
    these attributes.
    """

    @property
    def selected_model(self) -> SelectedModel:
        """The selected terms as a formula on the refit's rows."""

    @property
    def selection(self) -> SelectionRecord:
        """How the terms were chosen."""

    @property
    def fit(self) -> Any:
        """The statsmodels refit (OLS, WLS or GLM results)."""

    @property
    def refit_warnings(self) -> list[str]:
        """Problems statsmodels reported when refitting, in plain language."""
