"""Search drivers: the loops that walk streams and ask policies."""
from .streamwise import SearchResult, streamwise_search

__all__ = ["SearchResult", "streamwise_search"]
