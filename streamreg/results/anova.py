"""Analysis of deviance (and of variance) as R's ``anova``: between nested fits, or term by term.

``anova(fit0, fit1, ..., test=)`` is R's ``anova(glm0, glm1, ..., test = )`` (``anova.glmlist``)
and, for least squares, ``anova(lm0, lm1, ...)`` (``anova.lmlist``); ``anova(fit)`` is the
sequential table of one fit, R's ``anova(glm, test = )`` (``anova.glm``: the terms added one
at a time, first to last) or ``anova(lm)`` (``anova.lm``).  The numbers are R's
(``tests/reference/anova.R``): deviances of the refits of the first terms, the dispersion of the
largest model (1 for binomial, Poisson and negative binomial fits, else Pearson's), and the
tests of R's ``stat.anova``:

* ``"Chisq"`` (or ``"LRT"``): the deviance over the dispersion against chi-square;
* ``"F"``: the mean deviance over the dispersion against F with the residual df of the
  largest model (R warns for a fixed dispersion, and so does this);
* ``"Rao"``: R's score statistic, a weighted regression of the smaller model's working
  residuals on the larger design, against chi-square;
* ``"auto"`` (the default): ``"Chisq"`` when the dispersion is fixed, ``"F"`` when it is
  estimated (R 4.4's default); None: no test, the table alone (R before 4.4).

The table is an :class:`AnovaTable`: a DataFrame with R's columns and row names, its heading,
and a broom-style :meth:`~AnovaTable.tidy`.
"""
from __future__ import annotations

import warnings
from itertools import pairwise
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from ..models.families import spec_of
from .anova_fits import (
    ModelView,
    check_nested,
    final_fit,
    model_view,
    null_fit,
    prefix_fits,
    rao_score,
)

#: ``test=`` as R spells it (matched without case), and what each is
TESTS = {"chisq": "Chisq", "lrt": "LRT", "rao": "Rao", "f": "F"}

#: broom's names of R's anova columns (tidy.anova)
_TIDY = {"Df": "df", "Deviance": "deviance", "Resid. Df": "df.residual", "Resid. Dev": "residual.deviance",
         "Res.Df": "df.residual", "RSS": "rss", "Sum of Sq": "sumsq", "Sum Sq": "sumsq", "Mean Sq": "meansq",
         "F value": "statistic", "F": "statistic", "Rao": "statistic", "Pr(>F)": "p.value", "Pr(>Chi)": "p.value"}


class AnovaTable(pd.DataFrame):
    """R's anova table: the columns and row names of R, with R's heading in ``heading``.

    ``print(table)`` shows the heading above the table, as R prints it; :meth:`tidy` gives
    broom's columns.  Built by :func:`streamreg.anova` and ``fit.anova()``, which set
    ``heading``.

    Parameters
    ----------
    data, index, columns, dtype, copy
        As :class:`pandas.DataFrame` takes them.

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
    >>> table = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).anova()
    >>> print(table.heading)
    Analysis of Variance Table
    <BLANKLINE>
    Response: y
    >>> list(table.index), list(table.columns)
    (['x2', 'Residuals'], ['Df', 'Sum Sq', 'Mean Sq', 'F value', 'Pr(>F)'])
    """

    _metadata: ClassVar[list[str]] = ["heading"]  # pandas carries these attributes to derived frames
    heading: str

    @property
    def _constructor(self) -> type[AnovaTable]:
        return AnovaTable

    def tidy(self) -> pd.DataFrame:
        """broom's ``tidy()`` of the table: a ``term`` column (the model formulas when fits are
        compared), then R's columns under broom's names (``df``, ``deviance``, ``df.residual``,
        ``residual.deviance``, ``rss``, ``sumsq``, ``meansq``, ``statistic``, ``p.value``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> list(sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).anova().tidy().columns)
        ['term', 'df', 'sumsq', 'meansq', 'statistic', 'p.value']
        """
        out = pd.DataFrame(self).rename(columns=_TIDY)
        models = self.attrs.get("models")
        out.insert(0, "term", list(models) if models is not None else [str(i) for i in self.index])
        return out.reset_index(drop=True)

    def __str__(self) -> str:
        return f"{getattr(self, 'heading', '')}\n\n{pd.DataFrame(self).to_string()}"


