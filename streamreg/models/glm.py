"""The GLM model state: score (Rao) or likelihood-ratio tests of candidate blocks.

At the current IRLS fit with working weights ``w = 1 / (g'(mu)^2 V(mu))`` and Pearson
residuals ``z = (y - mu) / sqrt(V(mu))``, one thin QR of ``W^(1/2) X`` scores a whole block:
with ``B = W^(1/2) C`` and ``B~ = (I - Q Q') B`` the score statistic of candidate j is

    S_j = [ (B~_j' z)^2 / ||B~_j||^2 + ||Q' z||^2 ] / phi,

where the second term (the restricted score, zero at an exact MLE) is kept so that the
number equals statsmodels' ``GLMResults.score_test(exog_extra=...)`` with expected
information.  phi is the Pearson dispersion (1 for binomial and Poisson).

``test="score-f"`` estimates the dispersion instead of assuming it.  In a streamwise search
the model lacks terms that are still to come, and for counts (or binomial proportions of
several trials) the omitted terms inflate the residual variance well beyond ``phi = 1``: the
fixed-dispersion score test is then anti-conservative for every null candidate.  With
``chi2 = ||z||^2`` the current Pearson statistic and ``rho = ||Q' z||^2`` the restricted score,

    d F_j = (S~_j + rho) / [ (chi2 - rho - S~_j) / (n - k - d) ],      S~_j = (B~_j' z)^2 / ||B~_j||^2,

referred to F(d, n - k - d).  This is the least-squares partial F computed on the working
residuals, so for the Gaussian identity model it is exactly the partial F; for other
families it is a monotone map of the Rao statistic of R's quasi families
(``add1(glm(..., family = quasipoisson), test = "Rao")``, which divides by the Pearson
dispersion ``chi2 / (n - k)``): ``d F = R (n - k - d) / ((n - k) - R)`` up to ``rho``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast, overload

import numpy as np
import statsmodels.api as sm

from ..outcomes import TestOutcomes
from .base import (
    INVALID_MEANS,
    NO_WEIGHTS,
    SEPARATION,
    TESTED,
    CandidateBlock,
    CandidateValues,
    ObservationWeights,
    column_scales,
    equilibrate,
    multi_column_reduction,
    skip_codes,
    stack_by_column,
)
from .basis import Basis
from .boundary import boundary_gap
from .distributions import CachedCritical, log_sf
from .families import GAUSSIAN_GLM, family_name, spec_of
from .glm_fit import GLMFit, fast_fit, glm_data
from .glm_gram import single_term_products, single_term_robust
from .glm_statsmodels import statsmodels_fit
from .irls import weighted_gram
from .likelihood_ratio import lr_statistic
from .protocol import ComparableState
from .scale import too_large
from .separation import one_outcome_indicators

TESTS = GAUSSIAN_GLM.test_names  # the tests of every GLM family (``FamilySpec.tests``)
_MU_EPS = 1e-12
#: fitted means this close to the boundary count towards :meth:`GLMState.boundary_share`
_NEAR_BOUNDARY = 1e-4


def invalid_means(family: Any, mu: np.ndarray) -> int:
    """How many fitted means lie outside the family's range (R's ``family$validmu``).

    A link that does not map into the family's range (the Gamma's default inverse link, an
    identity link for counts or probabilities) can give IRLS estimates whose means are
    negative, or above 1 for a probability: no such fit is a GLM, and R's ``glm`` stops
    with "no valid set of coefficients has been found".  statsmodels returns it silently.
    """
    mu = np.asarray(mu, dtype=float)
    bad = ~np.isfinite(mu) | spec_of(family).mean_range.outside(mu)  # FamilySpec.mean_range
    return int(bad.sum())


def fit_glm(y: np.ndarray, x: np.ndarray, family: Any, start: np.ndarray | None = None,
            offset: np.ndarray | None = None,
            weights: ObservationWeights | None = None, *, verdict_only: bool = False,
            new_columns: int | None = None) -> GLMFit:
    """statsmodels GLM fit, tightly converged, with an exact verdict on trouble.

    See :func:`_fit_glm`; a converged fit whose means leave the family's range
    (:func:`invalid_means`) has the problem :data:`INVALID_MEANS`.  ``verdict_only``: the
    caller reads the result only when there is no problem (an acceptance), so a fit that
    drifts towards separation may stop as soon as the separation is shown.  ``new_columns``:
    the last columns of ``x`` are a candidate's, added to a model whose MLE exists.
    """
    fit = _fit_glm(y, x, family, start, offset, weights, verdict_only, new_columns)
    if fit.problem is None and fit.result is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            if invalid_means(family, np.asarray(fit.result.fittedvalues, dtype=float)):
                return GLMFit(fit.result, INVALID_MEANS)
    return fit


def _fit_glm(y: np.ndarray, x: np.ndarray, family: Any, start: np.ndarray | None,
             offset: np.ndarray | None, weights: ObservationWeights | None, verdict_only: bool = False,
             new_columns: int | None = None) -> GLMFit:
    """The fit by the lean IRLS (:func:`~.glm_fit.fast_fit`, statsmodels' path with its
    iterates), else by statsmodels itself (:func:`~.glm_statsmodels.statsmodels_fit`)."""
    y = np.asarray(y, dtype=float)
    rows = None if weights is None else weights.positive_rows()
    fast = fast_fit(glm_data(y, x, family, offset, weights), start, rows, verdict_only, new_columns)
    return fast if fast is not None else statsmodels_fit(y, x, family, start, offset, weights)


T = TypeVar("T")


class _FormedOnUse(Generic[T]):
    """A field of a :class:`GLMState` that depends on its weighted basis, kept in the
    attribute ``slot``: a state that deferred its basis (``defer_basis=True``) forms it
    (``_form_basis``) when one of these is first read."""

    def __init__(self, slot: str) -> None:
        self.slot = slot
        self.name = slot

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __set__(self, state: GLMState, value: object) -> None:
        # read-only, as a property without a setter: an assignment would hide the field
        raise AttributeError(f"{self.name!r} of a GLM state is read-only: it follows the state's fit")

    @overload
    def __get__(self, state: None, owner: type) -> _FormedOnUse[T]: ...

    @overload
    def __get__(self, state: GLMState, owner: type) -> T: ...

    def __get__(self, state: GLMState | None, owner: type) -> _FormedOnUse[T] | T:
        if state is None:
            return self
        if state._basis_pending:
            state._form_basis()
        return cast(T, getattr(state, self.slot))


class GLMState:
    """A GLM fit of y on the current design, refitted (warm start) on each acceptance.

    Parameters
    ----------
    y : ndarray, shape (n,)
    fixed : ndarray, shape (n, k0)
    family : statsmodels family instance
    test : {"score", "score-f", "lr"}
        ``"score"`` (default) scores a whole block from one fit at the family's dispersion;
        ``"score-f"`` does the same with the dispersion estimated from the Pearson residuals
        (an F test, see the module docstring); ``"lr"`` refits the model once per candidate
        and uses twice the log-likelihood gain (R's ``add1(test = "LRT")``: the deviance
        change over the current Pearson dispersion for a family that estimates it).
    weights : ObservationWeights, optional
        Offset, exposure and prior weights, passed to every statsmodels fit
        (``sm.GLM(..., offset=, exposure=, freq_weights=, var_weights=)``).  The working
        weights are then ``freq_weights * var_weights / (g'(mu)^2 V(mu))`` and the Pearson
        residuals ``sqrt(freq_weights * var_weights) (y - mu) / sqrt(V(mu))``, so the score
        statistic is still statsmodels' ``score_test`` of the weighted fit.
    equilibrated : bool
        ``fixed`` is a column-ordered float64 copy already divided by its
        :func:`~.base.column_scales`, handed over to the state (kept, not copied).
    defer_basis : bool
        Form the weighted basis (and what depends on it) only when first asked for: a
        sub-model whose only test is one single-column term (a drop-one test) takes it from
        sums over the rows instead (:mod:`.glm_gram`).
    """

    def __init__(self, y: np.ndarray, fixed: np.ndarray, family: Any, *, test: str = "score",
                 weights: ObservationWeights | None = None, fixed_names: Sequence[str] | None = None,
                 start: np.ndarray | None = None, equilibrated: bool = False, defer_basis: bool = False) -> None:
        self.spec = spec_of(family, as_glm=True)
        self.spec.check_test(test, allow_none=False)
        self.test = test
        self._critical = CachedCritical()
        self.family = family
        self.family_name = family_name(family)
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.weights = NO_WEIGHTS if weights is None else weights
        #: observations counted (``sum(freq_weights)``; the row count without them)
        self.nobs = self.weights.nobs(self.n)
        # every column at a power-of-two scale: statsmodels' pinv would drop a column at 1e17
        # beside the intercept, and the state must keep the design the refit will use
        # (``equilibrated``: the caller's column-ordered copy is at those scales already and is handed over)
        self.x = fixed if equilibrated else np.asfortranarray(equilibrate(fixed))  # by column: IRLS and LP read columns
        fit = fit_glm(self.y, self.x, family, start=start, weights=self._fit_weights)
        if fit.problem == SEPARATION:
            raise ValueError("the fixed terms alone separate the response: the maximum-likelihood estimate does "
                             "not exist (exact LP test); " + _separation_hint(fixed, self.y, family, fixed_names))
        if fit.problem == INVALID_MEANS:
            raise ValueError(f"the GLM of the response on the fixed terms alone has fitted means outside the "
                             f"{type(family).__name__} family's range (e.g. negative means): no valid fit with "
                             "this link; use a link that keeps the means in range, such as log")
        if fit.problem is not None:
            scale = too_large("the response", self.y)  # IRLS squares the means: name that cause
            raise ValueError("the GLM of the response on the fixed terms alone did not converge"
                             + (f": {scale}" if scale else "; check the fixed terms and the family"))
        self.result = fit.result
        self._refresh(defer_basis=defer_basis)

    @property
    def k(self) -> int:
        return self.x.shape[1]

    @property
    def _fit_weights(self) -> ObservationWeights | None:
        return None if self.weights.empty else self.weights

    def _refresh(self, defer_basis: bool = False) -> None:
        """The working weights and Pearson residuals of the current fit, and its weighted basis
        (``defer_basis``: formed when first asked for; a one-term test may not need it)."""
        res = self.result
        with np.errstate(over="ignore"):  # saturated inverse links are clipped below
            mu = np.asarray(res.fittedvalues)
        if self.spec.mean_range.upper == 1.0:  # binomial: the variance vanishes at 0 and 1
            mu = np.clip(mu, _MU_EPS, 1 - _MU_EPS)
        var = self.family.variance(mu)
        # statsmodels' weights 1 / (g'(mu)^2 V(mu)), with the variance already at hand
        shared = type(self.family).weights is sm.families.Family.weights
        weights = 1.0 / (self.family.link.deriv(mu) ** 2 * var) if shared else self.family.weights(mu)
        prior = self.weights.prior
        if prior is None:
            self.sqrt_w = np.sqrt(weights)
            self.z = (self.y - mu) / np.sqrt(var)
        else:  # statsmodels' iweights: the score and the information carry them once each
            self.sqrt_w = np.sqrt(prior * weights)
            self.z = np.sqrt(prior) * (self.y - mu) / np.sqrt(var)
        self.scale = float(res.scale)
        self.llf = float(res.llf)
        self._basis_pending = True
        if not defer_basis:
            self._form_basis()

    def _form_basis(self) -> None:
        self._basis_pending = False
        self._basis = Basis(self.n, capacity=self.k + 1)
        self._basis.append(self.x, row_scale=self.sqrt_w)
        qz = self._basis.q.T @ self.z
        self._restricted_score = float(qz @ qz)
        self._z_resid = self.z - self._basis.q @ qz
        #: Pearson chi-square left after the restricted score: the "residual sum of squares"
        #: of the working regression, for the score-f test
        self._pearson_resid = float(self._z_resid @ self._z_resid)
        self._q_and_z = self._basis.with_target(self._z_resid)

    # the weighted basis and what depends on it, formed on first use (see ``defer_basis``)
    basis = _FormedOnUse[Basis]("_basis")
    z_resid = _FormedOnUse[np.ndarray]("_z_resid")
    restricted_score = _FormedOnUse[float]("_restricted_score")
    pearson_resid = _FormedOnUse[float]("_pearson_resid")
    _qz = _FormedOnUse[np.ndarray]("_q_and_z")

    def score_block(self, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
        """Score (or LR) test of every candidate in ``block``; returns outcomes, skip codes."""
        m = len(block)
        widths = block.widths
        gain = np.zeros(m)
        rank = widths.astype(int).copy()
        quick = self._one_term_from_sums(block)
        restricted = self.restricted_score if quick is None else quick[1]
        if quick is not None:
            gain = quick[0]
        elif (widths == 1).all():
            gain, rank = block.reduce_single(self._qz, self.sqrt_w)
        else:
            b_all = self.sqrt_w[:, None] * block.values
            for j in range(m):
                sl = slice(block.starts[j], block.starts[j] + widths[j])
                b = equilibrate(b_all[:, sl])  # scale-free statistic; keep the norms in range
                resid = self.basis.residualise(b)
                gain[j], rank[j] = multi_column_reduction(resid, self.z_resid, float(np.sum(b * b)))
        df_resid = self.nobs - self.k - rank
        codes = self.skip_codes(block, rank)
        df = np.maximum(rank, 1)
        if self.test == "score-f":
            return self._f_outcomes(gain, df, df_resid, codes), codes
        stat = (gain + restricted) / self.scale
        if self.test == "lr":
            stat = self._lr_statistics(block, codes)
        stat = np.where(codes == TESTED, stat, 0.0)
        out = TestOutcomes(stat, df, np.full(m, np.inf), stat.copy(), log_sf, self._critical)
        return out, codes

    def _one_pending_term(self, block: CandidateValues) -> np.ndarray | None:
        """The column of a single one-column term while the basis is still pending (else None):
        its tests then come from sums over the rows (:mod:`.glm_gram`)."""
        if self._basis_pending and type(block) is CandidateBlock and block.widths.tolist() == [1]:
            return block.values[:, 0]
        return None

    def _one_term_from_sums(self, block: CandidateValues) -> tuple[np.ndarray, float] | None:
        """Gain and restricted score of a single one-column term from sums (the basis pending);
        None: the basis's path decides."""
        b = self._one_pending_term(block) if self.test == "score" else None
        found = None if b is None else single_term_products(self.x, self.sqrt_w, self.z, b)
        if found is None:
            return None
        g, norm2, restricted = found
        return np.array([g[-1] ** 2 / (norm2 - float(g[:-1] @ g[:-1]))]), restricted

    def robust_parts_from_sums(self, block: CandidateValues) -> tuple[float, float] | None:
        """The robust score test's score and variance (:mod:`.robust_score`) of a single
        one-column term from sums, the basis pending; None: the basis's path decides."""
        b = self._one_pending_term(block)
        return None if b is None else single_term_robust(self.x, self.sqrt_w, self.z, b)

    def skip_codes(self, block: CandidateValues, rank: np.ndarray) -> np.ndarray:
        """The skip code of each candidate of ``block`` from its rank after projection (collinear,
        constant, or no residual degrees of freedom left)."""
        return skip_codes(block, rank, self.nobs - self.k - rank)

    def _f_outcomes(self, gain: np.ndarray, df: np.ndarray, df_resid: np.ndarray,
                    codes: np.ndarray) -> TestOutcomes:
        """The score-f outcomes: ``d F`` with the dispersion estimated after the candidate.

        ``llr`` (read by the penalty rules) is the score statistic over the current Pearson
        dispersion, R's quasi-family Rao statistic, so every rule sees the same dispersion.
        """
        tested = codes == TESTED
        dfr = np.maximum(df_resid, 1).astype(float)
        resid1 = np.maximum(self.pearson_resid - gain, self.pearson_resid * 1e-15 + np.finfo(float).tiny)
        numerator = gain + self.restricted_score
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(tested, numerator / (resid1 / dfr), 0.0)
        phi = self.pearson_dispersion
        llr = np.where(tested, numerator / phi, 0.0) if phi > 0 else np.zeros_like(stat)
        return TestOutcomes(stat, df, dfr, llr, log_sf, self._critical)

    @property
    def pearson_dispersion(self) -> float:
        """Pearson chi-square over the residual degrees of freedom of the current fit
        (R's dispersion of a quasi family; statsmodels' ``scale="X2"``)."""
        return float((self.pearson_resid + self.restricted_score) / max(self.nobs - self.k, 1))

    def _lr_statistics(self, block: CandidateValues, codes: np.ndarray) -> np.ndarray:
        """The LR statistic (:meth:`_lr_gain`), one warm-started refit per candidate.

        Where the augmented MLE does not exist the gain at the last IRLS iterate is used (the
        supremum is approached, not attained); should the rule accept such a candidate,
        :meth:`accept` refuses it, exactly as with score tests.
        """
        stat = np.zeros(len(block))
        for j in np.flatnonzero(codes == TESTED):
            fit = self.fit_with(block.term(int(j)))
            if fit.result is None:  # IRLS broke down: the largest gain any extension can give
                stat[j] = float(self.result.deviance) / self.scale
                continue
            stat[j] = self._lr_gain(fit.result)
        return stat

    def fit_with(self, values: np.ndarray, *, verdict_only: bool = False) -> GLMFit:
        """The fit of the current model plus ``values`` (warm start); the state is unchanged.

        ``verdict_only``: the result is read only if the fit has no problem (see :func:`fit_glm`).
        """
        c = equilibrate(np.asarray(values, dtype=float).reshape(self.n, -1))
        start = np.concatenate([self.result.params, np.zeros(c.shape[1])])
        return fit_glm(self.y, stack_by_column([self.x, c]), self.family, start=start, weights=self._fit_weights,
                       verdict_only=verdict_only, new_columns=c.shape[1])

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term and refit; returns a refusal reason (see ``REFUSAL_REASONS``) or None."""
        c = equilibrate(np.asarray(values, dtype=float).reshape(self.n, -1))
        start = np.concatenate([self.result.params, np.zeros(c.shape[1])])
        x_new = stack_by_column([self.x, c])
        fit = fit_glm(self.y, x_new, self.family, start=start, weights=self._fit_weights, verdict_only=True,
                      new_columns=c.shape[1])
        if fit.problem is not None:
            return fit.problem
        self.x, self.result = x_new, fit.result
        self._refresh()
        return None

    def boundary_share(self) -> float:
        """The measure: share of the rows whose fitted mean lies within ``1e-4`` of where the MLE stops
        existing (0 or 1 for a 0/1 response, 0 for a zero count): how little information the
        current model leaves for further terms (0 for families without that boundary)."""
        if spec_of(self.family).separation is None:
            return 0.0
        with np.errstate(over="ignore"):
            mu = np.asarray(self.result.fittedvalues, dtype=float)
        return float(np.mean(boundary_gap(self.family, mu, self.y) < _NEAR_BOUNDARY))

    def log_pvalue(self, statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
        return log_sf(statistic, df, df_resid)

    # ---------------------------------------------- nested comparisons (ComparableState)
    @property
    def loglik(self) -> float:
        """Maximised log-likelihood of the current fit."""
        return float(self.llf)

    @property
    def exact_gain(self) -> bool:
        """Likelihood-ratio tests score with exact gains; score tests approximate them."""
        return self.test == "lr"

    llr_description = "LR refits"

    def llr_with(self, values: np.ndarray) -> tuple[float, str | None]:
        """Exact LR statistic of adding ``values`` by a warm-started refit; the state is unchanged.

        ``2 delta loglik``, in R's ``add1`` convention for families that estimate a dispersion
        (:mod:`.likelihood_ratio`).  Returns ``(nan, reason)`` when the term cannot enter (see
        ``REFUSAL_REASONS``).
        """
        fit = self.fit_with(values, verdict_only=True)
        if fit.problem is not None:
            return float("nan"), fit.problem
        return self._lr_gain(fit.result), None

    def _lr_gain(self, larger: Any) -> float:
        """R's ``add1`` LR statistic of ``larger`` over the current fit (this fit's dispersion)."""
        return lr_statistic(self.spec, self.result, larger, self.scale, self.nobs)

    def llr_over(self, smaller: ComparableState) -> float:
        """R's ``drop1`` LR statistic of the current fit over the nested ``smaller`` (this fit's dispersion)."""
        if not isinstance(smaller, GLMState):
            raise TypeError(f"a GLM state compares with GLM states, not {type(smaller).__name__}")
        return lr_statistic(self.spec, smaller.result, self.result, self.scale, self.nobs)

    def refit(self, fixed: np.ndarray, terms: Sequence[np.ndarray], *, within: bool = False) -> GLMState:
        """A new state on ``[fixed, *terms]``; ValueError when that model has no MLE.

        ``within=True``: the columns lie in this model's span (a sub-model); IRLS then starts
        from the weighted least-squares fit of this model's linear predictor on them, which
        is close to the sub-model's estimate when the dropped terms matter little.  The fit
        converges to the same estimate (a start that ends below its own likelihood is
        retried from statsmodels' start, :mod:`.glm_fit`).
        """
        x = stack_by_column([np.asarray(c, dtype=float).reshape(self.n, -1) for c in (fixed, *terms)])
        x /= column_scales(x)  # the new state's scales, in place: the stacked copy is handed over
        start = self._projected_start(x) if within else None
        return GLMState(self.y, x, self.family, test=self.test, weights=self.weights, start=start, equilibrated=True,
                        defer_basis=within)

    def _projected_start(self, x: np.ndarray) -> np.ndarray | None:
        """Coefficients of ``x`` (scaled as the new state scales it) fitting this model's
        linear predictor in the working weights (normal equations: only a start)."""
        eta = self.x @ np.asarray(self.result.params, dtype=float)
        with np.errstate(all="ignore"):
            gram, rhs = weighted_gram(x, self.sqrt_w * self.sqrt_w, eta)  # by row strips: no weighted copy
            try:
                start = np.linalg.solve(gram, rhs)
            except np.linalg.LinAlgError:
                return None
        return start if np.all(np.isfinite(start)) else None


def _separation_hint(fixed: np.ndarray, y: np.ndarray, family: Any, names: Sequence[str] | None) -> str:
    """What to do about fixed terms that separate the response, naming the culprits when a
    0/1 column (a factor level) has one outcome only."""
    pure = one_outcome_indicators(fixed, y, family).tolist()
    if not pure:
        return "remove the offending fixed terms"
    labels = [repr(names[j]) if names is not None else f"column {j}" for j in pure]
    shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
    outcome = "zero counts only" if spec_of(family).separation == "counts" else "one outcome only"
    return (f"{len(pure)} fixed 0/1 column(s) hold {outcome} ({shown}): a factor level seen with one outcome "
            "has no finite coefficient; merge or drop such levels, or remove the term")
