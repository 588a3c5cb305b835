"""From a finished search to :class:`StreamRegResults`: the refit of the selected model.

The entry points (:mod:`streamreg.api`) describe what was selected with two small typed
objects of :mod:`.record`, :class:`SelectedModel` (the terms as a formula on the rows to
refit) and :class:`SelectionRecord` (how they were chosen); :func:`fit_selected` refits the
model with statsmodels and returns the results, which keep both.
"""
from __future__ import annotations

import dataclasses
import warnings

import pandas as pd

from ..models.families import describe_test as describe_test_name, spec_of
from ..models.robust import NONROBUST, RobustCov
from ..search.result import SearchResult
from .record import SelectedModel, SelectionRecord
from .refit import RefitWarning, refit
from .results import StreamRegResults

__all__ = ["RefitWarning", "SelectedModel", "SelectionRecord", "describe_test", "fit_selected"]


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


def fit_selected(model: SelectedModel, selection: SelectionRecord, design: pd.DataFrame | None = None
                 ) -> StreamRegResults:
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
    design : DataFrame, optional
        ``model.design(model.train)`` when the caller has built it already.

    Returns
    -------
    StreamRegResults
    """
    x = model.design(model.train) if design is None else design
    y = pd.Series(model.y, index=x.index, name=model.response_name)
    fit, problems = refit(y, x, model.family, model.weights, model.cov, use_t=model.use_t)
    if problems:
        # stacklevel 3: the user's call of streamreg() or select(), which called this
        warnings.warn("the refit of the selected terms is unreliable: " + "; ".join(problems)
                      + " (see summary())", RefitWarning, stacklevel=3)
    if spec_of(model.family).theta_estimated:  # the family at the refit's estimate (glm.nb's theta)
        model = dataclasses.replace(model, family=fit.model.family)
    return StreamRegResults(model=model, selection=selection, fit=fit, refit_warnings=problems)
