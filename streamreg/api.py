"""The two entry points: :func:`streamreg` (formula + DataFrame) and :func:`select` (arrays)."""
from __future__ import annotations

import warnings
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd
import statsmodels.api as sm

from .formula.design import build_design, check_fixed, design_matrix, term_name
from .models import is_ols, make_state, resolve_family
from .policies import Policy
from .results import StreamRegResults
from .search import streamwise_search
from .search.methods import resolve_method, run_search_method
from .streams.arrays import IterableStream, MatrixStream
from .streams.base import NameRange, Stream
from .streams.ordering import candidate_order, order_uses_y
from .streams.passes import arrange_streams

_TEST_TEXT = {
    "t": "partial t (F for multi-column terms)",
    "paper": "paper 000 code: p = exp(-dRSS / (2 RSS0 / n))",
    "score": "score (Rao) chi-square",
    "lr": "likelihood ratio chi-square",
}


def streamreg(
    formula: str,
    data: pd.DataFrame,
    *,
    family: Any = "gaussian",
    method: str | Policy = "alpha-investing",
    test: str | None = None,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    missing: str = "drop",
    verbose: bool | int = False,
    multistream: bool = True,
    passes: int = 1,
    functions: Mapping[str, Any] | None = None,
    validate: float | Any | None = None,
    seed: int | None = None,
    **method_options,
) -> StreamRegResults:
    """Select terms from candidate streams and fit the chosen model.

    Parameters
    ----------
    formula : str
        ``"y ~ fixed terms + stream(glob, ..., name=, exclude=)"``.  Fixed terms are
        ordinary patsy terms; each ``stream()`` is a feature class whose candidates
        (columns matching the globs, in data order, or patsy terms such as
        ``C(region)``) are tested one at a time against the current model.
    data : DataFrame
        Never modified.  Rows with missing values in the columns used are dropped
        (``missing="drop"``, reported in the summary) or rejected (``"raise"``).
    family : str or statsmodels family, default "gaussian"
        ``"gaussian"`` uses exact least squares; other families a GLM.
    method : str, Policy or search method, default "alpha-investing"
        The selection rule; ``method_options`` go to its constructor
        (e.g. ``w0=0.05, alpha_delta=0.05``).  Besides the streamwise policies:
        ``"stepwise-aic"``, ``"stepwise-bic"``, ``"stepwise-ric"`` (R-style stepwise,
        option ``direction="both"``), ``"grafting"`` and ``"bp-sfs"``; see
        :mod:`streamreg.search.methods`.
    test : str, optional
        ``"t"`` (default) or ``"paper"`` for the Gaussian family; ``"score"`` (default)
        or ``"lr"`` for GLMs.
    block_size : int
        Candidates scored per block; speed only, the decisions do not depend on it.
    max_tests, max_selected, time_budget : optional
        Stopping rules for long streams.
    verbose : bool or int
        Progress on stderr every 10,000 tests (or every ``verbose`` tests).
    multistream : bool, default True
        True: each stream (feature class) has its own wealth (paper 001, Alg. 2).
        False: one stream over all classes, smallest class first and dynamic ones
        (interactions) last -- paper 001's single-stream SFS baseline.
    passes : int, default 1
        Re-offer rejected candidates in up to ``passes - 1`` further passes; every
        re-test is charged and the history's ``pass`` column records it.
    validate : float or row labels or boolean mask, optional
        Sample splitting for honest inference: a fraction in (0, 1) of rows drawn at
        random (``seed=``), or the rows themselves, is held out.  Terms are selected on
        the other rows and the selected model is refitted on the held-out rows only, so
        its p-values and intervals are valid conditional on the selection.
    seed : int, optional
        Seed of the random split for ``validate=`` fractions.
    functions : mapping, optional
        Callables usable by name in the formula: ``transform(x*, fn=name)`` (an
        ``n x p`` array in, same shape out) and ``order=name`` (candidate matrix in, one
        score per column out, largest first; it never sees the response).

    Generated classes may be added to the formula beside ``stream()``:
    ``interactions(streams..., kind=(1, 2), degree=2)``, ``pca(globs..., k=50)``,
    ``squares(globs...)``, ``transform(globs..., fn=log|sqrt|log1p|exp|name)`` and
    ``clusters(globs..., k=)``; every item takes ``order=`` (``given``, ``variance``,
    ``random`` with ``seed=``, a screening method, or a function name) and ``name=``.

    Returns
    -------
    StreamRegResults

    Examples
    --------
    >>> import streamreg as sr
    >>> df = sr.datasets.load("wdbc").data
    >>> fit = sr.streamreg("diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", df,
    ...                    family="binomial", w0=0.05, alpha_delta=0.05)
    >>> fit.selected_terms[:3]
    ['radius_mean', 'texture_mean', 'perimeter_mean']
    """
    fam, fam_name = resolve_family(family)
    kind, policy = resolve_method(method, **method_options)
    held = None
    if validate is not None:
        data, held = split_rows(data, validate, seed)
    design = build_design(formula, data, binomial=isinstance(fam, sm.families.Binomial), missing=missing,
                          functions=functions)
    if design.n_dropped:
        warnings.warn(f"dropped {design.n_dropped} rows with missing values in the columns used",
                      stacklevel=2)
    state = make_state(design.y, design.fixed.to_numpy(dtype=float), fam, test)
    if kind == "search":  # stepwise, grafting, BP-SFS: their own loop over the streams in formula order
        if passes != 1:
            raise ValueError(f"passes= applies to streamwise policies, not to method {method!r}")
        search = run_search_method(policy, state=state, y=design.y, fixed=design.fixed.to_numpy(dtype=float),
                                   family=fam, streams=design.streams, block_size=block_size, max_tests=max_tests,
                                   max_selected=max_selected, time_budget=time_budget)
    else:
        streams = arrange_streams(design.streams, multistream=multistream, passes=passes)
        search = streamwise_search(state, streams, policy, block_size=block_size, max_tests=max_tests,
                                   max_selected=max_selected, time_budget=time_budget, verbose=verbose)
    # an RBF-grafted feature enters the refit as its basis columns (patsy expressions)
    rhs = " + ".join([design.parsed.fixed] + [r for t in search.accepted for r in t.extra.get("rhs", [t.name])])
    train, y, validation = design.frame, design.y, None
    if held is not None:
        train, y, validation = _held_out(held, design, len(design.frame))
    return _finish(search, rhs, design.response_label, design.response_name, train, y, fam, fam_name,
                   policy, state, design.success_level, design.n_dropped, formula,
                   derived=design.derived, y_ordered=design.y_ordered, validation=validation)


