"""The numbers :func:`~streamreg.results.compare.compare` puts side by side, read from each fit.

Coefficients and their statistics come from the statsmodels results (a streamreg result's
``.fit``); the fit statistics are R's for streamreg results and for plain statsmodels
least-squares and GLM results (one convention per row), statsmodels' own for other models.
"""
from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
import pandas as pd

from ..formula.names import has_intercept
from ..models import spec_of
from .compare_maps import SELECTION_ROWS
from .compare_notes import method_label, r_family
from .fitstats import information_criteria, r_squared
from .results import StreamRegResults


def is_statsmodels(fit: Any) -> bool:
    """Whether ``fit`` looks like a statsmodels results object (what compare() can read)."""
    return all(hasattr(fit, a) for a in ("params", "bse", "pvalues", "model", "llf"))


def statsmodels_result(fit: Any) -> Any:
    """The statsmodels results of a fit: a streamreg result's refit, or the fit itself."""
    return fit.fit if isinstance(fit, StreamRegResults) else fit


def named_series(result: Any, values: Any, kept: dict[str, str] | None = None) -> pd.Series:
    """Named values of a statsmodels result (results of arrays carry names on the model);
    with ``kept``, only its terms, under its labels."""
    if isinstance(values, pd.Series):
        out = values.astype(float)
    else:
        out = pd.Series(np.asarray(values, dtype=float), index=list(result.model.exog_names))
    return out if kept is None else out[list(kept)].rename(kept)


def cell(frame: pd.DataFrame, term: str, name: str) -> float:
    """One number of a side-by-side table (pandas' stubs type a cell as any scalar)."""
    return float(cast(float, frame.at[term, name]))


def side_by_side(names: list[str], columns: list[pd.Series], order: list[str] | None = None) -> pd.DataFrame:
    """Columns aligned on the terms, in ``order`` or of first appearance (as summary_col orders them)."""
    if order is None:
        order = list(dict.fromkeys(term for col in columns for term in col.index))
    return pd.DataFrame({name: col.reindex(order) for name, col in zip(names, columns)}, index=order)


def ci_frame(result: Any, alpha: float) -> pd.DataFrame:
    """The ``1 - alpha`` intervals of a statsmodels result, one named row per term."""
    ci = result.conf_int(alpha=alpha)
    if isinstance(ci, pd.DataFrame):
        return ci
    return pd.DataFrame(np.asarray(ci), index=list(result.model.exog_names))


def fit_statistics(fit: Any) -> pd.Series:
    """Observations, log-likelihood, AIC, BIC, deviance and R-squared of one fit.

    A streamreg result's are its own, R's (``.llf``, ``.aic``, ``.bic``, ``glance()``'s
    ``r.squared``); a plain statsmodels least-squares or GLM result's are R's too, computed
    from it; other statsmodels models keep their own.
    """
    result = statsmodels_result(fit)
    family = fit.family if isinstance(fit, StreamRegResults) else r_family(result)
    if isinstance(fit, StreamRegResults):
        ic = information_criteria(result, fit.family)
        llf, aic, bic = ic.llf, ic.aic, ic.bic
        r2 = r_squared(result, has_intercept(fit.selected_model.rhs))[0] if spec_of(fit.family).least_squares else np.nan
    elif family is not None:  # least squares or a GLM: R's criteria, as the streamreg columns show them
        ic = information_criteria(result, family)
        llf, aic, bic = ic.llf, ic.aic, ic.bic
        r2 = float(getattr(result, "rsquared", np.nan))
    else:
        llf, aic = float(result.llf), float(result.aic)
        bic = float(result.bic_llf if hasattr(result, "bic_llf") else result.bic)  # GLM's .bic is deviance-based
        r2 = float(getattr(result, "rsquared", np.nan))
    return pd.Series({
        "Observations": float(result.nobs),
        "Log-likelihood": llf,
        "AIC": aic,
        "BIC": bic,
        "Deviance": float(getattr(result, "deviance", np.nan)),
        "R-squared": r2,
    })


def selection_rows(fit: StreamRegResults | None) -> list[str]:
    """Method, tested, selected, refused and guarantee of one fit (empty for statsmodels results)."""
    if fit is None:
        return [""] * len(SELECTION_ROWS)
    status = fit.history["status"].astype(str)
    return [
        method_label(fit.policy),
        str(int(fit.per_stream["tested"].sum())),
        str(len(fit.selected)),
        str(int(status.str.startswith("refused").sum())),
        short_guarantee(fit.guarantee()),
    ]


def short_guarantee(text: str) -> str:
    """The error rate a guarantee sentence bounds, e.g. ``"FDR <= 0.05"``, ``"none"`` or ``"void"``.

    Examples
    --------
    >>> from streamreg.results.compare import short_guarantee
    >>> short_guarantee("mFDR = E[V]/(E[R] + 1) <= 0.05 (V false, R all selections), valid when ...")
    'mFDR <= 0.05'
    >>> short_guarantee("BIC (F = log n) controls no error rate: it aims at ...")
    'none'
    """
    if "VOID" in text:
        return "void"
    found = re.search(r"\b(mFDR|FDR|FWER)(?:_eta)?\b[^<]*?<=\s*([0-9][0-9.e+-]*[0-9])", text)
    if found:
        return f"{found.group(1)} <= {found.group(2)}"
    if "no error rate" in text:
        return "none"
    return "see guarantee()"
