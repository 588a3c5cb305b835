"""Maximum likelihood of the negative binomial's theta at given means (R's ``MASS::theta.ml``).

The NB2 log-likelihood of a count ``y`` with mean ``mu`` and shape ``theta`` (variance
``mu + mu^2 / theta``; statsmodels' ``alpha = 1 / theta``) is

    l = lgamma(theta + y) - lgamma(theta) - lgamma(y + 1) + theta log theta + y log mu
        - (theta + y) log(theta + mu),

and with prior weights ``w`` its derivative in theta (the score) is

    S(theta) = sum w [psi(theta + y) - psi(theta) - log1p(mu / theta) + (mu - y) / (mu + theta)].

Its terms are of order ``1 / theta`` and cancel to order ``1 / theta^2``, so for large theta
the digamma difference (which itself cancels) is replaced by its asymptotic series
(``psi(x) ~ log x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6)``, written as differences that do not
cancel); the score then keeps its sign and digits far beyond where R's ``theta.ml`` loses
them.  The root is found by scipy's ``brentq`` in ``log theta``, bracketed from the moment
estimate ``n / sum w (y / mu - 1)^2`` that ``theta.ml`` starts from.  Counts take few
distinct values, so during the search the digamma differences are summed over the distinct
counts, each weighted by its total prior weight (:func:`count_index`), and only the terms in
``mu`` over the rows.

When the score is still positive at :data:`THETA_MAX` the likelihood keeps rising towards
the Poisson limit (the counts show no overdispersion given the means): the estimate is
capped there and flagged, where R's ``theta.ml`` runs into its iteration limit and warns.
The standard error is ``1 / sqrt(I(theta))``, ``I`` the observed information (minus the
derivative of the score), R's ``SE.theta``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

#: the largest theta estimated: the NB2 variance ``mu + mu^2 / theta`` is then the Poisson's
#: to ``mu * 1e-6``, and beyond it statsmodels' ``lgamma(theta + y) - lgamma(theta)`` (its
#: log-likelihood) loses more digits than the statistics computed from it can spare
THETA_MAX = 1e6
#: the smallest theta tried when bracketing the root (a variance of ``1e8 mu^2``)
THETA_MIN = 1e-8
#: from this theta on the digamma differences use their asymptotic series (next term below 1e-15)
_SERIES_FROM = 50.0


@dataclass(frozen=True)
class ThetaEstimate:
    """theta of a negative binomial fit and what R's ``glm.nb`` reports with it.

    Attributes
    ----------
    theta : float
        The maximum-likelihood estimate (R's ``fit$theta``), or :data:`THETA_MAX` when capped.
    se : float
        Its standard error from the observed information (R's ``fit$SE.theta``); NaN when capped.
    twologlik : float
        Twice the log-likelihood at theta and the fitted means (R's ``fit$twologlik``).
    capped : bool
        The likelihood still rose at :data:`THETA_MAX`: no overdispersion left, the fit is the
        Poisson limit (R warns "iteration limit reached").
    alternations : int
        Rounds of (IRLS at fixed theta, theta at fixed means) until theta settled.
    """

    theta: float
    se: float
    twologlik: float
    capped: bool = False
    alternations: int = 0


def _digamma_step(theta: float, y: np.ndarray) -> np.ndarray:
    """``psi(theta + y) - psi(theta)`` without cancellation for large theta."""
    if theta < _SERIES_FROM:
        return np.asarray(special.digamma(theta + y) - special.digamma(theta))
    t, ty = theta, theta + y
    # log x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6) at theta + y minus at theta, each difference in closed form
    return (np.log1p(y / t) + y / (2.0 * t * ty) + y * (2.0 * t + y) / (12.0 * t**2 * ty**2)
            - (1.0 / t**4 - 1.0 / ty**4) / 120.0 + (1.0 / t**6 - 1.0 / ty**6) / 252.0)


def _trigamma_step(theta: float, y: np.ndarray) -> np.ndarray:
    """``psi'(theta + y) - psi'(theta)`` without cancellation for large theta."""
    if theta < _SERIES_FROM:
        return np.asarray(special.polygamma(1, theta + y) - special.polygamma(1, theta))
    t, ty = theta, theta + y
    # 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7) at theta + y minus at theta
    return (-y / (t * ty) - y * (2.0 * t + y) / (2.0 * t**2 * ty**2)
            - y * (ty**2 + ty * t + t**2) / (6.0 * t**3 * ty**3) + (1.0 / t**5 - 1.0 / ty**5) / 30.0
            - (1.0 / t**7 - 1.0 / ty**7) / 42.0)


def theta_score(theta: float, y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """The derivative of the weighted NB2 log-likelihood in theta (R's ``theta.ml`` score).

    Examples
    --------
    >>> import numpy as np
    >>> y, mu, w = np.array([0.0, 3.0, 9.0]), np.array([2.0, 3.0, 5.0]), np.ones(3)
    >>> h = 1e-6  # a central difference of the log-likelihood
    >>> fd = (nb_loglik(2.0 + h, y, mu, w) - nb_loglik(2.0 - h, y, mu, w)) / (2 * h)
    >>> bool(np.isclose(theta_score(2.0, y, mu, w), fd, rtol=1e-7))
    True
    """
    terms = _digamma_step(theta, y) - np.log1p(mu / theta) + (mu - y) / (mu + theta)
    return float(np.sum(w * terms))


def theta_information(theta: float, y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """Minus the derivative of :func:`theta_score` (R's ``theta.ml`` information)."""
    d_terms = _trigamma_step(theta, y) + mu / (theta * (theta + mu)) - (mu - y) / (mu + theta) ** 2
    return -float(np.sum(w * d_terms))


def nb_loglik(theta: float, y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """The weighted NB2 log-likelihood (R's ``glm.nb`` ``loglik``; ``twologlik / 2``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> y, mu = np.array([0.0, 3.0, 9.0]), np.array([2.0, 3.0, 5.0])
    >>> theta = 1.5  # scipy's nbinom(n = theta, p = theta / (theta + mu))
    >>> ref = stats.nbinom.logpmf(y, theta, theta / (theta + mu)).sum()
    >>> bool(np.isclose(nb_loglik(theta, y, mu, np.ones(3)), ref, rtol=1e-14))
    True
    """
    with np.errstate(divide="ignore"):
        y_log_mu = np.where(y > 0, y * np.log(np.where(y > 0, mu, 1.0)), 0.0)
    terms = (special.gammaln(theta + y) - special.gammaln(theta) - special.gammaln(y + 1.0) + theta * math.log(theta)
             + y_log_mu - (theta + y) * np.log(theta + mu))
    return float(np.sum(w * terms))


def count_index(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values that cover the response and where each row's is among them: for whole-number
    counts up to the number of rows, ``0 .. max(y)`` and the counts themselves as indices (one
    pass, no sort); for other responses ``np.unique``'s values and inverse.

    Examples
    --------
    >>> values, where = count_index(np.array([2.0, 0.0, 2.0, 1.0]))
    >>> values.tolist(), where.tolist()
    ([0.0, 1.0, 2.0], [2, 0, 2, 1])
    """
    top = float(np.max(y)) if y.size else 0.0
    if y.size and np.min(y) >= 0 and top <= max(len(y), 1024) and np.array_equal(y, np.floor(y)):
        return np.arange(int(top) + 1, dtype=float), y.astype(np.int64)
    values, where = np.unique(y, return_inverse=True)
    return values, where.ravel()


def _distinct_counts(y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``y`` and the total weight of each: the digamma terms of the
    score then cost one evaluation per distinct count, not per row."""
    values, where = count_index(y)
    present = np.bincount(where, minlength=len(values)) > 0
    return values[present], np.bincount(where, weights=w, minlength=len(values))[present]


class _ThetaScore:
    """:func:`theta_score` at fixed counts, means and weights, as a function of theta alone:
    the digamma differences over the distinct counts (weighted by their total weight), the
    rest over the rows, with what does not depend on theta computed once."""

    def __init__(self, y: np.ndarray, mu: np.ndarray, w: np.ndarray):
        self.values, self.totals = _distinct_counts(y, w)
        self.mu, self.w = mu, w
        self.gap = mu - y
        self.unit = bool(np.all(w == 1.0))

    def __call__(self, theta: float) -> float:
        counts = float(self.totals @ _digamma_step(theta, self.values))
        rows = self.gap / (self.mu + theta)
        rows -= np.log1p(self.mu / theta)
        return counts + float(np.sum(rows if self.unit else self.w * rows))


def theta_ml(y: np.ndarray, mu: np.ndarray, w: np.ndarray | None = None) -> tuple[float, bool]:
    """The maximum-likelihood theta at the means ``mu``, and whether it was capped.

    Parameters
    ----------
    y, mu : ndarray
        Counts and their fitted means (positive).
    w : ndarray, optional
        Prior weights (R's ``weights``; frequency times variance weights).

    Returns
    -------
    (float, bool)
        theta, and True when the likelihood still rises at :data:`THETA_MAX` (theta is then
        :data:`THETA_MAX`).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.0, 1, 0, 5, 2, 0, 9, 1, 0, 3])
    >>> theta, capped = theta_ml(y, np.full(10, y.mean()))  # R: theta.ml(y, rep(mean(y), 10))
    >>> round(theta, 6), capped, abs(theta_score(theta, y, np.full(10, y.mean()), np.ones(10))) < 1e-10
    (0.632611, False, True)
    """
    y = np.asarray(y, dtype=float)
    mu = np.asarray(mu, dtype=float)
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    if not np.any(w * y > 0):
        raise ValueError("every count is zero: the negative binomial's theta is not identified")
    ratio = np.divide(y, mu, out=np.ones_like(y), where=mu > 0)  # a zero mean only fits a zero count
    spread = float(np.sum(w * (ratio - 1.0) ** 2))
    start = float(np.sum(w)) / spread if spread > 0 else THETA_MAX
    start = min(max(start, 1e-4), THETA_MAX)

    score = _ThetaScore(y, mu, w)

    def score_at(log_theta: float) -> float:
        return score(math.exp(log_theta))

    lo = hi = math.log(start)
    while score_at(lo) <= 0:  # the score is positive near 0 whenever some count is positive
        lo -= 2.0
        if lo < math.log(THETA_MIN):
            raise ValueError("the negative binomial's theta runs to 0: the means are too far from the counts "
                             "(a variance beyond 1e8 mu^2)")
    while score_at(hi) > 0:
        if hi >= math.log(THETA_MAX):
            return THETA_MAX, True
        hi = min(hi + 2.0, math.log(THETA_MAX))
    root = optimize.brentq(score_at, lo, hi, xtol=1e-15, rtol=4.0 * np.finfo(float).eps, maxiter=500)
    return math.exp(root), False


__all__ = ["THETA_MAX", "ThetaEstimate", "count_index", "nb_loglik", "theta_information", "theta_ml", "theta_score"]
