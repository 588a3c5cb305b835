"""The robust (Boos) score statistics of single-column candidates, computed from the scoring
kernel's products and strips of residuals, equal the whole-block residualisation they replace,
with either kernel and across strip boundaries."""
import numpy as np
import pytest
import statsmodels.api as sm

from streamreg.models import kernels, make_state, robust_score as robust_module
from streamreg.models.base import TESTED, CandidateBlock
from streamreg.models.robust_score import robust_score_block


def _whole_block(state, values, codes):
    """The statistic as a residualised copy of the whole weighted block gives it."""
    z = state.z_resid
    resid = state.basis.residualise(state.sqrt_w[:, None] * values)
    score, variance = resid.T @ z, (resid * resid).T @ (z * z)
    return np.where((codes == TESTED) & (variance > 0), score * score / variance, 0.0)


@pytest.mark.parametrize("setting", ["numpy", "numba"])
@pytest.mark.parametrize("order", ["F", "C"])
def test_single_column_statistics_equal_the_whole_block_residualisation(setting, order, monkeypatch):
    if setting == "numba" and not kernels.numba_available():
        pytest.skip("numba is not installed")
    monkeypatch.setenv(kernels.KERNEL_ENV, setting)
    monkeypatch.setattr(robust_module, "_STRIP_VALUES", 1000)  # strips of 1000 // 37 = 27 rows
    rng = np.random.default_rng(5)
    n = 700
    fixed = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = rng.poisson(np.exp(0.4 + 0.3 * fixed[:, 1])).astype(float)
    values = np.asarray(rng.normal(size=(n, 37)) * rng.uniform(0.1, 10.0, 37), order=order)
    values[:, 5] = fixed[:, 1]  # collinear with the model: skipped, statistic 0
    values[:, 6] = 3.0 * fixed[:, 1] + 1e-4 * rng.normal(size=n)  # nearly in the model's span
    before = values.copy()
    state = make_state(y, fixed, sm.families.Poisson(), "score-f")
    out, codes = robust_score_block(state, CandidateBlock(values))
    expected = _whole_block(state, values, codes)
    assert codes[5] != TESTED and out.statistic[5] == 0.0
    _, model_codes = state.score_block(CandidateBlock(values))  # the skips of the model-based test
    np.testing.assert_array_equal(codes, model_codes)
    np.testing.assert_allclose(out.statistic, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(values, before)
