"""The statsmodels-style numbers of :class:`~streamreg.results.StreamRegResults`, read off the refit.

Coefficients, covariance, fitted values and residuals are statsmodels' (``.fit``).  The
log-likelihood, AIC and BIC are R's (:mod:`.fitstats`).  R-squared, the deviance, the null
deviance and the Pearson chi-square are given for least-squares fits and GLMs alike, as R's
``summary.lm``, ``deviance()`` and ``glm()`` define them; for a GLM with an intercept they are
statsmodels' own numbers.
"""
from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..formula.names import has_intercept
from ..models.families import spec_of
from .fitstats import information_criteria, null_deviance, prior_weights, r_squared
from .inference import resolved_use_t, with_use_t
from .record import SelectedModel


class RefitAccessors:
    """``params``, ``bse``, ..., ``llf``, ``aic``, ``rsquared``, ``deviance``, ...: what code reaches for."""

    #: the statsmodels refit and the selected model (set by the results' constructor)
    fit: Any
    selected_model: SelectedModel

    @property
    def params(self) -> pd.Series:
        """The refit's coefficients, labelled by the design's column names."""
        return self.fit.params

    @property
    def bse(self) -> pd.Series:
        """Their standard errors (the refit's ``cov_type``)."""
        return self.fit.bse

    @property
    def use_t(self) -> bool:
        """Whether :attr:`pvalues` (and the summaries, ``tidy()``, ``compare()``) use t on the residual df.

        R's convention unless ``use_t=`` was given: t when the family estimates its dispersion
        (Gaussian, Gamma, inverse Gaussian, Tweedie, quasi) and the covariance is the model's,
        as R's ``summary.glm``; the normal for binomial, Poisson and negative binomial fits and
        for robust covariances (statsmodels' default).  ``.fit`` keeps statsmodels' own choice.
        """
        return resolved_use_t(self.selected_model, self.fit)

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of the coefficients: t or normal as :attr:`use_t` says.

        They ignore the selection (see :meth:`summary`).

        Examples
        --------
        >>> import numpy as np, pandas as pd, statsmodels.api as sm, streamreg as sr
        >>> from scipy import stats
        >>> rng = np.random.default_rng(0)
        >>> d = pd.DataFrame({"x": rng.normal(size=40), "z": rng.normal(size=40)})
        >>> d["y"] = rng.gamma(2.0, np.exp(0.3 * d.x) / 2.0)
        >>> fit = sr.streamreg("y ~ x + stream(z)", d, family=sm.families.Gamma(sm.families.links.Log()),
        ...                    max_tests=0)
        >>> t = 2 * stats.t.sf(np.abs(fit.tvalues), fit.fit.df_resid)  # R's summary.glm
        >>> fit.use_t, bool(np.allclose(fit.pvalues, t)), bool(np.allclose(fit.fit.pvalues, t))
        (True, True, False)
        """
        return with_use_t(self.fit, self.use_t).pvalues

    @property
    def tvalues(self) -> pd.Series:
        """Their t (least squares, quasi families) or z statistics."""
        return self.fit.tvalues

    @property
    def nobs(self) -> int:
        """The rows of the refit (statsmodels' ``nobs``)."""
        return int(self.fit.nobs)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Confidence intervals of the refit's coefficients at level ``1 - alpha`` (statsmodels').

        They ignore the selection (see :meth:`summary`).

        Parameters
        ----------
        alpha : float, default 0.05
            One minus the confidence level.

        Returns
        -------
        pandas.DataFrame
            One row per coefficient, the lower and upper ends in columns 0 and 1.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).conf_int().round(3)
                       0      1
        Intercept -0.131  0.243
        x2         0.811  1.223
        """
        return self.fit.conf_int(alpha=alpha)

    @property
    def llf(self) -> float:
        """R's ``logLik()`` of the refit (:func:`~streamreg.results.fitstats.r_loglik`).

        statsmodels' ``llf`` (``.fit.llf``) for least squares, binomial, Poisson and negative
        binomial fits, where the two agree, except for grouped binomial data (proportions with
        the trials as ``var_weights``), where R keeps the binomial coefficients that statsmodels'
        ``llf`` leaves out.  For a GLM whose family estimates a dispersion
        (Gamma, inverse Gaussian, Gaussian with another link) R plugs in ``deviance / n``
        where statsmodels plugs in the Pearson estimate, so the two differ; Tweedie fits keep
        statsmodels' (R has none).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> rss = float(np.sum(fit.resid**2))
        >>> bool(np.isclose(fit.llf, -50 * (np.log(2 * np.pi * rss / 100) + 1)))
        True
        """
        return information_criteria(self.fit, self.selected_model.family).llf

    @property
    def aic(self) -> float:
        """R's ``AIC()``: ``-2 llf + 2 df``, the dispersion counted in ``df`` when it is estimated.

        ``llf`` is R's ``logLik`` (:attr:`llf`).  For least squares ``df`` is the rank plus one
        for sigma, so this is statsmodels' ``fit.aic + 2`` and equals R's ``AIC(lm(...))``;
        binomial and Poisson fits have no dispersion and both agree.  For other families with
        a dispersion statsmodels' ``llf`` also differs (see :attr:`llf`).  statsmodels' own
        number is ``.fit.aic``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> float(fit.aic - fit.fit.aic), bool(np.isclose(fit.aic, -2 * fit.llf + 2 * (2 + 1)))
        (2.0, True)
        """
        return information_criteria(self.fit, self.selected_model.family).aic

    @property
    def bic(self) -> float:
        """R's ``BIC()``: ``-2 llf + log(n) df``, the dispersion counted as in :attr:`aic`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.bic - fit.fit.bic, np.log(100)))
        True
        """
        return information_criteria(self.fit, self.selected_model.family).bic

    @property
    def theta(self) -> float | None:
        """The negative binomial's estimated theta (R's ``glm.nb`` ``fit$theta``); None for other families.

        Examples
        --------
        >>> import pandas as pd, streamreg as sr
        >>> d = pd.DataFrame({"k": [0, 3, 1, 7, 0, 2, 12, 1, 0, 5], "x": range(10)})
        >>> fit = sr.streamreg("k ~ stream(x)", d, family="negbin", max_tests=0)
        >>> round(fit.theta, 4), round(fit.theta_se, 4)  # R: glm.nb(k ~ 1, d)$theta, $SE.theta
        (0.7255, 0.4537)
        """
        estimate = getattr(self.selected_model.family, "estimate", None)
        return None if estimate is None else float(estimate.theta)

    @property
    def theta_se(self) -> float | None:
        """The standard error of :attr:`theta` (R's ``fit$SE.theta``); None for other families."""
        estimate = getattr(self.selected_model.family, "estimate", None)
        return None if estimate is None else float(estimate.se)

    @property
    def fittedvalues(self) -> pd.Series:
        """Fitted means on the refit's rows (statsmodels' ``fittedvalues``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.allclose(fit.fittedvalues + fit.resid, df["y"]))
        True
        """
        return pd.Series(np.asarray(self.fit.fittedvalues, dtype=float), index=self.selected_model.train.index, name="fitted")

    @property
    def resid(self) -> pd.Series:
        """Response residuals ``y - fittedvalues`` on the refit's rows.

        statsmodels' ``resid`` for least squares and ``resid_response`` for a GLM (R's
        ``residuals(fit, "response")``); the deviance and Pearson residuals are in
        :meth:`augment` and on ``.fit`` (``resid_deviance``, ``resid_pearson``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> fit = sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05)
        >>> bool(np.allclose(fit.resid, df["y"] - fit.predict()))
        True
        """
        values = self.fit.resid if spec_of(self.selected_model.family).least_squares else self.fit.resid_response
        return pd.Series(np.asarray(values, dtype=float), index=self.selected_model.train.index, name="resid")

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the coefficients, labelled by name (statsmodels' ``cov_params()``).

        Returns
        -------
        pandas.DataFrame
            Square, rows and columns named by the coefficients.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> cov = fit.cov_params()
        >>> list(cov.columns), bool(np.allclose(np.sqrt(np.diag(cov)), fit.bse))
        (['Intercept', 'x2'], True)
        """
        names = list(self.params.index)
        return pd.DataFrame(np.asarray(self.fit.cov_params(), dtype=float), index=names, columns=names)

    @property
    def model(self) -> NoReturn:
        """Not available: a streamreg result is not a statsmodels model's result.

        statsmodels' ``summary_col`` reads ``results.model``; pass the refits,
        ``summary_col([f.fit for f in fits])``, or use :func:`streamreg.compare`, which adds
        the selection rows.  Raises AttributeError (so ``hasattr(fit, "model")`` is False).

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.model
        Traceback (most recent call last):
        ...
        AttributeError: StreamRegResults has no 'model': it is not a statsmodels result. ...
        """
        raise AttributeError(
            "StreamRegResults has no 'model': it is not a statsmodels result. For statsmodels' "
            "summary_col pass the refits, summary_col([f.fit for f in fits]), or use "
            "streamreg.compare(fits), which adds the selection rows")

    # what statsmodels results also have ------------------------------------------------------
    def _least_squares(self) -> bool:
        return spec_of(self.selected_model.family).least_squares

    def _r_squared(self, name: str) -> tuple[float, float]:
        if not self._least_squares():
            family = self.selected_model.family
            raise AttributeError(
                f"{name} is the R-squared of a least-squares fit (Gaussian family, identity link); this "
                f"{type(family).__name__} GLM has none: compare deviance with null_deviance, or see "
                ".fit.pseudo_rsquared()")
        return r_squared(self.fit, has_intercept(self.selected_model.rhs))

    @property
    def rsquared(self) -> float:
        """R's ``summary.lm`` R-squared of a least-squares fit (statsmodels' ``rsquared`` with an intercept).

        The explained sum of squares over the total, weighted by the prior weights, about the
        mean with an intercept and about zero without one
        (:func:`~streamreg.results.fitstats.r_squared`).  A GLM of another family has none
        (AttributeError).

        Examples
        --------
        >>> import numpy as np, statsmodels.formula.api as smf, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.rsquared, smf.ols(fit.selected_formula, df).fit().rsquared, rtol=1e-12))
        True
        """
        return self._r_squared("rsquared")[0]

    @property
    def rsquared_adj(self) -> float:
        """R's adjusted R-squared of a least-squares fit, ``1 - (1 - R2) (n - i) / df_resid`` (``i`` the intercept).

        Examples
        --------
        >>> import numpy as np, statsmodels.formula.api as smf, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.rsquared_adj, smf.ols(fit.selected_formula, df).fit().rsquared_adj, rtol=1e-12))
        True
        """
        return self._r_squared("rsquared_adj")[1]

    @property
    def df_resid(self) -> float:
        """Residual degrees of freedom, statsmodels' ``df_resid`` (observations less the rank).

        With ``freq_weights`` the observations are ``sum(freq_weights)``, as R counts the rows
        repeated.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.df_resid, fit.df_model
        (98.0, 1.0)
        """
        return float(self.fit.df_resid)

    @property
    def df_model(self) -> float:
        """Model degrees of freedom, statsmodels' ``df_model``: the rank less one for a constant."""
        return float(self.fit.df_model)

    @property
    def scale(self) -> float:
        """The dispersion the standard errors use, statsmodels' ``scale``.

        Least squares: the residual variance ``RSS / df_resid``; binomial, Poisson and negative
        binomial: 1; other GLMs and the quasi families: the Pearson estimate
        ``pearson_chi2 / df_resid`` (R's ``summary.glm`` dispersion).

        Examples
        --------
        >>> import numpy as np, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.scale, fit.deviance / fit.df_resid, rtol=1e-12))
        True
        """
        return float(self.fit.scale)

    @property
    def deviance(self) -> float:
        """The residual deviance: a GLM's (statsmodels' ``deviance``), the weighted RSS for least squares.

        R's ``deviance()`` of a ``glm`` or ``lm`` fit; for least squares it is statsmodels'
        ``ssr`` (and the Gaussian GLM's ``deviance``).

        Examples
        --------
        >>> import numpy as np, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.deviance, float(np.sum(fit.resid**2)), rtol=1e-12))
        True
        """
        if isinstance(self.fit.model, sm.GLM):
            return float(self.fit.deviance)
        return float(self.fit.ssr)

    @property
    def null_deviance(self) -> float:
        """The deviance of R's null model: the intercept alone, or ``eta = offset`` without one.

        With an intercept this is statsmodels' ``null_deviance`` (for least squares the
        weighted total sum of squares about the mean, statsmodels' ``centered_tss``);
        without one R's model of the offset alone (the uncentred sum of squares for least
        squares), where statsmodels always fits an intercept
        (:func:`~streamreg.results.fitstats.null_deviance`).

        Examples
        --------
        >>> import numpy as np, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.null_deviance, float(np.sum((df.y - df.y.mean())**2)), rtol=1e-12))
        True
        """
        fit, intercept = self.fit, has_intercept(self.selected_model.rhs)
        if isinstance(fit.model, sm.GLM):
            return null_deviance(fit, self.selected_model.family, intercept)[0]
        y = np.asarray(fit.model.endog, dtype=float)
        w = prior_weights(fit)
        centre = float(np.sum(w * y) / np.sum(w)) if intercept else 0.0
        return float(np.sum(w * (y - centre) ** 2))

    @property
    def pearson_chi2(self) -> float:
        """The Pearson chi-square, ``sum(w (y - mu)^2 / V(mu))``: statsmodels' ``pearson_chi2`` (least squares: the RSS).

        Examples
        --------
        >>> import numpy as np, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> fit = sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05)
        >>> mu = fit.predict()
        >>> bool(np.isclose(fit.pearson_chi2, float(np.sum((df.y - mu)**2 / (mu * (1 - mu)))), rtol=1e-10))
        True
        """
        if isinstance(self.fit.model, sm.GLM):
            return float(self.fit.pearson_chi2)
        return float(self.fit.ssr)
