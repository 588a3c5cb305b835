"""``cov_type=`` and ``cov_kwds=`` (statsmodels' names and meanings): checked with the other
options before the data are read (:func:`check_cov_type`), the clusters resolved on the rows
used once they are known (:func:`cov_structure`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..models import spec_of
from ..models.robust import COV_TYPES, RobustCov
from ..search.method import Capabilities
from ..validators import _got
from .weights import check_weight_column


def check_cov_type(cov_type: Any, cov_kwds: Any, family: Any, test: Any, can: Capabilities,
                   weights: Mapping[str, Any], *, entry: str = "streamreg") -> tuple[str, Any, bool]:
    """``cov_type=`` and ``cov_kwds=`` (statsmodels' names), checked before the data are read.

    Returns the normalised type, the groups (a column name or an array; None unless
    ``"cluster"``) and whether the candidate tests are robust (a method that tests its
    candidates, ``can.tests_candidates``: the streamwise searches).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> from streamreg.search import Stepwise, capabilities
    >>> check_cov_type("hc3", None, sm.families.Gaussian(), None, capabilities(Stepwise()), {})
    ('HC3', None, False)
    >>> check_cov_type("cluster", None, sm.families.Gaussian(), None, capabilities(Stepwise()), {})
    Traceback (most recent call last):
        ...
    ValueError: cov_type='cluster' needs the clusters: cov_kwds={'groups': <column name or array>}
    """
    if not isinstance(cov_type, str):
        raise TypeError(f"cov_type must be one of {COV_TYPES}, got {_got(cov_type)}")
    known = {c.lower(): c for c in COV_TYPES}
    if cov_type.lower() not in known:
        raise ValueError(f"cov_type must be one of {COV_TYPES} (statsmodels' names), got {cov_type!r}")
    cov = known[cov_type.lower()]
    kwds = {} if cov_kwds is None else cov_kwds
    if not isinstance(kwds, Mapping):
        raise TypeError(f"cov_kwds must be a dict such as {{'groups': ...}}, got {_got(cov_kwds)}")
    if cov != "cluster" and kwds:
        raise ValueError(f"cov_kwds applies to cov_type='cluster' only, not to cov_type={cov!r}")
    extra = sorted(map(str, set(kwds) - {"groups"}))
    if extra:
        raise ValueError(f"cov_kwds takes only 'groups' (the clusters), got {extra}")
    groups = kwds.get("groups")
    if cov == "cluster":
        if groups is None:
            raise ValueError("cov_type='cluster' needs the clusters: cov_kwds={'groups': <column name or array>}")
        if isinstance(groups, str) and entry != "streamreg":
            raise TypeError(f"cov_kwds['groups'] must be an array with one value per observation in select(); "
                            f"column names ({groups!r}) refer to the data of a streamreg() formula call")
        if not isinstance(groups, str):
            if isinstance(groups, (bytes, Mapping)) or not np.iterable(groups):
                raise TypeError(f"cov_kwds['groups'] must be a column name or an array with one value per "
                                f"observation, got {_got(groups)}")
            groups = np.asarray(groups.to_numpy() if hasattr(groups, "to_numpy") else groups)
            if groups.ndim != 1:
                raise ValueError(f"cov_kwds['groups'] must be one-dimensional (one cluster label per "
                                 f"observation), got shape {groups.shape}")
    robust_tests = cov != "nonrobust" and can.tests_candidates
    if cov == "nonrobust":
        return cov, None, False
    if "freq_weights" in weights:
        raise ValueError(f"cov_type={cov!r} cannot be combined with freq_weights; use cov_type='nonrobust'")
    if robust_tests and test == "paper":
        raise ValueError(f"cov_type={cov!r} needs test='t': the paper's p-value has no robust version")
    least_squares = spec_of(family).least_squares
    if robust_tests and not least_squares:
        raise ValueError(f"cov_type for candidate tests is supported for the gaussian family (identity link); "
                         f"the {type(family).__name__.lower()} family's score and likelihood-ratio tests have "
                         "no robust version here: use cov_type='nonrobust', or a stepwise method, whose "
                         "refit alone then uses cov_type")
    glm_refit = not least_squares or bool(set(weights) & {"offset", "exposure"})
    if glm_refit and cov in ("HC1", "HC2", "HC3"):
        what = "this family" if not least_squares else "least squares with an offset"
        raise ValueError(f"cov_type={cov!r} is not available for {what}: the refit is a statsmodels GLM, "
                         "which computes HC1, HC2 and HC3 as HC0 (no small-sample or leverage correction); "
                         "use cov_type='HC0' or 'cluster'")
    if glm_refit and cov == "cluster" and "var_weights" in weights:
        raise ValueError("cov_type='cluster' with var_weights is not supported by statsmodels' GLM refit (it "
                         "warns 'not fully supported'); use cov_type='HC0'")
    return cov, groups, robust_tests


def cov_structure(cov_type: str, groups: Any, n: int, frame: pd.DataFrame | None = None,
                  rows: np.ndarray | None = None) -> RobustCov:
    """The checked ``cov_type`` with its clusters on the rows used.

    Parameters
    ----------
    cov_type, groups : str, column name or array
        :func:`check_cov_type`'s type and groups (``Options.cov_type``, ``Options.cov_groups``).
    n : int
        Rows of the data (observations of ``y`` in :func:`~streamreg.select`): an array of
        groups must have this length.
    frame : DataFrame, optional
        Where a groups column is read, on the rows used.
    rows : array of positions, optional
        The rows used: an array of groups is cut to them.

    Raises
    ------
    ValueError
        Groups of the wrong length, with missing values, or forming a single cluster.
    """
    if cov_type != "cluster":
        return RobustCov(cov_type)
    spec = groups
    if isinstance(spec, str):
        check_weight_column("cov_kwds['groups']", spec, frame)
        assert frame is not None  # refused above otherwise
        values = frame[spec].to_numpy()
        where = f" (column {spec!r})"
    else:
        if len(spec) != n:
            raise ValueError(f"cov_kwds['groups'] has {len(spec)} values, but the data have {n} rows")
        values, where = (spec if rows is None else spec[rows]), ""
    missing = np.flatnonzero(pd.isna(values))
    if missing.size:
        raise ValueError(f"cov_kwds['groups']{where} has {missing.size} missing value(s), the first at position "
                         f"{missing[0]}; every observation needs a cluster")
    codes, labels = pd.factorize(values, sort=True)
    if len(labels) < 2:
        raise ValueError(f"cov_kwds['groups']{where} holds a single cluster on the rows used; cluster-robust "
                         "standard errors need at least two clusters")
    return RobustCov("cluster", codes.astype(np.intp))
