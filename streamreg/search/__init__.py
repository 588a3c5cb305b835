"""Search drivers: the loops that walk streams and ask policies."""
from .streamwise import SearchResult, streamwise_search
from .stepwise import Stepwise, StepwiseResult
from .penalised import BPSFS, Grafting, PenalisedSearchResult
from .methods import resolve_method, run_search_method

__all__ = ["SearchResult", "streamwise_search"]
__all__ += ["Stepwise", "StepwiseResult", "Grafting", "BPSFS", "PenalisedSearchResult", "resolve_method",
            "run_search_method"]
