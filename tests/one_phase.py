"""The one-phase streamwise rule (alpha-investing, ``w0 = alpha_delta = 0.05``, uniform spending).

The default (``method=None``) screens then confirms over streams held in memory and runs one
phase over streams read once (generators, Dask), so a test that compares two kinds of stream,
or that is about something other than the rule, names this rule on both sides.
"""
ONE_PHASE = {"method": "alpha-investing", "w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"}
