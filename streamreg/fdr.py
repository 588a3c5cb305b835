"""Online FDR on a plain vector of p-values, as R's ``onlineFDR`` does it.

:func:`online_fdr` runs any of the package's p-value rules (LORD++, LOND, SAFFRON, ADDIS,
alpha-spending, onlineFDR's alpha-investing, and the alpha-investing rules of Foster and
Stine and of Zhou et al. (2006)) over p-values that arrive in the given order, and returns
onlineFDR's ``pval, alphai, R`` table.  It drives the very policy objects the streamwise
search uses, through the same plan/record protocol, so the levels are those of a search
whose tests had these p-values.
"""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from .config import check_method_options
from .outcomes import TestOutcomes
from .policies import InformationInvesting, Policy, get_policy
from .policies.decide import run_rule
from .policies.penalties import FixedPenalty

#: the registered rules that threshold p-values (aliases such as "lord" work too)
PVALUE_METHODS = ("lord++", "lond", "saffron", "addis", "alpha-spending", "alpha-investing-fdr",
                  "alpha-investing", "foster-stine")


def online_fdr(pvalues: ArrayLike | pd.Series | pd.DataFrame, method: str | Policy = "lord++", *, alpha: float | None = None,
               **options: Any) -> pd.DataFrame:
    """Test a sequence of p-values online: the level of each and whether it is rejected.

    Parameters
    ----------
    pvalues : array-like, Series or DataFrame
        P-values in ``[0, 1]`` in the order the hypotheses arrive, or (as in onlineFDR) a
        DataFrame with a ``pval`` column whose rows are tested in the order given; its other
        columns (an ``id``, say) are kept.  Missing values are refused, and so are text
        (``"0.01"``) and booleans, which are not converted (as onlineFDR refuses them).
    method : str or Policy, default "lord++"
        ``"lord++"`` (alias ``"lord"``), ``"lond"``, ``"saffron"``, ``"addis"``,
        ``"alpha-spending"``, ``"alpha-investing-fdr"`` (onlineFDR's ``Alpha_investing``),
        ``"alpha-investing"`` (Zhou et al. 2006) or ``"foster-stine"`` (Foster and Stine 2008),
        or a policy instance.  Streamwise AIC/BIC/RIC and information-investing decide on
        likelihood-ratio statistics, not p-values, and are refused.
    alpha : float, optional
        The target level, passed to the rule's ``alpha`` (onlineFDR's default 0.05 when
        omitted).  The two alpha-investing rules have no ``alpha``: their mFDR level is
        ``alpha_delta``, so pass that instead.
    **options
        The rule's other parameters, with onlineFDR's meanings and defaults: ``w0``,
        ``gammai``, ``lambda_`` (onlineFDR's ``lambda``), ``tau``, ``betai``, ``original``;
        ``w0`` and ``alpha_delta`` for the alpha-investing rules.  They are checked as
        :func:`streamreg.streamreg` checks them (types, and an initial wealth ``w0`` in
        ``(0, 1]``).

    Returns
    -------
    DataFrame
        onlineFDR's columns ``pval``, ``alphai`` (the test's level) and ``R`` (1 where
        ``pval <= alphai``, 0 elsewhere; the alpha-investing of Zhou et al. (2006) rejects when
        ``pval < alphai``), with the index of a Series or DataFrame input.

    Notes
    -----
    onlineFDR sorts a DataFrame by its ``date`` column and by default shuffles the p-values
    within a date; here the rows are tested in the order given (sort them first if needed).
    The levels equal onlineFDR's (tests/reference/online_fdr.R) to a relative 1e-12 (tested).

    Examples
    --------
    >>> import streamreg as sr
    >>> out = sr.online_fdr([1e-4, 0.2, 0.01, 3e-4], method="lord++")
    >>> out
         pval    alphai  R
    0  0.0001  0.000268  1
    1  0.2000  0.002466  0
    2  0.0100  0.000573  0
    3  0.0003  0.000487  1
    >>> sr.online_fdr([1e-4, 0.2, 0.01, 3e-4], method="saffron", alpha=0.1)["R"].tolist()
    [1, 0, 1, 1]
    """
    frame, p = _pvalues(pvalues)
    policy = _policy(method, alpha, options)
    level, rejected = _run(policy, p)
    frame["alphai"] = level
    frame["R"] = rejected.astype(np.int64)
    return frame


