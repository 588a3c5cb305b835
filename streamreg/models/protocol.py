"""The model-state seam: what the search drivers ask of the current fit.

A model state holds the fit of ``y`` on the current design and tests whole blocks of
candidate terms against it.  The drivers (:mod:`streamreg.search`) see it only through the
protocols below, so another backend -- a distributed one, say -- plugs in by implementing
them in its own module and being returned by :func:`streamreg.models.make_state`.

Two levels, because not every driver needs everything:

* :class:`ModelState`: scoring and acceptance, all the streamwise driver uses (with
  ``y`` for its messages and ``boundary_share`` for its stop on separation; the penalised
  searches read only ``y``; the results report ``test``).
* :class:`ComparableState`: a :class:`ModelState` that can also compare nested models
  exactly, which stepwise search needs (the log-likelihood, the exact gain of one
  candidate, a refit on another set of terms).

:class:`~streamreg.models.gaussian.GaussianState` and :class:`~streamreg.models.glm.GLMState`
implement both.  Built with :class:`~streamreg.models.base.ObservationWeights` (``weights=``:
offset, exposure, frequency and variance weights, statsmodels' meanings) they apply them in
every test, likelihood and refit, and expose ``nobs``, the observations counted
(``sum(freq_weights)``; ``n`` stays the number of rows, the length of every array).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..outcomes import TestOutcomes
from .base import CandidateValues


class ModelState(Protocol):
    """The current fit and the vectorised tests of candidate blocks against it.

    Attributes
    ----------
    y : ndarray, shape (n,)
        The response as modelled (floats; 0/1 for the binomial family).
    n : int
        Number of observations.
    test : str
        The test ``score_block`` runs (``"t"``, ``"paper"``, ``"score"``, ``"lr"``), as
        the results name it.
    """

    y: np.ndarray
    n: int
    test: str

    @property
    def k(self) -> int:
        """Columns in the current design (intercept and accepted terms included)."""
        ...

    def score_block(self, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
        """Test every candidate of ``block`` against the current model; the state is unchanged.

        Returns the outcomes and a skip code per candidate (``models.base.TESTED`` or a key
        of ``SKIP_REASONS``: collinear, constant, no residual degrees of freedom).  The
        statistics must not depend on the other candidates of the block, so that the
        decisions do not depend on the block size.
        """
        ...

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term's columns (``n x d``) to the model.

        Returns None, or a key of ``models.base.REFUSAL_REASONS`` when the term cannot
        enter (the model is then unchanged).
        """
        ...

    def log_pvalue(self, statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
        """Log p-values of statistics returned by :meth:`score_block` (vectorised)."""
        ...

    def boundary_share(self) -> float:
        """Share of the rows whose fitted mean sits at the boundary where the MLE stops existing.

        The streamwise driver stops a search whose terms keep separating once this exceeds
        ``EXHAUSTED_SHARE`` (little information left); 0.0 for models without such a
        boundary (least squares).
        """
        ...


class ComparableState(ModelState, Protocol):
    """A :class:`ModelState` that also compares nested models exactly (stepwise search)."""

    @property
    def loglik(self) -> float:
        """Maximised log-likelihood of the current model."""
        ...

    @property
    def exact_gain(self) -> bool:
        """Whether :meth:`score_block`'s ``llr`` is the exact ``2 delta loglik``.

        False when it is an approximation (a score statistic); :meth:`llr_with` then gives
        the exact value for the few candidates that need it.
        """
        ...

    @property
    def llr_description(self) -> str:
        """How the exact ``2 delta loglik`` is obtained, in words (for the results)."""
        ...

    def llr_with(self, values: np.ndarray) -> tuple[float, str | None]:
        """Exact ``2 delta loglik`` of adding ``values``, and a refusal reason or None.

        For a GLM whose family estimates a dispersion, R's ``add1(test = "LRT")`` statistic
        instead (:mod:`.likelihood_ratio`), which ``step()`` ranks by.

        The state is unchanged.  With a refusal reason the gain is NaN: the term cannot
        enter (no maximum-likelihood estimate, or the fit does not converge).
        """
        ...

    def llr_over(self, smaller: ComparableState) -> float:
        """The same statistic as :meth:`llr_with` for removing terms: of the current model over
        ``smaller``, a state of the same kind on a subset of its columns (R's ``drop1``)."""
        ...

    def refit(self, fixed: np.ndarray, terms: Sequence[np.ndarray], *, within: bool = False) -> ComparableState:
        """A new state of the same kind on the design ``[fixed, *terms]``; this one is unchanged.

        ``within=True`` promises that every column lies in this model's span (a sub-model:
        backward elimination), which a state may use to refit faster; the result is the same.
        Raises ValueError when that model cannot be fitted (e.g. its MLE does not exist).
        """
        ...
