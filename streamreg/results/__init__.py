"""Results of a streamwise selection: refit, history, summary, tables and plots."""
from .results import StreamRegResults

__all__ = ["StreamRegResults"]
