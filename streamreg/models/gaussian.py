"""The Gaussian (least-squares) model state and its partial t / F tests.

For a current design X with orthonormal basis Q and residual r, a candidate block B is
scored in one pass: ``B~ = B - Q (Q'B)`` (BLAS-3), the drop in RSS is
``(B~'r)^2 / ||B~||^2`` per column, and the partial t statistic follows.  These are exactly
the numbers statsmodels' ``OLS(y, [X, b]).fit()`` reports for the candidate's coefficient.
With a robust covariance (``cov=``) the test is instead the robust Wald test of
``OLS(y, [X, b]).fit(cov_type=...)``, block-vectorised in :mod:`.robust`.
"""
from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence

import numpy as np

from ..outcomes import TestOutcomes
from .base import (
    NO_WEIGHTS,
    TESTED,
    CandidateBlock,
    CandidateValues,
    ObservationWeights,
    column_scales,
    equilibrate,
    gain_from_products,
    multi_column_reduction,
    skip_codes,
)
from .basis import Basis, project_out
from .distributions import CachedCritical, log_sf
from .families import GAUSSIAN
from .kernels import block_products
from .protocol import ComparableState
from .rescore import KeptProducts, reduce_single_incremental
from .robust import NONROBUST, RobustCov, RobustScorer
from .scale import too_large

TESTS = GAUSSIAN.test_names  # ``FamilySpec.tests`` of least squares


