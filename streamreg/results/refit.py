"""The final refit of the selected terms with statsmodels, at any column scale.

statsmodels solves least squares with a pseudo-inverse whose cut-off is relative to the
largest singular value, so a column at 1e17 beside an intercept makes the intercept
"rank-deficient" (and a column at 1e-17 disappears), although the design has full rank.
The model states score every column at a power-of-two scale; the refit does the same and
then expresses the estimates in the user's units: with ``X = Xs diag(s)``,
``beta = beta_s / s`` and ``cov = cov_s / (s s')``.  Powers of two keep every digit, so
the state and the refit always work on the same design.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.genmod.generalized_linear_model import GLMResults, GLMResultsWrapper
from statsmodels.regression.linear_model import OLSResults, RegressionResultsWrapper

from ..models import is_ols
from ..models.base import column_scales
from ..models.glm import near_boundary
from ..models.separation import mle_exists

#: rescale when column scales differ by more than this factor (below it the pseudo-inverse
#: loses no digits that matter, and statsmodels' own results object is returned unchanged)
_SPREAD = 2.0**20
_GLM_TOL, _GLM_MAXITER = 1e-10, 200


class RefitWarning(UserWarning):
    """The statsmodels refit of the selected terms is not trustworthy (separation, rank)."""


def refit(y: pd.Series, x: pd.DataFrame, family) -> tuple[object, list[str]]:
    """statsmodels results of ``y`` on ``x`` and plain-language problems found while fitting.

    Returns an ``OLSResults`` for the Gaussian family with identity link, a ``GLMResults``
    otherwise, both on the design ``x`` as given (names and units of the user's columns).
    """
    scales = column_scales(x.to_numpy(dtype=float))
    if scales.max() / scales.min() <= _SPREAD:
        scales = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(over="ignore"):  # exp overflow in the inverse link saturates harmlessly
            fit = _ols(y, x, scales) if is_ols(family) else _glm(y, x, family, scales)
            fit.llf, fit.fittedvalues  # noqa: B018 -- lazily cached; computed under errstate
    suspect = not is_ols(family) and near_boundary(family, y.to_numpy(float), np.asarray(fit.fittedvalues))
    problems = refit_problems(caught, x.shape, suspect=suspect,
                              separated=lambda: not mle_exists(x.to_numpy(float), y.to_numpy(float), family))
    if scales is not None:
        problems += _out_of_range(fit, list(x.columns))
    return fit, problems


def _out_of_range(fit, columns: list[str]) -> list[str]:
    """Columns whose coefficient variance over- or underflows (scales beyond about 1e150)."""
    var = np.diag(np.asarray(fit.normalized_cov_params)) * float(fit.scale)
    bad = [c for c, v in zip(columns, var) if not (np.isfinite(v) and v > 0)]
    if not bad:
        return []
    return [(f"the variance of the coefficient of {', '.join(bad)} lies outside floating-point range (a column "
             "scaled by about 1e150 or more, or 1e-150 or less): its standard error is not reported correctly; "
             "rescale the column")]


def _ols(y: pd.Series, x: pd.DataFrame, scales: np.ndarray | None):
    if scales is None:
        return sm.OLS(y, x).fit()
    inner = sm.OLS(y, x / scales).fit()
    model = sm.OLS(y, x)
    model.rank = inner.model.rank  # the rank of the design, not of its badly scaled copy
    model.pinv_wexog = inner.model.pinv_wexog / scales[:, None]
    model.normalized_cov_params = _unscale_cov(inner.normalized_cov_params, scales)
    model.wexog_singular_values = inner.model.wexog_singular_values
    result = OLSResults(model, np.asarray(inner.params) / scales,
                        normalized_cov_params=model.normalized_cov_params)
    return RegressionResultsWrapper(result)


def _glm(y: pd.Series, x: pd.DataFrame, family, scales: np.ndarray | None):
    if scales is None:
        return sm.GLM(y, x, family=family).fit(tol=_GLM_TOL, maxiter=_GLM_MAXITER)
    inner_wrapped = sm.GLM(y, x / scales, family=family).fit(tol=_GLM_TOL, maxiter=_GLM_MAXITER)
    inner = inner_wrapped._results
    model = sm.GLM(y, x, family=family)
    model.df_model, model.df_resid = inner.model.df_model, inner.model.df_resid
    model.mu, model.scale, model.weights = inner.model.mu, inner.model.scale, inner.model.weights
    result = GLMResults(model, np.asarray(inner.params) / scales,
                        _unscale_cov(inner.normalized_cov_params, scales), inner.scale)
    for attr in ("method", "mle_settings", "fit_history", "converged"):
        setattr(result, attr, getattr(inner, attr))
    return GLMResultsWrapper(result)


def refit_problems(caught, shape: tuple[int, int], *, suspect: bool = False, separated=lambda: True) -> list[str]:
    """Plain-language descriptions of the statsmodels warnings raised by a refit (deduplicated).

    statsmodels' separation and convergence warnings, and fitted means near the boundary
    (``suspect``), are symptoms; ``separated`` (the exact LP test) decides.
    """
    out: list[str] = []
    names = {type(w.message).__name__ if isinstance(w.message, Warning) else w.category.__name__ for w in caught}
    if (suspect or names & {"PerfectSeparationWarning", "ConvergenceWarning"}) and separated():
        out.append("the response is separated by the selected terms (exact LP test): the maximum-likelihood "
                   "estimates do not exist and the coefficients, standard errors and p-values are not meaningful")
    for w in caught:
        name = type(w.message).__name__ if isinstance(w.message, Warning) else w.category.__name__
        if name == "PerfectSeparationWarning":
            continue  # decided above by the exact test
        elif name == "SingularMatrixWarning" or "rank" in str(w.message).lower():
            text = (f"the design of the selected terms is rank-deficient ({shape[1]} columns, {shape[0]} rows): "
                    "the coefficients are not identified")
        elif name in ("ConvergenceWarning", "IterationLimitWarning"):
            if out and out[0].startswith("the response is separated"):
                continue  # non-convergence is the separation, already said
            text = "the refit did not converge"
        else:
            warnings.warn(w.message, w.category, stacklevel=4)  # not ours to interpret: pass it on
            continue
        if text not in out:
            out.append(text)
    return out


def _unscale_cov(cov: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """``cov / (s s')`` one factor at a time (``s s'`` itself overflows for columns at 1e300)."""
    return np.asarray(cov) / scales[:, None] / scales[None, :]
