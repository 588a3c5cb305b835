"""StreamRegResults: the final refit plus the whole selection story."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import pandas as pd

from ..formula.design import design_matrix
from ..models import is_ols
from . import broom, prediction
from .fitstats import information_criteria
from .summary import StreamRegSummary, add_selection_block

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from statsmodels.iolib.summary import Summary

    from ..models.base import ObservationWeights
    from .selected import SelectedModel, SelectionRecord


class StreamRegResults:
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
    model and the record of its selection (keyword-only ``model``, ``selection``, ``fit``
    and ``refit_warnings``).

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

    def __init__(self, *, model: SelectedModel, selection: SelectionRecord, fit: Any,
                 refit_warnings: list[str] | None = None) -> None:
        self.fit = fit
        #: problems statsmodels reported when refitting the selected terms (plain language)
        self.refit_warnings = list(refit_warnings or [])
        search = selection.search
        self.search = search
        self.selected = search.selected
        self._history: pd.DataFrame | None = None  # the search's history as the rule explains it, built on first access
        self.per_stream = search.per_stream
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
        self._rhs = model.rhs
        self._train = model.train
        self.validation = selection.validation  # sample-splitting sizes, None when selected and refit on the same rows
        self._derived = model.derived  # generated-term state (PCA loadings, transforms) for new data
        self._functions = dict(model.functions)  # the formula's functions the terms call
        self.order_used_y = list(selection.y_ordered)  # streams ordered by a y-dependent score

    @property
    def family_name(self) -> str:
        """The family's class name in lower case (``"gaussian"``, ``"binomial"``, ...), for display."""
        return type(self.family).__name__.lower()

    @property
    def history_kept(self) -> bool:
        """False when the call had ``history="none"``: only accepted and refused rows were kept."""
        return self.history_mode != "none"

    @property
    def history(self) -> pd.DataFrame:
        """One row per candidate examined (built on first access for long streams).

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
    def pvalues(self) -> pd.Series:
        return self.fit.pvalues

    @property
    def tvalues(self) -> pd.Series:
        return self.fit.tvalues

    @property
    def nobs(self) -> int:
        return int(self.fit.nobs)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Confidence intervals of the refit's coefficients at level ``1 - alpha`` (statsmodels').

        They ignore the selection (see :meth:`summary`).

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
        """Log-likelihood of the refit (statsmodels' ``llf``; R's ``logLik`` for least squares,
        binomial and Poisson fits).

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> rss = float(np.sum(fit.resid**2))
        >>> bool(np.isclose(fit.llf, -50 * (np.log(2 * np.pi * rss / 100) + 1)))
        True
        """
        return float(self.fit.llf)

    @property
    def aic(self) -> float:
        """R's ``AIC()``: ``-2 llf + 2 df``, the dispersion counted in ``df`` when it is estimated.

        For least squares ``df`` is the rank plus one for sigma, so this is statsmodels'
        ``fit.aic + 2`` and equals R's ``AIC(lm(...))``; binomial and Poisson fits have no
        dispersion and both agree.  (For other families with a dispersion, statsmodels'
        ``llf`` plugs in the Pearson estimate where R uses ``deviance / n``.)  statsmodels'
        own number is ``.fit.aic``.

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
        values = self.fit.resid if is_ols(self.family) else self.fit.resid_response
        return pd.Series(np.asarray(values, dtype=float), index=self._train.index, name="resid")

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the coefficients, labelled by name (statsmodels' ``cov_params()``).

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

    # prediction --------------------------------------------------------------
    def design(self, newdata: pd.DataFrame) -> pd.DataFrame:
        """The refit's design matrix coded on ``newdata`` (training factor levels).

        ``newdata`` needs the columns the selected terms use (and the source columns of
        generated components); a missing value in them is an error here (:meth:`predict`
        gives NaN for such rows instead).

        Examples
        --------
        >>> import pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.design(pd.DataFrame({"x2": [0.5, 2.0]}))
           Intercept   x2
        0        1.0  0.5
        1        1.0  2.0
        """
        prediction.check_newdata(self, newdata)
        return self._design(newdata)

    def _design(self, newdata: pd.DataFrame) -> pd.DataFrame:
        # _functions is missing from results pickled before functions= reached every term
        return design_matrix(self._rhs, self._train, newdata, self._derived, getattr(self, "_functions", None))

    def predict(self, newdata: pd.DataFrame | None = None, *, linear: bool = False) -> pd.Series:
        """Predicted mean (or linear predictor) for ``newdata``; the training rows if None.

        Rows of ``newdata`` with a missing value in a column the model uses are predicted as
        NaN, as statsmodels' ``predict`` does; the others as usual.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> new = pd.DataFrame({"x2": [0.0, np.nan, 1.0]})
        >>> fit.predict(new).round(3).tolist()
        [0.056, nan, 1.073]
        """
        return prediction.predict_values(self, newdata, linear=linear)

    def get_prediction(self, newdata: pd.DataFrame | None = None, *, linear: bool = False) -> Any:
        """statsmodels' prediction results on ``newdata`` (the refit's rows if None).

        Delegates to the refit's ``get_prediction`` on the design of ``newdata``: standard
        errors and intervals of the mean (``summary_frame(alpha=)``; least squares also gives
        prediction intervals for new observations, ``obs_ci_lower``/``obs_ci_upper``).  For a
        GLM the mean's interval is computed on the link scale and transformed;
        ``linear=True`` predicts the linear predictor.  Rows labelled by the index of
        ``newdata``; rows with missing values are NaN.  The intervals ignore the selection.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> frame = fit.get_prediction(pd.DataFrame({"x2": [0.0, 1.0]})).summary_frame(alpha=0.05)
        >>> list(frame.columns)
        ['mean', 'mean_se', 'mean_ci_lower', 'mean_ci_upper', 'obs_ci_lower', 'obs_ci_upper']
        """
        return prediction.get_prediction(self, newdata, linear=linear)

    def model_frame(self, newdata: pd.DataFrame | None = None) -> pd.DataFrame:
        """The data the refit sees (R's ``model.frame``): response and columns the terms use.

        Generated columns (``pca()`` components) are included, so
        ``smf.glm(fit.selected_formula, fit.model_frame(), family=...)`` (or ``smf.ols``)
        refits the selected model and finds ``params``.  With ``newdata``, the same columns
        built on it (components from the stored training loadings; rows kept as they are).
        Terms that call ``functions=`` need those functions in the scope where statsmodels
        evaluates the formula.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> import statsmodels.formula.api as smf
        >>> rng = np.random.default_rng(0)
        >>> df = pd.DataFrame(rng.normal(size=(100, 3)), columns=["x1", "x2", "x3"])
        >>> df["y"] = df["x1"] + df["x2"] + rng.normal(size=100)
        >>> fit = sr.streamreg("y ~ pca(x*, k=2)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.selected_formula
        'y ~ 1 + pca_1 + pca_2'
        >>> ref = smf.ols(fit.selected_formula, fit.model_frame()).fit()
        >>> bool(np.allclose(ref.params, fit.params, rtol=1e-12))
        True
        """
        return prediction.model_frame(self, newdata)

    def augment(self, newdata: pd.DataFrame | None = None, *, type_predict: str = "link",
                type_residuals: str = "deviance", se_fit: bool = False) -> pd.DataFrame:
        """broom's ``augment``: the model frame (or ``newdata``) with fitted values and diagnostics.

        Defaults are broom's ``augment.glm``: ``.fitted`` on the link scale
        (``type_predict="link"``; ``"response"`` for the mean -- the same for least squares),
        deviance residuals (``type_residuals="deviance"`` or ``"pearson"``), and ``.se.fit``
        only with ``se_fit=True``.  On the refit's rows (``newdata=None``) the columns are
        ``.fitted``, ``.se.fit``, ``.resid``, ``.std.resid``, ``.hat``, ``.sigma``, ``.cooksd``
        with R's definitions (``rstandard``, ``influence``, ``cooks.distance``); on new data
        ``.fitted`` and ``.se.fit``, plus ``.resid`` for least squares when the response is
        there.  Rows with missing values get NaN.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> fit = sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05)
        >>> list(fit.augment(se_fit=True).columns)
        ['y', 'x2', '.fitted', '.se.fit', '.resid', '.std.resid', '.hat', '.sigma', '.cooksd']
        >>> fit.augment(pd.DataFrame({"x2": [0.0]}), type_predict="response")[".fitted"].round(3).tolist()
        [0.518]
        """
        return broom.augment_frame(self, newdata, type_predict=type_predict, type_residuals=type_residuals,
                                   se_fit=se_fit)

    # the selection story ----------------------------------------------------------
    def guarantee(self) -> str:
        """What the rule guarantees, under which assumption (statistics.md section 1).

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> print(sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).guarantee())
        mFDR = E[V]/(E[R] + 1) <= 0.05 (V false, R all selections), valid when each null p-value is super-uniform given the past tests.
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

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> round(fit.false_selection_estimate(), 4)  # 0.05 * 1 + 0.05 - final wealth
        0.0427
        >>> round(0.05 * 1 + 0.05 - float(fit.per_stream["final_wealth"].sum()), 4)
        0.0427
        """
        w_final = float(np.nansum(self.per_stream["final_wealth"]))
        return self.policy.false_selection_estimate(len(self.selected), w_final)

    def summary(self, alpha: float = 0.05) -> StreamRegSummary:
        """statsmodels ``Summary`` with the selection block above the coefficients.

        Its ``as_text()``, ``as_html()`` and ``as_latex()`` render it; the notes say what
        the rule guarantees and that the refit's p-values ignore the selection.

        Examples
        --------
        >>> import streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> text = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05).summary().as_text()
        >>> "Selection method:   alpha-investing(w0=0.05, alpha_delta=0.05)" in text
        True
        >>> "Candidates tested:  3" in text and "not valid post-selection p-values" in text
        True
        """
        smry = self.fit.summary(alpha=alpha)
        return add_selection_block(smry, self)

    def summary2(self, alpha: float = 0.05, float_format: str = "%.4f") -> Summary:
        """statsmodels' ``summary2()`` of the refit with the selection tables and notes.

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

        Least squares: ``r.squared``, ``adj.r.squared``, ``sigma``; GLMs: ``null.deviance``,
        ``df.null`` (R's null model: the intercept, or ``eta = 0`` without one) and
        ``deviance``.  Both: ``logLik``, ``AIC``, ``BIC`` (R's, see :attr:`aic`),
        ``df.residual``, ``nobs``, ``df.model``, then ``tested``, ``selected``, ``method``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data.assign(y=lambda d: d.y > 0)
        >>> list(sr.streamreg("y ~ stream(x*)", df, family="binomial", w0=0.05, alpha_delta=0.05).glance().columns)[:7]
        ['null.deviance', 'df.null', 'logLik', 'AIC', 'BIC', 'deviance', 'df.residual']
        """
        return broom.glance_frame(self)

    # plots -----------------------------------------------------------------------
    def plot_wealth(self, ax: Axes | None = None) -> Axes:
        """Wealth per stream against the test index; returns the Axes.

        With ``history="none"`` the wealth was kept at the acceptances only: those points
        are plotted (joined per stream) and the title says so.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> ax = fit.plot_wealth(ax=Figure().subplots())
        >>> ax.get_xlabel(), ax.get_ylabel()
        ('test', 'wealth')
        """
        import matplotlib.pyplot as plt

        ax = ax or plt.gca()
        w = self.wealth
        if self.history_kept:
            for col in w.columns:
                ax.step(w.index.astype(float), w[col].to_numpy(), where="post", label=str(col))
        else:
            kept = self.history[self.history["test"].notna()]
            for name, rows in kept.groupby("stream", sort=False):
                ax.plot(rows["test"].astype(float), rows["wealth"].to_numpy(dtype=float), ls=":", marker=".",
                        label=str(name))
            ax.set_title("history='none': wealth at acceptances only (the path between them was not kept)",
                         fontsize="small")
        sel = self.selected
        if len(sel):
            ax.scatter(sel["test"], sel["wealth"], marker="o", color="k", zorder=3, label="selected")
        ax.set_xlabel("test")
        ax.set_ylabel("wealth")
        ax.legend(loc="best", fontsize="small")
        return ax

    def plot_pvalues(self, ax: Axes | None = None) -> Axes:
        """p-values of every test (log scale) against the level in force; returns the Axes.

        Needs the full history: raises ValueError after ``history="none"``.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> ax = fit.plot_pvalues(ax=Figure().subplots())
        >>> ax.get_ylabel(), ax.get_yscale()
        ('p-value', 'log')
        """
        if not self.history_kept:
            raise ValueError("plot_pvalues needs the p-value of every test, but the history was not kept "
                             f"(history='none'; only the {len(self.history)} selected and refused terms are "
                             "recorded): rerun with history='full' to plot it")
        from .plots import pvalue_plot

        return pvalue_plot(self, ax=ax)

    def plot_selection_path(self, ax: Axes | None = None) -> Axes:
        """Wealth and level of each stream along the tests, acceptances marked; returns the Axes.

        See :func:`streamreg.results.plots.selection_path_plot`.

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> fit.plot_selection_path(ax=Figure().subplots()).get_yscale()
        'log'
        """
        from .plots import selection_path_plot

        return selection_path_plot(self, ax=ax)

    def plot_coefficients(self, ax: Axes | None = None, *, alpha: float = 0.05, intercept: bool = False) -> Axes:
        """Refit estimates with their nominal ``1 - alpha`` intervals; returns the Axes.

        See :func:`streamreg.results.plots.coefficient_plot` (the intervals ignore the selection).

        Examples
        --------
        >>> import streamreg as sr
        >>> from matplotlib.figure import Figure
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> [t.get_text() for t in fit.plot_coefficients(ax=Figure().subplots()).get_yticklabels()]
        ['x2']
        """
        from .plots import coefficient_plot

        return coefficient_plot(self, ax=ax, alpha=alpha, intercept=intercept)

    def __repr__(self) -> str:
        terms = ", ".join(self.selected_terms) or "none"
        return f"<StreamRegResults: {self.selected_formula!r}; selected {len(self.selected)} ({terms})>"

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

