"""A scikit-learn feature selector around :func:`streamreg.select`.

scikit-learn is an optional dependency (``pip install "streamreg[sklearn]"``); this module
imports it, ``import streamreg`` does not.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

try:
    from sklearn.base import BaseEstimator
    from sklearn.feature_selection import SelectorMixin
    from sklearn.utils.validation import check_is_fitted
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "streamreg.sklearn needs scikit-learn: pip install 'streamreg[sklearn]' (or pip install scikit-learn)"
    ) from exc

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - scikit-learn 1.4 and 1.5
    def _validate_data(estimator: Any, /, X: Any, y: Any = "no_validation", **kwargs: Any) -> Any:
        return estimator._validate_data(X, y, **kwargs)

from .api import select

__all__ = ["StreamwiseSelector"]

#: families whose response is 0/1 (or two levels): scikit-learn's regression targets do not fit them
_BINARY_FAMILIES = {"binomial", "logit", "probit"}


class StreamwiseSelector(SelectorMixin, BaseEstimator):
    """Streamwise feature selection as a scikit-learn transformer.

    ``fit(X, y)`` offers the columns of ``X`` to :func:`streamreg.select` in their order
    (one stream) and keeps the columns it selects; ``transform`` returns them.  The fit's
    :class:`~streamreg.StreamRegResults` (the statsmodels refit, the history, the summary)
    are ``results_``.  Usable in a :class:`~sklearn.pipeline.Pipeline` and in
    :class:`~sklearn.model_selection.GridSearchCV` over the rule's options (a downstream
    estimator gives the score).

    Parameters
    ----------
    family : str or statsmodels family, default "gaussian"
        The GLM family, as in :func:`streamreg.select` (``"binomial"`` needs a 0/1 or
        two-level ``y``).
    method : str or Policy, optional
        The selection rule; ``None`` is the package default (alpha-investing with
        ``w0 = alpha_delta = 0.05`` and uniform spending, over 3 passes).
    method_options : dict, optional
        The rule's options, e.g. ``{"w0": 0.05, "alpha_delta": 0.05}``; passed to
        :func:`streamreg.select` as keyword arguments.  A dict, so that
        ``GridSearchCV`` can search over it.
    passes : int, optional
        Passes over the columns (``None``: 3 with the default rule, 1 with a named method).
    test : str, optional
        Candidate test (``"t"``, ``"paper"``, ``"score"``, ``"score-f"``, ``"lr"``; ``None``
        picks the family's default).
    block_size : int, default 512
        Candidates read at a time.
    max_tests, max_selected : int, optional
        Stop after this many tests or selected columns.
    time_budget : float, optional
        Stop after this many seconds.
    order : str or callable, optional
        Order in which the columns are offered (``"given"``, ``"variance"``, ``"random"``,
        ...), as in :func:`streamreg.select`.
    seed : int, optional
        Seed of a random order (streamreg's name for ``random_state``).
    intercept : bool, default True
        Whether the model has an intercept.

    Attributes
    ----------
    support_ : ndarray of bool, one per input column
        Which input columns were selected.
    selected_ : list of str
        The selected columns' names (``feature_names_in_`` or ``x0, x1, ...``), in the
        order the rule accepted them.
    results_ : StreamRegResults
        What :func:`streamreg.select` returned for the same data and options.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        The column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    streamreg.select : the function this selector calls.

    Notes
    -----
    ``X`` is validated the scikit-learn way (numeric, finite, 2-D, at least one row and
    column) and converted to floats; a DataFrame's columns keep their names in
    ``results_``.  The rule's guarantee (``results_.guarantee``) is about the search on the
    data given to ``fit``; inference after selection needs held-out rows.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.sklearn import StreamwiseSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 30))
    >>> y = 2 * X[:, 4] - X[:, 11] + rng.normal(size=200)
    >>> sel = StreamwiseSelector(method_options={"w0": 0.05}).fit(X, y)
    >>> sel.get_support(indices=True)
    array([ 4, 11])
    >>> sel.transform(X).shape
    (200, 2)
    >>> sel.get_feature_names_out()
    array(['x4', 'x11'], dtype=object)

    In a pipeline, with a grid search over the rule's options:

    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.pipeline import make_pipeline
    >>> pipe = make_pipeline(StreamwiseSelector(), LinearRegression())
    >>> grid = GridSearchCV(pipe, {"streamwiseselector__passes": [1, 3]}, cv=3).fit(X, y)
    >>> grid.best_estimator_[0].selected_
    ['x4', 'x11']
    """

    def __init__(
        self,
        *,
        family: Any = "gaussian",
        method: Any = None,
        method_options: Mapping[str, Any] | None = None,
        passes: int | None = None,
        test: str | None = None,
        block_size: int = 512,
        max_tests: int | None = None,
        max_selected: int | None = None,
        time_budget: float | None = None,
        order: Any = None,
        seed: int | None = None,
        intercept: bool = True,
    ) -> None:
        self.family = family
        self.method = method
        self.method_options = method_options
        self.passes = passes
        self.test = test
        self.block_size = block_size
        self.max_tests = max_tests
        self.max_selected = max_selected
        self.time_budget = time_budget
        self.order = order
        self.seed = seed
        self.intercept = intercept

    def fit(self, X: Any, y: Any, **fit_params: Any) -> StreamwiseSelector:
        """Select columns of ``X`` for the response ``y`` with :func:`streamreg.select`.

        Parameters
        ----------
        X : array-like or DataFrame, shape (n_samples, n_features)
            The candidate columns, offered in their order.
        y : array-like, shape (n_samples,)
            The response.
        **fit_params
            Per-observation options of :func:`streamreg.select`: ``offset``, ``exposure``,
            ``freq_weights``, ``var_weights`` (arrays of length ``n_samples``).

        Returns
        -------
        self : StreamwiseSelector

        Examples
        --------
        >>> import numpy as np
        >>> from streamreg.sklearn import StreamwiseSelector
        >>> rng = np.random.default_rng(1)
        >>> X = rng.normal(size=(100, 5)); y = X[:, 2] + 0.5 * rng.normal(size=100)
        >>> StreamwiseSelector().fit(X, y).support_
        array([False, False,  True, False, False])
        """
        unknown = set(fit_params) - {"offset", "exposure", "freq_weights", "var_weights"}
        if unknown:
            raise TypeError(f"fit() got unexpected keyword arguments {sorted(unknown)}; it takes offset, "
                            "exposure, freq_weights and var_weights")
        binary = isinstance(self.family, str) and self.family.lower() in _BINARY_FAMILIES
        X, y = _validate_data(self, X, y, dtype="numeric" if binary else np.float64,
                              y_numeric=not binary, ensure_min_samples=2)
        X = np.asarray(X, dtype=np.float64)
        names = self._input_names()
        if hasattr(self, "feature_names_in_"):
            stream: Any = pd.DataFrame(X, columns=names)
            response: Any = pd.Series(y, name=_free_name("y", names))
        else:
            stream, response = X, y
        extra: dict[str, Any] = {k: np.asarray(v) for k, v in fit_params.items() if v is not None}
        results = select(response, stream, family=self.family, method=self.method, test=self.test,
                         block_size=self.block_size, max_tests=self.max_tests, max_selected=self.max_selected,
                         time_budget=self.time_budget, order=self.order, seed=self.seed, passes=self.passes,
                         intercept=self.intercept, **extra, **dict(self.method_options or {}))
        position = {name: j for j, name in enumerate(names)}
        selected = list(results.selected_terms)
        support = np.zeros(len(names), dtype=bool)
        support[[position[name] for name in selected]] = True
        self.results_ = results
        self.selected_ = selected
        self.support_ = support
        return self

    def _input_names(self) -> list[str]:
        """The candidate names :func:`streamreg.select` gives the columns of the fitted ``X``."""
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{j}" for j in range(self.n_features_in_)]  # select()'s names for one array's columns

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return np.asarray(self.support_)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"requires_y": True, "allow_nan": False}


def _free_name(name: str, taken: list[str]) -> str:
    """``name``, with underscores appended until no column takes it."""
    used = set(taken)
    while name in used:
        name += "_"
    return name
