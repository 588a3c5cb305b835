"""The final refit of the selected terms with statsmodels, at any column scale.

statsmodels solves least squares with a pseudo-inverse whose cut-off is relative to the
largest singular value, so a column at 1e17 beside an intercept makes the intercept
"rank-deficient" (and a column at 1e-17 disappears), although the design has full rank.
The model states score every column at a power-of-two scale; the refit does the same and
then expresses the estimates in the user's units: with ``X = Xs diag(s)``,
``beta = beta_s / s`` and ``cov = cov_s / (s s')``.  Powers of two keep every digit, so
the state and the refit always work on the same design.

Offsets and weights (:class:`~streamreg.models.base.ObservationWeights`) are passed on with
statsmodels' meanings: least squares with ``var_weights`` only is ``WLS(weights=var_weights)``;
least squares with an offset or ``freq_weights`` is the Gaussian ``GLM`` with ``use_t=True``
(residual df ``sum(freq_weights) - k``: the OLS of the repeated rows); other families are
``GLM(..., offset=, exposure=, freq_weights=, var_weights=)``.

GLM standard errors are those of the maximum-likelihood fit: statsmodels' IRLS returns the
covariance of its last weighted least-squares step, whose weights are those of the means
*before* that step, so a converged fit is restarted once from its own estimates (one more
step, weights at the MLE); for a tall design the restart is :func:`~.glm_restart.restart`,
statsmodels' iteration and results object without its SVDs of the whole design.  The standard errors then equal R's ``summary.glm`` at the MLE to
5e-13 for binomial and Poisson fits instead of 4.4e-7 (tests/results/test_broom_reference.py), and to
6e-10 instead of 4.6e-9 for non-canonical links, whose IRLS converges linearly.

A robust covariance (:class:`~streamreg.models.robust.RobustCov`: ``cov_type="HC0"``-``"HC3"``
or ``"cluster"`` with groups) is statsmodels' own, ``fit(cov_type=..., cov_kwds=...)``, with its
normal / chi-square inference (``use_t=False``); on a rescaled design it is computed on the
equilibrated columns and back-transformed like the plain covariance.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.genmod.generalized_linear_model import GLMResults, GLMResultsWrapper
from statsmodels.regression.linear_model import (
    OLSResults,
    RegressionResults,
    RegressionResultsWrapper,
)

from ..models import spec_of
from ..models.base import ObservationWeights, column_scales
from ..models.boundary import separated_at
from ..models.glm import invalid_means
from ..models.glm_fit import glm_data, needs_mle_check
from ..models.irls import IRLSFit, irls
from ..models.negbin import estimated_family
from ..models.robust import NONROBUST, RobustCov
from .glm_restart import restart
from .inference import default_use_t
from .tall_pinv import tall_pinv

#: rescale when column scales differ by more than this factor (below it the pseudo-inverse
#: loses no digits that matter, and statsmodels' own results object is returned unchanged)
_SPREAD = 2.0**20
_GLM_TOL, _GLM_MAXITER = 1e-10, 200
#: a relative change of the deviance this small is convergence too: at large n the deviance's
#: rounding alone exceeds the absolute tolerance (see models.glm._FIT_RTOL)
_GLM_RTOL = 1e-13


class RefitWarning(UserWarning):
    """The statsmodels refit of the selected terms is not trustworthy (separation, rank).

    Raised as a warning by :func:`streamreg.streamreg` and :func:`streamreg.select`; the
    results keep the problems in ``refit_warnings`` and the summary repeats them.

    Examples
    --------
    >>> import warnings, numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(3)
    >>> d = pd.DataFrame(rng.normal(size=(50, 2)), columns=["x1", "x2"])
    >>> d["y"] = d.x1 + rng.normal(size=50)
    >>> d["x1"] = d["x1"] * 1e-300  # a column far outside any sensible scale
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit = sr.streamreg("y ~ stream(x*)", d)
    >>> [w.category.__name__ for w in caught]
    ['RefitWarning']
    >>> fit.refit_warnings[0][:57]
    'the variance of the coefficient of x1 lies outside floati'
    """


def refit(y: pd.Series, x: pd.DataFrame, family: Any, weights: ObservationWeights | None = None,
          cov: RobustCov = NONROBUST, use_t: bool | None = None) -> tuple[Any, list[str]]:
    """statsmodels results of ``y`` on ``x`` and plain-language problems found while fitting.

    Returns an ``OLSResults`` for the Gaussian family with identity link (``WLS`` results with
    ``var_weights`` only), a ``GLMResults`` otherwise (the Gaussian ``GLM`` with ``use_t=True``
    for least squares with an offset or frequency weights), all on the design ``x`` as given
    (names and units of the user's columns).  ``weights``: the offset and weights of the fit;
    ``cov``: the covariance type of ``bse``, ``pvalues``, ``conf_int()`` and the summary;
    ``use_t``: statsmodels' ``fit(use_t=)`` (None: ``default_use_t(family, robust, refit=True)``,
    t for least squares fitted as a GLM and the quasi families).
    """
    if weights is not None and weights.empty:
        weights = None
    col_scales = column_scales(x.to_numpy(dtype=float))
    scales = None if col_scales.max() / col_scales.min() <= _SPREAD else col_scales
    ols = spec_of(family).least_squares  # Gaussian with identity link
    least_squares = ols and (weights is None or set(weights.given()) == {"var_weights"})
    theta_problems: list[str] = []
    start = None
    if spec_of(family).theta_estimated:  # glm.nb: theta by maximum likelihood, then the GLM at it
        family, start, theta_problems = estimated_family(y.to_numpy(float), x.to_numpy(float), family, weights)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(over="ignore"):  # exp overflow in the inverse link saturates harmlessly
            if least_squares:
                fit = _ols(y, x, scales, None if weights is None else weights.var_weights, cov, use_t)
                fit.llf  # noqa: B018 -- lazily cached; computed under errstate (no inverse link to overflow)
            else:
                if use_t is None:
                    use_t = default_use_t(family, cov.robust, refit=True)
                fit = _glm(y, x, family, scales, weights, use_t=use_t, cov=cov, start=start)
                fit.llf, fit.fittedvalues  # noqa: B018 -- lazily cached; computed under errstate
    suspect = not ols and needs_mle_check(family, y.to_numpy(float), np.asarray(fit.fittedvalues))
    rows = None if weights is None else weights.positive_rows()  # a zero frequency weight: no observation
    prior = 1.0 if weights is None or weights.prior is None else weights.prior
    problems = theta_problems + refit_problems(caught, x.shape, suspect=suspect, separated=lambda: separated_at(
        x.to_numpy(float), y.to_numpy(float), family, np.asarray(fit.fittedvalues, dtype=float), prior, rows))
    if scales is not None:
        problems += _out_of_range(fit, list(x.columns))
    with np.errstate(invalid="ignore"):
        n_bad = 0 if ols else invalid_means(family, np.asarray(fit.fittedvalues, dtype=float))
    if n_bad:
        problems.append(f"{n_bad} fitted mean(s) lie outside the {type(family).__name__} family's range (e.g. "
                        "negative means): this is no valid GLM fit (R's glm stops: 'no valid set of "
                        "coefficients has been found'); use a link that keeps the means in range, such as log")
    return fit, problems


def _out_of_range(fit: Any, columns: list[str]) -> list[str]:
    """Columns whose coefficient variance over- or underflows (scales beyond about 1e150)."""
    var = np.diag(np.asarray(fit.normalized_cov_params)) * float(fit.scale)
    bad = [c for c, v in zip(columns, var) if not (np.isfinite(v) and v > 0)]
    if not bad:
        return []
    return [(f"the variance of the coefficient of {', '.join(bad)} lies outside floating-point range (a column "
             "scaled by about 1e150 or more, or 1e-150 or less): its standard error is not reported correctly; "
             "rescale the column")]


def _ols(y: pd.Series, x: pd.DataFrame, scales: np.ndarray | None, var_weights: np.ndarray | None = None,
         cov: RobustCov = NONROBUST, use_t: bool | None = None) -> Any:
    """OLS, or WLS with ``var_weights`` (statsmodels' ``WLS(weights=)``)."""
    def model_of(exog: Any) -> Any:
        return sm.OLS(y, exog) if var_weights is None else sm.WLS(y, exog, weights=var_weights)

    options: dict[str, Any] = cov.fit_kwargs()
    if use_t is not None:
        options["use_t"] = use_t
    if scales is None:
        return _least_squares_fit(model_of(x), options)
    inner = _least_squares_fit(model_of(x / scales), options)
    model = model_of(x)
    model.rank = inner.model.rank  # the rank of the design, not of its badly scaled copy
    model.pinv_wexog = inner.model.pinv_wexog / scales[:, None]
    model.normalized_cov_params = _unscale_cov(inner.normalized_cov_params, scales)
    model.wexog_singular_values = inner.model.wexog_singular_values
    result_class = OLSResults if var_weights is None else RegressionResults
    result = result_class(model, np.asarray(inner.params) / scales, normalized_cov_params=model.normalized_cov_params,
                          use_t=inner.use_t)
    _robust_from(result, inner, scales)
    return RegressionResultsWrapper(result)


def _least_squares_fit(model: Any, options: dict[str, Any]) -> Any:
    """``model.fit(**options)`` (statsmodels' pseudo-inverse method), with the pseudo-inverse of
    a tall, well-conditioned design from Cholesky QR (:func:`~.tall_pinv.tall_pinv`: the same
    singular values, cut-off and rank as statsmodels' SVD of the design); small and
    ill-conditioned designs go to statsmodels' own ``fit``.  The results object is built as
    ``fit`` builds it.
    """
    solved = tall_pinv(np.asarray(model.wexog, dtype=float))
    if solved is None:
        return model.fit(**options)
    pinv, s = solved
    model.pinv_wexog, model.wexog_singular_values = pinv, s
    model.normalized_cov_params = pinv @ pinv.T
    model.rank = np.linalg.matrix_rank(np.diag(s))
    result_class = OLSResults if isinstance(model, sm.OLS) else RegressionResults
    result = result_class(model, pinv @ model.wendog, normalized_cov_params=model.normalized_cov_params, **options)
    return RegressionResultsWrapper(result)


def _robust_from(result: Any, inner: Any, scales: np.ndarray) -> None:
    """Give ``result`` the robust covariance of its equilibrated twin ``inner``, back-transformed."""
    if getattr(inner, "cov_type", "nonrobust") == "nonrobust":
        return
    result.cov_type, result.cov_kwds, result.use_t = inner.cov_type, dict(inner.cov_kwds), inner.use_t
    result.cov_params_default = _unscale_cov(inner.cov_params_default, scales)


def _glm_fit(model: Any, use_t: bool, cov: RobustCov = NONROBUST, start: np.ndarray | None = None,
             weights: ObservationWeights | None = None) -> Any:
    """IRLS to convergence (from ``start`` if given), then restarted once from the estimates
    (covariance at the MLE).

    Without ``start``, the run to convergence is the lean IRLS (:func:`~streamreg.models.irls.irls`,
    statsmodels' iterates without its model set-up, least-squares solves and results objects)
    and statsmodels makes only the restart: at n = 1e6 each statsmodels iteration costs an SVD
    of the design and keeps its weighted copy until the garbage collector runs.  Where the lean
    run hands back (a case statsmodels decides) or does not converge, statsmodels runs both.

    A quasi family's dispersion is statsmodels' ``scale="X2"`` (``FamilySpec.refit_scale``)."""
    scale = spec_of(model.family).refit_scale
    options: dict[str, Any] = {} if scale is None else {"scale": scale}
    options.update(cov.fit_kwargs())
    lean = _lean_irls(model, weights) if start is None else None
    if lean is not None:
        restarted = _restart(model, lean.params, use_t, options)
        restarted.fit_history["iteration"] += lean.iterations  # iterations of both runs
        return restarted
    fit = model.fit(start_params=start, tol=_GLM_TOL, rtol=_GLM_RTOL, maxiter=_GLM_MAXITER, use_t=use_t or None,
                    **options)
    params = np.asarray(fit.params, dtype=float)
    if not (getattr(fit, "converged", False) and np.all(np.isfinite(params))):
        return fit  # not at an MLE (e.g. separation): nothing to gain, the warnings say so
    restarted = _restart(model, params, use_t, options)
    restarted.fit_history["iteration"] += fit.fit_history["iteration"]  # iterations of both runs
    return restarted


def _restart(model: Any, params: np.ndarray, use_t: bool, options: dict[str, Any]) -> Any:
    """statsmodels' IRLS restarted from ``params``: :func:`~.glm_restart.restart` for a tall
    design (its steps without an SVD of the design), statsmodels' ``fit`` otherwise."""
    restarted = restart(model, params, tol=_GLM_TOL, rtol=_GLM_RTOL, maxiter=_GLM_MAXITER, use_t=use_t or None,
                        **options)
    if restarted is None:
        restarted = model.fit(start_params=params, tol=_GLM_TOL, rtol=_GLM_RTOL, maxiter=_GLM_MAXITER,
                              use_t=use_t or None, **options)
    return restarted


def _lean_irls(model: Any, weights: ObservationWeights | None) -> IRLSFit | None:
    """statsmodels' IRLS of ``model`` from its default start by the lean iteration, if it
    converges there (None: let statsmodels run it; also for binomial trials given as a
    two-column response, which the lean iteration does not read)."""
    endog = np.asarray(model.endog, dtype=float)
    if endog.ndim != 1 or not np.all(np.asarray(getattr(model, "n_trials", 1)) == 1):
        return None
    data = glm_data(endog, np.asarray(model.exog, dtype=float), model.family, None, weights)
    fit = irls(data, None, maxiter=_GLM_MAXITER, tol=_GLM_TOL, rtol=_GLM_RTOL)
    return fit if fit is not None and fit.converged else None


def _glm(y: pd.Series, x: pd.DataFrame, family: Any, scales: np.ndarray | None,
         weights: ObservationWeights | None = None, use_t: bool = False, cov: RobustCov = NONROBUST,
         start: np.ndarray | None = None) -> Any:
    options = {} if weights is None else weights.glm_options()
    if scales is None:
        fit = _glm_fit(sm.GLM(y, x, family=family, **options), use_t, cov, start, weights)
    else:
        inner_start = None if start is None else start * scales
        inner = _glm_fit(sm.GLM(y, x / scales, family=family, **options), use_t, cov, inner_start, weights)._results
        model = sm.GLM(y, x, family=family, **options)
        model.df_model, model.df_resid = inner.model.df_model, inner.model.df_resid
        model.mu, model.scale, model.weights = inner.model.mu, inner.model.scale, inner.model.weights
        result = GLMResults(model, np.asarray(inner.params) / scales,
                            _unscale_cov(inner.normalized_cov_params, scales), inner.scale, use_t=use_t or None)
        for attr in ("method", "mle_settings", "fit_history", "converged"):
            setattr(result, attr, getattr(inner, attr))
        _robust_from(result, inner, scales)
        fit = GLMResultsWrapper(result)
    if spec_of(family).least_squares:  # least squares as a GLM (offset, frequency weights): OLS's name for the residuals
        fit._results.resid = fit._results.resid_response
    return fit


def refit_problems(caught: list[warnings.WarningMessage], shape: tuple[int, int], *, suspect: bool = False,
                   separated: Callable[[], bool] = lambda: True) -> list[str]:
    """Plain-language descriptions of the statsmodels warnings raised by a refit (deduplicated).

    statsmodels' separation and convergence warnings, and fitted means near the boundary
    (``suspect``), are symptoms; ``separated`` (the exact LP test) decides.
    """
    out: list[str] = []
    names = {type(w.message).__name__ if isinstance(w.message, Warning) else w.category.__name__ for w in caught}
    if (suspect or names & {"PerfectSeparationWarning", "ConvergenceWarning"}) and separated():
        out.append("the response is separated by the selected terms (exact LP test): the maximum-likelihood "
                   "estimates do not exist and the coefficients, standard errors and p-values are not meaningful")
    passed: set[tuple[type[Warning], str]] = set()
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
            key = (w.category, str(w.message))
            if key not in passed:  # a rescaled design builds two models: pass each warning on once
                passed.add(key)
                warnings.warn(w.message, w.category, stacklevel=4)  # not ours to interpret
            continue
        if text not in out:
            out.append(text)
    return out


def _unscale_cov(cov: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """``cov / (s s')`` one factor at a time (``s s'`` itself overflows for columns at 1e300)."""
    return np.asarray(cov) / scales[:, None] / scales[None, :]
