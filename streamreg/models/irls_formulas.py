"""The formulas an IRLS iteration evaluates: fitted means, working weights and response, deviance.

statsmodels evaluates them through its family, link and variance objects, and each call
makes a few passes over n-vectors with a temporary per operation.  For the two families a
search fits most -- the binomial with its logit link and the Poisson with its log link --
:class:`LogitBinomial` and :class:`LogPoisson` evaluate statsmodels' own formulas operation
for operation (so the values are the same to the last bit), in place, and once where
statsmodels evaluates a subexpression twice (the clipped mean serves both the link
derivative and the variance).  At n = 1e6 that is about a third fewer passes per iteration;
where numba is loaded the weights and working response take one compiled pass of the same
operations (the same values, bit for bit).
:func:`formulas_for` picks them; every other family goes through statsmodels (:class:`Formulas`).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import statsmodels.api as sm
from scipy import special
from statsmodels.genmod.families import links, varfuncs

from .kernels import numba_irls_weights, vectors_on_numba
from .theta import count_index

#: statsmodels' clipping bound for means in the link derivatives and variances
FLOAT_EPS = float(np.finfo(float).eps)


class Formulas:
    """statsmodels' formulas through the family object (any family)."""

    def __init__(self, family: Any):
        self.family = family
        # statsmodels' weights are 1 / (g'(mu)^2 V(mu)): one derivative serves the working response too
        self._shared_deriv = type(family).weights is sm.families.Family.weights

    def fitted(self, eta: np.ndarray) -> np.ndarray:
        """``family.fitted(eta)``: the means."""
        return np.asarray(self.family.fitted(eta))

    def weights_and_working(self, mu: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``family.weights(mu)`` and the working response's increment ``g'(mu) (y - mu)``."""
        family = self.family
        deriv = family.link.deriv(mu)
        w = 1.0 / (deriv**2 * family.variance(mu)) if self._shared_deriv else family.weights(mu)
        return w, deriv * (y - mu)

    def unit_deviance(self, y: np.ndarray, mu: np.ndarray) -> float | None:
        """``family.deviance(y, mu)`` without weights and at scale 1, where a faster formula
        exists; None: the caller asks statsmodels."""
        return None

    def unit_loglike(self, y: np.ndarray, mu: np.ndarray) -> float | None:
        """``family.loglike(y, mu)`` without weights and at scale 1, where a faster formula
        exists; None: the caller asks statsmodels."""
        return None


class LogitBinomial(Formulas):
    """The binomial family with the logit link (one trial per row in statsmodels' variance)."""

    def fitted(self, eta: np.ndarray) -> np.ndarray:
        # links.Logit.inverse: 1 / (1 + exp(-eta))
        mu = np.negative(eta)
        np.exp(mu, out=mu)
        mu += 1.0
        return np.divide(1.0, mu, out=mu)

    def weights_and_working(self, mu: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if vectors_on_numba(len(mu)):  # the same operations in one compiled pass
            return numba_irls_weights(0, mu, y)
        # Logit.deriv and varfuncs.Binomial both clip the mean to [eps, 1 - eps] and form p (1 - p)
        var = np.clip(mu, FLOAT_EPS, 1.0 - FLOAT_EPS)
        deriv = np.subtract(1.0, var)
        np.multiply(var, deriv, out=var)
        np.divide(1.0, var, out=deriv)
        w = np.multiply(deriv, deriv)
        w *= var
        np.divide(1.0, w, out=w)
        working = np.subtract(y, mu, out=var)
        working *= deriv
        return w, working


class LogPoisson(Formulas):
    """The Poisson family with the log link."""

    def __init__(self, family: Any):
        super().__init__(family)
        self._log_factorials: tuple[np.ndarray, np.ndarray] | None = None

    def fitted(self, eta: np.ndarray) -> np.ndarray:
        return np.exp(eta)  # links.Log.inverse

    def weights_and_working(self, mu: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if vectors_on_numba(len(mu)):  # the same operations in one compiled pass
            return numba_irls_weights(1, mu, y)
        deriv = np.clip(mu, FLOAT_EPS, np.inf)  # links.Log.deriv: 1 / clip(mu)
        np.divide(1.0, deriv, out=deriv)
        w = np.multiply(deriv, deriv)
        w *= np.fabs(mu)  # varfuncs.mu: |mu| ** 1
        np.divide(1.0, w, out=w)
        working = np.subtract(y, mu)
        working *= deriv
        return w, working

    def unit_loglike(self, y: np.ndarray, mu: np.ndarray) -> float | None:
        # Poisson.loglike_obs: y log(mu) - mu - gammaln(y + 1), the last term computed once per response
        if self._log_factorials is None or self._log_factorials[0] is not y:
            self._log_factorials = (y, special.gammaln(y + 1))
        obs = np.log(mu)
        obs *= y
        obs -= mu
        obs -= self._log_factorials[1]
        return float(np.sum(obs))

    def unit_deviance(self, y: np.ndarray, mu: np.ndarray) -> float | None:
        # Poisson._resid_dev: 2 (y log(clip(y / mu)) - (y - mu)); doubling the sum is exact
        dev = np.divide(y, mu)
        np.clip(dev, FLOAT_EPS, np.inf, out=dev)
        np.log(dev, out=dev)
        dev *= y
        dev -= np.subtract(y, mu)
        return 2.0 * float(np.sum(dev))


class NegativeBinomialLikelihood(Formulas):
    """statsmodels' negative binomial (any link): its log-likelihood with the log-gamma terms
    of the counts, ``gammaln(y + 1/alpha)`` and ``gammaln(y + 1)``, evaluated once per distinct
    count and gathered (the same values as statsmodels' row-by-row evaluation, bit for bit)."""

    def __init__(self, family: Any):
        super().__init__(family)
        self._counts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def _distinct(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct responses, where each row's is, and ``gammaln(y + 1)`` (once per response)."""
        if self._counts is None or self._counts[0] is not y:
            values, where = count_index(y)
            self._counts = (y, values, where, special.gammaln(y + 1))
        return self._counts[1], self._counts[2], self._counts[3]

    def unit_loglike(self, y: np.ndarray, mu: np.ndarray) -> float | None:
        # NegativeBinomial.loglike_obs, operation for operation
        alpha = self.family.alpha
        values, where, log_factorials = self._distinct(y)
        obs = np.log(alpha * mu)
        obs *= y
        obs -= (y + 1 / alpha) * np.log(1 + alpha * mu)
        obs += special.gammaln(values + 1 / alpha)[where]
        obs -= special.gammaln(1 / alpha)
        obs -= log_factorials
        return float(np.sum(obs))


def formulas_for(family: Any) -> Formulas:
    """The fastest exact formulas for ``family`` (statsmodels' own where no faster form is known).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> type(formulas_for(sm.families.Binomial())).__name__, type(formulas_for(sm.families.Gamma())).__name__
    ('LogitBinomial', 'Formulas')
    """
    kind = type(family)
    plain = kind.fitted is sm.families.Family.fitted and kind.weights is sm.families.Family.weights
    if plain and isinstance(family, sm.families.Binomial) and type(family.link) is links.Logit \
            and type(family.variance) is varfuncs.Binomial and family.variance.n == 1:
        return LogitBinomial(family)
    if plain and isinstance(family, sm.families.Poisson) and type(family.link) is links.Log \
            and type(family.variance) is varfuncs.Power and family.variance.power == 1.0 \
            and kind._resid_dev is sm.families.Poisson._resid_dev:
        return LogPoisson(family)
    if isinstance(family, sm.families.NegativeBinomial) \
            and kind.loglike_obs is sm.families.NegativeBinomial.loglike_obs:
        return NegativeBinomialLikelihood(family)
    return Formulas(family)