def anova(*fits: Any, test: str | None = "auto") -> AnovaTable:
    """R's ``anova``: nested fits compared, or one fit's terms added one at a time.

    Parameters
    ----------
    *fits : StreamRegResults or statsmodels OLS, WLS or GLM results
        One fit: its sequential table.  Several: nested fits of the same rows, family,
        offset and weights, each compared with the one before (in the order given, as R).
    test : {"auto", "Chisq", "LRT", "F", "Rao"} or None
        R's ``test=`` (see the module's notes); ``"auto"`` is ``"Chisq"`` for a fixed
        dispersion and ``"F"`` otherwise.  A least-squares fit alone gets R's ``anova(lm)``
        F tests.

    Returns
    -------
    AnovaTable

    Raises
    ------
    TypeError
        For something other than a fit.
    ValueError
        For another ``test``, or fits that are not comparable: other families, other rows
        or responses, other offsets or weights, designs that are not nested.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(1)
    >>> d = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "e"])
    >>> d["y"] = rng.binomial(1, 1 / (1 + np.exp(-d.a - d.b)))
    >>> small = sr.streamreg("y ~ stream(a)", d, family="binomial")
    >>> big = sr.streamreg("y ~ a + stream(b, c, e)", d, family="binomial")
    >>> table = sr.anova(small, big, test="Chisq")
    >>> list(table.columns)
    ['Resid. Df', 'Resid. Dev', 'Df', 'Deviance', 'Pr(>Chi)']
    >>> bool(np.isclose(table["Deviance"].iloc[1], small.deviance - big.deviance))
    True
    """
    if not fits:
        raise TypeError("anova needs at least one fit")
    views = [model_view(f, k) for k, f in enumerate(fits, start=1)]
    name = _check_test(test)
    if len(views) == 1:
        return _sequential(views[0], name)
    check_nested(views)
    return _compare(views, name)


def _check_test(test: object) -> str | None:
    if test is None:
        return None
    if isinstance(test, str) and (test == "auto" or test.lower() in TESTS):
        return test if test == "auto" else TESTS[test.lower()]
    raise ValueError(f"test must be 'Chisq', 'LRT', 'F', 'Rao', 'auto' or None (R's names), got {test!r}")


def _fixed(view: ModelView) -> bool:
    return not view.least_squares and spec_of(view.family).fixed_dispersion


def _resolve(test: str | None, view: ModelView) -> str | None:
    """``"auto"`` as R 4.4 decides it: chi-square for a fixed dispersion, F otherwise."""
    if test != "auto":
        return test
    return "Chisq" if _fixed(view) else "F"


def _warn_f(view: ModelView) -> None:
    """R's warning about an F test where the dispersion is known (stacklevel: the user's anova call)."""
    name = spec_of(view.family).r_name
    what = f"a '{name}' family" if name in ("binomial", "poisson") else "a fixed dispersion"
    warnings.warn(f"using F test with {what} is inappropriate", UserWarning, stacklevel=4)


def _add_test(table: pd.DataFrame, test: str, column: str, scale: float, df_scale: float) -> pd.DataFrame:
    """R's ``stat.anova``: the p-values of ``column`` (F: also the F statistic) on the table's ``Df``."""
    dfs = table["Df"].to_numpy(dtype=float)
    values = table[column].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if test == "F":
            stat = values / dfs / scale
            stat[(dfs == 0) | (stat < 0)] = np.nan
            p = stats.chi2.sf(stat * np.abs(dfs), np.abs(dfs)) if np.isinf(df_scale) \
                else stats.f.sf(stat, np.abs(dfs), df_scale)
            return table.assign(**{"F": stat, "Pr(>F)": p})
        stat = values / scale * np.sign(dfs)
        stat[(dfs == 0) | (stat < 0)] = np.nan
        return table.assign(**{"Pr(>Chi)": stats.chi2.sf(stat, np.abs(dfs))})


def _finish(table: pd.DataFrame, heading: str, models: list[str] | None = None) -> AnovaTable:
    out = AnovaTable(table)
    out.heading = heading
    if models is not None:  # compared fits: broom's tidy names them by their formulas
        out.attrs["models"] = models
    return out


def _compare(views: list[ModelView], test: str | None) -> AnovaTable:
    """R's ``anova.glmlist`` (``anova.lmlist`` for least squares): each fit against the one before."""
    resdf = np.array([v.df_resid for v in views])
    resdev = np.array([v.deviance for v in views])
    df = np.r_[np.nan, -np.diff(resdf)]
    change = np.r_[np.nan, -np.diff(resdev)]
    big = views[int(np.argmin(resdf))]
    test = _resolve(test, big)
    models = [v.label for v in views]
    heading = "\n".join([f"Analysis of {'Variance' if big.least_squares else 'Deviance'} Table", ""]
                        + [f"Model {k}: {label}" for k, label in enumerate(models, start=1)])
    index = pd.RangeIndex(1, len(views) + 1)
    if big.least_squares:
        table = pd.DataFrame({"Res.Df": resdf, "RSS": resdev, "Df": df, "Sum of Sq": change}, index=index)
        if test is not None:
            table = _add_test(table, test, "Sum of Sq", big.deviance / big.df_resid, big.df_resid)
        return _finish(table, heading, models)
    table = pd.DataFrame({"Resid. Df": resdf, "Resid. Dev": resdev, "Df": df, "Deviance": change}, index=index)
    if test == "Rao":
        table["Rao"] = [np.nan] + [_pair_score(a, b) for a, b in pairwise(views)]
    if test is not None:
        fixed = _fixed(big)
        if test == "F" and fixed:
            _warn_f(big)
        table = _add_test(table, test, "Rao" if test == "Rao" else "Deviance", big.dispersion,
                          np.inf if fixed else float(resdf.min()))
    return _finish(table, heading, models)


