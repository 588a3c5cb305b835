"""Model states: the current fit, and vectorised tests of candidate blocks against it.

The drivers see a state only through :class:`~.protocol.ModelState` and
:class:`~.protocol.ComparableState`; :func:`make_state` is where a backend is chosen.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import NO_WEIGHTS, ObservationWeights
from .families import FamilySpec, is_ols, resolve_family, spec_of
from .gaussian import GaussianState
from .glm import GLMState
from .negbin import NegBinState
from .protocol import ComparableState, ModelState
from .robust import NONROBUST, RobustCov


def make_state(y: np.ndarray, fixed: np.ndarray, family: Any, test: str | None, *,
               weights: ObservationWeights = NO_WEIGHTS, cov: RobustCov = NONROBUST,
               fixed_names: Sequence[str] | None = None) -> ComparableState:
    """The model state for ``family``; ``test`` None picks the family's default.

    The one place that picks a backend: a new one (e.g. distributed) is chosen here.
    ``weights``: offset, exposure and prior weights; ``cov``: the robust covariance of the
    candidate tests (least squares only: the options check it); ``fixed_names``: the fixed
    columns' names, for messages.
    """
    spec = spec_of(family)
    if spec.least_squares:
        if weights.empty and not cov.robust:
            return GaussianState(y, fixed, test=test or spec.default_test)
        return GaussianState(y, fixed, test=test or spec.default_test, weights=weights, cov=cov)
    state_class = NegBinState if spec.theta_estimated else GLMState  # glm.nb: theta estimated as terms enter
    return state_class(y, fixed, family, test=test or spec.default_test_for(y), weights=None if weights.empty else weights,
                       fixed_names=fixed_names)


__all__ = ["ComparableState", "FamilySpec", "GLMState", "GaussianState", "ModelState", "NegBinState", "is_ols",
           "make_state",
           "resolve_family", "spec_of"]
