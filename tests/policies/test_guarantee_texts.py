"""What the summaries claim for the investing rules, and the tail bounds the claims rest on."""
from __future__ import annotations

import numpy as np
from one_phase import ONE_PHASE
from scipy import stats

import streamreg as sr


def test_the_chi_square_tail_bounds_behind_information_investing():
    s = np.linspace(0.01, 60, 400)
    bound = np.exp(-s / 2)
    assert (stats.chi2.sf(s, 1) <= bound).all()  # P(|Z| > t) <= exp(-t^2 / 2)
    np.testing.assert_allclose(stats.chi2.sf(s, 2), bound, rtol=1e-10)  # equality for two columns
    assert (stats.chi2.sf(s, 3) > bound).all()  # the bound fails from three columns on


def test_investing_summaries_state_their_caveats():
    df = sr.datasets.make_synthetic(100, 30, 2, noise=1.0, seed=0).data
    default = " ".join(sr.streamreg("y ~ stream(x*)", df).guarantee().split())  # screen, then confirm
    assert "confirmed by alpha-investing: mFDR = E[V]/(E[R] + 2.5) <= 0.02" in default
    assert "made against a model chosen from the same data, so this holds approximately" in default
    assert default.endswith("with no signal, P(any selection) is about w0 = 0.05.")
    ai = sr.streamreg("y ~ stream(x*)", df, passes=3, **ONE_PHASE)  # alpha-investing, uniform spending
    assert "with no signal in the stream, P(any selection) <= w0 = 0.05. Streamwise p-values come from nested " \
           "fits to one response and are not independent, so this is approximate here." in ai.guarantee()
    assert ai.guarantee().endswith("Bids spread evenly over each stream's tests (its candidates times passes, at "
                                   "most max_tests); a stream of unknown length keeps the decaying sequence.")
    ii = sr.streamreg("y ~ stream(x*)", df, method="information-investing")
    assert "for d >= 3 columns the chi-square tail exceeds exp(-S/2)" in ii.guarantee()
    text = " ".join(str(ii.summary()).split())
    assert "Plug-in estimate of false selections (w_delta*k + W0 - W_final, in bits)" in text
    assert "Plug-in estimate of false selections (alpha_delta*k + W0 - W_final)" in " ".join(str(ai.summary()).split())
