"""``test="score-f"`` against R's quasi families (tests/reference/add1_quasi.R).

R's ``add1(glm(..., family = quasipoisson | quasibinomial), test = "Rao")`` divides the score
statistic by the Pearson dispersion of the base fit.  streamreg's score-f test reports that
number as ``llr`` and refers its F form, ``d F = R (rdf - d) / (rdf - R)``, to F(d, rdf - d);
both are checked here at the maximum-likelihood fit (R's printed add1 column carries glm's
convergence error, as explained in test_r_reference.py).
"""
from __future__ import annotations

import numpy as np
import pytest
from reference_csv import read_ref
from test_r_reference import ADD1_RAO_REL, FAMILIES, STAT_ABS, STAT_REL, add1_inputs

from streamreg.models.base import TESTED
from streamreg.models.glm import GLMState

QUASI = read_ref("add1_quasi.csv", text={"case", "term"})


@pytest.mark.parametrize("case", sorted(set(QUASI["case"])))
def test_score_f_equals_quasi_family_rao(case):
    spec, y, fixed, block, names = add1_inputs(case)
    r = QUASI[QUASI["case"] == case].set_index("term").loc[names]
    state = GLMState(y, fixed, FAMILIES[spec.family](), test="score-f")
    assert state.pearson_dispersion == pytest.approx(r["dispersion"].iloc[0], rel=1e-9)
    out, codes = state.score_block(block)
    assert (codes == TESTED).all()
    np.testing.assert_array_equal(out.df, r["df"].to_numpy(dtype=int))
    np.testing.assert_array_equal(out.df_resid, (r["df_resid"] - r["df"]).to_numpy(dtype=float))
    np.testing.assert_allclose(out.llr, r["scaled_rao_at_mle"].to_numpy(dtype=float), rtol=STAT_REL, atol=STAT_ABS)
    np.testing.assert_allclose(out.llr, r["add1_scaled_rao"].to_numpy(dtype=float), rtol=ADD1_RAO_REL)
    np.testing.assert_allclose(out.statistic, r["f_statistic"].to_numpy(dtype=float), rtol=STAT_REL, atol=STAT_ABS)
    np.testing.assert_allclose(out.pvalue, r["f_pvalue"].to_numpy(dtype=float), rtol=1e-6, atol=0)


def test_score_f_is_the_partial_f_for_least_squares():
    """For the Gaussian identity model the working regression is the regression itself."""
    import statsmodels.api as sm

    from streamreg.models import GaussianState
    from streamreg.models.base import CandidateBlock

    rng = np.random.default_rng(5)
    n = 60
    fixed = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = fixed @ [1.0, 0.5] + rng.normal(size=n)
    block = CandidateBlock(rng.normal(size=(n, 4)), np.array([1, 1, 2]))
    glm = GLMState(y, fixed, sm.families.Gaussian(), test="score-f").score_block(block)[0]
    ols = GaussianState(y, fixed, test="t").score_block(block)[0]
    np.testing.assert_allclose(glm.statistic, ols.statistic, rtol=1e-10)
    np.testing.assert_allclose(glm.pvalue, ols.pvalue, rtol=1e-9)
