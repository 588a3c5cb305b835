"""The fits an analysis of deviance compares, as plain arrays: :class:`ModelView`, and the refits it needs.

:func:`model_view` reads a streamreg result or a statsmodels OLS, WLS or GLM result: its
response, design, terms, offset, weights, deviance and dispersion.  :func:`check_nested`
refuses fits that R's ``anova`` would compare wrongly (other families, other rows, other
weights, designs that are not nested).  :func:`prefix_fits` refits the first terms of a model
in order (R's ``anova.glm`` and ``anova.lm``), and :func:`rao_score` is R's Rao score statistic
of the larger of two nested models at the smaller one's fit (``anova(..., test = "Rao")``).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import statsmodels.api as sm
from statsmodels.genmod.generalized_linear_model import GLMResults
from statsmodels.regression.linear_model import RegressionResults

from ..formula.names import has_intercept, term_labels
from ..models.families import spec_of
from .broom import coefficient_terms
from .fitstats import linear_offset, null_deviance

#: IRLS settings of the refits of the first terms (as tight as the refit's own)
_TOL, _MAXITER = 1e-12, 200
#: a column of the smaller design further than this (relative) from the larger design's span: not nested
_NESTED_RTOL = 1e-7


@dataclass(frozen=True, eq=False)
class ModelView:
    """One fit as the analysis of deviance sees it.

    Attributes
    ----------
    label : str
        The model's formula (or ``"model k"`` for a statsmodels fit without one).
    result : statsmodels results
        The fit itself.
    family : statsmodels family
        Its family (Gaussian for OLS and WLS).
    least_squares : bool
        Gaussian with identity link: R's ``anova.lm`` tables.
    y : ndarray
        The response as statsmodels keeps it (proportions for a two-column binomial response).
    trials : ndarray
        Binomial trials of a two-column response (ones otherwise).
    x : ndarray
        The design, one column per coefficient.
    intercept : bool
        Whether the model has an intercept.
    terms : tuple of (str, ndarray)
        The terms after the intercept, in order, with their design columns.
    base : ndarray
        The intercept's design columns (none without one).
    offset : ndarray
        ``offset + log(exposure)`` on each row.
    freq, var : ndarray
        Frequency and variance weights of each row (WLS's weights are variance weights).
    rows : object
        The row labels, or None when unknown.
    """

    label: str
    result: Any
    family: Any
    least_squares: bool
    y: np.ndarray
    trials: np.ndarray
    x: np.ndarray
    intercept: bool
    terms: tuple[tuple[str, np.ndarray], ...]
    base: np.ndarray
    offset: np.ndarray
    freq: np.ndarray
    var: np.ndarray
    rows: Any

    @property
    def glm(self) -> bool:
        """Whether the fit is a statsmodels GLM (else OLS or WLS)."""
        return isinstance(self.result.model, sm.GLM)

    @property
    def deviance(self) -> float:
        """R's ``deviance()``: the GLM deviance, or the weighted residual sum of squares."""
        return float(self.result.deviance if self.glm else self.result.ssr)

    @property
    def df_resid(self) -> float:
        """Residual degrees of freedom (observations counted with their frequency weights, less the rank)."""
        return float(self.result.df_resid)

    @property
    def dispersion(self) -> float:
        """R's ``summary()`` dispersion: 1 for binomial, Poisson and negative binomial fits, else Pearson's.

        For least squares the residual variance ``RSS / df_resid``.
        """
        if not self.least_squares and spec_of(self.family).fixed_dispersion:
            return 1.0
        chi2 = self.result.pearson_chi2 if self.glm else self.result.ssr
        return float(chi2) / self.df_resid

    @property
    def prior(self) -> np.ndarray:
        """Each row's prior weight with its trials (R's ``prior.weights`` on the rows repeated)."""
        return self.freq * self.var * self.trials

    def family_text(self) -> str:
        """The family and link in words, for messages and headings."""
        if self.least_squares:
            return "gaussian (least squares)"
        name = spec_of(self.family).r_name or type(self.family).__name__
        return f"{name} ({type(self.family.link).__name__.lower()} link)"


def _is_fitted_selection(fit: object) -> bool:
    return hasattr(fit, "selected_model") and hasattr(fit, "selection") and hasattr(fit, "fit")


def model_view(fit: object, position: int) -> ModelView:
    """The :class:`ModelView` of a streamreg result or a statsmodels OLS, WLS or GLM result.

    Raises
    ------
    TypeError
        For anything else.
    """
    if _is_fitted_selection(fit):
        res: Any = fit
        result = res.fit
        family = res.selected_model.family
        label = formula = res.selected_model.formula
        intercept = has_intercept(res.selected_model.rhs)
        names: list[str | None] = coefficient_terms(res)
        rows = res.selected_model.train.index
    elif isinstance(getattr(fit, "_results", fit), (GLMResults, RegressionResults)) and \
            type(getattr(fit, "model", None)) in (sm.GLM, sm.OLS, sm.WLS):
        result = fit
        model: Any = fit.model  # type: ignore[attr-defined]
        family = model.family if isinstance(model, sm.GLM) else sm.families.Gaussian()
        formula = getattr(model, "formula", None)
        label = str(formula or f"model {position}")
        info = getattr(model.data, "design_info", None)
        columns = list(getattr(model, "exog_names", None) or [])
        names = [None] * len(columns)
        if info is not None:
            for term, where in info.term_name_slices.items():
                names[where] = [term] * (where.stop - where.start)
        else:
            names = ["Intercept" if c in ("const", "Intercept") else c for c in columns]
        intercept = "Intercept" in names
        rows = getattr(model.data, "row_labels", None)
    else:
        raise TypeError("anova compares streamreg results and statsmodels OLS, WLS or GLM results; "
                        f"argument {position} is {type(fit).__name__}")
    model = result.model
    n = int(result.nobs)
    x = np.asarray(model.exog, dtype=float)
    if isinstance(model, sm.GLM):
        freq, var = (np.broadcast_to(np.asarray(w, dtype=float), (n,)) for w in (model.freq_weights,
                                                                                   model.var_weights))
        trials = np.broadcast_to(np.asarray(getattr(model, "n_trials", 1.0), dtype=float), (n,))
    else:
        freq = np.ones(n)
        var = np.broadcast_to(np.asarray(getattr(model, "weights", 1.0), dtype=float), (n,))
        trials = np.ones(n)
    order = _formula_order(formula, [t for t in names if t is not None and t != "Intercept"])
    labels = np.asarray([str(t) for t in names], dtype=object)
    terms = tuple((t, np.flatnonzero(labels == t)) for t in order)
    return ModelView(label=label, result=result, family=family, least_squares=spec_of(family).least_squares,
                     y=np.asarray(model.endog, dtype=float), trials=trials, x=x, intercept=intercept, terms=terms,
                     base=np.flatnonzero(labels == "Intercept"), offset=linear_offset(result),
                     freq=np.array(freq), var=np.array(var), rows=rows)


def _degree(term: str) -> int:
    """How many factors a term multiplies (``a:b`` is 2): the ``:`` outside parentheses, plus one."""
    depth, count = 0, 1
    for ch in term:
        depth += (ch in "([{") - (ch in ")]}")
        count += ch == ":" and depth == 0
    return count


def _formula_order(formula: object, design_terms: list[str]) -> list[str]:
    """The terms in the order of the formula, interactions after main effects (R's ``terms()``).

    The design (patsy's) puts terms of factors alone first; R keeps the formula's order within
    each degree.  Terms the formula does not name keep the design's order, at the end.
    """
    present = list(dict.fromkeys(design_terms))
    written = term_labels(str(formula).split("~", 1)[1]) if isinstance(formula, str) and "~" in formula else []
    ordered = [t for t in written if t in present] + [t for t in present if t not in written]
    return sorted(ordered, key=_degree)


def _name(view: ModelView, k: int) -> str:
    return f"fit {k} ({view.label})"


def check_nested(views: list[ModelView]) -> None:
    """Refuse fits an analysis of deviance cannot compare, with the reason.

    Raises
    ------
    ValueError
        Different families (or least squares against a GLM), different rows or response,
        different offsets or weights, or consecutive fits that are not nested.
    """
    first = views[0]
    for k, view in enumerate(views[1:], start=2):
        if view.family_text() != first.family_text():
            raise ValueError(f"anova compares fits of one family: {_name(first, 1)} is {first.family_text()}, "
                             f"{_name(view, k)} is {view.family_text()}")
        if len(view.y) != len(first.y):
            raise ValueError(f"the fits were made to different numbers of rows ({len(first.y)} and {len(view.y)} "
                             f"in {_name(first, 1)} and {_name(view, k)}); anova compares nested fits of the same rows")
        if first.rows is not None and view.rows is not None and not np.array_equal(np.asarray(first.rows, dtype=object),
                                                                                  np.asarray(view.rows, dtype=object)):
            raise ValueError(f"the fits were made to different rows: the row labels of {_name(first, 1)} and "
                             f"{_name(view, k)} differ; anova compares nested fits of the same rows")
        if not np.allclose(view.y * view.trials, first.y * first.trials, rtol=1e-12, atol=0.0):
            raise ValueError(f"the fits were made to different data: the responses of {_name(first, 1)} and "
                             f"{_name(view, k)} differ")
        for what, a, b in (("offsets (offset, exposure)", first.offset, view.offset),
                           ("weights (freq_weights, var_weights, trials)", first.prior, view.prior)):
            if not np.allclose(a, b, rtol=1e-12, atol=0.0):
                raise ValueError(f"{_name(first, 1)} and {_name(view, k)} have different {what}; anova compares fits "
                                 "with the same ones")
    for k in range(1, len(views)):
        small, big = sorted((views[k - 1], views[k]), key=lambda v: -v.df_resid)
        outside = _outside_span(small.x, big.x)
        if outside.any():
            i, j = (k, k + 1) if small is views[k - 1] else (k + 1, k)
            names = [str(c) for c in small.result.params.index[outside]]
            raise ValueError(f"{_name(small, i)} is not nested in {_name(big, j)}: its column(s) {', '.join(names)} "
                             "are not in the span of the other's design; anova compares nested fits")


def _outside_span(x_small: np.ndarray, x_big: np.ndarray) -> np.ndarray:
    """Which columns of ``x_small`` are not (to rounding) combinations of the columns of ``x_big``."""
    scale = np.linalg.norm(x_big, axis=0)
    u, s, _ = np.linalg.svd(x_big / np.where(scale > 0, scale, 1.0), full_matrices=False)
    basis = u[:, s > s.max(initial=0.0) * max(x_big.shape) * np.finfo(float).eps] if s.size else u[:, :0]
    resid = x_small - basis @ (basis.T @ x_small)
    norm = np.linalg.norm(x_small, axis=0)
    return np.asarray(np.linalg.norm(resid, axis=0) > _NESTED_RTOL * np.where(norm > 0, norm, 1.0))


@dataclass(frozen=True)
class PrefixFit:
    """A refit of the first terms of a model: its deviance, residual df and fitted means."""

    deviance: float
    df_resid: float
    mu: np.ndarray


def prefix_fits(view: ModelView) -> list[PrefixFit]:
    """Refits with no term, the first term, ..., all terms but the last (R's ``anova.glm`` sequence).

    Each keeps the intercept (when the model has one), the offset and the weights; the
    model of no term is the intercept alone, or ``eta = offset`` without an intercept.
    """
    fits = []
    for i in range(len(view.terms)):
        cols = np.concatenate([view.base, *[c for _, c in view.terms[:i]]]).astype(int)
        fits.append(_least_squares_fit(view, cols) if view.least_squares else _glm_fit(view, cols))
    return fits


def _observations(view: ModelView) -> float:
    return float(np.sum(view.freq)) if view.glm else float(len(view.y))


def _least_squares_fit(view: ModelView, cols: np.ndarray) -> PrefixFit:
    """Weighted least squares of ``y - offset`` on the columns (the rank from the SVD, as lm's QR)."""
    w = view.prior
    root = np.sqrt(w)
    target = root * (view.y - view.offset)
    x = root[:, None] * view.x[:, cols]
    if cols.size:
        beta, _, rank, _ = np.linalg.lstsq(x, target, rcond=None)
        fitted = view.x[:, cols] @ beta + view.offset
    else:
        rank, fitted = 0, view.offset.copy()
    rss = float(np.sum(w * (view.y - fitted) ** 2))
    return PrefixFit(deviance=rss, df_resid=_observations(view) - int(rank), mu=fitted)


def _glm_fit(view: ModelView, cols: np.ndarray) -> PrefixFit:
    """The GLM of the columns with the model's offset and weights (no column: ``mu = g^-1(offset)``)."""
    family = copy.deepcopy(view.family)  # statsmodels' binomial family keeps the trials of its last response
    endog: np.ndarray = view.y
    if np.any(view.trials != 1.0):  # a two-column response: successes and failures again
        endog = np.column_stack([view.y * view.trials, (1.0 - view.y) * view.trials])
    n = _observations(view)
    if not cols.size:
        mu = family.link.inverse(view.offset)
        if endog.ndim == 2:
            family.initialize(endog, view.freq)
        dev = family.deviance(view.y, mu, var_weights=view.var, freq_weights=view.freq)
        return PrefixFit(deviance=float(dev), df_resid=n, mu=mu)
    model = sm.GLM(endog, view.x[:, cols], family=family, offset=view.offset, freq_weights=view.freq,
                   var_weights=view.var)
    with np.errstate(over="ignore"):
        fit = model.fit(tol=_TOL, maxiter=_MAXITER)
        fit = model.fit(start_params=fit.params, tol=_TOL, maxiter=_MAXITER)  # at the MLE, as the refit
    return PrefixFit(deviance=float(fit.deviance), df_resid=float(fit.df_resid),
                     mu=np.asarray(fit.fittedvalues, dtype=float))


def final_fit(view: ModelView) -> PrefixFit:
    """The model itself as a :class:`PrefixFit`."""
    return PrefixFit(deviance=view.deviance, df_resid=view.df_resid,
                     mu=np.asarray(view.result.fittedvalues, dtype=float))


def null_fit(view: ModelView) -> tuple[float, float]:
    """R's null deviance and its residual df (the intercept alone, or the offset alone)."""
    if view.least_squares:
        fit = _least_squares_fit(view, view.base)
        return fit.deviance, fit.df_resid
    dev, df = null_deviance(view.result, view.family, view.intercept)
    return dev, float(df)


def rao_score(small: ModelView, mu: np.ndarray, x_big: np.ndarray) -> float:
    """R's Rao score statistic of the design ``x_big`` at the smaller model's fitted means ``mu``.

    The weighted least-squares regression of the working residuals ``(y - mu) g'(mu)`` on
    ``x_big`` with the working weights ``w / (V(mu) g'(mu)^2)``: its null deviance (about the
    weighted mean when the smaller model has an intercept, about zero without) less its
    residual deviance, as ``anova.glm`` and ``anova.glmlist`` compute it with ``glm.fit``.
    """
    link = small.family.link
    deriv = link.deriv(mu)
    r = (small.y - mu) * deriv
    w = small.prior / (small.family.variance(mu) * deriv**2)
    root = np.sqrt(w)
    beta = np.linalg.lstsq(root[:, None] * x_big, root * r, rcond=None)[0]
    rss = float(np.sum(w * (r - x_big @ beta) ** 2))
    centre = float(np.sum(w * r) / np.sum(w)) if small.intercept else 0.0
    return float(np.sum(w * (r - centre) ** 2)) - rss

