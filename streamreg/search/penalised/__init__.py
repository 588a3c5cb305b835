"""L1-penalised online selection: grafting (Perkins and Theiler 2003) and BP-SFS (Wang and Luan 2019)."""
from .bpsfs import BPSFS, BayesLambdaRule, bayes_lambda, rule1_threshold
from .engine import L1Model
from .grafting import Grafting, PenalisedSearchResult

__all__ = ["BPSFS", "BayesLambdaRule", "Grafting", "L1Model", "PenalisedSearchResult", "bayes_lambda", "rule1_threshold"]
