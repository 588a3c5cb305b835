"""Offsets and prior weights of the observations (``offset=``, ``exposure=``, ``freq_weights=``,
``var_weights=``), with statsmodels' names and meanings; re-exported by :mod:`.base`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["NO_WEIGHTS", "ObservationWeights"]


@dataclass(frozen=True, eq=False)
class ObservationWeights:
    """Offsets and prior weights of the observations, with statsmodels' names and meanings.

    Every field is None or a float array with one value per row of the fit.  ``offset`` is
    added to the linear predictor and ``exposure`` enters as ``log(exposure)`` (log link
    only); ``freq_weights`` count observations (a row with weight 3 is three identical
    observations: the residual degrees of freedom are ``sum(freq_weights) - k``);
    ``var_weights`` divide the variance of an observation (``Var(y_i) = phi V(mu_i) / w_i``,
    R's prior ``weights=``; WLS ``weights=`` for least squares).  ``names`` records the
    options given as data columns (option -> column name), so that predictions on new data
    read the offset or exposure from the same column.
    """

    offset: np.ndarray | None = None
    exposure: np.ndarray | None = None
    freq_weights: np.ndarray | None = None
    var_weights: np.ndarray | None = None
    names: dict[str, str] = field(default_factory=dict)

    #: the options, in the order they are reported
    FIELDS = ("offset", "exposure", "freq_weights", "var_weights")

    @property
    def empty(self) -> bool:
        """True when no option was given (the unweighted model without offset)."""
        return all(getattr(self, f) is None for f in self.FIELDS)

    def given(self) -> dict[str, np.ndarray]:
        """The options that were given, by name."""
        return {f: getattr(self, f) for f in self.FIELDS if getattr(self, f) is not None}

    @property
    def linear_offset(self) -> np.ndarray | None:
        """What is added to the linear predictor: ``offset + log(exposure)`` (None if neither)."""
        if self.exposure is None:
            return self.offset
        log_exposure = np.log(self.exposure)
        return log_exposure if self.offset is None else self.offset + log_exposure

    @property
    def prior(self) -> np.ndarray | None:
        """The combined prior weights ``freq_weights * var_weights`` (statsmodels' ``iweights``)."""
        if self.freq_weights is None:
            return self.var_weights
        return self.freq_weights if self.var_weights is None else self.freq_weights * self.var_weights

    def nobs(self, n: int) -> float:
        """Observations counted: ``sum(freq_weights)``, or the row count ``n`` without them."""
        return n if self.freq_weights is None else float(np.sum(self.freq_weights))

    def positive_rows(self) -> np.ndarray | None:
        """Rows that carry weight (a zero frequency weight drops a row); None when all do."""
        if self.freq_weights is None or (self.freq_weights > 0).all():
            return None
        return self.freq_weights > 0

    def take(self, rows: np.ndarray) -> ObservationWeights:
        """The same options on a subset of the rows (positions or a boolean mask)."""
        return ObservationWeights(**{f: v[rows] for f, v in self.given().items()}, names=dict(self.names))

    def glm_options(self) -> dict[str, np.ndarray]:
        """Keyword arguments of ``statsmodels.api.GLM`` (``offset``, ``exposure``, ``*_weights``)."""
        return self.given()


#: no offset and unit weights
NO_WEIGHTS = ObservationWeights()
