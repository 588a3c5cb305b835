"""StreamRegResults: the final refit plus the whole selection story."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..models.families import family_name
from ..search.decoys import DecoyReport
from . import broom
from .anova import AnovaTable, anova
from .inference import with_use_t
from .plot_methods import ResultPlots
from .predict_methods import ResultPredictions
from .record import SelectedModel, SelectionRecord
from .refit_methods import RefitAccessors
from .summary import StreamRegSummary, add_selection_block
from .summary2 import selection_summary2

if TYPE_CHECKING:
    from statsmodels.iolib.summary import Summary

    from ..search.result import SearchResult


class StreamRegResults(RefitAccessors, ResultPredictions, ResultPlots):
    """Results of a streamwise selection, read like statsmodels results.

    Attributes
    ----------
    fit : statsmodels OLSResults or GLMResults
        The final refit of fixed + selected terms (a real statsmodels object).
    selected_model : SelectedModel
        The selected terms as a formula on the rows they were refit on (the training frame,
        the response, the family, generated-term state, weights, covariance type).
    selection : SelectionRecord
        How the terms were chosen: the search, the rule, the test and what was dropped.
    refit_warnings : list of str
        Problems statsmodels reported when refitting the selected terms (plain language).
    selected : DataFrame
        One row per selected term: order, term, stream, test index, statistic, df,
        p-value, level and wealth after the acceptance.
    history : DataFrame
        One row per candidate examined, tested or skipped, in search order; with
        ``history="none"`` only the rows of the accepted and refused candidates.
    history_mode : str
        ``"full"`` or ``"none"`` (the ``history=`` option of the call).
    selected_formula : str
        A plain formula for the refit, usable with ``statsmodels.formula.api``.
    family : statsmodels family
        The family of the search and the refit: Gaussian with identity link is refit by
        OLS, every other family and link by a GLM.

    Results are built by :func:`~streamreg.results.selected.fit_selected` from the selected
    model and the record of its selection; users get them from :func:`streamreg.streamreg`
    and :func:`streamreg.select`.

    Parameters
    ----------
    model : SelectedModel
        The selected model: its formula, the rows it is refit on and how to rebuild its
        columns on new data.
    selection : SelectionRecord
        How the terms were chosen: the search (history, selected table, counts), the rule
        and the test.
    fit : statsmodels results
        The refit of the fixed and selected terms.
    refit_warnings : list of str, optional
        Warnings about the refit (separation, overdispersion, huge standard errors) that the
        summary prints.

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
    >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
    >>> fit
    <StreamRegResults: 'y ~ 1 + x2'; selected 1 (x2)>
    >>> fit.selected[["order", "term", "stream", "test"]]
       order term stream  test
    0      1   x2     x*     6
    >>> fit.params.round(3)
    Intercept    0.056
    x2           1.017
    dtype: float64
    >>> fit.selected_model.rhs, fit.selection.stopped_by
    ('1 + x2', 'exhausted')
    """

    def __init__(self, *, model: SelectedModel, selection: SelectionRecord, fit: Any,
                 refit_warnings: list[str] | None = None) -> None:
        self.fit = fit
        self.selected_model = model
        self.selection = selection
        #: problems statsmodels reported when refitting the selected terms (plain language)
        self.refit_warnings = list(refit_warnings or [])

    # what the selected model and its record say, under the names results have always had
    @property
    def search(self) -> SearchResult:
        """The search's own result (history, tables, stopping reason)."""
        return self.selection.search

    @property
    def history_mode(self) -> str:
        """``"full"`` or ``"none"`` (the ``history=`` option of the call)."""
        return self.selection.history_mode

    @property
    def stopped_by(self) -> str:
        """Why the search stopped (``"exhausted"``, ``"max_selected"``, ...)."""
        return self.selection.stopped_by

    @property
    def formula(self) -> str | None:
        """The formula as written (None for :func:`streamreg.select`)."""
        return self.selection.formula

    @property
    def selected_formula(self) -> str:
        """A plain formula of the refit, usable with ``statsmodels.formula.api``."""
        return self.selected_model.formula

    @property
    def response_name(self) -> str:
        """The response's column name."""
        return self.selected_model.response_name

    @property
    def success_level(self) -> object | None:
        """The level modelled as success by a two-level binomial response (else None)."""
        return self.selection.success_level

    @property
    def family(self) -> Any:
        """The statsmodels family of the search and the refit (results branch on it, never on a name)."""
        return self.selected_model.family

    @property
    def policy(self) -> Any:
        """The rule (or search method) that selected."""
        return self.selection.policy

    @property
    def policy_description(self) -> str:
        """The rule with its parameters, as the summary prints it."""
        return self.selection.policy_description

    @property
    def test_description(self) -> str:
        """The candidate test in words."""
        return self.selection.test_description

    @property
    def n_dropped(self) -> int:
        """Rows dropped for missing values."""
        return self.selection.n_dropped

    @property
    def missing_by_column(self) -> dict[str, int]:
        """The used columns holding missing values (why rows were dropped), with their counts."""
        return dict(self.selection.missing_by_column)

    @property
    def validation(self) -> dict[str, int] | None:
        """Sample-splitting sizes, None when selected and refit on the same rows."""
        val = self.selection.validation
        return None if val is None else dict(val)

    @property
    def seed(self) -> Any:
        """The seed of the random split (``validate=``), random orders and decoys: ``seed=`` as given,
        or the one drawn when none was; None when nothing was random.  ``seed=res.seed`` repeats the run.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, validate=0.5)
        >>> again = sr.streamreg("y ~ stream(x*)", df, validate=0.5, seed=fit.seed)
        >>> again.selected_model.train.index.equals(fit.selected_model.train.index)
        True
        """
        return self.selection.seed.seed

    @property
    def order_used_y(self) -> list[str]:
        """Streams ordered by a score that looked at the response."""
        return list(self.selection.y_ordered)

    @property
    def decoys(self) -> DecoyReport | None:
        """What the decoys showed (``decoys=``): the report with ``table`` (one row per decoy
        hit, or per pair that entered the model when selecting with ``decoy_fdr=``),
        ``hits``, ``threshold`` and :meth:`~streamreg.search.decoys.DecoyReport.estimate`;
        None without decoys."""
        return getattr(self.search, "decoys", None)

    @property
    def family_name(self) -> str:
        """The family's class name in lower case (``"gaussian"``, ``"binomial"``, ...), for display."""
        return family_name(self.family)

    @property
    def selected(self) -> pd.DataFrame:
        """One row per selected term (the search's table, built on first access)."""
        return self.selection.selected

    @property
    def per_stream(self) -> pd.DataFrame:
        """Candidates tested, terms selected and final wealth per stream (built on first access)."""
        return self.selection.per_stream

    @property
    def history_kept(self) -> bool:
        """False when the call had ``history="none"``: only accepted and refused rows were kept."""
        return self.history_mode != "none"

    @property
    def history(self) -> pd.DataFrame:
        """One row per candidate examined (built on first access for long streams).

        ``statistic`` is the test's: the F statistic of a least-squares test (R's
        ``add1(test = "F")``; ``t**2`` for one column), the chi-square of a score,
        likelihood-ratio or robust Wald test, ``2 delta loglik`` for stepwise methods.
        With ``history="none"`` only the accepted and refused candidates' rows, with all
        their columns (identical to the same rows of the full history).
        """
        return self.selection.history

    @property
    def selected_terms(self) -> list[str]:
        return list(self.selected["term"])

    @property
    def wealth(self) -> pd.DataFrame:
        """Wealth after each test, one column per stream (forward-filled), indexed by test.

        With ``history="none"`` the rows are the acceptances (and refusals) only and each
        stream has its wealth at its own rows, NaN elsewhere: the wealth between them was
        not kept, so nothing is forward-filled.
        """
        h = self.history[self.history["test"].notna()]
        if h.empty:
            return pd.DataFrame()
        w = h.pivot_table(index="test", columns="stream", values="wealth", aggfunc="last", sort=False)
        w = w.reindex(columns=list(self.per_stream.index)).sort_index()
        if not self.history_kept:
            return w
        w = w.ffill()
        return w.fillna(pd.Series(self.search.initial_wealth, dtype=float))

    # the selection story ----------------------------------------------------------
    def guarantee(self) -> str:
        """What the rule guarantees, under which assumption (e.g. Zhou et al. 2006, section 5).

        Returns
        -------
        str
            The rule's statement, with a caveat when the test makes it doubtful.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> print(sr.streamreg("y ~ stream(x*)", df).guarantee())
        Screened by alpha-investing (w0 = 0.5), then every candidate tested once against the screened model (its own terms by backward elimination) and confirmed by alpha-investing: mFDR = E[V]/(E[R] + 2.5) <= 0.02 (V false, R all selections) when each null test is super-uniform given the earlier ones. The tests are made against a model chosen from the same data, so this holds approximately (bench/bench_null_glm.py measures it); with no signal, P(any selection) is about w0 = 0.05.
        """
        return self.selection.guarantee()

    def false_selection_estimate(self) -> float | None:
        """Plug-in estimate ``alpha_delta * k + W0 - W_final`` (investing rules only; else None).

        The rule computes it (:meth:`~streamreg.policies.Policy.false_selection_estimate`)
        from the number of selections and the wealth left over all streams.

        Returns
        -------
        float or None
            An estimate, not a bound; None for rules without wealth and payout.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df)
        >>> round(fit.false_selection_estimate(), 4)  # 0.02 * 1 + 0.05 - final wealth
        0.0508
        >>> round(0.02 * 1 + 0.05 - float(fit.per_stream["final_wealth"].sum()), 4)
        0.0508
        """
        return self.selection.false_selection_estimate()

    def summary(self, alpha: float = 0.05) -> StreamRegSummary:
        """statsmodels ``Summary`` with the selection block above the coefficients.

        Its ``as_text()``, ``as_html()`` and ``as_latex()`` render it; the notes say what
        the rule guarantees and that the refit's p-values ignore the selection.

        Parameters
        ----------
        alpha : float, default 0.05
            The coefficients' confidence intervals are at level ``1 - alpha``.

        Returns
        -------
        StreamRegSummary
            A statsmodels ``Summary`` (printing it prints the text).

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> text = " ".join(sr.streamreg("y ~ stream(x*)", df).summary().as_text().split())
        >>> "Selection method: screen-confirm(w0=0.05, alpha_delta=0.02, screen_w0=0.5)" in text
        True
        >>> "Tests (all passes): 8: 5 screening (2 passes), 3 confirming" in text and "not valid post-selection p-values" in text
        True
        """
        smry = with_use_t(self.fit, self.use_t).summary(alpha=alpha)
        return add_selection_block(smry, self)

    def summary2(self, alpha: float = 0.05, float_format: str = "%.4f") -> Summary:
        """statsmodels' ``summary2()`` of the refit with the selection tables and notes.

        Parameters
        ----------
        alpha : float, default 0.05
            The coefficients' confidence intervals are at level ``1 - alpha``.
        float_format : str, default "%.4f"
            printf-style format of the numbers.

        Returns
        -------
        statsmodels.iolib.summary2.Summary
            Rendered by ``as_text()``, ``as_html()`` and ``as_latex()``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> text = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).summary2().as_text()
        >>> "Selection method:" in text and "mFDR = E[V]/(E[R] + 1) <= 0.05" in " ".join(text.split())
        True
        """
        return selection_summary2(self, alpha=alpha, float_format=float_format)

    def tidy(self, *, conf_int: bool = True, conf_level: float = 0.95, exponentiate: bool = False) -> pd.DataFrame:
        """broom's ``tidy``: one row per coefficient, with how its term was selected.

        Columns ``term``, ``estimate``, ``std.error``, ``statistic`` (t for least squares, z for
        GLMs, as statsmodels), ``p.value``, ``conf.low``/``conf.high`` (Wald intervals at
        ``conf_level``, statsmodels' ``conf_int``; R's ``confint.default`` for a glm, whereas
        broom's ``tidy.glm`` profiles the likelihood), then ``stream``, ``order``,
        ``selection.p.value`` and ``selection.level`` of the term's selection (missing for
        fixed terms).  ``exponentiate=True`` gives ``exp`` of the estimates and interval ends
        (odds or rate ratios); ``std.error`` stays on the linear-predictor scale, as in broom.
        The refit's p-values and intervals ignore the selection.

        Parameters
        ----------
        conf_int : bool, default True
            Include ``conf.low`` and ``conf.high``.
        conf_level : float, default 0.95
            Level of the intervals.
        exponentiate : bool, default False
            Report ``exp`` of the estimates and interval ends.

        Returns
        -------
        pandas.DataFrame
            One row per coefficient, in the refit's order.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> t = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).tidy()
        >>> t[["term", "stream", "order"]]
                term stream  order
        0  Intercept   None   <NA>
        1         x2     x*      1
        """
        return broom.tidy_frame(self, conf_int=conf_int, conf_level=conf_level, exponentiate=exponentiate)

    def glance(self) -> pd.DataFrame:
        """broom's ``glance``: one row, broom's ``lm`` or ``glm`` columns, then the selection.

        Least squares: ``r.squared``, ``adj.r.squared``, ``sigma``, then the classical overall
        F test of ``summary.lm`` (``statistic``, ``p.value`` and ``df``, its numerator degrees
        of freedom; NaN for the intercept alone), also with a robust ``cov_type``; GLMs:
        ``null.deviance`` and ``df.null`` (R's null model: the intercept, or ``eta = 0``
        without one).  Both: ``logLik``, ``AIC``, ``BIC`` (R's, see :attr:`llf` and
        :attr:`aic`), ``deviance`` (least squares: the residual sum of squares, weighted),
        ``df.residual``, ``nobs``, ``df.model``, then ``tested``, ``selected``, ``method``.

        Returns
        -------
        pandas.DataFrame
            One row.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> list(sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05).glance().columns)[:7]
        ['null.deviance', 'df.null', 'logLik', 'AIC', 'BIC', 'deviance', 'df.residual']
        """
        return broom.glance_frame(self)

    def anova(self, *others: Any, test: str | None = "auto") -> AnovaTable:
        """R's ``anova``: this fit's terms added one at a time, or this fit against nested ones.

        ``fit.anova()`` is R's ``anova(glm, test = )`` (``anova(lm)`` for least squares), the
        deviance explained by each term of the refit in order (fixed terms first, then the
        selected ones); ``fit.anova(other, ...)`` is :func:`streamreg.anova` of this fit and the
        others.  ``test`` as there (``"auto"``: chi-square for a fixed dispersion, else F).
        The p-values ignore the selection, as the refit's do.

        Parameters
        ----------
        *others : StreamRegResults or statsmodels results
            Fits nested with this one (on the same rows and response), in either order.
        test : {"auto", "Chisq", "LRT", "F", "Rao"} or None, default "auto"
            The test of each row, as :func:`streamreg.anova` takes it; None for none.

        Returns
        -------
        AnovaTable
            A DataFrame with R's columns and row names, its ``heading`` and broom's ``tidy()``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> fit = sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05)
        >>> table = fit.anova()
        >>> list(table.index), list(table.columns)
        (['NULL', 'x2'], ['Df', 'Deviance', 'Resid. Df', 'Resid. Dev', 'Pr(>Chi)'])
        >>> bool(np.isclose(table.loc["x2", "Deviance"], fit.null_deviance - fit.deviance))
        True
        """
        return anova(self, *others, test=test)

    def __repr__(self) -> str:
        terms = ", ".join(self.selected_terms) or "none"
        return f"<StreamRegResults: {self.selected_formula!r}; selected {len(self.selected)} ({terms})>"

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickled before the record was public: its fields one by one (with or without _weights, _use_t)
        if "selected_model" not in state:
            state = _record_from_fields(state)
        self.__dict__.update(state)


def _record_from_fields(state: dict[str, Any]) -> dict[str, Any]:
    """The state of results pickled when they copied the selected model's fields into attributes."""
    fit = state["fit"]
    response_label = str(state["selected_formula"]).split(" ~ ", 1)[0]
    weights = state.get("_weights")
    model = SelectedModel(rhs=state["_rhs"], response_label=response_label, response_name=state["response_name"],
                          train=state["_train"], y=np.asarray(fit.model.endog), family=state["family"],
                          derived=state.get("_derived"), functions=state.get("_functions") or {},
                          use_t=state.get("_use_t"),  # absent before use_t=: R's convention
                          **({} if weights is None else {"weights": weights}))
    selection = SelectionRecord(search=state["search"], policy=state["policy"],
                                test_description=state["test_description"], formula=state.get("formula"),
                                success_level=state.get("success_level"), n_dropped=state.get("n_dropped", 0),
                                y_ordered=tuple(state.get("order_used_y", ())), validation=state.get("validation"),
                                missing_by_column=state.get("missing_by_column", {}))
    return {"fit": fit, "selected_model": model, "selection": selection,
            "refit_warnings": list(state.get("refit_warnings", []))}

