"""Model states: the current fit, and vectorised tests of candidate blocks against it.

The drivers see a state only through :class:`~.protocol.ModelState` and
:class:`~.protocol.ComparableState`; :func:`make_state` is where a backend is chosen.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import statsmodels.api as sm

from .base import NO_WEIGHTS, ObservationWeights
from .gaussian import GaussianState
from .glm import GLMState
from .protocol import ComparableState, ModelState
from .robust import NONROBUST, RobustCov

_FAMILIES: dict[str, Callable[[], Any]] = {
    "gaussian": sm.families.Gaussian,
    "normal": sm.families.Gaussian,
    "binomial": sm.families.Binomial,
    "logistic": sm.families.Binomial,
    "poisson": sm.families.Poisson,
    "gamma": sm.families.Gamma,
    "inverse_gaussian": sm.families.InverseGaussian,
    # NB2 with alpha = 1, statsmodels' default, said here rather than warned at each call; pass
    # sm.families.NegativeBinomial(alpha=...) for another
    "negativebinomial": lambda: sm.families.NegativeBinomial(alpha=1.0),
}


def resolve_family(family: str | Any) -> tuple[Any, str]:
    """A statsmodels family instance and a short name from a string or an instance.

    ``"negativebinomial"`` is statsmodels' ``NegativeBinomial(alpha=1.0)``; pass an instance
    with another ``alpha`` (R's ``MASS::negative.binomial(theta = 1 / alpha)``).
    """
    if isinstance(family, str):
        try:
            fam = _FAMILIES[family.lower().replace("-", "_")]()
        except KeyError:
            raise ValueError(
                f"unknown family {family!r}; use one of {sorted(_FAMILIES)} or a statsmodels family instance"
            ) from None
    elif isinstance(family, sm.families.Family):
        fam = family
    else:
        raise TypeError(f"family must be a name or a statsmodels family instance, got {type(family).__name__}")
    return fam, type(fam).__name__.lower()


def is_ols(family: Any) -> bool:
    """Gaussian with identity link: use the exact least-squares state."""
    return isinstance(family, sm.families.Gaussian) and isinstance(family.link, sm.families.links.Identity)


#: families whose dispersion is 1 in theory but not in data: omitted terms (in a streamwise
#: search, the terms still to come) overdisperse counts, so candidates are tested with the
#: dispersion estimated (``test="score-f"``) unless the user asks for the model-based test
_DISPERSION_FIXED_IN_THEORY = (sm.families.Poisson, sm.families.NegativeBinomial)


def default_test(family: Any, y: np.ndarray, weights: ObservationWeights = NO_WEIGHTS) -> str:
    """The candidate test used when ``test=None``.

    ``"t"`` for least squares; ``"score-f"`` (Pearson dispersion, F reference) for Poisson and
    negative-binomial counts and for binomial proportions of several trials, whose variance
    omitted terms inflate; ``"score"`` otherwise: Bernoulli responses cannot be
    overdispersed, and the other families estimate their dispersion already.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> default_test(sm.families.Poisson(), np.array([0.0, 3.0]))
    'score-f'
    >>> default_test(sm.families.Binomial(), np.array([0.0, 1.0])), default_test(sm.families.Binomial(), np.array([0.25, 1.0]))
    ('score', 'score-f')
    """
    if is_ols(family):
        return "t"
    if isinstance(family, _DISPERSION_FIXED_IN_THEORY):
        return "score-f"
    if isinstance(family, sm.families.Binomial):
        y = np.asarray(y, dtype=float)  # proportions of several trials (trials as var_weights)
        return "score-f" if bool(np.any((y > 0) & (y < 1))) else "score"
    return "score"


def make_state(y: np.ndarray, fixed: np.ndarray, family: Any, test: str | None, *,
               weights: ObservationWeights = NO_WEIGHTS, cov: RobustCov = NONROBUST,
               fixed_names: Sequence[str] | None = None) -> ComparableState:
    """The model state for ``family``; ``test`` None picks the family's default.

    The one place that picks a backend: a new one (e.g. distributed) is chosen here.
    ``weights``: offset, exposure and prior weights; ``cov``: the robust covariance of the
    candidate tests (least squares only: the options check it); ``fixed_names``: the fixed
    columns' names, for messages.
    """
    if is_ols(family):
        if weights.empty and not cov.robust:
            return GaussianState(y, fixed, test=test or "t")
        return GaussianState(y, fixed, test=test or "t", weights=weights, cov=cov)
    return GLMState(y, fixed, family, test=test or default_test(family, y, weights), weights=None if weights.empty else weights,
                    fixed_names=fixed_names)


__all__ = ["ComparableState", "GLMState", "GaussianState", "ModelState", "default_test", "is_ols", "make_state", "resolve_family"]
