"""The robust (sandwich) score test of candidates against a GLM fit.

Rao's score test of adding ``x`` to a GLM compares the score ``U = x~' z`` (``x~`` the
candidate's square-root-weighted column residualised on the current design, ``z`` the
Pearson residuals) with its model-based variance, ``phi x~'x~``.  When the variance function
is wrong -- counts whose omitted covariates give a few huge observations -- that variance is
far too small along the few rows that carry the score, and a null column that happens to be
large there looks significant.  The robust test (Boos 1992, "On generalized score tests")
estimates the variance from the same residuals, ``V = sum_i x~_i^2 z_i^2``, so one dominating
row gives a statistic near 1 whatever its size; ``U' V^-1 U`` is asymptotically chi-square
with the term's columns as degrees of freedom.  (statsmodels'
``GLMResults.score_test(exog_extra, cov_type="HC0")`` centres the score contributions and
scales by ``n / (n - 1)``; Boos's form, used here, does neither: under the null the score has
mean zero.)

The confirmation of ``method="screen-confirm"`` uses it for the families whose candidates are
tested with an estimated dispersion (``test="score-f"``: Poisson, negative binomial with a fixed
``alpha``, binomial proportions), where the screened model is chosen from the same counts.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from ..outcomes import TestOutcomes
from .base import TESTED, CandidateValues, gain_from_products
from .weighted import weighted_products

#: values of a block residualised at once in the variance pass (8 MB: a strip of rows stays in the cache)
_STRIP_VALUES = 1 << 20

__all__ = ["robust_score_block"]


def _log_sf(statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    return np.asarray(stats.chi2.logsf(statistic, df))


def robust_score_block(state: Any, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
    """The robust score test of every candidate of ``block`` against the GLM ``state``
    (a :class:`~streamreg.models.glm.GLMState`); its skip codes are the state's own.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from streamreg.models import make_state
    >>> from streamreg.models.base import CandidateBlock
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2)); y = rng.poisson(np.exp(0.5 + 0.3 * x[:, 0])).astype(float)
    >>> state = make_state(y, np.ones((200, 1)), sm.families.Poisson(), "score-f")
    >>> out, codes = robust_score_block(state, CandidateBlock(x))
    >>> e, xc = y - y.mean(), x[:, 0] - x[:, 0].mean()   # intercept-only Poisson fit: mu = mean(y)
    >>> bool(np.isclose(out.statistic[0], (xc @ e) ** 2 / (xc ** 2 @ e ** 2)))
    True
    """
    m = len(block)
    from_sums = getattr(state, "robust_parts_from_sums", None)
    parts = None if from_sums is None else from_sums(block)
    if parts is not None:  # one term against a sub-model whose basis is pending (a drop-one test)
        score, variance = parts
        codes = state.skip_codes(block, np.ones(1, dtype=int))
        stat = np.array([score * score / variance if codes[0] == TESTED and variance > 0 else 0.0])
        return TestOutcomes(stat, np.ones(1, dtype=int), np.full(1, np.inf), stat.copy(), _log_sf), codes
    values = block.values
    if not isinstance(values, np.ndarray):  # a sparse block: the confirmation reads one block at a time
        values = np.asarray(values.toarray() if hasattr(values, "toarray") else values, dtype=float)
    z = state.z_resid
    stat = np.zeros(m)
    df = np.maximum(block.widths, 1).astype(float)
    if (block.widths == 1).all():
        score, variance, codes = _single_column_parts(state, block, values)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where((codes == TESTED) & (variance > 0), score * score / variance, 0.0)
    else:
        _, codes = state.score_block(block)  # ranks and skips exactly as the model-based test
        b_all = state.sqrt_w[:, None] * values
        for j in np.flatnonzero(codes == TESTED):
            sl = slice(int(block.starts[j]), int(block.starts[j] + block.widths[j]))
            resid = state.basis.residualise(b_all[:, sl])
            score = resid.T @ z
            meat = (resid * (z * z)[:, None]).T @ resid
            solved, *_ = np.linalg.lstsq(meat, score, rcond=None)
            stat[j] = float(score @ solved)
            df[j] = float(np.linalg.matrix_rank(meat))
    stat = np.where(codes == TESTED, stat, 0.0)
    return TestOutcomes(stat, df.astype(int), np.full(m, np.inf), stat.copy(), _log_sf), codes


def _single_column_parts(state: Any, block: CandidateValues,
                         values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each column's robust score ``U = x~'z``, its variance ``V = sum_i x~_i^2 z_i^2``
    (``x~ = (I - QQ') W^1/2 x``) and its skip code, without an ``n x m`` copy of the block.

    One pass of the scoring kernel gives ``C = Q' W^1/2 X``, ``z' W^1/2 X`` and the weighted
    norms: the ranks and skip codes of the model-based score test (the same products, so the
    same decisions), and ``U = z'b - (Q'z)'c``.  A second pass forms the residuals ``b - Q c``
    a strip of rows at a time and sums their squares weighted by ``z^2``: the same residuals as
    a whole-block residualisation, summed in another order.
    """
    z, root = state.z_resid, state.sqrt_w
    q_and_z = state.basis.with_target(z)  # [Q z]: the state's own scoring basis
    k = q_and_z.shape[1] - 1
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        products, norm2 = weighted_products(q_and_z, values, root)
        _, rank = gain_from_products(q_and_z, products.copy(), norm2, lambda idx: root[:, None] * values[:, idx])
    codes = state.skip_codes(block, rank)
    coords = products[:k]
    score = products[k] - (q_and_z[:, :k].T @ z) @ coords
    variance = np.zeros(values.shape[1])
    rows = max(1, _STRIP_VALUES // max(values.shape[1], 1))
    z2 = z * z
    q = q_and_z[:, :k]
    for start in range(0, values.shape[0], rows):
        strip = slice(start, start + rows)
        resid = values[strip] * root[strip, None]
        resid -= q[strip] @ coords
        resid *= resid
        variance += z2[strip] @ resid
    return score, variance, codes