class GaussianState:
    """Least-squares fit of y on the current design, updated as terms are accepted.

    Parameters
    ----------
    y : ndarray, shape (n,)
    fixed : ndarray, shape (n, k0)
        The fixed design (intercept and fixed terms).  Must have full column rank.
    test : {"t", "paper"}
        ``"t"``: exact partial t-test (F for multi-column terms).  ``"paper"``: the
        p-value ``exp(-dRSS / (2 RSS0 / n))`` used by the authors' released code for
        Zhou et al. (2006); it reproduces their tables but is anti-conservative when k/n is large.
    weights : ObservationWeights, optional
        Offset and prior weights (statsmodels' meanings): the fit is the weighted least
        squares of ``y - offset`` with weights ``freq_weights * var_weights``, whose rows are
        multiplied by the square roots of the weights; ``freq_weights`` count observations
        (residual df ``sum(freq_weights) - k``).  The t statistic of a candidate is then
        statsmodels' ``WLS(y, [X, b], weights=var_weights)`` (``GLM(..., freq_weights=)``
        with ``use_t``; the OLS of the rows repeated) for its coefficient.
    cov : RobustCov, optional
        A robust covariance (``"HC0"``-``"HC3"``, ``"cluster"``): each candidate's test is
        then the robust Wald chi-square of its coefficient(s) in
        ``OLS(y, [X, b]).fit(cov_type=..., cov_kwds=...)`` (``WLS`` with ``var_weights``),
        with chi-square p-values as statsmodels computes them.  Not with ``test="paper"``
        nor with ``freq_weights`` (checked by :mod:`streamreg.config.weights`).
    """

    family_name = GAUSSIAN.name

    def __init__(self, y: np.ndarray, fixed: np.ndarray, *, test: str = "t",
                 weights: ObservationWeights | None = None, cov: RobustCov | None = None):
        GAUSSIAN.check_test(test, allow_none=False)
        self.test = test
        self.cov = NONROBUST if cov is None else cov
        if self.cov.robust and test == "paper":
            raise ValueError("a robust cov_type needs test='t': the paper's p-value has no robust version")
        if self.cov.robust and weights is not None and weights.freq_weights is not None:
            raise ValueError("a robust cov_type cannot be combined with freq_weights")
        self._critical = CachedCritical()
        #: (the parent's basis, U, d) of a sub-model refitted within its parent: Q = Q_parent U
        #: and r = r_parent + Q_parent d
        self._rotation: tuple[Basis, np.ndarray, np.ndarray] | None = None
        self._pending: _Pending | None = None
        #: coordinates on the basis kept for refits within it (see :meth:`_coordinates`, :meth:`_target_coordinates`)
        self._coordinate_memo: tuple[Basis | None, int, dict[int, tuple[object, np.ndarray]]] = (None, 0, {})
        self._target_memo: tuple[Basis, int, np.ndarray] | None = None
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.weights = NO_WEIGHTS if weights is None else weights
        #: observations counted (``sum(freq_weights)``; the row count without them)
        self.nobs = self.weights.nobs(self.n)
        #: square roots of the prior weights, multiplying every row (None: unweighted)
        self.row_weights = None if self.weights.prior is None else np.sqrt(self.weights.prior)
        offset = self.weights.linear_offset
        self._target = self.y if offset is None else self.y - offset
        if self.row_weights is not None:
            self._target = self.row_weights * self._target
            fixed = self.row_weights[:, None] * np.asarray(fixed, dtype=float)
        # room for 16 terms before the storage must grow (a copy of the basis): its columns are
        # written one by one, and memory the system never gave a page to costs nothing
        self.basis = Basis(self.n, capacity=fixed.shape[1] + 16)
        rank = self.basis.append(equilibrate(fixed))
        if rank < fixed.shape[1]:
            raise ValueError("the fixed terms are collinear")  # names are checked upstream
        self._update_residual()

    @property
    def k(self) -> int:
        """Columns in the current design (intercept included)."""
        return self._pending.k if self._pending is not None else self._basis.k

    # A sub-model refitted within its parent (``refit(..., within=True)``) is pending until its
    # n-row basis and residual are asked for: its tests of terms in the parent's span and of
    # products the parent kept are rotations of the parent's numbers (``k``-vectors), so a
    # backward elimination's sub-models mostly never form them.
    @property
    def basis(self) -> Basis:
        if self._pending is not None:
            self._materialise()
        return self._basis

    @basis.setter
    def basis(self, basis: Basis) -> None:
        self._basis = basis

    @property
    def resid(self) -> np.ndarray:
        if self._pending is not None:
            self._materialise()
        return self._resid

    @property
    def _qr(self) -> np.ndarray:
        """``[Q r]``, a view of the basis storage (valid until the next :meth:`accept`)."""
        if self._pending is not None:
            self._materialise()
        return self._q_and_resid

    @property
    def _robust(self) -> RobustScorer | None:
        if self._pending is not None:
            self._materialise()
        return self._robust_scorer

    def _materialise(self) -> None:
        """Form a pending sub-model's basis ``Q U`` and residual ``r + Q d``: one product."""
        pending, self._pending = self._pending, None
        assert pending is not None
        self._basis = Basis(self.n, capacity=pending.k)
        moved = self._basis.set_rotated(pending.q, pending.rotation[:-1])  # [Q U, Q d]
        self._set_residual(moved + pending.resid, rss=self.rss)

    def _update_residual(self) -> None:
        q = self.basis.q
        resid = project_out(q, np.array(self._target, dtype=float))
        # one more projection keeps r orthogonal to Q to rounding error
        self._set_residual(project_out(q, resid))

    def _set_residual(self, resid: np.ndarray, rss: float | None = None) -> None:
        self._resid = resid
        if rss is None:
            with np.errstate(over="ignore"):
                rss = float(resid @ resid)
        self.rss = rss
        if not np.isfinite(self.rss):  # a response near 1e154 or beyond: its squares overflow
            raise ValueError("the residual sum of squares overflowed floating point: "
                             + (too_large("the response", self.y) or "rescale the response"))
        self._q_and_resid = self._basis.with_target(resid)
        self._robust_scorer = RobustScorer(self._basis.q, resid, self.cov, self.nobs) if self.cov.robust else None

    def score_block(self, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
        """Test every candidate of ``block`` against the current model.

        Returns the outcomes and a skip code per candidate (see ``SKIP_REASONS``):
        constant or collinear with the model, or no residual degrees of freedom left.
        """
        m = len(block)
        widths = block.widths
        drss = np.zeros(m)
        rank = widths.astype(int).copy()
        single = widths == 1
        if self.cov.robust:
            return self._score_robust(block)
        if single.all():
            drss, rank = self._single_columns(block)
        else:
            for j in range(m):
                b = equilibrate(self._weighted(block.term(j)))  # the F statistic is scale-free; keep the norms in range
                resid = self.basis.residualise(b)
                drss[j], rank[j] = multi_column_reduction(resid, self.resid, float(np.sum(b * b)))
        return self._outcomes(block, drss, rank)

    def _outcomes(self, block: CandidateValues, drss: np.ndarray, rank: np.ndarray) -> tuple[TestOutcomes, np.ndarray]:
        """The tests of candidates whose RSS reductions and ranks are ``drss`` and ``rank``."""
        df_resid = self.nobs - self.k - rank
        codes = skip_codes(block, rank, df_resid)
        rss1 = np.maximum(self.rss - drss, self.rss * 1e-15 + np.finfo(float).tiny)
        df_kept = np.maximum(df_resid, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = drss / (rss1 / df_kept)
            llr = self.nobs * np.log(self.rss / rss1)
        skip = codes != TESTED if codes.any() else None  # the usual block: every candidate tested
        if skip is not None:
            stat[skip] = 0.0
            llr[skip] = 0.0
        df = np.maximum(rank, 1)
        dfr = df_kept.astype(float)
        if self.test == "paper":
            log_p = -drss / (2.0 * self.rss / self.nobs)
            if skip is not None:
                log_p[skip] = 0.0
            out = TestOutcomes(stat, df, dfr, llr, log_sf, None, log_p)
        else:
            out = TestOutcomes(stat, df, dfr, llr, log_sf, self._critical)
        return out, codes

    def _score_robust(self, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
        """Robust Wald chi-squares (see :mod:`.robust`); terms of one width are scored together."""
        assert self._robust is not None
        m, widths = len(block), block.widths
        stat, drss, rank = np.zeros(m), np.zeros(m), widths.astype(int).copy()
        single = np.flatnonzero(widths == 1)
        if single.size == m:
            norm2 = block.sq_norms() if self.row_weights is None else None
            stat, drss, rank = self._robust.single(self._weighted(block.values), norm2)
        elif single.size:
            cols = block.values[:, block.starts[single]]
            stat[single], drss[single], rank[single] = self._robust.single(self._weighted(cols))
        for d in np.unique(widths[widths > 1]):
            which = np.flatnonzero(widths == d)
            cols = (block.starts[which][:, None] + np.arange(d)).ravel()
            stat[which], drss[which], rank[which] = self._robust.multi(self._weighted(block.values[:, cols]), int(d))
        # the llr stays the exact least-squares gain n log(RSS0/RSS1) (fixed-penalty rules read it)
        df_resid = self.nobs - self.k - rank
        codes = skip_codes(block, rank, df_resid)
        skip = codes != TESTED
        rss1 = np.maximum(self.rss - drss, self.rss * 1e-15 + np.finfo(float).tiny)
        with np.errstate(divide="ignore", invalid="ignore"):
            llr = np.where(skip, 0.0, self.nobs * np.log(self.rss / rss1))
        stat = np.where(skip, 0.0, stat)
        chi2 = np.full(m, np.inf)  # statsmodels' robust tests are z / chi-square (use_t=False)
        return TestOutcomes(stat, np.maximum(rank, 1), chi2, llr, log_sf, self._critical), codes

    def _single_columns(self, block: CandidateValues) -> tuple[np.ndarray, np.ndarray]:
        """RSS reduction and rank (0/1) of each single-column candidate.

        One GEMM gives ``Q'B`` and ``r'B`` together; ``||B~||^2 = ||B||^2 - ||Q'B||^2`` by
        Pythagoras (Q is orthonormal), so the residual block is never formed.  Where that
        difference loses too many digits (candidates nearly in the model's span) it is
        recomputed from the explicit residual.

        An in-memory block scored before against this basis is multiplied only by the
        directions accepted since and the new residual (:mod:`.rescore`): after an
        acceptance the block's rest is rescored by one product with two columns, not ``k + 1``.
        """
        pending = self._pending
        if pending is not None and type(block) is CandidateBlock and pending.parent_unchanged():
            # the parent's products, rotated: [Q_c r_c]' B = [[U d], [0 1]]' [Q r]' B
            g, block.norm2 = block_products(pending.parent._qr, block.unchecked_values, block.norm2)
            block.run_check()
            values = block.unchecked_values
            return gain_from_products(lambda: self._qr, pending.rotation.T @ g, block.sq_norms(),
                                      lambda idx: values[:, idx])
        if self.row_weights is None and type(block) is CandidateBlock:
            return reduce_single_incremental(block, self.basis, self._qr, self.resid)
        return block.reduce_single(self._qr, self.row_weights)

    def score_kept(self, parent: GaussianState, kept: KeptProducts,
                   read: Callable[[], CandidateBlock]) -> tuple[TestOutcomes, np.ndarray] | None:
        """:meth:`score_block` of single-column candidates from their products with ``parent``,
        this state's parent in a backward elimination (``parent.refit(..., within=True)``);
        None where that does not apply (then the candidates are read and scored).

        With ``Q_c = Q U`` (the rotation of the refit) and ``c = Q' t`` for the target t:
        ``Q_c' b = U' (Q' b)`` and ``r_c' b = r' b + (c - U U' c)' (Q' b)``, so the products the
        parent's test kept give this model's ``[Q_c r_c]' B`` without a pass over the candidates.
        ``read()`` gives the block itself, read only for the few candidates whose residual
        norm must be recomputed from their values (nearly in the model's span) or that are
        collinear with it (their constant check).
        """
        if (self._rotation is None or self._rotation[0] is not parent.basis or kept.basis is not parent.basis
                or kept.qb.shape[0] != parent.basis.k or self.cov.robust or self.row_weights is not None):
            return None
        u, d = self._rotation[1:]
        g = np.empty((u.shape[1] + 1, kept.qb.shape[1]))
        g[:-1] = u.T @ kept.qb
        g[-1] = kept.rb + d @ kept.qb
        block: list[CandidateBlock] = []

        def values(idx: np.ndarray) -> np.ndarray:
            if not block:
                block.append(read())
            return block[0].values[:, idx]

        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            drss, rank = gain_from_products(lambda: self._qr, g, kept.norm2.copy(), values)
        if (rank == 0).any():  # the constant check reads the candidates
            return self._outcomes(block[0] if block else read(), drss, rank)
        return self._outcomes(CandidateBlock(np.empty((0, rank.size))), drss, rank)  # no values asked

    def resume_products(self, block: CandidateValues, kept: KeptProducts) -> None:
        """Let a re-offered ``block`` start from the products its candidates' last test kept
        (:meth:`KeptProducts.resume`), where this model has only grown since that test."""
        if self._pending is None and self.row_weights is None and not self.cov.robust \
                and type(block) is CandidateBlock and block.projections is None:
            kept.resume(block, self._basis)

    def _weighted(self, values: np.ndarray) -> np.ndarray:
        """Columns with every row multiplied by the square root of its prior weight."""
        return values if self.row_weights is None else self.row_weights[:, None] * values

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term's columns to the model.  Returns a refusal reason or None."""
        # at a power-of-two scale, so that columns at 1e-300 or 1e300 keep their direction
        k0 = self.basis.k
        self.basis.append(equilibrate(self._weighted(np.asarray(values, dtype=float).reshape(self.n, -1))),
                          scratch=True)
        # the residual loses its part along the new directions only: r - Q_new Q_new' r, which
        # reads the new columns instead of the whole basis twice (r is orthogonal to the old Q)
        self._set_residual(project_out(self.basis.q[:, k0:], self.resid.copy()))
        return None

    def log_pvalue(self, statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
        return log_sf(statistic, df, df_resid)

    def boundary_share(self) -> float:
        """0.0: least squares has no boundary where its estimate stops existing."""
        return 0.0

    # ---------------------------------------------- nested comparisons (ComparableState)
    @property
    def loglik(self) -> float:
        """Maximised log-likelihood, sigma profiled out: ``-n/2 (log(2 pi RSS / n) + 1)``.

        With weights, RSS is the weighted sum of squares, n counts the observations
        (``sum(freq_weights)``) and ``sum(freq_weights log var_weights) / 2`` is added:
        statsmodels' WLS and Gaussian GLM ``llf``.
        """
        if self.weights.empty:
            return -0.5 * self.n * (math.log(2 * math.pi * self.rss / self.n) + 1)
        ll = -0.5 * self.nobs * (math.log(2 * math.pi * self.rss / self.nobs) + 1)
        vw, fw = self.weights.var_weights, self.weights.freq_weights
        if vw is not None:
            ll += 0.5 * float(np.sum(np.log(vw) if fw is None else fw * np.log(vw)))
        return ll

    #: the block scores' ``llr`` is the exact ``n log(RSS0 / RSS1)``
    exact_gain = True
    llr_description = "n log RSS0/RSS1"

    def llr_with(self, values: np.ndarray) -> tuple[float, str | None]:
        """Exact ``2 delta loglik`` of adding ``values`` (never refused); the state is unchanged."""
        values = np.asarray(values, dtype=float).reshape(self.n, -1)
        out, _ = self.score_block(CandidateBlock(values, np.array([values.shape[1]])))
        return float(out.llr[0]), None

    def llr_over(self, smaller: ComparableState) -> float:
        """Exact ``2 delta loglik`` of the current model over the nested ``smaller``."""
        return 2.0 * (self.loglik - smaller.loglik)

    def _coordinates(self, parts: Sequence[object]) -> np.ndarray:
        """``Q' X~`` for the columns of ``parts`` side by side, equilibrated (:func:`equilibrate`)
        and weighted.

        Unweighted and at scales within ``2**+-400``, as ``(Q' X) / s``, which needs none of the
        ``n x k`` copies: dividing by a power of two is exact and commutes with every product and
        sum while nothing under- or overflows, so the two orders differ only as BLAS's own
        summation orders do.  Each part's coordinates are kept while the basis does not grow:
        the refits of a backward elimination pass the same term arrays again and again, and
        reading the basis for each would cost more than the rest of such a refit.
        """
        memo = self._coordinate_memo
        if memo[0] is not self.basis or memo[1] != self.basis.k:
            memo = self._coordinate_memo = (self.basis, self.basis.k, {})
        kept = memo[2]
        out = []
        for part in parts:
            hit = kept.get(id(part))
            if hit is None or hit[0] is not part:  # the array itself is kept, so its id is not reused
                hit = kept[id(part)] = (part, self._part_coordinates(np.asarray(part, dtype=float).reshape(self.n, -1)))
            out.append(hit[1])
        return np.concatenate(out, axis=1)

    def _part_coordinates(self, values: np.ndarray) -> np.ndarray:
        q = self.basis.q
        if self.row_weights is None:
            scales = column_scales(values)
            if np.all((scales >= 2.0**-400) & (scales <= 2.0**400)):
                return np.asarray(q.T @ values) / scales
        return np.asarray(q.T @ equilibrate(self._weighted(values)))

    def _target_coordinates(self) -> np.ndarray:
        """``c = Q' t`` for the (weighted) target t, kept while the basis does not grow."""
        kept = self._target_memo
        if kept is None or kept[0] is not self.basis or kept[1] != self.basis.k:
            kept = self._target_memo = (self.basis, self.basis.k, self.basis.q.T @ self._target)
        return kept[2]

    def refit(self, fixed: np.ndarray, terms: Sequence[np.ndarray], *, within: bool = False) -> GaussianState:
        """A new state on ``[fixed, *terms]`` (terms accepted in order); this one is unchanged.

        ``within=True`` promises that every column lies in this model's span (a sub-model, as
        in a backward elimination): the new basis is then this one's rotated, ``Q U`` with
        ``U`` the Gram-Schmidt basis of the columns' coordinates ``Q' X`` (the same
        orthogonalisation and collinearity decisions, made on ``k``-vectors), and its residual
        ``r + Q d`` with ``d = c - U U' c``, ``c = Q' t``.  The new state forms them only
        when a test needs them: single-column candidates are scored from this state's
        products, rotated.
        """
        if not within:
            new = GaussianState(self.y, fixed, test=self.test, weights=self.weights, cov=self.cov)
            for values in terms:
                new.accept(values)
            return new
        coords = self._coordinates([fixed, *terms])
        n_fixed = np.asarray(fixed).reshape(self.n, -1).shape[1]
        small = Basis(self.k, capacity=coords.shape[1])
        if small.append(coords[:, :n_fixed]) < n_fixed:
            raise ValueError("the fixed terms are collinear")
        for j in range(n_fixed, coords.shape[1]):
            small.append(coords[:, j : j + 1])
        u = small.q
        # the new residual is r + Q d, d = c - U U' c (twice: orthogonal to U to rounding)
        c = self._target_coordinates()
        d = c - u @ (u.T @ c)
        d -= u @ (u.T @ d)
        rotation = np.zeros((self.k + 1, u.shape[1] + 1))
        rotation[:-1, :-1], rotation[:-1, -1], rotation[-1, -1] = u, d, 1.0
        new = copy.copy(self)
        new._coordinate_memo, new._target_memo = (None, 0, {}), None
        new._rotation = (self.basis, u, d)
        new._pending = _Pending(self, self.basis.q, self.resid, rotation)
        new.rss = self.rss + float(d @ d)  # r and Q d are orthogonal
        return new


class _Pending:
    """What a sub-model refitted within ``parent`` needs to form its basis and residual:
    the parent's basis columns and residual as they were (``q``, ``resid``: arrays the parent
    replaces, never overwrites) and the ``(k + 1) x (j + 1)`` matrix ``[[U d], [0 1]]``."""

    def __init__(self, parent: GaussianState, q: np.ndarray, resid: np.ndarray, rotation: np.ndarray):
        self.parent, self.q, self.resid, self.rotation = parent, q, resid, rotation
        self.k = rotation.shape[1] - 1

    def parent_unchanged(self) -> bool:
        """Whether the parent's ``[Q r]`` is still the one rotated (nothing accepted since)."""
        parent = self.parent
        return (parent._pending is None and parent._resid is self.resid and parent._basis.k == self.q.shape[1]
                and parent.row_weights is None and not parent.cov.robust)