def _pair_score(before: ModelView, after: ModelView) -> float:
    """The Rao statistic of the larger of two consecutive fits at the smaller one (negative when the second is smaller)."""
    grows = before.df_resid - after.df_resid > 0
    small, big = (before, after) if grows else (after, before)
    score = rao_score(small, np.asarray(small.result.fittedvalues, dtype=float), big.x)
    return score if grows else -score


def _sequential(view: ModelView, test: str | None) -> AnovaTable:
    """R's ``anova.glm`` (``anova.lm`` for least squares): the terms added one at a time."""
    response = view.label.split(" ~ ", 1)[0]
    fits = prefix_fits(view) + [final_fit(view)]
    if view.least_squares:
        if test not in ("auto", "F", None):
            raise ValueError(f"the table of one least-squares fit is R's anova(lm), with F tests only; got "
                             f"test={test!r} (compare nested fits for chi-square tests)")
        return _lm_table(view, fits, response)
    test = _resolve(test, view)
    null_dev, null_df = null_fit(view)
    resdf = np.array([null_df] + [f.df_resid for f in fits[1:]])
    resdev = np.array([null_dev] + [f.deviance for f in fits[1:]])
    table = pd.DataFrame({"Df": np.r_[np.nan, -np.diff(resdf)],
                          "Deviance": np.r_[np.nan, np.maximum(0.0, -np.diff(resdev))],
                          "Resid. Df": resdf, "Resid. Dev": resdev},
                         index=["NULL"] + [name for name, _ in view.terms])
    if test == "Rao":
        table["Rao"] = [np.nan] + [rao_score(view, fits[i - 1].mu, view.x[:, _columns(view, i)])
                                   for i in range(1, len(view.terms) + 1)]
    fam = spec_of(view.family).r_name or type(view.family).__name__
    heading = (f"Analysis of Deviance Table\n\nModel: {fam}, link: {type(view.family.link).__name__.lower()}\n\n"
               f"Response: {response}\n\nTerms added sequentially (first to last)")
    if test is not None:
        fixed = _fixed(view)
        if test == "F" and fixed:
            _warn_f(view)
        table = _add_test(table, test, "Rao" if test == "Rao" else "Deviance", view.dispersion,
                          np.inf if fixed else view.df_resid)
    return _finish(table, heading)


def _columns(view: ModelView, i: int) -> np.ndarray:
    """The design columns of the intercept and the first ``i`` terms."""
    return np.concatenate([view.base, *[c for _, c in view.terms[:i]]]).astype(int)


def _lm_table(view: ModelView, fits: list[Any], response: str) -> AnovaTable:
    """R's ``anova.lm``: sequential sums of squares of the terms, then the residuals."""
    rss = np.array([f.deviance for f in fits])
    resdf = np.array([f.df_resid for f in fits])
    df, ss = -np.diff(resdf), -np.diff(rss)
    keep = df > 0  # a term aliased with the earlier ones has no row (R's QR pivots it out)
    dfr, ssr = view.df_resid, view.deviance
    names = [name for (name, _), k in zip(view.terms, keep) if k] + ["Residuals"]
    df, ss = np.r_[df[keep], dfr], np.r_[ss[keep], ssr]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_sq = ss / df
        f_value = mean_sq / (ssr / dfr)
    p = stats.f.sf(f_value, df, dfr)
    f_value[-1], p[-1] = np.nan, np.nan
    if ssr < 1e-10 * float(np.sum(view.prior * np.asarray(view.result.fittedvalues, dtype=float) ** 2)):
        warnings.warn("ANOVA F-tests on an essentially perfect fit are unreliable", UserWarning, stacklevel=4)
    table = pd.DataFrame({"Df": df, "Sum Sq": ss, "Mean Sq": mean_sq, "F value": f_value, "Pr(>F)": p}, index=names)
    return _finish(table, f"Analysis of Variance Table\n\nResponse: {response}")
