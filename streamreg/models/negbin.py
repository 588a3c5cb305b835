"""The negative binomial with theta estimated (R's ``MASS::glm.nb``): the fit and the model state.

:func:`fit_negbin` is ``glm.nb``'s algorithm: IRLS at a fixed theta (statsmodels'
``NegativeBinomial(alpha=1/theta)`` family, through :func:`~.glm.fit_glm`), then theta by
maximum likelihood at the fitted means (:func:`~.theta.theta_ml`), alternated until theta
settles.  Each half raises the likelihood, and at the joint maximum the information of theta
and of the coefficients is block-diagonal, so a few rounds suffice.  Unlike ``glm.nb``,
theta is re-estimated at the *new* means of each round (``glm.nb`` lags one round); both stop
at the same fixed point.

:class:`NegBinState` is a :class:`~.glm.GLMState` at the current model's estimate: candidates
are tested at that theta, held fixed (the score test with dispersion 1, or the LR test of a
refit at that theta), exactly as R's ``add1`` tests candidates on a ``glm.nb`` fit, whose
family is ``negative.binomial(theta)``.  Accepting a term re-estimates theta, as R's
``update`` of a ``glm.nb`` fit does (``step()`` moves that way); so does removing one.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import NONCONVERGENCE, ObservationWeights, column_scales
from .family_classes import NegBin
from .glm import GLMFit, GLMState, fit_glm
from .protocol import ComparableState
from .theta import THETA_MAX, ThetaEstimate, nb_loglik, theta_information, theta_ml

#: rounds of (IRLS, theta) before giving up (R's glm.nb stops at glm.control's maxit and warns
#: "alternation limit reached")
MAX_ALTERNATIONS = 100
#: theta has settled when a round changes it by less than this, relatively
_THETA_RTOL = 1e-11


def fit_negbin(y: np.ndarray, x: np.ndarray, family: NegBin, *, weights: ObservationWeights | None = None,
               start: np.ndarray | None = None) -> tuple[GLMFit, NegBin]:
    """``glm.nb``: the coefficients and theta of the negative binomial by maximum likelihood.

    Parameters
    ----------
    y : ndarray
        Counts.
    x : ndarray
        The design.
    family : NegBin
        Its link, and ``theta`` where the alternation starts (1 when None).
    weights : ObservationWeights, optional
        Offset, exposure and prior weights (the prior weights multiply each row's
        log-likelihood in the theta step too, as in ``glm.nb``).
    start : ndarray, optional
        Starting coefficients of the first IRLS run.

    Returns
    -------
    (GLMFit, NegBin)
        The fit at the estimated theta (its ``problem`` as :func:`~.glm.fit_glm` reports it,
        or ``NONCONVERGENCE`` when theta did not settle) and the family at that theta, whose
        ``estimate`` holds theta, its standard error and ``2 logLik``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> x = np.column_stack([np.ones(400), rng.normal(size=400)])
    >>> mu = np.exp(1.0 + 0.5 * x[:, 1])
    >>> y = rng.negative_binomial(2.0, 2.0 / (2.0 + mu)).astype(float)  # theta = 2
    >>> fit, fam = fit_negbin(y, x, NegBin())
    >>> fit.problem, round(fam.theta, 2), round(fam.estimate.se, 2)
    (None, 1.7, 0.22)
    """
    y = np.asarray(y, dtype=float)
    prior = None if weights is None else weights.prior
    w = np.ones_like(y) if prior is None else np.broadcast_to(np.asarray(prior, dtype=float), y.shape)
    theta = 1.0 if family.theta is None else family.theta
    current = family.at(theta)
    fit = fit_glm(y, x, current, start=start, weights=weights)
    rounds = 0
    while fit.problem is None:
        rounds += 1
        mu = np.asarray(fit.result.fittedvalues, dtype=float)
        new, capped = theta_ml(y, mu, w)
        if abs(new - theta) <= _THETA_RTOL * theta:
            return fit, family.at(theta, _estimate(theta, capped, y, mu, w, rounds))
        if rounds >= MAX_ALTERNATIONS:
            return GLMFit(fit.result, NONCONVERGENCE), current
        theta, current = new, family.at(new)
        fit = fit_glm(y, x, current, start=np.asarray(fit.result.params), weights=weights)
    return fit, current


def _estimate(theta: float, capped: bool, y: np.ndarray, mu: np.ndarray, w: np.ndarray, rounds: int) -> ThetaEstimate:
    """theta with R's ``SE.theta`` (observed information) and ``twologlik``."""
    info = theta_information(theta, y, mu, w)
    se = math.nan if capped or not info > 0 else 1.0 / math.sqrt(info)
    return ThetaEstimate(theta=theta, se=se, twologlik=2.0 * nb_loglik(theta, y, mu, w), capped=capped,
                         alternations=rounds)


