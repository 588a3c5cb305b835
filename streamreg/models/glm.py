"""The GLM model state: score (Rao) or likelihood-ratio tests of candidate blocks.

At the current IRLS fit with working weights ``w = 1 / (g'(mu)^2 V(mu))`` and Pearson
residuals ``z = (y - mu) / sqrt(V(mu))``, one thin QR of ``W^(1/2) X`` scores a whole block:
with ``B = W^(1/2) C`` and ``B~ = (I - Q Q') B`` the score statistic of candidate j is

    S_j = [ (B~_j' z)^2 / ||B~_j||^2 + ||Q' z||^2 ] / phi,

where the second term (the restricted score, zero at an exact MLE) is kept so that the
number equals statsmodels' ``GLMResults.score_test(exog_extra=...)`` with expected
information.  phi is the Pearson dispersion (1 for binomial and Poisson).
"""
from __future__ import annotations

import warnings

import numpy as np
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import (
    ConvergenceWarning,
    PerfectSeparationError,
    PerfectSeparationWarning,
)

from ..outcomes import TestOutcomes
from .base import (
    SEPARATION,
    TESTED,
    Basis,
    CandidateBlock,
    multi_column_reduction,
    reduce_single_columns,
    skip_codes,
)
from .distributions import CachedCritical, log_sf
from .separation import is_separated

TESTS = ("score", "lr")
_FIT_TOL = 1e-12
_FIT_MAXITER = 200
_MU_EPS = 1e-12
_SEPARATED = 10 * np.finfo(float).eps  # R's glm.fit threshold for "fitted probabilities 0 or 1"
_SUSPECT = 1e-6  # fitted probabilities this close to 0 or 1 trigger the LP separation check


class SeparationError(RuntimeError):
    """The IRLS fit did not reach an interior optimum (separation or divergence)."""


def fit_glm(y: np.ndarray, x: np.ndarray, family, start=None, offset=None):
    """statsmodels GLM fit, tightly converged; raises SeparationError on trouble."""
    model = sm.GLM(y, x, family=family, offset=offset)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            result = model.fit(start_params=start, tol=_FIT_TOL, maxiter=_FIT_MAXITER)
        except (PerfectSeparationWarning, PerfectSeparationError) as exc:
            raise SeparationError(f"perfect separation: {exc}") from None
        except ConvergenceWarning as exc:
            raise SeparationError(f"IRLS did not converge: {exc}") from None
        except np.linalg.LinAlgError as exc:
            raise SeparationError(f"IRLS failed: {exc}") from None
        if isinstance(family, sm.families.Binomial):
            # quasi-complete separation: statsmodels converges without a warning while some
            # fitted probabilities drift towards 0 or 1.  R's glm.fit flags 10 eps; IRLS can
            # stop well short of that (1 - 4e-13 on ionosphere), so anything past
            # _SUSPECT is put to the linear-programming test of separation
            mu = np.asarray(result.fittedvalues)
            edge = float(np.minimum(mu, 1 - mu).min())
            if edge < _SEPARATED or (edge < _SUSPECT and is_separated(x, y)):
                raise SeparationError("the response is (quasi-)completely separated: fitted probabilities "
                                      "tend to 0 or 1 and the maximum-likelihood estimate does not exist")
        return result


class GLMState:
    """A GLM fit of y on the current design, refitted (warm start) on each acceptance.

    Parameters
    ----------
    y : ndarray, shape (n,)
    fixed : ndarray, shape (n, k0)
    family : statsmodels family instance
    test : {"score", "lr"}
        ``"score"`` (default) scores a whole block from one fit; ``"lr"`` refits the
        model once per candidate and uses twice the log-likelihood gain.
    """

    def __init__(self, y: np.ndarray, fixed: np.ndarray, family, *, test: str = "score"):
        if test not in TESTS:
            raise ValueError(f"test must be one of {TESTS} for GLMs, got {test!r}")
        self.test = test
        self._critical = CachedCritical()
        self.family = family
        self.family_name = type(family).__name__.lower()
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.x = np.asarray(fixed, dtype=float)
        try:
            self.result = fit_glm(self.y, self.x, family)
        except SeparationError as exc:
            raise ValueError(
                f"the fixed terms alone cannot be fitted ({exc}); remove the offending fixed terms"
            ) from None
        self._refresh()

    @property
    def k(self) -> int:
        return self.x.shape[1]

    def _refresh(self) -> None:
        res = self.result
        with np.errstate(over="ignore"):  # saturated inverse links are clipped below
            mu = np.asarray(res.fittedvalues)
        if isinstance(self.family, sm.families.Binomial):
            mu = np.clip(mu, _MU_EPS, 1 - _MU_EPS)
        var = self.family.variance(mu)
        self.sqrt_w = np.sqrt(self.family.weights(mu))
        self.z = (self.y - mu) / np.sqrt(var)
        self.scale = float(res.scale)
        self.llf = float(res.llf)
        self.basis = Basis(self.n, capacity=self.k + 1)
        self.basis.append(self.sqrt_w[:, None] * self.x)
        qz = self.basis.q.T @ self.z
        self.restricted_score = float(qz @ qz)
        self.z_resid = self.z - self.basis.q @ qz
        self._qz = np.column_stack([self.basis.q, self.z_resid])

    def score_block(self, block: CandidateBlock) -> tuple[TestOutcomes, np.ndarray]:
        """Score (or LR) test of every candidate in ``block``; returns outcomes, skip codes."""
        m = len(block)
        widths = block.widths
        b_all = self.sqrt_w[:, None] * block.values
        gain = np.zeros(m)
        rank = widths.astype(int).copy()
        if (widths == 1).all():
            gain, rank = reduce_single_columns(self._qz, b_all)
        else:
            for j in range(m):
                sl = slice(block.starts[j], block.starts[j] + widths[j])
                b = b_all[:, sl]
                resid = self.basis.residualise(b)
                gain[j], rank[j] = multi_column_reduction(resid, self.z_resid, float(np.sum(b * b)))
        codes = skip_codes(block, rank, self.n - self.k - rank)
        stat = (gain + self.restricted_score) / self.scale
        df = np.maximum(rank, 1)
        if self.test == "lr":
            stat = self._lr_statistics(block, codes)
        stat = np.where(codes == TESTED, stat, 0.0)
        out = TestOutcomes(stat, df, np.full(m, np.inf), stat.copy(), log_sf, self._critical)
        return out, codes

    def _lr_statistics(self, block: CandidateBlock, codes: np.ndarray) -> np.ndarray:
        """Twice the log-likelihood gain, one warm-started refit per candidate."""
        stat = np.zeros(len(block))
        for j in np.flatnonzero(codes == TESTED):
            c = block.term(j)
            start = np.concatenate([self.result.params, np.zeros(c.shape[1])])
            try:
                res = fit_glm(self.y, np.column_stack([self.x, c]), self.family, start=start)
            except SeparationError:
                codes[j] = SEPARATION
                continue
            stat[j] = max(2.0 * (res.llf - self.llf), 0.0)
        return stat

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term and refit; returns a refusal reason (separation) or None."""
        c = np.asarray(values, dtype=float).reshape(self.n, -1)
        x_new = np.column_stack([self.x, c])
        start = np.concatenate([self.result.params, np.zeros(c.shape[1])])
        try:
            result = fit_glm(self.y, x_new, self.family, start=start)
        except SeparationError as exc:
            return str(exc)
        self.x, self.result = x_new, result
        self._refresh()
        return None

    def log_pvalue(self, statistic, df, df_resid):
        return log_sf(statistic, df, df_resid)
