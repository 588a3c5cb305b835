"""The prediction methods of :class:`~streamreg.results.StreamRegResults` (computed by
:mod:`.prediction` and :mod:`.broom`).

Each takes new data as a DataFrame or a mapping ``{column: values}`` (a new DataFrame is
built from it: the caller's object is never modified).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import broom, predict_refit, prediction

if TYPE_CHECKING:
    from .record import FittedSelection, SelectedModel

#: what the methods take as new data
NewData = pd.DataFrame | Mapping[str, Any]


def _res(obj: object) -> FittedSelection:
    """The results object as the helpers take it: its selected model, selection record and refit."""
    return obj  # type: ignore[return-value]  # the mixin is only ever part of StreamRegResults


def _model(obj: object) -> SelectedModel:
    return _res(obj).selected_model


class ResultPredictions:
    """``design``, ``predict``, ``get_prediction``, ``model_frame`` and ``augment``."""

    def design(self, newdata: NewData) -> pd.DataFrame:
        """The refit's design matrix coded on ``newdata`` (training factor levels).

        ``newdata`` (a DataFrame or a dict of columns) needs the columns the selected terms
        use (and the source columns of generated components); a missing value in them is an
        error here (:meth:`predict` gives NaN for such rows instead).

        Parameters
        ----------
        newdata : DataFrame or dict
            The columns the selected terms use (``{column: values}`` builds a DataFrame).

        Returns
        -------
        pandas.DataFrame
            The design: one column per coefficient of the refit, labelled by the rows of
            ``newdata``.

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
        model = _model(self)
        frame = prediction.as_frame(model, newdata)
        prediction.check_newdata(model, frame)
        return model.design(frame)

    def predict(self, newdata: NewData | Any | None = None, *, which: str | None = None, linear: bool | None = None,
                transform: bool = True, offset: Any = None, exposure: Any = None) -> pd.Series:
        """Predicted mean (or linear predictor) for ``newdata``; the training rows if None.

        Parameters
        ----------
        newdata : DataFrame or dict, optional
            The columns the model uses, as a DataFrame or a dict ``{column: values}`` (a
            new DataFrame is built from it).  Rows with a missing value in one of them are
            predicted as NaN, as statsmodels' ``predict`` does, and so are rows on which a
            selected term is NaN or infinite (``np.log(x)`` where ``x <= 0``); the others
            as usual.
        which : {"mean", "linear"}, optional
            The scale, as in statsmodels' ``GLMResults.predict``; the mean by default.
        linear : bool, optional
            ``True`` is ``which="linear"`` (give one of them, or both agreeing).
        transform : bool
            As statsmodels' ``predict``: True (the default) codes ``newdata`` through the
            model's formula; False takes ``newdata`` as the design matrix itself (an array or
            DataFrame with one column per coefficient, as :meth:`design` gives it), and an
            offset or exposure only as values passed here.
        offset, exposure : array, number or str, optional
            One value per row, a number, or a column name of ``newdata``; they enter the
            linear predictor as in statsmodels' ``GLMResults.predict(exog, offset=,
            exposure=)``.  When not given, the model's own are used on its rows, and on new
            data the column the option was fitted with (statsmodels' defaults, offset 0 and
            exposure 1, when it was fitted with an array).  Only for GLM refits
            (non-Gaussian families, or least squares fitted with an offset or frequency
            weights).

        Returns
        -------
        Series
            Named ``prediction``, labelled by the rows of ``newdata``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> new = pd.DataFrame({"x2": [0.0, np.nan, 1.0]})
        >>> fit.predict(new).round(3).tolist()
        [0.056, nan, 1.073]
        >>> fit.predict({"x2": [0.0, 1.0]}, which="linear").round(3).tolist()
        [0.056, 1.073]
        >>> fit.predict(fit.design(new.dropna()), transform=False).round(3).tolist()
        [0.056, 1.073]
        """
        res = _res(self)
        scale = prediction.linear_scale(linear, which)
        rows = self._rows(newdata, predict_refit.check_transform(transform))
        return predict_refit.predict_values(res, rows, linear=scale, transform=transform, offset=offset,
                                            exposure=exposure)

    def get_prediction(self, newdata: NewData | Any | None = None, *, which: str | None = None,
                       linear: bool | None = None, transform: bool = True, offset: Any = None,
                       exposure: Any = None) -> Any:
        """statsmodels' prediction results on ``newdata`` (the refit's rows if None).

        What ``smf.ols(...).fit().get_prediction(newdata)`` or
        ``smf.glm(...).fit().get_prediction(newdata)`` of the refit formula returns: the
        refit's own ``get_prediction`` on the design of ``newdata``, with standard errors and
        intervals of the mean (``summary_frame(alpha=)``, ``predicted_mean``; least squares
        also gives prediction intervals for new observations, ``obs_ci_lower``/``obs_ci_upper``).
        For a GLM ``which`` is statsmodels': without it the ``summary_frame()`` columns are
        ``mean``, ``mean_se``, ``mean_ci_lower``, ``mean_ci_upper`` (the mean's interval computed
        on the link scale and transformed); ``which="mean"`` or ``"linear"`` (or ``linear=True``)
        give statsmodels' newer class (``predicted``, ``se``, ``ci_lower``, ``ci_upper``).  Rows
        labelled by the index of ``newdata``; rows with missing values are NaN.  The intervals
        ignore the selection.

        Parameters
        ----------
        newdata : DataFrame or dict, optional
            As in :meth:`predict`; the refit's rows if None.
        which : {"mean", "linear"}, optional
            statsmodels' ``which``: None (the default) gives statsmodels' default prediction
            results of the mean; ``"mean"`` or ``"linear"`` its newer class on that scale.
        linear : bool, optional
            ``True`` is ``which="linear"``.
        transform : bool, default True
            As in :meth:`predict`: False takes ``newdata`` as the design matrix.
        offset, exposure : array, number or str, optional
            As in :meth:`predict`.

        Returns
        -------
        statsmodels prediction results
            Their ``summary_frame(alpha=)`` gives the predictions, standard errors and
            intervals.

        Examples
        --------
        >>> import numpy as np, pandas as pd, streamreg as sr
        >>> df = sr.datasets.make_synthetic(100, 3, 1, noise=1.0, seed=0).data  # y = x2 + noise
        >>> fit = sr.streamreg("y ~ stream(x*)", df, w0=0.05, alpha_delta=0.05)
        >>> frame = fit.get_prediction(pd.DataFrame({"x2": [0.0, 1.0]})).summary_frame(alpha=0.05)
        >>> list(frame.columns)
        ['mean', 'mean_se', 'mean_ci_lower', 'mean_ci_upper', 'obs_ci_lower', 'obs_ci_upper']
        >>> logit = sr.streamreg("y ~ stream(x*)", df.assign(y=df.y > 0), family="binomial")
        >>> list(logit.get_prediction({"x2": [0.0, 1.0]}).summary_frame().columns)
        ['mean', 'mean_se', 'mean_ci_lower', 'mean_ci_upper']
        """
        res = _res(self)
        scale = predict_refit.statsmodels_which(linear, which)
        rows = self._rows(newdata, predict_refit.check_transform(transform))
        return predict_refit.get_prediction(res, rows, which=scale, transform=transform, offset=offset,
                                            exposure=exposure)

    def _rows(self, newdata: object, transform: bool) -> object:
        """New data as the prediction takes it: a DataFrame of data columns, or the design itself."""
        return prediction.as_newdata(_model(self), newdata) if transform else newdata

    def model_frame(self, newdata: NewData | None = None) -> pd.DataFrame:
        """The data the refit sees (R's ``model.frame``): response and columns the terms use.

        Generated columns (``pca()`` components) are included, so
        ``smf.glm(fit.selected_formula, fit.model_frame(), family=...)`` (or ``smf.ols``)
        refits the selected model and finds ``params``.  With ``newdata``, the same columns
        built on it (components from the stored training loadings; rows kept as they are).
        Terms that call ``functions=`` need those functions in the scope where statsmodels
        evaluates the formula.

        Parameters
        ----------
        newdata : DataFrame or dict, optional
            Build the frame on these rows instead of the refit's.

        Returns
        -------
        pandas.DataFrame
            The response (when present) and the columns the selected terms use.

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
        model = _model(self)
        return prediction.model_frame(model, prediction.as_newdata(model, newdata))

    def augment(self, newdata: NewData | None = None, *, type_predict: str = "link",
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

        Parameters
        ----------
        newdata : DataFrame or dict, optional
            New rows; the refit's rows (with every diagnostic) if None.
        type_predict : {"link", "response"}, default "link"
            Scale of ``.fitted``.
        type_residuals : {"deviance", "pearson"}, default "deviance"
            Kind of ``.resid``.
        se_fit : bool, default False
            Add ``.se.fit``, the standard error of ``.fitted``.

        Returns
        -------
        pandas.DataFrame
            The model frame (or ``newdata``) with the columns above appended.

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
        return broom.augment_frame(_res(self), prediction.as_newdata(_model(self), newdata), type_predict=type_predict,
                                   type_residuals=type_residuals, se_fit=se_fit)
