"""Family classes that R has and statsmodels lacks, for the family table (:mod:`.families`).

Each subclasses the statsmodels family it extends, so statsmodels fits it as that family
(the quasi families as Poisson and binomial, :class:`NegBin` as the negative binomial at its
current theta); the table gives each its own :class:`~.families.FamilySpec`.
"""
from __future__ import annotations

import math
from typing import Any

import statsmodels.api as sm

from .theta import ThetaEstimate


class QuasiPoisson(sm.families.Poisson):
    """R's ``quasipoisson()``: the Poisson variance ``mu`` and log link, the dispersion estimated.

    Candidates are tested with the Pearson dispersion (``test="score-f"``), the refit reports
    standard errors scaled by it and t tests (R's ``summary.glm``), and there is no
    log-likelihood (R's ``logLik`` is NA).
    """


class QuasiBinomial(sm.families.Binomial):
    """R's ``quasibinomial()``: the binomial variance ``mu (1 - mu)`` and logit link, the
    dispersion estimated (see :class:`QuasiPoisson`)."""


class NegBin(sm.families.NegativeBinomial):
    """R's ``MASS::glm.nb``: the negative binomial (variance ``mu + mu^2 / theta``) with theta
    estimated by maximum likelihood, alternating with IRLS at fixed theta.

    ``family="negbin"`` (or ``"negativebinomial"``).  Candidates are tested at the current
    model's estimated theta, as R's ``add1`` on a ``glm.nb`` fit tests them; every accepted term
    re-estimates it; the refit reports theta and its standard error (``fit.theta``,
    ``fit.theta_se``).  For a theta held fixed pass statsmodels'
    ``NegativeBinomial(alpha=1 / theta)`` (R's ``negative.binomial(theta)``).

    Parameters
    ----------
    link : statsmodels link, optional
        The log link by default.
    theta : float, optional
        Where the estimation starts (R's ``init.theta``; 1 when not given).  As a statsmodels
        family the instance is the negative binomial with ``alpha = 1 / theta``.
    estimate : ThetaEstimate, optional
        Set on the fitted family (the refit's ``fit.family``): the estimate and its standard error.

    Examples
    --------
    >>> from streamreg.models.families import spec_of
    >>> fam = NegBin(theta=2.5)
    >>> fam.theta, fam.alpha, spec_of(fam).name
    (2.5, 0.4, 'negbin')
    """

    def __init__(self, link: Any = None, theta: float | None = None, estimate: ThetaEstimate | None = None) -> None:
        if theta is not None:
            if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not (0 < theta < math.inf):
                raise ValueError(f"theta must be a positive number (R's init.theta), got {theta!r}")
            theta = float(theta)
        self.theta = theta
        self.estimate = estimate
        super().__init__(link=link, alpha=1.0 if theta is None else 1.0 / theta)

    def at(self, theta: float, estimate: ThetaEstimate | None = None) -> NegBin:
        """The same family (link) at another theta; this instance is unchanged."""
        return NegBin(self.link, theta, estimate)


__all__ = ["NegBin", "QuasiBinomial", "QuasiPoisson"]
