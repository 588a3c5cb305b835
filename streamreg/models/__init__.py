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
    return GLMState(y, fixed, family, test=test or "score", weights=None if weights.empty else weights,
                    fixed_names=fixed_names)


__all__ = ["ComparableState", "GLMState", "GaussianState", "ModelState", "is_ols", "make_state", "resolve_family"]
