"""Search drivers: the loops that walk streams and ask policies.

Every way of searching is a :class:`~.method.SearchMethod` with one ``run(...)``, run with
the validated :class:`~.options.SearchOptions`; :func:`~.methods.resolve_method` builds it
from ``method=`` (:func:`~.methods.method_names` lists the names), and the option layer asks
its :func:`~.method.capabilities`.
"""
from .fsa_method import FSA
from .history import HistoryRecorder, Status
from .method import Capabilities, SearchMethod, capabilities
from .methods import method_factory, method_names, resolve_method
from .options import HISTORY_MODES, STOPPING_RULES, SearchOptions
from .penalised import BPSFS, Grafting, PenalisedSearchResult
from .result import SearchResult
from .stepwise import Stepwise, StepwiseResult
from .streamwise import Streamwise, streamwise_search

__all__ = ["HistoryRecorder", "SearchMethod", "SearchResult", "Status", "Streamwise", "streamwise_search"]
__all__ += ["BPSFS", "FSA", "Grafting", "PenalisedSearchResult", "Stepwise", "StepwiseResult", "resolve_method"]
__all__ += ["HISTORY_MODES", "STOPPING_RULES", "Capabilities", "SearchOptions", "capabilities", "method_factory",
            "method_names"]
