"""The search's GLM refits: statsmodels' path, run by the lean IRLS, with the LP's verdict cheap.

:func:`~streamreg.models.glm_statsmodels.statsmodels_fit` is the reference: a warm-started statsmodels
IRLS run (``_FIT_MAXITER`` iterations); if it had trouble (no convergence, a warning) or
ended below its starting log-likelihood, a run from statsmodels' default start, taken if
it did no worse (or the first had trouble); a converged fit away from the boundary is the
answer; otherwise Konis' LP decides separation, and a fit in trouble whose data are not
separated gets ``_RETRY_MAXITER`` more iterations.  :func:`fast_fit` walks the same path
with :func:`~.irls.irls` runs -- the iterates statsmodels would compute -- and returns None
wherever statsmodels should decide instead (a run :func:`~.irls.irls` hands back).

Where only the verdict matters (an acceptance: the caller reads no failed fit) and the
family can separate, three shortcuts give the same verdict sooner, each because on
separated data every IRLS run ends in trouble or at the boundary, where the path asks the
LP, and the LP then says separated:

* a column that separates alone (:func:`~.boundary.a_column_separates`: a rare indicator
  whose rows have one outcome) decides before any run;
* a run stops as soon as its last step is a separating direction (:func:`~.boundary.separates`);
* a run unconverged after ``_PROBE_ITER`` iterations asks the LP before iterating further;
* a run that breaks down asks the LP before handing over to statsmodels.

The LP's verdict, asked at most once per fit, comes from :func:`~.boundary.separated_at`
(a certificate from a converged score, or the LP over the rows that decide it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import NONCONVERGENCE, SEPARATION, ObservationWeights
from .boundary import (
    LPRows,
    a_column_separates,
    boundary_gap,
    separated_at,
    separated_by_cuts,
    separates,
)
from .families import spec_of
from .irls import GLMData, IRLSFit, irls

_FIT_TOL = 1e-12
#: relative change of the deviance that also counts as converged: at large n the deviance's
#: own rounding (a few ulps of, e.g., 8317 = 2e-12) exceeds any absolute tolerance this tight,
#: and IRLS would oscillate in the last bit until maxiter
_FIT_RTOL = 1e-13
_FIT_MAXITER = 200
_RETRY_MAXITER = 2000
#: iterations after which an unconverged run of a family that can separate asks the LP
#: (warm starts converge in under ten) before going on
_PROBE_ITER = 30
#: fitted means this close to the boundary (0 or 1 for binomial, 0 for Poisson) trigger the
#: exact test of whether the MLE exists; a trigger, never a verdict (R only warns there)
_SUSPECT = 1e-6


@dataclass
class GLMFit:
    """A GLM fit and what, if anything, is wrong with it.

    ``problem`` is None, :data:`SEPARATION` (the linear programme shows that the MLE does
    not exist) or :data:`NONCONVERGENCE` (IRLS did not converge although the MLE exists).
    ``result`` is the last IRLS iterate (None if the iteration broke down).
    """

    result: Any  # statsmodels GLMResults or an IRLSFit, or None
    problem: str | None = None


def needs_mle_check(family: Any, y: np.ndarray, mu: np.ndarray) -> bool:
    """The trigger: whether any fitted mean comes within ``_SUSPECT`` of where the MLE could fail to exist."""
    return bool((boundary_gap(family, mu, y) < _SUSPECT).any())


def below_start(llf: float, start_llf: float) -> bool:
    """Whether a warm-started run ended below the log-likelihood of its own start."""
    return bool(np.isfinite(start_llf) and llf < start_llf - 1e-9 * (1.0 + abs(start_llf)))


class _Verdict:
    """The separation LP's verdict on the fit's data, found once (lazily) and kept."""

    def __init__(self, data: GLMData, rows: np.ndarray | None, new_columns: int | None = None):
        self.data, self.rows = data, rows
        #: the first column that may separate alone (those before it form a model with an MLE)
        self.first = 0 if new_columns is None else data.x.shape[1] - new_columns
        self._lp: LPRows | None = None
        self._separated: bool | None = None
        self._column: bool | None = None

    @property
    def lp(self) -> LPRows:
        if self._lp is None:
            x, y = self.data.x, self.data.y
            built = LPRows.build(x, y, self.data.family) if self.rows is None else \
                LPRows.build(x[self.rows], y[self.rows], self.data.family)
            assert built is not None  # asked only for a family that can separate
            self._lp = built
        return self._lp

    def separated(self, result: IRLSFit | None = None) -> bool:
        """The verdict; a converged ``result`` may certify the overlap without the LP."""
        if self._separated is None:
            d = self.data
            if result is not None and result.converged:
                # a converged run can still be drifting (the deviance flattens out under
                # quasi-complete separation): its last step may be the separating direction
                self._separated = self.by_a_column() or separates(self.lp, result.step) or separated_at(
                    d.x, d.y, d.family, result.fittedvalues, d.prior, self.rows)
            else:
                self._separated = self.by_a_column() or separated_by_cuts(self.lp)
        return self._separated

    def by_a_column(self) -> bool:
        """Whether one column alone separates (:func:`~.boundary.a_column_separates`), found once."""
        if self._column is None:
            self._column = a_column_separates(self.lp, self.first)
        return self._column

    def watch(self, step: np.ndarray, mu: np.ndarray) -> bool:
        """A ``stop`` for :func:`~.irls.irls`: near the boundary, a column or the last step separates."""
        if not needs_mle_check(self.data.family, self.data.y, mu):
            return False
        if not (self.by_a_column() or separates(self.lp, step)):
            return False
        self._separated = True
        return True


class _Separated(Exception):
    """The LP says separated (``fit``: the last iterate, if any)."""

    def __init__(self, fit: IRLSFit | None):
        self.fit = fit


def fast_fit(data: GLMData, start: np.ndarray | None, rows: np.ndarray | None, verdict_only: bool,
             new_columns: int | None = None) -> GLMFit | None:
    """statsmodels' path (see the module docstring) by :func:`~.irls.irls`; None: let statsmodels run it.

    ``rows``: the rows with positive weight (None: all), the LP's rows.  ``new_columns``:
    the design's last columns are a candidate's, added to a model whose MLE exists (None:
    nothing known).
    """
    verdict = _Verdict(data, rows, new_columns)
    shortcuts = verdict_only and spec_of(data.family).separation is not None
    if shortcuts and verdict.by_a_column():  # decided without a fit (one pass over the design)
        return GLMFit(None, SEPARATION)
    try:
        return _path(data, start, verdict, shortcuts)
    except _Separated as sep:
        return GLMFit(sep.fit, SEPARATION)


def _run(data: GLMData, start: np.ndarray | None, maxiter: int, verdict: _Verdict, shortcuts: bool) -> IRLSFit | None:
    """One IRLS run as statsmodels would make it, or None (statsmodels decides)."""
    if not shortcuts:
        return irls(data, start, maxiter=maxiter, tol=_FIT_TOL, rtol=_FIT_RTOL)
    fit = irls(data, start, maxiter=min(maxiter, _PROBE_ITER), tol=_FIT_TOL, rtol=_FIT_RTOL, stop=verdict.watch)
    if fit is None or fit.stopped or (not fit.converged and verdict.separated()):
        if fit is not None and fit.stopped or verdict.separated():
            raise _Separated(fit)
        return None
    if fit.converged or maxiter <= _PROBE_ITER:
        return fit
    return irls(data, start, maxiter=maxiter, tol=_FIT_TOL, rtol=_FIT_RTOL)  # not separated: the whole run


def _path(data: GLMData, start: np.ndarray | None, verdict: _Verdict, shortcuts: bool) -> GLMFit | None:
    result = _run(data, start, _FIT_MAXITER, verdict, shortcuts)
    if result is None:
        return None
    trouble = not result.converged
    if start is not None and (trouble or below_start(result.llf, result.start_llf)):
        cold = _run(data, None, _FIT_MAXITER, verdict, shortcuts)
        if cold is None:
            return None
        if cold.llf >= result.llf or trouble:
            result, trouble = cold, not cold.converged
    if not trouble and not needs_mle_check(data.family, data.y, result.fittedvalues):
        return GLMFit(result)
    if spec_of(data.family).separation is not None and verdict.separated(None if trouble else result):
        return GLMFit(result, SEPARATION)
    if not trouble:
        return GLMFit(result)  # near the boundary, but the MLE exists and IRLS converged
    retried = irls(data, result.params, maxiter=_RETRY_MAXITER, tol=_FIT_TOL, rtol=_FIT_RTOL)
    if retried is None:
        return None
    return GLMFit(retried, None if retried.converged else NONCONVERGENCE)


def glm_data(y: np.ndarray, x: np.ndarray, family: Any, offset: np.ndarray | None,
             weights: ObservationWeights | None) -> GLMData:
    """The fit's data as :class:`~.irls.GLMData`: ``offset`` is added to the weights' linear offset."""
    w = ObservationWeights() if weights is None else weights
    lin_offset = w.linear_offset
    if offset is not None:
        lin_offset = offset if lin_offset is None else lin_offset + offset
    return GLMData(y, x, family, lin_offset, w.freq_weights, w.var_weights)
