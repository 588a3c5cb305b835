"""Likelihood, information criteria, null model and overall F test of the refit, as R counts them.

statsmodels' ``aic`` and ``bic`` count the coefficients only.  R's ``AIC()`` and ``BIC()``
also count the dispersion when the family estimates it (``gaussian``, ``Gamma``,
``inverse.gaussian``: ``attr(logLik(fit), "df")`` is the rank plus one), so for least squares
statsmodels' AIC is R's minus 2 and its BIC R's minus ``log(n)``.

The log-likelihood is R's ``logLik`` (:func:`r_loglik`).  For least squares, binomial, Poisson
and negative binomial fits it is statsmodels' ``llf``, except for grouped binomial data
(proportions with the trials as ``var_weights``), where R keeps the binomial coefficients
that statsmodels leaves out.  For a GLM whose family estimates a dispersion R plugs in
``deviance / sum(prior weights)`` (its family ``aic`` functions), where statsmodels' ``llf``
plugs in the Pearson estimate; and R weights a Gamma row's log-density by its prior weight
where statsmodels gives it the shape ``weight / dispersion``.  Tweedie has no
R log-likelihood (statmod's ``tweedie()$aic`` is ``NA``): statsmodels' ``llf`` is kept.

With ``freq_weights`` the observations counted are ``sum(freq_weights)`` (a row of weight 3 is
three observations), in BIC's ``log(n)`` as in statsmodels' ``GLMResults.info_criteria``, and
every statistic here is the one R gives on the data with each row repeated that many times.

R's null model is the intercept alone when the formula has an intercept and the offset alone
(``eta = 0`` without one) when it has none; ``df.null`` is ``n - 1`` or ``n``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import statsmodels.api as sm
from scipy import stats

from ..models.families import spec_of


def estimates_dispersion(family: Any) -> bool:
    """Whether the family's dispersion is estimated, and so counted as a parameter.

    True for the Gaussian (sigma), Gamma, inverse Gaussian and Tweedie families; False for
    the binomial, Poisson and negative binomial families, whose dispersion is 1
    (``FamilySpec.fixed_dispersion``).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> estimates_dispersion(sm.families.Gaussian()), estimates_dispersion(sm.families.Binomial())
    (True, False)
    """
    return spec_of(family).estimates_dispersion


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


def r_loglik(fit: Any, family: Any) -> float:
    """R's ``logLik()`` of a statsmodels refit.

    Least squares (OLS, WLS) and GLMs of a family without a dispersion: statsmodels' ``llf``,
    which is R's, except for binomial proportions with the trials as ``var_weights``
    (:func:`_grouped_binomial_loglik`).  Otherwise R's family ``aic`` at the dispersion
    ``phi = deviance / sum(w)``, ``w`` the prior weights (``freq_weights * var_weights``):

    * Gamma: ``sum(w * log dgamma(y; shape 1/phi, scale mu phi))``;
    * inverse Gaussian: ``-(sum(w) (log(2 pi phi) + 1) + 3 sum(w log y)) / 2``;
    * Gaussian (a link other than the identity, or a GLM refit): ``-(N (log(2 pi D / N) + 1)
      - sum(f log v)) / 2`` with ``N = sum(f)``, the rows repeated by their frequency weights
      ``f`` (R's ``length(y)``), ``v`` the variance weights and ``D`` the deviance.

    Tweedie has no R log-likelihood: statsmodels' ``llf`` (Pearson dispersion) is returned.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> y = np.r_[1.0, 2.5, 2.0, 4.5, 3.0, 6.0]
    >>> fit = sm.GLM(y, sm.add_constant(np.arange(6.0)), family=sm.families.Gamma(sm.families.links.Log())).fit()
    >>> phi = fit.deviance / 6  # R's dispersion in logLik; statsmodels' llf uses the Pearson one
    >>> ll = fit.family.loglike(y, fit.fittedvalues, scale=phi)  # equal without prior weights
    >>> bool(np.isclose(r_loglik(fit, fit.family), ll, rtol=1e-14)), bool(np.isclose(fit.llf, ll))
    (True, False)
    """
    model = fit.model
    convention = spec_of(family).loglik  # FamilySpec.loglik
    if convention == "none":  # quasi families: no likelihood (R's logLik is NA)
        return float("nan")
    if isinstance(model, sm.GLM) and convention == "grouped_binomial":
        grouped = _grouped_binomial_loglik(fit)
        if grouped is not None:
            return grouped
    if not isinstance(model, sm.GLM) or convention in ("llf", "grouped_binomial"):
        return float(fit.llf)
    y = np.asarray(model.endog, dtype=float)
    mu = np.asarray(fit.fittedvalues, dtype=float)
    freq = np.broadcast_to(np.asarray(model.freq_weights, dtype=float), y.shape)
    var = np.broadcast_to(np.asarray(model.var_weights, dtype=float), y.shape)
    w = freq * var  # R's prior weights on the rows repeated by their frequency weights
    dev = float(fit.deviance)
    counted = w > 0  # a row of frequency weight 0 is no observation
    if convention == "gaussian":
        n = float(np.sum(freq))
        return -0.5 * (n * (math.log(2.0 * math.pi * dev / n) + 1.0) - float(np.sum(freq[counted] * np.log(var[counted]))))
    phi = dev / float(np.sum(w))
    if convention == "gamma":
        dens = stats.gamma.logpdf(y[counted], a=1.0 / phi, scale=mu[counted] * phi)
        return float(np.sum(w[counted] * dens))
    # inverse Gaussian
    return -0.5 * (float(np.sum(w)) * (math.log(2.0 * math.pi * phi) + 1.0)
                   + 3.0 * float(np.sum(w[counted] * np.log(y[counted]))))


def _grouped_binomial_loglik(fit: Any) -> float | None:
    """R's binomial ``logLik`` of proportions ``y`` with the trials ``m`` as ``var_weights``.

    R's family ``aic`` sums ``log dbinom(round(m y), round(m), mu)`` (times the frequency
    weights here, R's repeated rows), the binomial coefficients included; statsmodels' ``llf``
    of a one-column response multiplies a one-trial log-density of ``y`` by ``m`` and so leaves
    them out.  None (statsmodels' ``llf`` is R's) unless some ``y`` lies strictly between 0 and 1:
    for 0/1 rows the coefficients are 1.
    """
    model = fit.model
    y = np.asarray(model.endog, dtype=float)
    if y.ndim != 1 or not np.any((y > 0) & (y < 1)) or np.any(np.asarray(getattr(model, "n_trials", 1.0)) != 1):
        return None  # a two-column response (successes, failures): statsmodels' llf has the coefficients
    trials = np.broadcast_to(np.asarray(model.var_weights, dtype=float), y.shape)
    freq = np.broadcast_to(np.asarray(model.freq_weights, dtype=float), y.shape)
    mu = np.asarray(fit.fittedvalues, dtype=float)
    counted = freq > 0  # a row of frequency weight 0 is no observation
    dens = stats.binom.logpmf(np.round(trials * y)[counted], np.round(trials)[counted], mu[counted])
    return float(np.sum(freq[counted] * dens))


@dataclass(frozen=True)
class InformationCriteria:
    """Log-likelihood, parameters counted, AIC and BIC of a fit (R's conventions).

    Attributes
    ----------
    llf : float
        R's ``logLik`` of the refit (:func:`r_loglik`).
    df : int
        Parameters counted: the rank, plus one when the dispersion is estimated and one for the
        negative binomial's estimated theta (R's ``attr(logLik(fit), "df")``).
    aic, bic : float
        ``-2 llf + 2 df`` and ``-2 llf + log(n) df``, ``n`` the observations counted
        (:func:`observations`): R's ``AIC()`` and ``BIC()``.
    """

    llf: float
    df: int
    aic: float
    bic: float


def information_criteria(fit: Any, family: Any) -> InformationCriteria:
    """:class:`InformationCriteria` of a statsmodels refit, as R's ``logLik``, ``AIC`` and ``BIC``.

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
    llf = r_loglik(fit, family)
    df = model_rank(fit) + spec_of(family).extra_parameters  # the dispersion if estimated; glm.nb's theta
    n = observations(fit)
    return InformationCriteria(llf=llf, df=df, aic=-2.0 * llf + 2.0 * df, bic=-2.0 * llf + math.log(n) * df)


def null_deviance(fit: Any, family: Any, intercept: bool) -> tuple[float, int]:
    """R's ``null.deviance`` and ``df.null`` of a GLM refit.

    With an intercept the null model is the intercept alone (statsmodels' ``null_deviance``);
    without one it is the offset alone, ``mu = g^{-1}(offset)`` (``eta = 0`` without an
    offset), as R's ``glm.fit`` defines it.  ``df.null`` counts observations as
    ``df.residual`` does: ``sum(freq_weights)`` with frequency weights.

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
    n = round(observations(fit))  # sum(freq_weights), as df.residual counts them
    if intercept:
        return float(fit.null_deviance), n - 1
    mu = family.link.inverse(linear_offset(fit))
    dev = family.deviance(np.asarray(model.endog, dtype=float), mu,
                          var_weights=getattr(model, "var_weights", 1.0), freq_weights=getattr(model, "freq_weights", 1.0))
    return float(dev), n


def _least_squares_sums(fit: Any, intercept: bool, what: str) -> tuple[float, float]:
    """``mss`` and ``rss`` of a least-squares refit as R's ``summary.lm`` sums them.

    Weighted by the prior weights; ``mss`` of the fitted values (an offset included, as R 4.2
    counts it) about their weighted mean with an intercept, uncentred without one.
    """
    model = fit.model
    if isinstance(model, sm.GLM) and not spec_of(model.family).least_squares:
        raise TypeError(f"{what} needs a least-squares fit (Gaussian family, identity link)")
    y = np.asarray(model.endog, dtype=float)
    fitted = np.asarray(fit.fittedvalues, dtype=float)
    w = prior_weights(fit)
    centre = float(np.sum(w * fitted) / np.sum(w)) if intercept else 0.0
    mss = float(np.sum(w * (fitted - centre) ** 2))
    rss = float(np.sum(w * (y - fitted) ** 2))
    return mss, rss


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
    mss, rss = _least_squares_sums(fit, intercept, "r_squared")
    r2 = mss / (mss + rss)
    adj = 1.0 - (1.0 - r2) * (observations(fit) - int(intercept)) / float(fit.df_resid)
    return r2, adj


@dataclass(frozen=True)
class OverallF:
    """The overall F test of a least-squares fit, R's ``summary.lm(fit)$fstatistic``.

    Attributes
    ----------
    statistic, pvalue : float
        ``(mss / df_num) / (rss / df_denom)`` and its upper F tail probability; NaN for a
        model of the intercept alone (R reports no F statistic).
    df_num : float
        Numerator degrees of freedom: the rank less one for the intercept (NaN when 0).
    df_denom : float
        The residual degrees of freedom.
    rss : float
        The residual sum of squares, weighted by the prior weights (R's ``deviance(fit)``).
    """

    statistic: float
    pvalue: float
    df_num: float
    df_denom: float
    rss: float


def overall_f_test(fit: Any, intercept: bool) -> OverallF:
    """R's overall F test of a least-squares refit: all coefficients but the intercept are zero.

    The classical test of ``summary.lm``, whatever covariance the refit's standard errors
    use: statsmodels' ``fvalue`` is a robust Wald test when ``cov_type`` is robust, R's and
    broom's ``glance.lm`` statistic never is.  The sums are those of :func:`r_squared`.

    Parameters
    ----------
    fit : statsmodels OLSResults, or a Gaussian GLMResults with identity link
    intercept : bool
        Whether the formula has an intercept.

    Returns
    -------
    OverallF

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = sm.add_constant(np.c_[np.arange(8.0), np.r_[0.0, 1, 0, 1, 1, 0, 1, 0]])
    >>> fit = sm.OLS(np.r_[1.0, 3, 2, 5, 4, 6, 8, 7], x).fit()
    >>> f = overall_f_test(fit, intercept=True)
    >>> bool(np.isclose(f.statistic, fit.fvalue)), f.df_num, f.df_denom
    (True, 2.0, 5.0)
    """
    mss, rss = _least_squares_sums(fit, intercept, "overall_f_test")
    df_num = float(model_rank(fit) - int(intercept))
    df_denom = float(fit.df_resid)
    if df_num < 1:
        return OverallF(statistic=math.nan, pvalue=math.nan, df_num=math.nan, df_denom=df_denom, rss=rss)
    statistic = (mss / df_num) / (rss / df_denom)
    return OverallF(statistic=statistic, pvalue=float(stats.f.sf(statistic, df_num, df_denom)), df_num=df_num,
                    df_denom=df_denom, rss=rss)
