"""The response of a formula model: a binomial response coded 0/1 (factor, boolean or
numbers), grouped binomial proportions with their trials, and the check of successes."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..models.families import spec_of
from .checks import is_numeric, plain
from .names import term_name


def binomial_response(series: pd.Series, name: str, grouped: bool = False,
                      expression: str | None = None) -> tuple[np.ndarray, str, object | None]:
    """The response of a binomial model, its formula expression and its success value.

    Parameters
    ----------
    series : Series
        The response on the rows used.
    name : str
        Its column name.
    grouped : bool, default False
        Whether ``var_weights`` (the numbers of trials) are given: a numeric response may
        then hold proportions in [0, 1] (grouped data, R's ``glm(p ~ x, weights = m)``);
        :func:`check_successes` checks that they are whole numbers of successes.
    expression : str, optional
        The response as the formula writes it when it is an expression
        (``I(medv > 25)``); by default the column ``name`` as a formula names it.

    Returns
    -------
    y : ndarray
        1.0 for a success, 0.0 for a failure (a proportion for grouped data).
    label : str
        The response as the refit's formula writes it (``I((y == 'yes') * 1)``).
    success : object or None
        True for booleans, 1 for 0/1 numbers, None for proportions, else the second level.

    Notes
    -----
    As in R's ``glm`` (whose model frame drops unused factor levels), only the levels
    observed in the rows used count: a categorical with unused categories is accepted
    when two remain.  The first of them, in the categories' order (sorted values for
    text), is failure.
    """
    expr = term_name(name) if expression is None else expression
    present = series.unique()
    if len(present) == 1 and is_numeric(series) and 0 < float(present[0]) < 1:  # grouped data, one proportion
        raise ValueError(f"the response {name!r} is constant (every proportion is {float(present[0]):g}): there is "
                         "nothing for the candidates to explain")
    if len(present) == 1:  # one class: the fixed fit would "separate" it perfectly
        raise ValueError(f"the binomial response {name!r} has a single class ({plain(present[0])!r}) in the rows used; "
                         "both classes are needed to select anything")
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=float), f"I({expr} * 1)", True
    if is_numeric(series):
        vals = series.to_numpy(dtype=float)
        return vals, expr, numeric_binomial(vals, name, grouped)
    if isinstance(series.dtype, pd.CategoricalDtype):
        levels = list(series.cat.remove_unused_categories().cat.categories)  # R's order, observed levels only
    else:
        levels = sorted(series.unique())
    if len(levels) != 2:
        raise ValueError(
            f"a binomial response must have exactly two levels; {name!r} has {len(levels)} in the rows used: "
            f"{levels[:6]}{' ...' if len(levels) > 6 else ''}"
        )
    success = levels[1]  # as in R's glm: the first level is failure
    return (series == success).to_numpy(dtype=float), f"I(({expr} == {success!r}) * 1)", success


def numeric_binomial(y: np.ndarray, name: str, grouped: bool = False) -> int | None:
    """Refuse a numeric binomial response that is neither 0/1 nor (for grouped data) proportions.

    Parameters
    ----------
    y : ndarray
        The response, finite floats.
    name : str
        Its name, for the messages.
    grouped : bool, default False
        Whether ``var_weights`` (the numbers of trials) are given, so that proportions in
        [0, 1] are accepted.

    Returns
    -------
    int or None
        The success value: 1 for a 0/1 response, None for proportions.

    Examples
    --------
    >>> numeric_binomial(np.array([0.0, 0.5, 1.0]), "p", grouped=True) is None
    True
    >>> numeric_binomial(np.array([1.0, 2.0, 1.0]), "y")
    Traceback (most recent call last):
        ...
    ValueError: a binomial response must be 0/1 when numeric (or proportions in [0, 1] with the trials as var_weights=); 'y' has the two values [1.0, 2.0]: code the success level as 0/1 or boolean first, e.g. (y == 2)
    """
    uniq = np.unique(y)
    if np.isin(uniq, [0.0, 1.0]).all():
        return 1
    shown = f"{uniq[:6].tolist()}{' ...' if len(uniq) > 6 else ''}"
    if uniq[0] >= 0 and uniq[-1] <= 1:
        if grouped:
            return None
        part = float(y[(y > 0) & (y < 1)][0])  # the first row of a proportion
        raise ValueError(
            f"the binomial response {name!r} holds proportions (values in [0, 1] such as {part:g}); grouped "
            "binomial data need the number of trials of each row as var_weights= (R's glm(weights=)), the "
            "response being successes / trials"
        )
    if len(uniq) == 2:
        raise ValueError(
            f"a binomial response must be 0/1 when numeric (or proportions in [0, 1] with the trials as "
            f"var_weights=); {name!r} has the two values {shown}: code the success level as 0/1 or boolean first, "
            f"e.g. ({name} == {uniq[1]:g})"
        )
    raise ValueError(
        f"a binomial response must be 0/1 when numeric, or proportions in [0, 1] with the trials as var_weights=; "
        f"{name!r} has values {shown}: for k successes of m trials pass k / m with var_weights=m, "
        "otherwise recode it (e.g. y > threshold) first"
    )


def check_successes(y: np.ndarray, family: Any, trials: np.ndarray | None, name: str,
                    labels: pd.Index | None = None) -> None:
    """Refuse grouped binomial data whose trials or successes are not whole numbers.

    The trials are ``var_weights``, the successes ``y * var_weights``; both must be whole
    numbers within 1e-8 (relative).  R's ``glm`` only warns ("non-integer #successes"), and its
    log-likelihood, AIC and BIC then round them.  Nothing is checked unless the family is
    binomial, ``var_weights`` are given and some ``y`` lies strictly between 0 and 1: a 0/1
    response keeps taking any positive weights.

    Parameters
    ----------
    y : ndarray
        The response on the rows used.
    family : statsmodels family
    trials : ndarray or None
        The ``var_weights`` on the same rows; None when not given.  Of another length (an
        error reported elsewhere) they are not checked.
    name : str
        The response's name, for the message.
    labels : Index, optional
        The rows' labels in the data; without them the message gives positions.

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> check_successes(np.array([0.25, 0.5]), sm.families.Binomial(), np.array([4.0, 3.0]), "p")
    Traceback (most recent call last):
        ...
    ValueError: grouped binomial data (the response 'p' a proportion, var_weights the numbers of trials) need whole numbers of successes p * var_weights; 1 row has not, the first at position 1: p = 0.5, var_weights = 3, 1.5 successes
    """
    y = np.asarray(y, dtype=float)
    if spec_of(family).response != "binary" or trials is None or len(trials) != len(y) \
            or not ((y > 0) & (y < 1)).any():
        return
    successes = y * trials
    for what, values in (("trials var_weights", trials), (f"successes {name} * var_weights", successes)):
        bad = np.flatnonzero(np.abs(values - np.round(values)) > 1e-8 * np.maximum(np.abs(values), 1.0))
        if bad.size:
            i = int(bad[0])
            where = f"position {i}" if labels is None else f"row {plain(labels[i])!r}"
            raise ValueError(
                f"grouped binomial data (the response {name!r} a proportion, var_weights the numbers of trials) need "
                f"whole numbers of {what}; {bad.size} row{'s have' if bad.size > 1 else ' has'} not, the first at "
                f"{where}: {name} = {y[i]:.10g}, var_weights = {trials[i]:.10g}, {successes[i]:.10g} successes"
            )
