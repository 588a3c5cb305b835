"""From a finished search to :class:`StreamRegResults`: the refit of the selected model.

The entry points (:mod:`streamreg.api`) describe what was selected with two small typed
objects, :class:`SelectedModel` (the terms as a formula on the rows to refit) and
:class:`SelectionRecord` (how they were chosen); :func:`fit_selected` refits the model with
statsmodels and returns the results.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..formula.design import design_matrix
from ..models.base import NO_WEIGHTS, ObservationWeights
from ..models.families import describe_test as describe_test_name, spec_of
from ..models.robust import NONROBUST, RobustCov
from ..search.streamwise import SearchResult
from ..streams.generated import DerivedColumns
from .refit import RefitWarning, refit
from .results import StreamRegResults


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
    use_t : bool, optional
        statsmodels' ``fit(use_t=)`` of the refit; None (the default) keeps statsmodels' choice
        on ``.fit`` and R's convention for the results' p-values (:mod:`.inference`).
    cov : RobustCov, optional
        The covariance type of the refit (statsmodels' ``cov_type``; clusters on the rows
        of ``train``).  ``"nonrobust"`` by default.
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
        The test, in words (see :func:`describe_test`).
    formula : str, optional
        The formula as the user wrote it (None for :func:`streamreg.select`).
    success_level : object, optional
        The level modelled as success by a binomial response with two levels.
    n_dropped : int
        Rows dropped for missing values.
    missing_by_column : mapping
        The used columns holding missing values, and how many each holds.
    y_ordered : tuple of str
        Streams whose candidate order looked at the response.
    validation : mapping, optional
        Sample-splitting sizes when the refit rows are held-out rows.
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


def describe_test(search: SearchResult, state: object) -> str:
    """The test in words: the search method's own description, else the model state's test.

    Parameters
    ----------
    search : SearchResult
        A penalised or stepwise search may carry a ``test_description``.
    state : model state
        Its ``test`` (``"t"``, ``"paper"``, ``"score"`` or ``"lr"``) names the test; a robust
        ``cov`` (:class:`~streamreg.models.robust.RobustCov`) makes it a robust Wald test.

    Returns
    -------
    str

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> describe_test(SimpleNamespace(), SimpleNamespace(test="score"))
    'score (Rao) chi-square'
    >>> describe_test(SimpleNamespace(), SimpleNamespace(test="t", cov=RobustCov("HC3")))
    'heteroscedasticity-robust (HC3) Wald z (chi-square for multi-column terms)'
    """
    own = getattr(search, "test_description", "")
    if own:
        return own
    cov = getattr(state, "cov", NONROBUST)
    if isinstance(cov, RobustCov) and cov.robust:
        return f"{cov.describe()} Wald z (chi-square for multi-column terms)"
    test = str(getattr(state, "test", ""))
    return describe_test_name(test)  # the families' CandidateTest descriptions


def fit_selected(model: SelectedModel, selection: SelectionRecord) -> StreamRegResults:
    """Refit the selected model with statsmodels and return the results.

    Problems statsmodels reports (separation, rank deficiency, no convergence) are kept in
    plain language in ``refit_warnings`` and raised once as a
    :class:`~streamreg.results.refit.RefitWarning`.

    Parameters
    ----------
    model : SelectedModel
        The selected terms as a formula on the refit rows.
    selection : SelectionRecord
        How they were chosen.

    Returns
    -------
    StreamRegResults
    """
    x = design_matrix(model.rhs, model.train, model.train, model.derived, model.functions)
    y = pd.Series(model.y, index=x.index, name=model.response_name)
    fit, problems = refit(y, x, model.family, model.weights, model.cov, use_t=model.use_t)
    if problems:
        # stacklevel 3: the user's call of streamreg() or select(), which called this
        warnings.warn("the refit of the selected terms is unreliable: " + "; ".join(problems)
                      + " (see summary())", RefitWarning, stacklevel=3)
    results = StreamRegResults(model=model, selection=selection, fit=fit, refit_warnings=problems)
    if spec_of(model.family).theta_estimated:  # the family at the refit's estimate (glm.nb's theta)
        results.family = fit.model.family
    results._weights = model.weights  # offset, exposure and weights of the refit (read by predictions)
    results._use_t = model.use_t  # None: R's convention (StreamRegResults.use_t)
    return results