def split_rows(data: pd.DataFrame, validate, seed) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(selection rows, held-out rows) from a fraction, a boolean mask or row labels."""
    if isinstance(validate, float):
        if not 0 < validate < 1:
            raise ValueError(f"validate as a fraction must lie in (0, 1), got {validate!r}")
        n_held = int(round(validate * len(data)))
        pick = np.random.default_rng(seed).choice(len(data), size=n_held, replace=False)
        mask = np.zeros(len(data), dtype=bool)
        mask[pick] = True
    else:
        arr = np.asarray(validate)
        if arr.dtype == bool:
            if len(arr) != len(data):
                raise ValueError(f"a validate mask needs one entry per row ({len(data)}), got {len(arr)}")
            mask = arr
        else:
            missing = pd.Index(arr).difference(data.index)
            if len(missing):
                raise ValueError(f"validate names rows not in the data: {list(missing[:5])}")
            mask = data.index.isin(arr)
    if mask.sum() < 2 or (~mask).sum() < 2:
        raise ValueError("validate must leave at least two rows on each side of the split")
    return data.loc[~mask], data.loc[mask]


def _held_out(held: pd.DataFrame, design, n_selection: int):
    """Refit frame and response on the held-out rows, coded as on the selection rows."""
    cols = [c for c in design.frame.columns if c in held.columns]
    frame = held[cols]
    n_na = int(frame.isna().any(axis=1).sum())
    frame = frame.dropna()
    if len(frame) < 2:
        raise ValueError("fewer than two held-out rows are complete in the columns used")
    y = design_matrix("0 + " + design.response_label, frame, frame).iloc[:, 0].to_numpy(dtype=float)
    if design.derived:
        frame = design.derived.augment(frame)
    return frame, y, {"n_selection": n_selection, "n_validation": len(frame), "n_dropped": n_na}


def select(
    y,
    streams,
    *,
    fixed=None,
    intercept: bool = True,
    family: Any = "gaussian",
    method: str | Policy = "alpha-investing",
    test: str | None = None,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    verbose: bool | int = False,
    order: Any = None,
    seed: int | None = None,
    **method_options,
) -> StreamRegResults:
    """Streamwise selection without a formula: arrays, DataFrames or generators.

    Parameters
    ----------
    y : array-like, shape (n,)
        Response (0/1 or boolean for ``family="binomial"``).
    streams : array, DataFrame, iterable, or a dict ``{name: stream}`` / list of them
        Each stream is a 2-D array (candidates are its columns), a DataFrame, or any
        iterable yielding ``(name, column)`` pairs or bare columns -- possibly an
        infinite generator, read lazily ``block_size`` candidates at a time (stop it
        with ``max_tests``, ``max_selected`` or ``time_budget``).
    fixed : array or DataFrame, optional
        Columns always in the model (never tested); an intercept is added unless
        ``intercept=False``.
    order : str or callable, optional
        Order in which the columns of array and DataFrame streams are offered:
        ``"given"`` (default), ``"variance"``, ``"random"`` (with ``seed=``), a callable
        scoring the candidate matrix, or a screening method name (which looks at y, so
        the results then say that the wealth guarantee does not hold).  Generators are
        always read in the order they yield.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 50)); y = X[:, 3] + 0.1 * rng.normal(size=100)
    >>> def gen():
    ...     for j in range(X.shape[1]):
    ...         yield f"x{j}", X[:, j]
    >>> sr.select(y, gen(), w0=0.05, alpha_delta=0.05).selected_terms
    ['x3']
    """
    fam, fam_name = resolve_family(family)
    kind, policy = resolve_method(method, **method_options)
    yname = getattr(y, "name", None) or "y"
    yv = np.asarray(y)
    if yv.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {yv.shape}")
    if yv.dtype == bool:
        yv = yv.astype(float)
    try:
        yv = yv.astype(float)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric (0/1 or boolean for family='binomial')") from None
    if not np.isfinite(yv).all():
        raise ValueError("y contains NaN or infinite values; drop those rows first")
    if isinstance(fam, sm.families.Binomial) and not np.isin(np.unique(yv), [0.0, 1.0]).all():
        raise ValueError("a binomial response must be 0/1 or boolean; recode it first")
    n = len(yv)

    frame = pd.DataFrame({yname: yv})
    fixed_names: list[str] = []
    if fixed is not None:
        fx = fixed if isinstance(fixed, pd.DataFrame) else pd.DataFrame(
            np.asarray(fixed, dtype=float).reshape(n, -1),
            columns=[f"fixed{j}" for j in range(np.asarray(fixed).reshape(n, -1).shape[1])])
        if len(fx) != n:
            raise ValueError(f"fixed has {len(fx)} rows, y has {n}")
        fx = fx.reset_index(drop=True)
        for c in fx.columns:
            frame[str(c)] = fx[c].to_numpy()
        fixed_names = [term_name(str(c)) for c in fx.columns]
    fixed_rhs = " + ".join((["1"] if intercept else ["0"]) + fixed_names)
    fixed_x = design_matrix(fixed_rhs, frame, frame)
    if fixed_x.shape[1] == 0:
        raise ValueError("the model has no fixed column; keep intercept=True or pass fixed=")
    check_fixed(fixed_x, n)

    stream_objs = _as_streams(streams, n)
    y_ordered = _apply_order(stream_objs, order, yv, seed)
    state = make_state(yv, fixed_x.to_numpy(dtype=float), fam, test)
    if kind == "search":
        search = run_search_method(policy, state=state, y=yv, fixed=fixed_x.to_numpy(dtype=float), family=fam,
                                   streams=stream_objs, block_size=block_size, max_tests=max_tests,
                                   max_selected=max_selected, time_budget=time_budget)
    else:
        search = streamwise_search(state, stream_objs, policy, block_size=block_size, max_tests=max_tests,
                                   max_selected=max_selected, time_budget=time_budget, verbose=verbose)
    names, new_columns = [], {}
    for t in search.accepted:
        cols = t.columns if t.values.shape[1] == len(t.columns) else [f"{t.name}_{j}" for j in range(t.values.shape[1])]
        for c, v in zip(cols, t.values.T):
            if c in frame.columns or c in new_columns:
                raise ValueError(f"selected term {c!r} has the name of a fixed column or the response; rename it")
            new_columns[c] = v
        names.extend(term_name(c) for c in cols)
    if new_columns:
        frame = pd.concat([frame, pd.DataFrame(new_columns, index=frame.index)], axis=1)
    rhs = " + ".join([fixed_rhs] + names)
    return _finish(search, rhs, term_name(yname), yname, frame, yv, fam, fam_name, policy, state, None, 0, None,
                   y_ordered=y_ordered)


def _apply_order(streams: list[Stream], order, y: np.ndarray, seed) -> list[str]:
    """Permute the columns of matrix streams; returns the streams ordered by y."""
    if order is None or (isinstance(order, str) and order.lower() == "given"):
        return []
    uses_y = order_uses_y(order)
    ordered = []
    for s in streams:
        if not isinstance(s, MatrixStream):
            raise ValueError(f"order= applies to array and DataFrame streams; stream {s.name!r} is a generator")
        s.order = candidate_order(np.asarray(s.values, dtype=float), order, y=y if uses_y else None,
                                  seed=seed, what=f"stream {s.name!r}")
        if uses_y:
            ordered.append(s.name)
    return ordered


def _as_streams(streams, n: int) -> list[Stream]:
    """A dict is named streams, a list several streams, anything else one stream."""
    if isinstance(streams, Mapping):
        items = [(str(k), v) for k, v in streams.items()]
    elif isinstance(streams, list) and streams and not any(isinstance(s, tuple) for s in streams):
        items = [(f"stream{j + 1}", s) for j, s in enumerate(streams)]
    else:
        items = [("stream1", streams)]
    out: list[Stream] = []
    for name, s in items:
        if isinstance(s, Stream):
            out.append(s)
        elif isinstance(s, pd.DataFrame):
            if len(s) != n:
                raise ValueError(f"stream {name!r} has {len(s)} rows, y has {n}")
            out.append(MatrixStream(name, s.to_numpy(dtype=float), [str(c) for c in s.columns]))
        elif isinstance(s, np.ndarray):
            arr = s if s.ndim == 2 else s.reshape(n, -1)
            if arr.shape[0] != n:
                raise ValueError(f"stream {name!r} has {arr.shape[0]} rows, y has {n}")
            out.append(MatrixStream(name, arr, NameRange(f"{name}_" if len(items) > 1 else "x", 0, arr.shape[1])))
        elif _is_iterable_stream(s):
            out.append(IterableStream(name, s, n))
        else:
            raise TypeError(f"stream {name!r}: expected an array, a DataFrame or an iterable, got {type(s).__name__}")
    return out


def _is_iterable_stream(s) -> bool:
    return isinstance(s, Iterable) and not isinstance(s, (str, bytes, np.ndarray, pd.DataFrame))


class RefitWarning(UserWarning):
    """The statsmodels refit of the selected terms is not trustworthy (separation, rank)."""


def _refit_problems(caught, shape: tuple[int, int]) -> list[str]:
    """Plain-language descriptions of the statsmodels warnings raised by a refit (deduplicated)."""
    out: list[str] = []
    for w in caught:
        name = type(w.message).__name__ if isinstance(w.message, Warning) else w.category.__name__
        if name == "PerfectSeparationWarning":
            text = ("the response is perfectly or quasi-perfectly separated by the selected terms: the "
                    "maximum-likelihood estimates do not exist and the coefficients, standard errors and "
                    "p-values are not meaningful")
        elif name == "SingularMatrixWarning" or "rank" in str(w.message).lower():
            text = (f"the design of the selected terms is rank-deficient ({shape[1]} columns, {shape[0]} rows): "
                    "the coefficients are not identified")
        elif name in ("ConvergenceWarning", "IterationLimitWarning"):
            text = "the refit did not converge"
        else:
            warnings.warn(w.message, w.category, stacklevel=4)  # not ours to interpret: pass it on
            continue
        if text not in out:
            out.append(text)
    return out


def _finish(search, rhs, response_label, response_name, train, y, fam, fam_name, policy, state,
            success_level, n_dropped, formula, derived=None, y_ordered=None, validation=None) -> StreamRegResults:
    x = design_matrix(rhs, train, train, derived)
    yser = pd.Series(y, index=x.index, name=response_name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if is_ols(fam):
            fit = sm.OLS(yser, x).fit()
            fam_name = "gaussian"
        else:
            with np.errstate(over="ignore"):  # exp overflow in the inverse link saturates harmlessly
                fit = sm.GLM(yser, x, family=fam).fit(tol=1e-10, maxiter=200)
    refit_warnings = _refit_problems(caught, x.shape)
    if refit_warnings:
        warnings.warn("the refit of the selected terms is unreliable: " + "; ".join(refit_warnings)
                      + " (see summary())", RefitWarning, stacklevel=3)
    return StreamRegResults(refit_warnings=refit_warnings, 
        search=search, fit=fit, rhs=rhs, response_label=response_label, response_name=response_name,
        train=train, family=fam, family_name=fam_name, policy=policy,
        test_description=getattr(search, "test_description", "")
        or _TEST_TEXT.get(getattr(state, "test", ""), str(getattr(state, "test", ""))),
        success_level=success_level, n_dropped=n_dropped, formula=formula,
        derived=derived, y_ordered=y_ordered, validation=validation,
    )
