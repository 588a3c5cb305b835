"""The two entry points: :func:`streamreg` (formula + DataFrame) and :func:`select` (arrays)."""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .config import (
    check_options,
    check_weight_column,
    cov_structure,
    observation_weights,
    require_stopping_rule,
)
from .formula.dask_frame import build_dask_design, is_dask_frame, with_selected_columns
from .formula.design import (
    build_design,
    check_successes,
    term_name,
)
from .formula.lhs import with_trials
from .formula.matrices import check_fixed_values
from .formula.namespace import called_functions
from .formula.parse import FormulaError, ParsedFormula, parse_formula
from .formula.terms import selected_rhs
from .held_out import (
    held_out,
    held_out_levels,
    split_mask,
    split_rows,
    with_level_problems,
)
from .models import make_state, spec_of
from .models.robust import NONROBUST
from .policies import Policy
from .response_vector import response_vector
from .results import (
    SelectedModel,
    SelectionRecord,
    StreamRegResults,
    describe_test,
    fit_selected,
)
from .results.inference import check_use_t
from .results.refit import RefitWarning
from .row_labels import check_row_labels, observation_inputs
from .seeds import is_random_order, seed_for, unseeded_random_items
from .select_frame import fixed_design, fixed_frame, selected_design, with_selected
from .streams.inputs import as_streams, known_length
from .streams.ordering import apply_order

__all__ = ["RefitWarning", "select", "split_rows", "streamreg"]


