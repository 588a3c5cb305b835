"""Feature screening: offline filter scores, online screeners, FSA and stream ordering.

Methods follow Wang (2021), *Online and offline feature screening and applications*
(M. Wang 2021), chapters 2-3.

* :func:`score` / :func:`rank` / :func:`top` - offline scores for every column;
* :class:`OnlineMomentScreener` (T, Fisher) and :class:`OnlineQuantileScreener`
  (chi2, Gini, MI) - minibatch ``partial_fit`` with optional fading;
* :class:`QuantileSketch` - the mergeable weighted quantile summary behind the latter;
* :func:`fsa` / :func:`fsa_schedule` - Feature Selection with Annealing;
* :func:`order_columns` / :func:`order_needs_y` - order a feature stream.
"""
from .binning import bin_codes, bin_counts
from .fsa import FSAResult, fsa, fsa_schedule
from .offline import METHODS, canonical_method, rank, score, top
from .online import OnlineMomentScreener, OnlineQuantileScreener
from .ordering import ORDERS, order_columns, order_needs_y
from .sketch import QuantileSketch

__all__ = [
    "score", "rank", "top", "METHODS", "canonical_method",
    "bin_counts", "bin_codes",
    "OnlineMomentScreener", "OnlineQuantileScreener", "QuantileSketch",
    "fsa", "fsa_schedule", "FSAResult",
    "order_columns", "order_needs_y", "ORDERS",
]