class NegBinState(GLMState):
    """A :class:`~.glm.GLMState` of the negative binomial at the current model's estimated theta.

    Parameters are :class:`~.glm.GLMState`'s; ``family`` is a :class:`~.family_classes.NegBin`
    (never modified: the state's ``family`` is a new instance at each estimate, whose
    ``estimate`` holds theta and its standard error).
    """

    #: the current model's estimate (set by every successful :meth:`_estimate_theta`)
    _theta: ThetaEstimate

    def __init__(self, y: np.ndarray, fixed: np.ndarray, family: NegBin, *, test: str = "score",
                 weights: ObservationWeights | None = None, fixed_names: Sequence[str] | None = None,
                 defer_basis: bool = False) -> None:
        # GLMState fits the fixed terms at the starting theta and says what is wrong, if anything;
        # its basis waits for theta's estimate (formed below, or on first use when deferred)
        super().__init__(y, fixed, family.at(1.0 if family.theta is None else family.theta), test=test,
                         weights=weights, fixed_names=fixed_names, defer_basis=True)
        problem = self._estimate_theta()
        if problem is not None:
            raise ValueError(f"the negative binomial fit of the fixed terms alone failed while estimating theta "
                             f"({problem}; IRLS at fixed theta and theta by maximum likelihood alternate up to "
                             f"{MAX_ALTERNATIONS} times, and R's glm.nb warns 'alternation limit reached'); check the "
                             "fixed terms, or fix theta with statsmodels' NegativeBinomial(alpha=1 / theta)")
        if not defer_basis:
            self._form_basis()

    @property
    def theta(self) -> ThetaEstimate:
        """The current model's theta, its standard error and ``2 logLik``."""
        return self._theta

    def _estimate_theta(self) -> str | None:
        """Alternate from the current fit until theta settles; a problem (the state is then unchanged)."""
        fit, family = fit_negbin(self.y, self.x, self.family, weights=self._fit_weights,
                                 start=np.asarray(self.result.params))
        if fit.problem is not None or family.estimate is None:
            return fit.problem or NONCONVERGENCE
        self.family, self.result, self._theta = family, fit.result, family.estimate
        self._refresh(defer_basis=self._basis_pending)  # a deferred basis stays deferred
        return None

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term at the current theta, then re-estimate theta (refused if either fails)."""
        before = (self.x, self.result, self.family, self._theta)
        reason = super().accept(values)
        if reason is not None:
            return reason
        reason = self._estimate_theta()
        if reason is not None:
            self.x, self.result, self.family, self._theta = before
            self._refresh()
        return reason

    def llr_over(self, smaller: ComparableState) -> float:
        """R's ``drop1`` on a ``glm.nb`` fit: the smaller design refitted at *this* model's theta."""
        if not isinstance(smaller, NegBinState):
            raise TypeError(f"a negative binomial state compares with its own kind, not {type(smaller).__name__}")
        fit = fit_glm(self.y, smaller.x, self.family, start=np.asarray(smaller.result.params), weights=self._fit_weights)
        reduced: Any = smaller.result if fit.result is None else fit.result
        return max(2.0 * (self.llf - float(reduced.llf)), 0.0)

    def refit(self, fixed: np.ndarray, terms: Sequence[np.ndarray], *, within: bool = False) -> NegBinState:
        """A new state on ``[fixed, *terms]``, theta re-estimated from this one's (R's ``init.theta``).

        ``within`` (the columns lie in this model's span): the weighted basis is formed only
        when a test needs it (see :class:`~.glm.GLMState`'s ``defer_basis``)."""
        x = np.column_stack([fixed, *terms])
        return NegBinState(self.y, x, self.family, test=self.test, weights=self.weights, defer_basis=within)


def estimated_family(y: np.ndarray, x: np.ndarray, family: NegBin,
                     weights: ObservationWeights | None = None) -> tuple[NegBin, np.ndarray | None, list[str]]:
    """The family at the maximum-likelihood theta of ``y`` on ``x`` for a refit, the coefficients
    there (None if IRLS broke down) and the problems in words.

    The refit starts from these coefficients: statsmodels' IRLS stops on a deviance change of
    1e-10, which for the negative binomial's log link (not its canonical link) leaves the
    coefficients 1e-6 short of the maximum.  No problem is reported for a fit whose MLE does
    not exist (separation): the refit checks that itself.  The design is scaled by powers of
    two first, as the model states scale it.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.0, 1, 1, 1, 2, 1, 1, 0, 1, 1])  # less spread than Poisson counts
    >>> fam, start, problems = estimated_family(y, np.ones((10, 1)), NegBin())
    >>> fam.estimate.capped, problems[0][:44]
    (True, "the negative binomial's theta diverges: the ")
    """
    scales = column_scales(x)
    fit, fitted = fit_negbin(y, x / scales, family, weights=None if weights is None or weights.empty else weights)
    start = None if fit.result is None else np.asarray(fit.result.params, dtype=float) / scales
    estimate = fitted.estimate
    if fit.problem == NONCONVERGENCE:
        return fitted, start, [(f"the negative binomial's theta did not settle in {MAX_ALTERNATIONS} rounds of IRLS "
                                "and theta estimation (R's glm.nb warns 'alternation limit reached'): theta and the "
                                "standard errors are not at the maximum likelihood")]
    if isinstance(estimate, ThetaEstimate) and estimate.capped:
        return fitted, start, [(f"the negative binomial's theta diverges: the likelihood still rises at theta = "
                                f"{THETA_MAX:g} (the counts show no overdispersion given the selected terms; R's "
                                "glm.nb warns 'iteration limit reached'), so the fit is the Poisson limit and theta "
                                "has no standard error; use family='poisson'")]
    return fitted, start, []


__all__ = ["MAX_ALTERNATIONS", "NegBinState", "estimated_family", "fit_negbin"]