def _pvalues(pvalues: ArrayLike | pd.Series | pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The output frame (input columns and index) and the p-values as floats."""
    values: ArrayLike | pd.Series
    if isinstance(pvalues, pd.DataFrame):
        if "pval" not in pvalues.columns:
            raise ValueError("a DataFrame of p-values needs a column 'pval' (as in onlineFDR); "
                             f"it has {list(pvalues.columns)}")
        frame, values = pvalues.copy(), pvalues["pval"]
    elif isinstance(pvalues, pd.Series):
        frame, values = pd.DataFrame({"pval": pvalues}, index=pvalues.index), pvalues
    else:
        if isinstance(pvalues, (str, bytes)) or np.ndim(pvalues) != 1:
            raise ValueError(f"pvalues must be a 1-D sequence of numbers, got {type(pvalues).__name__} "
                             f"with {np.ndim(pvalues)} dimension(s)")
        values = pvalues
        frame = None
    _refuse_text_and_booleans(values)
    try:
        p = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("pvalues must be numbers; found non-numeric entries") from None
    if p.ndim != 1:
        raise ValueError(f"pvalues must be a 1-D sequence of numbers, got shape {p.shape}")
    missing = np.flatnonzero(np.isnan(p))
    if missing.size:
        raise ValueError(f"pvalues has {missing.size} missing value(s) (first at position {missing[0]}); "
                         "drop them first (onlineFDR omits them with a warning)")
    outside = np.flatnonzero((p < 0) | (p > 1))
    if outside.size:
        raise ValueError(f"All p-values must be between 0 and 1; position {outside[0]} holds {float(p[outside[0]])!r}")
    if frame is None:
        frame = pd.DataFrame({"pval": p})
    return frame, p


def _refuse_text_and_booleans(values: ArrayLike | pd.Series) -> None:
    """Refuse p-values given as text or booleans, which numpy would quietly turn into numbers.

    As R's onlineFDR refuses them: ``"0.01"`` is a number read from a file and not converted,
    and ``True``/``False`` are rejections, not p-values.
    """
    if isinstance(values, pd.Series):
        raw = values.to_numpy()
    elif isinstance(values, np.ndarray):
        raw = values
    else:  # a list: numpy would turn [0.5, True] into floats, so its items are looked at
        raw = np.asarray(values, dtype=object)
    booleans = "got booleans: pass the p-values, not the rejections (.astype(float) if 0/1 were meant)"
    if raw.dtype.kind == "b":
        raise ValueError(f"pvalues must be numbers in [0, 1], {booleans}")
    if raw.dtype.kind in "USO":
        # ValueError as for other non-numbers (["a"]): the entries are wrong, not the container
        for i, v in enumerate(raw.ravel().tolist()):
            if isinstance(v, (bool, np.bool_)):
                raise ValueError(  # noqa: TRY004
                    f"pvalues must be numbers in [0, 1], {booleans}; position {i} holds {bool(v)}")
            if isinstance(v, (str, bytes)):
                raise ValueError(f"pvalues must be numbers, not text; position {i} holds {v!r} "  # noqa: TRY004
                                 "(convert text columns with pd.to_numeric first)")


def _policy(method: str | Policy, alpha: float | None, options: dict[str, Any]) -> Policy:
    """A fresh policy for ``method`` with ``alpha`` and the options, or a clear error."""
    if isinstance(method, Policy):
        if alpha is not None or options:
            raise TypeError("alpha and options cannot be combined with a Policy instance; set them on the instance")
        policy = method.spawn()
    else:
        try:
            policy = get_policy(method)
        except ValueError:
            raise ValueError(f"unknown method {method!r} for online_fdr; known methods: "
                             f"{', '.join(PVALUE_METHODS)}") from None
    if isinstance(policy, (FixedPenalty, InformationInvesting)):  # a known method, but no p-value rule
        raise ValueError(  # noqa: TRY004 -- the method's value is wrong here, not its type
            f"method {policy.name!r} decides on likelihood-ratio statistics, not on p-values, so "
            f"online_fdr cannot run it; p-value methods: {', '.join(PVALUE_METHODS)}")
    if isinstance(method, Policy):
        return policy  # its constructor checked its parameters
    accepted = set(inspect.signature(type(policy)).parameters)
    if alpha is not None and "alpha" not in accepted:
        raise ValueError(f"method {policy.name!r} has no alpha: its mFDR level is the payout alpha_delta, "
                         "so pass alpha_delta= (and w0=) instead")
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(map(repr, unknown))} for method {policy.name!r}; "
                        f"its options are {', '.join(sorted(accepted))}")
    if alpha is not None:
        options = {"alpha": alpha, **options}
    # the checks of streamreg() and select(): option kinds here, values by the constructor
    check_method_options(method, options)
    return get_policy(method, **options)


def _outcomes(p: np.ndarray) -> TestOutcomes:
    """Outcomes whose p-values are ``p`` (as one-column chi-square tests, log p known)."""
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    statistic = stats.chi2.isf(p, 1)
    n = p.size
    return TestOutcomes(statistic, np.ones(n, dtype=np.int64), np.full(n, np.inf), statistic,
                        lambda s, d, r: np.asarray(stats.chi2.logsf(s, d)), None, log_p)


def _run(policy: Policy, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Levels and rejections of ``policy`` over ``p``, one test after another."""
    policy.start(n_obs=p.size, share=1.0, n_candidates=p.size)
    return run_rule(policy, _outcomes(p))

