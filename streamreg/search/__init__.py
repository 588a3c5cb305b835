"""Search drivers: the loops that walk streams and ask policies.

Every way of searching is a :class:`~.method.SearchMethod` with one ``run(...)``;
:func:`~.methods.resolve_method` builds it from ``method=``.
"""
from .fsa_method import FSA
from .history import HistoryRecorder, Status
from .method import SearchMethod
from .methods import resolve_method
from .penalised import BPSFS, Grafting, PenalisedSearchResult
from .result import SearchResult
from .stepwise import Stepwise, StepwiseResult
from .streamwise import Streamwise, streamwise_search

__all__ = ["HistoryRecorder", "SearchMethod", "SearchResult", "Status", "Streamwise", "streamwise_search"]
__all__ += ["BPSFS", "FSA", "Grafting", "PenalisedSearchResult", "Stepwise", "StepwiseResult", "resolve_method"]
