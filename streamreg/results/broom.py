"""broom's three verbs for the refit: ``tidy`` (coefficients), ``glance`` (one row), ``augment`` (rows).

Column names are broom's (``std.error``, ``conf.low``, ``.fitted``, ``.std.resid``, ...).
Numbers are computed first, as statsmodels or R define them, and never formatted here.

* ``augment`` follows broom's ``augment.glm`` (and ``augment.lm``): ``.fitted`` on the link
  scale by default (``type_predict="link"``), deviance residuals (``type_residuals="deviance"``),
  ``.se.fit`` only when asked (``se_fit=True``).  The influence measures are R's: hat values
  from the working weights at the maximum-likelihood fit (expected information, as
  ``influence.glm``), ``.sigma`` the leave-one-out residual standard deviation of
  ``lm.influence``, ``.std.resid`` as ``rstandard`` and ``.cooksd`` as ``cooks.distance``.
* ``glance`` has broom's columns for ``lm`` or ``glm`` and the selection counts; ``logLik``,
  ``AIC`` and ``BIC`` are R's (:mod:`.fitstats`: the dispersion counted, and for a GLM
  estimated as R's ``logLik`` estimates it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..formula.names import has_intercept, term_labels
from ..models import spec_of
from ..models.base import column_scales
from .fitstats import (
    information_criteria,
    model_rank,
    null_deviance,
    observations,
    overall_f_test,
    prior_weights,
    r_squared,
)
from .inference import reported_fit
from .prediction import design_rows, linear_offset, model_frame

if TYPE_CHECKING:
    from .record import FittedSelection

TYPE_PREDICT = ("link", "response")
TYPE_RESIDUALS = ("deviance", "pearson")


def check_level(conf_level: object) -> float:
    """``conf_level`` as a float in (0, 1), else a ValueError naming it."""
    if isinstance(conf_level, bool) or not isinstance(conf_level, (int, float, np.floating)) \
            or not 0 < float(conf_level) < 1:
        raise ValueError(f"conf_level must be a number between 0 and 1 (e.g. 0.95), got {conf_level!r}")
    return float(conf_level)


def _choice(value: str, options: tuple[str, ...], name: str) -> str:
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}")
    return value


# -- tidy ----------------------------------------------------------------------------------------
def coefficient_terms(res: FittedSelection) -> list[str | None]:
    """The patsy term of each coefficient, in the order of ``params`` (None when unknown).

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(2)
    >>> df = pd.DataFrame({"x": rng.normal(size=90), "g": rng.choice(["a", "b", "c"], 90)})
    >>> df["y"] = df["x"] + (df["g"] == "b") + rng.normal(size=90)
    >>> coefficient_terms(sr.streamreg("y ~ x + stream(C(g))", df))
    ['Intercept', 'C(g)', 'C(g)', 'x']
    """
    names = list(res.fit.params.index)
    info = getattr(getattr(res.fit.model.data, "orig_exog", None), "design_info", None)
    if info is None:  # lost by pickling: the refit's design again
        model = res.selected_model
        info = getattr(model.design(model.train), "design_info", None)
    if info is None:  # the plain design: an intercept, then one column per term
        return ["Intercept" if c == "Intercept" else c for c in names]
    out: list[str | None] = [None] * len(names)
    for term, columns in info.term_name_slices.items():
        for i in range(columns.start, columns.stop):
            out[i] = term
    return out


def selection_columns(res: FittedSelection) -> pd.DataFrame:
    """Per coefficient: the stream and order of its term's selection, its p-value and level.

    Fixed terms (and the intercept) have none: missing values.
    """
    by_term: dict[str, pd.Series] = {}
    for _, row in res.selection.selected.iterrows():
        for name in term_labels(str(row["term"])):
            by_term[name] = row
    terms = coefficient_terms(res)
    rows = [by_term.get(t) if t is not None else None for t in terms]
    return pd.DataFrame({
        "stream": pd.Series([None if r is None else str(r["stream"]) for r in rows], dtype=object),
        "order": pd.array([None if r is None else int(r["order"]) for r in rows], dtype="Int64"),
        "selection.p.value": [np.nan if r is None else float(r["pvalue"]) for r in rows],
        "selection.level": [np.nan if r is None else float(r["level"]) for r in rows],
    })


def tidy_frame(res: FittedSelection, *, conf_int: bool = True, conf_level: float = 0.95,
               exponentiate: bool = False) -> pd.DataFrame:
    """One row per coefficient: broom's ``tidy`` columns, then the selection columns."""
    level = check_level(conf_level)
    fit = res.fit
    estimate = np.asarray(fit.params, dtype=float)
    out = pd.DataFrame({
        "term": list(fit.params.index),
        "estimate": np.exp(estimate) if exponentiate else estimate,
        "std.error": np.asarray(fit.bse, dtype=float),
        "statistic": np.asarray(fit.tvalues, dtype=float),
        # t or normal as the results' pvalues (use_t=, else R's convention for the family)
        "p.value": np.asarray(reported_fit(res).pvalues, dtype=float),
    })
    if conf_int:
        ci = np.asarray(fit.conf_int(alpha=1.0 - level), dtype=float)
        with np.errstate(over="ignore"):
            out["conf.low"] = np.exp(ci[:, 0]) if exponentiate else ci[:, 0]
            out["conf.high"] = np.exp(ci[:, 1]) if exponentiate else ci[:, 1]
    return pd.concat([out, selection_columns(res)], axis=1)


