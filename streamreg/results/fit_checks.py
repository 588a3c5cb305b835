"""Checks of the refit that the summary states in words: dispersion, near separation, huge SEs.

Each check returns sentences (possibly none) for the summary's notes; the numbers come from
the statsmodels refit, the decisions from tests stated in the sentence itself.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import statsmodels.api as sm
from scipy import stats

from ..models.families import spec_of

if TYPE_CHECKING:
    from .record import FittedSelection

#: Pearson dispersion tests at this level are reported as overdispersion
OVERDISPERSION_LEVEL = 0.01
#: fitted probabilities this close to 0 or 1 count as nearly separated ...
NEAR_ONE = 1e-4
#: ... when at least this share of the rows has them (a single strong predictor puts a few
#: per cent of a large sample there without any trouble)
NEAR_SHARE = 0.10
#: a coefficient's standard error per standard deviation of its column beyond this (link scale)
#: is called huge: a one-SD change of the term is then not estimated at all
HUGE_SE = 5.0


def _is_glm(res: FittedSelection) -> bool:
    return hasattr(res.fit, "pearson_chi2") and not spec_of(res.selected_model.family).least_squares


def candidate_test_note(res: FittedSelection) -> str | None:
    """Why candidates were tested with an estimated dispersion, when they were."""
    if "Pearson dispersion" not in res.selection.test_description:
        return None
    return ("Candidates were tested with the dispersion estimated from the current model's Pearson residuals "
            "(test='score-f', an F test): terms not yet selected overdisperse the response, and a score test "
            "that assumes the family's dispersion of 1 then selects null terms far beyond the stated bound; "
            "test='score' runs the model-based test.")


def dispersion_note(res: FittedSelection) -> str | None:
    """Overdispersion of a fixed-dispersion refit, by the Pearson chi-square test of phi = 1."""
    family = res.selected_model.family
    if not _is_glm(res) or not spec_of(family).fixed_dispersion:
        return None
    chi2, df = float(res.fit.pearson_chi2), float(res.fit.df_resid)
    if df <= 0:
        return None
    if spec_of(family).response == "binary" and _binary(res):
        return None  # 0/1 responses: the Pearson statistic says nothing about dispersion
    p = float(stats.chi2.sf(chi2, df))
    if p >= OVERDISPERSION_LEVEL:
        return None
    return (f"The refit is overdispersed: Pearson dispersion {chi2 / df:.3g} (chi-square {chi2:.5g} on {df:g} df, "
            f"p = {p:.2g}), while the {type(family).__name__} standard errors and p-values below assume 1; "
            f"multiplied by sqrt({chi2 / df:.3g}) = {np.sqrt(chi2 / df):.3g} they are the quasi-likelihood ones "
            f"(statsmodels' fit(scale='X2'), R's quasi families).")


def stability_warnings(res: FittedSelection) -> list[str]:
    """Near separation (binary responses) and standard errors too large to mean anything."""
    if not _is_glm(res):
        return []
    out = []
    family = res.selected_model.family
    mu = np.asarray(res.fit.fittedvalues, dtype=float)
    if spec_of(family).response == "binary" and _binary(res):
        near = int(np.sum(np.minimum(mu, 1 - mu) < NEAR_ONE))
        if near >= NEAR_SHARE * mu.size:
            out.append(f"nearly separated: {near} of {mu.size} fitted probabilities lie within {NEAR_ONE:g} of 0 or 1, "
                       "so some coefficients are driven towards infinity and their Wald statistics understate them")
    if not isinstance(getattr(family, "link", None), _SCALE_FREE_LINKS):
        return out  # on an identity or inverse link the linear predictor carries the response's units
    exog = np.asarray(res.fit.model.exog, dtype=float)
    sd = exog.std(axis=0)
    bse = np.asarray(res.fit.bse, dtype=float)
    per_sd = np.where(sd > 0, bse * sd, 0.0)  # the intercept (sd 0) is left out
    if per_sd.size and np.nanmax(per_sd) > HUGE_SE:
        j = int(np.nanargmax(per_sd))
        name = str(res.fit.params.index[j]) if hasattr(res.fit.params, "index") else f"column {j}"
        out.append(f"the standard error of {name} is {per_sd[j]:.3g} per standard deviation of the term on the link "
                   f"scale (more than {HUGE_SE:g}): its coefficient is not estimated in any useful sense")
    return out


#: links whose linear predictor has no units (log odds, log means, probits): an SE per SD of a
#: term is comparable across data sets only on these
_SCALE_FREE_LINKS = (sm.families.links.Log, sm.families.links.Logit, sm.families.links.Probit,
                     sm.families.links.CLogLog, sm.families.links.LogLog)


def _binary(res: FittedSelection) -> bool:
    y = np.asarray(res.fit.model.endog, dtype=float)
    return bool(np.all((y == 0) | (y == 1)))
