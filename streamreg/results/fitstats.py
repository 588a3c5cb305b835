"""Likelihood, information criteria and null model of the refit, counted as R counts them.

statsmodels' ``aic`` and ``bic`` count the coefficients only.  R's ``AIC()`` and ``BIC()``
also count the dispersion when the family estimates it (``gaussian``, ``Gamma``,
``inverse.gaussian``: ``attr(logLik(fit), "df")`` is the rank plus one), so for least squares
statsmodels' AIC is R's minus 2 and its BIC R's minus ``log(n)``.  Here the dispersion is
counted as R counts it; the log-likelihood itself is statsmodels' (equal to R's ``logLik``
for least squares, binomial and Poisson fits).

With ``freq_weights`` the observations counted are ``sum(freq_weights)`` (a row of weight 3 is
three observations), in BIC's ``log(n)`` as in statsmodels' ``GLMResults.info_criteria``.

R's null model is the intercept alone when the formula has an intercept and the offset alone
(``eta = 0`` without one) when it has none; ``df.null`` is ``n - 1`` or ``n``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import statsmodels.api as sm

#: families whose dispersion is fixed at 1 (statsmodels does not estimate their scale)
_FIXED_DISPERSION = (sm.families.Binomial, sm.families.Poisson, sm.families.NegativeBinomial)


def estimates_dispersion(family: Any) -> bool:
    """Whether the family's dispersion is estimated, and so counted as a parameter.

    True for the Gaussian (sigma), Gamma, inverse Gaussian and Tweedie families; False for
    the binomial, Poisson and negative binomial families, whose dispersion is 1.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> estimates_dispersion(sm.families.Gaussian()), estimates_dispersion(sm.families.Binomial())
    (True, False)
    """
    return not isinstance(family, _FIXED_DISPERSION)


def observations(fit: Any) -> float:
    """Observations counted by a refit: ``sum(freq_weights)`` for a GLM, else the rows.

    statsmodels' ``GLM.wnobs``; an OLS or WLS fit has no frequency weights.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = sm.add_constant(np.arange(4.0))
    >>> fit = sm.GLM(np.r_[1.0, 3, 2, 5], x, freq_weights=np.r_[1.0, 2, 3, 1]).fit()
    >>> observations(fit), int(fit.nobs)
    (7.0, 4)
    """
    return float(getattr(fit.model, "wnobs", fit.nobs))


def prior_weights(fit: Any) -> np.ndarray:
    """Each row's prior weight, ``freq_weights * var_weights`` (WLS: its ``weights``; else ones)."""
    model = fit.model
    n = int(fit.nobs)
    if isinstance(model, sm.GLM):
        w = np.asarray(model.freq_weights, dtype=float) * np.asarray(model.var_weights, dtype=float)
    else:
        w = np.asarray(getattr(model, "weights", 1.0), dtype=float)
    return np.broadcast_to(w, (n,)).astype(float)


def linear_offset(fit: Any) -> np.ndarray:
    """What the refit adds to its linear predictor: ``offset + log(exposure)`` (zeros if neither)."""
    model = fit.model
    eta = np.zeros(int(fit.nobs))
    for extra in (getattr(model, "offset", None), getattr(model, "exposure", None)):  # exposure is stored as log
        if extra is not None:
            eta = eta + np.asarray(extra, dtype=float)
    return eta


def model_rank(fit: Any) -> int:
    """The number of estimated coefficients (the design's rank, R's ``fit$rank``).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = sm.add_constant(np.arange(6.0))
    >>> model_rank(sm.OLS(np.r_[1.0, 3, 2, 5, 4, 6], x).fit())
    2
    """
    model = fit.model
    if isinstance(model, sm.GLM):
        return round(float(fit.df_model)) + 1  # statsmodels' GLM df_model is rank - 1
    rank = getattr(model, "rank", None)
    return int(rank) if rank is not None else round(float(fit.df_model + fit.k_constant))


@dataclass(frozen=True)
class InformationCriteria:
    """Log-likelihood, parameters counted, AIC and BIC of a fit (R's conventions).

    Attributes
    ----------
    llf : float
        statsmodels' log-likelihood of the refit.
    df : int
        Parameters counted: the rank, plus one when the dispersion is estimated (R's
        ``attr(logLik(fit), "df")``).
    aic, bic : float
        ``-2 llf + 2 df`` and ``-2 llf + log(n) df``, ``n`` the observations counted
        (:func:`observations`).
    """

    llf: float
    df: int
    aic: float
    bic: float