def streamreg(
    formula: str,
    data: pd.DataFrame,
    *,
    family: Any = "gaussian",
    method: str | Policy | None = None,
    test: str | None = None,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    missing: str = "drop",
    verbose: bool | int = False,
    multistream: bool = True,
    passes: int | None = None,
    functions: Mapping[str, Any] | None = None,
    validate: float | Any | None = None,
    seed: int | None = None,
    history: str = "full",
    offset: str | Any | None = None,
    exposure: str | Any | None = None,
    freq_weights: str | Any | None = None,
    var_weights: str | Any | None = None,
    cov_type: str = "nonrobust",
    cov_kwds: Mapping[str, Any] | None = None,
    decoys: Any = None,
    decoy_fdr: float | None = None,
    use_t: bool | None = None,
    **method_options: Any,
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
    method : str, Policy or search method, optional
        The selection rule; ``method_options`` go to its constructor.  The default (None)
        is alpha-investing with ``w0 = alpha_delta = 0.05``, its wealth spread evenly over
        the stream (``spending="uniform"``), over ``passes=3`` (one
        pass over generators, Dask arrays and other streams that do not hold their
        candidates): chosen by simulation
        against abess, knockoffs, stepwise and the lasso (``bench/bench_power.py``); options
        given with it override those values.  ``"alpha-investing"`` is the papers' rule
        (``w0 = alpha_delta = 0.5``, bids ``w / (2 i)``, one pass).  Besides the streamwise policies:
        ``"stepwise-aic"``, ``"stepwise-bic"``, ``"stepwise-ric"`` (R-style stepwise,
        option ``direction="both"``), ``"grafting"`` and ``"bp-sfs"``; see
        :mod:`streamreg.search.methods`.
    test : str, optional
        ``"t"`` (default) or ``"paper"`` for the Gaussian family; ``"score"`` (default)
        or ``"lr"`` for GLMs.
    block_size : int
        Candidates scored per block; speed only, the decisions do not depend on it (arrays
        and frames on few rows are read in blocks of up to 1 MB of values when that is more).
    max_tests, max_selected, time_budget : optional
        Stopping rules for long streams.
    verbose : bool or int
        A tqdm progress bar on stderr (tests, selected terms, wealth): ``True`` redraws it at
        most ten times a second, an integer every ``verbose`` tests.
    multistream : bool, default True
        True: each stream (feature class) has its own wealth (Dhillon, Foster and Ungar 2010, Alg. 2).
        False: one stream over all classes, smallest class first and dynamic ones
        (interactions) last -- the single-stream SFS baseline of Dhillon, Foster and Ungar (2010).
    passes : int, optional
        Re-offer rejected candidates in up to ``passes - 1`` further passes; every
        re-test is charged and the history's ``pass`` column records it.  Default: 3 with
        the default rule, 1 with a named ``method``.
    validate : float or row labels or boolean mask, optional
        Sample splitting for honest inference: a random fraction in (0, 1) of rows (``seed=``),
        or the rows themselves, is held out.  Terms are selected on the other rows and the
        selected model is refitted on the held-out rows missing no value it uses, so its
        p-values and intervals are valid conditional on the selection.
    seed : int, optional
        Seed of the ``validate=`` split, of ``order='random'`` items (their own ``seed=`` wins)
        and of the decoys.  Without it a call that splits, permutes or draws decoys draws a
        seed, records it (``res.seed``) and prints it in the summary: passing it as ``seed=``
        repeats the run.
    history : {"full", "none"}, default "full"
        ``"full"`` keeps one history row per candidate examined (about 80 bytes each).
        ``"none"`` keeps only the rows of the accepted and refused candidates, the
        per-stream counts and the wealth at acceptances, so memory stays flat on very
        long streams; the decisions are the same.  ``fit.history`` then holds only those
        rows, the summary says so and ``plot_pvalues()`` is unavailable.  Streamwise
        policies only: stepwise, grafting and BP-SFS refuse ``"none"``.
    offset, exposure, freq_weights, var_weights : str or array, optional
        statsmodels' ``GLM`` options with their meanings, each a column name of ``data`` or
        an array with one value per row of ``data``: ``offset`` is added to the linear
        predictor, ``exposure`` enters as ``log(exposure)`` (log link only; not with
        ``offset``), ``freq_weights`` count identical observations (residual df
        ``sum(freq_weights) - k``; zero drops a row, non-integer counts are accepted as
        statsmodels accepts them) and ``var_weights`` are positive prior weights dividing the
        variance (R's ``glm(weights=)``, statsmodels' ``WLS(weights=)``; with them a binomial response may
        be proportions, ``var_weights`` the numbers of trials: grouped data).  They enter every candidate
        test (t, score and likelihood ratio) and the refit: ``WLS`` for least squares with
        ``var_weights`` only, ``GLM(..., use_t=True)`` for least squares with an offset or
        frequency weights, ``GLM`` otherwise.  A column so named is never a candidate, and
        rows missing it are dropped like the others; arrays must be complete.  Predictions on
        new data read the offset (exposure) from the same column, or take statsmodels'
        default (0; exposure 1) when it was an array.  Not with grafting or BP-SFS.
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"}, default "nonrobust"
        statsmodels' covariance types.  The refit uses it (``bse``, ``pvalues``, ``conf_int()``,
        ``summary()`` as ``OLS/WLS/GLM(...).fit(cov_type=..., cov_kwds=...)``: normal and
        chi-square inference), and so do a streamwise search's candidate tests (Gaussian,
        identity link): the robust Wald test of the candidate in ``OLS(y, [X, b]).fit(cov_type=)``.
        Stepwise, grafting and BP-SFS: the refit only.  GLMs: no robust candidate tests, and
        only ``"HC0"``/``"cluster"`` (statsmodels' GLM computes HC1-HC3 as HC0; likewise for
        least squares with an offset).  Not with ``freq_weights`` or ``test="paper"``.
    decoys : {"permuted", "knockoff"} or array, optional
        Shadow every candidate with a decoy tested against the same model at the same level
        (``res.decoys``; the summary prints the estimate): ``"permuted"`` (rows of each
        candidate in one random order), ``"knockoff"`` (Gaussian model-X knockoff copies of a
        stream of numeric columns held in memory, up to 5000 of them) or an ``n x m`` matrix
        of your own decoys for a single stream (e.g. knockoffs from knockpy).  Alone, decoys
        change no decision: the hits estimate the false selections (in one pass, E[false] <=
        E[hits] for exchangeable pairs).  ``seed=`` draws them (drawn, recorded as ``res.seed`` and printed if None).
    decoy_fdr : float in (0, 1), optional
        Select with the decoys: each pair is tested as one, the winner enters the model, and
        the candidates past the knockoff+ threshold at this level are selected (FDR <= q for
        exact knockoffs, Candès et al. 2018); see :mod:`streamreg.search.decoys`.
    cov_kwds : dict, optional
        ``{"groups": g}`` for ``cov_type="cluster"``: ``g`` is a column name of ``data``
        (never a candidate; rows missing it are dropped like the others) or an array with
        one cluster label per row of ``data``.  statsmodels' small-sample correction
        ``G/(G-1) (n-1)/(n-k)`` applies.
    use_t : bool, optional
        Whether the refit's p-values use t on the residual degrees of freedom (statsmodels'
        ``fit(use_t=)``, passed to it).  None (default): R's convention for ``pvalues``, the
        summaries, ``tidy()`` and ``compare()`` -- t when the family estimates its dispersion
        (Gamma, inverse Gaussian, Gaussian, quasi) and the covariance is not robust, as R's
        ``summary.glm``; the normal for binomial, Poisson and negative binomial fits and for
        robust covariances -- while ``.fit`` keeps statsmodels' default.  See docs/families.md.
    functions : mapping, optional
        Callables usable by name in the formula: in any term, fixed or candidate
        (``y ~ cube(age) + stream(x*, cube(dose))``), in ``transform(x*, fn=name)`` and in
        the refit and ``predict`` (an ``n x p`` float array in, same shape out); and as
        ``order=name`` (candidate matrix in, one score per column out, largest first; it
        never sees the response).  Results keep the functions their terms call, so they
        pickle when those do.

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
    ['radius_mean', 'texture_mean', 'smoothness_mean']
    """
    opts = check_options(family=family, method=method, test=test, block_size=block_size, max_tests=max_tests,
                         max_selected=max_selected, time_budget=time_budget, verbose=verbose, seed=seed,
                         missing=missing, multistream=multistream, passes=passes, functions=functions,
                         validate=validate, history=history, method_options=method_options, offset=offset,
                         exposure=exposure, freq_weights=freq_weights, var_weights=var_weights, cov_type=cov_type,
                         cov_kwds=cov_kwds, decoys=decoys, decoy_fdr=decoy_fdr, entry="streamreg")
    fam, searcher = opts.family, opts.method
    use_t = check_use_t(use_t)
    on_dask = is_dask_frame(data)
    if not (on_dask or isinstance(data, pd.DataFrame)):  # before the split, which indexes the frame
        raise TypeError(f"data must be a pandas or Dask DataFrame, got {type(data).__name__}")
    roles = {name: spec for name, spec in (opts.weights or {}).items() if isinstance(spec, str)}
    if isinstance(opts.cov_groups, str):  # a clusters column has a role too
        roles["cov_kwds['groups']"] = opts.cov_groups
    for name, column in roles.items():
        check_weight_column(name, column, data)
    if not on_dask:
        check_row_labels({"data": data, **observation_inputs(offset, exposure, freq_weights, var_weights, cov_kwds)},
                         entry="streamreg")
    n_rows = len(data)
    positions = np.arange(n_rows)  # the data rows used, by position (weights given as arrays follow them)
    held = None
    parsed = _parse(formula)
    # without seed=, a seed is drawn for the split, the random orders and the decoys, and recorded
    run_seed, seed_use = seed_for(opts.seed, split=isinstance(opts.validate, float),
                                  random_orders=unseeded_random_items(s.options for s in parsed.streams),
                                  decoys=opts.search.draws_decoys)
    search_options = opts.search.seeded(run_seed)  # before the split draws from a Generator seed
    if opts.validate is not None:
        if on_dask:
            raise ValueError("validate= needs the rows in memory; with a Dask DataFrame split the rows first "
                             "(e.g. data.random_split) and refit on the held-out part")
        mask = split_mask(data, opts.validate, run_seed)
        data, held = data.loc[~mask], data.loc[mask]
        positions, held_positions = np.flatnonzero(~mask), np.flatnonzero(mask)
    design_options = {"binomial": spec_of(fam).response == "binary", "missing": opts.missing,
                      "grouped": "var_weights" in (opts.weights or {}),  # proportions of var_weights trials
                      "functions": opts.functions, "family": fam, "roles": list(dict.fromkeys(roles.values())),
                      "seed": run_seed}
    try:
        if on_dask:  # the model's columns are gathered; the candidates stay on the cluster
            design, column_of = build_dask_design(formula, data, **design_options)
        else:
            design, column_of = build_design(formula, data, parsed=parsed, **design_options), {}
    except RecursionError:  # patsy and Python's parser recurse once per operator
        raise _too_deep(formula) from None
    if design.n_dropped:
        warnings.warn(design.dropped_message(), stacklevel=2)
    if design.rows is not None:
        positions = positions[design.rows]
    weights = with_trials(observation_weights(opts.weights, n_rows, design.frame, positions), design.trials)
    check_successes(design.y, fam, weights.var_weights, design.response_name, design.frame.index)
    cov = cov_structure(opts.cov_type, opts.cov_groups, n_rows, design.frame, positions)
    fixed = design.fixed.to_numpy(dtype=float)
    state = make_state(design.y, fixed, fam, opts.test, weights=weights, cov=cov if opts.robust_tests else NONROBUST,
                       fixed_names=list(design.fixed.columns))
    search = searcher.run(state, design.streams, fixed=fixed, family=fam, options=search_options)
    rhs = selected_rhs(design.parsed.fixed, search.accepted)  # the formula layer writes the selected terms
    train, y, validation = design.refit_frame(search.accepted), design.y, None
    if column_of:  # a Dask DataFrame: the selected candidates' columns join the gathered ones
        train = with_selected_columns(design, search.accepted, column_of)
    level_problems: list[str] = []
    if held is not None:
        train, y, validation, kept, trials = held_out(held, design, len(design.frame), search.accepted)
        level_problems = held_out_levels(design.frame, train, design.parsed.fixed, rhs, design.response_name)
        weights = with_trials(observation_weights(opts.weights, n_rows, train, held_positions[kept]), trials)
        check_successes(y, fam, weights.var_weights, design.response_name, train.index)
        cov = cov_structure(opts.cov_type, opts.cov_groups, n_rows, train, held_positions[kept])
    model = SelectedModel(rhs=rhs, response_label=design.response_label, response_name=design.response_name,
                          train=train, y=y, family=fam, derived=design.derived,
                          functions=called_functions(rhs, design.functions), weights=weights, cov=cov, use_t=use_t)
    selection = SelectionRecord(search=search, policy=searcher.rule, test_description=describe_test(search, state),
                                formula=formula, success_level=design.success_level, n_dropped=design.n_dropped,
                                y_ordered=tuple(design.y_ordered or ()), validation=validation,
                                missing_by_column=design.missing_by_column, seed=seed_use)
    return with_level_problems(fit_selected(model, selection), level_problems)


def _parse(formula: str) -> ParsedFormula:
    """The formula parsed, a formula too deep for Python's parser refused in words."""
    try:
        return parse_formula(formula)
    except RecursionError:  # Python's parser recurses once per operator
        raise _too_deep(formula) from None


