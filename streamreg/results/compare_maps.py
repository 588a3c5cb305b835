"""Which rows :func:`~streamreg.results.compare.compare` prints, under what names, in what order.

modelsummary's two controls, with its semantics:

* ``coef_map`` renames, orders and subsets the coefficients.  A dict maps each original term
  name to its label; a list keeps its terms under their own names.  Terms it does not name
  are dropped and the rows follow its order.  Two terms of *different* fits may share a label
  (they then share a row, e.g. one variable coded two ways); two terms of the same fit may
  not.  A fit none of whose terms is named is an error (modelsummary: "At least one of the
  term names in each model must appear in `coef_map`").  A name that no fit has is ignored
  by modelsummary; here it is ignored with a warning, since it is most often a typo.
* ``gof_map`` does the same for the rows below the coefficients: the selection rows and the
  fit statistics.  Its names are the table's own row names; R users' names (``nobs``,
  ``logLik``, ``aic``, ``r.squared``, ...) are accepted too.  Unlike modelsummary, whose
  default map lists statistics of every kind of model, the rows here are a fixed set, so a
  name outside it is an error that lists them.  A row that no fit has (R-squared of GLMs)
  is left out, as modelsummary leaves it out.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

#: the rows below the coefficients, by block, in the table's default order
SELECTION_ROWS = ("Method", "Tested", "Selected", "Refused", "Guarantee")
STATISTIC_ROWS = ("Observations", "Log-likelihood", "AIC", "BIC", "Deviance", "R-squared")
#: R's names of the statistics (glance(), modelsummary's gof_map), case-insensitive
_ALIASES = {"nobs": "Observations", "num.obs.": "Observations", "loglik": "Log-likelihood", "aic": "AIC",
            "bic": "BIC", "deviance": "Deviance", "r.squared": "R-squared", "r2": "R-squared"}


def _pairs(value: Any, what: str) -> list[tuple[str, str]]:
    """(name, label) pairs of a dict or a list of names, checked."""
    if isinstance(value, str):
        raise TypeError(f"{what} must be a dict of names to labels or a list of names, not a single string "
                        f"({value!r}); write [{value!r}]")
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Sequence):
        pairs = [(name, name) for name in value]
    else:
        raise TypeError(f"{what} must be a dict of names to labels or a list of names, got {type(value).__name__}")
    bad = [pair for pair in pairs if not (isinstance(pair[0], str) and isinstance(pair[1], str))]
    if bad:
        raise TypeError(f"{what} must map strings to strings; got {bad[0][0]!r}: {bad[0][1]!r}")
    if not pairs:
        raise ValueError(f"{what} is empty: it would drop every row; pass None to keep them all")
    twice = _repeated([name for name, _ in pairs])
    if twice:
        raise ValueError(f"{what} names {', '.join(map(repr, twice))} more than once")
    return pairs


def _repeated(values: list[str]) -> list[str]:
    """The values that occur more than once, sorted."""
    return sorted({v for v in values if values.count(v) > 1})


def coef_renames(coef_map: Any, fit_names: Sequence[str], terms: Sequence[Sequence[str]]
                 ) -> tuple[list[dict[str, str]], list[str]]:
    """Each fit's kept terms with their labels, and the rows' order (labels).

    Parameters
    ----------
    coef_map : dict or list of str
        As :func:`~streamreg.results.compare.compare`'s ``coef_map``.
    fit_names : sequence of str
        The columns' names (for the messages).
    terms : sequence of sequences of str
        Each fit's term names.

    Returns
    -------
    renames : list of dict
        Per fit, ``{term: label}`` for the terms kept, in ``coef_map``'s order.
    order : list of str
        The labels in the table's order (those some fit has).

    Examples
    --------
    >>> from streamreg.results.compare_maps import coef_renames
    >>> coef_renames({"x2": "X", "z": "X", "Intercept": "Constant"}, ["a", "b"],
    ...              [["Intercept", "x1", "x2"], ["Intercept", "z"]])
    ([{'x2': 'X', 'Intercept': 'Constant'}, {'z': 'X', 'Intercept': 'Constant'}], ['X', 'Constant'])
    """
    pairs = _pairs(coef_map, "coef_map")
    renames = []
    for name, fit_terms in zip(fit_names, terms):
        have = set(fit_terms)
        kept = {term: label for term, label in pairs if term in have}
        if not kept:
            raise ValueError(f"none of the terms of fit {name} is in coef_map (modelsummary: at least one term of "
                             f"each model must appear in it); its terms are {list(fit_terms)}")
        shared = _repeated(list(kept.values()))
        if shared:
            both = [t for t, lab in kept.items() if lab in shared]
            raise ValueError(f"coef_map gives terms {both} of fit {name} the same label {shared[0]!r}: terms of one "
                             "fit need labels of their own (only terms of different fits may share a row)")
        renames.append(kept)
    every = {t for fit_terms in terms for t in fit_terms}
    unknown = [term for term, _ in pairs if term not in every]
    if unknown:
        warnings.warn(f"coef_map names terms no fit has, left out: {unknown} (the fits' terms: {sorted(every)})",
                      UserWarning, stacklevel=3)
    used = {label for kept in renames for label in kept.values()}
    order = [label for label in dict.fromkeys(label for _, label in pairs) if label in used]
    return renames, order


def gof_rows(gof_map: Any) -> list[tuple[str, str]]:
    """``gof_map`` as (row, label) pairs in its order, each row one of the table's.

    ``[]`` or ``{}`` keeps no row below the coefficients.

    Examples
    --------
    >>> from streamreg.results.compare_maps import gof_rows
    >>> gof_rows({"nobs": "N", "Selected": "Terms", "aic": "AIC"})
    [('Observations', 'N'), ('Selected', 'Terms'), ('AIC', 'AIC')]
    >>> gof_rows(["BIC", "Guarantee"])
    [('BIC', 'BIC'), ('Guarantee', 'Guarantee')]
    """
    if isinstance(gof_map, (Mapping, list, tuple)) and not gof_map:
        return []
    known = SELECTION_ROWS + STATISTIC_ROWS
    out = []
    for name, label in _pairs(gof_map, "gof_map"):
        row = name if name in known else _ALIASES.get(name.lower())
        if row is None:
            raise ValueError(f"gof_map names {name!r}, which is not a row of the table; the rows are "
                             f"{', '.join(known)} (or R's nobs, logLik, aic, bic, deviance, r.squared)")
        out.append((row, label if label != name else row))
    for i, problem in ((0, "names the row {!r} twice (under two of its names)"), (1, "gives two rows the label {!r}")):
        twice = _repeated([pair[i] for pair in out])
        if twice:
            raise ValueError("gof_map " + problem.format(twice[0]))
    return out