def information_criteria(fit: Any, family: Any) -> InformationCriteria:
    """:class:`InformationCriteria` of a statsmodels refit, the dispersion counted as in R.

    Parameters
    ----------
    fit : statsmodels OLSResults or GLMResults
        The refit.
    family : statsmodels family
        Its family (least squares for the Gaussian family with identity link).

    Returns
    -------
    InformationCriteria

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = sm.add_constant(np.arange(6.0))
    >>> fit = sm.OLS(np.r_[1.0, 3, 2, 5, 4, 6], x).fit()
    >>> ic = information_criteria(fit, sm.families.Gaussian())
    >>> ic.df, float(round(ic.aic - fit.aic, 12))  # sigma counted: 2 more than statsmodels' AIC
    (3, 2.0)
    """
    llf = float(fit.llf)
    df = model_rank(fit) + int(estimates_dispersion(family))
    n = observations(fit)
    return InformationCriteria(llf=llf, df=df, aic=-2.0 * llf + 2.0 * df, bic=-2.0 * llf + math.log(n) * df)


def null_deviance(fit: Any, family: Any, intercept: bool) -> tuple[float, int]:
    """R's ``null.deviance`` and ``df.null`` of a GLM refit.

    With an intercept the null model is the intercept alone (statsmodels' ``null_deviance``);
    without one it is the offset alone, ``mu = g^{-1}(offset)`` (``eta = 0`` without an
    offset), as R's ``glm.fit`` defines it.

    Parameters
    ----------
    fit : statsmodels GLMResults
    family : statsmodels family
    intercept : bool
        Whether the formula has an intercept (:func:`~streamreg.formula.names.has_intercept`).

    Returns
    -------
    (float, int)
        The null deviance and its residual degrees of freedom.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> y = np.r_[0.0, 1, 1, 0, 1, 1]
    >>> fit = sm.GLM(y, np.arange(6.0)[:, None], family=sm.families.Binomial()).fit()
    >>> dev, df = null_deviance(fit, fit.family, intercept=False)
    >>> bool(np.isclose(dev, -12 * np.log(0.5))), df  # mu = 1/2 for every row
    (True, 6)
    """
    model = fit.model
    n = int(fit.nobs)
    if intercept:
        return float(fit.null_deviance), n - 1
    mu = family.link.inverse(linear_offset(fit))
    dev = family.deviance(np.asarray(model.endog, dtype=float), mu,
                          var_weights=getattr(model, "var_weights", 1.0), freq_weights=getattr(model, "freq_weights", 1.0))
    return float(dev), n


def r_squared(fit: Any, intercept: bool) -> tuple[float, float]:
    """R's ``r.squared`` and ``adj.r.squared`` of a least-squares refit (``summary.lm``).

    ``mss / (mss + rss)``, the sums weighted by the prior weights, ``mss`` of the fitted
    values (an offset included, as R 4.2 counts it) about their weighted mean when the
    formula has an intercept, uncentred without one.  Without an offset this is
    ``1 - rss / tss``; statsmodels decides centring by looking for a constant column instead.  ``adj.r.squared`` uses the
    observations counted (``sum(freq_weights)`` with frequency weights, as the data
    expanded to one row per observation would give) and the residual degrees of freedom.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> y, x = np.r_[1.0, 3, 2, 5, 4, 6], np.arange(6.0)[:, None]
    >>> r2, adj = r_squared(sm.OLS(y, x).fit(), intercept=False)
    >>> round(r2, 6), round(adj, 6)
    (0.923876, 0.908651)
    """
    model = fit.model
    if isinstance(model, sm.GLM) and not (isinstance(model.family, sm.families.Gaussian)
                                          and isinstance(model.family.link, sm.families.links.Identity)):
        raise TypeError("r_squared needs a least-squares fit (Gaussian family, identity link)")
    y = np.asarray(model.endog, dtype=float)
    fitted = np.asarray(fit.fittedvalues, dtype=float)
    w = prior_weights(fit)
    centre = float(np.sum(w * fitted) / np.sum(w)) if intercept else 0.0
    mss = float(np.sum(w * (fitted - centre) ** 2))
    rss = float(np.sum(w * (y - fitted) ** 2))
    r2 = mss / (mss + rss)
    adj = 1.0 - (1.0 - r2) * (observations(fit) - int(intercept)) / float(fit.df_resid)
    return r2, adj
