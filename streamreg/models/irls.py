"""statsmodels' IRLS iteration without statsmodels' model set-up, for the search's refits.

A search refits its GLM after every acceptance, warm-started from the current fit.
``statsmodels.GLM(...).fit()`` checks and copies its inputs, computes the rank of the
design by an SVD, solves each weighted least-squares step by another SVD and builds a
results object: at n = 1e6 that is most of an acceptance's cost, and at n = 200 the fixed
cost of each of hundreds of refits.  :func:`irls` runs the same iteration as
``GLM._fit_irls`` -- the same working weights, start, scale, deviance history and
convergence test ``|D_t - D_{t+1}| <= tol + rtol |D_{t+1}|`` -- so it stops at the same
iterate; only the linear algebra differs (and with it the last bits):

* each step solves for the increment, ``(X'WX) delta = X' W g'(mu) (y - mu)``, which is
  the same step as statsmodels' ``beta = (X'WX)^-1 X'W z`` with the working response
  ``z = eta + g'(mu)(y - mu)``, by a Cholesky factorisation of the Jacobi-scaled ``X'WX``.
  The increment form computes the score directly, so the fixed point is exact even where
  the factorisation is only approximate;
* ``X'WX`` and ``X'Wz`` are sums over strips of rows (:func:`weighted_gram`), by numpy or,
  for a large design, numba's compiled pass;
* the elementwise formulas (means, weights, working response, deviance) are statsmodels'
  own, evaluated in place for the logit binomial and log Poisson (:mod:`.irls_formulas`):
  the same values, bit for bit.

It returns None -- the caller then runs statsmodels -- whenever the iteration leaves the
clean case: a non-finite value, a nearly singular ``X'WX`` (statsmodels' least squares
would return a minimum-norm solution there), or fitted means equal to the response
(statsmodels warns of perfect prediction).  A run that does not converge within
``maxiter`` is returned as such, with its last increment (the direction in which a
separated fit drifts).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import statsmodels.api as sm

from .irls_formulas import Formulas, LogitBinomial, formulas_for
from .kernels import kernel_for, numba_weighted_gram

#: families whose scale statsmodels fixes at 1 (``GLM.estimate_scale``)
_UNIT_SCALE = (sm.families.Binomial, sm.families.Poisson, sm.families.NegativeBinomial)
#: ``X'WX`` (Jacobi-scaled) with a smaller reciprocal condition number goes to statsmodels
_MIN_RCOND = 1e-13
#: rows of the design weighted at once in a least-squares step (with k = 8, 1 MB: in the cache)
_GRAM_ROWS = 1 << 14


@dataclass
class IRLSFit:
    """The last iterate of an IRLS run, with the attributes the model state reads of a
    statsmodels ``GLMResults`` (``params``, ``fittedvalues``, ``scale``, ``llf``,
    ``deviance``, ``converged``).

    ``start_llf`` is the log-likelihood at the start (NaN for statsmodels' default start),
    ``step`` the last increment of the coefficients; ``stopped``: the caller's ``stop``
    ended the run.
    """

    params: np.ndarray
    fittedvalues: np.ndarray
    scale: float
    llf: float
    deviance: float
    converged: bool
    iterations: int
    start_llf: float
    step: np.ndarray
    stopped: bool = False


@dataclass(frozen=True)
class GLMData:
    """A GLM's data as statsmodels' ``GLM`` holds them: response, design, family, the
    linear offset (``offset + log(exposure)``), frequency and variance weights (None: 1)."""

    y: np.ndarray
    x: np.ndarray
    family: Any
    offset: np.ndarray | None = None
    freq_weights: np.ndarray | None = None
    var_weights: np.ndarray | None = None

    @property
    def prior(self) -> np.ndarray | float:
        """statsmodels' ``iweights``: ``freq_weights * var_weights``."""
        f = 1.0 if self.freq_weights is None else self.freq_weights
        v = 1.0 if self.var_weights is None else self.var_weights
        return f * v

    @property
    def wnobs(self) -> float:
        return float(len(self.y)) if self.freq_weights is None else float(np.sum(self.freq_weights))

    @cached_property
    def _bernoulli(self) -> bool:
        """A 0/1 response of the binomial family without variance weights (trials)."""
        return isinstance(self.family, sm.families.Binomial) and self.var_weights is None \
            and bool(((self.y == 0) | (self.y == 1)).all())

    def deviance(self, mu: np.ndarray, scale: float = 1.0) -> float:
        """``family.deviance``; for a 0/1 response its formula in one logarithm, not two:
        ``-2 log(mu + 1e-20)`` where ``y = 1``, ``-2 log(1 - mu + 1e-20)`` where ``y = 0``
        (doubling a sum is exact, so the factor is applied once)."""
        if self._bernoulli:
            if isinstance(self.formulas, LogitBinomial):  # means in [0, 1]: |(1 - y) - mu| is
                resid = np.subtract(self._one_minus_y, mu)  # mu where y = 1 and 1 - mu where y = 0,
                np.abs(resid, out=resid)                   # exactly, without a masked copy
            else:
                resid = np.subtract(1.0, mu)
                np.copyto(resid, mu, where=self._ones)
            resid += 1e-20
            np.log(resid, out=resid)
            if self.freq_weights is not None or scale != 1.0:
                resid *= -2.0
                resid *= self._freq / scale
                return float(np.sum(resid))
            return -2.0 * float(np.sum(resid))
        if self.freq_weights is None and self.var_weights is None and scale == 1.0:
            unit = self.formulas.unit_deviance(self.y, mu)
            if unit is not None:
                return unit
        return float(self.family.deviance(self.y, mu, self._var, self._freq, scale))

    @cached_property
    def formulas(self) -> Formulas:
        """The family's means, working weights and response (:mod:`.irls_formulas`)."""
        return formulas_for(self.family)

    def estimate_scale(self, mu: np.ndarray) -> float:
        """``GLM.estimate_scale`` (default ``scaletype``) of a full-rank design."""
        if isinstance(self.family, _UNIT_SCALE):
            return 1.0
        resid = np.power(self.y - mu, 2) * self.prior
        return float(np.sum(resid / self.family.variance(mu)) / (self.wnobs - self.x.shape[1]))

    def loglike(self, mu: np.ndarray, scale: float) -> float:
        """``GLMResults.llf`` at the means ``mu`` (the concentrated likelihood for the
        Gaussian family with identity link, as statsmodels reports it)."""
        fam = self.family
        if isinstance(fam, sm.families.Gaussian) and isinstance(fam.link, sm.families.links.Power) \
                and fam.link.power == 1.0:
            scale = float(np.sum(np.power(self.y - mu, 2) * self.prior) / self.wnobs)
        if self._bernoulli:  # statsmodels' formula without its log-gamma terms, all 0 for one trial,
            # y log((mu + 1e-20) / (1 - mu + 1e-20)) + log(1 - mu + 1e-20), evaluated in place
            obs = np.add(mu, 1e-20)
            rest = np.subtract(1.0, mu)
            rest += 1e-20
            obs /= rest
            np.log(obs, out=obs)
            obs *= self.y
            obs += np.log(rest, out=rest)
            if self.freq_weights is not None:
                obs *= self._freq
            return float(np.sum(obs))
        if self.freq_weights is None and self.var_weights is None and scale == 1.0:
            unit = self.formulas.unit_loglike(self.y, mu)
            if unit is not None:
                return unit
        return float(fam.loglike(self.y, mu, var_weights=self._var, freq_weights=self._freq, scale=scale))

    @cached_property
    def _one_minus_y(self) -> np.ndarray:
        return np.subtract(1.0, self.y)

    @cached_property
    def _ones(self) -> np.ndarray:
        """Where the response is 1 (asked at every iteration's deviance)."""
        return np.asarray(self.y == 1)

    @property
    def _var(self) -> np.ndarray | float:
        return 1.0 if self.var_weights is None else self.var_weights

    @property
    def _freq(self) -> np.ndarray | float:
        return 1.0 if self.freq_weights is None else self.freq_weights


Stop = Callable[[np.ndarray, np.ndarray], bool]


def irls(data: GLMData, start: np.ndarray | None, *, maxiter: int, tol: float, rtol: float,
         stop: Stop | None = None) -> IRLSFit | None:
    """statsmodels' IRLS (``GLM(...).fit(start_params=start, tol=tol, rtol=rtol, maxiter=maxiter)``).

    Returns None where statsmodels should decide instead (see the module docstring).
    ``stop(step, mu)``, asked after each unconverged iteration with its increment and
    means, ends the run early (the result says ``stopped``).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> rng = np.random.default_rng(0)
    >>> x = np.column_stack([np.ones(50), rng.standard_normal(50)])
    >>> y = (rng.random(50) < 0.5).astype(float)
    >>> fit = irls(GLMData(y, x, sm.families.Binomial()), None, maxiter=100, tol=1e-12, rtol=0.0)
    >>> ref = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-12)
    >>> bool(np.allclose(fit.params, ref.params, rtol=1e-10)), fit.converged
    (True, True)
    """
    with np.errstate(all="ignore"):
        return _irls(data, start, maxiter, tol, rtol, stop)


def _irls(data: GLMData, start: np.ndarray | None, maxiter: int, tol: float, rtol: float,
          stop: Stop | None) -> IRLSFit | None:
    y, x, family = data.y, data.x, data.family
    if not (np.isfinite(np.sum(x)) and np.isfinite(y).all()):  # a NaN or infinity makes the sum non-finite
        return None                                            # (an overflowing sum: statsmodels decides)
    offset = 0.0 if data.offset is None else data.offset
    if start is None:  # statsmodels' default start: the family's starting means, zero coefficients
        beta = np.zeros(x.shape[1])
        mu = family.starting_mu(y)
        eta = family.predict(mu)
        gap: np.ndarray | float = eta - offset  # the working response's part not yet explained by X beta
        start_llf = np.nan
    else:
        beta = np.asarray(start, dtype=float).copy()
        eta = x @ beta + offset
        mu = data.formulas.fitted(eta)
        gap = 0.0
    scale = data.estimate_scale(mu)
    if start is not None:
        start_llf = data.loglike(mu, scale)
    dev_prev = data.deviance(mu, scale)
    if not np.isfinite(dev_prev):
        return None
    prior = data.prior
    step = np.zeros_like(beta)
    converged = False
    iteration = 0
    unit_dev = np.nan  # the last iterate's deviance at scale 1, where the loop computed it
    # a scalar prior weight, gap or offset of 1, 0 and 0 is not applied: n-vector passes saved, same values
    formulas = data.formulas
    for iteration in range(1, maxiter + 1):
        w, working = formulas.weights_and_working(mu, y)
        if not (isinstance(prior, float) and prior == 1.0):
            w = prior * w
        if isinstance(gap, np.ndarray):
            working += gap
        solved = _wls_step(x, w, working)
        if solved is None:
            return None
        step = solved
        beta = beta + step
        gap = 0.0
        eta = x @ beta
        if isinstance(offset, np.ndarray):
            eta += offset
        mu = formulas.fitted(eta)
        dev = data.deviance(mu, scale)  # statsmodels: the history's deviance at the previous scale
        unit_dev = dev if scale == 1.0 else np.nan
        scale = data.estimate_scale(mu)
        # y is finite, so the largest |mu - y| is finite exactly when every mean is
        largest_gap = np.max(np.abs(mu - y))
        if not (np.isfinite(dev) and np.isfinite(scale) and np.isfinite(largest_gap)):
            return None
        if not largest_gap > 1e-8:  # np.allclose(mu - y, 0): statsmodels warns of
            return None             # perfect prediction, its case
        converged = abs(dev_prev - dev) <= tol + rtol * abs(dev)
        dev_prev = dev
        if converged:
            break
        if stop is not None and stop(step, mu):
            return IRLSFit(params=beta, fittedvalues=mu, scale=scale, llf=np.nan, deviance=np.nan,
                           converged=False, iterations=iteration, start_llf=start_llf, step=step, stopped=True)
    return IRLSFit(params=beta, fittedvalues=mu, scale=scale, llf=data.loglike(mu, scale),
                   deviance=unit_dev if np.isfinite(unit_dev) else data.deviance(mu), converged=converged,
                   iterations=iteration, start_llf=start_llf, step=step)


def weighted_gram(x: np.ndarray, w: np.ndarray, working: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X'WX`` and ``X'W working`` as the Gram matrix of ``W^(1/2) [X working]``, a strip of
    :data:`_GRAM_ROWS` rows at a time: the weighted strip stays in the cache, where the whole
    ``n x k`` weighted copy would be written to memory and read back (a third of an
    iteration's time at n = 1e6), and one product per strip gives both (a fifth less time
    than a product and a matrix-vector product).  Where the scoring kernel is numba
    (:func:`~.kernels.kernel_for`: a large column-ordered design, or numba already loaded),
    numba's compiled pass computes the same sums (in another order) in about half the time."""
    if kernel_for(x) == "numba":
        return numba_weighted_gram(x, w, working)
    n, k = x.shape
    total = np.zeros((k + 1, k + 1))
    strip = np.empty((min(max(n, 1), _GRAM_ROWS), k + 1), order="F")
    for start in range(0, n, _GRAM_ROWS):
        rows = slice(start, start + _GRAM_ROWS)
        sw = np.sqrt(w[rows])
        part = strip[: len(sw)]
        np.multiply(x[rows], sw[:, None], out=part[:, :k])
        np.multiply(working[rows], sw, out=part[:, k])
        total += part.T @ part
    return total[:k, :k], total[:k, k]


def _wls_step(x: np.ndarray, w: np.ndarray, working: np.ndarray) -> np.ndarray | None:
    """``argmin_d sum_i w_i (working_i - x_i'd)^2`` from the Jacobi-scaled normal equations;
    None when a weight is not finite and non-negative or the system is nearly singular.

    The Cholesky factor checks the system (positive definite, reciprocal condition); the
    solve is numpy's LU, whose call costs less than scipy's triangular solves at this size.
    """
    # min and max propagate a NaN: finite non-negative weights without a boolean temporary
    if not (w.min() >= 0 and np.isfinite(w.max()) and np.isfinite(working).all()):
        return None
    gram, rhs = weighted_gram(x, w, working)
    d = np.sqrt(gram.diagonal())
    if not (d > 0).all():
        return None
    scaled = gram / d / d[:, None]
    try:
        chol = np.linalg.cholesky(scaled)
    except np.linalg.LinAlgError:
        return None
    diag = np.abs(np.diagonal(chol))
    if (diag.min() / diag.max()) ** 2 < _MIN_RCOND:  # a cheap bound on the reciprocal condition
        return None
    return np.asarray(np.linalg.solve(scaled, rhs / d) / d)