# -- glance --------------------------------------------------------------------------------------
def glance_frame(res: FittedSelection) -> pd.DataFrame:
    """broom's ``glance.lm`` or ``glance.glm`` row, then the selection counts.

    Least squares: ``r.squared``, ``adj.r.squared``, ``sigma``, the classical overall F test
    (``statistic``, ``p.value``, ``df`` its numerator degrees of freedom, as broom's
    ``glance.lm`` from ``summary.lm``, whatever ``cov_type``), then ``logLik``, ``AIC``,
    ``BIC``, ``deviance`` (the residual sum of squares, weighted).  GLMs: ``null.deviance``,
    ``df.null``, ``logLik``, ``AIC``, ``BIC``, ``deviance``.  Both then ``df.residual``,
    ``nobs``, ``df.model``, ``tested``, ``selected``, ``method``.
    """
    fit, family, selection = res.fit, res.selected_model.family, res.selection
    ic = information_criteria(fit, family)
    intercept = has_intercept(res.selected_model.rhs)
    row: dict[str, object] = {}
    if spec_of(family).least_squares:
        r2, adj = r_squared(fit, intercept)
        f = overall_f_test(fit, intercept)
        row.update({"r.squared": r2, "adj.r.squared": adj, "sigma": float(np.sqrt(float(fit.scale))),
                    "statistic": f.statistic, "p.value": f.pvalue, "df": f.df_num})
        deviance = f.rss
    else:
        dev0, df0 = null_deviance(fit, family, intercept)
        row.update({"null.deviance": dev0, "df.null": df0})
        deviance = float(fit.deviance)
    row.update({"logLik": ic.llf, "AIC": ic.aic, "BIC": ic.bic, "deviance": deviance})
    row.update({
        "df.residual": round(float(fit.df_resid)),
        "nobs": _count(observations(fit)),
        "df.model": float(fit.df_model),
        "tested": int(selection.per_stream["tested"].sum()),
        "selected": len(selection.selected),
        "method": selection.policy_description,
    })
    return pd.DataFrame([row])


def _count(n: float) -> int | float:
    """An integer when it is one (frequency weights may be fractional)."""
    return int(n) if float(n).is_integer() else float(n)


