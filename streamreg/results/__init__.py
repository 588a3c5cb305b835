"""Results of a streamwise selection: refit, history, summary, tables and plots."""
from .refit import RefitWarning
from .results import StreamRegResults
from .selected import SelectedModel, SelectionRecord, describe_test, fit_selected

__all__ = ["RefitWarning", "SelectedModel", "SelectionRecord", "StreamRegResults", "describe_test", "fit_selected"]
