"""The notes under :func:`~streamreg.results.compare.compare`'s table that depend on the fits.

Whose log-likelihood, AIC and BIC each column shows (R's, for streamreg results and plain
statsmodels least-squares and GLM results alike; statsmodels' own for other models), which
fits have robust standard errors, and the method of each fit in a word.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import statsmodels.api as sm

from ..policies.penalties import FixedPenalty
from .fitstats import estimates_dispersion

if TYPE_CHECKING:
    from .results import StreamRegResults


def r_family(result: Any) -> Any | None:
    """The family whose R criteria a plain statsmodels result has: a GLM's, Gaussian for least
    squares (OLS, WLS), None for other models (their own criteria are then shown)."""
    model = getattr(result, "model", None)
    if isinstance(model, sm.GLM):
        return model.family
    if type(model) in (sm.OLS, sm.WLS):  # R's lm; GLS, GLSAR and others have no R criteria here
        return sm.families.Gaussian()
    return None


def criteria_notes(names: list[str], streamreg_fits: list[StreamRegResults | None], results: list[Any]) -> list[str]:
    """Whose conventions the log-likelihood, AIC and BIC follow, when a fit estimates a dispersion.

    Every streamreg fit and every plain statsmodels least-squares or GLM result shows R's
    criteria (one convention per row); R and statsmodels agree for binomial and Poisson fits,
    while with a dispersion statsmodels does not count it as a parameter and, for GLMs, plugs
    the Pearson estimate into the log-likelihood.  Other statsmodels models keep their own.
    """
    families = [f.family if f is not None else r_family(r) for f, r in zip(streamreg_fits, results)]
    if not any(fam is not None and estimates_dispersion(fam) for fam in families):
        return []
    ours = [n for n, fam in zip(names, families) if fam is not None]
    theirs = [n for n, fam in zip(names, families) if fam is None]

    def which(group: list[str]) -> str:
        return "every fit" if len(group) == len(names) else ", ".join(group)

    notes = []
    if ours:
        plain = [n for n, f, fam in zip(names, streamreg_fits, families) if f is None and fam is not None]
        computed = (f" ({', '.join(plain)}: computed from the statsmodels result, whose own .aic and .bic do not "
                    "count the dispersion)") if plain else ""
        notes.append(f"Log-likelihood, AIC and BIC of {which(ours)}: R's logLik(), AIC() and BIC(), as .llf, .aic, "
                     ".bic and glance() report them (an estimated dispersion counts as a parameter; a GLM's is "
                     f"deviance / n in the log-likelihood){computed}.")
    if theirs:
        notes.append(f"Log-likelihood, AIC and BIC of {which(theirs)}: statsmodels' own.")
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