def _too_deep(formula: str) -> FormulaError:
    return FormulaError(f"the formula ({len(formula):,} characters) has too many terms or too deep a nesting "
                        "to evaluate (Python's recursion limit); offer many columns through a stream() glob "
                        "such as stream(x*) rather than term by term")


def select(
    y: Any,
    streams: Any,
    *,
    fixed: Any = None,
    intercept: bool = True,
    family: Any = "gaussian",
    method: str | Policy | None = None,
    test: str | None = None,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    verbose: bool | int = False,
    order: Any = None,
    seed: int | None = None,
    history: str = "full",
    passes: int | None = None,
    offset: Any | None = None,
    exposure: Any | None = None,
    freq_weights: Any | None = None,
    var_weights: Any | None = None,
    cov_type: str = "nonrobust",
    cov_kwds: Mapping[str, Any] | None = None,
    decoys: Any = None,
    decoy_fdr: float | None = None,
    use_t: bool | None = None,
    **method_options: Any,
) -> StreamRegResults:
    """Streamwise selection without a formula: arrays, DataFrames or generators.

    Rows are paired by position; pandas inputs (``y``, ``fixed``, frames among the streams,
    per-observation options) must carry the same row labels in the same order, or the call
    is refused (as statsmodels refuses unaligned ``endog`` and ``exog``).

    Parameters
    ----------
    y : array-like, shape (n,)
        Response (0/1 or boolean for ``family="binomial"``, or proportions with the numbers of
        trials as ``var_weights``: grouped data).
    streams : array, DataFrame, sparse matrix, iterable, or a dict ``{name: stream}`` / list of them
        Each stream is a 2-D array (candidates are its columns), a DataFrame, a
        ``scipy.sparse`` matrix or array (kept sparse: scored in time proportional to its
        non-zeros; so is a DataFrame of pandas sparse columns filled with 0), or any
        iterable yielding ``(name, column)`` pairs or bare columns -- possibly an
        infinite generator, read lazily ``block_size`` candidates at a time.  Candidate
        names must be unique and differ from the response's and the fixed columns'.
    fixed : array or DataFrame, optional
        Columns always in the model (never tested); an intercept is added unless
        ``intercept=False``.  No missing values.
    passes : int, optional
        Re-offer rejected candidates in up to ``passes - 1`` further passes (streamwise
        methods; each re-offer is an ordinary, charged test); as in :func:`streamreg`, 3
        with the default rule and 1 with a named ``method``.
    max_tests, max_selected, time_budget : optional
        Stopping rules.  A generator or iterator without ``len()`` may be infinite, so
        with a streamwise method it needs one of them (``max_tests=math.inf`` reads a
        finite generator to its end).
    order : str or callable, optional
        Order in which the columns of array and DataFrame streams are offered:
        ``"given"`` (default), ``"variance"``, ``"random"`` (seeded by ``seed=``; without it
        a seed is drawn, recorded as ``res.seed`` and printed in the summary), a callable
        scoring the candidate matrix, or a screening method name (which looks at y, so
        the results then say that the wealth guarantee does not hold).  Generators are
        always read in the order they yield.
    history : {"full", "none"}, default "full"
        ``"none"`` keeps only the accepted and refused candidates' history rows, and
        forgets rejected generator items' names after their block, so memory stays flat
        on infinite streams (same decisions); see :func:`streamreg`.  Streamwise only.
    offset, exposure, freq_weights, var_weights : array, optional
        One value per observation, with statsmodels' meanings (see :func:`streamreg`); used
        in every candidate test and in the refit.
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"}, default "nonrobust"
        statsmodels' covariance type, for the refit and the candidate tests of a streamwise
        search (see :func:`streamreg`).
    decoys : {"permuted", "knockoff"} or array, optional
        Decoys shadowing the candidates, as in :func:`streamreg`.
    decoy_fdr : float in (0, 1), optional
        Select with the decoys at this FDR level, as in :func:`streamreg`.
    cov_kwds : dict, optional
        ``{"groups": array}`` (one cluster label per observation) for ``cov_type="cluster"``.
    use_t : bool, optional
        t or normal p-values for the refit (see :func:`streamreg`; None: R's convention).

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 50)); y = X[:, 3] + 0.1 * rng.normal(size=100)
    >>> def gen():
    ...     for j in range(X.shape[1]):
    ...         yield f"x{j}", X[:, j]
    >>> sr.select(y, gen(), max_tests=1000, w0=0.05, alpha_delta=0.05).selected_terms
    ['x3']
    """
    opts = check_options(family=family, method=method, test=test, block_size=block_size, max_tests=max_tests,
                         max_selected=max_selected, time_budget=time_budget, verbose=verbose, seed=seed,
                         intercept=intercept, order=order, history=history, passes=passes,
                         method_options=method_options,
                         offset=offset, exposure=exposure, freq_weights=freq_weights, var_weights=var_weights,
                         cov_type=cov_type, cov_kwds=cov_kwds, decoys=decoys, decoy_fdr=decoy_fdr, entry="select")
    fam, searcher = opts.family, opts.method
    use_t = check_use_t(use_t)
    check_row_labels({"y": y, "fixed": fixed, "streams": streams,
                      **observation_inputs(offset, exposure, freq_weights, var_weights, cov_kwds)})
    yname, yv, success = response_vector(y, fam, (opts.weights or {}).get("var_weights"))
    n = len(yv)
    weights = observation_weights(opts.weights, n)
    cov = cov_structure(opts.cov_type, opts.cov_groups, n)
    frame = fixed_frame(fixed, yname, yv)
    fixed_rhs = " + ".join((["1"] if opts.intercept else ["0"]) + [term_name(c) for c in frame.columns[1:]])
    fixed_values, fixed_names = fixed_design(fixed is None, fixed_rhs, frame, opts.intercept)
    if fixed_values.shape[1] == 0:
        raise ValueError("the model has no fixed column; keep intercept=True or pass fixed=")
    check_fixed_values(fixed_values, fixed_names, n)

    # candidates may not take the name of the response or of a fixed column: the refit
    # formula would silently use the wrong column
    reserved = {str(c): "a fixed column" for c in frame.columns[1:]}
    reserved[yname] = "the response"
    # re-offered items keep their names (generators hold nothing, so this is their passes)
    keep_names = opts.search.history == "full" or opts.search.passes_for(holds_candidates=False) > 1
    stream_objs = as_streams(streams, n, reserved, remember_items=keep_names)
    run_seed, seed_use = seed_for(opts.seed, split=False, random_orders=is_random_order(opts.order),
                                  decoys=opts.search.draws_decoys)
    search_options = opts.search.seeded(run_seed)  # before the orders draw from a Generator seed
    y_ordered = apply_order(stream_objs, opts.order, yv, run_seed)
    require_stopping_rule(opts, [s.name for s in stream_objs if not known_length(s)])
    state = make_state(yv, fixed_values, fam, opts.test, weights=weights, cov=cov if opts.robust_tests else NONROBUST,
                       fixed_names=fixed_names)
    search = searcher.run(state, stream_objs, fixed=fixed_values, family=fam, options=search_options)
    frame, names = with_selected(search.accepted, frame, reserved)
    design = None if fixed is not None else selected_design(fixed_values, fixed_names, search.accepted, names, frame)
    model = SelectedModel(rhs=" + ".join([fixed_rhs] + names), response_label=term_name(yname),
                          response_name=yname, train=frame, y=yv, family=fam, weights=weights, cov=cov, use_t=use_t)
    selection = SelectionRecord(search=search, policy=searcher.rule, test_description=describe_test(search, state),
                                y_ordered=tuple(y_ordered), success_level=success, seed=seed_use)
    return fit_selected(model, selection, design)