# -- augment -------------------------------------------------------------------------------------
def working_weights(fit: Any, family: Any) -> np.ndarray:
    """IRLS weights at the fitted means: ``1 / (V(mu) g'(mu)^2)`` times the prior weights.

    The prior weights are ``freq_weights * var_weights`` (least squares: WLS's ``weights``),
    as in R's ``lm(weights=)`` / ``glm(weights=)`` and statsmodels' GLM influence measures.
    """
    prior = prior_weights(fit)
    if not isinstance(fit.model, sm.GLM):  # OLS or WLS
        return prior
    mu = np.asarray(fit.fittedvalues, dtype=float)
    return family.weights(mu) * prior * np.asarray(getattr(fit.model, "n_trials", 1.0))


def hat_values(fit: Any, family: Any) -> np.ndarray:
    """Diagonal of the hat matrix of the weighted design, ``W^1/2 X (X'WX)^- X' W^1/2``.

    Computed from an SVD of the design with each column at a power-of-two scale (the hat
    matrix does not depend on column scales); the leading ``rank`` singular vectors span it.
    """
    x = np.asarray(fit.model.exog, dtype=float)
    w = working_weights(fit, family)
    z = np.sqrt(w)[:, None] * (x / column_scales(x))
    u, _, _ = np.linalg.svd(z, full_matrices=False)
    u = u[:, :model_rank(fit)]
    h = np.einsum("ij,ij->i", u, u)
    h[h > 1 - 10 * np.finfo(float).eps] = 1.0  # R forces these to 1 (lm.influence)
    return h


def _var_weights(fit: Any) -> np.ndarray:
    """The ``var_weights`` of each row (WLS: its ``weights``; ones without)."""
    model = fit.model
    w = model.var_weights if isinstance(model, sm.GLM) else getattr(model, "weights", 1.0)
    return np.broadcast_to(np.asarray(w, dtype=float), (int(fit.nobs),))


def influence_measures(res: FittedSelection, type_residuals: str = "deviance") -> pd.DataFrame:
    """``.resid``, ``.std.resid``, ``.hat``, ``.sigma``, ``.cooksd`` on the refit's rows (R's definitions).

    ``.resid`` are the deviance or Pearson residuals (least squares: ``y - fitted`` for both,
    as R's ``residuals.lm``, weighted or not).  With prior weights ``w`` the measures use the
    weighted residuals ``d`` (deviance) and ``r_P`` (Pearson; least squares: ``sqrt(w) (y -
    fitted)`` for both), as R's ``rstandard``, ``influence`` and ``cooks.distance`` do:
    ``.std.resid = r / sqrt(phi (1 - h))`` with the dispersion ``phi``
    (``summary(fit)$dispersion``), ``.cooksd = (r_P / (1 - h))^2 h / (phi p)`` with the rank
    ``p``, and ``.sigma`` the residual standard deviation without the row,
    ``sqrt((sum f d^2 - f_i d_i^2 / (1 - h_i)) / (N - p - f_i))`` (``f`` the frequency weights,
    one without; ``N = sum f``): R's ``lm.influence`` when ``f = 1``, and for a least-squares
    fit exactly the refit without the row.  The hat values include the frequency weights
    (a row's leverage is that of all its copies), as statsmodels' ``GLMInfluence``.
    """
    _choice(type_residuals, TYPE_RESIDUALS, "type_residuals")
    fit, family = res.fit, res.selected_model.family
    if spec_of(family).least_squares:
        raw = np.asarray(fit.model.endog, dtype=float) - np.asarray(fit.fittedvalues, dtype=float)
        dev = pear = np.sqrt(_var_weights(fit)) * raw
        resid = raw
    else:
        dev, pear = np.asarray(fit.resid_deviance, dtype=float), np.asarray(fit.resid_pearson, dtype=float)
        resid = dev if type_residuals == "deviance" else pear
    std_base = dev if type_residuals == "deviance" else pear
    h = hat_values(fit, family)
    phi = float(fit.scale)
    p = model_rank(fit)
    freq = prior_weights(fit) / _var_weights(fit)
    total = float(np.sum(freq * dev**2))
    with np.errstate(divide="ignore", invalid="ignore"):
        std = std_base / np.sqrt(phi * (1.0 - h))
        std[np.isinf(std)] = np.nan
        loo = np.where(h < 1.0, total - freq * dev**2 / (1.0 - h), total)
        df_loo = observations(fit) - p - freq
        sigma = np.where(df_loo > 0, np.sqrt(np.maximum(loo, 0.0) / np.where(df_loo > 0, df_loo, 1.0)), np.nan)
        cooks = (pear / (1.0 - h)) ** 2 * h / (phi * p)
        cooks[np.isinf(cooks)] = np.nan
    return pd.DataFrame({".resid": resid, ".std.resid": std, ".hat": h, ".sigma": sigma, ".cooksd": cooks},
                        index=res.selected_model.train.index)


