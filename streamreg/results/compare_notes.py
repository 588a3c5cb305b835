"""The notes under :func:`~streamreg.results.compare.compare`'s table that depend on the fits.

Whose log-likelihood, AIC and BIC each column shows (R's for streamreg results, statsmodels'
for plain statsmodels results, which differ when a dispersion is estimated), which fits have
robust standard errors, and the method of each fit in a word.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import statsmodels.api as sm
from statsmodels.regression.linear_model import RegressionResults

from ..policies.penalties import FixedPenalty
from .fitstats import estimates_dispersion

if TYPE_CHECKING:
    from .results import StreamRegResults


def _statsmodels_estimates_dispersion(result: Any) -> bool:
    """Whether a plain statsmodels result estimates a dispersion (where its AIC is not R's)."""
    model = getattr(result, "model", None)
    if isinstance(model, sm.GLM):
        return estimates_dispersion(model.family)
    return isinstance(getattr(result, "_results", result), RegressionResults)  # OLS, WLS, GLS: sigma


def criteria_notes(names: list[str], streamreg_fits: list[StreamRegResults | None], results: list[Any]) -> list[str]:
    """Whose conventions the log-likelihood, AIC and BIC follow, when a fit estimates a dispersion.

    R and statsmodels agree for binomial and Poisson fits; with a dispersion statsmodels does not
    count it as a parameter, and for GLMs plugs the Pearson estimate into the log-likelihood.
    """
    dispersion = [estimates_dispersion(f.family) if f is not None else _statsmodels_estimates_dispersion(r)
                  for f, r in zip(streamreg_fits, results)]
    if not any(dispersion):
        return []
    ours = [n for n, f in zip(names, streamreg_fits) if f is not None]
    theirs = [n for n, f in zip(names, streamreg_fits) if f is None]

    def which(group: list[str]) -> str:
        return "every fit" if len(group) == len(names) else ", ".join(group)

    notes = []
    if ours:
        notes.append(f"Log-likelihood, AIC and BIC of {which(ours)}: R's logLik(), AIC() and BIC(), as .llf, .aic, "
                     ".bic and glance() report them (an estimated dispersion counts as a parameter; a GLM's is "
                     "deviance / n in the log-likelihood).")
    if theirs:
        notes.append(f"Log-likelihood, AIC and BIC of {which(theirs)}: statsmodels' own, which do not count an "
                     "estimated dispersion (for least squares R's AIC is 2 higher, its BIC log(n) higher) and for "
                     "GLMs plug the Pearson dispersion into the log-likelihood.")
    return notes


def covariance_note(names: list[str], results: list[Any]) -> str | None:
    """Which fits have robust standard errors, by covariance type (None when none has)."""
    kinds = [str(getattr(r, "cov_type", "nonrobust")) for r in results]
    robust: dict[str, list[str]] = {}
    for name, kind in zip(names, kinds):
        if kind != "nonrobust":
            robust.setdefault(kind, []).append(name)
    if not robust:
        return None
    parts = "; ".join(f"{kind} for {', '.join(group)}" for kind, group in robust.items())
    rest = "" if all(k != "nonrobust" for k in kinds) else "; classical (nonrobust) for the others"
    return f"Robust covariance (standard errors, statistics, p-values, intervals and stars): {parts}{rest}."


def method_label(policy: Any) -> str:
    """A fit's method in a word: the policy's name, with its penalty for stepwise selection.

    Examples
    --------
    >>> from streamreg.search.stepwise import Stepwise
    >>> from streamreg.policies import AlphaInvesting
    >>> method_label(Stepwise("bic")), method_label(Stepwise(3.0, direction="both")), method_label(AlphaInvesting())
    ('stepwise-bic', 'stepwise (k = 3), both', 'alpha-investing')
    """
    inner = getattr(policy, "policy", None)
    if not isinstance(inner, FixedPenalty):
        return str(policy.name)
    if inner.name in ("aic", "bic", "ric"):
        label = f"{policy.name}-{inner.name}"
    else:
        label = f"{policy.name} (k = {inner.penalty:g})"
    return label + (", both" if getattr(policy, "direction", "forward") == "both" else "")
