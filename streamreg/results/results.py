"""StreamRegResults: the final refit plus the whole selection story."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import pandas as pd

from ..models.families import family_name, spec_of
from ..search.decoys import DecoyReport
from . import broom
from .fitstats import information_criteria
from .inference import default_use_t, with_use_t
from .plot_methods import ResultPlots
from .predict_methods import ResultPredictions
from .summary import StreamRegSummary, add_selection_block

if TYPE_CHECKING:
    from statsmodels.iolib.summary import Summary

    from ..models.base import ObservationWeights
    from .selected import SelectedModel, SelectionRecord


class StreamRegResults(ResultPredictions, ResultPlots):
    """Results of a streamwise selection, read like statsmodels results.

    Attributes
    ----------
    fit : statsmodels OLSResults or GLMResults
        The final refit of fixed + selected terms (a real statsmodels object).
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
    0      1   x2     x*     2
    >>> fit.params.round(3)
    Intercept    0.056
    x2           1.017
    dtype: float64
    """

    #: the refit's offset and weights, set by ``fit_selected`` (absent from older pickles)
    _weights: ObservationWeights | None
    #: the ``use_t=`` of the call, set by ``fit_selected`` (None: R's convention; absent from older pickles)
    _use_t: bool | None

    def __init__(self, *, model: SelectedModel, selection: SelectionRecord, fit: Any,
                 refit_warnings: list[str] | None = None) -> None:
        self.fit = fit
        #: problems statsmodels reported when refitting the selected terms (plain language)
        self.refit_warnings = list(refit_warnings or [])
        search = selection.search
        self.search = search
        self._history: pd.DataFrame | None = None  # the search's history as the rule explains it, built on first access
        self.history_mode = getattr(search, "history_mode", "full")
        self.stopped_by = search.stopped_by
        self.formula = selection.formula
        self.selected_formula = f"{model.response_label} ~ {model.rhs}"
        self.response_name = model.response_name
        self.success_level = selection.success_level
        self.family = model.family  # a statsmodels family object: results branch on it, never on a name
        self.policy = selection.policy
        self.policy_description = selection.policy.describe()
        self.test_description = selection.test_description
        self.n_dropped = selection.n_dropped
        self.missing_by_column = dict(selection.missing_by_column)  # why those rows were dropped
        self._rhs = model.rhs
        self._train = model.train
        self.validation = selection.validation  # sample-splitting sizes, None when selected and refit on the same rows
        self._derived = model.derived  # generated-term state (PCA loadings, transforms) for new data
        self._functions = dict(model.functions)  # the formula's functions the terms call
        self.order_used_y = list(selection.y_ordered)  # streams ordered by a y-dependent score

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
        return self.search.selected

    @property
    def per_stream(self) -> pd.DataFrame:
        """Candidates tested, terms selected and final wealth per stream (built on first access)."""
        return self.search.per_stream

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
        if self._history is None:
            # a started policy explains the history (its columns may depend on n_obs);
            # the methods with their own loop have none and explain their own
            started = next(iter(self.search.policies.values()), None)
            history = self.search.history
            self._history = started.annotate(history) if started is not None else history
        return self._history

    # statsmodels-style accessors -------------------------------------------------
    @property
    def params(self) -> pd.Series:
        return self.fit.params

    @property
    def bse(self) -> pd.Series:
        return self.fit.bse

    @property
    def use_t(self) -> bool:
        """Whether :attr:`pvalues` (and the summaries, ``tidy()``, ``compare()``) use t on the residual df.

        R's convention unless ``use_t=`` was given: t when the family estimates its dispersion
        (Gaussian, Gamma, inverse Gaussian, Tweedie, quasi) and the covariance is the model's,
        as R's ``summary.glm``; the normal for binomial, Poisson and negative binomial fits and
        for robust covariances (statsmodels' default).  ``.fit`` keeps statsmodels' own choice.
        """
        chosen = getattr(self, "_use_t", None)  # absent from older pickles
        if chosen is None:
            chosen = default_use_t(self.family, str(getattr(self.fit, "cov_type", "nonrobust")) != "nonrobust")
        return bool(chosen)

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of the coefficients: t or normal as :attr:`use_t` says.

        Examples
        --------
        >>> import numpy as np, pandas as pd, statsmodels.api as sm, streamreg as sr
        >>> from scipy import stats
        >>> rng = np.random.default_rng(0)
        >>> d = pd.DataFrame({"x": rng.normal(size=40), "z": rng.normal(size=40)})
        >>> d["y"] = rng.gamma(2.0, np.exp(0.3 * d.x) / 2.0)
        >>> fit = sr.streamreg("y ~ x + stream(z)", d, family=sm.families.Gamma(sm.families.links.Log()),
        ...                    max_tests=0)
        >>> t = 2 * stats.t.sf(np.abs(fit.tvalues), fit.fit.df_resid)  # R's summary.glm
        >>> fit.use_t, bool(np.allclose(fit.pvalues, t)), bool(np.allclose(fit.fit.pvalues, t))
        (True, True, False)
        """
        return with_use_t(self.fit, self.use_t).pvalues

    @property
    def tvalues(self) -> pd.Series:
        return self.fit.tvalues

    @property
    def nobs(self) -> int:
        return int(self.fit.nobs)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Confidence intervals of the refit's coefficients at level ``1 - alpha`` (statsmodels').

        They ignore the selection (see :meth:`summary`).

        Parameters
        ----------
        alpha : float, default 0.05
            One minus the confidence level.

        Returns
        -------
        pandas.DataFrame
            One row per coefficient, the lower and upper ends in columns 0 and 1.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).conf_int().round(3)
                       0      1
        Intercept -0.131  0.243
        x2         0.811  1.223
        """
        return self.fit.conf_int(alpha=alpha)

    @property
    def llf(self) -> float:
        """R's ``logLik()`` of the refit (:func:`~streamreg.results.fitstats.r_loglik`).

        statsmodels' ``llf`` (``.fit.llf``) for least squares, binomial, Poisson and negative
        binomial fits, where the two agree, except for grouped binomial data (proportions with
        the trials as ``var_weights``), where R keeps the binomial coefficients that statsmodels'
        ``llf`` leaves out.  For a GLM whose family estimates a dispersion
        (Gamma, inverse Gaussian, Gaussian with another link) R plugs in ``deviance / n``
        where statsmodels plugs in the Pearson estimate, so the two differ; Tweedie fits keep
        statsmodels' (R has none).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> rss = float(np.sum(fit.resid**2))
        >>> bool(np.isclose(fit.llf, -50 * (np.log(2 * np.pi * rss / 100) + 1)))
        True
        """
        return information_criteria(self.fit, self.family).llf

    @property
    def aic(self) -> float:
        """R's ``AIC()``: ``-2 llf + 2 df``, the dispersion counted in ``df`` when it is estimated.

        ``llf`` is R's ``logLik`` (:attr:`llf`).  For least squares ``df`` is the rank plus one
        for sigma, so this is statsmodels' ``fit.aic + 2`` and equals R's ``AIC(lm(...))``;
        binomial and Poisson fits have no dispersion and both agree.  For other families with
        a dispersion statsmodels' ``llf`` also differs (see :attr:`llf`).  statsmodels' own
        number is ``.fit.aic``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> float(fit.aic - fit.fit.aic), bool(np.isclose(fit.aic, -2 * fit.llf + 2 * (2 + 1)))
        (2.0, True)
        """
        return information_criteria(self.fit, self.family).aic

    @property
    def bic(self) -> float:
        """R's ``BIC()``: ``-2 llf + log(n) df``, the dispersion counted as in :attr:`aic`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.isclose(fit.bic - fit.fit.bic, np.log(100)))
        True
        """
        return information_criteria(self.fit, self.family).bic

    @property
    def theta(self) -> float | None:
        """The negative binomial's estimated theta (R's ``glm.nb`` ``fit$theta``); None for other families.

        Examples
        --------
        >>> import pandas as pd, streamreg as sr
        >>> d = pd.DataFrame({"k": [0, 3, 1, 7, 0, 2, 12, 1, 0, 5], "x": range(10)})
        >>> fit = sr.streamreg("k ~ stream(x)", d, family="negbin", max_tests=0)
        >>> round(fit.theta, 4), round(fit.theta_se, 4)  # R: glm.nb(k ~ 1, d)$theta, $SE.theta
        (0.7255, 0.4537)
        """
        estimate = getattr(self.family, "estimate", None)
        return None if estimate is None else float(estimate.theta)

    @property
    def theta_se(self) -> float | None:
        """The standard error of :attr:`theta` (R's ``fit$SE.theta``); None for other families."""
        estimate = getattr(self.family, "estimate", None)
        return None if estimate is None else float(estimate.se)

    @property
    def fittedvalues(self) -> pd.Series:
        """Fitted means on the refit's rows (statsmodels' ``fittedvalues``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> bool(np.allclose(fit.fittedvalues + fit.resid, df["y"]))
        True
        """
        return pd.Series(np.asarray(self.fit.fittedvalues, dtype=float), index=self._train.index, name="fitted")

    @property
    def resid(self) -> pd.Series:
        """Response residuals ``y - fittedvalues`` on the refit's rows.

        statsmodels' ``resid`` for least squares and ``resid_response`` for a GLM (R's
        ``residuals(fit, "response")``); the deviance and Pearson residuals are in
        :meth:`augment` and on ``.fit`` (``resid_deviance``, ``resid_pearson``).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> fit = sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05)
        >>> bool(np.allclose(fit.resid, df["y"] - fit.predict()))
        True
        """
        values = self.fit.resid if spec_of(self.family).least_squares else self.fit.resid_response
        return pd.Series(np.asarray(values, dtype=float), index=self._train.index, name="resid")

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the coefficients, labelled by name (statsmodels' ``cov_params()``).

        Returns
        -------
        pandas.DataFrame
            Square, rows and columns named by the coefficients.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> cov = fit.cov_params()
        >>> list(cov.columns), bool(np.allclose(np.sqrt(np.diag(cov)), fit.bse))
        (['Intercept', 'x2'], True)
        """
        names = list(self.params.index)
        return pd.DataFrame(np.asarray(self.fit.cov_params(), dtype=float), index=names, columns=names)

    @property
    def model(self) -> NoReturn:
        """Not available: a streamreg result is not a statsmodels model's result.

        statsmodels' ``summary_col`` reads ``results.model``; pass the refits,
        ``summary_col([f.fit for f in fits])``, or use :func:`streamreg.compare`, which adds
        the selection rows.  Raises AttributeError (so ``hasattr(fit, "model")`` is False).

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.model
        Traceback (most recent call last):
        ...
        AttributeError: StreamRegResults has no 'model': it is not a statsmodels result. ...
        """
        raise AttributeError(
            "StreamRegResults has no 'model': it is not a statsmodels result. For statsmodels' "
            "summary_col pass the refits, summary_col([f.fit for f in fits]), or use "
            "streamreg.compare(fits), which adds the selection rows")

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
        mFDR = E[V]/(E[R] + 1) <= 0.05 (V false, R all selections), valid when each null p-value is super-uniform given the past tests; with no signal in the stream, P(any selection) <= w0 = 0.05. Streamwise p-values come from nested fits to one response and are not independent, so this is approximate here. Bids spread evenly over each stream's tests (its candidates times passes, at most max_tests); a stream of unknown length keeps the decaying sequence.
        """
        text = self.policy.guarantee()
        if self.test_description.startswith("paper 000 code"):
            # exp(-dRSS / (2 RSS0 / n)) is super-uniform only while k/n is small (anti-conservative beyond)
            text += (" CAVEAT: test='paper' computes p = exp(-dRSS / (2 RSS0 / n)), which is a valid p-value "
                     "only while the model is small against n; with many terms it admits more null terms than "
                     "its level, and the bound above may fail (test='t' is exact).")
        if self.order_used_y:
            text += (f" VOID here: the order of stream(s) {self.order_used_y} was chosen by a "
                     "screening score that looked at the response, so the candidates were not "
                     "generated independently of y and the wealth guarantee does not apply.")
        return text

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
        >>> round(fit.false_selection_estimate(), 4)  # 0.05 * 1 + 0.05 - final wealth
        0.0663
        >>> round(0.05 * 1 + 0.05 - float(fit.per_stream["final_wealth"].sum()), 4)
        0.0663
        """
        w_final = float(np.nansum(self.per_stream["final_wealth"]))
        return self.policy.false_selection_estimate(len(self.selected), w_final)

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
        >>> "Selection method: alpha-investing(w0=0.05, alpha_delta=0.05, spending=uniform)" in text
        True
        >>> "Tests (all passes): 7, re-offers counted (3 passes)" in text and "not valid post-selection p-values" in text
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
        >>> "Selection method:" in text and "mFDR = E[V]/(E[R] + 1) <= 0.05" in text
        True
        """
        from .summary2 import selection_summary2

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

    def __repr__(self) -> str:
        terms = ", ".join(self.selected_terms) or "none"
        return f"<StreamRegResults: {self.selected_formula!r}; selected {len(self.selected)} ({terms})>"

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.pop("selected", None)  # older pickles kept copies of the search's tables
        state.pop("per_stream", None)
        self.__dict__.update(state)