def fitted_with_se(res: FittedSelection, newdata: pd.DataFrame | None, type_predict: str) -> pd.DataFrame:
    """``.fitted`` and ``.se.fit`` on the link or response scale (R's ``predict(se.fit = TRUE)``).

    ``.fitted`` includes the offset and ``log(exposure)`` (on new data, read from the columns
    they were given as), as R's ``augment.glm`` and ``predict`` do.

    The link-scale standard error is ``sqrt(x' V x)`` with the refit's covariance ``V``; on the
    response scale it is multiplied by ``|d mu / d eta|`` (the delta method, as R does).
    """
    x = design_rows(res, newdata)
    xv = x.to_numpy(dtype=float)
    cov = np.asarray(res.fit.cov_params(), dtype=float)
    eta = xv @ np.asarray(res.fit.params, dtype=float)
    shift = linear_offset(res, newdata)
    if shift is not None:  # R's predict() and statsmodels' include the offset in the linear predictor
        eta = eta + shift
    with np.errstate(invalid="ignore", over="ignore"):
        se = np.sqrt(np.einsum("ij,jk,ik->i", xv, cov, xv))
        family = res.selected_model.family
        if type_predict == "response" and not spec_of(family).least_squares:
            link = family.link
            fitted = link.inverse(eta)
            se = se * np.abs(link.inverse_deriv(eta))
        else:
            fitted = eta
    return pd.DataFrame({".fitted": fitted, ".se.fit": se}, index=x.index)


def augment_frame(res: FittedSelection, newdata: pd.DataFrame | None = None, *, type_predict: str = "link",
                  type_residuals: str = "deviance", se_fit: bool = False) -> pd.DataFrame:
    """The model frame (or ``newdata``) with broom's ``augment`` columns added.

    On the refit's rows: ``.fitted`` (``.se.fit``), ``.resid``, ``.std.resid``, ``.hat``,
    ``.sigma``, ``.cooksd``.  On new data: ``.fitted`` (``.se.fit``), and for least squares
    ``.resid = y - .fitted`` when the response column is present (broom's ``augment.lm``;
    ``augment.glm`` gives no residuals for new data).
    """
    _choice(type_predict, TYPE_PREDICT, "type_predict")
    _choice(type_residuals, TYPE_RESIDUALS, "type_residuals")
    if not isinstance(se_fit, bool):
        raise TypeError(f"se_fit must be True or False, got {se_fit!r}")
    model = res.selected_model
    frame = model_frame(model) if newdata is None else newdata.copy()
    fitted = fitted_with_se(res, newdata, type_predict)
    if len(fitted) != len(frame):  # pragma: no cover -- the design keeps every row
        raise RuntimeError("the design lost rows")
    frame[".fitted"] = fitted[".fitted"].to_numpy()
    if se_fit:
        frame[".se.fit"] = fitted[".se.fit"].to_numpy()
    if newdata is None:
        measures = influence_measures(res, type_residuals)
        for column in measures.columns:
            frame[column] = measures[column].to_numpy()
    elif spec_of(model.family).least_squares and model.response_name in newdata.columns:
        y = pd.to_numeric(newdata[model.response_name], errors="coerce").to_numpy(dtype=float)
        frame[".resid"] = y - frame[".fitted"].to_numpy()
    return frame
