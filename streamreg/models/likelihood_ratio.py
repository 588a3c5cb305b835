"""The likelihood-ratio statistic of two nested GLM fits, as R's ``add1``/``drop1`` compute it.

R's ``add1.glm`` and ``drop1.glm`` (``test = "LRT"``, and the AIC column ``step()`` ranks
by) turn the deviances ``D`` of nested fits into a statistic by the family's convention
(:attr:`~.families.FamilySpec.lr_scale`):

* dispersion fixed at 1 (binomial, Poisson, negative binomial at its theta): ``D_small -
  D_large``, twice the log-likelihood gain;
* dispersion estimated (Gamma, inverse Gaussian, Tweedie): ``(D_small - D_large) / phi``,
  ``phi`` the Pearson dispersion of the model the function was called on (the smaller for
  ``add1``, the larger for ``drop1``): R's "scaled dev.";
* Gaussian with a link other than the identity: ``n log(D_small / D_large)``, the likelihood
  ratio with the variance profiled out.

For the Gamma this is not twice the change of either log-likelihood (statsmodels' ``llf``
plugs in each fit's own Pearson dispersion, R's ``logLik`` each fit's ``D / n``); it is
what R's ``add1(test = "LRT")`` prints and what ``step()`` compares with ``k`` per degree
of freedom.
"""
from __future__ import annotations

import math
from typing import Any

from .families import FamilySpec


def lr_statistic(spec: FamilySpec, small: Any, large: Any, dispersion: float, nobs: float) -> float:
    """R's LRT statistic of the nested statsmodels GLM fits ``small`` within ``large``.

    Parameters
    ----------
    spec : FamilySpec
        The family's spec (its :attr:`~.families.FamilySpec.lr_scale`).
    small, large : statsmodels GLMResults
        The fits (``deviance`` and ``llf`` are read).
    dispersion : float
        The Pearson dispersion of the model ``add1``/``drop1`` is called on (``"dispersion"``).
    nobs : float
        Observations counted (``"profile"``).

    Returns
    -------
    float
        The statistic, never below 0.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from streamreg.models.families import spec_of
    >>> rng = np.random.default_rng(0)
    >>> x = sm.add_constant(rng.normal(size=(40, 2)))
    >>> y = np.exp(0.3 * x[:, 1]) * rng.gamma(4.0, 0.25, 40)
    >>> fam = sm.families.Gamma(sm.families.links.Log())
    >>> small, large = (sm.GLM(y, x[:, :k], family=fam).fit() for k in (2, 3))
    >>> stat = lr_statistic(spec_of(fam), small, large, small.scale, 40)
    >>> bool(np.isclose(stat, (small.deviance - large.deviance) / small.scale))
    True
    """
    scale = spec.lr_scale
    if scale == "llf":
        gain = 2.0 * (float(large.llf) - float(small.llf))
    elif scale == "profile":
        if float(large.deviance) <= 0.0:  # an exact fit: the Gaussian likelihood is unbounded
            return math.inf
        gain = nobs * math.log(float(small.deviance) / float(large.deviance))
    else:
        gain = (float(small.deviance) - float(large.deviance)) / dispersion
    return max(gain, 0.0)


__all__ = ["lr_statistic"]
