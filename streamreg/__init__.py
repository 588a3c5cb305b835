"""streamreg: streamwise feature selection for regression and GLMs.

Candidate terms arrive one at a time from *streams*; each is tested once against the
current model and a wealth rule (alpha-investing by default) decides, so the expected
number of false selections stays controlled however long the stream is.

>>> import streamreg as sr
>>> df = sr.datasets.load("wdbc").data
>>> fit = sr.streamreg("diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", df,
...                    family="binomial", w0=0.05, alpha_delta=0.05)
>>> print(fit.summary())  # doctest: +SKIP
"""
from . import datasets, policies
from .api import RefitWarning, select, streamreg
from .fdr import online_fdr
from .formula import FormulaError
from .policies import AlphaInvesting, InformationInvesting, Policy
from .results import StreamRegResults
from .results.anova import AnovaTable, anova
from .results.compare import ComparisonTable, compare
from .streams.registry import register_stream_class

__version__ = "0.1.0"

__all__ = [
    "AlphaInvesting",
    "AnovaTable",
    "ComparisonTable",
    "FormulaError",
    "InformationInvesting",
    "Policy",
    "RefitWarning",
    "StreamRegResults",
    "anova",
    "compare",
    "datasets",
    "online_fdr",
    "policies",
    "register_stream_class",
    "select",
    "streamreg",
]
