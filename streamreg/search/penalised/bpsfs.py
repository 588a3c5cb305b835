"""BP-SFS: Bayesian penalised streaming feature selection (Wang and Luan 2019).

The paper's text is OCR-damaged; this module follows the reading below (the design notes,
``docs/design.md``, say where it is uncertain):

* **Rule 1** (correlation filter): an arriving feature with ``|corr(x, y)| < c`` is
  discarded for good (per design column for multi-column terms).
* **Rule 2** (gradient test): a feature passing rule 1 enters the Active set iff
  ``|dL/dw_j| > lambda`` at ``w_j = 0`` -- the grafting test -- else it waits in the
  Possible set, which is re-tested whenever the Active set changes.
* **lambda** is not given but re-estimated from the active weights.  With a Laplace
  prior ``p(w | lambda) ~ (lambda/2)^p exp(-lambda sum|w|)`` and lambda integrated out
  under the Jeffreys prior ``p(lambda) ~ 1/lambda`` (Williams 1995), ``-log p(w) =
  p log sum|w|``, whose gradient is that of an L1 penalty with
  ``lambda = p / sum|w|`` (p active weights, the paper's eq. 8).  That lambda multiplies
  the *summed* negative log-likelihood -- the paper derives it from the posterior
  ``p(w | D) ~ p(D | w) p(w)``, whose log has the summed likelihood; grafting's criterion
  is the mean loss (see :mod:`.engine`), so the code uses
  ``lambda_mean = phi * p / (n * sum|w|)``, with ``phi = 1`` for the binomial loss and
  ``phi = RSS / n`` for least squares (the Gaussian noise variance integrated out in the
  same way, Williams' ``(n/2) log E_D`` term).  After every change of the Active set the
  weights are re-optimised and lambda updated until they agree (a fixed point; weights
  pushed to 0 are pruned into the Possible set).  With no active weight lambda is
  ``lambda0`` (default 0: the first feature passing rule 1 enters, and stays only if the
  fixed point keeps it non-zero).

**Rule 1 does the selecting.**  On the mean-loss scale lambda is ``O(1/n)`` (weights do
not shrink with n) while a null feature's gradient is ``O(n^-1/2)``: once a real
feature is active, rule 2 admits a null feature when ``|z| > sqrt(phi) p / (sqrt(n)
sum|w|)``, a threshold that falls with n (on n = 200 rows, three true weights summing to
3.3, about ``|z| > 0.45``).  The batch criterion behaves the same (an independent
fixed-point iteration with scikit-learn's lasso gives the same active sets), so this is
the method, not its streaming approximation.  The paper gives rule 1's ``c`` no legible
value and calls rule 1 "very similar to the irrelevant feature test of OSFS"; a fixed
``c`` lets a share of the null features through that does not fall with n (``c = 0.1``,
an earlier default, passed 16 % of them at n = 200 and BP-SFS kept about 40 terms for 3
true ones).  The default ``c=None`` therefore reads rule 1 as that test: ``c`` is the
critical ``|r|`` of Fisher's z test of zero correlation at two-sided level ``level``
(0.01, the level of the LOFS examples of OSFS), ``c = tanh(z_{1-level/2} / sqrt(n - 3))``
(:func:`rule1_threshold`).  A number for ``c`` is the paper's "predefined value".

With ``update_lambda=False`` lambda stays at ``lambda0`` and BP-SFS is grafting with
re-testing (plus rule 1; with ``c = 0`` exactly grafting).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from ...models.protocol import ModelState
from ...streams.base import Stream
from ...validators import FLAG, INTEGER, NONE, NUMBER, check_integer, check_number
from ..options import SearchOptions
from ..result import check_streams
from .engine import L1Model, _eta_derivatives
from .grafting import PenalisedSearchResult, _OnlineL1Method, loss_for_family
from .online import LambdaRule, OnlineL1Search


def bayes_lambda(weights: np.ndarray, n: int, dispersion: float = 1.0) -> float:
    """The Jeffreys-prior penalty on the mean-loss scale: ``phi * p / (n * sum|w|)``.

    ``p`` counts the non-zero weights; ``p / sum|w|`` is the penalty on the summed
    negative log-likelihood.  Returns ``nan`` when no weight is active.

    Examples
    --------
    >>> bayes_lambda(np.array([0.5, -1.5, 0.0]), n=100)
    0.01
    """
    w = np.abs(np.asarray(weights, dtype=float))
    p = int(np.count_nonzero(w))
    if p == 0:
        return float("nan")
    return dispersion * p / (n * float(w.sum()))


def rule1_threshold(n: int, level: float) -> float:
    """Rule 1's ``c`` read as OSFS's irrelevance test: the critical ``|r|`` of Fisher's z test.

    ``H0: corr(x, y) = 0`` is rejected at two-sided level ``level`` on ``n`` rows iff
    ``|atanh(r)| sqrt(n - 3) > z_{1 - level/2}``, i.e. iff ``|r| >= c`` with
    ``c = tanh(z_{1 - level/2} / sqrt(n - 3))``.

    Examples
    --------
    >>> round(rule1_threshold(200, 0.01), 4)
    0.1815
    """
    if n < 4:
        raise ValueError(f"rule 1's Fisher z test needs at least 4 rows, got n = {n}; give c= explicitly")
    return float(np.tanh(stats.norm.isf(level / 2) / np.sqrt(n - 3)))


#: lower end of the lambda iteration (times n^-1/2, on the mean-loss scale of standardised columns)
MIN_START = 1e-6


class BayesLambdaRule(LambdaRule):
    """Re-optimise and re-estimate lambda (``bayes_lambda``) until they agree."""

    def __init__(self, lambda0: float, *, update: bool = True, max_iter: int = 200, tol: float = 1e-10):
        super().__init__(lambda0)
        self.lambda0, self.update, self.max_iter, self.tol = float(lambda0), update, max_iter, tol
        self.iterations = 0

    def dispersion(self, model: L1Model) -> float:
        if model.loss == "squared":
            r = model.y - model.eta()
            return float(r @ r) / model.n
        return 1.0

    def optimise(self, model: L1Model) -> np.ndarray:
        """Alternate fit and lambda update until ``lambda = bayes_lambda(w)`` (relative tol).

        The plain iteration ``lambda <- g(lambda)`` converges only linearly.  With the
        support fixed, ``g`` is differentiable (the derivative of the weights in lambda
        comes from the KKT system, :func:`lambda_slope`), so a Newton step on
        ``g(lambda) - lambda`` is taken instead whenever it is defined and positive.
        """
        pruned_all: list[int] = []
        alive = np.arange(model.p)  # original positions of the current active columns
        prev_resid = None
        lo, hi = 0.0, np.inf  # the fixed point of the current support lies in (lo, hi)
        if self.update and self.lam < MIN_START * model.n ** -0.5 and model.p:
            # the iteration climbs from below; it starts at a small positive lambda, since at
            # lambda = 0 a separable logistic fit has no finite optimum
            self.lam = MIN_START * model.n ** -0.5
        for _ in range(self.max_iter):
            pruned = model.fit(self.lam)
            if len(pruned):
                pruned_all.extend(int(alive[i]) for i in pruned)
                alive = np.delete(alive, pruned)
                lo, hi = 0.0, np.inf
            if not self.update:
                break
            self.iterations += 1
            if model.p == 0:
                self.lam = self.lambda0
                model.fit(self.lam)  # the unpenalised part alone
                break
            g = bayes_lambda(model.w, model.n, self.dispersion(model))
            resid = g - self.lam
            # converged, or stalled at the accuracy of the fits (the residual stopped
            # shrinking on an unchanged support)
            scale = max(g, self.lam, 1e-300)
            if abs(resid) <= self.tol * scale or (abs(resid) <= 1e-6 * scale and not len(pruned)
                                                  and prev_resid is not None and abs(resid) >= 0.5 * prev_resid):
                self.lam = g
                break
            prev_resid = None if len(pruned) else abs(resid)
            if resid > 0:
                lo = max(lo, self.lam)
            else:
                hi = min(hi, self.lam)
            new = self._next_lambda(model, g, resid)
            if not lo < new < hi:  # an extrapolation left the bracket: bisect it
                new = 0.5 * (lo + hi) if np.isfinite(hi) else g
            self.lam = new
        return np.asarray(sorted(pruned_all), dtype=int)


    def _next_lambda(self, model: L1Model, g: float, resid: float) -> float:
        """The next lambda: Newton on ``g(lambda) - lambda`` where it is valid, else a jump.

        Newton extrapolates beyond ``g``; it is taken only when the linearised weights keep
        their signs on the way (beyond that the support changes and the slope is void).
        When lambda must grow and the support has no fixed point nearby (slope >= 1, or
        the Newton point lies past a zero crossing), the plain iteration would creep up
        until a weight reaches zero; the step goes straight to the first predicted
        crossing (a little past it, and never past the second), or to ``g`` if further.
        """
        slope, dw = lambda_slope(model, self.lam, g)
        if slope is None:
            return g
        w = model.w[model.w != 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = -w / dw  # lambda change at which each linearised weight reaches zero
        ahead = np.sort(np.abs(delta[np.isfinite(delta) & (np.sign(delta) == np.sign(resid))]))
        first = ahead[0] if ahead.size else np.inf
        if slope < 1:
            step = -resid / (slope - 1)
            if abs(step) < first and self.lam + step > 0:
                return self.lam + step
        if resid > 0 and np.isfinite(first):
            second = ahead[1] if ahead.size > 1 else np.inf
            return max(g, self.lam + min(1.05 * first, 0.5 * (first + second)))
        return g


def lambda_slope(model: L1Model, lam: float, g: float) -> tuple[float | None, np.ndarray | None]:
    """``dg/dlambda`` at an L1 optimum, ``g = bayes_lambda(w)``, with the support held fixed,
    and the derivative of the non-zero weights.

    On the support the KKT equations ``Z'dL/deta + lam [0, s] = 0`` give
    ``dtheta/dlambda = -H^{-1} [0, s]``; ``sum|w|`` moves by ``s'dw`` and, for least squares,
    the dispersion ``RSS/n`` by ``2 n dL = -2 n lam s'dw``.  (None, None) if H is singular.
    """
    nz = model.w != 0
    if not nz.any():
        return None, None
    k0 = model.fixed.shape[1]
    z = np.column_stack([model.fixed, model.cols[:, nz]])
    eta = model.eta()
    _, h = _eta_derivatives(model.loss, model.y, eta)
    s = np.sign(model.w[nz])
    try:
        dtheta = -np.linalg.solve((z.T * h) @ z, np.concatenate([np.zeros(k0), s]))
    except np.linalg.LinAlgError:
        return None, None
    dsum = float(s @ dtheta[k0:])
    dlog = -dsum / float(np.abs(model.w).sum())
    if model.loss == "squared":
        r = model.y - eta
        dlog += -2 * model.n * lam * dsum / float(r @ r)
    slope = g * dlog
    return (slope, dtheta[k0:]) if np.isfinite(slope) else (None, None)


class BPSFS(_OnlineL1Method):
    """BP-SFS (Wang and Luan 2019) as ``method=`` for :func:`streamreg.streamreg` and :func:`streamreg.select`.

    Parameters
    ----------
    c : float in [0, 1] or None
        Rule 1 threshold on ``|corr(x, y)|`` (the paper's "predefined value", not legible in
        its text).  None (default): the critical ``|r|`` of Fisher's z test at ``level`` on
        the n rows (:func:`rule1_threshold`; see the module docstring for why).
    level : float in (0, 1)
        Two-sided level of that test when ``c`` is None (default 0.01).
    lambda0 : float
        lambda while no weight is active (and throughout when ``update_lambda=False``),
        on the mean-loss scale of grafting.
    update_lambda : bool
        Re-estimate lambda from the active weights (the method); False freezes it.
    basis, k_max, rbf_width, standardize, max_rejections
        As for :class:`Grafting`.
    max_reentries : int or None
        A Possible-set feature pruned after re-entering this many times is dropped for
        good (ours: the paper is silent; without a limit the adaptive lambda can make the
        re-tests wander through active sets for minutes on p >> n data).

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(200, 50)); y = 2 * X[:, 3] - X[:, 8] + rng.normal(size=200)
    >>> sr.select(y, X, method="bp-sfs").selected_terms
    ['x3', 'x8']
    """

    name = "bp-sfs"
    OPTION_KINDS = {"c": (NUMBER, NONE), "level": (NUMBER,), "lambda0": (NUMBER,), "update_lambda": (FLAG,),
                    "max_reentries": (INTEGER, NONE),
                    **_OnlineL1Method.COMMON_KINDS}

    def __init__(self, c: float | None = None, *, level: float = 0.01, lambda0: float = 0.0, update_lambda: bool = True, basis: str = "linear",
                 k_max: int = 10, rbf_width: float = 0.3, standardize: bool = True,
                 max_rejections: int | None = None, max_reentries: int | None = 3,
                 max_candidates: int = 1_000_000):
        self.max_reentries = check_integer("max_reentries", max_reentries, allow_none=True)
        if c is not None:
            check_number("c", c, high=1.0, open_high=False, what="a correlation threshold in [0, 1] or None")
        self.level = check_number("level", level, high=1.0, open_low=True, what="a test level in (0, 1)")
        check_number("lambda0", lambda0, what="a finite non-negative number")
        self.c_: float | None = None if c is None else float(c)  # the threshold used (set by run)
        self.c, self.lambda0, self.update_lambda = self.c_, float(lambda0), update_lambda
        self._init_common(basis, k_max, rbf_width, standardize, max_rejections, max_candidates)

    def parameters(self) -> dict:
        return {"c": self.c, "level": self.level, "lambda0": self.lambda0, "update_lambda": self.update_lambda, "basis": self.basis,
                "k_max": self.k_max, "rbf_width": self.rbf_width, "standardize": self.standardize,
                "max_rejections": self.max_rejections, "max_reentries": self.max_reentries,
                "max_candidates": self.max_candidates}

    def describe(self) -> str:
        lam = getattr(self, "lam_", None)
        extra = "" if lam is None else f", final lambda={lam:.4g}"
        how = "Jeffreys-prior update" if self.update_lambda else "frozen"
        if self.c is not None:
            rule1 = f"c={self.c:g}"
        elif self.c_ is not None:
            rule1 = f"c={self.c_:.4g} (Fisher z test at level {self.level:g})"
        else:
            rule1 = f"c from Fisher's z test at level {self.level:g}"
        return f"bp-sfs({rule1}, lambda0={self.lambda0:g}, lambda {how}{extra}, basis={self.expander.describe()})"

    def guarantee(self) -> str:
        return ("BP-SFS controls no error rate: rule 1 is a correlation filter (a significance "
                "test of corr(x, y) at a level not adjusted for the number of candidates) and rule 2 an L1 gradient "
                "test with lambda estimated from the current weights (a Bayesian MAP heuristic).")

    def run(self, state: ModelState, streams: Sequence[Stream], *, fixed: np.ndarray, family: Any,
            options: SearchOptions) -> PenalisedSearchResult:
        """BP-SFS over ``streams`` (the state gives the response and is not changed)."""
        check_streams(streams)
        loss = loss_for_family(family)
        t0 = time.monotonic()
        y = np.asarray(state.y, dtype=float)
        self.c_ = self.c if self.c is not None else rule1_threshold(len(y), self.level)
        rule = BayesLambdaRule(self.lambda0, update=self.update_lambda)
        search = OnlineL1Search(y, np.asarray(fixed, dtype=float), loss, rule,
                                self.expander, retest=True, max_rejections=self.max_rejections, corr_filter=self.c_,
                                max_reentries=self.max_reentries)
        run = search.run(self._blocks(streams, options.block_size), max_tests=options.max_tests,
                         max_selected=options.max_selected, time_budget=options.time_budget)
        self.lam_ = rule.lam
        return self._result(run, streams, loss, time.monotonic() - t0)
