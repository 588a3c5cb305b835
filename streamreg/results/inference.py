"""Which distribution the refit's p-values come from: R's convention, or statsmodels' ``use_t=``.

statsmodels' GLM reports normal (z) p-values for every family unless ``fit(use_t=True)``;
R's ``summary.glm`` uses t on the residual degrees of freedom whenever the family estimates
its dispersion (Gamma, inverse Gaussian, Gaussian with any link, Tweedie, the quasi families)
and the normal for binomial, Poisson and the negative binomial.  The results follow R by
default (:func:`default_use_t`) and keep statsmodels' own numbers on ``.fit``, which is
exactly what ``smf.glm(...).fit()`` returns: ``StreamRegResults.pvalues``, ``tidy()``,
``compare()`` and the summaries read :func:`with_use_t` of it.  The intervals stay those of
``.fit`` (normal Wald intervals for a GLM, R's ``confint.default``).

Robust covariances (``cov_type=``) keep statsmodels' normal inference, as statsmodels and
R's ``lmtest::coeftest`` of a glm do.  ``use_t=True`` or ``False`` (an option of
:func:`streamreg.streamreg` and :func:`streamreg.select`) overrides the convention and is
passed to statsmodels' ``fit(use_t=)`` itself, so ``.fit`` then agrees.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..models.families import spec_of

if TYPE_CHECKING:
    from .record import FittedSelection, SelectedModel


def check_use_t(use_t: Any) -> bool | None:
    """``use_t`` as given (None, True or False), or a ValueError.

    Examples
    --------
    >>> check_use_t(None), check_use_t(True)
    (None, True)
    >>> check_use_t("yes")
    Traceback (most recent call last):
        ...
    ValueError: use_t must be True, False or None (R's convention: t for families that estimate their dispersion), got 'yes'
    """
    if use_t is None or isinstance(use_t, bool):
        return use_t
    raise ValueError("use_t must be True, False or None (R's convention: t for families that estimate their "
                     f"dispersion), got {use_t!r}")


def default_use_t(family: Any, robust: bool, *, refit: bool = False) -> bool:
    """Whether inference uses t when ``use_t=`` is not given: the one rule for the results and the refit.

    The results' p-values follow R's convention: t when the family estimates its dispersion
    and the covariance is the model's.  ``refit=True`` asks the narrower question of what
    statsmodels' own ``fit(use_t=)`` of the refit gets: t only for least squares fitted as a
    GLM (an offset or frequency weights; as the OLS it stands for) and the quasi families
    (``scale="X2"``, as R's ``summary.glm``), so that ``.fit`` is otherwise statsmodels' own.
    Robust covariances keep statsmodels' normal inference either way.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> default_use_t(sm.families.Gamma(), robust=False), default_use_t(sm.families.Poisson(), robust=False)
    (True, False)
    >>> default_use_t(sm.families.Gamma(), robust=True)  # statsmodels' robust inference is normal
    False
    >>> default_use_t(sm.families.Gamma(), robust=False, refit=True), default_use_t(sm.families.Gaussian(), False, refit=True)
    (False, True)
    """
    if robust:
        return False
    spec = spec_of(family)
    if refit:
        return spec.least_squares or spec.refit_scale is not None
    return spec.estimates_dispersion


def resolved_use_t(model: SelectedModel, fit: Any) -> bool:
    """The ``use_t=`` of the call, else R's convention for the model's family and the refit's covariance.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> d = sr.datasets.make_synthetic(60, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: np.exp(d.y / 4))
    >>> res = sr.streamreg("y ~ stream(x*)", d, family=sm.families.Gamma(sm.families.links.Log()))
    >>> resolved_use_t(res.selected_model, res.fit), res.use_t
    (True, True)
    """
    if model.use_t is not None:
        return bool(model.use_t)
    return default_use_t(model.family, str(getattr(fit, "cov_type", "nonrobust")) != "nonrobust")


def with_use_t(fit: Any, use_t: bool) -> Any:
    """``fit`` with its p-values (and its summaries' ``P>|t|`` column) from t or the normal.

    A shallow copy of the statsmodels results whose ``use_t`` differs (``fit`` itself is
    unchanged; the same object when it already agrees); its ``conf_int`` stays ``fit``'s.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from scipy import stats
    >>> rng = np.random.default_rng(0)
    >>> x = sm.add_constant(rng.normal(size=30))
    >>> fit = sm.GLM(rng.gamma(2.0, 1.0, 30), x, family=sm.families.Gamma(sm.families.links.Log())).fit()
    >>> t = with_use_t(fit, True)
    >>> bool(np.allclose(t.pvalues, 2 * stats.t.sf(np.abs(fit.tvalues), fit.df_resid))), fit.use_t
    (True, False)
    """
    if bool(getattr(fit, "use_t", False)) == use_t:
        return fit
    inner = copy.copy(fit._results)
    inner._cache = {}  # statsmodels caches pvalues and friends here
    inner.use_t = use_t
    inner.conf_int = fit._results.conf_int  # the intervals are .fit's
    return type(fit)(inner)


def reported_fit(res: FittedSelection) -> Any:
    """The refit as the results report it: ``.fit`` with the p-values of :func:`resolved_use_t`."""
    return with_use_t(res.fit, resolved_use_t(res.selected_model, res.fit))


def inference_note(res: FittedSelection) -> str | None:
    """The summary's sentence on the p-values' distribution, when it is not obvious.

    Said when the p-values differ from ``.fit``'s (R's t for a family that estimates its
    dispersion), when the user chose, and for robust covariances.
    """
    use_t = resolved_use_t(res.selected_model, res.fit)
    fit_t = bool(getattr(res.fit, "use_t", False))
    cov_type = str(getattr(res.fit, "cov_type", "nonrobust"))
    df = float(res.fit.df_resid)
    if cov_type != "nonrobust":
        dist = f"t on the {df:g} residual degrees of freedom (use_t=True)" if use_t else (
            "the normal distribution, statsmodels' default for robust covariances; use_t=True for t on the "
            "residual degrees of freedom")
        return f"Robust ({cov_type}) standard errors: p-values and intervals from {dist}."
    if use_t and not fit_t:
        return (f"P>|t| above: t tests on the {df:g} residual degrees of freedom, as R's summary.glm for a family that "
                "estimates its dispersion (statsmodels' .fit reports normal p-values; use_t=False gives them). The "
                "intervals are normal Wald intervals, R's confint.default, as .fit.conf_int().")
    if not use_t and spec_of(res.selected_model.family).estimates_dispersion and not hasattr(res.fit, "rsquared"):
        return ("P>|z| above: normal p-values (use_t=False, statsmodels' default); R's summary.glm uses t on the "
                f"{df:g} residual degrees of freedom for this family.")
    return None


__all__ = ["check_use_t", "default_use_t", "inference_note", "reported_fit", "resolved_use_t", "with_use_t"]
